"""Every client form the field checks read, end to end in the index (extraction, linking,
matching, the checks): each fixture sends one misspelt body key (or query parameter) and reads
one misspelt response field through its library, and gets exactly those findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

from test_index_fields import FIELD_CODES, fields_of

CONTRACT = """openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /api/notes:
    get:
      parameters:
        - {name: page, in: query, schema: {type: integer}}
      responses:
        "200":
          description: A page
          content:
            application/json:
              schema:
                type: object
                properties:
                  items: {type: array, items: {$ref: "#/components/schemas/Note"}}
                  total: {type: integer}
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                title: {type: string}
                body: {type: string}
      responses:
        "201":
          description: The note
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Note"}
components:
  schemas:
    Note:
      type: object
      properties:
        id: {type: string}
        title: {type: string}
"""

FORMS = {
    "axios": ("web/src/notes.ts", """import axios from 'axios';

export async function add() {
  const { data } = await axios.post('/api/notes', { title: 'a', bdoy: 'b' });
  return data.titel;
}

export async function list() {
  const res = await axios.get('/api/notes', { params: { pgae: 2 } });
  return res.data.items[0].titel;
}
"""),
    "axios instance": ("web/src/notes.ts", """import axios from 'axios';

const api = axios.create({ baseURL: '/api' });

export async function add() {
  const { data } = await api.post('/notes', { title: 'a', bdoy: 'b' });
  return data.titel;
}

export async function list() {
  const { data } = await api.get('/notes', { params: { pgae: 2 } });
  return data.items.map((n) => n.titel);
}
"""),
    "fetch": ("web/src/notes.ts", """export async function add() {
  const res = await fetch('/api/notes', { method: 'POST', body: JSON.stringify({ title: 'a', bdoy: 'b' }) });
  const note = await res.json();
  return note.titel;
}

export async function list() {
  const page = await fetch('/api/notes?pgae=2').then((r) => r.json());
  return page.items[0].titel;
}
"""),
    "ky": ("web/src/notes.ts", """import ky from 'ky';

export async function add() {
  const note = await ky.post('/api/notes', { json: { title: 'a', bdoy: 'b' } }).json();
  return note.titel;
}

export async function list() {
  const page = await ky.get('/api/notes', { searchParams: { pgae: 2 } }).json();
  return page.items[0].titel;
}
"""),
    "ofetch": ("web/src/notes.ts", """import { ofetch } from 'ofetch';

export async function add() {
  const note = await ofetch('/api/notes', { method: 'POST', body: { title: 'a', bdoy: 'b' } });
  return note.titel;
}

export async function list() {
  const page = await ofetch('/api/notes', { query: { pgae: 2 } });
  return page.items[0].titel;
}
"""),
    "wrapper": ("web/src/notes.ts", """const base = '/api';

async function send(method: string, path: string, data?: unknown) {
  const res = await fetch(`${base}${path}`, { method, body: data ? JSON.stringify(data) : undefined });
  return res.json();
}

const post = (path: string, data: unknown) => send('POST', path, data);
const get = (path: string) => send('GET', path);

export async function add() {
  const note = await post('/notes', { title: 'a', bdoy: 'b' });
  return note.titel;
}

export async function list() {
  const page = await get('/notes?pgae=2');
  return page.items[0].titel;
}
"""),
    "angular": ("web/src/notes.service.ts", """import { HttpClient } from '@angular/common/http';
import { Injectable } from '@angular/core';

@Injectable({ providedIn: 'root' })
export class NotesService {
  constructor(private http: HttpClient) {}

  add() {
    return this.http.post('/api/notes', { title: 'a', bdoy: 'b' });
  }

  list() {
    return this.http.get('/api/notes', { params: { pgae: 2 } });
  }
}
"""),
    "openapi-fetch": ("web/src/notes.ts", """import createClient from 'openapi-fetch';

const client = createClient({ baseUrl: '/api' });

export async function add() {
  const { data } = await client.POST('/notes', { body: { title: 'a', bdoy: 'b' } });
  return data.titel;
}

export async function list() {
  const { data } = await client.GET('/notes', { params: { query: { pgae: 2 } } });
  return data.items[0].titel;
}
"""),
    "requests": ("scripts/notes.py", """import requests

API = "https://notes.example.com/api"


