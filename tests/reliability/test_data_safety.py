"""Data safety of the cache (``.specward/cache.sqlite``): ``kill -9`` in the middle of its
writes, a full disk, a read-only workspace, several servers and ``specward check``
processes on one workspace at once. After each, the cache is not corrupt (sqlite3
``PRAGMA integrity_check``) and a warm start finds what a cold one finds; and start-up
never stops: every run finishes and reports its findings (a cache that cannot be written
is bypassed, with a log line).

The workspace has enough files for parser processes, so that a cold start goes the way
that writes the most: the parser processes' facts reach the cache after the build, from
the cache-writer thread. ``specward check`` runs as a real process (``python -m
specward.server check``); a ``sitecustomize`` hook in it counts the cache's writes and,
when asked, kills the process with SIGKILL in the middle of one (between two rows of its
``executemany``), or tells the test, which kills it from outside."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from rsupport import scaled
from test_shutdown import RawClient, make_workspace, processes_marked, wait_gone

FILES = scaled(1500, 450)  # 400 or more: parser processes, linking ones on an empty cache
PHANTOM_FILES = (FILES + 19) // 20
RUN_TIMEOUT_S = 120.0  # a run that takes longer has stopped (they take ~2 s)

HOOK = """
import os, signal, sys
if os.environ.get("SPECWARD_TEST_WRITES") and '--multiprocessing-fork' not in sys.argv:
    from specward.server.engine import cache as _cache
    _log = os.environ["SPECWARD_TEST_WRITES"]
    _kill = os.environ.get("SPECWARD_TEST_KILL_AT", "")
    _kill_write, _kill_row = map(int, _kill.split(":")) if _kill else (0, 0)
    _count = [0]
    _write = _cache.FactsCache._write

    class _Rows(list):
        def __iter__(self):
            for i, row in enumerate(list.__iter__(self)):
                if i == _kill_row % len(self):
                    with open(_log, "a") as fh:
                        fh.write("killing\\n")
                    os.kill(os.getpid(), signal.SIGKILL)
                yield row

    def _counted(self, sql, rows):
        _count[0] += 1
        with open(_log, "a") as fh:
            fh.write(f"write {_count[0]} {len(rows)}\\n")
        if _count[0] == _kill_write and rows:
            rows = _Rows(rows)
        return _write(self, sql, rows)

    _cache.FactsCache._write = _counted
