"""`specward score` through real subprocesses on a small real workspace (an Express backend,
a frontend with fetch calls, a SpecDSL contract, a run log naming the files), the review
against the real OpenAI-compatible stub server (tests/llm_stub.py), and `score_run` on a
real index. No in-process mocking of litellm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm_stub import LLMStub
from specward.analyzers.stages.runs import decode_lines, make_record
from specward.server import runs_cli
from specward.server.engine.index import WorkspaceIndex
from specward.server.score_cli import score_run

CONTRACT = {
    "version": "1.0",
    "feature": {"id": "notes", "title": "Notes", "description": "Write and list notes."},
    "models": [
        {"name": "Note", "description": "A note",
         "fields": [{"name": "id", "type": "Int", "required": True, "unique": True},
                    {"name": "title", "type": "String", "required": True}]},
        {"name": "NoteInput", "description": "A new note",
         "fields": [{"name": "title", "type": "String", "required": True}]},
    ],
    "endpoints": [
        {"id": f"EP-00{i}", "method": m, "path": p, "description": d, "auth": False, "successStatus": s,
         "successDescription": d, "errors": []}
        for i, (m, p, d, s) in enumerate((("GET", "/api/notes", "List notes", 200),
                                          ("POST", "/api/notes", "Create a note", 201),
                                          ("GET", "/api/notes/:id", "One note", 200)), 1)
    ],
}

BACKEND = """const express = require("express");
const app = express();
app.use(express.json());

app.get("/api/notes", (req, res) => {
  res.json([]);
});

app.post("/api/notes", (req, res) => {
  res.status(201).json({ id: 1, title: req.body.title });
});

module.exports = app;
"""

FRONTEND = """export interface Note {
  id: number;
  title: string;
}

export async function listNotes(): Promise<Note[]> {
  const res = await fetch("/api/notes");
  return res.json();
}

