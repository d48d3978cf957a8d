"""The shared prompt sections gathered from a real workspace and sent by a real
`specward generate contract` to the LLM stub: decisions, invariants, manifest files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_stub import LLMStub
from specward.server.stage_context import gather
from test_generate_cli import VALID, base_env, fenced, specward, write_spec


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    return root


def test_contract_prompt_carries_the_shared_sections(ws: Path, tmp_path: Path):
    write_spec(ws)
    (ws / "specs/notes.context.md").write_text("# Decisions\n- Sessions: JWT in a cookie.\n")
    (ws / "specward.toml").write_text('[[invariants]]\nid = "no-db"\ntype = "forbidden"\n'
                                      'source = ["app.web"]\nforbidden = ["app.db"]\n')
    (ws / "app").mkdir()
    (ws / "app/models.py").write_text("class Note: ...\n")
    (ws / ".specward/context").mkdir(parents=True)
    (ws / ".specward/context/notes.json").write_text(json.dumps({
        "version": 1, "task": "notes", "created_at": "2026-12-03T10:00:00+00:00", "targets": ["app/models.py"],
        "entries": [{"path": "app/models.py", "sha256": "0" * 64, "read_at": "2026-12-03T10:00:00+00:00",
                     "source": "target", "confidence": 1.0}], "context_hash": "x"}))
    shared = gather(ws, slug="notes")
    assert shared.index("## Decisions already made (specs/notes.context.md)") < shared.index("no-db (forbidden)") \
        < shared.index("### app/models.py\nclass Note: ...\n")
    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    prompt = stub.requests[0].messages[-1]["content"]
    assert shared in prompt and prompt.index("SPEC>>>") < prompt.index(shared) < prompt.index("SpecDSL 1.0 has")
