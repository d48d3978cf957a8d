"""The slice plan: parsing, soundness, layout hints, the text shown, and the verification
of generated files through the real extractor."""

from __future__ import annotations

import pytest

from specward.analyzers.extract import extract
from specward.analyzers.model import Endpoint, Span
from specward.analyzers.stages.slice_plan import (PLAN_FORMAT, Consumed, PlanEndpoint, PlanError, Produced,
                                                   parse_plan, plan_problems, plan_text, layout_hints,
                                                   tails_agree, verify_slice)

# ----------------------------------------------------------------------------- fixtures
EXPRESS_PLAN = {"files": [
    {"path": "server/models/bookmark.ts", "role": "model",
     "produces": {"names": [{"name": "Bookmark", "kind": "interface"}, {"name": "BookmarkDraft", "kind": "type"}],
                  "endpoints": []}},
    {"path": "server/routes/bookmarks.ts", "role": "backend",
     "produces": {"names": [{"name": "bookmarksRouter", "kind": "constant"}],
                  "endpoints": ["GET /bookmarks/:id", "POST /bookmarks"]},
     "consumes": {"names": [{"name": "Bookmark", "from": "server/models/bookmark.ts"},
                            {"name": "Router", "from": "express"}]}},
    {"path": "web/src/api/bookmarks.ts", "role": "client",
     "produces": ["function fetchBookmark", "function saveBookmark"],
     "consumes": [{"name": "Bookmark", "from": "server/models/bookmark"}, "GET /bookmarks/{id}", "POST /bookmarks"]},
    {"path": "server/routes/bookmarks.test.ts", "role": "test",
     "consumes": [{"name": "bookmarksRouter", "from": "./bookmarks"}]},
]}

MODEL_TS = """export interface Bookmark {
  id: string;
  url: string;
  title: string;
}

export type BookmarkDraft = Omit<Bookmark, 'id'>;
"""

ROUTES_TS = """import { Router } from 'express';
import type { Bookmark } from '../models/bookmark';
import { store } from '../store';

export const bookmarksRouter = Router();

bookmarksRouter.get('/bookmarks/:id', async (req, res) => {
  const found: Bookmark | undefined = await store.find(req.params.id);
  if (!found) return res.status(404).json({ error: 'not found' });
  res.json(found);
});

bookmarksRouter.post('/bookmarks', async (req, res) => {
  const saved = await store.insert(req.body);
  res.status(201).json(saved);
});
"""

CLIENT_TS = """import axios from 'axios';
import type { Bookmark } from '../../../server/models/bookmark';

const http = axios.create({ baseURL: import.meta.env.VITE_API_URL });

export async function fetchBookmark(id: string): Promise<Bookmark> {
  const res = await http.get<Bookmark>(`/bookmarks/${id}`);
  return res.data;
}

export async function saveBookmark(draft: Omit<Bookmark, 'id'>): Promise<Bookmark> {
  const res = await http.post<Bookmark>('/bookmarks', draft);
  return res.data;
}
"""

TEST_TS = """import request from 'supertest';
import express from 'express';
import { bookmarksRouter } from './bookmarks';

const app = express().use(express.json()).use(bookmarksRouter);

test('saves a bookmark', async () => {
  const res = await request(app).post('/bookmarks').send({ url: 'https://example.org', title: 'x' });
  expect(res.status).toBe(201);
});
"""

SOURCES = {"server/models/bookmark.ts": MODEL_TS, "server/routes/bookmarks.ts": ROUTES_TS,
           "web/src/api/bookmarks.ts": CLIENT_TS, "server/routes/bookmarks.test.ts": TEST_TS}


def facts_of(sources: dict[str, str]) -> dict:
    return {path: extract(path, text) for path, text in sources.items()}


def kinds(problems) -> list[str]:
    return [p.kind for p in problems]


def nothing_exists(name: str, module: str | None) -> bool:
    return False


def only_packages(name: str, module: str | None) -> bool:
    return module in ("express", "fastapi", "axios")


CONTRACT = ["GET /bookmarks/{id}", "POST /bookmarks"]


