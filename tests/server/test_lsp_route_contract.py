"""Routes as the contract, over stdio: with no contract file, the frontend's calls are
judged against the backend's routes, the hover on a call shows its handler's signature and
docstring, and definition reaches the handler through the prefixes of other files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from conftest import pushed_client, wait_for
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
