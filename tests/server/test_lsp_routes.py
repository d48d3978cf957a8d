"""Navigation between the frontend, the contract and the backend's handlers, end to end
over stdio: a FastAPI backend whose prefixes come from three files, an OpenAPI contract
that names its parameters otherwise than the routes do, a TypeScript frontend. Definition
from a call and from a contract operation, references from a handler, workspace symbols,
the code lens on handlers, the drift diagnostics; a prefix that is not a literal (no
target at all, never a wrong one); an Express backend whose routers span three files.

Cursor positions are ``$0`` markers inside a snippet of the file, never hand-counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import pushed_client, wait_for

SHELF = {
    "pyproject.toml": """\
[project]
name = "shelf"
version = "0.3.0"
dependencies = ["fastapi>=0.110"]

[tool.specward]
""",
    "package.json": '{"name": "shelf-web", "private": true, "version": "0.3.0"}\n',
    "main.py": """\
from fastapi import FastAPI

from api.router import api_router

app = FastAPI(title="Shelf")
app.include_router(api_router, prefix="/api")
""",
    "api/__init__.py": "",
    "api/routes/__init__.py": "",
    "api/router.py": """\
from fastapi import APIRouter

from api.routes import users

api_router = APIRouter()
api_router.include_router(users.router, prefix="/users", tags=["users"])
""",
    "api/routes/users.py": """\
from fastapi import APIRouter, HTTPException

router = APIRouter()

PROFILES: dict[str, dict] = {}


@router.get("/{slug}")
async def read_user(slug: str):
    profile = PROFILES.get(slug)
    if profile is None:
        raise HTTPException(status_code=404, detail="no such user")
    return profile


@router.put("/{slug}")
async def replace_user(slug: str, body: dict):
    PROFILES[slug] = {**body, "slug": slug}
    return PROFILES[slug]


@router.post("/{slug}/sessions")
async def open_session(slug: str):
    return {"user": slug, "token": "t-" + slug}
""",
    "openapi.yaml": """\
openapi: 3.0.3
info:
  title: Shelf
  version: "0.3"
servers:
  - url: /api
paths:
  /users/{user_slug}:
    get:
      operationId: readUser
      responses:
        "200":
          description: The user's profile
    put:
      operationId: replaceUser
      responses:
        "200":
          description: The profile as stored
  /users/{user_slug}/avatar:
    get:
      operationId: readAvatar
      responses:
        "200":
          description: The avatar
  /users/{user_slug}/sessions:
    delete:
      operationId: closeSessions
      responses:
        "204":
          description: Signed out everywhere
""",
    "web/src/api/users.ts": """\
export interface Profile {
  slug: string;
  name: string;
}

export async function fetchProfile(slug: string): Promise<Profile> {
  const res = await fetch(`/api/users/${slug}`);
  if (!res.ok) throw new Error(`profile ${slug}: ${res.status}`);
  return res.json();
}

