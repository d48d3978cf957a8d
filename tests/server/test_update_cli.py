"""`specward generate update OLD NEW`: only the files a contract edit affects are sent to
the model and rewritten; what it gives back is judged with the new contract in place.
Real subprocesses against the real stub provider (tests/llm_stub.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_stub import Answer, LLMStub
from test_generate_cli import base_env, runs, specward


def contract(path: str) -> str:
    return json.dumps({
        "version": "1.0",
        "feature": {"id": "notes", "title": "Notes", "description": "Notes."},
        "models": [],
        "endpoints": [
            {"id": "EP-001", "method": "GET", "path": path, "description": "One note", "auth": False,
             "successStatus": 200, "successDescription": "The note", "errors": []},
            {"id": "EP-002", "method": "GET", "path": "/api/tags", "description": "Tags", "auth": False,
             "successStatus": 200, "successDescription": "The tags", "errors": []}]}, indent=2) + "\n"


NOTES_OLD = ("export async function loadNote(id: string) {\n"
             "  const res = await fetch(`/api/notes/${id}`);\n"
             "  return res.json();\n"
             "}\n")
NOTES_NEW = NOTES_OLD.replace("/api/notes/${id}", "/api/memos/${id}")
TAGS = "export const loadTags = () => fetch('/api/tags').then((r) => r.json());\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "specs/notes.dsl.json").write_text(contract("/api/memos/:id"))
    (root / "web").mkdir()
    (root / "web/notes.ts").write_text(NOTES_OLD)
    (root / "web/tags.ts").write_text(TAGS)
    (tmp_path / "old.dsl.json").write_text(contract("/api/notes/:id"))
    return root


def block(path: str, text: str) -> str:
    return f"```ts path={path}\n{text}```\n"


def test_update_rewrites_only_the_affected_file(ws: Path, tmp_path: Path):
    with LLMStub([block("web/notes.ts", NOTES_NEW)]) as stub:
        out = specward("generate", "update", str(tmp_path / "old.dsl.json"), "specs/notes.dsl.json", "--yes",
                       cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert (ws / "web/notes.ts").read_text() == NOTES_NEW
    assert (ws / "web/tags.ts").read_text() == TAGS
    [req] = stub.requests
    prompt = req.text()
    assert "Affected file `web/notes.ts`" in prompt and NOTES_OLD.strip() in prompt
    assert "web/tags.ts" not in prompt  # not affected: not sent
    assert "/api/memos/:id" in prompt and '"removed"' in prompt
    [rec] = runs(ws)
    assert (rec.stage, rec.files) == ("update", ("web/notes.ts",))


def test_update_repairs_a_phantom_call_and_refuses_other_files(ws: Path, tmp_path: Path):
    wrong = NOTES_OLD.replace("/api/notes/${id}", "/api/memo/${id}")  # still a phantom
    first = block("web/notes.ts", wrong) + block("web/tags.ts", TAGS.replace("tags", "labels"))
    with LLMStub([first, block("web/notes.ts", NOTES_NEW)]) as stub:
        out = specward("generate", "update", str(tmp_path / "old.dsl.json"), "specs/notes.dsl.json", "--yes",
                       cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert len(stub.requests) == 2
    repair = stub.requests[1].messages[-1]["content"]
    assert "phantom-api" in repair and "web/notes.ts" in repair
    assert "web/tags.ts" in repair and "only the affected files" in repair
    assert (ws / "web/notes.ts").read_text() == NOTES_NEW
    assert (ws / "web/tags.ts").read_text() == TAGS


def test_update_gives_up_after_three_repairs_and_writes_nothing(ws: Path, tmp_path: Path):
    wrong = block("web/notes.ts", NOTES_OLD)  # unchanged: the call stays a phantom
    with LLMStub([wrong] * 4) as stub:
        out = specward("generate", "update", str(tmp_path / "old.dsl.json"), "specs/notes.dsl.json", "--yes",
                       cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1, out.stderr
    assert len(stub.requests) == 4
    assert "phantom-api" in out.stderr and "nothing written" in out.stderr
    assert (ws / "web/notes.ts").read_text() == NOTES_OLD
    [rec] = runs(ws)
    assert rec.files == () and dict(rec.findings).get("phantom-api") == 1


def test_update_without_a_change_asks_nothing(ws: Path, tmp_path: Path):
    (tmp_path / "same.dsl.json").write_text(contract("/api/memos/:id"))
    with LLMStub([Answer(status=500)]) as stub:
        out = specward("generate", "update", str(tmp_path / "same.dsl.json"), "specs/notes.dsl.json", "--yes",
                       cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert "nothing to update" in out.stdout
    assert stub.requests == []
