"""The LLM stages from inside the editor (server/lsp/handlers/stage_command.py), through
the real server over stdio (pytest-lsp) against the real stub provider on 127.0.0.1
(tests/llm_stub.py), whose URL reaches the server through its environment
(SPECWARD_MODEL, SPECWARD_API_BASE, SPECWARD_API_KEY). No in-process mocking of litellm."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import _start, code_actions_as_sent, wait_for
from llm_stub import TEST_KEY, Answer, LLMStub
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from specward.analyzers.stages.runs import RunRecord, decode_lines, encode
from specward.server.runs_cli import append_run

SPEC_MD = """# Notes

## Background
People lose their notes.

## User stories
As a user, I want to list my notes, so that I find them.

## Acceptance criteria
1. GET /api/notes lists the notes.

## Edge cases
- No notes: an empty list.
"""
VALID = {
    "version": "1.0",
    "feature": {"id": "notes", "title": "Notes", "description": "Write and list notes."},
    "models": [{"name": "Note", "description": "A note",
                "fields": [{"name": "id", "type": "Int", "required": True, "unique": True},
                           {"name": "title", "type": "String", "required": True}]}],
    "endpoints": [{"id": "EP-001", "method": "GET", "path": "/api/notes", "description": "List notes",
                   "auth": False, "successStatus": 200, "successDescription": "The notes", "errors": []}],
}
INVALID = {**VALID, "endpoints": [{**VALID["endpoints"][0], "method": "FETCH"}]}
TODO_LINE = "// TODO: let users write and list their notes"
SOURCE = f"export const notes: string[] = [];\n\n{TODO_LINE}\nexport function list() {{ return notes; }}\n"


def spec_answer(text: str = SPEC_MD) -> str:
    return "Here it is.\n\n````md path=specs/whatever.md\n" + text + "````\n"


def make_workspace(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src/notes.ts").write_text(SOURCE)
    return root


def server_env(tmp_path: Path, stub: LLMStub | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECWARD_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # never the real user's settings
    if stub is not None:
        env.update(stub.env())
    return env


class Editor:
    """A started client, the stub, and what the editor was asked."""

    def __init__(self, client: LanguageClient, root: Path, stub: LLMStub | None):
        self.client, self.root, self.stub = client, root, stub
        self.edits: list[lsp.WorkspaceEdit] = []
        self.on_disk_when_asked: list[bool] = []
        self.apply = True
        self.scores: list = []

    async def run(self, command: str, *arguments):
        return await self.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=command, arguments=list(arguments)))

    def messages(self, kind: lsp.MessageType | None = None) -> list[str]:
        return [m.message for m in self.client.messages if kind is None or m.type == kind]


async def open_editor(tmp_path: Path, answers: list | None, before_start=None) -> Editor:
    root = make_workspace(tmp_path / "ws")
    if before_start is not None:
        before_start(root)
    stub = LLMStub(answers).start() if answers is not None else None
    config = ClientServerConfig(server_command=[sys.executable, "-m", "specward.server", "serve"],
                                server_env=server_env(tmp_path, stub))
    client = await config.start()
    ed = Editor(client, root, stub)

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams):
        edit = params.edit
        ed.edits.append(edit)
        paths = [root / c.text_document.uri[len(root.as_uri()) + 1:] for c in edit.document_changes
                 if isinstance(c, lsp.TextDocumentEdit)]
        ed.on_disk_when_asked.append(any(p.exists() for p in paths))
        if ed.apply:  # this editor applies it: every file gets its whole new text
            for change in edit.document_changes:
                if isinstance(change, lsp.TextDocumentEdit):
                    path = root / change.text_document.uri[len(root.as_uri()) + 1:]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(change.edits[0].new_text)
        return lsp.ApplyWorkspaceEditResult(applied=ed.apply)

    @client.feature("specward/lastScore")
    def last_score(params):  # pygls reads an unknown method's params as a namedtuple
        ed.scores.append(params._asdict() if hasattr(params, "_asdict") else params)

    caps = client_capabilities("visual-studio-code")
    await _start(client, root, caps)
    return ed


async def close_editor(ed: Editor) -> None:
    try:
        await ed.client.shutdown_session()
    finally:
        await ed.client.stop()
        if ed.stub is not None:
            ed.stub.close()


@pytest.fixture
async def editor_factory(tmp_path: Path):
    opened: list[Editor] = []

    async def make(answers: list | None, before_start=None) -> Editor:
        ed = await open_editor(tmp_path, answers, before_start)
        opened.append(ed)
        return ed

    yield make
    for ed in opened:
        await close_editor(ed)


def runs(root: Path):
    records, problems = decode_lines((root / ".specward/runs.jsonl").read_text())
    assert problems == ()
    return records


async def actions_at(ed: Editor, rel: str, line: int) -> list:
    code_actions_as_sent(ed.client)
    pos = lsp.Position(line, 0)
    return await ed.client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=(ed.root / rel).as_uri()), range=lsp.Range(pos, pos),
        context=lsp.CodeActionContext(diagnostics=[])))


# ----------------------------------------------------------------------------- code actions
async def test_a_todo_line_offers_a_spec_and_a_spec_offers_a_contract(editor_factory):
    ed = await editor_factory([])
    (ed.root / "specs").mkdir()
    (ed.root / "specs/notes.md").write_text(SPEC_MD)
    [action] = await actions_at(ed, "src/notes.ts", 2)
    assert action.title == "specward: write a spec for this TODO"
    assert action.command.command == "specward.generateSpec"
    assert list(action.command.arguments) == ["let users write and list their notes"]
    assert not await actions_at(ed, "src/notes.ts", 0)  # not on a line without a TODO
    contract, discuss = await actions_at(ed, "specs/notes.md", 0)  # discuss: test_lsp_stage_more.py
    assert discuss.command.command == "specward.discuss"
    assert contract.title == "Generate contract (specs/notes.dsl.json)"
    assert contract.command.command == "specward.generateContract"
    assert list(contract.command.arguments) == [{"spec": "specs/notes.md"}]


# ----------------------------------------------------------------------------- generate spec
async def test_generate_spec_is_one_confirmed_edit_written_only_once_applied(editor_factory):
    ed = await editor_factory([spec_answer(), spec_answer(SPEC_MD + "\nMore.\n")])
    target = ed.root / "specs/users-write-list-notes.md"
    ed.apply = False  # the user declines: nothing is written
    done = await ed.run("specward.generateSpec", "let users write and list their notes")
    assert done["applied"] is False and not target.exists()
    ed.apply = True
    done = await ed.run("specward.generateSpec", "let users write and list their notes")
    assert done == {"applied": True, "runId": done["runId"], "files": ["specs/users-write-list-notes.md"]}
    assert target.read_text() == SPEC_MD + "\nMore.\n"
    assert len(ed.edits) == 2 and ed.on_disk_when_asked == [False, False]  # only the editor writes
    edit = ed.edits[-1]
    assert edit.change_annotations and all(a.needs_confirmation for a in edit.change_annotations.values())
    create, change = edit.document_changes
    assert isinstance(create, lsp.CreateFile) and create.annotation_id in edit.change_annotations
    assert isinstance(change, lsp.TextDocumentEdit)
    assert all(e.annotation_id in edit.change_annotations for e in change.edits)
    # the prompt reached the stub with the request, the key in the header only
    assert "let users write and list their notes" in ed.stub.requests[-1].text()
    assert ed.stub.requests[-1].headers["authorization"] == f"Bearer {TEST_KEY}"
    # the run log: one record per run, the files the editor applied
    recs = runs(ed.root)
    assert [(r.stage, r.files) for r in recs] == [("spec", ()), ("spec", ("specs/users-write-list-notes.md",))]
    assert recs[-1].run_id == done["runId"]
    # progress: begin (cancellable), reports, end, for each run
    stage_tokens = [t for t in ed.client.progress_reports if str(t).startswith("specward-stage-")]
    assert len(stage_tokens) == 2
    reports = ed.client.progress_reports[stage_tokens[-1]]
    assert isinstance(reports[0], lsp.WorkDoneProgressBegin) and reports[0].cancellable is True
    assert any(isinstance(r, lsp.WorkDoneProgressReport) and "asking openai/test-model" in (r.message or "")
               for r in reports)
    await wait_for(lambda: isinstance(ed.client.progress_reports[stage_tokens[-1]][-1], lsp.WorkDoneProgressEnd),
                   what="the progress end")
    # an existing file is replaced whole (not created): the same request again, new text
    ed.stub.answers.append(Answer(spec_answer("# Notes v2\n")))
    done = await ed.run("specward.generateSpec", {"request": "let users write and list their notes"})
    assert done["applied"] is True and target.read_text() == "# Notes v2\n"
    [change] = ed.edits[-1].document_changes
    assert isinstance(change, lsp.TextDocumentEdit) and change.edits[0].range.end.line > 0
    assert ed.on_disk_when_asked[-1] is True
    # the replaced file was snapshotted first: `specward restore RUN_ID` puts it back
    assert (ed.root / f".specward/snapshots/{done['runId']}/manifest.json").is_file()
    restored = subprocess.run([sys.executable, "-m", "specward.server", "restore", done["runId"], "--yes"],
                              cwd=ed.root, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                              check=False)
    assert restored.returncode == 0, restored.stderr
    assert target.read_text() == SPEC_MD + "\nMore.\n"
    assert any("no `Background` section" in m for m in ed.messages())  # the stage's notes are shown


async def test_a_contract_that_never_validates_is_an_error_naming_the_run_log(editor_factory):
    fenced = "```json\n" + json.dumps(INVALID) + "\n```\n"
    ed = await editor_factory(["```json\n" + json.dumps(VALID) + "\n```\n", *[fenced] * 4])
    (ed.root / "specs").mkdir()
    (ed.root / "specs/notes.md").write_text(SPEC_MD)
    done = await ed.run("specward.generateContract", {"spec": "specs/notes.md"})
    assert done["applied"] is True
    assert json.loads((ed.root / "specs/notes.dsl.json").read_text()) == VALID
    assert "People lose their notes." in ed.stub.requests[0].text()
    # four invalid answers: the repairs give up, an error names the kept answers
    (ed.root / "specs/notes.dsl.json").unlink()
    before = len(ed.edits)
    done = await ed.run("specward.generateContract", {"spec": "specs/notes.md"})
    assert done["applied"] is False and len(ed.edits) == before
    kept = f".specward/runs/{done['runId']}.answer.txt"
    assert (ed.root / kept).is_file()
    assert any(kept in m and "still not valid" in m for m in ed.messages(lsp.MessageType.Error))
    assert not (ed.root / "specs/notes.dsl.json").exists()


# ----------------------------------------------------------------------------- cancel
async def test_cancelling_the_progress_aborts_the_request_and_writes_nothing(editor_factory):
    slow = Answer(spec_answer(), chunk_size=4, chunk_delay=0.5)  # ~40 s in all
    ed = await editor_factory([slow])
    running = asyncio.ensure_future(ed.run("specward.generateSpec", "let users write and list their notes"))

    def streaming():  # the answer has started arriving: a "characters received" report
        for token, reports in ed.client.progress_reports.items():
            if str(token).startswith("specward-stage-") and any(
                    isinstance(r, lsp.WorkDoneProgressReport) and "characters received" in (r.message or "")
                    for r in reports):
                return token
        return None

    token = await wait_for(streaming, what="the answer streaming in")
    cancelled_at = time.monotonic()
    ed.client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    done = await asyncio.wait_for(running, 10)
    assert time.monotonic() - cancelled_at < 2.0
    assert done["applied"] is False and ed.edits == []
    assert not (ed.root / "specs").exists()
    assert any("cancelled, nothing was written" in m for m in ed.messages(lsp.MessageType.Info))
    await wait_for(lambda: isinstance(ed.client.progress_reports[token][-1], lsp.WorkDoneProgressEnd),
                   what="the progress end")
    # the server still answers
    [action] = await actions_at(ed, "src/notes.ts", 2)
    assert action.command.command == "specward.generateSpec"


# ----------------------------------------------------------------------------- no model
async def test_without_a_model_the_command_says_how_to_configure_one(editor_factory):
    ed = await editor_factory(None)
    done = await ed.run("specward.generateSpec", "let users write and list their notes")
    assert done["applied"] is False and ed.edits == []
    [message] = ed.messages(lsp.MessageType.Warning)
    assert "no model configured" in message and "SPECWARD_MODEL" in message
    assert not (ed.root / "specs").exists() and not (ed.root / ".specward/runs.jsonl").exists()
    assert not [t for t in ed.client.progress_reports if str(t).startswith("specward-stage-")]
    # a malformed argument is an error reply, and the server keeps serving
    with pytest.raises(JsonRpcException):
        await ed.run("specward.generateSpec", "   ")
    assert await actions_at(ed, "src/notes.ts", 2)


# ----------------------------------------------------------------------------- last score
def scored(run_id: str, score: float, verdict: str) -> RunRecord:
    return RunRecord(run_id, "2026-12-01T10:00:00Z", "slice", "openai/test-model", "sha256:" + "0" * 64,
                     ("src/a.ts",), (), (("compliance", 1.0), ("coverage", 0.8), ("compile", 0.8), ("review", 0.9)),
                     score, verdict)


async def test_the_last_score_is_sent_at_start_and_when_the_run_log_changes(editor_factory):
    def seed(root: Path) -> None:
        (root / ".specward").mkdir()
        unscored = RunRecord("r0", "2026-12-01T09:00:00Z", "spec", "openai/test-model", "sha256:" + "0" * 64)
        (root / ".specward/runs.jsonl").write_text(encode(scored("r1", 8.8, "PASS")) + encode(unscored))

    ed = await editor_factory([], before_start=seed)
    await wait_for(lambda: ed.scores, what="specward/lastScore")
    assert ed.scores[0] == {"runId": "r1", "score": 8.8, "verdict": "PASS"}
    append_run(ed.root, scored("r2", 4.1, "FAIL"))
    await wait_for(lambda: len(ed.scores) >= 2, what="specward/lastScore after the log changed")
    assert ed.scores[-1] == {"runId": "r2", "score": 4.1, "verdict": "FAIL"}


async def test_no_scored_run_is_null(editor_factory):
    ed = await editor_factory([])
    await wait_for(lambda: ed.scores, what="specward/lastScore")
    assert ed.scores == [None]


def test_litellm_writes_nothing_on_stdout_the_servers_channel(tmp_path: Path):
    """litellm's own log handler sends INFO records to stdout; in the server, stdout is the
    JSON-RPC channel (a line there broke VS Code's connection): llm.py sends them to stderr."""
    script = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stderr)  # as the server logs\n"
        "from specward.server import llm\n"
        "print(llm.complete([{'role': 'user', 'content': 'hi'}]), file=sys.stderr)\n")
    with LLMStub(["a short answer"]) as stub:
        out = subprocess.run([sys.executable, "-c", script], env=server_env(tmp_path, stub), capture_output=True,
                             text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and "a short answer" in out.stderr


def test_nothing_but_frames_reaches_the_protocol_channel(tmp_path: Path):
    """A print, a library's stdout log handler or a child process writing to fd 1 after
    start-up lands on stderr: the server's stdout carries only JSON-RPC frames."""
    code = ("import logging, os, subprocess, sys, threading\n"
            "from specward.server.lsp import transport\n"
            "out = transport.claim_stdout()\n"
            "print('a stray print')\n"
            "logging.StreamHandler(sys.stdout).emit(logging.makeLogRecord({'msg': 'a stray log line'}))\n"
            "subprocess.run(['echo', 'a child process'])\n"
            "body = b'{}'\n"
            "out.write(b'Content-Length: %d\\r\\n\\r\\n' % len(body) + body)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"Content-Length: 2\r\n\r\n{}"
    for stray in (b"a stray print", b"a stray log line", b"a child process"):
        assert stray in proc.stderr