export async function createNote(title: string): Promise<Note> {
  const res = await fetch("/api/notes", { method: "POST", body: JSON.stringify({ title }) });
  return res.json();
}
"""
PHANTOM = """
export async function tags(): Promise<void> {
  await fetch("/api/tags");
}
"""
FILES = ("specs/x.dsl.json", "server/app.js", "web/api.ts")

# By hand: 3 endpoints, 2 models. Implemented: GET and POST /api/notes (2); called: the same
# two (2); defined: Note, not NoteInput (1). (2 + 2 + 1) / (2 × 3 + 2) = 5/8.
COVERAGE = 5 / 8
# compliance: the contract has one warning (GET /api/notes/{id} unimplemented): 1 / (1 + 1/4)
# = 0.8; the two code files have none: 1.0 each. Mean (0.8 + 1 + 1) / 3.
COMPLIANCE = (0.8 + 1.0 + 1.0) / 3


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for folder in (".git", "server", "web", "specs"):
        (root / folder).mkdir(parents=True)
    (root / "specs/x.dsl.json").write_text(json.dumps(CONTRACT, indent=2))
    (root / "server/app.js").write_text(BACKEND)
    (root / "web/api.ts").write_text(FRONTEND)
    log(root, "run-1", FILES)
    return root


def log(root: Path, run_id: str, files: tuple[str, ...], stage: str = "slice") -> None:
    runs_cli.append_run(root, make_record(run_id, "2026-12-03T10:14:00Z", stage, "openai/gen-model",
                                          f"the prompt of {run_id}", files))


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("SPECWARD_")}
    out["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # never the real user's settings
    out.update(extra)
    return out


def specward(*args: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", "score", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


def records(root: Path):
    got, problems = decode_lines((root / ".specward/runs.jsonl").read_text())
    assert problems == ()
    return got


def report(out: subprocess.CompletedProcess) -> dict:
    return json.loads(out.stdout)


# ------------------------------------------------------------------------- coverage, compile
def test_coverage_compliance_and_a_passing_build(ws: Path, tmp_path: Path):
    out = specward("--build", "true", "--json", "--profile", "lenient", cwd=ws, environ=env(tmp_path))
    assert out.returncode == 0, out.stderr
    got = report(out)
    assert got["run_id"] == "run-1" and got["files"] == list(FILES)
    assert got["dimensions"]["coverage"] == pytest.approx(COVERAGE)
    assert got["coverage"]["passed"] == 5 and got["coverage"]["checks"] == 8
    assert got["coverage"]["not_implemented"] == ["GET /api/notes/{id}"]
    assert got["coverage"]["not_called"] == ["GET /api/notes/{id}"]
    assert got["coverage"]["not_defined"] == ["NoteInput"]
    assert got["dimensions"]["compliance"] == pytest.approx(COMPLIANCE)
    assert got["dimensions"]["compile"] == 1.0 and got["dimensions"]["review"] is None
    assert got["weighting"] == "no-review"
    expected = 10 * (0.35 * COMPLIANCE + 0.35 * COVERAGE + 0.30 * 1.0)
    assert got["score"] == pytest.approx(expected) and got["score_shown"] == f"{expected:.1f}" == "8.5"
    # 3 files, backend and frontend: standard depth, the profile given
    assert got["depth"]["depth"] == "standard" and got["profile"] == "lenient"
    assert got["verdict"] == "PASS" and got["must_pass"] == []
    last = records(ws)[-1]
    assert (last.run_id, last.stage, last.verdict) == ("run-1", "score", "PASS")
    assert last.score == pytest.approx(expected)
    assert last.prompt_hash == records(ws)[0].prompt_hash  # the scored run's prompt
    assert dict(last.dimensions)["coverage"] == pytest.approx(COVERAGE)


def test_text_table_and_default_profile_fails_on_coverage(ws: Path, tmp_path: Path):
    out = specward("--build", "true", cwd=ws, environ=env(tmp_path))
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert "dimension     value  weight" in lines
    assert "compliance     0.93    0.35" in lines and "coverage       0.62    0.35" in lines
    assert "compile        1.00    0.30" in lines and "review            -       -" in lines
    assert "  not implemented: GET /api/notes/{id}" in lines and "  model not defined: NoteInput" in lines
    assert any(line.startswith("score 8.5/10  profile default") and line.endswith("FAIL") for line in lines)
    assert "FAIL: coverage 0.62 is below default's 0.75" in lines


def test_a_failing_build_shows_its_last_lines(ws: Path, tmp_path: Path):
    out = specward("--build", "echo first; echo 'src/a.ts(3,1): error TS2304'; exit 3", cwd=ws,
                   environ=env(tmp_path))
    assert out.returncode == 1, out.stderr
    assert "compile: echo first; echo 'src/a.ts(3,1): error TS2304'; exit 3: exit 3" in out.stdout
    assert "  | src/a.ts(3,1): error TS2304" in out.stdout
    assert "compile        0.00    0.30" in out.stdout
    assert "FAIL: compile 0.00 is below default's 0.80" in out.stdout
    got = specward("--build", "false", "--json", "--profile", "frontend", cwd=ws, environ=env(tmp_path))
    assert got.returncode == 1 and report(got)["dimensions"]["compile"] == 0.0
    assert report(got)["compile"]["exit_code"] == 1


def test_a_phantom_call_fails_whatever_the_score(ws: Path, tmp_path: Path):
    (ws / "web/api.ts").write_text(FRONTEND + PHANTOM)
    out = specward("--build", "true", "--json", "--profile", "lenient", cwd=ws, environ=env(tmp_path))
    assert out.returncode == 1, out.stderr
    got = report(out)
    assert got["score"] > 7.0  # lenient wants 5.0: only the must-pass rule fails it
    assert got["verdict"] == "FAIL"
    assert got["reasons"] == ["must-pass: 1 phantom-api finding(s) in the generated code"]
    [finding] = got["must_pass"]
    assert (finding["file"], finding["code"], finding["line"]) == ("web/api.ts", "phantom-api", 17)
    text = specward("--build", "true", "--profile", "lenient", cwd=ws, environ=env(tmp_path))
    assert "must-pass findings:" in text.stdout and "web/api.ts:17:" in text.stdout
    assert records(ws)[-1].findings == (("phantom-api", 1), ("unimplemented-endpoint", 1), ("unused-endpoint", 1))


def test_without_a_build_command_nothing_from_the_workspace_runs(ws: Path, tmp_path: Path):
    """A workspace that names commands (package.json scripts, a tsc in node_modules/.bin):
    none of them runs; compile is not measured and the note says how to give it."""
    (ws / "package.json").write_text(json.dumps({"name": "x", "dependencies": {"express": "^4.0.0"},
                                                 "scripts": {"build": "touch PWNED-npm", "typecheck": "touch PWNED-npm"}}))
    (ws / "tsconfig.json").write_text("{}")
    express = ws / "node_modules/express"
    express.mkdir(parents=True)
    (express / "package.json").write_text('{"name": "express", "version": "4.0.0", "main": "index.js"}')
    (express / "index.js").write_text("module.exports = function () {};\n")
    tsc = ws / "node_modules/.bin/tsc"
    tsc.parent.mkdir(parents=True)
    tsc.write_text("#!/bin/sh\ntouch PWNED-tsc\n")
    tsc.chmod(0o755)
    before = (ws / ".specward/runs.jsonl").read_text()
    out = specward(cwd=ws, environ=env(tmp_path))
    assert out.returncode == 2, out.stderr
    assert not list(ws.rglob("PWNED*"))
    assert "compile was not measured" in out.stderr and "--build 'npx tsc --noEmit'" in out.stderr
    assert "no score and no verdict" in out.stderr
    assert (ws / ".specward/runs.jsonl").read_text() == before  # nothing logged without a verdict


# ------------------------------------------------------------------------- runs
def test_the_run_chosen(ws: Path, tmp_path: Path):
    log(ws, "run-2", ())  # wrote nothing: not the default
    out = specward("--build", "true", "--json", cwd=ws, environ=env(tmp_path))
    assert report(out)["run_id"] == "run-1"
    log(ws, "run-3", ("web/api.ts",))
    got = report(specward("--build", "true", "--json", cwd=ws, environ=env(tmp_path)))
    assert got["run_id"] == "run-3" and got["files"] == ["web/api.ts"]
    assert got["depth"]["depth"] == "minimal"
    again = report(specward("run-1", "--build", "true", "--json", cwd=ws, environ=env(tmp_path)))
    assert again["run_id"] == "run-1" and again["stage"] == "slice"  # its slice record, not its score
    missing = specward("nope", cwd=ws, environ=env(tmp_path))
    assert missing.returncode == 2 and "no run nope in the run log" in missing.stderr


def test_no_run_log(tmp_path: Path):
    root = tmp_path / "empty"
    (root / ".git").mkdir(parents=True)
    out = specward("--build", "true", cwd=root, environ=env(tmp_path))
    assert out.returncode == 2 and "no run in the run log wrote files" in out.stderr


def test_a_risky_path_scores_at_thorough_depth_with_strict(ws: Path, tmp_path: Path):
    (ws / "web/auth.ts").write_text(FRONTEND.replace("Note", "Login"))
    log(ws, "run-auth", ("web/auth.ts",))
    got = report(specward("--build", "true", "--json", cwd=ws, environ=env(tmp_path)))
    assert got["depth"]["depth"] == "thorough" and got["depth"]["reasons"] == ["mentions auth"]
    assert (got["configured_profile"], got["profile"]) == ("default", "strict")


def test_trend_draws_the_score(ws: Path, tmp_path: Path):
    specward("--build", "true", cwd=ws, environ=env(tmp_path))
    out = subprocess.run([sys.executable, "-m", "specward.server", "trend"], cwd=ws, env=env(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "last: run-1  score  score 8.5  FAIL" in out.stdout


# ------------------------------------------------------------------------- review
def review_answer(criterion: str, score: float) -> str:
    return f'```json\n{{"criterion": "{criterion}", "score": {score}, "reason": "{criterion} looked at"}}\n```\n'


def test_review_against_the_stub(ws: Path, tmp_path: Path):
    answers = [review_answer("architecture", 0.75), review_answer("correctness", 0.5), review_answer("impact", 1.0)]
    with LLMStub(answers) as stub:
        out = specward("--review", "--build", "true", "--json", "--profile", "lenient", cwd=ws,
                       environ=env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    got = report(out)
    assert got["dimensions"]["review"] == pytest.approx(0.75) and got["weighting"] == "full"
    assert got["score"] == pytest.approx(10 * (0.30 * COMPLIANCE + 0.25 * COVERAGE + 0.20 + 0.25 * 0.75))
    assert [p["criterion"] for p in got["review"]] == ["architecture", "correctness", "impact"]
    assert len(stub.requests) == 3
    for req, title in zip(stub.requests, ("architecture and contract compliance", "correctness and edge cases",
                                          "impact and breaking changes")):
        text = req.text()
        assert title in text and "0.25: fails the criterion" in text
        assert "path=specs/x.dsl.json" in text and 'app.get("/api/notes"' in text and "fetch(\"/api/notes\")" in text
    assert records(ws)[-1].stage == "score" and dict(records(ws)[-1].dimensions)["review"] == pytest.approx(0.75)


def test_a_malformed_review_answer_is_a_clear_error(ws: Path, tmp_path: Path):
    before = (ws / ".specward/runs.jsonl").read_text()
    with LLMStub([review_answer("architecture", 0.75), review_answer("correctness", 0.8)]) as stub:
        out = specward("--review", "--build", "true", cwd=ws, environ=env(tmp_path, **stub.env()))
    assert out.returncode == 2
    assert "the correctness review does not fit" in out.stderr
    assert "score 0.8 is not one of the anchors 0.25, 0.5, 0.75, 1" in out.stderr
    assert ".specward/runs/" in out.stderr
    [kept] = (ws / ".specward/runs").glob("*.answer.txt")
    assert kept.read_text().count("===== answer") == 2
    assert (ws / ".specward/runs.jsonl").read_text() == before


def test_review_without_a_model(ws: Path, tmp_path: Path):
    out = specward("--review", "--build", "true", cwd=ws, environ=env(tmp_path))
    assert out.returncode == 2 and "no model configured" in out.stderr


# ------------------------------------------------------------------------- the editor's call
def test_score_run_on_a_real_index(ws: Path):
    index = WorkspaceIndex(ws, use_cache=False)
    index.build()
    got = score_run(ws, index, build="true", profile="lenient")
    assert got.coverage is not None and got.coverage.fraction == pytest.approx(COVERAGE)
    assert got.verdict_text == "PASS" and got.harness is not None and round(got.harness.score, 1) == 8.5
    assert got.exit_code() == 0
    unmeasured = score_run(ws, index)
    assert unmeasured.harness is None and unmeasured.verdict_text is None and unmeasured.exit_code() == 2
