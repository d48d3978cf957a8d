-- Headless Neovim as a real LSP client: start `specward serve`, open a file, wait for
-- diagnostics, print them as JSON on stdout. Works on Neovim 0.7 and current releases.
-- Environment: SPECWARD_CMD (JSON list), SPECWARD_ROOT, SPECWARD_FILE.
local cmd = vim.fn.json_decode(os.getenv("SPECWARD_CMD"))
local root = os.getenv("SPECWARD_ROOT")
local file = os.getenv("SPECWARD_FILE")

vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. file))
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "specward",
  cmd = cmd,
  root_dir = root,
  on_exit = function(code) io.stderr:write("specward exited with " .. tostring(code) .. "\n") end,
})
if not client_id then
  io.stderr:write("could not start specward\n")
  vim.cmd("cquit 2")
end
vim.lsp.buf_attach_client(buf, client_id)

local ok = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
if not ok then
  io.stderr:write("no diagnostics within 30 s\n")
  vim.cmd("cquit 3")
end

local function dump()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then code = d.user_data.lsp.code end
    table.insert(out, { lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity,
                        message = d.message, code = code, source = d.source })
  end
  io.stdout:write(vim.fn.json_encode(out) .. "\n")
  io.stdout:flush()
end
dump()

-- Optionally, replace a contract on disk (SPECWARD_CONTRACT, with the text of the file
-- SPECWARD_CONTRACT_NEW) and wait until the open buffer's diagnostics change: a change in
-- another file must reach the open document without an edit of it.
local contract, replacement = os.getenv("SPECWARD_CONTRACT"), os.getenv("SPECWARD_CONTRACT_NEW")
if contract and replacement then
  local before = #vim.diagnostic.get(buf)
  local src = assert(io.open(replacement, "rb"))
  local text = src:read("*a")
  src:close()
  local dst = assert(io.open(root .. "/" .. contract, "wb"))
  dst:write(text)
  dst:close()
  if not vim.wait(30000, function() return #vim.diagnostic.get(buf) ~= before end, 50) then
    io.stderr:write("the open buffer's diagnostics did not change within 30 s of the contract edit\n")
    vim.cmd("cquit 4")
  end
  dump()
end
vim.lsp.stop_client(client_id)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd("qall!")
