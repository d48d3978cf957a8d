"""``specward mcp`` driven by the MCP SDK's own client over stdio (``python -m specward.server
mcp --workspace <copy of examples/fullstack>``), plus what a client cannot see: that
``check_text`` leaves the index as the disk has it, and that the language server's and the
checker's code paths never import the SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from specward.analyzers import ledger as core
from specward.server.agent_tools import Tools, ToolError

from conftest import copy_example

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {"check_text", "endpoints", "resolve_import", "ledger_prompt", "project_map", "context_capture",
         "context_check"}
PHANTOM = ("import { api } from '../api/http';\n\n"
           "export const feed = () => api.get('/tag');\n")


@asynccontextmanager
async def session(root: Path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "specward.server", "mcp", "--workspace",
                                                                 str(root)], cwd=str(root))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            yield s


async def call(s: ClientSession, tool: str, **arguments) -> dict:
    result = await s.call_tool(tool, arguments)
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the workspace but specward's own cache."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".specward" not in p.relative_to(root).parts}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "ws")


async def test_tools_check_text_and_the_disk_unchanged(ws: Path):
    before = snapshot(ws)
    async with session(ws) as s:
        listed = await s.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        # a web file with a phantom call, as an agent proposes it: an existing file's path ...
        got = await call(s, "check_text", path="web/src/features/search.ts", content=PHANTOM)
        phantom = [f for f in got["findings"] if f["code"] == "phantom-api"]
        assert len(phantom) == 1 and phantom[0]["severity"] == "error"
        assert "GET /api/tag " in phantom[0]["message"]
        assert (phantom[0]["line"], phantom[0]["column"]) == (3, 35)
        fixes = phantom[0]["fixes"]  # the editor's quick fix: the nearest declared path
        assert any(f["title"] == "Replace with GET /api/tags" and f["new_text"] == "'/tags'"
                   for f in fixes), fixes
        # the disk's own findings of that file (a phantom import and a missing export) are gone
        assert not {"phantom-import", "missing-export"} & {f["code"] for f in got["findings"]}
        # ... and a new file's
        fresh = await call(s, "check_text", path="web/src/features/feed.ts", content=PHANTOM)
        assert fresh["exists_on_disk"] is False and fresh["errors"] == 1
        # the file on disk is still the disk's: checking its own text finds its own mistakes
        own = await call(s, "check_text", path="web/src/features/search.ts",
                         content=(ws / "web/src/features/search.ts").read_text())
        assert {"phantom-import", "missing-export"} <= {f["code"] for f in own["findings"]}
        # paths out of the workspace are refused
        for bad in ("../outside.ts", "/etc/passwd", "web/../../x.ts", str(ws.parent / "x.ts")):
            result = await s.call_tool("check_text", {"path": bad, "content": ""})
            assert result.isError and "refused" in result.content[0].text, bad
    assert snapshot(ws) == before
    assert not (ws / "web/src/features/feed.ts").exists()


async def test_endpoints_resolve_import_and_project_map(ws: Path):
    before = snapshot(ws)
    async with session(ws) as s:
        users = await call(s, "endpoints", prefix="/api/users")
        assert {(e["method"], e["path"]) for e in users["endpoints"]} == {
            ("GET", "/api/users"), ("POST", "/api/users"), ("GET", "/api/users/{id}"),
            ("DELETE", "/api/users/{id}")}
        assert all(e["file"] == "contracts/openapi.yaml" and e["summary"] for e in users["endpoints"])
        everything = await call(s, "endpoints")
        assert everything["count"] == 13 > users["count"]

        name = await call(s, "resolve_import", from_path="web/src/features/search.ts", module="../api/request",
                          name="gett")
        assert name["module_exists"] is True and name["name_exists"] is False and name["exists"] is False
        assert name["resolved_path"] == "web/src/api/request.ts" and name["candidates"] == ["get"]
        module = await call(s, "resolve_import", from_path="web/src/features/search.ts", module="../api/requests")
        assert module["exists"] is False and module["candidates"] == ["../api/request"]
        assert module["problems"][0]["code"] == "phantom-import"
        ok = await call(s, "resolve_import", from_path="web/src/features/search.ts", module="../api/request",
                        name="get")
        assert ok["exists"] is True and ok["problems"] == []
        py = await call(s, "resolve_import", from_path="scripts/sync_users.py", module="httpx")
        assert py["exists"] is True and py["resolved_kind"] == "package"

        m = await call(s, "project_map")
        assert [c["file"] for c in m["contracts"]] == ["contracts/articles.dsl.json", "contracts/openapi.yaml"]
        routes = {r["file"]: r for r in m["routes"]}
        assert set(routes) == {"backend/articles.js", "backend/users.py"}
        assert routes["backend/users.py"]["framework"] == ["fastapi"]
        assert "GET /api/users/{user_id}" in routes["backend/users.py"]["routes"]
        assert {"file": "web/src/api/http.ts", "clients": [{"name": "api", "kind": "axios", "factory": None}]} \
            in m["api_clients"]
        assert "web/src/features/articles.ts" in {c["file"] for c in m["http_callers"]}
        assert {"package.json", "pyproject.toml"} <= set(m["config_files"])
        assert m["conventions"]["route_frameworks"] == {"express": 7, "fastapi": 6}
    assert snapshot(ws) == before


async def test_ledger_prompt_and_context_tools(ws: Path):
    record = core.make_record("../utils/timing", ["debounce"], "file_not_found", "web/src/features/search.ts", 3,
                              "rewrite_import", "lodash", "ai", core.format_ts(1_700_000_000), "run-1")
    (ws / ".specward").mkdir()
    (ws / ".specward/fix-history.jsonl").write_text(core.record_line(record))
    before = snapshot(ws)
    async with session(ws) as s:
        got = await call(s, "ledger_prompt")
        assert got["patterns"] == 1
        assert "DO NOT REPEAT" in got["prompt"]
        assert "DO NOT: import { debounce } from '../utils/timing'" in got["prompt"]

        captured = await call(s, "context_capture", paths=["web/src/features/search.ts"])
        assert captured["written"] is False
        assert captured["files"][:2] == ["web/src/features/search.ts", "web/src/api/request.ts"]
        assert any("../utils/timing" in m["what"] for m in captured["missing"])
        checked = await call(s, "context_check", manifest=captured["manifest"])
        assert checked["valid"] is True and checked["complete"] is False
        bad = await call(s, "context_check", manifest="{\"version\": 1}")
        assert bad["valid"] is False and bad["problems"]
    assert snapshot(ws) == before
    assert not (ws / ".specward/context").exists()


def test_check_text_restores_the_index(ws: Path):
    tools = Tools(ws)
    tools.wait(120)
    try:
        before = tools.index.all_findings()
        def verdicts():
            return [(st.call.file, st.call.span, st.call.method, st.call.template, st.status, st.endpoint, st.finding)
                    for st in tools.index.all_statuses()]

        statuses = verdicts()
        tools.check_text("web/src/features/search.ts", PHANTOM)
        tools.check_text("web/src/features/new.ts", PHANTOM)
        tools.check_text("contracts/openapi.yaml", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
        assert tools.index.all_findings() == before
        assert verdicts() == statuses
        assert "web/src/features/new.ts" not in tools.index.facts
        with pytest.raises(ToolError, match="configuration"):
            tools.check_text("pyproject.toml", "")
        with pytest.raises(ToolError, match="outside"):
            tools.resolve_import("/etc/passwd", "x")
    finally:
        tools.close()


def test_the_language_server_and_check_never_import_the_sdk():
    code = ("import sys, specward.server.cli, specward.server.lsp.server\n"
            "print(','.join(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_check_files_judges_new_files_that_import_each_other_together(ws: Path):
    """A generated slice is checked as a whole: a new file importing another new file is
    not a phantom import, while the same file checked alone is; the index is the disk's
    again afterwards and the facts of each file are handed back."""
    helper = "export const notesPath = (id: string) => `/notes/${id}`;\n"
    user = ("import { notesPath } from './notes-path';\n"
            "export const load = (id: string) => fetch(notesPath(id));\n")
    tools = Tools(ws)
    tools.wait(120)
    try:
        before = tools.index.all_findings()
        alone = tools.check_text("web/src/features/notes-user.ts", user)
        assert any(f["code"] == "phantom-import" for f in alone["findings"]), alone
        facts: dict = {}
        both = tools.check_files({"web/src/features/notes-path.ts": helper,
                                  "web/src/features/notes-user.ts": user}, facts=facts)
        assert [r["path"] for r in both] == ["web/src/features/notes-path.ts", "web/src/features/notes-user.ts"]
        assert not any(f["code"].startswith("phantom-import") for r in both for f in r["findings"]), both
        assert set(facts) == {"web/src/features/notes-path.ts", "web/src/features/notes-user.ts"}
        assert facts["web/src/features/notes-user.ts"].imports
        assert "web/src/features/notes-path.ts" not in tools.index.facts
        assert tools.index.all_findings() == before
    finally:
        tools.close()
