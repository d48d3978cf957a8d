"""Contract changes through the real server over stdio: editing a contract shows, on the
entry that changed, what the change affects (``contract-change-impact``, the file list in
the hover), and the generated file made from that entry turns ``stale-generated``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from specward.analyzers.contracts import parse_contract
from specward.analyzers.provenance import elements_of, render_header

from conftest import codes, messages, pushed_client, wait_for

CONTRACT = "specs/notes.dsl.json"
GENERATED = "web/src/gen/notes.ts"
NOTES = {
    "version": "1.0",
    "feature": {"id": "notes", "title": "Notes", "description": "Taking notes"},
    "models": [{"name": "Note", "fields": [{"name": "id", "type": "string", "required": True},
                                           {"name": "pinned", "type": "boolean", "required": True}]}],
    "endpoints": [{"id": "EP-1", "method": "GET", "path": "/api/notes", "description": "List", "auth": False,
                   "successStatus": 200, "successDescription": "The Note list"}],
}


def text_of(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "notes-app"
    (root / "specs").mkdir(parents=True)
    (root / "web/src/gen").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / CONTRACT).write_text(text_of(NOTES))
    facts = parse_contract(CONTRACT, text_of(NOTES))
    header = render_header(CONTRACT, [(e.id, e.hash) for e in elements_of(facts, ["GET /api/notes"])])
    (root / GENERATED).write_text(f"{header}\nexport const listNotes = () => fetch('/api/notes');\n")
    (root / "web/src/page.ts").write_text("import { listNotes } from './gen/notes';\n\nexport const show = listNotes;\n")
    return root


client = pushed_client()


async def test_editing_a_contract_shows_what_the_change_affects(client: LanguageClient):
    root = client.workspace_root
    uri = (root / CONTRACT).as_uri()
    text = text_of(NOTES)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="json", version=1, text=text)))
    await wait_for(lambda: uri in client.diagnostics, what="the contract published")
    assert "contract-change-impact" not in codes(client, root, CONTRACT)

    changed = copy.deepcopy(NOTES)
    changed["models"][0]["fields"].pop()  # `pinned` is gone
    edited = text_of(changed)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)]))
    await wait_for(lambda: "contract-change-impact" in codes(client, root, CONTRACT), what="the impact of the edit")
    impact = sorted((d for d in client.diagnostics[uri] if d.code == "contract-change-impact"),
                    key=lambda d: d.range.start.line)
    assert [d.message for d in impact] == [  # (the models come first in a SpecDSL file)
        "model Note: field pinned removed — this change affects 2 files",
        "GET /api/notes: response field pinned removed — this change affects 2 files",
    ]
    assert all(d.severity == lsp.DiagnosticSeverity.Information for d in impact)
    model = impact[0]
    line = edited.splitlines()[model.range.start.line]
    assert line[model.range.start.character:model.range.end.character] == '"Note"'  # on the changed entry
    assert model.data["files"] == ["web/src/gen/notes.ts", "web/src/page.ts"]

    # the generated file made from GET /api/notes is stale now, with what changed
    await wait_for(lambda: "stale-generated" in codes(client, root, GENERATED), what="the stale generated file")
    assert messages(client, root, GENERATED) == [
        "GET /api/notes: response field pinned removed (specs/notes.dsl.json changed since this file was generated)"]

    # the hover of the changed entry lists the files, with why
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=model.range.start.line, character=model.range.start.character + 2)))
    assert hover is not None
    value = hover.contents.value
    assert "This change affects 2 files:" in value
    assert "- `web/src/gen/notes.ts` — calls GET /api/notes" in value
    assert "- `web/src/page.ts` — imports web/src/gen/notes.ts" in value

    # undone: nothing left to say, and the generated file is fresh again
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
    await wait_for(lambda: "contract-change-impact" not in codes(client, root, CONTRACT), what="the undone edit")
    await wait_for(lambda: codes(client, root, GENERATED) == [], what="the generated file fresh again")
