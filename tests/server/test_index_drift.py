"""The route drift (``routes.drift`` of the composed routes and the contract table) in the
index: judged again only when what it reads changed (``stats["drift_judged"]``). A data
model's edit composes the routes again (the route table's schemas read the models), but
a composition equal to the last one is that list itself, so the drift holds."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from test_lsp_fields import BACKEND

CONTRACT = (
    "openapi: 3.0.3\ninfo: {title: notes, version: '1'}\npaths:\n"
    "  /api/notes:\n    get: {responses: {'200': {description: ok}}}\n"
    "    post: {responses: {'200': {description: ok}}}\n"
    "  /api/notes/{id}:\n    get: {responses: {'200': {description: ok}}}\n"
)
MODELS = (  # data models of a file without routes, that no route reads
    "export interface Note {\n"
    "  title: string;\n"
    "\n"
    "}\n\n"
    "export class NoteStore {\n"
    "  private items = new Map<string, Note>();\n"
    "\n"
    "  all(): Note[] {\n"
    "    return [...this.items.values()];\n"
    "  }\n"
    "}\n"
)


def workspace(root: Path, contract: bool = True) -> Path:
    files = {**BACKEND, "web/src/models.ts": MODELS, **({"openapi.yaml": CONTRACT} if contract else {})}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "web/package.json").write_text('{"name": "web", "dependencies": {"axios": "^1.6.0"}}\n')
    return root


def drift_of(idx: WorkspaceIndex) -> dict:
    return {rel: sorted((f.code, f.span.start, f.span.end, f.message) for f in found)
            for rel, found in idx.drift_findings().items()}


def fresh_drift(root: Path) -> dict:
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    return drift_of(idx)


def edit(idx: WorkspaceIndex, root: Path, rel: str, text: str) -> None:
    """An open document's keystroke, its text written to disk too (for a fresh index)."""
    idx.update(rel, text, incremental=True)
    (root / rel).write_text(text)


def models_of(idx: WorkspaceIndex, rel: str) -> list:
    return [(m.name, [f.name for f in m.fields]) for m in idx.facts.get(rel).data_models]


def test_a_data_model_edit_in_a_file_without_routes_leaves_the_drift_alone(tmp_path: Path):
    root = workspace(tmp_path)
    idx = WorkspaceIndex(root)
    idx.build()
    rel = "web/src/models.ts"
    idx.prepare_edits(rel, MODELS)
    before = drift_of(idx)
    assert [f[0] for f in before["openapi.yaml"]] == ["unimplemented-endpoint"]
    composed, judged = idx.composed_routes(), idx.stats.get("drift_judged", 0)
    for text in (MODELS.replace("string;\n\n", "string;\nq\n"),  # a field typed in the interface
                 MODELS.replace("Note>();\n\n", "Note>();\nq\n"),  # a field typed in the class
                 MODELS):  # and undone
        models = models_of(idx, rel)
        edit(idx, root, rel, text)
        assert models_of(idx, rel) != models  # a data model changed: the routes were composed again
        assert idx.composed_routes() is composed  # ... into the same list
        assert drift_of(idx) == before == fresh_drift(root)
        assert idx.stats.get("drift_judged", 0) == judged  # and the drift was not judged again
    assert idx.stats.get("composed_kept", 0) >= 3


def fields_of(idx: WorkspaceIndex) -> list[str]:
    return sorted(f.code for f in idx.findings("web/src/api.ts") if f.code.endswith("-field"))


def test_a_model_a_route_reads_changes_the_schema_not_the_drift(tmp_path: Path):
    """The drift compares the composed routes' methods and paths with the contract's
    endpoints: no data model enters it, not even a route's request model. What reads that
    model (the route table's schemas, with the routes as the contract) follows the edit."""
    schemas = BACKEND["api/schemas.py"]
    added = schemas + "    tags: list[str] = []\n"
    for contract in (True, False):
        root = workspace(tmp_path / str(contract), contract)
        idx = WorkspaceIndex(root)
        idx.build()
        idx.prepare_edits("api/schemas.py", schemas)
        before, composed = drift_of(idx), idx.composed_routes()
        judged = idx.stats.get("drift_judged", 0)
        assert fields_of(idx) == ([] if contract else ["unknown-field"])  # (a contract: its schema, which has none)
        edit(idx, root, "api/schemas.py", added)
        assert fields_of(idx) == []  # the route table read the new field
        if contract:
            assert not idx.routes_as_contract() and idx.stats.get("drift_judged", 0) == judged
        assert idx.composed_routes() is composed
        assert drift_of(idx) == before == fresh_drift(root)


def test_a_route_or_contract_edit_judges_the_drift_again(tmp_path: Path):
    root = workspace(tmp_path)
    idx = WorkspaceIndex(root)
    idx.build()
    rel = "api/notes.py"
    idx.prepare_edits(rel, BACKEND[rel])
    composed, judged = idx.composed_routes(), idx.stats.get("drift_judged", 0)
    routed = BACKEND[rel] + "\n\n@router.get('/{note_id}')\ndef read_note(note_id: int):\n    return {}\n"
    edit(idx, root, rel, routed)  # the unimplemented endpoint gets its route
    assert idx.composed_routes() is not composed
    assert drift_of(idx) == {} == fresh_drift(root)
    assert idx.stats.get("drift_judged", 0) == judged + 1
    routed += "\n\n@router.delete('/{note_id}')\ndef delete_note(note_id: int):\n    return None\n"
    edit(idx, root, rel, routed)  # a route no contract declares
    assert [(rel, f[0]) for rel, fs in drift_of(idx).items() for f in fs] == [("api/notes.py", "undeclared-route")]
    assert drift_of(idx) == fresh_drift(root)
    assert idx.stats.get("drift_judged", 0) == judged + 2
    contract = CONTRACT + "    delete: {responses: {'200': {description: ok}}}\n"
    idx.update("openapi.yaml", contract)  # the contract declares it now
    (root / "openapi.yaml").write_text(contract)
    assert drift_of(idx) == {} == fresh_drift(root)
    assert idx.stats.get("drift_judged", 0) == judged + 3
