"""`specward generate slice CONTRACT`: the plan is stated and checked, the files are judged
together (phantom calls, stubs, the plan's promises) and repaired, the acceptance script
is written beside the spec, and the written slice is scored. Real subprocesses against
the real stub provider (tests/llm_stub.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from llm_stub import LLMStub
from specward.analyzers.stages.runs import decode_lines
from test_generate_cli import base_env, specward

CONTRACT = {
    "version": "1.0", "feature": {"id": "notes", "title": "Notes", "description": "Read a note."},
    "models": [{"name": "Note", "description": "A note",
                "fields": [{"name": "id", "type": "Int", "required": True},
                           {"name": "title", "type": "String", "required": True}]}],
    "endpoints": [
        {"id": "EP-001", "method": "GET", "path": "/api/notes/:id", "description": "One note", "auth": False,
         "successStatus": 200, "successDescription": "The note",
         "errors": [{"status": 404, "code": "NOT_FOUND", "description": "No such note"}]},
        {"id": "EP-002", "method": "GET", "path": "/api/tags", "description": "Tags", "auth": False,
         "successStatus": 200, "successDescription": "Tags", "errors": []}]}

SPEC = """# Notes

## Background
People want to read one note.

## User stories
As a reader, I want to open a note, so that I can read it.

## Acceptance criteria
1. GET /api/notes/:id returns the note with its title.
2. An unknown id answers 404.

## Edge cases
- A deleted note: 404.
"""

PLAN = {"files": [
    {"path": "server/models/note.ts", "role": "model",
     "produces": {"names": [{"name": "Note", "kind": "type"}, {"name": "findNote", "kind": "function"}]}},
    {"path": "server/routes/notes.ts", "role": "backend",
     "produces": {"names": [{"name": "notesRouter", "kind": "constant"}], "endpoints": ["GET /api/notes/:id"]},
     "consumes": {"names": [{"name": "findNote", "from": "server/models/note.ts"}]}},
    {"path": "web/src/api/notes.ts", "role": "client",
     "produces": {"names": [{"name": "getNote", "kind": "function"}]},
     "consumes": {"endpoints": ["GET /api/notes/:id"]}},
    {"path": "tests/notes.test.ts", "role": "test",
     "consumes": {"names": [{"name": "getNote", "from": "web/src/api/notes.ts"}], "endpoints": ["GET /api/notes/:id"]}},
]}

MODEL = """export interface Note {
  id: number;
  title: string;
}

const notes: Note[] = [{ id: 1, title: 'First note' }];

export function findNote(id: number): Note | undefined {
  return notes.find((n) => n.id === id);
}
"""
ROUTES = """import { Router } from 'express';
import { findNote } from '../models/note';

export const notesRouter = Router();

notesRouter.get('/api/notes/:id', (req, res) => {
  const note = findNote(Number(req.params.id));
  if (!note) {
    res.status(404).json({ code: 'NOT_FOUND' });
    return;
  }
  res.json(note);
});
"""
CLIENT = """export async function getNote(id: number) {
  const res = await fetch(`/api/notes/${id}`);
  if (!res.ok) throw new Error(`note ${id}: ${res.status}`);
  return res.json();
}
"""
TEST = """import { describe, expect, it } from 'vitest';
import { getNote } from '../web/src/api/notes';

describe('getNote', () => {
  it('asks for the note by id', async () => {
    const seen: string[] = [];
    globalThis.fetch = (async (url: string) => {
      seen.push(url);
      return { ok: true, json: async () => ({ id: 1, title: 'First note' }) };
    }) as unknown as typeof fetch;
    await getNote(1);
    expect(seen).toEqual(['/api/notes/1']);
  });
});
"""
GOOD = {"server/models/note.ts": MODEL, "server/routes/notes.ts": ROUTES, "web/src/api/notes.ts": CLIENT,
        "tests/notes.test.ts": TEST}


def files_answer(files: dict[str, str]) -> str:
    return "Here are the files.\n\n" + "".join(f"```ts path={p}\n{t}```\n\n" for p, t in files.items())


def plan_answer(plan: dict) -> str:
    return "The plan:\n\n```json\n" + json.dumps(plan, indent=2) + "\n```\n"


def seed_app(root: Path) -> None:
    """A small Express + fetch app with a tags endpoint, in a git repository."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "package.json").write_text(json.dumps({
        "name": "notes-app", "private": True, "scripts": {"dev": "node server/index.js", "test": "vitest run"},
        "dependencies": {"express": "^4.19.2"}, "devDependencies": {"vitest": "^2.0.0"}}))
    (root / "server/routes").mkdir(parents=True)
    (root / "server/routes/tags.ts").write_text(
        "import { Router } from 'express';\n\nexport const tagsRouter = Router();\n\n"
        "tagsRouter.get('/api/tags', (_req, res) => {\n  res.json([{ id: 1, label: 'home' }]);\n});\n")
    (root / "web/src/api").mkdir(parents=True)
    (root / "web/src/api/tags.ts").write_text(
        "export async function listTags() {\n  const res = await fetch('/api/tags');\n  return res.json();\n}\n")
    (root / "specs").mkdir()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    seed_app(root)
    (root / "specs/notes.dsl.json").write_text(json.dumps(CONTRACT, indent=2))
    (root / "specs/notes.md").write_text(SPEC)
    return root


