"""The slice stage from inside the editor (server/lsp/handlers/slice_command.py), through the
real server over stdio (pytest-lsp) against the real stub provider (tests/llm_stub.py): a code
action on a phantom call produces one confirmed applyEdit (the contract's edit and the slice),
whose files, once the editor applied them, pass specward's own checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import wait_for
from lsprotocol import types as lsp
from test_lsp_stages import actions_at, close_editor, open_editor, runs
from test_slice_cli import CLIENT, GOOD, PLAN, REVIEWS, files_answer, plan_answer, seed_app

from specward.analyzers.stages.score import MUST_PASS_CODES

TAGS_ONLY = {
    "version": "1.0", "feature": {"id": "notes", "title": "Notes", "description": "Read a note."},
    "models": [{"name": "Note", "description": "A note",
                "fields": [{"name": "id", "type": "Int", "required": True},
                           {"name": "title", "type": "String", "required": True}]}],
    "endpoints": [{"id": "EP-001", "method": "GET", "path": "/api/tags", "description": "Tags", "auth": False,
                   "successStatus": 200, "successDescription": "Tags", "errors": []}]}
PAGE = "web/src/pages/note.ts"
PAGE_TEXT = "export async function openNote(id: number) {\n  const res = await fetch(`/api/notes/${id}`);\n" \
            "  return res.json();\n}\n"


def seed(root: Path) -> None:
    seed_app(root)
    (root / "web/src/pages").mkdir(parents=True)
    (root / PAGE).write_text(PAGE_TEXT)
    (root / "specs/notes.dsl.json").write_text(json.dumps(TAGS_ONLY, indent=2) + "\n")


@pytest.fixture
async def editor(tmp_path: Path, request):
    answers = getattr(request, "param", [])
    ed = await open_editor(tmp_path, answers, before_start=seed)
    yield ed
    await close_editor(ed)


def open_doc(ed, rel: str) -> str:
    uri = (ed.root / rel).as_uri()
    ed.client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=(ed.root / rel).read_text())))
    return uri


def codes_of(ed, uri: str) -> list[str]:
    return [str(d.code) for d in ed.client.diagnostics.get(uri, [])]


@pytest.mark.parametrize("editor", [[plan_answer(PLAN), files_answer(GOOD), *REVIEWS]], indirect=True)
async def test_implement_this_endpoint_on_a_phantom_call(editor):
    ed = editor
    uri = open_doc(ed, PAGE)
    phantom = await wait_for(lambda: [d for d in ed.client.diagnostics.get(uri, []) if d.code == "phantom-api"],
                             what="the phantom call's diagnostic")
    from conftest import code_actions_as_sent

    code_actions_as_sent(ed.client)
    got = await ed.client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=phantom[0].range,
        context=lsp.CodeActionContext(diagnostics=phantom)))
    [action] = [a for a in got if a.title.startswith("Implement this endpoint")]
    assert action.command.command == "specward.implementEndpoint"
    [arg] = action.command.arguments
    assert arg == {"file": PAGE, "method": "GET", "path": "/api/notes/{id}", "contract": "specs/notes.dsl.json"}

    done = await ed.client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))
    assert done["applied"] is True, ed.messages()
    [edit] = ed.edits  # ONE applyEdit: the contract's edit and the slice's files
    assert edit.change_annotations and all(a.needs_confirmation for a in edit.change_annotations.values())
    changed = [c.text_document.uri[len(ed.root.as_uri()) + 1:] for c in edit.document_changes
               if isinstance(c, lsp.TextDocumentEdit)]
    assert changed[0] == "specs/notes.dsl.json" and set(changed) == {"specs/notes.dsl.json", *GOOD,
                                                                     "specs/notes.uat.md"}
    contract = json.loads((ed.root / "specs/notes.dsl.json").read_text())
    assert contract["endpoints"][0] == TAGS_ONLY["endpoints"][0]
    new = contract["endpoints"][-1]
    assert (new["id"], new["method"], new["path"]) == ("EP-002", "GET", "/api/notes/:id") and PAGE in new["description"]
    assert (ed.root / "web/src/api/notes.ts").read_text() == CLIENT
    # the plan asked for the new endpoint; the files were judged with the new contract in place
    assert "/api/notes/{id}" in ed.stub.requests[0].text()
    assert len(ed.stub.requests) == 2 + len(REVIEWS)  # no repair round: the client call was never phantom
    # the server sees the written files: the phantom call is declared now, the slice has no must-pass finding
    await wait_for(lambda: uri in ed.client.diagnostics and "phantom-api" not in codes_of(ed, uri),
                   what="the phantom-api diagnostic gone", timeout=60)
    uris = {rel: open_doc(ed, rel) for rel in GOOD}
    await wait_for(lambda: all(u in ed.client.diagnostics for u in uris.values()), what="the slice's diagnostics")
    for rel, u in uris.items():
        assert not [c for c in codes_of(ed, u) if c in MUST_PASS_CODES], (rel, codes_of(ed, u))
    # the run is logged with the files the editor applied; the review passes of the score were asked
    [rec] = [r for r in runs(ed.root) if r.run_id == done["runId"] and r.stage == "slice"]
    assert set(rec.files) == set(changed)
    assert "correctness" in ed.stub.requests[3].text()


async def test_slice_actions_on_a_dsl_contract(editor):
    ed = editor
    text = (ed.root / "specs/notes.dsl.json").read_text().splitlines()
    line = next(i for i, t in enumerate(text) if '"/api/tags"' in t)
    got = await actions_at(ed, "specs/notes.dsl.json", line)
    slices = [a for a in got if a.command and a.command.command == "specward.generateSlice"]
    titles = {a.title: list(a.command.arguments) for a in slices}
    assert titles["specward: generate a slice for GET /api/tags"] == [
        {"contract": "specs/notes.dsl.json", "endpoints": ["GET /api/tags"]}]
    assert titles["specward: generate a slice for every endpoint"] == [{"contract": "specs/notes.dsl.json"}]
    model_line = next(i for i, t in enumerate(text) if '"Note"' in t)
    got = await actions_at(ed, "specs/notes.dsl.json", model_line)
    assert any(a.title == "specward: generate a slice for model Note" and
               list(a.command.arguments) == [{"contract": "specs/notes.dsl.json", "models": ["Note"]}] for a in got)
    # an unknown endpoint: an error before any request
    done = await ed.run("specward.generateSlice", {"contract": "specs/notes.dsl.json", "endpoints": ["POST /x"]})
    assert done["applied"] is False and ed.stub.requests == []
    assert any("declares no such endpoint" in m for m in ed.messages(lsp.MessageType.Error))


@pytest.mark.parametrize("editor", [None], indirect=True)
async def test_without_a_model_a_message_and_nothing_else(editor):
    ed = editor
    before = (ed.root / "specs/notes.dsl.json").read_text()
    done = await ed.run("specward.implementEndpoint", {"file": PAGE, "method": "GET", "path": "/api/notes/{id}"})
    assert done["applied"] is False and ed.edits == []
    [message] = ed.messages(lsp.MessageType.Warning)
    assert "SPECWARD_MODEL" in message
    done = await ed.run("specward.generateSlice", {"contract": "specs/notes.dsl.json"})
    assert done["applied"] is False and ed.edits == []
    assert (ed.root / "specs/notes.dsl.json").read_text() == before
    assert not (ed.root / ".specward/runs.jsonl").exists()
    assert not [t for t in ed.client.progress_reports if str(t).startswith("specward-stage-")]


PROTECTED_PLAN = {"files": [*PLAN["files"], {"path": ".vscode/settings.json", "role": "other"}]}
PROTECTED_FILES = {**GOOD, ".vscode/settings.json": "{\"editor.formatOnSave\": true}\n"}


@pytest.mark.parametrize("editor", [[plan_answer(PROTECTED_PLAN), files_answer(PROTECTED_FILES), *REVIEWS]],
                         indirect=True)
async def test_a_protected_file_has_a_confirmation_of_its_own(editor):
    ed = editor
    done = await ed.run("specward.implementEndpoint", {"file": PAGE, "method": "GET", "path": "/api/notes/{id}",
                                                       "contract": "specs/notes.dsl.json"})
    assert done["runId"], ed.messages()
    [edit] = ed.edits
    own = "specward-stage:.vscode/settings.json"
    assert set(edit.change_annotations) == {"specward-stage", own}
    assert edit.change_annotations[own].needs_confirmation and "protected" in edit.change_annotations[own].label
    for change in edit.document_changes:
        uri = change.uri if isinstance(change, lsp.CreateFile) else change.text_document.uri
        ids = [change.annotation_id] if isinstance(change, lsp.CreateFile) else [e.annotation_id for e in change.edits]
        assert set(ids) == ({own} if uri.endswith("/.vscode/settings.json") else {"specward-stage"})