def add():
    r = requests.post(f"{API}/notes", json={"title": "a", "bdoy": "b"})
    return r.json()["titel"]


def listing():
    r = requests.get(f"{API}/notes", params={"pgae": 2})
    for note in r.json()["items"]:
        print(note["titel"])
"""),
    "httpx client": ("scripts/notes.py", """import httpx

client = httpx.Client(base_url="https://notes.example.com/api")


def add():
    payload = {"title": "a", "bdoy": "b"}
    r = client.post("/notes", json=payload)
    return r.json().get("titel")


def listing():
    data = client.get("/notes", params=dict(pgae=2)).json()
    return data["items"][0]["titel"]
"""),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_client_form(tmp_path: Path, form: str):
    rel, text = FORMS[form]
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts/openapi.yaml").write_text(CONTRACT)
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text(text)
    idx = WorkspaceIndex(tmp_path)
    idx.build()
    got = fields_of(idx, rel, text)
    want = [("unknown-field", "bdoy"), ("unknown-parameter", "pgae"), ("unknown-response-field", "titel"),
            ("unknown-response-field", "titel")]
    if form == "angular":  # an Observable: its reads are not followed
        want = [w for w in want if w[0] != "unknown-response-field"]
    if form in ("fetch", "wrapper"):  # a query string: said on the URL
        want = sorted([w for w in want if w[0] != "unknown-parameter"] + [("unknown-parameter", None)])
        got = sorted((c, None if c == "unknown-parameter" else s) for c, s in got)
    assert got == want, [f.message for f in idx.findings(rel) if f.code in FIELD_CODES]


TYPED = {
    "web/src/types.ts": """export interface NoteInput {
  title: string;
  bdoy?: string;
}
""",
    "web/src/index.ts": "export type { NoteInput } from './types';\n",
    "web/src/notes.ts": """import axios from 'axios';
import type { NoteInput } from './index';

export function save(note: NoteInput) {
  return axios.post('/api/notes', { ...note });
}
""",
}


def test_a_typed_spread_is_judged_by_its_type_across_files_and_follows_its_edits(tmp_path: Path):
    """``{ ...note }`` with ``note: NoteInput`` (an interface re-exported from another file):
    the type's properties are the keys sent (docs/fields.md, "Typed values")."""
    (tmp_path / "contracts").mkdir()
    contract = CONTRACT.replace("              properties:\n                title: {type: string}\n                body:",
                                "              required: [title, body]\n"
                                "              properties:\n                title: {type: string}\n                body:")
    assert contract != CONTRACT
    (tmp_path / "contracts/openapi.yaml").write_text(contract)
    for rel, text in TYPED.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    idx = WorkspaceIndex(tmp_path)
    idx.build()
    rel, text = "web/src/notes.ts", TYPED["web/src/notes.ts"]
    types = TYPED["web/src/types.ts"]

    def messages() -> list[str]:
        return sorted(f.message for f in idx.findings(rel) if f.code in FIELD_CODES)

    assert fields_of(idx, rel, text) == [("unknown-field", "note")]
    assert messages() == ["`bdoy` is not a field of the request body of POST /api/notes (from NoteInput via ...note); "
                          "did you mean `body`?"]
    # a move above the call (the fast path: nothing linked again) moves the finding with it
    moved = "// notes\n" + text
    fast = idx.stats.get("moved_links", 0)
    idx.prepare_edits(rel, text)
    idx.update(rel, moved, incremental=True)
    assert idx.stats.get("moved_links", 0) == fast + 1
    assert fields_of(idx, rel, moved) == [("unknown-field", "note")]
    # the type edited in its own file judges the call again: a required field it lacks
    idx.update("web/src/types.ts", types.replace("bdoy?: string", "pinned?: boolean"))
    assert fields_of(idx, rel, moved) == [("missing-field", "{"), ("unknown-field", "note")]
    assert messages() == [
        "The request body of POST /api/notes requires field `body` (not declared by NoteInput via ...note)",
        "`pinned` is not a field of the request body of POST /api/notes (from NoteInput via ...note)"]
    idx.update("web/src/types.ts", types.replace("bdoy?", "body?"))
    assert fields_of(idx, rel, moved) == []
    # a type that is not closed (an index signature): not judged
    idx.update("web/src/types.ts", types.replace("bdoy?: string", "[key: string]: string"))
    assert fields_of(idx, rel, moved) == []