# ----------------------------------------------------------------------------- parsing
def test_parse_plan_reads_the_documented_format():
    plan = parse_plan(EXPRESS_PLAN)
    assert [f.path for f in plan.files] == list(SOURCES)
    assert [f.role for f in plan.files] == ["model", "backend", "client", "test"]
    assert plan.files[0].produces == (Produced("Bookmark", "type"), Produced("BookmarkDraft", "type"))
    backend = plan.files[1]
    assert backend.produces_endpoints == (PlanEndpoint("GET", "/bookmarks/:id"), PlanEndpoint("POST", "/bookmarks"))
    assert backend.consumes[0] == Consumed("Bookmark", "server/models/bookmark.ts")
    client = plan.files[2]
    assert client.produces == (Produced("fetchBookmark", "function"), Produced("saveBookmark", "function"))
    assert [str(e) for e in client.consumes_endpoints] == CONTRACT


def test_parse_plan_tolerates_small_variations():
    plan = parse_plan({"plan": {"files": [
        {"Path": ".\\api\\notes.py", "Role": "Server",
         "produces": [{"name": "list_notes", "kind": "Func"}, {"method": "get", "path": "/notes"}],
         "consumes": [{"name": "Note", "module": "app.models"}]}]}})
    f = plan.files[0]
    assert (f.path, f.role) == ("api/notes.py", "backend")
    assert f.produces == (Produced("list_notes", "function"),)
    assert f.produces_endpoints == (PlanEndpoint("GET", "/notes"),)
    assert f.consumes == (Consumed("Note", "app.models"),)


@pytest.mark.parametrize("obj, where", [
    ([], "the plan"),
    ({"files": []}, "files"),
    ({"summary": "x" * 5000}, "files"),
    ({"files": [{"path": "a.ts"}]}, "files[0].role"),
    ({"files": [{"path": "../escape.ts", "role": "other"}]}, "files[0].path"),
    ({"files": [{"path": "a.ts", "role": "wizard"}]}, "files[0].role"),
    ({"files": [{"path": "a.ts", "role": "model", "produces": [{"name": "A"}]}]}, "files[0].produces[0].kind"),
    ({"files": [{"path": "a.ts", "role": "model", "produces": [{"name": "not a name", "kind": "type"}]}]},
     "files[0].produces[0].name"),
    ({"files": [{"path": "a.ts", "role": "backend", "produces": {"endpoints": ["FETCH /x"]}}]},
     "files[0].produces.endpoints[0]"),
    ({"files": [{"path": "a.ts", "role": "model"}, {"path": "./a.ts", "role": "test"}]}, "files[1].path"),
])
def test_parse_plan_is_strict_on_the_essentials(obj, where):
    with pytest.raises(PlanError) as err:
        parse_plan(obj)
    assert err.value.where == where
    assert "expected" in str(err.value) and "found" in str(err.value)
    assert len(str(err.value)) < 400  # never quotes huge text


def test_plan_format_names_every_role_and_kind():
    for word in ("backend", "model", "client", "test", "other", "function", "class", "type", "constant",
                 "METHOD /path", '"from"'):
        assert word in PLAN_FORMAT


# ----------------------------------------------------------------------------- soundness
def test_a_sound_plan_has_no_problems():
    assert plan_problems(parse_plan(EXPRESS_PLAN), CONTRACT, only_packages) == []


def test_a_consumed_name_nobody_produces_is_a_problem():
    plan = parse_plan({"files": [
        {"path": "src/api.ts", "role": "client", "consumes": [{"name": "NoteList", "from": "src/types.ts"}]},
        {"path": "src/types.ts", "role": "model", "produces": ["type Note"]},
        {"path": "src/x.test.ts", "role": "test", "consumes": ["formatDate"]}]})
    problems = plan_problems(plan, [], nothing_exists)
    assert [(p.kind, p.file, p.name) for p in problems] == [
        ("consumed-not-produced", "src/api.ts", "NoteList"), ("consumed-not-produced", "src/x.test.ts", "formatDate")]
    asked = []
    plan_problems(plan, [], lambda n, m: asked.append((n, m)) or True)
    assert ("formatDate", None) in asked


def test_a_consumed_name_the_index_has_is_fine():
    plan = parse_plan({"files": [{"path": "tests/test_a.py", "role": "test",
                                  "consumes": [{"name": "app", "from": "app.main"}]}]})
    assert plan_problems(plan, [], lambda n, m: (n, m) == ("app", "app.main")) == []


def test_duplicate_produced_names_are_a_problem_within_one_language():
    plan = parse_plan({"files": [
        {"path": "a/models.py", "role": "model", "produces": ["class Note"]},
        {"path": "a/schemas.py", "role": "model", "produces": ["class Note"]},
        {"path": "web/types.ts", "role": "model", "produces": ["type Note"]},
        {"path": "tests/test_n.py", "role": "test"}]})
    problems = plan_problems(plan, [], nothing_exists)
    assert kinds(problems) == ["duplicate-name"]
    assert "a/models.py" in problems[0].message and "a/schemas.py" in problems[0].message


