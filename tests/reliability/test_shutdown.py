"""Stopping in the middle of a build: the real server over stdio on a generated workspace
(small TypeScript files with fetch calls), stopped 1.6-2.5 s into its first build by
``shutdown`` + ``exit`` or by closing its stdin. The server, every parser process and the
multiprocessing resource tracker must be gone at once (target: one second; asserted with
a generous bound), and the cache must be usable by the next start. The same for
``WorkspaceIndex.cancel()`` in-process, during the build and during the flush of the
parser processes' facts that follows it.

The parser processes are slowed down by a ``sitecustomize`` hook (a few ms per file), so
that the build is certainly still running when it is stopped and would run for much
longer than the bound if it were not cancelled; one case runs without the hook.
Processes are found by a unique marker in their environment (``/proc/*/environ``)."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from rsupport import scaled

from specward.server.engine import parser_pool
from specward.server.engine.index import BuildCancelled, WorkspaceIndex

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

FILES = scaled(2000, 1200)
REAL_FILES = 2000  # without the slowing hook: enough for a build of several seconds here
GONE_WITHIN_S = 10.0  # generous liveness bound; the target (and what is measured) is ~1 s
STOP_AFTER_S = (1.6, 2.5)  # into the build

# Every spawned process (a parser process: `--multiprocessing-fork`) sleeps a little per
# file parsed (SPECWARD_TEST_SLOW_PARSE_S) or per file's facts encoded
# (SPECWARD_TEST_SLOW_DUMPS_S), so that a build of FILES files takes 20 s or more: never
# done by the time it is stopped, and far longer than the bound.
SLOW_HOOK = """
import os, sys, time
if '--multiprocessing-fork' in sys.argv:
    import specward.server.engine.parsing as parsing
    from specward.analyzers import serial
    _parse, _dumps = parsing.parse_source, serial.dumps
    parse_s = float(os.environ.get("SPECWARD_TEST_SLOW_PARSE_S", "0"))
    dumps_s = float(os.environ.get("SPECWARD_TEST_SLOW_DUMPS_S", "0"))
    def parse_source(rel, text):
        time.sleep(parse_s)
        return _parse(rel, text)
    def dumps(obj):
        time.sleep(dumps_s)
        return _dumps(obj)
    parsing.parse_source, serial.dumps = parse_source, dumps
    parsing.FLUSH_ROWS = int(os.environ.get("SPECWARD_TEST_FLUSH_ROWS", parsing.FLUSH_ROWS))
"""

ENDPOINT = "/api/items/:id"


def make_workspace(root: Path, files: int, cache: bool = True, more: int = 0) -> Path:
    """``files`` small TypeScript files importing a base path and calling fetch (one file
    in twenty has a phantom call; ``more`` matched calls each besides), and a SpecDSL
    contract."""
    (root / "contracts").mkdir(parents=True)
    (root / "contracts/api.dsl.json").write_text(
        '{"version": "1.0", "feature": "f", "endpoints": [{"id": "e", "method": "GET", "path": "%s",'
        ' "description": "d", "successStatus": 200}]}\n' % ENDPOINT)
    src = root / "src"
    src.mkdir()
    (src / "api.ts").write_text("export const BASE = '/api';\n")
    for i in range(files):
        folder = src / f"d{i // 100:02d}"
        folder.mkdir(exist_ok=True)
        phantom = "/items/${id}/x" if i % 20 == 0 else "/items/${id}"
        (folder / f"f{i:04d}.ts").write_text(
            "import { BASE } from '../api';\n"
            f"export const load{i} = (id: string) => fetch(`${{BASE}}{phantom}`);\n"
            f"export const again{i} = (id: string) => fetch(`${{BASE}}/items/${{id}}`, {{ method: 'GET' }});\n"
            + "".join(f"export const more{i}_{j} = (id: string) => fetch(`${{BASE}}/items/${{id}}`);\n"
                      for j in range(more)))
    if not cache:
        (root / "specward.toml").write_text("cache = false\n")
    return root


def findings(idx: WorkspaceIndex) -> list[tuple[str, str, str]]:
    return sorted((f.file, f.code, f.message) for f in idx.all_findings())


_REFERENCE: dict[int, list] = {}


def reference(tmp_path_factory, files: int) -> list[tuple[str, str, str]]:
    """What a cold start without any cache finds in ``make_workspace(files)`` (computed
    once per size: the findings name files relative to the workspace)."""
    if files not in _REFERENCE:
        root = make_workspace(tmp_path_factory.mktemp("reference") / "ws", files)
        idx = WorkspaceIndex(root, use_cache=False, workers=2)
        idx.build()
        _REFERENCE[files] = found = findings(idx)
        assert len([f for f in found if f[1] == "phantom-api"]) == (files + 19) // 20
    return _REFERENCE[files]


# ---------------------------------------------------------------------------- processes
def processes_marked(mark: str) -> dict[int, str]:
    """pid -> "server" / "parser" / "tracker" / "other" of every process whose environment
    holds ``mark``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() not in (entry / "environ").read_bytes():
                continue
            cmd = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[-1].split()[0] == "Z":
            continue  # a zombie is gone, only not reaped yet
        if b"resource_tracker" in cmd:
            kind = "tracker"
        elif b"--multiprocessing-fork" in cmd:
            kind = "parser"
        elif b"specward.server" in cmd:
            kind = "server"
        else:
            kind = "other"
        found[int(entry.name)] = kind
    return found


