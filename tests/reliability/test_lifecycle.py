"""The server's lifecycle over stdio: how it ends (``exit``, stdin closed, the editor's
process gone), what ``initialize`` and ``initialized`` may do more than once, a start-up
that fails, and many starts and stops leaving no process behind.

Exit codes (the protocol's): 0 after ``shutdown``, 1 otherwise, whether the end is an
``exit`` notification, stdin closing, or the parent process dying."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from rsupport import scaled
from test_protocol import (INVALID_REQUEST, LIVENESS_S, RawServer, assert_real_hover, copy_example, error_code,
                           notification, start, workspace)  # noqa: F401 - fixtures

__all__ = ["start", "workspace"]


def _faults(tmp_path: Path, code: str) -> dict:
    """An environment whose ``sitecustomize`` (imported by the server process at start-up)
    injects a fault."""
    folder = tmp_path / "faults"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(code)
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]))


# ============================================================== how it ends
@pytest.mark.parametrize("how, code", [("exit before initialize", 1), ("exit without shutdown", 1),
                                       ("shutdown then exit", 0)])
def test_exit_codes_follow_the_protocol(start, workspace, how, code):
    s = start(cwd=workspace)
    if how != "exit before initialize":
        s.initialize(workspace, wait_ready=False)
    if how == "shutdown then exit":
        assert "result" in s.call("shutdown")
    s.send(notification("exit"))
    assert s.exit_code() == code


@pytest.mark.parametrize("after_shutdown, code", [(False, 1), (True, 0)])
def test_closing_stdin_ends_the_server(start, workspace, after_shutdown, code):
    s = start(cwd=workspace)
    s.initialize(workspace, wait_ready=False)
    if after_shutdown:
        assert "result" in s.call("shutdown")
    s.close_stdin()
    assert s.exit_code() == code


def test_the_server_ends_when_its_parent_process_dies(start, workspace):
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        s = start(cwd=workspace)
        s.initialize(workspace, process_id=parent.pid)
        assert_real_hover(s, workspace)
        assert s.alive()
    finally:
        parent.kill()
        parent.wait()
    # the pipes stay open: only the death of the process named by processId ends it
    assert s.exit_code() == 1


SLOW_BUILD = '''
import time
from specward.server.engine import index

def build(self, progress=None):
    time.sleep(120)

index.WorkspaceIndex.build = build
'''


def test_exit_ends_the_process_while_the_index_thread_is_busy(start, workspace, tmp_path):
    s = start(cwd=workspace, env=_faults(tmp_path, SLOW_BUILD))
    s.initialize(workspace, wait_ready=False)
    s.wait_for(lambda m: m.get("method") == "specward/status" and m["params"]["state"] == "indexing")
    s.send(notification("exit"))
    assert s.exit_code(timeout=30) == 1  # well before the build (two minutes) would end


# ============================================================== initialize, initialized
def test_a_second_initialize_is_refused_and_changes_nothing(start, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    s = start(cwd=workspace)
    s.initialize(workspace)
    r = s.call("initialize", {"processId": None, "capabilities": {}, "rootUri": other.as_uri(),
                              "workspaceFolders": [{"uri": other.as_uri(), "name": "other"}]})
    assert error_code(r) == INVALID_REQUEST, r
    s.send(notification("initialized", {}))
    assert_real_hover(s, workspace)
    symbols = s.call("workspace/symbol", {"query": ""})["result"]
    assert symbols and all(sym["location"]["uri"].startswith(workspace.as_uri()) for sym in symbols)


def test_repeated_initialized_notifications_index_once(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace, wait_ready=False)
    for _ in range(3):
        s.send(notification("initialized", {}))
    s.wait_for(lambda m: m.get("method") == "specward/status" and m["params"].get("published"))
    # every initialized was handled before this request (they are handled in order)
    assert "result" in s.call("workspace/symbol", {"query": ""})
    states = [m["params"]["state"] for m in s.notifications("specward/status")]
    assert states.count("indexing") == 1, states
    assert_real_hover(s, workspace)


FAILING_BUILD = '''
from specward.server.engine import index

_rematch = index.WorkspaceIndex._rematch
calls = []

def rematch(self, rels):
    if not calls:
        calls.append(1)
        raise {error}("injected start-up failure")
    return _rematch(self, rels)

index.WorkspaceIndex._rematch = rematch
'''


@pytest.mark.parametrize("error", ["RecursionError", "OSError"])
def test_a_failed_start_up_is_visible_and_the_server_keeps_answering(start, workspace, tmp_path, error):
    s = start(cwd=workspace, env=_faults(tmp_path, FAILING_BUILD.replace("{error}", error)))
    s.initialize(workspace, wait_ready=False)
    status = s.wait_for(lambda m: m.get("method") == "specward/status" and m["params"]["state"] == "error",
                        what="an error status")
    assert "injected start-up failure" in status["params"]["message"] or error in status["params"]["message"]
    shown = s.wait_for(lambda m: m.get("method") == "window/showMessage", what="an error message")
    assert shown["params"]["type"] == 1
    # what was indexed still answers; a document opened is analyzed
    uri = (workspace / "web/src/features/profile.ts").as_uri()
    s.send(notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "typescript", "version": 1,
        "text": (workspace / "web/src/features/profile.ts").read_text()}}))
    s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri,
               what="the opened document's diagnostics")
    for method, params in (("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
                           ("workspace/symbol", {"query": ""}),
                           ("textDocument/codeLens", {"textDocument": {"uri": (workspace / "contracts/openapi.yaml").as_uri()}})):
        assert "result" in s.call(method, params), method
    assert s.alive()


# ============================================================== many starts and stops
def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _marked(marker: str) -> list[int]:
    """Pids of live processes whose environment carries the marker."""
    found = []
    needle = f"SPECWARD_TEST_MARKER={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    with open(f"/proc/{entry}/stat", "rb") as st:
                        if st.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                            found.append(int(entry))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_start_stop_cycles_leave_no_process_behind(tmp_path):
    marker = uuid.uuid4().hex
    env = dict(os.environ, SPECWARD_TEST_MARKER=marker)
    small = copy_example(tmp_path / "small")
    big = tmp_path / "big"  # enough files for parser processes on a cold start
    (big / "src").mkdir(parents=True)
    (big / "specward.toml").write_text("")
    for i in range(450):
        (big / f"src/f{i}.ts").write_text(f"export const f{i} = () => fetch('/api/x/{i}');\n")
    cycles = scaled(100, 15)
    # most end while the workspace is still being indexed; "big" ones once its parser
    # processes have started
    modes = ["shutdown-exit", "exit", "close-stdin", "shutdown-close", "exit-big"]
    expected = {"shutdown-exit": 0, "exit": 1, "close-stdin": 1, "shutdown-close": 0, "exit-big": 1}
    codes: dict[str, list[int]] = {}
    children_seen = []
    t0 = time.monotonic()

    def cycle(i: int) -> None:
        mode = modes[i % len(modes)]
        root = big if mode.endswith("big") else small
        shutil.rmtree(root / ".specward", ignore_errors=True)  # cold every time
        s = RawServer(cwd=root, env=env)
        try:
            s.initialize(root, process_id=os.getpid(), wait_ready=mode == "shutdown-exit")
            if mode.endswith("big"):
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and not s.notifications("specward/status")[1:]:
                    if any(b"spawn_main" in _cmdline(pid) for pid in _marked(marker)):
                        children_seen.append(i)
                        break
                    time.sleep(0.05)
            if mode.startswith("shutdown"):
                assert "result" in s.call("shutdown")
            if mode.endswith("close") or mode == "close-stdin":
                s.close_stdin()
            else:
                s.send(notification("exit"))
            codes.setdefault(mode, []).append(s.exit_code())
        finally:
            s.stop()

    for i in range(cycles):
        cycle(i)
    assert codes == {m: [expected[m]] * len(c) for m, c in codes.items()}, codes
    deadline = time.monotonic() + LIVENESS_S
    while _marked(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _marked(marker) == []
    summary = {m: f"{len(c)}x{c[0]}" for m, c in codes.items()}
    print(f"\n{cycles} start/stop cycles in {time.monotonic() - t0:.1f} s, exit codes {summary}, "
          f"parser processes seen running at exit in {len(children_seen)} cycle(s)")