def test_endpoints_must_be_selected_produced_and_consumed():
    plan = parse_plan({"files": [
        {"path": "srv/notes.ts", "role": "backend", "produces": ["GET /notes/:noteId", "DELETE /notes/:id"]},
        {"path": "web/notes.ts", "role": "client", "consumes": ["GET /notes/{id}"]},
        {"path": "srv/notes.test.ts", "role": "test"}]})
    selected = [Endpoint("GET", "/notes/{id}", "c.json", Span(0, 0)), Endpoint("POST", "/notes", "c.json", Span(0, 0))]
    problems = plan_problems(plan, selected, nothing_exists)
    assert [(p.kind, p.name) for p in problems] == [
        ("unknown-endpoint", "DELETE /notes/:id"),
        ("endpoint-not-produced", "POST /notes"),
        ("endpoint-not-consumed", "POST /notes")]


def test_endpoints_compare_with_the_contract_base_path_too():
    plan = parse_plan({"files": [
        {"path": "srv/notes.ts", "role": "backend", "produces": ["GET /api/notes"]},
        {"path": "web/notes.ts", "role": "client", "consumes": ["GET /notes"]},
        {"path": "srv/notes.test.ts", "role": "test"}]})
    ep = Endpoint("GET", "/notes", "c.yaml", Span(0, 0), base_path="/api")
    assert plan_problems(plan, [ep], nothing_exists) == []


def test_an_endpoint_the_workspace_implements_need_not_be_produced():
    plan = parse_plan({"files": [{"path": "web/notes.ts", "role": "client", "consumes": ["GET /notes"]},
                                 {"path": "web/notes.test.ts", "role": "test"}]})
    assert kinds(plan_problems(plan, ["GET /notes"], nothing_exists)) == ["endpoint-not-produced"]
    assert plan_problems(plan, ["GET /notes"], nothing_exists, implemented=lambda m, p: True) == []


def test_a_plan_without_a_test_is_a_problem():
    plan = parse_plan({"files": [{"path": "a.py", "role": "other"}]})
    assert kinds(plan_problems(plan, [], nothing_exists)) == ["no-test"]


# ----------------------------------------------------------------------------- text and layout
def test_plan_text_lists_files_produces_and_consumes():
    text = plan_text(parse_plan(EXPRESS_PLAN))
    assert "- server/routes/bookmarks.ts (backend)" in text
    assert "produces: constant bookmarksRouter, endpoint GET /bookmarks/:id, endpoint POST /bookmarks" in text
    assert "Bookmark (from server/models/bookmark.ts)" in text
    assert "(produces and consumes nothing by name)" not in text


PROJECT_MAP = {
    "root": "/w", "contracts": [{"file": "api/spec.dsl.json", "format": "specdsl", "endpoints": 3, "models": 1}],
    "routes": [{"file": "server/routes/users.ts", "framework": ["express"], "routers": ["router"], "routes": []},
               {"file": "server/routes/teams.ts", "framework": ["express"], "routers": ["router"], "routes": []},
               {"file": "server/app.ts", "framework": ["express"], "routers": ["app"], "routes": []}],
    "data_models": [{"file": "server/models/user.ts", "models": []}, {"file": "server/models/team.ts", "models": []}],
    "api_clients": [{"file": "web/src/lib/http.ts", "clients": [{"name": "api", "kind": "axios", "factory": None}]}],
    "http_callers": [{"file": "web/src/lib/users.ts", "calls": 2, "statuses": {}},
                     {"file": "server/routes/users.test.ts", "calls": 3, "statuses": {}},
                     {"file": "server/routes/teams.test.ts", "calls": 1, "statuses": {}}],
    "config_files": ["package.json"],
    "conventions": {"languages": {"typescript": 40, "javascript": 2}, "route_frameworks": {"express": 3},
                    "http_client_kinds": {"axios": 1}},
}


def test_layout_hints_learn_the_most_common_folder_per_role():
    hints = layout_hints(PROJECT_MAP)
    assert not hints.empty
    assert (hints.routes, hints.models, hints.clients, hints.tests) == (
        "server/routes/", "server/models/", "web/src/lib/", "server/routes/")
    assert hints.route_frameworks == ("express",) and hints.client_kinds == ("axios",)
    assert "put backend handlers under server/routes/ (express)" in hints.text
    assert "put API client calls under web/src/lib/ (axios)" in hints.text
    assert "typescript, javascript" in hints.text


