"""The backend's own routes as the contract (``contract_sources``): with no contract file,
client calls are judged against the routes the backend declares, across files."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

BACKEND = {
    "api/main.py": (
        "from fastapi import FastAPI\n"
        "from api.routers import notes, tags\n\n"
        "app = FastAPI(title='notes')\n"
        "app.include_router(notes.router, prefix='/api/notes')\n"
        "app.include_router(tags.router, prefix='/api')\n"
    ),
    "api/routers/__init__.py": "",
    "api/routers/notes.py": (
        "from fastapi import APIRouter\n\n"
        "router = APIRouter()\n\n\n"
        "@router.get('')\n"
        "def list_notes():\n"
        "    return []\n\n\n"
        "@router.get('/{note_id}')\n"
        "def read_note(note_id: int):\n"
        "    \"\"\"One note, by its id.\"\"\"\n"
        "    return {}\n\n\n"
        "@router.delete('/{note_id}')\n"
        "def delete_note(note_id: int):\n"
        "    return None\n"
    ),
    "api/routers/tags.py": (
        "import httpx\n"
        "from fastapi import APIRouter\n\n"
        "router = APIRouter(prefix='/tags')\n\n\n"
        "@router.get('/')\n"
        "def list_tags():\n"
        "    httpx.get('/v2/suggest')  # another service: not judged against these routes\n"
        "    return []\n"
    ),
}

FRONTEND = (
    "import axios from 'axios';\n"
    "const api = axios.create({ baseURL: '/api' });\n\n"
    "export const listNotes = () => api.get('/notes');\n"
    "export const readNote = (id: number) => api.get(`/notes/${id}`);\n"
    "export const removeNote = (id: number) => api.delete(`/notes/${id}`);\n"
    "export const listTags = () => api.get('/tags/');\n"
    "export const archiveNote = (id: number) => api.post(`/notes/${id}/archive`);\n"
    "export const renameNote = (id: number) => api.put(`/notes/${id}`, { title: 'x' });\n"
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def make(root: Path, files: dict[str, str], config: str | None = None) -> Path:
    write(root, {**files, "web/src/api.ts": FRONTEND})
    (root / "web/package.json").write_text('{"name": "web", "dependencies": {"axios": "^1.6.0"}}\n')
    if config is not None:
        (root / "specward.toml").write_text(config)
    return root


def codes_messages(idx: WorkspaceIndex, rel: str) -> list[tuple[str, str]]:
    return sorted((f.code, f.message) for f in idx.findings(rel) if f.code in ("phantom-api", "method-mismatch"))


def test_calls_are_judged_against_the_routes_composed_across_files(tmp_path: Path):
    idx = WorkspaceIndex(make(tmp_path, BACKEND))
    idx.build()
    assert idx.routes_as_contract() and idx.table.source == "routes"
    found = codes_messages(idx, "web/src/api.ts")
    assert [c for c, _ in found] == ["method-mismatch", "phantom-api"], found
    mismatch, phantom = found[0][1], found[1][1]
    assert mismatch.startswith("PUT /api/notes/{id} is not routed: the backend routes /api/notes/{note_id} only with DELETE, GET")
    assert "read_note in api/routers/notes.py" in mismatch  # the message names the handler
    assert phantom.startswith("POST /api/notes/{id}/archive is not a route of the backend"), phantom
    # the matched calls reach their routes, with handlers
    matched = {(st.call.method, st.endpoint.path) for st in idx.statuses["web/src/api.ts"] if st.status == "matched"}
    assert matched == {("GET", "/api/notes"), ("GET", "/api/notes/{note_id}"), ("DELETE", "/api/notes/{note_id}"),
                       ("GET", "/api/tags/")}
    # the backend's own outgoing call is not judged against its routes
    assert not [f for f in idx.findings("api/routers/tags.py") if f.code == "phantom-api"]
    # routes are not "unused endpoints": other clients may call them
    assert not [f for f in idx.all_findings() if f.code == "unused-endpoint"]


def test_a_route_added_by_an_edit_clears_the_phantom(tmp_path: Path):
    idx = WorkspaceIndex(make(tmp_path, BACKEND))
    idx.build()
    assert any(c == "phantom-api" for c, _ in codes_messages(idx, "web/src/api.ts"))
    text = BACKEND["api/routers/notes.py"] + (
        "\n\n@router.post('/{note_id}/archive')\ndef archive_note(note_id: int):\n    return {}\n")
    affected = idx.update("api/routers/notes.py", text, incremental=True)
    assert "web/src/api.ts" in affected
    assert [c for c, _ in codes_messages(idx, "web/src/api.ts")] == ["method-mismatch"]
    # and its mount's prefix edited away from what the client calls: every notes call is a phantom
    main = BACKEND["api/main.py"].replace("prefix='/api/notes'", "prefix='/api/memos'")
    idx.update("api/main.py", main)
    assert sum(c == "phantom-api" for c, _ in codes_messages(idx, "web/src/api.ts")) == 0  # untrusted: most calls miss
    assert not idx.route_verdicts_shown()


def test_a_route_whose_path_is_not_known_keeps_misses_unjudged(tmp_path: Path):
    files = dict(BACKEND)
    files["api/main.py"] = BACKEND["api/main.py"].replace("prefix='/api')", "prefix=settings.TAGS_PREFIX)")
    idx = WorkspaceIndex(make(tmp_path, files))
    idx.build()
    # a miss may be one of the routes whose full path is not known: unresolved, with why
    assert not [c for c, m in codes_messages(idx, "web/src/api.ts") if c == "phantom-api"]
    why = [st.call.reason for st in idx.statuses["web/src/api.ts"] if st.status == "unresolved"]
    assert any(r and "full path is not known" in r for r in why), why


def test_a_contract_file_stays_the_reference_and_the_sources_are_configurable(tmp_path: Path):
    root = make(tmp_path, BACKEND)
    (root / "openapi.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: notes, version: '1'}\nservers: [{url: /api}]\npaths:\n"
        "  /notes:\n    get: {responses: {'200': {description: ok}}}\n"
        "  /notes/{id}:\n    get: {responses: {'200': {description: ok}}}\n"
        "    delete: {responses: {'200': {description: ok}}}\n    put: {responses: {'200': {description: ok}}}\n"
        "  /tags/:\n    get: {responses: {'200': {description: ok}}}\n")
    idx = WorkspaceIndex(root)
    idx.build()
    assert not idx.routes_as_contract() and idx.table.source == "contract"
    found = codes_messages(idx, "web/src/api.ts")
    assert found == [("phantom-api", found[0][1])] and "is not in the contract" in found[0][1]
    # the routes are compared with the contract instead: PUT is declared, not implemented
    drift = [f for f in idx.findings("openapi.yaml") if f.code == "route-method-mismatch"]
    assert drift and "PUT /api/notes/{id}" in drift[0].message
    # routes only: the routes judge the calls even with the contract there
    (root / "specward.toml").write_text('contract_sources = ["routes"]\n')
    idx = WorkspaceIndex(root)
    idx.build()
    assert idx.table.source == "routes"
    assert [c for c, _ in codes_messages(idx, "web/src/api.ts")] == ["method-mismatch", "phantom-api"]
    # files only: with no contract file nothing is judged
    (root / "openapi.yaml").unlink()
    (root / "specward.toml").write_text('contract_sources = ["files"]\n')
    idx = WorkspaceIndex(root)
    idx.build()
    assert codes_messages(idx, "web/src/api.ts") == []
    assert {st.status for st in idx.statuses["web/src/api.ts"]} == {"unresolved"}


def test_a_bad_contract_sources_value_is_reported(tmp_path: Path):
    root = make(tmp_path, BACKEND, 'contract_sources = ["routes", "guesses"]\n')
    idx = WorkspaceIndex(root)
    idx.build()
    problems = [f for f in idx.findings("specward.toml")]
    assert problems and "contract_sources" in problems[0].message


NEXT = {
    "package.json": '{"name": "notes", "dependencies": {"next": "14.2.5", "react": "18.3.1"}}\n',
    "next.config.mjs": "const nextConfig = { reactStrictMode: true };\nexport default nextConfig;\n",
    "app/api/notes/route.ts": (
        "export async function GET() {\n  return Response.json([]);\n}\n\n"
        "export async function POST(request: Request) {\n  return Response.json(await request.json(), { status: 201 });\n}\n"
    ),
    "app/api/notes/[noteId]/route.ts": (
        "export async function GET(_req: Request, { params }: { params: { noteId: string } }) {\n"
        "  return Response.json({ id: params.noteId });\n}\n"
    ),
    "app/notes/page.tsx": (
        "'use client';\n"
        "export default function Notes() {\n"
        "  const add = () => fetch('/api/notes', { method: 'POST', body: '{}' });\n"
        "  const load = () => fetch('/api/notes');\n"
        "  const one = (id: string) => fetch(`/api/notes/${id}`);\n"
        "  const drop = (id: string) => fetch(`/api/notes/${id}`, { method: 'DELETE' });\n"
        "  return null;\n}\n"
    ),
}


def test_file_routes_are_the_contract_and_follow_edits(tmp_path: Path):
    idx = WorkspaceIndex(write(tmp_path, NEXT))
    idx.build()
    assert idx.table.source == "routes"
    page = "app/notes/page.tsx"
    assert [c for c, _ in codes_messages(idx, page)] == ["method-mismatch"]  # DELETE /api/notes/{id}
    # the route file loses its POST: the page's POST becomes a mismatch too
    rel = "app/api/notes/route.ts"
    idx.update(rel, NEXT[rel].split("export async function POST")[0], incremental=True)
    assert [c for c, _ in codes_messages(idx, page)] == ["method-mismatch", "method-mismatch"]
    # a new route file (DELETE on the item) clears one
    item = "app/api/notes/[noteId]/route.ts"
    idx.update(item, NEXT[item] + "\nexport async function DELETE() {\n  return new Response(null, { status: 204 });\n}\n")
    assert [c for c, _ in codes_messages(idx, page)] == ["method-mismatch"]


DJANGO = {
    "config/urls.py": "from django.urls import include, path\n\nurlpatterns = [path('api/', include('notes.urls'))]\n",
    "notes/urls.py": ("from django.urls import path\n\nfrom notes import views\n\n"
                      "urlpatterns = [path('notes/<int:pk>/', views.NoteView.as_view())]\n"),
    "notes/views.py": ("from django.views import View\nfrom django.http import JsonResponse\n\n\n"
                       "class NoteView(View):\n    def get(self, request, pk):\n        return JsonResponse({})\n"),
    "web/src/notes.ts": ("export const save = (id: number) => fetch(`/api/notes/${id}/`, { method: 'PUT' });\n"
                         "export const load = (id: number) => fetch(`/api/notes/${id}/`);\n"),
}


def test_an_edit_of_a_view_class_alone_recomposes_the_routes(tmp_path: Path):
    idx = WorkspaceIndex(write(tmp_path, DJANGO))
    idx.build()
    assert [c for c, _ in codes_messages(idx, "web/src/notes.ts")] == ["method-mismatch"]
    views = DJANGO["notes/views.py"] + "\n    def put(self, request, pk):\n        return JsonResponse({})\n"
    idx.update("notes/views.py", views, incremental=True)
    assert codes_messages(idx, "web/src/notes.ts") == []