def records(root: Path):
    recs, problems = decode_lines((root / ".specward/runs.jsonl").read_text())
    assert problems == ()
    return recs


def slice_(ws: Path, tmp_path: Path, stub: LLMStub, *extra: str):
    return specward("generate", "slice", "specs/notes.dsl.json", "--endpoint", "GET /api/notes/:id", *extra,
                    cwd=ws, env=base_env(tmp_path, **stub.env()), timeout=300)


def review(criterion: str, value: float) -> str:
    return json.dumps({"criterion": criterion, "score": value, "reason": f"{criterion}: looked at every file"})


REVIEWS = [review("architecture", 1.0), review("correctness", 0.75), review("impact", 1.0)]


def test_a_slice_is_planned_generated_checked_written_and_scored(ws: Path, tmp_path: Path):
    with LLMStub([plan_answer(PLAN), files_answer(GOOD), *REVIEWS]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes", "--build", "true")
    assert out.returncode == 0, out.stderr
    for rel, text in GOOD.items():
        assert (ws / rel).read_text() == text
    uat = (ws / "specs/notes.uat.md").read_text()
    assert "/api/notes" in uat and "404" in uat and "not generated" not in uat
    assert "the slice's plan" in out.stderr and "getNote" in out.stderr  # stated before generation
    plan_prompt, files_prompt = (r.text() for r in stub.requests[:2])
    assert "verification depth: thorough" in out.stderr  # 4 files in 4 domains
    assert "correctness" in stub.requests[3].text()
    assert "GET" in plan_prompt and "/api/notes/{id}" in plan_prompt and "/api/tags" not in plan_prompt.split(
        "Where this project keeps")[0]
    assert "server/routes" in plan_prompt  # the layout learned from the index
    assert "Now write every file of the plan" in files_prompt
    recs = records(ws)
    gen = [r for r in recs if r.stage == "slice"]
    [rec] = gen
    assert set(rec.files) == {*GOOD, "specs/notes.uat.md"}
    [scored] = [r for r in recs if r.stage == "score"]
    assert scored.run_id == rec.run_id and scored.score is not None
    dims = dict(scored.dimensions)
    assert dims["compile"] == 1.0 and dims["review"] == pytest.approx((1.0 + 0.75 + 1.0) / 3)
    line = next(x for x in out.stderr.splitlines() if "harness score before approval" in x)
    assert "PASS (strict;" in line and "compile 1.00" in line and "review 0.92" in line
    # scored before the diff is shown, i.e. before anything is accepted
    assert out.stderr.index("harness score before approval") < out.stderr.index("wrote ")


def test_a_phantom_call_and_a_stub_go_back_to_the_model(ws: Path, tmp_path: Path):
    bad = dict(GOOD)
    bad["web/src/api/notes.ts"] = CLIENT.replace("/api/notes/${id}", "/api/note/${id}")
    bad["server/models/note.ts"] = MODEL.replace("  return notes.find((n) => n.id === id);\n",
                                                 "  // TODO: look the note up\n  return undefined;\n")
    with LLMStub([plan_answer(PLAN), files_answer(bad), files_answer(GOOD), *REVIEWS]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 0, out.stderr
    repair = stub.requests[2].messages[-1]["content"]
    assert "phantom-api" in repair and "web/src/api/notes.ts" in repair
    assert "todo-comment" in repair and "server/models/note.ts" in repair
    assert (ws / "web/src/api/notes.ts").read_text() == CLIENT


def test_an_unsound_plan_is_repaired_before_any_code(ws: Path, tmp_path: Path):
    unsound = json.loads(json.dumps(PLAN))
    unsound["files"][1]["consumes"]["names"] = [{"name": "loadNote", "from": "server/models/note.ts"}]
    with LLMStub([plan_answer(unsound), plan_answer(PLAN), files_answer(GOOD), *REVIEWS]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 0, out.stderr
    assert "loadNote" in stub.requests[1].messages[-1]["content"]
    assert len(stub.requests) == 3 + len(REVIEWS)


def test_files_outside_the_plan_or_the_workspace_are_refused(ws: Path, tmp_path: Path):
    extra = {**GOOD, "../escape.ts": "export const x = 1;\n", "web/src/other.ts": "export const y = 2;\n"}
    with LLMStub([plan_answer(PLAN)] + [files_answer(extra)] * 4) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 1, out.stderr
    assert "nothing written" in out.stderr
    assert not (tmp_path / "escape.ts").exists() and not (ws / "web/src/other.ts").exists()
    assert not (ws / "server/models/note.ts").exists()
    repair = stub.requests[2].messages[-1]["content"]
    assert "refused" in repair and "not in the plan" in repair


def test_an_unknown_endpoint_is_a_usage_error_before_any_request(ws: Path, tmp_path: Path):
    with LLMStub([]) as stub:
        out = specward("generate", "slice", "specs/notes.dsl.json", "--endpoint", "POST /api/notes",
                       cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 2
    assert "declares no such endpoint" in out.stderr and "GET /api/notes/{id}" in out.stderr
    assert stub.requests == []


def test_an_interrupted_slice_resumes_without_asking_the_plan_again(ws: Path, tmp_path: Path):
    from llm_stub import Answer

    with LLMStub([plan_answer(PLAN), Answer(status=500)]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 2, out.stderr
    assert "continue it with: specward generate --resume " in out.stderr
    run_id = out.stderr.rsplit("--resume ", 1)[1].split()[0]
    assert not (ws / "server/models/note.ts").exists()
    with LLMStub([files_answer(GOOD), *REVIEWS]) as stub:
        out = specward("generate", "--resume", run_id, "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()),
                       timeout=300)
    assert out.returncode == 0, out.stderr
    assert "already received" in out.stderr  # the plan's answer, given again without a request
    assert "Now write every file of the plan" in stub.requests[0].text()
    assert (ws / "web/src/api/notes.ts").read_text() == CLIENT
    with LLMStub([]) as stub:
        again = specward("generate", "--resume", run_id, cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert again.returncode == 0 and "nothing to resume" in again.stderr


def test_the_build_runs_on_a_scratch_copy_before_approval_and_its_failure_is_repaired(ws: Path, tmp_path: Path):
    broken = dict(GOOD)
    broken["web/src/api/notes.ts"] = CLIENT.replace("return res.json();", "return res.json(); // BROKEN")
    # the build fails while a generated file says BROKEN, and records where it ran
    build = "pwd >> \"$SCRATCH_LOG\"; ! grep -rq BROKEN web server"
    with LLMStub([plan_answer(PLAN), files_answer(broken), files_answer(GOOD), *REVIEWS]) as stub:
        out = specward("generate", "slice", "specs/notes.dsl.json", "--endpoint", "GET /api/notes/:id", "--yes",
                       "--build", build, cwd=ws, timeout=300,
                       env=base_env(tmp_path, SCRATCH_LOG=str(tmp_path / "where.txt"), **stub.env()))
    assert out.returncode == 0, out.stderr
    repair = stub.requests[2].messages[-1]["content"]
    assert "(build)" in repair and "failed (exit code 1)" in repair
    ran_in = (tmp_path / "where.txt").read_text().split()
    # twice, each time on a copy inside the workspace (before approval; the second run is the score's compile)
    assert len(ran_in) == 2 and all("/.specward/scratch/" in w for w in ran_in)
    assert not (ws / ".specward/scratch").exists() or not any((ws / ".specward/scratch").iterdir())
    assert (ws / "web/src/api/notes.ts").read_text() == CLIENT
    [scored] = [r for r in records(ws) if r.stage == "score"]
    assert dict(scored.dimensions)["compile"] == 1.0


def test_a_build_command_of_an_untrusted_workspace_never_runs(ws: Path, tmp_path: Path):
    (ws / "specward.toml").write_text('build = "touch PWNED"\n')
    with LLMStub([plan_answer(PLAN), files_answer(GOOD), *REVIEWS]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 0, out.stderr
    assert "not trusted" in out.stderr
    assert not list(ws.rglob("PWNED"))


def test_a_protected_path_in_a_slice_is_not_written_by_yes(ws: Path, tmp_path: Path):
    plan = json.loads(json.dumps(PLAN))
    plan["files"].append({"path": ".github/workflows/notes.yml", "role": "other"})
    files = {**GOOD, ".github/workflows/notes.yml": "on: push\njobs: {}\n"}
    with LLMStub([plan_answer(plan), files_answer(files), *REVIEWS]) as stub:
        out = slice_(ws, tmp_path, stub, "--yes")
    assert out.returncode == 1, out.stderr  # one file not written
    assert "reaches a protected path" in out.stderr and "--yes does not count" in out.stderr
    assert not (ws / ".github").exists()
    assert (ws / "web/src/api/notes.ts").read_text() == CLIENT  # the others are