def test_layout_hints_of_an_empty_workspace_suggest_nothing():
    hints = layout_hints({"root": "/w", "contracts": [], "routes": [], "data_models": [], "api_clients": [],
                          "http_callers": [], "config_files": [], "conventions": {"languages": {}}})
    assert hints.empty and hints.routes is None and hints.tests is None
    assert "no source files" in hints.text and "under" not in hints.text
    assert layout_hints({}).empty


# ----------------------------------------------------------------------------- verification
def test_a_slice_that_keeps_its_plan_verifies():
    assert verify_slice(parse_plan(EXPRESS_PLAN), facts_of(SOURCES)) == []


def test_a_planned_file_that_was_not_generated():
    generated = facts_of(SOURCES)
    del generated["web/src/api/bookmarks.ts"]
    problems = verify_slice(parse_plan(EXPRESS_PLAN), generated)
    assert [(p.kind, p.file) for p in problems] == [("missing-file", "web/src/api/bookmarks.ts")]


def test_a_file_without_facts_is_only_checked_for_presence():
    plan = parse_plan({"files": [{"path": "db/001_bookmarks.sql", "role": "other"}]})
    assert verify_slice(plan, {"db/001_bookmarks.sql": None}) == []


def test_a_promised_name_that_is_not_exported():
    sources = dict(SOURCES, **{"server/models/bookmark.ts": MODEL_TS.replace("export type BookmarkDraft",
                                                                            "type BookmarkDraft")})
    problems = verify_slice(parse_plan(EXPRESS_PLAN), facts_of(sources))
    assert [(p.kind, p.name) for p in problems] == [("missing-export", "BookmarkDraft")]


def test_a_default_export_keeps_its_local_name():
    plan = parse_plan({"files": [{"path": "web/Card.tsx", "role": "client", "produces": ["function BookmarkCard"]}]})
    text = "export default function BookmarkCard({ title }: { title: string }) {\n  return <p>{title}</p>;\n}\n"
    assert verify_slice(plan, facts_of({"web/Card.tsx": text})) == []


def test_a_consumer_that_does_not_import_from_the_planned_file():
    client = CLIENT_TS.replace("from '../../../server/models/bookmark'", "from './types'")
    problems = verify_slice(parse_plan(EXPRESS_PLAN), facts_of(dict(SOURCES, **{"web/src/api/bookmarks.ts": client})))
    assert [(p.kind, p.file, p.name) for p in problems] == [("not-wired", "web/src/api/bookmarks.ts", "Bookmark")]


def test_wiring_resolves_extensionless_and_js_suffixed_typescript_imports():
    test = TEST_TS.replace("from './bookmarks'", "from './bookmarks.js'")
    assert verify_slice(parse_plan(EXPRESS_PLAN), facts_of(dict(SOURCES, **{"server/routes/bookmarks.test.ts": test}))) == []


def test_a_backend_file_without_its_routes():
    routes = ROUTES_TS.replace("bookmarksRouter.post('/bookmarks'", "bookmarksRouter.put('/bookmarks'")
    problems = verify_slice(parse_plan(EXPRESS_PLAN), facts_of(dict(SOURCES, **{"server/routes/bookmarks.ts": routes})))
    assert [(p.kind, p.name) for p in problems] == [("route-missing", "POST /bookmarks")]


def test_a_router_mounted_elsewhere_declares_the_tail_of_its_endpoints():
    plan = parse_plan({"files": [{"path": "server/routes/bookmarks.ts", "role": "backend",
                                  "produces": ["GET /bookmarks", "GET /bookmarks/{id}"]}]})
    text = ("import { Router } from 'express';\nconst r = Router();\nr.get('/', list);\nr.get('/:id', one);\n"
            "export default r;\n")
    assert verify_slice(plan, facts_of({"server/routes/bookmarks.ts": text})) == []
    only_root = "import { Router } from 'express';\nconst r = Router();\nr.get('/', list);\nexport default r;\n"
    problems = verify_slice(plan, facts_of({"server/routes/bookmarks.ts": only_root}))
    assert [(p.kind, p.name) for p in problems] == [("route-missing", "GET /bookmarks/{id}")]


