"""Routes as the contract, over stdio: with no contract file, the frontend's calls are
judged against the backend's routes, the hover on a call shows its handler's signature and
docstring, and definition reaches the handler through the prefixes of other files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from conftest import code_actions_as_sent, pushed_client, wait_for
from test_index_route_contract import BACKEND, make
from test_lsp_ide import at, hover


@pytest.fixture
def routes_workspace(tmp_path: Path) -> Path:
    return make(tmp_path / "ws", BACKEND)


client = pushed_client(workspace="routes_workspace")


async def test_calls_against_routes_in_the_editor(client):
    uri = (client.workspace_root / "web/src/api.ts").as_uri()
    diags = await wait_for(lambda: client.diagnostics.get(uri), what="the frontend's diagnostics")
    got = sorted((str(d.code), d.range.start.line) for d in diags)
    assert got == [("method-mismatch", 8), ("phantom-api", 7)], got
    assert any("read_note in api/routers/notes.py" in d.message for d in diags)

    text = await hover(client, "web/src/api.ts", "api.get(`/notes/${i$0d}`)")
    assert text.startswith("**GET /api/notes/{note_id}** — handled by `read_note` (fastapi)"), text
    assert "def read_note(note_id: int)" in text and "One note, by its id." in text
    assert "Route of the backend: `api/routers/notes.py:" in text

    uri, pos = at(client, "web/src/api.ts", "api.get(`/notes/${i$0d}`)")
    locs = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))
    assert len(locs) == 1 and locs[0].uri.endswith("api/routers/notes.py")
    lines = (client.workspace_root / "api/routers/notes.py").read_text().splitlines()
    assert lines[locs[0].range.start.line].startswith("@router.get('/{note_id}')")


CONTRACT = (
    "openapi: 3.0.3\ninfo: {title: notes, version: '1'}\nservers: [{url: /api}]\npaths:\n"
    "  /notes:\n    get: {responses: {'200': {description: ok}}}\n"
    "  /notes/{id}:\n    get: {responses: {'200': {description: ok}}}\n"
    "    delete: {responses: {'200': {description: ok}}}\n"
    "  /notes/{id}/pin:\n    post: {responses: {'200': {description: ok}}}\n"
)


@pytest.fixture
def drift_workspace(tmp_path: Path) -> Path:
    root = make(tmp_path / "ws", BACKEND)
    (root / "openapi.yaml").write_text(CONTRACT)
    return root


drift_client = pushed_client(workspace="drift_workspace")


async def _actions(client, rel: str, diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=(client.workspace_root / rel).as_uri()), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))


async def test_drift_quick_fixes(drift_client):
    client = drift_client
    shown = client.shown_documents  # pytest-lsp answers window/showDocument and records it
    code_actions_as_sent(client)
    tags = (client.workspace_root / "api/routers/tags.py").as_uri()
    undeclared = await wait_for(lambda: [d for d in client.diagnostics.get(tags, []) if d.code == "undeclared-route"],
                                what="undeclared-route on the tags route")
    actions = await _actions(client, "api/routers/tags.py", undeclared[0])
    assert [a.title for a in actions] == ["Add GET /api/tags/ to openapi.yaml"]
    edit = actions[0].edit.document_changes[0]
    assert edit.text_document.uri.endswith("openapi.yaml")
    assert "/tags/:" in edit.edits[0].new_text and "get:" in edit.edits[0].new_text
    assert "/api/tags" not in edit.edits[0].new_text  # the contract's base path is taken off

    contract = (client.workspace_root / "openapi.yaml").as_uri()
    missing = await wait_for(lambda: [d for d in client.diagnostics.get(contract, [])
                                      if d.code == "unimplemented-endpoint"], what="unimplemented-endpoint")
    actions = await _actions(client, "openapi.yaml", missing[0])
    titles = [a.title for a in actions]
    assert titles and titles[0].startswith("Go to the nearest route: ") and "/api/notes/{note_id}" in titles[0], titles
    cmd = actions[0].command
    assert cmd is not None and cmd.command == "specward.showLocation"
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command=cmd.command,
                                                                          arguments=cmd.arguments))
    await wait_for(lambda: shown, what="window/showDocument")
    assert shown[0].uri.endswith("api/routers/notes.py") and shown[0].selection is not None
    line = (client.workspace_root / "api/routers/notes.py").read_text().splitlines()[shown[0].selection.start.line]
    assert line.startswith("@router.")
