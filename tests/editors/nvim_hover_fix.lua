-- Headless Neovim: hover on a phantom call, then apply specward's quick fix through the
-- editor and wait for the diagnostic to go. Prints one JSON line on stdout.
-- Environment: SPECWARD_CMD (JSON list), SPECWARD_ROOT, SPECWARD_FILE, SPECWARD_NEEDLE.
local cmd = vim.fn.json_decode(os.getenv("SPECWARD_CMD"))
local root = os.getenv("SPECWARD_ROOT")
local needle = os.getenv("SPECWARD_NEEDLE")

vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. os.getenv("SPECWARD_FILE")))
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({ name = "specward", cmd = cmd, root_dir = root })
vim.lsp.buf_attach_client(buf, client_id)

local function fail(code, msg) io.stderr:write(msg .. "\n"); vim.cmd("cquit " .. code) end
local function codes()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(out, c)
  end
  table.sort(out)
  return out
end

if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then fail(3, "no diagnostics") end

-- the cursor on the phantom URL
local row, col
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  local s = line:find(needle, 1, true)
  if s then row, col = i - 1, s end
end
if not row then fail(4, "needle not found") end
local pos = { line = row, character = col }
local uri = vim.uri_from_bufnr(buf)

local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", { textDocument = { uri = uri }, position = pos }, 10000)
local hover_text = ""
for _, r in pairs(hover or {}) do
  if r.result and r.result.contents then hover_text = r.result.contents.value or "" end
end

-- LSP diagnostics rebuilt from vim.diagnostic (Neovim 0.7 keeps no range/message in user_data)
local lsp_diags = {}
for _, d in ipairs(vim.diagnostic.get(buf, { lnum = row })) do
  table.insert(lsp_diags, {
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    message = d.message, severity = d.severity, source = d.source,
    code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
  })
end
local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
  textDocument = { uri = uri }, range = { start = pos, ["end"] = pos }, context = { diagnostics = lsp_diags },
}, 10000)
local titles, chosen = {}, nil
for _, r in pairs(actions or {}) do
  for _, a in ipairs(r.result or {}) do
    table.insert(titles, a.title)
    if a.isPreferred and not chosen then chosen = a end
  end
end
if not chosen then fail(5, "no preferred quick fix; got " .. vim.fn.json_encode(titles)) end
local before = #vim.diagnostic.get(buf)
vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")
local ok = vim.wait(30000, function() return #vim.diagnostic.get(buf) == before - 1 end, 50)

io.stdout:write(vim.fn.json_encode({ hover = hover_text, titles = titles, applied = chosen.title, fixed = ok,
                                     codes = codes(),
                                     line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] }) .. "\n")
io.stdout:flush()
vim.lsp.stop_client(client_id)
vim.cmd("qall!")