def test_a_client_without_a_call_to_its_endpoint():
    client = CLIENT_TS.replace("http.post<Bookmark>('/bookmarks', draft)", "http.post<Bookmark>('/bookmark', draft)")
    problems = verify_slice(parse_plan(EXPRESS_PLAN), facts_of(dict(SOURCES, **{"web/src/api/bookmarks.ts": client})))
    assert [(p.kind, p.name) for p in problems] == [("call-missing", "POST /bookmarks")]


def test_a_client_call_with_the_wrong_method_is_no_call():
    client = CLIENT_TS.replace("http.post<Bookmark>('/bookmarks', draft)", "http.put<Bookmark>('/bookmarks', draft)")
    problems = verify_slice(parse_plan(EXPRESS_PLAN), facts_of(dict(SOURCES, **{"web/src/api/bookmarks.ts": client})))
    assert [(p.kind, p.name) for p in problems] == [("call-missing", "POST /bookmarks")]


ANGULAR_CLIENT = """import { HttpClient } from '@angular/common/http';
import { Injectable } from '@angular/core';
import { Observable } from 'rxjs';
import { environment } from '../environments/environment';

const BOOKMARKS = '/bookmarks';

@Injectable({ providedIn: 'root' })
export class BookmarkService {
  constructor(private http: HttpClient) {}

  get(id: string): Observable<unknown> {
    return this.http.get(`${environment.apiUrl}${BOOKMARKS}/${id}`);
  }

  create(body: unknown): Observable<unknown> {
    return this.http.request('POST', `${environment.apiUrl}/bookmarks`, { body });
  }
}
"""


def test_client_calls_through_constants_bases_and_unknown_methods_count():
    plan = parse_plan({"files": [{"path": "src/app/bookmark.service.ts", "role": "client",
                                  "produces": ["class BookmarkService"], "consumes": CONTRACT}]})
    assert verify_slice(plan, facts_of({"src/app/bookmark.service.ts": ANGULAR_CLIENT})) == []


FASTAPI_MODELS = """from pydantic import BaseModel


class Bookmark(BaseModel):
    id: int
    url: str
"""

FASTAPI_ROUTES = """from fastapi import APIRouter, HTTPException

from ..models import Bookmark
from .. import store

router = APIRouter(prefix="/bookmarks")


@router.get("/{bookmark_id}", response_model=Bookmark)
def read_bookmark(bookmark_id: int) -> Bookmark:
    found = store.get(bookmark_id)
    if found is None:
        raise HTTPException(status_code=404)
    return found
"""

FASTAPI_TEST = """from fastapi.testclient import TestClient

from app.main import app
from app.routes.bookmarks import read_bookmark

client = TestClient(app)


def test_read():
    assert client.get("/bookmarks/1").status_code == 200
    assert callable(read_bookmark)
"""


def test_python_definitions_are_exports_and_relative_imports_resolve():
    plan = parse_plan({"files": [
        {"path": "app/models.py", "role": "model", "produces": ["class Bookmark"]},
        {"path": "app/routes/bookmarks.py", "role": "backend",
         "produces": ["function read_bookmark", "constant router", "GET /bookmarks/{id}"],
         "consumes": [{"name": "Bookmark", "from": "app/models.py"}]},
        {"path": "tests/test_bookmarks.py", "role": "test",
         "consumes": [{"name": "read_bookmark", "from": "app.routes.bookmarks"}, {"name": "app", "from": "app.main"}]}]})
    generated = facts_of({"app/models.py": FASTAPI_MODELS, "app/routes/bookmarks.py": FASTAPI_ROUTES,
                          "tests/test_bookmarks.py": FASTAPI_TEST})
    assert verify_slice(plan, generated) == []
    broken = dict(generated, **{"app/routes/bookmarks.py": extract(
        "app/routes/bookmarks.py", FASTAPI_ROUTES.replace("from ..models import Bookmark", "from .schemas import Bookmark"))})
    assert kinds(verify_slice(plan, broken)) == ["not-wired"]


def test_tails_agree_compares_parameters_structurally():
    assert tails_agree("/notes/:id", "/notes/{note_id}")
    assert tails_agree("/api/notes/{id}", "/notes/{id}")
    assert not tails_agree("/notes/{id}/tags", "/notes/{id}")
    assert tails_agree("/", "/notes") and not tails_agree("/", "/notes/{id}")
    assert tails_agree("/notes/42", "/notes/{id}") and not tails_agree("/notes/{id}", "/notes/me")
