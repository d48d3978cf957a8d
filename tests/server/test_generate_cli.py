"""`specward generate spec|contract` through real subprocesses against a real HTTP stub
provider (tests/llm_stub.py), and `server/llm.py` itself (cancel, redaction,
configuration). No in-process mocking of litellm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_stub import TEST_KEY, Answer, LLMStub
from specward.analyzers.stages.runs import decode_lines
from specward.server import generate_cli as gen
from specward.server import llm

VALID = {
    "version": "1.0",
    "feature": {"id": "notes", "title": "Notes", "description": "Write and list notes."},
    "models": [{"name": "Note", "description": "A note",
                "fields": [{"name": "id", "type": "Int", "required": True, "unique": True},
                           {"name": "title", "type": "String", "required": True}]}],
    "endpoints": [{"id": "EP-001", "method": "GET", "path": "/api/notes", "description": "List notes",
                   "auth": False, "successStatus": 200, "successDescription": "The notes", "errors": []}],
}
INVALID = {**VALID, "version": "2.0", "endpoints": [{"id": "EP-001", "method": "FETCH", "path": "/api/notes"}]}
LESS_INVALID = {**VALID, "endpoints": [{**VALID["endpoints"][0], "method": "FETCH"}]}

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


def fenced(obj: dict) -> str:
    return "Here is the contract:\n\n```json\n" + json.dumps(obj, indent=2) + "\n```\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    return root


def base_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECWARD_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # never the real user's settings
    env.update(extra)
    return env


def specward(*args: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def runs(root: Path):
    records, problems = decode_lines((root / ".specward/runs.jsonl").read_text())
    assert problems == ()
    return records


# ----------------------------------------------------------------------------- spec
def test_spec_written_with_yes(ws: Path, tmp_path: Path):
    answer = "Sure.\n\n````md path=specs/notes.md\n" + SPEC_MD + "````\n"
    with LLMStub([answer]) as stub:
        out = specward("generate", "spec", "Let users write and list their notes", "--yes", cwd=ws,
                       env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    target = ws / "specs/users-write-list-notes.md"
    assert target.read_text() == SPEC_MD
    assert "specward will create specs/users-write-list-notes.md" in out.stdout and "+## Edge cases" in out.stdout
    [req] = stub.requests
    assert req.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert req.body["stream"] is True and req.body["model"] == "test-model"
    prompt = req.text()
    assert "Let users write and list their notes" in prompt
    for section in ("## Background", "## User stories", "## Acceptance criteria", "## Edge cases"):
        assert section in prompt
    assert gen.FILES_ANSWER_FORMAT in prompt
    [rec] = runs(ws)
    assert (rec.stage, rec.model, rec.files) == ("spec", "openai/test-model", ("specs/users-write-list-notes.md",))
    assert rec.prompt_hash.startswith("sha256:")
    assert TEST_KEY not in (ws / ".specward/runs.jsonl").read_text() + out.stdout + out.stderr


def test_spec_not_written_without_yes_and_no_terminal(ws: Path, tmp_path: Path):
    with LLMStub(["```md path=specs/x.md\n" + SPEC_MD + "```\n"]) as stub:
        out = specward("generate", "spec", "notes", "--slug", "my-notes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1, out.stderr
    assert "specward will create specs/my-notes.md" in out.stdout and "pass --yes" in out.stderr
    assert not (ws / "specs").exists()
    [rec] = runs(ws)
    assert rec.files == ()


def test_spec_answer_that_fits_no_format_is_kept(ws: Path, tmp_path: Path):
    with LLMStub(["I cannot do that."]) as stub:
        out = specward("generate", "spec", "notes", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert "does not fit" in out.stderr and ".specward/runs/" in out.stderr
    assert not (ws / "specs").exists()
    [kept] = (ws / ".specward/runs").glob("*.answer.txt")
    assert "I cannot do that." in kept.read_text()
    [rec] = runs(ws)
    assert kept.name == f"{rec.run_id}.answer.txt"


# ----------------------------------------------------------------------------- contract
def write_spec(ws: Path) -> Path:
    (ws / "specs").mkdir(exist_ok=True)
    spec = ws / "specs/notes.md"
    spec.write_text(SPEC_MD)
    return spec


def test_contract_right_at_once(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert json.loads((ws / "specs/notes.dsl.json").read_text()) == VALID
    [req] = stub.requests
    assert "People lose their notes." in req.text() and gen.JSON_ANSWER_FORMAT in req.text()
    [rec] = runs(ws)
    assert (rec.stage, rec.files) == ("contract", ("specs/notes.dsl.json",))


def test_contract_repaired_after_two_rounds(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub([fenced(INVALID), fenced(LESS_INVALID), json.dumps(VALID)]) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert json.loads((ws / "specs/notes.dsl.json").read_text()) == VALID
    assert len(stub.requests) == 3
    first, second, third = (r.messages for r in stub.requests)
    assert len(first) == 2 and len(second) == 4 and len(third) == 6
    assert 'version: must be "1.0"' in second[-1]["content"] and "FETCH" in second[-1]["content"]
    assert second[-2] == {"role": "assistant", "content": fenced(INVALID)}
    assert "FETCH" in third[-1]["content"] and 'version: must be' not in third[-1]["content"]
    [rec] = runs(ws)
    assert rec.files == ("specs/notes.dsl.json",)


def test_contract_that_never_validates(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub([fenced(INVALID)] * 4) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert len(stub.requests) == 4  # the first answer and 3 repair rounds
    assert not (ws / "specs/notes.dsl.json").exists()
    assert 'specs/notes.dsl.json: error: version: must be "1.0"' in out.stderr
    assert "still not valid after 3 repair rounds" in out.stderr
    [kept] = (ws / ".specward/runs").glob("*.answer.txt")
    assert kept.read_text().count("===== answer") == 4
    [rec] = runs(ws)
    assert rec.files == ()


def test_contract_malformed_json(ws: Path, tmp_path: Path):
    write_spec(ws)
    bad = '```json\n{"version": "1.0", "feature": {"id": "notes",}\n```\n'
    with LLMStub([bad] * 4) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1
    assert "none starts a JSON object" in out.stderr
    assert "none starts a JSON object" in stub.requests[1].messages[-1]["content"]
    assert not (ws / "specs/notes.dsl.json").exists()


def test_contract_malformed_then_fixed(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub(["no JSON here", fenced(VALID)]) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert len(stub.requests) == 2 and "no '{'" in stub.requests[1].messages[-1]["content"]


def test_no_model_configured(ws: Path, tmp_path: Path):
    write_spec(ws)
    out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2
    assert "no model configured" in out.stderr and "SPECWARD_MODEL" in out.stderr
    assert 'pip install "specward[llm] @ git+https://github.com/specward/specward"' in out.stderr and "settings.toml" in out.stderr
    assert not (ws / ".specward").exists()


def test_model_from_user_settings(ws: Path, tmp_path: Path):
    with LLMStub(["```md path=specs/a.md\n" + SPEC_MD + "```\n"]) as stub:
        conf = tmp_path / "config/specward"
        conf.mkdir(parents=True)
        (conf / "settings.toml").write_text(f'model = "openai/test-model"\napi_base = "{stub.api_base}"\n'
                                            f'api_key = "{TEST_KEY}"\n')
        out = specward("generate", "spec", "notes", "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert stub.requests[0].headers["authorization"] == f"Bearer {TEST_KEY}"


def test_failed_request_does_not_show_the_key(ws: Path, tmp_path: Path):
    with LLMStub([Answer(status=401, echo_auth=True)]) as stub:
        out = specward("generate", "spec", "notes", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 2
    assert "the request failed" in out.stderr and "scripted failure" in out.stderr
    assert TEST_KEY not in out.stderr + out.stdout
    assert TEST_KEY[8:] not in out.stderr


# ----------------------------------------------------------------------------- llm.py
def test_cancel_aborts_a_slow_stream(tmp_path: Path):
    slow = Answer("x" * 2000, chunk_delay=0.5, chunk_size=10)  # about 100 s in all
    with LLMStub([slow]) as stub:
        config = llm.load_config(base_env(tmp_path, **stub.env()))
        cancel = threading.Event()
        set_at: list[float] = []

        def cancel_soon(chars: int) -> None:  # the stream has started: cancel 0.3 s later
            if not set_at:
                set_at.append(0.0)
                threading.Timer(0.3, lambda: (set_at.__setitem__(0, time.monotonic()), cancel.set())).start()

        with pytest.raises(llm.LLMCancelled):
            llm.complete([{"role": "user", "content": "hi"}], config=config, cancel=cancel, on_progress=cancel_soon)
        assert set_at and set_at[0] > 0
        assert time.monotonic() - set_at[0] < 1.5
        assert len(stub.requests) == 1


def test_complete_streams_and_reports_progress(tmp_path: Path):
    seen: list[int] = []
    with LLMStub([Answer("hello " * 20, chunk_size=7), "plain"]) as stub:
        config = llm.load_config(base_env(tmp_path, **stub.env()))
        assert llm.complete([{"role": "user", "content": "hi"}], config=config, on_progress=seen.append) == "hello " * 20
        assert llm.complete([{"role": "user", "content": "hi"}], config=config, stream=False) == "plain"
    assert seen and seen[-1] == 120 and seen == sorted(seen)
    assert stub.requests[1].body.get("stream") in (False, None)


def test_complete_error_message_has_no_key(tmp_path: Path):
    with LLMStub([Answer(status=500, echo_auth=True)]) as stub:
        config = llm.load_config(base_env(tmp_path, **stub.env()))
        with pytest.raises(llm.LLMError) as info:
            llm.complete([{"role": "user", "content": "hi"}], config=config)
    assert TEST_KEY not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert TEST_KEY not in repr(config)


def test_config_precedence(tmp_path: Path):
    conf = tmp_path / "config/specward"
    conf.mkdir(parents=True)
    (conf / "settings.toml").write_text('model = "m-settings"\napi_base = "http://b"\napi_key = "k-settings"\n')
    env = base_env(tmp_path, SPECWARD_MODEL="m-env")
    c = llm.load_config(env, workspace_model="m-workspace")
    assert (c.model, c.api_base, c.api_key) == ("m-env", "http://b", "k-settings")
    (conf / "settings.toml").write_text('api_key = "k"\n')
    c = llm.load_config(base_env(tmp_path), workspace_model="m-workspace")
    assert (c.model, c.api_base, dict(c.sources)["model"]) == ("m-workspace", None, "workspace")
    (conf / "settings.toml").write_text('model = 3\n')
    with pytest.raises(llm.LLMError, match="must be a string"):
        llm.load_config(base_env(tmp_path))


def test_importing_llm_does_not_import_litellm():
    code = "import sys, specward.server.llm, specward.server.generate_cli, specward.server.cli; " \
           "print([m for m in sys.modules if m.startswith('litellm')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- pure parts
@pytest.mark.parametrize("request_, slug", [
    ("Let users write and list their notes", "users-write-list-notes"),
    ("Add a page where users can reset their password by e-mail link", "add-page-users-reset-password-mail"),
    ("Ünïcode café menü", "unicode-cafe-menu"),
    ("the a to", "the-a-to"),
    ("!!!", "feature"),
])
def test_slug_from_request(request_: str, slug: str):
    assert gen.slug_from_request(request_) == slug
    assert gen.valid_slug(slug)


def test_invalid_slug_is_a_usage_error(ws: Path, tmp_path: Path):
    out = specward("generate", "spec", "notes", "--slug", "../x", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "kebab-case" in out.stderr


def test_prompts_state_the_documented_formats():
    docs = (Path(__file__).resolve().parents[2] / "docs/stages.md").read_text()
    assert gen.JSON_ANSWER_FORMAT in docs and gen.FILES_ANSWER_FORMAT in docs
    user = gen.contract_messages("# S\n", "s.md")[1]["content"]
    assert '"version": "1.0"' in user and "# S" in user
    assert "- a problem" in gen.repair_message(["a problem"])["content"]


def test_check_contract_and_spec_reading():
    text, problems = gen.check_contract(fenced(VALID), "specs/n.dsl.json")
    assert problems == [] and json.loads(text) == VALID
    assert gen.check_contract("{}", "specs/n.dsl.json")[0] is None
    assert gen.spec_from_answer('{"files": [{"path": "specs/x.md", "content": "# X"}]}') == "# X\n"
    with pytest.raises(ValueError, match="exactly one file"):
        gen.spec_from_answer("```md path=a.md\nA\n```\n```md path=b.md\nB\n```\n")
    assert gen.missing_sections(SPEC_MD) == []
    assert gen.missing_sections("# T\n## Background\n") == ["User stories", "Acceptance criteria", "Edge cases"]


def test_symlinked_specs_folder_out_of_the_workspace_is_refused(ws: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "specs").symlink_to(outside)
    with LLMStub([]) as stub:
        out = specward("generate", "spec", "notes", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 2 and "symlink" in out.stderr
    assert stub.requests == [] and list(outside.iterdir()) == []
