"""`specward generate discuss` through real subprocesses against the real HTTP stub provider
(tests/llm_stub.py); `decisions_section` on real files. No in-process mocking of litellm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from llm_stub import LLMStub
from specward.analyzers.stages.discuss import Decision, context_markdown, read_decisions
from specward.analyzers.stages.runs import decode_lines
from specward.server import discuss_cli
from specward.server.stage_run import JSON_ANSWER_FORMAT
from test_generate_cli import base_env, ws  # noqa: F401 - ws is a fixture

SESSIONS = {"id": "sessions", "question": "How are user sessions kept?",
            "options": ["A signed cookie", "A JWT bearer token", "Server-side sessions"],
            "recommended": "A JWT bearer token"}
PAGES = {"id": "page-size", "question": "What is the page size of the list?",
         "options": [{"label": "20"}, {"label": "50"}, {"label": "Client chooses, at most 100"}]}
ERRORS = {"id": "errors", "question": "What is the error format?",
          "options": ["RFC 7807 problem+json", "{error: {code, message}}"]}


def questions(*qs: dict) -> str:
    return "Open questions:\n\n```json\n" + json.dumps({"questions": list(qs)}, indent=2) + "\n```\n"


def specward(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], check=False, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def runs(root: Path):
    records, problems = decode_lines((root / ".specward/runs.jsonl").read_text())
    assert problems == ()
    return records


def test_answers_from_a_file(ws: Path, tmp_path: Path):
    (tmp_path / "answers.json").write_text(json.dumps({"sessions": "a signed cookie", "page-size": 3,
                                                       "What is the error format?": "Plain text, one line"}))
    with LLMStub([questions(SESSIONS, PAGES, ERRORS)]) as stub:
        out = specward("generate", "discuss", "Let users write and list their notes", "--answers",
                       str(tmp_path / "answers.json"), "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    rel = "specs/users-write-list-notes.context.md"
    assert f"specward will create {rel}" in out.stdout and "+**Decision:** A signed cookie" in out.stdout
    text = (ws / rel).read_text()
    assert "Subject: Let users write and list their notes" in text
    assert read_decisions(text) == [
        Decision("sessions", "How are user sessions kept?", "A signed cookie",
                 ("A JWT bearer token", "Server-side sessions")),
        Decision("page-size", "What is the page size of the list?", "Client chooses, at most 100", ("20", "50")),
        Decision("errors", "What is the error format?", "Plain text, one line",
                 ("RFC 7807 problem+json", "{error: {code, message}}")),
    ]
    [req] = stub.requests
    prompt = req.text()
    assert "Let users write and list their notes" in prompt and JSON_ANSWER_FORMAT in prompt
    assert "Already decided" not in prompt
    [rec] = runs(ws)
    assert (rec.stage, rec.files) == ("discuss", (rel,))


def test_recommended_then_a_second_run_keeps_the_decisions(ws: Path, tmp_path: Path):
    (ws / "specs").mkdir()
    (ws / "specs/notes.md").write_text("# Notes\n\n## Background\nPeople lose their notes.\n")
    env = base_env(tmp_path)
    with LLMStub([questions(SESSIONS, PAGES)]) as stub:
        out = specward("generate", "discuss", "specs/notes.md", "--recommended", "--yes", cwd=ws,
                       env={**env, **stub.env()})
    assert out.returncode == 0, out.stderr
    assert "People lose their notes." in stub.requests[0].text()
    assert "The specification (`specs/notes.md`)" in stub.requests[0].text()
    first = read_decisions((ws / "specs/notes.context.md").read_text())
    assert [(d.id, d.answer) for d in first] == [("sessions", "A JWT bearer token"), ("page-size", "20")]

    # the user changes a decision by hand; the second run must not re-ask or overwrite it
    path = ws / "specs/notes.context.md"
    path.write_text(path.read_text().replace("**Decision:** 20", "**Decision:** 25, never more"))
    again = {**SESSIONS, "id": "q1", "question": "how are user sessions kept"}  # the same question, reworded
    (tmp_path / "answers.json").write_text(json.dumps({"errors": 2, "q1": "Server-side sessions"}))
    with LLMStub([questions(again, ERRORS)]) as stub:
        out = specward("generate", "discuss", "specs/notes.md", "--answers", str(tmp_path / "answers.json"),
                       "--yes", cwd=ws, env={**env, **stub.env()})
    assert out.returncode == 0, out.stderr
    prompt = stub.requests[0].text()
    assert "do not ask these again" in prompt
    assert "- How are user sessions kept? -> A JWT bearer token" in prompt
    assert "- What is the page size of the list? -> 25, never more" in prompt
    assert "1 question(s) already decided in specs/notes.context.md were not asked again" in out.stderr
    assert [(d.id, d.answer) for d in read_decisions(path.read_text())] == [
        ("sessions", "A JWT bearer token"), ("page-size", "25, never more"), ("errors", "{error: {code, message}}")]
    assert [r.files for r in runs(ws)] == [("specs/notes.context.md",)] * 2

    # a third run where everything is decided writes nothing
    with LLMStub([questions(SESSIONS)]) as stub:
        out = specward("generate", "discuss", "specs/notes.md", "--recommended", "--yes", cwd=ws,
                       env={**env, **stub.env()})
    assert out.returncode == 0, out.stderr
    assert "nothing left to discuss; the 3 decision(s) in specs/notes.context.md stand" in out.stderr


def test_malformed_answer_is_a_clear_error_and_kept(ws: Path, tmp_path: Path):
    bad = '```json\n{"questions": [{"id": "sessions", "question": "How?", "options": ["a", "b"],}]}\n```\n'
    with LLMStub([bad]) as stub:
        out = specward("generate", "discuss", "notes", "--recommended", "--yes", cwd=ws,
                       env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert "does not fit" in out.stderr and '"questions"' in out.stderr and "none starts a JSON object" in out.stderr
    assert '"How?"' not in out.stderr  # the message never quotes the answer
    assert not (ws / "specs").exists()
    [kept] = (ws / ".specward/runs").glob("*.answer.txt")
    assert bad in kept.read_text()
    [rec] = runs(ws)
    assert kept.name == f"{rec.run_id}.answer.txt" and rec.files == ()


def test_no_terminal_and_no_answers_asks_nothing(ws: Path, tmp_path: Path):
    with LLMStub([questions(SESSIONS)]) as stub:
        out = specward("generate", "discuss", "notes", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert "no terminal to ask the questions" in out.stderr
    assert "--answers FILE.json" in out.stderr and "--recommended" in out.stderr
    assert stub.requests == [] and not (ws / ".specward").exists()


def test_unanswered_questions_are_left_open(ws: Path, tmp_path: Path):
    (tmp_path / "a.json").write_text(json.dumps({"nothing": "x"}))
    with LLMStub([questions(SESSIONS, ERRORS)]) as stub:
        out = specward("generate", "discuss", "notes", "--answers", str(tmp_path / "a.json"), "--yes", cwd=ws,
                       env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert "none of the 2 question(s) was answered" in out.stderr
    assert "left open: sessions: How are user sessions kept?" in out.stderr
    assert not (ws / "specs").exists()


def test_not_written_without_yes(ws: Path, tmp_path: Path):
    with LLMStub([questions(SESSIONS)]) as stub:
        out = specward("generate", "discuss", "notes", "--slug", "my-notes", "--recommended", cwd=ws,
                       env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1 and "pass --yes" in out.stderr
    assert "specward will create specs/my-notes.context.md" in out.stdout
    assert not (ws / "specs").exists()


def test_bad_answers_file_is_a_usage_error(ws: Path, tmp_path: Path):
    (tmp_path / "a.json").write_text('["sessions"]')
    out = specward("generate", "discuss", "notes", "--answers", str(tmp_path / "a.json"), cwd=ws,
                   env=base_env(tmp_path))
    assert out.returncode == 2 and "question id -> answer" in out.stderr


def test_decisions_section(ws: Path):
    assert discuss_cli.decisions_section(ws, "notes") == ""
    assert discuss_cli.decisions_section(ws, "../x") == ""
    (ws / "specs").mkdir()
    (ws / "specs/notes.context.md").write_text(context_markdown("notes", "notes", [
        Decision("sessions", "How are user sessions kept?", "A signed cookie", ("JWT",))]))
    section = discuss_cli.decisions_section(ws, "notes")
    assert section.startswith("Decisions already made for this feature (`specs/notes.context.md`)")
    assert section.endswith("\n- How are user sessions kept? -> A signed cookie")


def test_questions_asked_at_a_terminal(ws: Path, tmp_path: Path):
    """A real pseudo-terminal: the numbered options are shown, a number or own text is typed."""
    import pty
    import select
    import time

    with LLMStub([questions(SESSIONS, ERRORS)]) as stub:
        leader, follower = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "specward.server", "generate", "discuss", "notes", "--yes"],
                                cwd=ws, env=base_env(tmp_path, **stub.env()), stdin=follower, stdout=follower,
                                stderr=subprocess.PIPE, text=True)
        os.close(follower)
        # each reply once the question's last option is shown (input() prompts on stderr)
        seen, replies = "", [("3. Server-side sessions\r\n", "3\n"), ("2. {error: {code, message}}\r\n", "Plain text\n")]
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.1)[0]:
                try:
                    seen += os.read(leader, 4096).decode("utf-8", "replace")
                except OSError:
                    break
                if replies and replies[0][0] in seen:
                    os.write(leader, replies.pop(0)[1].encode())
        proc.wait(30)
        os.close(leader)
        err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "How are user sessions kept? (recommended: A JWT bearer token)" in seen
    assert "  1. A signed cookie" in seen and "Choose 1-3, or type your own answer:" in err
    assert [(d.id, d.answer) for d in read_decisions((ws / "specs/notes.context.md").read_text())] == [
        ("sessions", "Server-side sessions"), ("errors", "Plain text")]