"""


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("pristine") / "ws", FILES)


@pytest.fixture(scope="module")
def reference(pristine: Path, tmp_path_factory) -> list:
    """What ``specward check --no-cache`` reports on the workspace."""
    ws = tmp_path_factory.mktemp("reference") / "ws"
    shutil.copytree(pristine, ws)
    run = check(ws, "--no-cache")
    assert run.returncode == 1 and not (ws / ".specward").exists()
    found = diagnostics(run)
    assert len({d[0] for d in found if d[4] == "phantom-api"}) == PHANTOM_FILES
    return found


@pytest.fixture
def ws(pristine: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(pristine, root)
    return root


def hook_env(tmp_path: Path, mark: str, writes: Path | None = None, kill_at: str | None = None) -> dict[str, str]:
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK)
    env = {**os.environ, "SPECWARD_TEST_MARK": mark,
           "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])}
    if writes is not None:
        env["SPECWARD_TEST_WRITES"] = str(writes)
    if kill_at is not None:
        env["SPECWARD_TEST_KILL_AT"] = kill_at
    return env


def start_check(root: Path, *args: str, env: dict | None = None, preexec_fn=None, cwd: Path | None = None,
                cmd: list[str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([*(cmd or []), sys.executable, "-m", "specward.server", "check", ".", "--format", "json",
                             *args], cwd=cwd or root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec_fn)


def finish(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"a run did not finish in {RUN_TIMEOUT_S:.0f} s: {err[-2000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def check(root: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return finish(start_check(root, *args, **kw))


def diagnostics(run: subprocess.CompletedProcess) -> list:
    assert run.returncode == 1, f"exit {run.returncode}: {run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr, run.stderr[-3000:]  # (a parser process's too)
    report = json.loads(run.stdout)
    return sorted((d["file"], d["line"], d["column"], d["severity"], d["code"], d["message"])
                  for d in report["diagnostics"])


def integrity(db_path: Path) -> str:
    db = sqlite3.connect(db_path)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def rows(db_path: Path) -> tuple[int, int]:
    db = sqlite3.connect(db_path)
    try:
        return (db.execute("SELECT count(*) FROM facts").fetchone()[0],
                db.execute("SELECT count(*) FROM links").fetchone()[0])
    finally:
        db.close()


def _mount(*args: str) -> bool:
    """``mount`` (False when not permitted; SPECWARD_TEST_NO_MOUNT=1 pretends so, to run
    the other way)."""
    if os.environ.get("SPECWARD_TEST_NO_MOUNT") == "1":
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


# ---------------------------------------------------------------------------- kill -9
def test_kill_9_during_cache_writes_never_corrupts_the_cache(ws: Path, tmp_path: Path, reference: list,
                                                            record_property):
    """Runs killed with SIGKILL in the middle of a cache write (from inside, between two
    rows of a transaction, or from outside, just after a write began), each starting from
    what the killed one before it left (sometimes from nothing). The cache passes the
    integrity check after every kill, and every run that is not killed reports exactly
    the findings of a run without a cache."""
    rnd = random.Random(int(os.environ.get("SPECWARD_TEST_SEED", "0")) or None)
    iterations = scaled(40, 10)
    db = ws / ".specward/cache.sqlite"
    killed_inside = killed_outside = completed = 0
    orphan_s: list[float] = []
    previous_completed = True
    for i in range(iterations):
        if previous_completed or i % 4 == 0:
            # from nothing (a complete cache would leave nothing to write), else from what
            # the kill before left
            shutil.rmtree(ws / ".specward", ignore_errors=True)
        writes = tmp_path / f"writes-{i}.txt"
        mark = uuid.uuid4().hex
        write_no = rnd.randint(1, 2 if i % 2 == 0 else 3)
        inside = i % 2 == 0
        env = hook_env(tmp_path, mark, writes, f"{write_no}:{rnd.randint(0, 511)}" if inside else None)
        proc = start_check(ws, env=env)
        if not inside:  # kill it from outside once its write_no-th write has begun
            deadline = time.monotonic() + RUN_TIMEOUT_S
            while proc.poll() is None and time.monotonic() < deadline:
                lines = writes.read_text().splitlines() if writes.exists() else []
                if len(lines) >= write_no:
                    time.sleep(rnd.uniform(0, 0.02))
                    proc.send_signal(signal.SIGKILL)
                    break
                time.sleep(0.002)
        run = finish(proc)
        previous_completed = run.returncode != -signal.SIGKILL
        if run.returncode == -signal.SIGKILL:
            if inside:
                killed_inside += 1
            else:
                killed_outside += 1
            # its parser processes notice that it is gone and end
            orphan_s.append(wait_gone(mark, kinds={"parser", "tracker"}, timeout=20))
        else:
            completed += 1
            assert diagnostics(run) == reference, f"run {i} (from a cache a kill left) found something else"
        if db.exists():
            assert integrity(db) == "ok", f"the cache is corrupt after run {i}"
    record_property("kills", killed_inside + killed_outside)
    # after all that, a start without kill fills the cache, and a warm start agrees
    final = check(ws)
    assert diagnostics(final) == reference
    assert integrity(db) == "ok" and rows(db)[0] == FILES + 1
    warm = check(ws)
    assert diagnostics(warm) == reference
    print(f"\n[kill -9] {iterations} runs: {killed_inside} killed inside a write transaction, {killed_outside} "
          f"from outside during a write, {completed} not killed (the write chosen did not happen) and "
          f"correct; parser processes of a killed run gone after "
          f"{max(orphan_s) if orphan_s else 0:.2f} s at most; the cache passed every integrity check")
    assert killed_inside + killed_outside >= iterations // 2


# ---------------------------------------------------------------------------- a full disk
def _fill(folder: Path, leave: int) -> None:
    """Fill the file system of ``folder`` up to ``leave`` free bytes."""
    with open(folder / "filler", "wb") as fh:
        with contextlib.suppress(OSError):
            while True:
                st = os.statvfs(folder)
                free = st.f_bavail * st.f_frsize
                if free <= leave:
                    break
                fh.write(b"\0" * min(free - leave, 1 << 16))
                fh.flush()


def _file_size_limit(limit: int):
    """preexec_fn: files written beyond ``limit`` bytes fail with EFBIG (not SIGXFSZ)."""
    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_files


@pytest.mark.parametrize("when", ["full-from-the-start", "fills-up-while-writing"])
def test_a_full_disk_never_stops_indexing(ws: Path, tmp_path: Path, reference: list, when: str, record_property):
    """The cache's folder is a 1 MB tmpfs (the facts of the workspace take more, with the
    WAL): full before the start, or filling up in the middle of the writes. Where mounting
    is not permitted, the file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with
    EFBIG) plays the full disk. Either way the run reports every finding and says, once,
    that the cache cannot be written; the cache is not corrupt, and once there is room
    again, the next start fills it and a warm start agrees."""
    folder = ws / ".specward"
    folder.mkdir()
    mounted = _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder))
    method = "tmpfs size=1m" if mounted else "RLIMIT_FSIZE"
    record_property("full_disk_method", method)
    try:
        preexec = None
        if mounted:
            if when == "full-from-the-start":
                _fill(folder, 0)
        else:
            preexec = _file_size_limit(0 if when == "full-from-the-start" else 256 * 1024)
        t0 = time.monotonic()
        run = check(ws, preexec_fn=preexec)
        took = time.monotonic() - t0
        assert diagnostics(run) == reference, run.stderr[-3000:]
        said = [line for line in run.stderr.splitlines() if "cache" in line]
        assert said, run.stderr[-3000:]
        assert len(said) <= 3, said  # said once (or so), not once per write
        db = folder / "cache.sqlite"
        state = "no cache file"
        if db.exists() and db.stat().st_size:
            assert integrity(db) == "ok"
            state = f"{rows(db)[0]} facts rows kept, integrity ok"
        print(f"\n[full disk: {method}, {when}] the run finished in {took:.1f} s with every finding; "
              f"{state}; it said: {said[0].split('specward: ')[-1][:160]}")
        # room again: the next start fills the cache, a warm one agrees
        if mounted:
            (folder / "filler").unlink(missing_ok=True)
            assert _mount("-o", "remount,size=64m", str(folder))
        again = check(ws)
        assert diagnostics(again) == reference
        assert integrity(folder / "cache.sqlite") == "ok" and rows(folder / "cache.sqlite")[0] == FILES + 1
        assert diagnostics(check(ws)) == reference
    finally:
        if mounted:
            _umount(folder)


# ---------------------------------------------------------------------------- read-only
def _read_only_view(ws: Path, view: Path) -> bool:
    """A read-only bind mount of ``ws`` at ``view`` (False when mounting is not permitted)."""
    view.mkdir()
    if not _mount("--bind", str(ws), str(view)):
        return False
    if not _mount("-o", "remount,ro,bind", str(view)):
        _umount(view)
        return False
    return True


NO_CAPABILITIES = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]


def _write_bits(root: Path, on: bool) -> None:
    for p in [root, *root.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod(mode | 0o200 if on else mode & ~0o222)


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize("cache", ["no-cache-yet", "cache-from-before"])
def test_a_read_only_workspace_is_indexed_and_left_untouched(ws: Path, tmp_path: Path, reference: list, cache: str,
                                                             record_property):
    """The workspace is mounted read-only (root ignores file modes: a read-only bind
    mount). Where mounting is not permitted, the run has none of root's capabilities
    (``setpriv``) and the workspace no write bits. Either way it reports every finding, logs that the cache is
    not written, and writes nothing (a cache from before is read when it can be)."""
    if cache == "cache-from-before":
        assert diagnostics(check(ws)) == reference  # a cache
        for i in range(0, FILES, 10):  # and files changed since (no finding changes): facts to write
            f = ws / f"src/d{i // 100:02d}/f{i:04d}.ts"
            f.write_text(f.read_text() + "// changed\n")
    before = _tree_digest(ws)
    view = tmp_path / "view"
    mounted = _read_only_view(ws, view)
    try:
        prefix: list[str] = []
        if mounted:
            method, target = "read-only bind mount", view
        else:
            # root without its capabilities (CAP_DAC_OVERRIDE above all) obeys file modes: the
            # workspace loses its write bits. (An unprivileged user, os.setuid, cannot run
            # this interpreter here: it lives under /root, mode 700; neither can it read the
            # test's temporary folders.)
            view.rmdir()
            method, target, prefix = "no capabilities (setpriv), no write bits", ws, NO_CAPABILITIES
            if not shutil.which("setpriv") or subprocess.run(
                    [*prefix, sys.executable, "-c", "import specward.server.engine.index"], capture_output=True).returncode:
                pytest.skip("cannot mount here, nor drop root's capabilities")
            _write_bits(ws, False)
        record_property("read_only_method", method)
        run = check(target, cmd=prefix)
        assert diagnostics(run) == reference, run.stderr[-3000:]
        said = [line for line in run.stderr.splitlines() if "cache" in line]
        assert said, run.stderr[-3000:]
        print(f"\n[read-only: {method}, {cache}] every finding reported; it said: "
              f"{said[0].split('specward: ')[-1][:160]}")
    finally:
        if mounted:
            _umount(view)
        else:
            _write_bits(ws, True)
    assert _tree_digest(ws) == before  # nothing written, the old cache unchanged
    if cache == "cache-from-before":
        assert integrity(ws / ".specward/cache.sqlite") == "ok"


# ---------------------------------------------------------------------------- concurrency
def test_concurrent_servers_and_checks_share_one_cache(ws: Path, tmp_path: Path, reference: list, record_property):
    """Language servers and ``specward check`` processes started together on one
    workspace, first with no cache (they all write it at once), then with a warm one after
    a few files changed (some read while others write). All finish and report the same;
    the cache stays intact and a warm start agrees."""
    checks, servers = scaled(4, 2), scaled(3, 2)
    db = ws / ".specward/cache.sqlite"
    expected_phantom_uris = {(ws / d[0]).resolve().as_uri() for d in reference if d[4] == "phantom-api"}
    timings = []
    for round_ in ("cold", "warm after edits"):
        if round_ != "cold":  # content changes that change no finding: those rows are rewritten
            for i in range(0, FILES, 7):
                f = ws / f"src/d{i // 100:02d}/f{i:04d}.ts"
                f.write_text(f.read_text() + f"// edited {round_}\n")
        mark = uuid.uuid4().hex
        env = {**os.environ, "SPECWARD_TEST_MARK": mark}
        t0 = time.monotonic()
        clients = [RawClient(ws, env, tmp_path / f"server-{round_}-{k}.log") for k in range(servers)]
        runs = [start_check(ws, env=env) for _ in range(checks)]
        try:
            for c in clients:
                c.initialize()
            results = [finish(p) for p in runs]
            for r in results:
                assert diagnostics(r) == reference
            for c in clients:
                deadline = time.monotonic() + RUN_TIMEOUT_S
                while not c.published:
                    assert time.monotonic() < deadline, f"a server never got ready: {c.log.read_text()[-3000:]}"
                    assert c.proc.poll() is None, f"a server exited: {c.log.read_text()[-3000:]}"
                    time.sleep(0.05)
                assert c.state() == "ready"
                phantom = {uri for uri, diags in c.diagnostics.items()
                           if any(d.get("code") == "phantom-api" for d in diags)}
                assert phantom == expected_phantom_uris
            took = time.monotonic() - t0
            for c in clients:
                c.response(c.request("shutdown", None))
                c.notify("exit", None)
            for c in clients:
                c.proc.wait(30)
            wait_gone(mark, kinds={"server", "parser", "tracker"}, timeout=30)
        finally:
            for c in clients:
                c.close()
        assert integrity(db) == "ok"
        timings.append(f"{round_}: {checks} checks + {servers} servers all done in {took:.1f} s")
        assert not processes_marked(mark)
    final = check(ws)
    assert diagnostics(final) == reference and integrity(db) == "ok"
    assert rows(db)[0] == FILES + 1
    print("\n[concurrent] " + "; ".join(timings) + "; the cache intact, a warm start agrees")


# ---------------------------------------------------------------------------- in-process
def test_caches_opened_together_on_a_new_file_lose_nothing(tmp_path: Path):
    """Caches opened at the same moment on a workspace without one (servers and checks
    starting together), each then writing its own rows: the file is created once, nothing
    is dropped for being busy, and every row written is there."""
    import threading

    from specward.server.engine.cache import FactsCache

    rounds, openers = scaled(40, 12), 6
    lost = []
    for r in range(rounds):
        root = tmp_path / f"ws{r}"
        root.mkdir()
        barrier = threading.Barrier(openers)
        stored: list[bool] = []

        def open_and_write(k: int) -> None:
            barrier.wait()
            cache = FactsCache(root, "v1")
            stored.append(cache.store_encoded([(f"f{k}-{i}.ts", "d", b"x" * 100) for i in range(50)]))
            cache.close()

        threads = [threading.Thread(target=open_and_write, args=(k,)) for k in range(openers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        db = root / ".specward/cache.sqlite"
        assert integrity(db) == "ok"
        count = rows(db)[0]
        if count != 50 * stored.count(True) or not all(stored):
            lost.append((r, count, stored.count(True)))
    assert not lost, f"(round, rows found, writers that succeeded): {lost}"


UNWRITABLE = """
import json, logging, sys
from pathlib import Path
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger().addHandler(Keep())
logging.getLogger().setLevel(logging.INFO)
from specward.server.engine.index import WorkspaceIndex
idx = WorkspaceIndex(Path(sys.argv[1]), workers=1)
idx.build()
kept = len(idx.facts._live)
for rel in list(idx.digests):  # what an edit that re-links every file reads
    assert idx.facts.get(rel) is not None