export async function saveProfile(profile: Profile): Promise<Profile> {
  const res = await fetch(`/api/users/${profile.slug}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(profile),
  });
  return res.json();
}
""",
    "web/src/pages/settings.ts": """\
export async function loadSettings(slug: string) {
  const who = await fetch(`/api/users/${encodeURIComponent(slug)}`).then((r) => r.json());
  return { who, theme: localStorage.getItem('theme') ?? 'light' };
}
""",
}

USERS = "api/routes/users.py"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write(tmp_path / "shelf", SHELF)


client = pushed_client()


def marker(text: str, snippet: str) -> lsp.Position:
    """The position of ``$0`` in ``snippet``, which occurs once in ``text`` without it."""
    before, after = snippet.split("$0")
    assert text.count(before + after) == 1, snippet
    at = text.index(before + after) + len(before)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return lsp.Position(line=line, character=len(text[at - col:at].encode("utf-16-le")) // 2)


def doc(client: LanguageClient, rel: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=(client.workspace_root / rel).as_uri())


def pos(client: LanguageClient, rel: str, snippet: str) -> lsp.Position:
    return marker((client.workspace_root / rel).read_text(), snippet)


def covered(client: LanguageClient, loc: lsp.Location | lsp.Range, rel: str | None = None) -> str:
    """The text a location (or a range in ``rel``) covers, on its first line."""
    rng = loc.range if isinstance(loc, lsp.Location) else loc
    if isinstance(loc, lsp.Location):
        rel = Path(lsp_path(loc.uri)).relative_to(client.workspace_root).as_posix()
    line = (client.workspace_root / rel).read_text().splitlines()[rng.start.line]
    return line[rng.start.character:rng.end.character]


def lsp_path(uri: str) -> str:
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(uri).path)


def where(client: LanguageClient, loc: lsp.Location) -> tuple[str, int]:
    """(relative path, 1-based line) of a location."""
    return Path(lsp_path(loc.uri)).relative_to(client.workspace_root).as_posix(), loc.range.start.line + 1


def line_no(client: LanguageClient, rel: str, text: str) -> int:
    """The 1-based line of the one line of ``rel`` that contains ``text``."""
    lines = (client.workspace_root / rel).read_text().splitlines()
    found = [i + 1 for i, ln in enumerate(lines) if text in ln]
    assert len(found) == 1, (rel, text, found)
    return found[0]


async def definition(client: LanguageClient, rel: str, snippet: str) -> list[lsp.Location]:
    return await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc(client, rel), position=pos(client, rel, snippet))) or []


async def references(client: LanguageClient, rel: str, snippet: str, declaration: bool = False) -> list[lsp.Location]:
    return await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc(client, rel), position=pos(client, rel, snippet),
        context=lsp.ReferenceContext(include_declaration=declaration))) or []


async def ready(client: LanguageClient, rel: str, code: str) -> list[lsp.Diagnostic]:
    uri = (client.workspace_root / rel).as_uri()
    await wait_for(lambda: any(d.code == code for d in client.diagnostics.get(uri, [])), what=f"{code} in {rel}")
    return client.diagnostics[uri]


# ---------------------------------------------------------------------- FastAPI, three files


async def test_definition_reaches_the_handler_through_prefixes_in_three_files(client: LanguageClient):
    await ready(client, "openapi.yaml", "unimplemented-endpoint")
    # the call reaches the contract's operation (`{user_slug}`) ...
    locs = await definition(client, "web/src/api/users.ts", "fetch(`/api/us$0ers/${slug}`)")
    assert [where(client, loc) for loc in locs] == [("openapi.yaml", line_no(client, "openapi.yaml", "operationId: readUser") - 1)]
    assert covered(client, locs[0]) == "get"
    # ... and that operation reaches the handler whose composed path is /api + /users + /{slug}
    locs = await definition(client, "openapi.yaml", "  /users/{user_slug}:\n    g$0et:")
    assert [where(client, loc) for loc in locs] == [(USERS, line_no(client, USERS, '@router.get("/{slug}")'))]
    assert covered(client, locs[0]) == '"/{slug}"'
    # PUT reaches the PUT handler, not the GET one on the same path
    locs = await definition(client, "openapi.yaml", "    p$0ut:\n      operationId: replaceUser")
    assert [where(client, loc) for loc in locs] == [(USERS, line_no(client, USERS, '@router.put("/{slug}")'))]
    # an operation no route implements, one whose path has only another method: no target
    assert await definition(client, "openapi.yaml", "  /users/{user_slug}/avatar:\n    g$0et:") == []
    assert await definition(client, "openapi.yaml", "    del$0ete:\n      operationId: closeSessions") == []


async def test_references_from_a_handler_list_its_callers(client: LanguageClient):
    await ready(client, "openapi.yaml", "unimplemented-endpoint")
    expected = [("web/src/api/users.ts", line_no(client, "web/src/api/users.ts", "fetch(`/api/users/${slug}`)")),
                ("web/src/pages/settings.ts", line_no(client, "web/src/pages/settings.ts", "encodeURIComponent"))]
    # on the handler's name, on its decorator: the two GET calls, not the PUT one
    refs = await references(client, USERS, "async def read_$0user(slug: str):")
    assert sorted(where(client, r) for r in refs) == expected
    assert sorted(covered(client, r) for r in refs) == ["`/api/users/${encodeURIComponent(slug)}`", "`/api/users/${slug}`"]
    refs = await references(client, USERS, '@rout$0er.get("/{slug}")')
    assert sorted(where(client, r) for r in refs) == expected
    # with the declaration: the handler's name comes first
    refs = await references(client, USERS, "async def read_$0user(slug: str):", declaration=True)
    assert where(client, refs[0]) == (USERS, line_no(client, USERS, "async def read_user")) and covered(client, refs[0]) == "read_user"
    assert sorted(where(client, r) for r in refs[1:]) == expected
    # the PUT handler: the one PUT call
    refs = await references(client, USERS, "async def replace_$0user(")
    assert [where(client, r) for r in refs] == [("web/src/api/users.ts", line_no(client, "web/src/api/users.ts", "profile.slug}`"))]
    # a route nobody calls: an empty list, not another route's callers
    assert await references(client, USERS, "async def open_$0session(") == []


async def test_workspace_symbols_include_the_composed_routes(client: LanguageClient):
    await ready(client, "openapi.yaml", "unimplemented-endpoint")
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="GET /api/users/{slug}"))
    routes = [s for s in found if s.kind == lsp.SymbolKind.Function]
    assert [s.name for s in routes] == ["GET /api/users/{slug}"]
    (route,) = routes
    assert where(client, route.location) == (USERS, line_no(client, USERS, "async def read_user"))
    assert covered(client, route.location) == "read_user"
    assert route.container_name == f"fastapi {USERS}"
    # the contract's own entries stay (`{user_slug}`), as methods
    everything = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="users"))
    names = sorted((s.kind, s.name) for s in everything)
    assert (lsp.SymbolKind.Function, "POST /api/users/{slug}/sessions") in names
    assert (lsp.SymbolKind.Function, "PUT /api/users/{slug}") in names
    assert (lsp.SymbolKind.Method, "GET /api/users/{user_slug}") in names
    # the query filters routes as it filters the contract's entries
    only = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="post sessions"))
    assert [s.name for s in only] == ["POST /api/users/{slug}/sessions"]


