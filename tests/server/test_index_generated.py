"""Generated files and contract changes in the index, on real files: a generated file turns
``stale-generated`` when the contract element it came from changes (and back when the change
is undone), and a contract update puts ``contract-change-impact`` on its changed entries."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from specward.analyzers.contracts import parse_contract
from specward.analyzers.provenance import Provenance, elements_of, render_header, render_manifest
from specward.analyzers.model import Span
from specward.server.engine.index import WorkspaceIndex

CONTRACT = "specs/notes.dsl.json"
GENERATED = "web/src/gen/notes.ts"
PAGE = "web/src/page.ts"

NOTES = {
    "version": "1.0",
    "feature": {"id": "notes", "title": "Notes", "description": "Taking notes"},
    "models": [{"name": "Note", "fields": [{"name": "id", "type": "string", "required": True},
                                           {"name": "pinned", "type": "boolean", "required": True}]}],
    "endpoints": [
        {"id": "EP-1", "method": "GET", "path": "/api/notes", "description": "List", "auth": False,
         "successStatus": 200, "successDescription": "The Note list"},
        {"id": "EP-2", "method": "POST", "path": "/api/notes", "description": "Create", "auth": True,
         "request": {"body": {"text": "string"}}, "successStatus": 201, "successDescription": "The new Note"},
    ],
}


def contract_text(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


def without_pinned(doc: dict) -> dict:
    changed = copy.deepcopy(doc)
    changed["models"][0]["fields"] = [f for f in changed["models"][0]["fields"] if f["name"] != "pinned"]
    return changed


def generated_ts(header: str) -> str:
    return (f"{header}\n"
            "export async function createNote(text: string) {\n"
            "  return fetch('/api/notes', { method: 'POST', body: JSON.stringify({ text }) });\n"
            "}\n")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "web/src/gen").mkdir(parents=True)
    (root / CONTRACT).write_text(contract_text(NOTES))
    facts = parse_contract(CONTRACT, contract_text(NOTES))
    header = render_header(CONTRACT, [(e.id, e.hash) for e in elements_of(facts, ["POST /api/notes", "model Note"])])
    (root / GENERATED).write_text(generated_ts(header))
    (root / PAGE).write_text("import { createNote } from './gen/notes';\n\n"
                             "export const list = () => fetch('/api/notes');\n"
                             "export const add = (t: string) => createNote(t);\n")
    return root


def codes(idx: WorkspaceIndex, rel: str, code: str) -> list[str]:
    return sorted(f.message for f in idx.findings(rel) if f.code == code)


def impact(idx: WorkspaceIndex) -> dict[str, dict]:
    return {dict(f.data)["element"]: dict(f.data) | {"message": f.message, "span": f.span}
            for f in idx.findings(CONTRACT) if f.code == "contract-change-impact"}


def test_a_generated_file_turns_stale_when_its_element_changes_and_back_when_reverted(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    assert codes(idx, GENERATED, "stale-generated") == []
    assert impact(idx) == {}  # a build describes no change

    changed = contract_text(without_pinned(NOTES))
    (ws / CONTRACT).write_text(changed)
    affected = idx.update_from_disk(CONTRACT)
    assert GENERATED in affected and CONTRACT in affected
    # the version it was generated from was seen by this index: the summary says what changed
    assert codes(idx, GENERATED, "stale-generated") == [
        "POST /api/notes: response field pinned removed (specs/notes.dsl.json changed since this file was generated)",
        "model Note: field pinned removed (specs/notes.dsl.json changed since this file was generated)",
    ]
    header_line = (ws / GENERATED).read_text().splitlines()[0]
    stale = next(f for f in idx.findings(GENERATED) if f.code == "stale-generated")
    assert stale.span == Span(0, len(header_line.encode()))

    found = impact(idx)
    assert set(found) == {"GET /api/notes", "POST /api/notes", "model Note"}
    post = found["POST /api/notes"]
    assert post["message"] == "POST /api/notes: response field pinned removed — this change affects 2 files"
    # the call in the generated file, the generated file itself, and its importer
    assert post["files"] == (GENERATED, PAGE)
    assert dict(post["reasons"]) == {GENERATED: "calls POST /api/notes", PAGE: "imports web/src/gen/notes.ts"}
    get = found["GET /api/notes"]
    assert get["files"] == (PAGE,) and dict(get["reasons"])[PAGE] == "calls GET /api/notes"
    model = found["model Note"]
    assert model["message"] == "model Note: field pinned removed — this change affects 2 files"
    text = (ws / CONTRACT).read_text().encode()
    assert text[model["span"].start:model["span"].end] == b'"Note"'  # on the changed entry

    # reverted: fresh again, and the impact is now that of the revert (the last change)
    (ws / CONTRACT).write_text(contract_text(NOTES))
    idx.update_from_disk(CONTRACT)
    assert codes(idx, GENERATED, "stale-generated") == []
    assert impact(idx)["model Note"]["message"] == "model Note: field pinned added — this change affects 2 files"


def test_a_change_that_changes_no_element_keeps_the_last_change(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    idx.update(CONTRACT, contract_text(without_pinned(NOTES)))
    before = impact(idx)
    assert before
    reformatted = json.dumps(without_pinned(NOTES), indent=4)  # whitespace and nothing else
    idx.update(CONTRACT, reformatted)
    after = impact(idx)
    assert {k: v["message"] for k, v in after.items()} == {k: v["message"] for k, v in before.items()}
    span = after["model Note"]["span"]
    assert reformatted.encode()[span.start:span.end] == b'"Note"'  # placed again on the new text


def test_editor_edits_are_one_change_and_an_undone_edit_leaves_nothing(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    base = contract_text(NOTES)
    # typing a new field name, letter by letter, in the open contract
    for name in ("t", "ti", "tit", "title"):
        doc = copy.deepcopy(NOTES)
        doc["models"][0]["fields"].append({"name": name, "type": "string", "required": False})
        idx.update(CONTRACT, contract_text(doc), incremental=True)
    assert impact(idx)["model Note"]["summary"] == "model Note: field title added"
    assert codes(idx, GENERATED, "stale-generated") == [
        "POST /api/notes: response field title added (specs/notes.dsl.json changed since this file was generated)",
        "model Note: field title added (specs/notes.dsl.json changed since this file was generated)",
    ]
    # a syntax error while typing: no impact shown, the generated file says the contract cannot be read
    idx.update(CONTRACT, base[:-5], incremental=True)
    assert impact(idx) == {}
    assert codes(idx, GENERATED, "stale-generated") == [
        "generated from specs/notes.dsl.json, which cannot be read now (see its contract-invalid findings): "
        "checked again once it parses"]
    # closed without saving: the disk's version is the baseline again
    idx.update_from_disk(CONTRACT)
    assert impact(idx) == {}
    assert codes(idx, GENERATED, "stale-generated") == []


def test_a_removed_element_and_a_removed_contract(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    doc = copy.deepcopy(NOTES)
    doc["endpoints"] = doc["endpoints"][:1]
    idx.update(CONTRACT, contract_text(doc))
    assert codes(idx, GENERATED, "stale-generated") == [
        "POST /api/notes was removed from specs/notes.dsl.json since this file was generated"]
    removed = impact(idx)["POST /api/notes"]
    assert removed["message"] == "POST /api/notes removed — this change affects 2 files"
    assert removed["span"] == Span(0, 0)  # nothing left to put it on
    assert removed["files"] == (GENERATED, PAGE)  # the call matched it before the change
    (ws / CONTRACT).unlink()
    idx.update_from_disk(CONTRACT)
    assert codes(idx, GENERATED, "stale-generated") == [
        "generated from specs/notes.dsl.json, which does not exist: this file cannot be checked against its contract"]
    assert idx.findings(CONTRACT) == []


def test_generated_json_entries_and_a_broken_manifest(ws: Path):
    (ws / GENERATED).write_text(generated_ts("// no header here"))
    facts = parse_contract(CONTRACT, contract_text(NOTES))
    entry = Provenance(GENERATED, CONTRACT, elements_of(facts, ["GET /api/notes"], snapshot=True), Span(0, 0),
                       "manifest")
    (ws / ".specward").mkdir()
    (ws / ".specward/generated.json").write_text(render_manifest([entry]))
    (ws / CONTRACT).write_text(contract_text(without_pinned(NOTES)))  # changed before this index ever saw it
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    # the snapshot says what the element was: the summary comes from it, at the start of the file
    stale = [f for f in idx.findings(GENERATED) if f.code == "stale-generated"]
    assert [(f.message, f.span) for f in stale] == [
        ("GET /api/notes: response field pinned removed (specs/notes.dsl.json changed since this file was generated)",
         Span(0, 0))]
    # the manifest edited: its problems are findings on it, and a broken entry judges nothing
    broken = '{"version": 1, "files": {"web/src/gen/notes.ts": {"contract": "specs/notes.dsl.json", "elements": []}}}'
    (ws / ".specward/generated.json").write_text(broken)
    assert idx.tracked(".specward/generated.json")
    affected = idx.update_from_disk(".specward/generated.json")
    assert {GENERATED, ".specward/generated.json"} <= affected
    assert codes(idx, GENERATED, "stale-generated") == []
    assert codes(idx, ".specward/generated.json", "stale-generated") == [
        ".specward/generated.json: files.web/src/gen/notes.ts.elements: must name at least one element"]


def test_a_header_written_while_editing_is_judged_and_a_header_that_cannot_be_read_says_so(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    text = (ws / GENERATED).read_text()
    stale = text.replace("sha256:", "sha256:0000", 1)
    idx.update(GENERATED, stale, incremental=True)
    assert codes(idx, GENERATED, "stale-generated") == [
        "POST /api/notes changed in specs/notes.dsl.json since this file was generated"]
    idx.update(GENERATED, "// specward-generated: elements=\"POST /api/notes=sha256:1234abcd\"\n", incremental=True)
    assert codes(idx, GENERATED, "stale-generated") == [
        "the specward-generated header has no contract; this file is not checked against its contract"]
    idx.update(GENERATED, text, incremental=True)
    assert codes(idx, GENERATED, "stale-generated") == []