print(json.dumps({"kept_in_memory": kept, "files": len(idx.digests), "findings": len(idx.all_findings()),
                  "re_extracted": sum("re-extracting" in m for m in records),
                  "cache_lines": [m for m in records if "cache" in m]}))
"""


def test_an_unwritable_cache_is_bypassed_and_the_facts_stay_in_memory(ws: Path, reference: list, record_property):
    """The cache opens but cannot be written (a full disk: the tmpfs, or the file-size
    limit): the index says so once, keeps the facts it could not store in memory instead of dropping
    them, so that reading them later (an edit re-linking files) neither re-extracts every
    file from disk nor logs a line per file."""
    folder = ws / ".specward"
    folder.mkdir()
    mounted = _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder))
    try:
        # room for the cache to be created, not for the facts: writes fail once it is open
        preexec = None
        if mounted:
            _fill(folder, 96 * 1024)
        else:
            preexec = _file_size_limit(64 * 1024)
        run = subprocess.run([sys.executable, "-c", UNWRITABLE, str(ws)], capture_output=True, text=True,
                             preexec_fn=preexec, timeout=RUN_TIMEOUT_S)
        assert run.returncode == 0, run.stderr[-3000:]
        out = json.loads(run.stdout)
        print(f"\n[unwritable cache, {'tmpfs' if mounted else 'RLIMIT_FSIZE'}] {out['kept_in_memory']} of "
              f"{out['files']} files' facts kept in memory, {out['re_extracted']} re-extracted; "
              f"{len(out['cache_lines'])} log line(s) about the cache, the first: {out['cache_lines'][:1]}")
        assert out["findings"] == len(reference)
        assert out["re_extracted"] == 0
        assert 1 <= len(out["cache_lines"]) <= 2, out["cache_lines"][:5]
    finally:
        if mounted:
            _umount(folder)
