-- Headless Neovim: from an HTTP call in the frontend, "go to definition" (the editor's own
-- vim.lsp.buf.definition) reaches the contract's operation, and from there the backend
-- handler, whose path is composed across other files. Prints one JSON line on stdout: each
-- stop's file (relative to the root), 1-based line and the text of that line.
-- Environment: SPECWARD_CMD (JSON list), SPECWARD_ROOT, SPECWARD_FILE, SPECWARD_NEEDLE
-- (the text the cursor is put on), SPECWARD_HOPS (how many definitions to follow).
local cmd = vim.fn.json_decode(os.getenv("SPECWARD_CMD"))
local root = os.getenv("SPECWARD_ROOT")
local needle = os.getenv("SPECWARD_NEEDLE")
local hops = tonumber(os.getenv("SPECWARD_HOPS") or "1")

local function fail(code, msg) io.stderr:write(msg .. "\n"); vim.cmd("cquit " .. code) end

vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. os.getenv("SPECWARD_FILE")))
local client_id = vim.lsp.start_client({ name = "specward", cmd = cmd, root_dir = root })
if not client_id then fail(2, "could not start specward") end
vim.lsp.buf_attach_client(0, client_id)
-- every buffer a jump opens talks to the same server (no lspconfig here to do it)
vim.api.nvim_create_autocmd("BufEnter", { callback = function(args)
  vim.lsp.buf_attach_client(args.buf, client_id)
end })

-- indexed: the server answers a request about the call (it says nothing before)
local function indexed()
  local r = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "" }, 2000)
  for _, res in pairs(r or {}) do
    if res.result and #res.result > 0 then return true end
  end
  return false
end
if not vim.wait(30000, indexed, 200) then fail(3, "the server never listed a symbol") end

local row, col
for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
  local s = line:find(needle, 1, true)
  if s and not row then row, col = i, s end
end
if not row then fail(4, "needle not found") end
vim.api.nvim_win_set_cursor(0, { row, col })

local stops = {}
for hop = 1, hops do
  local before = vim.api.nvim_buf_get_name(0) .. ":" .. vim.api.nvim_win_get_cursor(0)[1]
  vim.lsp.buf.definition()
  local moved = vim.wait(15000, function()
    return vim.api.nvim_buf_get_name(0) .. ":" .. vim.api.nvim_win_get_cursor(0)[1] ~= before
  end, 50)
  if not moved then fail(5, "definition " .. hop .. " did not move from " .. before) end
  local name = vim.api.nvim_buf_get_name(0)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  table.insert(stops, { file = name:sub(#root + 2), line = line,
                        text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1] })
end

io.stdout:write(vim.fn.json_encode({ stops = stops }) .. "\n")
io.stdout:flush()
vim.lsp.stop_client(client_id)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd("qall!")
