"""The editor's discuss, update-affected-code and resume commands
(server/lsp/handlers/stage_more.py) through the real server over stdio (pytest-lsp),
against the real stub provider on 127.0.0.1 (tests/llm_stub.py); the questions are
answered by the test client's own handler of ``window/showMessageRequest``; the update
runs in a real git repository. No in-process mocking of litellm."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import _start, code_actions_as_sent
from llm_stub import Answer, LLMStub
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, client_capabilities
from specward.analyzers.stages.discuss import Decision, context_markdown, read_decisions
from test_discuss_cli import ERRORS, PAGES, SESSIONS, questions
from test_lsp_stages import SPEC_MD, Editor, runs, server_env, spec_answer
from test_update_cli import NOTES_NEW, NOTES_OLD, TAGS, block, contract

DISCUSS_TITLE = "specward: discuss the open questions of this spec"
UPDATE_TITLE = "specward: update the code this contract change affects"


class MoreEditor(Editor):
    def __init__(self, *a):
        super().__init__(*a)
        self.asked: list[lsp.ShowMessageRequestParams] = []
        self.answer = lambda params: None  # dismissed


async def open_editor(tmp_path: Path, answers: list | None, setup) -> MoreEditor:
    root = tmp_path / "ws"
    root.mkdir()
    setup(root)
    stub = LLMStub(answers).start() if answers is not None else None
    config = ClientServerConfig(server_command=[sys.executable, "-m", "specward.server", "serve"],
                                server_env=server_env(tmp_path, stub))
    client = await config.start()
    ed = MoreEditor(client, root, stub)

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams):
        ed.edits.append(params.edit)
        if ed.apply:
            for change in params.edit.document_changes:
                if isinstance(change, lsp.TextDocumentEdit):
                    path = root / change.text_document.uri[len(root.as_uri()) + 1:]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(change.edits[0].new_text)
        return lsp.ApplyWorkspaceEditResult(applied=ed.apply)

    @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    def show_message_request(params: lsp.ShowMessageRequestParams):
        ed.asked.append(params)
        title = ed.answer(params)
        return None if title is None else lsp.MessageActionItem(title=title)

    @client.feature("specward/lastScore")
    def last_score(params):
        ed.scores.append(params)

    await _start(client, root, client_capabilities("visual-studio-code"))
    return ed


@pytest.fixture
async def editor_factory(tmp_path: Path):
    opened: list[MoreEditor] = []

    async def make(answers: list | None, setup) -> MoreEditor:
        ed = await open_editor(tmp_path, answers, setup)
        opened.append(ed)
        return ed

    yield make
    for ed in opened:
        try:
            await ed.client.shutdown_session()
        finally:
            await ed.client.stop()
            if ed.stub is not None:
                ed.stub.close()


async def actions_on(ed: MoreEditor, rel: str) -> list:
    code_actions_as_sent(ed.client)
    pos = lsp.Position(0, 0)
    return await ed.client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=(ed.root / rel).as_uri()), range=lsp.Range(pos, pos),
        context=lsp.CodeActionContext(diagnostics=[]))) or []


def edited_files(ed: MoreEditor, edit: lsp.WorkspaceEdit) -> list[str]:
    return [c.text_document.uri[len(ed.root.as_uri()) + 1:] for c in edit.document_changes
            if isinstance(c, lsp.TextDocumentEdit)]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


# ----------------------------------------------------------------------------- discuss
ERRORS_DECIDED = Decision("errors", ERRORS["question"], "RFC 7807 problem+json", ("{error: {code, message}}",))


def discuss_workspace(root: Path) -> None:
    (root / ".git").mkdir()
    (root / "specs").mkdir()
    (root / "specs/notes.md").write_text(SPEC_MD)
    (root / "specs/notes.context.md").write_text(context_markdown("notes", "specs/notes.md", [ERRORS_DECIDED]))


async def test_discuss_asks_each_open_question_with_show_message_request(editor_factory):
    ed = await editor_factory([questions(SESSIONS, PAGES, ERRORS)], discuss_workspace)
    actions = [a for a in await actions_on(ed, "specs/notes.md") if a.title == DISCUSS_TITLE]
    [action] = actions
    assert action.command.command == "specward.discuss" and list(action.command.arguments) == [
        {"spec": "specs/notes.md"}]
    # the sessions question gets an answer, the page size is dismissed (it stays open)
    ed.answer = lambda p: "A signed cookie" if "sessions" in p.message else None
    done = await ed.run(action.command.command, *action.command.arguments)
    assert done["applied"] is True and done["files"] == ["specs/notes.context.md"]
    assert [p.message for p in ed.asked] == [SESSIONS["question"] + " (recommended: A JWT bearer token)",
                                            PAGES["question"]]  # errors: decided already, not asked
    assert [a.title for a in ed.asked[0].actions] == SESSIONS["options"]
    assert [a.title for a in ed.asked[1].actions] == ["20", "50", "Client chooses, at most 100"]
    [edit] = ed.edits
    assert edited_files(ed, edit) == ["specs/notes.context.md"]
    assert all(a.needs_confirmation for a in edit.change_annotations.values())
    decisions = read_decisions((ed.root / "specs/notes.context.md").read_text())
    assert {d.id: d.answer for d in decisions} == {"errors": "RFC 7807 problem+json", "sessions": "A signed cookie"}
    # the prompt had the spec, as the editor has it, and the decision already made
    prompt = ed.stub.requests[0].text()
    assert "People lose their notes." in prompt and "RFC 7807 problem+json" in prompt
    assert any("left open" in m and "page-size" in m for m in ed.messages())
    [rec] = runs(ed.root)
    assert (rec.stage, rec.files) == ("discuss", ("specs/notes.context.md",))


async def test_discuss_with_every_question_dismissed_writes_nothing(editor_factory):
    ed = await editor_factory([questions(SESSIONS)], discuss_workspace)
    done = await ed.run("specward.discuss", {"spec": "specs/notes.md"})
    assert done["applied"] is False and not ed.edits and len(ed.asked) == 1
    assert any("none of the 1 question(s) was answered" in m for m in ed.messages(lsp.MessageType.Error))
    assert read_decisions((ed.root / "specs/notes.context.md").read_text()) == [ERRORS_DECIDED]


# ----------------------------------------------------------------------------- update affected code
def update_workspace(root: Path) -> None:
    git(root, "init", "-q")
    (root / "specs").mkdir()
    (root / "specs/notes.dsl.json").write_text(contract("/api/notes/:id"))
    (root / "web").mkdir()
    (root / "web/notes.ts").write_text(NOTES_OLD)
    (root / "web/tags.ts").write_text(TAGS)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "notes")


async def test_update_affected_code_after_a_contract_edit_in_the_editor(editor_factory):
    ed = await editor_factory([block("web/notes.ts", NOTES_NEW)], update_workspace)
    rel = "specs/notes.dsl.json"
    assert not [a for a in await actions_on(ed, rel) if a.title == UPDATE_TITLE]  # as committed: nothing to do
    uri = (ed.root / rel).as_uri()
    ed.client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="json", version=1, text=contract("/api/notes/:id"))))
    ed.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=contract("/api/memos/:id"))]))
    [action] = [a for a in await actions_on(ed, rel) if a.title == UPDATE_TITLE]
    assert action.command.command == "specward.updateAffected" and list(action.command.arguments) == [
        {"contract": rel}]
    done = await ed.run(action.command.command, *action.command.arguments)
    assert done["applied"] is True and done["files"] == ["web/notes.ts"], ed.messages()
    [edit] = ed.edits
    assert edited_files(ed, edit) == ["web/notes.ts"]  # only the affected file
    assert (ed.root / "web/notes.ts").read_text() == NOTES_NEW
    assert (ed.root / "web/tags.ts").read_text() == TAGS
    assert (ed.root / rel).read_text() == contract("/api/notes/:id")  # the buffer is the editor's to save
    [req] = ed.stub.requests
    prompt = req.text()
    assert "Affected file `web/notes.ts`" in prompt and "web/tags.ts" not in prompt and "/api/memos/:id" in prompt
    [rec] = runs(ed.root)
    assert (rec.stage, rec.files) == ("update", ("web/notes.ts",))


async def test_update_affected_code_without_git_says_so(editor_factory):
    def setup(root: Path) -> None:
        (root / "specs").mkdir()
        (root / "specs/notes.dsl.json").write_text(contract("/api/notes/:id"))

    ed = await editor_factory([Answer(status=500)], setup)
    assert not [a for a in await actions_on(ed, "specs/notes.dsl.json") if a.title == UPDATE_TITLE]
    done = await ed.run("specward.updateAffected", {"contract": "specs/notes.dsl.json"})
    assert done == {"applied": False, "runId": None, "files": []}
    assert any("not in a git repository" in m for m in ed.messages(lsp.MessageType.Warning)), ed.messages()
    done = await ed.run("specward.updateAffected", {"contract": "specs/notes.dsl.json", "old": "--output=x"})
    assert any("not a git revision" in m for m in ed.messages(lsp.MessageType.Error))
    assert not ed.stub.requests and not ed.edits


# ----------------------------------------------------------------------------- resume
async def test_an_interrupted_spec_run_is_resumed_from_the_editor(editor_factory):
    def setup(root: Path) -> None:
        (root / ".git").mkdir()

    ed = await editor_factory([Answer(status=500), spec_answer()], setup)
    target = ed.root / "specs/list-notes.md"
    done = await ed.run("specward.generateSpec", {"request": "list notes", "slug": "list-notes"})
    assert done["applied"] is False and len(ed.stub.requests) == 1 and not target.exists()
    run_id = done["runId"]
    state = json.loads((ed.root / f".specward/runs/{run_id}.state.json").read_text())
    assert state["stage"] == "spec" and state["done"] is False and state["answers"] == []
    assert state["args"] == {"request": "list notes", "slug": "list-notes"}

    # resumed from the list; the model answers; the user declines the edit
    ed.answer = lambda p: p.actions[0].title
    ed.apply = False
    done = await ed.run("specward.resumeRun", {})
    assert done["runId"] == run_id and done["applied"] is False
    [listing] = ed.asked
    assert [a.title for a in listing.actions] == [f"{run_id}: spec list notes"]
    assert len(ed.stub.requests) == 2 and not target.exists()

    # resumed again: the answer already received is not asked for again
    ed.apply = True
    done = await ed.run("specward.resumeRun", {})
    assert done == {"applied": True, "runId": run_id, "files": ["specs/list-notes.md"]}
    assert ed.asked[-1].actions[0].title == f"{run_id}: spec list notes, 1 answer(s) received"
    assert len(ed.stub.requests) == 2  # no new request
    assert target.read_text() == SPEC_MD
    assert json.loads((ed.root / f".specward/runs/{run_id}.state.json").read_text())["done"] is True

    # nothing left to resume; a run id that is complete says so
    asked = len(ed.asked)
    done = await ed.run("specward.resumeRun", {})
    assert done["applied"] is False and len(ed.asked) == asked
    assert any("no interrupted run to resume" in m for m in ed.messages(lsp.MessageType.Info))
    await ed.run("specward.resumeRun", {"runId": run_id})
    assert any(f"run {run_id} is complete" in m for m in ed.messages(lsp.MessageType.Info))


async def test_an_interrupted_contract_run_is_offered_on_its_spec(editor_factory):
    from test_generate_cli import VALID, fenced

    def setup(root: Path) -> None:
        (root / ".git").mkdir()
        (root / "specs").mkdir()
        (root / "specs/notes.md").write_text(SPEC_MD)

    ed = await editor_factory([Answer(status=500), fenced(VALID)], setup)
    done = await ed.run("specward.generateContract", {"spec": "specs/notes.md"})
    assert done["applied"] is False
    run_id = done["runId"]
    title = f"specward: resume the interrupted contract run {run_id}"
    [action] = [a for a in await actions_on(ed, "specs/notes.md") if a.title == title]
    assert action.command.command == "specward.resumeRun" and list(action.command.arguments) == [{"runId": run_id}]
    done = await ed.run(action.command.command, *action.command.arguments)
    assert done == {"applied": True, "runId": run_id, "files": ["specs/notes.dsl.json"]}
    assert json.loads((ed.root / "specs/notes.dsl.json").read_text())["endpoints"] == VALID["endpoints"]
    # complete now: no longer offered
    assert not [a for a in await actions_on(ed, "specs/notes.md") if a.title.startswith("specward: resume")]
