"""Phantom fields through the real server over stdio: what a call sends and reads, against
the contract's schemas and against a FastAPI route's pydantic model; the quick fixes applied
as an editor applies them, the diagnostics gone after; the schemas in the hover card."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from conftest import code_actions_as_sent, codes, pushed_client, wait_for
from test_lsp_context import change, open_doc
from test_lsp_ide import hover
from test_lsp_route_contract import _actions as code_actions_at

CONTRACT = """openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /api/notes:
    get:
      parameters:
        - {name: page, in: query, required: true, schema: {type: integer}}
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        "200":
          description: A page
          content:
            application/json:
              schema: {$ref: "#/components/schemas/NotePage"}
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NoteInput"}
      responses:
        "201": {description: The note}
components:
  schemas:
    NoteInput:
      type: object
      required: [title]
      properties:
        title: {type: string}
        body: {type: string}
    Note:
      type: object
      properties:
        id: {type: string}
        title: {type: string}
    NotePage:
      type: object
      properties:
        items: {type: array, items: {$ref: "#/components/schemas/Note"}}
        total: {type: integer}
"""

NOTES = """import axios from 'axios';

export function createNote(title: string, text: string) {
  return axios.post('/api/notes', { title, bdoy: text });
}

export function createDraft(text: string) {
  return axios.post('/api/notes', { body: text });
}

export async function countNotes() {
  const { data } = await axios.get('/api/notes', { params: { page: 1 } });
  return data.totl;
}
"""


@pytest.fixture
def fields_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "web/src").mkdir(parents=True)
    (root / "contracts").mkdir()
    (root / "contracts/openapi.yaml").write_text(CONTRACT)
    (root / "web/src/notes.ts").write_text(NOTES)
    (root / "web/package.json").write_text('{"name": "web", "dependencies": {"axios": "^1.6.0"}}\n')
    return root


fields_client = pushed_client(workspace="fields_workspace")


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a = starts[e.range.start.line] + e.range.start.character
        b = starts[e.range.end.line] + e.range.end.character
        text = text[:a] + e.new_text + text[b:]
    return text


async def test_fields_are_checked_fixed_and_shown(fields_client):
    client = fields_client
    code_actions_as_sent(client)
    root = client.workspace_root
    rel = "web/src/notes.ts"
    uri = (root / rel).as_uri()
    want = ["missing-field", "unknown-field", "unknown-response-field"]
    await wait_for(lambda: codes(client, root, rel) == want, what="the field diagnostics")
    diags = {d.code: d for d in client.diagnostics[uri]}
    unknown = diags["unknown-field"]
    assert unknown.message == "`bdoy` is not a field of the request body of POST /api/notes; did you mean `body`?"
    assert unknown.severity == lsp.DiagnosticSeverity.Warning
    assert NOTES.splitlines()[unknown.range.start.line][unknown.range.start.character:unknown.range.end.character] == "bdoy"
    assert diags["unknown-response-field"].message.startswith("`totl` is not a field of the response of GET /api/notes")

    # the editor applies the fixes, one after the other, in its buffer
    text = NOTES
    open_doc(client, uri, text)
    version = 1
    for code, title in (("unknown-field", "Rename to `body`"), ("unknown-response-field", "Rename to `total`"),
                        ("missing-field", "Add the required `title`")):
        diag = next(d for d in client.diagnostics[uri] if d.code == code)
        actions = await code_actions_at(client, rel, diag)
        assert [a.title for a in actions] == [title], (code, [a.title for a in actions])
        text = _apply(text, actions[0].edit.document_changes[0].edits)
        version += 1
        change(client, uri, version, text)
        await wait_for(lambda: code not in codes(client, root, rel), what=f"{code} gone after its fix")
    assert "{ title, body: text }" in text and "return data.total;" in text
    assert "{ body: text, title: /* required by POST /api/notes */ }" in text

    card = await hover(client, rel, "axios.get('/api/no$0tes'")
    assert "**Query parameters**" in card and "`page`" in card and "**Response 200**" in card, card


BACKEND = {
    "api/main.py": (
        "from fastapi import FastAPI\n"
        "from api import notes\n\n"
        "app = FastAPI()\n"
        "app.include_router(notes.router, prefix='/api/notes')\n"
    ),
    "api/__init__.py": "",
    "api/schemas.py": (
        "from pydantic import BaseModel\n\n\n"
        "class NoteIn(BaseModel):\n"
        "    title: str\n"
        "    body: str = ''\n"
    ),
    "api/notes.py": (
        "from fastapi import APIRouter\n\n"
        "from api.schemas import NoteIn\n\n"
        "router = APIRouter()\n\n\n"
        "@router.get('')\n"
        "def list_notes():\n"
        "    return []\n\n\n"
        "@router.post('')\n"
        "def create_note(note: NoteIn):\n"
        "    return note\n"
    ),
    "web/src/api.ts": (
        "import axios from 'axios';\n\n"
        "export const listNotes = () => axios.get('/api/notes');\n"
        "export const addNote = (title: string) => axios.post('/api/notes', { title, tags: ['x'] });\n"
    ),
}


@pytest.fixture
def routes_fields_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for rel, text in BACKEND.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "web/package.json").write_text('{"name": "web", "dependencies": {"axios": "^1.6.0"}}\n')
    return root


routes_client = pushed_client(workspace="routes_fields_workspace")


async def test_a_route_request_model_is_the_schema_and_its_edits_are_followed(routes_client):
    client = routes_client
    root = client.workspace_root
    rel = "web/src/api.ts"
    await wait_for(lambda: codes(client, root, rel) == ["unknown-field"], what="the field against the model")
    diag = client.diagnostics[(root / rel).as_uri()][0]
    assert diag.message == "`tags` is not a field of the request body of POST /api/notes; did you mean `body`?"
    # the model gains the field, in an unsaved buffer: the call is right now
    schemas = root / "api/schemas.py"
    suri = schemas.as_uri()
    text = schemas.read_text()
    open_doc(client, suri, text)
    change(client, suri, 2, text + "    tags: list[str] = []\n")
    await wait_for(lambda: codes(client, root, rel) == [], what="no finding once the model declares the field")
    card = await hover(client, rel, "axios.post('/api/no$0tes'")
    assert "`tags`" in card and "`title`" in card, card