async def test_code_lens_on_handlers_counts_callers_and_shows_the_full_path(client: LanguageClient):
    await ready(client, "openapi.yaml", "unimplemented-endpoint")
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc(client, USERS)))
    by_line: dict[int, list[lsp.CodeLens]] = {}
    for lens in lenses:
        by_line.setdefault(lens.range.start.line + 1, []).append(lens)
    get, put, post = (line_no(client, USERS, f'@router.{m}("/{{slug}}') for m in ("get", "put", "post"))
    assert sorted(by_line) == [get, put, post]
    titles = {line: [lens.command.title for lens in ls] for line, ls in by_line.items()}
    assert titles == {get: ["2 callers", "GET /api/users/{slug}"], put: ["1 caller", "PUT /api/users/{slug}"],
                      post: ["no callers", "POST /api/users/{slug}/sessions"]}
    opener = by_line[get][0].command
    assert opener.command == "editor.action.showReferences"
    uri, at, refs = opener.arguments
    assert uri == doc(client, USERS).uri and at["line"] == get - 1
    assert sorted(Path(lsp_path(r["uri"])).name for r in refs) == ["settings.ts", "users.ts"]
    assert by_line[post][0].command.command == ""


async def test_drift_diagnostics_arrive_with_their_ranges(client: LanguageClient):
    contract = await ready(client, "openapi.yaml", "unimplemented-endpoint")
    await ready(client, "openapi.yaml", "route-method-mismatch")
    found = {d.code: d for d in contract if d.code in ("unimplemented-endpoint", "route-method-mismatch")}
    unimplemented = found["unimplemented-endpoint"]
    assert "GET /api/users/{user_slug}/avatar" in unimplemented.message
    assert unimplemented.range.start.line + 1 == line_no(client, "openapi.yaml", "operationId: readAvatar") - 1
    assert covered(client, unimplemented.range, "openapi.yaml") == "get"
    mismatch = found["route-method-mismatch"]
    assert "DELETE /api/users/{user_slug}/sessions" in mismatch.message and "POST at api/routes/users.py" in mismatch.message
    assert covered(client, mismatch.range, "openapi.yaml") == "delete"
    backend = await ready(client, USERS, "undeclared-route")
    (undeclared,) = [d for d in backend if d.code == "undeclared-route"]
    assert "POST /api/users/{slug}/sessions" in undeclared.message
    assert undeclared.range.start.line + 1 == line_no(client, USERS, '@router.post("/{slug}/sessions")')
    assert covered(client, undeclared.range, USERS) == '"/{slug}/sessions"'
    assert undeclared.severity == lsp.DiagnosticSeverity.Information