def wait_gone(mark: str, exclude: set[int] = frozenset(), kinds: set[str] | None = None,
              timeout: float = GONE_WITHIN_S) -> float:
    """Seconds until no marked process (of ``kinds``) is left; fails after ``timeout``."""
    t0 = time.monotonic()
    while True:
        left = {p: k for p, k in processes_marked(mark).items()
                if p not in exclude and (kinds is None or k in kinds)}
        if not left:
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"still running {timeout:.0f} s after the stop: {left}")
        time.sleep(0.02)


def kill_marked(mark: str, exclude: set[int] = frozenset()) -> None:
    for pid in processes_marked(mark):
        if pid not in exclude:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


# ---------------------------------------------------------------------------- a raw client
class RawClient:
    """The server over stdio, spoken to frame by frame (no client library between: closing
    stdin is closing stdin)."""

    def __init__(self, root: Path, env: dict[str, str], log: Path) -> None:
        self.root = root
        self.log = log
        self.proc = subprocess.Popen([sys.executable, "-m", "specward.server", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log.open("wb"), env=env)
        self.messages: queue.Queue = queue.Queue()
        self.statuses: list[tuple[float, str]] = []
        self.published = False  # a status said every file's diagnostics are out
        self.diagnostics: dict[str, list] = {}
        self._id = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                headers = {}
                line = out.readline()
                if not line:
                    break
                while line.strip():
                    key, _, value = line.decode("ascii").partition(":")
                    headers[key.strip().lower()] = value.strip()
                    line = out.readline()
                body = json.loads(out.read(int(headers["content-length"])))
                method = body.get("method")
                if method == "specward/status":
                    self.statuses.append((time.monotonic(), body["params"]["state"]))
                    self.published = self.published or bool(body["params"].get("published"))
                elif method == "textDocument/publishDiagnostics":
                    self.diagnostics[body["params"]["uri"]] = body["params"]["diagnostics"]
                if method is not None and "id" in body:  # a request to the client: accepted
                    self.send({"jsonrpc": "2.0", "id": body["id"], "result": None})
                self.messages.put(body)
        except (OSError, ValueError):
            pass
        self.messages.put(None)

    def send(self, obj: dict) -> None:
        data = json.dumps(obj).encode()
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            self.proc.stdin.flush()

    def request(self, method: str, params) -> int:
        self._id += 1
        self.send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        return self._id

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def response(self, rid: int, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no response to request {rid}"
            msg = self.messages.get(timeout=left)
            assert msg is not None, f"the server closed its output before answering request {rid}"
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def initialize(self) -> None:
        rid = self.request("initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {},
                                          "workspaceFolders": [{"uri": self.root.as_uri(), "name": "ws"}]})
        self.response(rid)
        self.notify("initialized", {})

    def state(self) -> str | None:
        return self.statuses[-1][1] if self.statuses else None

    def wait_state(self, state: str, timeout: float = 60.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for t, s in list(self.statuses):
                if s == state:
                    return t
            assert self.proc.poll() is None, f"the server exited: {self.log.read_text()[-3000:]}"
            time.sleep(0.01)
        raise AssertionError(f"no {state!r} status in {timeout} s")

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def slow_env(tmp_path: Path, mark: str, parse_s: float = 0.0, dumps_s: float = 0.0) -> dict[str, str]:
    """The environment of a server (or of the parser processes of a test's own index):
    the marker, and the slowing hook when a delay is given."""
    env = {**os.environ, "SPECWARD_TEST_MARK": mark}
    if parse_s or dumps_s:
        hook = tmp_path / "hook"
        hook.mkdir(exist_ok=True)
        (hook / "sitecustomize.py").write_text(SLOW_HOOK)
        env["PYTHONPATH"] = os.pathsep.join([str(hook), env.get("PYTHONPATH", "")])
        env["SPECWARD_TEST_SLOW_PARSE_S"] = str(parse_s)
        env["SPECWARD_TEST_SLOW_DUMPS_S"] = str(dumps_s)
    return env


def integrity(root: Path) -> str:
    db = sqlite3.connect(root / ".specward/cache.sqlite")
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


# ---------------------------------------------------------------------------- the server
@pytest.mark.parametrize("how", ["shutdown-exit", "stdin-closed"])
@pytest.mark.parametrize("mode", ["linking", "extracting", "real-speed"])
def test_stopping_the_server_during_a_build_ends_every_process_at_once(tmp_path: Path, tmp_path_factory, how: str,
                                                                        mode: str, record_property):
    """``linking``: an empty cache (the parser processes link); ``extracting``: the cache
    off (the server links, parser processes extract); ``real-speed``: an empty cache and no
    slowing hook (the build of REAL_FILES files takes 5-6 s here)."""
    if mode == "real-speed" and how == "stdin-closed":
        pytest.skip("one real-speed case is enough (shutdown + exit)")
    files = REAL_FILES if mode == "real-speed" else FILES
    root = make_workspace(tmp_path / "ws", files, cache=mode != "extracting", more=20 if mode == "real-speed" else 0)
    mark = uuid.uuid4().hex
    client = RawClient(root, slow_env(tmp_path, mark, parse_s=0.0 if mode == "real-speed" else 0.03),
                       tmp_path / "server.log")
    try:
        t_start = time.monotonic()
        client.initialize()
        t_indexing = client.wait_state("indexing")
        # the build is running: its parser processes are up, and it has run 1.6-2.5 s
        deadline = time.monotonic() + 30
        while "parser" not in processes_marked(mark).values():
            assert time.monotonic() < deadline, "no parser process started"
            time.sleep(0.02)
        stop_at = t_indexing + random.uniform(*STOP_AFTER_S)
        time.sleep(max(0.0, stop_at - time.monotonic()))
        running = processes_marked(mark)
        assert client.state() == "indexing", "the build ended before it could be stopped"
        assert "parser" in running.values()
        t_stop = time.monotonic()
        if how == "shutdown-exit":
            rid = client.request("shutdown", None)
            answer = client.response(rid, timeout=GONE_WITHIN_S)
            t_answer = time.monotonic() - t_stop
            assert "error" not in answer
            client.notify("exit", None)
        else:
            assert client.proc.stdin is not None
            client.proc.stdin.close()
            t_answer = None
        gone = wait_gone(mark)  # the server, the parser processes and the resource tracker
        elapsed = time.monotonic() - t_stop
        record_property("stop_to_all_gone_s", round(elapsed, 3))
        print(f"\n[{mode}/{how}] {files} files; stopped {t_stop - t_indexing:.2f} s into the build "
              f"({len([k for k in running.values() if k == 'parser'])} parser process(es) running); "
              f"shutdown answered in {t_answer if t_answer is None else round(t_answer, 3)} s; "
              f"every process gone {elapsed:.3f} s after the stop; started {t_indexing - t_start:.2f} s "
              f"after initialize")
        assert gone <= GONE_WITHIN_S
        assert client.proc.wait(5) is not None
        assert "ready" not in [s for _, s in client.statuses], "the build ran on to the end"
        if mode != "extracting":
            assert integrity(root) == "ok"
            assert not list((root / ".specward").glob("walk-*.txt")), client.log.read_text()[-4000:]
        if mode == "linking":
            # the next start works from what the stopped one left, and finds what a cold one finds
            again = WorkspaceIndex(root, workers=2)
            again.build()
            assert findings(again) == reference(tmp_path_factory, FILES)
            again.facts.wait_stored(60)
    finally:
        client.close()
        kill_marked(mark)


# ---------------------------------------------------------------------------- in-process
def _build_in_thread(idx: WorkspaceIndex) -> tuple[threading.Thread, list]:
    outcome: list = []

    def run() -> None:
        try:
            idx.build()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            outcome.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, outcome


@pytest.mark.parametrize("cache", [True, False], ids=["linking", "extracting"])
def test_cancel_stops_a_build_at_once_and_the_next_start_works(tmp_path: Path, tmp_path_factory, monkeypatch,
                                                               cache: bool):
    root = make_workspace(tmp_path / "ws", 600)
    mark = uuid.uuid4().hex
    for key, value in slow_env(tmp_path, mark, parse_s=0.02, dumps_s=0.02).items():
        monkeypatch.setenv(key, value)
    idx = WorkspaceIndex(root, use_cache=cache, workers=2)
    building, outcome = _build_in_thread(idx)
    deadline = time.monotonic() + 30
    while "parser" not in processes_marked(mark).values():
        assert time.monotonic() < deadline and building.is_alive(), "no parser process started"
        time.sleep(0.02)
    time.sleep(1.0)
    assert building.is_alive()
    t0 = time.monotonic()
    idx.cancel()
    returned = time.monotonic() - t0
    building.join(GONE_WITHIN_S)
    stopped = time.monotonic() - t0
    assert not building.is_alive(), "the build did not stop"
    assert outcome and isinstance(outcome[0], BuildCancelled)
    gone = wait_gone(mark, exclude={os.getpid()}, kinds={"parser"})
    print(f"\n[cancel/{'linking' if cache else 'extracting'}] cancel() returned in {returned * 1000:.1f} ms; "
          f"the build raised {stopped:.3f} s after; parser processes gone {time.monotonic() - t0:.3f} s after")
    assert returned < 1.0 and gone <= GONE_WITHIN_S
    with pytest.raises(BuildCancelled):
        idx.build()  # a cancelled index stays cancelled
    if cache:
        assert integrity(root) == "ok"
        assert not list((root / ".specward").glob("walk-*.txt"))
        monkeypatch.delenv("PYTHONPATH")
        again = WorkspaceIndex(root, workers=2)
        again.build()
        assert findings(again) == reference(tmp_path_factory, 600)
        again.facts.wait_stored(60)


def test_cancel_during_the_flush_stops_it_and_leaves_a_consistent_cache(tmp_path: Path, tmp_path_factory, monkeypatch):
    """A cold start with the cache on: the build ends, then the parser processes encode
    their facts for the cache (slowed down here: 3 s or more); cancelling then ends them and the
    cache writer at once. The facts not written yet are missing, the link results (written
    after every fact) too: the next start parses those files again and finds the same."""
    root = make_workspace(tmp_path / "ws", 600)
    mark = uuid.uuid4().hex
    for key, value in slow_env(tmp_path, mark, dumps_s=0.01).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("SPECWARD_TEST_FLUSH_ROWS", "50")  # facts reach the cache 50 files at a time
    monkeypatch.setattr(parser_pool, "FLUSH_WAIT_S", 600.0)
    idx = WorkspaceIndex(root, workers=2)
    idx.build()
    assert idx.stats["linked_in_parsers"] == 601
    flushed = idx.facts._flushed
    assert flushed is not None and not flushed.is_set()
    time.sleep(1.5)  # some of the facts are stored by now
    t0 = time.monotonic()
    idx.cancel()
    assert flushed.wait(GONE_WITHIN_S), "the flush did not stop"
    stopped = time.monotonic() - t0
    writer = [t for t in threading.enumerate() if t.name == "specward-cache-writer"]
    for t in writer:
        t.join(GONE_WITHIN_S)
        assert not t.is_alive()
    gone = wait_gone(mark, exclude={os.getpid()}, kinds={"parser"})
    db = sqlite3.connect(root / ".specward/cache.sqlite")
    stored = db.execute("SELECT count(*) FROM facts").fetchone()[0]
    links = db.execute("SELECT count(*) FROM links").fetchone()[0]
    db.close()
    print(f"\n[cancel during flush] flush stopped {stopped:.3f} s after cancel(), parser processes gone "
          f"{time.monotonic() - t0:.3f} s after; {stored} of 601 files' facts stored, {links} link rows")
    assert gone <= GONE_WITHIN_S
    assert stored < 601 and links == 0
    assert integrity(root) == "ok"
    monkeypatch.delenv("PYTHONPATH")
    again = WorkspaceIndex(root, workers=2)
    again.build()
    assert again.stats["cached_files"] == stored
    assert findings(again) == reference(tmp_path_factory, 600)
    again.facts.wait_stored(60)
