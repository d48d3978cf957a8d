"""`specward generate --resume RUN_ID`: a real `specward generate` subprocess interrupted
with SIGINT during a slow answer of the LLM stub (tests/llm_stub.py), then resumed: the
answers already received are not asked again, a file already written is not regenerated."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from llm_stub import Answer, LLMStub
from test_generate_cli import (
    INVALID,
    SPEC_MD,
    VALID,
    base_env,
    fenced,
    runs,
    specward,
    write_spec,
    ws,  # noqa: F401 - the fixture: a workspace with a .git folder
)

SLOW = Answer("x" * 4000, chunk_delay=0.5, chunk_size=10)  # minutes, unless interrupted


def start(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "specward.server", *args], cwd=cwd, env=env, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def interrupt_at(proc: subprocess.Popen, stub: LLMStub, requests: int) -> tuple[int, str]:
    """SIGINT once the stub has received ``requests`` requests and streams the last one."""
    deadline = time.monotonic() + 60
    while len(stub.requests) < requests:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the request never came"
        time.sleep(0.05)
    time.sleep(0.8)  # a few chunks of the slow answer
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


def states(ws: Path) -> list[Path]:
    return sorted((ws / ".specward/runs").glob("*.state.json"))


def test_contract_interrupted_in_a_repair_round_then_resumed(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub([fenced(INVALID), SLOW]) as stub:
        proc = start("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
        code, err = interrupt_at(proc, stub, 2)
    assert code == 130, err
    assert "interrupted: nothing written" in err and "specward generate --resume " in err
    assert not (ws / "specs/notes.dsl.json").exists()
    [state_file] = states(ws)
    state = json.loads(state_file.read_text())
    run_id = state["run_id"]
    assert state["stage"] == "contract" and state["answers"] == [fenced(INVALID)] and state["done"] is False
    assert f"--resume {run_id}" in err

    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "--resume", run_id, "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert "answer 1 already received" in out.stderr
    [req] = stub.requests  # only the repair round: the first answer was not asked again
    assert req.messages[-2] == {"role": "assistant", "content": fenced(INVALID)}
    assert 'version: must be "1.0"' in req.messages[-1]["content"]
    assert json.loads((ws / "specs/notes.dsl.json").read_text()) == VALID
    [rec] = runs(ws)
    assert (rec.run_id, rec.stage, rec.files) == (run_id, "contract", ("specs/notes.dsl.json",))
    assert json.loads(state_file.read_text())["done"] is True

    again = specward("generate", "--resume", run_id, cwd=ws, env=base_env(tmp_path))
    assert again.returncode == 0 and "nothing to resume" in again.stderr


def test_spec_answered_but_not_approved_is_resumed_without_asking(ws: Path, tmp_path: Path):
    answer = "````md path=specs/x.md\n" + SPEC_MD + "````\n"
    with LLMStub([answer]) as stub:
        out = specward("generate", "spec", "notes", "--slug", "my-notes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 1 and "pass --yes" in out.stderr  # answered and parsed, not approved
    [state_file] = states(ws)
    run_id = json.loads(state_file.read_text())["run_id"]
    assert "proposal" in json.loads(state_file.read_text())["steps"]
    # no model needed any more: the parsed answer is a completed step
    with LLMStub([]) as stub:
        out = specward("generate", "--resume", run_id, "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert stub.requests == []
    assert (ws / "specs/my-notes.md").read_text() == SPEC_MD


def test_spec_interrupted_while_streaming_then_resumed(ws: Path, tmp_path: Path):
    with LLMStub([SLOW]) as stub:
        proc = start("generate", "spec", "Let users list notes", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
        code, err = interrupt_at(proc, stub, 1)
    assert code == 130, err
    [state_file] = states(ws)
    state = json.loads(state_file.read_text())
    assert state["answers"] == [] and state["args"] == {"request": "Let users list notes", "slug": "users-list-notes"}
    answer = "````md path=specs/x.md\n" + SPEC_MD + "````\n"
    with LLMStub([answer]) as stub:
        out = specward("generate", "--resume", state["run_id"], "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert "Let users list notes" in stub.requests[0].text()
    assert (ws / "specs/users-list-notes.md").read_text() == SPEC_MD


def test_resume_refuses_bad_input(ws: Path, tmp_path: Path):
    out = specward("generate", "--resume", "nope-123", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "no run nope-123 to resume" in out.stderr
    out = specward("generate", "--resume", "../x", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "not a run id" in out.stderr
    (ws / ".specward/runs").mkdir(parents=True)
    (ws / ".specward/runs/r1.state.json").write_text('{"v": 1, "run_id": "r1"')  # half-written
    out = specward("generate", "--resume", "r1", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "cannot be resumed" in out.stderr
    out = specward("generate", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "--resume RUN_ID" in out.stderr


def interrupted_contract_run(ws: Path, tmp_path: Path) -> tuple[str, Path]:
    """A contract run whose first answer (invalid) was received and whose repair round was
    interrupted: (run id, state file)."""
    write_spec(ws)
    with LLMStub([fenced(INVALID), SLOW]) as stub:
        proc = start("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
        code, err = interrupt_at(proc, stub, 2)
    assert code == 130, err
    [state_file] = states(ws)
    state = json.loads(state_file.read_text())
    assert state["answers"] == [fenced(INVALID)] and len(state["asked"]) == 1
    return state["run_id"], state_file


def test_a_saved_answer_is_not_given_to_another_question(ws: Path, tmp_path: Path):
    run_id, state_file = interrupted_contract_run(ws, tmp_path)
    # the feature's decisions (part of the prompt) are written before the run is resumed:
    # the first question is not the one answered (the spec itself is kept in the state)
    (ws / "specs/notes.context.md").write_text("# Decisions\n\n- Notes can be pinned.\n")
    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "--resume", run_id, "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert "already received" not in out.stderr
    assert "question 1 differs from the one answered in run " + run_id in out.stderr
    [req] = stub.requests  # the first question asked again, with the spec as it is now
    assert "Notes can be pinned." in req.text()
    assert not any(m["role"] == "assistant" for m in req.messages)  # the old answer is not in it
    state = json.loads(state_file.read_text())
    assert state["answers"] == [fenced(VALID)] and state["done"] is True and len(state["asked"]) == 1


def test_a_state_saved_before_question_hashes_is_replayed_by_position(ws: Path, tmp_path: Path):
    run_id, state_file = interrupted_contract_run(ws, tmp_path)
    state = json.loads(state_file.read_text())
    del state["asked"]
    state_file.write_text(json.dumps(state))
    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "--resume", run_id, "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    assert "answer 1 already received" in out.stderr
    [req] = stub.requests  # only the repair round
    assert req.messages[-2] == {"role": "assistant", "content": fenced(INVALID)}
    assert len(json.loads(state_file.read_text())["asked"]) == 2  # the hashes are written from now on