# ---------------------------------------------------------------------- a prefix that is not a literal

ADMIN = {
    "pyproject.toml": SHELF["pyproject.toml"],
    "settings.py": 'import os\n\nADMIN_PREFIX = os.environ.get("ADMIN_PREFIX", "/admin")\n',
    "main.py": """\
from fastapi import FastAPI

import settings
from routes import admin, public

app = FastAPI()
app.include_router(public.router)
app.include_router(admin.router, prefix=settings.ADMIN_PREFIX)
""",
    "routes/__init__.py": "",
    "routes/public.py": """\
from fastapi import APIRouter

router = APIRouter()


@router.get("/users/{user_id}")
def public_profile(user_id: int):
    return {"id": user_id, "public": True}
""",
    "routes/admin.py": """\
from fastapi import APIRouter

router = APIRouter()


@router.get("/users/{user_id}")
def admin_profile(user_id: int):
    return {"id": user_id, "roles": ["admin"]}
""",
    "openapi.yaml": """\
openapi: 3.0.3
info: {title: Back office, version: "1"}
servers:
  - url: /admin
paths:
  /users/{id}:
    get:
      responses:
        "200": {description: A user as an administrator sees it}
""",
    "web/admin.ts": "export const adminUser = (id: number) => fetch(`/admin/users/${id}`).then((r) => r.json());\n",
}

unresolved_client = pushed_client(workspace="admin_workspace")


@pytest.fixture
def admin_workspace(tmp_path: Path) -> Path:
    return write(tmp_path / "admin", ADMIN)


async def test_a_prefix_that_is_not_a_literal_gives_no_target_and_no_wrong_one(unresolved_client: LanguageClient):
    client = unresolved_client
    symbols = await wait_for_symbols(client, "GET /users")
    # the public route is known; the admin one, under settings.ADMIN_PREFIX, is not a symbol
    assert [s.name for s in symbols if s.kind == lsp.SymbolKind.Function] == ["GET /users/{user_id}"]
    # the contract's GET /admin/users/{id} is the admin route's, whose full path is not known:
    # no target, and above all not the public handler that /users/{user_id} would also fit
    assert await definition(client, "openapi.yaml", "  /users/{id}:\n    g$0et:") == []
    locs = await definition(client, "web/admin.ts", "fetch(`/adm$0in/users/${id}`)")
    assert [where(client, loc)[0] for loc in locs] == ["openapi.yaml"]
    # neither handler has the admin call as a caller
    assert await references(client, "routes/admin.py", "def admin_$0profile(") == []
    assert await references(client, "routes/public.py", "def public_$0profile(") == []
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc(client, "routes/admin.py")))
    titles = [lens.command.title for lens in lenses]
    assert titles[0] == "no callers" and titles[1].startswith("full path not known") and "ADMIN_PREFIX" in titles[1]


async def wait_for_symbols(client: LanguageClient, query: str) -> list[lsp.SymbolInformation]:
    found: list = []

    async def poll():
        found[:] = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query)) or []
        return found

    import asyncio
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if await poll():
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"no workspace symbols for {query!r}")


# ---------------------------------------------------------------------- Express, three files

LIBRARY = {
    "package.json": '{"name": "library", "private": true, "dependencies": {"express": "^4.19.0"}}\n',
    "server.js": """\
const express = require('express');
const api = require('./routes');

const app = express();
app.use(express.json());
app.use('/api', api);

app.listen(process.env.PORT || 3000);
""",
    "routes/index.js": """\
const { Router } = require('express');
const books = require('./books');

const router = Router();
router.use('/books', books);

module.exports = router;
""",
    "routes/books.js": """\
const { Router } = require('express');
const catalog = require('../catalog');

const router = Router();

async function listBooks(req, res) {
  res.json(await catalog.all());
}

async function showBook(req, res) {
  const book = await catalog.find(req.params.isbn);
  if (!book) return res.status(404).json({ error: 'not found' });
  res.json(book);
}

router.get('/', listBooks);
router.get('/:isbn', showBook);

module.exports = router;
""",
    "catalog.js": "const shelf = new Map();\nmodule.exports = { all: async () => [...shelf.values()], find: async (isbn) => shelf.get(isbn) };\n",
    "openapi.yaml": """\
openapi: 3.0.3
info: {title: Library, version: "1"}
paths:
  /api/books:
    get:
      responses: {"200": {description: Every book}}
  /api/books/{book_isbn}:
    get:
      responses: {"200": {description: One book}}
""",
    "web/book.js": """\
export async function loadBook(isbn) {
  const res = await fetch(`/api/books/${isbn}`);
  return res.ok ? res.json() : null;
}
""",
}

express_client = pushed_client(workspace="express_workspace")


@pytest.fixture
def express_workspace(tmp_path: Path) -> Path:
    return write(tmp_path / "library", LIBRARY)


async def test_express_routers_across_three_files(express_client: LanguageClient):
    client = express_client
    books = "routes/books.js"
    await wait_for_symbols(client, "GET /api/books/{isbn}")
    locs = await definition(client, "openapi.yaml", "  /api/books/{book_isbn}:\n    g$0et:")
    assert [where(client, loc) for loc in locs] == [(books, line_no(client, books, "router.get('/:isbn', showBook)"))]
    assert covered(client, locs[0]) == "'/:isbn'"
    # the collection route (`/` under /api + /books) is /api/books itself
    locs = await definition(client, "openapi.yaml", "  /api/books:\n    g$0et:")
    assert [where(client, loc) for loc in locs] == [(books, line_no(client, books, "router.get('/', listBooks)"))]
    refs = await references(client, books, "router.get('/:i$0sbn', showBook)")
    assert [where(client, r) for r in refs] == [("web/book.js", line_no(client, "web/book.js", "fetch("))]
    assert await references(client, books, "router.get('/', list$0Books)") == []
    symbols = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="GET /api/books/{isbn}"))
    (sym,) = [s for s in symbols if s.kind == lsp.SymbolKind.Function]
    assert covered(client, sym.location) == "showBook" and sym.container_name == f"express {books}"
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc(client, books)))
    titles = sorted((lens.range.start.line + 1, lens.command.title) for lens in lenses)
    assert titles == [(line_no(client, books, "router.get('/', listBooks)"), "GET /api/books"),
                      (line_no(client, books, "router.get('/', listBooks)"), "no callers"),
                      (line_no(client, books, "showBook);"), "1 caller"),
                      (line_no(client, books, "showBook);"), "GET /api/books/{isbn}")]
