"""A hostile workspace: symlink loops and links to ``/``, file and folder links out of the
root, dangling links, named pipes (one named ``.gitignore``), binary and non-UTF-8 files
and file names, a 50 MB file, one folder of many files, a tree thousands of folders deep.

Indexing it (the real ``specward check`` in a subprocess, and ``WorkspaceIndex``) must end,
in bounded memory, read nothing outside the workspace (every ``open`` of the check's
processes is recorded by an audit hook) and say what it skipped. Sizes: ``scaled(full,
reduced)``; docs/reliability.md has the figures at both."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from rsupport import scaled

from specward.server import cli
from specward.server.engine.config import Settings
from specward.server.engine.index import WorkspaceIndex
from specward.server.engine.reading import read_file
from specward.server.engine.watcher import DiskWatcher
from specward.server.engine.workspace import Workspace

MANY = scaled(100_000, 5_000)  # files in one folder
DEEP = scaled(6_000, 1_500)  # nested folders: past Python's recursion limit either way
BIG = 50 * 1024 * 1024
# generous: the check takes seconds here; this only catches a hang
LIVENESS_S = float(os.environ.get("SPECWARD_LIVENESS_S", "300"))
DEFAULT_MAX_DEPTH = 100  # the documented default (docs/configuration.md)
RSS_BOUND_MB = 1_500  # generous: measured ~150 MB reduced, see docs/reliability.md

OPENAPI = """openapi: 3.0.0
info: {title: t, version: '1'}
paths:
  /api/items:
    get: {responses: {'200': {description: ok}}}
"""
# what a contract outside the workspace would declare, were it trusted
OUTSIDE_OPENAPI = OPENAPI.replace("/api/items", "/api/secret")


# ---------------------------------------------------------------------- building trees
def make_chain(top: Path, levels: int, leaf: str = "deep.ts", text: bytes = b"fetch('/api/deep');\n") -> None:
    """``top/d/d/.../d/leaf``, ``levels`` folders deep, built with folder descriptors (a
    6,000-level path is longer than PATH_MAX; ``os.makedirs`` recurses once per level)."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            try:
                os.mkdir("d", dir_fd=fd)
            except FileExistsError:
                pass
            nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        f = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(f, text)
        os.close(f)
    finally:
        os.close(fd)


def remove_chain(top: Path) -> None:
    """Remove what ``make_chain`` made, without recursion and with short paths: the
    second level moves up into the first's place, one level at a time (``shutil.rmtree``
    recurses once per level too)."""
    top = os.fsencode(top)
    d, tmp = os.path.join(top, b"d"), os.path.join(top, b"d.tmp")
    while os.path.isdir(d):
        for entry in os.scandir(d):
            if entry.name != b"d":
                os.unlink(entry.path) if not entry.is_dir(follow_symlinks=False) else shutil.rmtree(entry.path)
        inner = os.path.join(d, b"d")
        if os.path.isdir(inner):
            os.rename(inner, tmp)
            os.rmdir(d)
            os.rename(tmp, d)
        else:
            os.rmdir(d)


def build_hostile(base: Path) -> tuple[Path, Path]:
    """(workspace, the folder outside it that links point to)."""
    outside = base / "outside"
    (outside / "lib").mkdir(parents=True)
    (outside / "secret.ts").write_text("fetch('/api/leaked');\n")
    (outside / "openapi.yaml").write_text(OUTSIDE_OPENAPI)
    (outside / "lib" / "ext.ts").write_text("fetch('/api/external');\n")
    ws = base / "ws"
    src = ws / "web" / "src"
    src.mkdir(parents=True)
    (ws / "specward.toml").write_text("")
    (ws / "api").mkdir()
    (ws / "api" / "openapi.yaml").write_text(OPENAPI)
    (src / "app.ts").write_text("fetch('/api/items');\nfetch('/api/secret');\n")
    # links out of the workspace: files, a contract, a folder, the filesystem root
    (src / "leak.ts").symlink_to(outside / "secret.ts")
    (src / "passwd.ts").symlink_to("/etc/passwd")
    (ws / "specs").mkdir()
    (ws / "specs" / "openapi.yaml").symlink_to(outside / "openapi.yaml")
    (ws / "web" / "ext").symlink_to(outside / "lib", target_is_directory=True)
    (ws / "web" / "rootfs").symlink_to("/", target_is_directory=True)
    # loops, and a link inside (followed once)
    (ws / "web" / "loop").symlink_to("..", target_is_directory=True)
    (ws / "web" / "self").symlink_to("self")
    (src / "alias.ts").symlink_to("app.ts")
    # dangling
    (src / "gone.ts").symlink_to(ws / "nowhere.ts")
    # named pipes: a source file's name, a contract's name, and an ignore file
    os.mkfifo(src / "pipe.ts")
    os.mkfifo(ws / "api" / "pipe-openapi.yaml")
    (ws / "piped").mkdir()
    os.mkfifo(ws / "piped" / ".gitignore")
    (ws / "piped" / "ok.ts").write_text("fetch('/api/items');\n")
    # binary, not UTF-8, a non-UTF-8 name (with a phantom call in it), 50 MB
    (src / "blob.ts").write_bytes(b"\0\1\2" * 1000)
    (src / "latin1.ts").write_bytes(b"// caf\xe9\nfetch('/api/items');\n")
    with open(os.path.join(os.fsencode(src), b"\xff-name.ts"), "wb") as fh:
        fh.write(b"fetch('/api/nope');\n")
    with open(src / "huge.js", "wb") as fh:
        chunk = b"fetch('/api/items');\n" * 4096
        while fh.tell() < BIG:
            fh.write(chunk)
    # one folder of many files, and a tree far deeper than any limit
    many = ws / "many"
    many.mkdir()
    for i in range(MANY):
        (many / f"f{i}.ts").write_text(f"export const f{i} = () => fetch('/api/items');\n")
    make_chain(ws / "deep", DEEP)
    return ws, outside


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("hostile")
    ws, outside = build_hostile(base)
    yield ws, outside
    remove_chain(ws / "deep")  # pytest's own clean-up would recurse into it


# ---------------------------------------------------------------------- auditing a real check
SITECUSTOMIZE = textwrap.dedent('''
    import json, os, sys
    _log = os.environ.get("SPECWARD_AUDIT_DIR")
    if _log:
        _out = open(os.path.join(_log, f"open-{os.getpid()}.jsonl"), "a", buffering=1)

        def _hook(event, args, _out=_out, _abspath=os.path.abspath, _fsdecode=os.fsdecode):
            if event == "open" and args and isinstance(args[0], (str, bytes)):
                path = args[0] if isinstance(args[0], str) else _fsdecode(args[0])
                _out.write(json.dumps(_abspath(path)) + "\\n")

        sys.addaudithook(_hook)

    # this module shadows any other sitecustomize on the path: run that one too
    _here = os.path.dirname(os.path.abspath(__file__))
    for _entry in sys.path:
        _other = os.path.join(_entry or ".", "sitecustomize.py")
        if os.path.abspath(_entry or ".") != _here and os.path.isfile(_other):
            exec(compile(open(_other).read(), _other, "exec"), {"__name__": "sitecustomize", "__file__": _other})
            break
''')


def run_audited(args: list[str], cwd: Path, audit: Path) -> tuple[int, str, str, float, float]:
    """Run ``specward ARGS`` with every ``open`` of its processes (parser processes
    included: they import sitecustomize too) logged in ``audit``; (exit code, stdout,
    stderr, seconds, peak RSS in MB of the process tree)."""
    audit.mkdir()
    (audit / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(audit), os.environ.get("PYTHONPATH", "")]),
           "SPECWARD_AUDIT_DIR": str(audit)}
    out, err = audit / "stdout", audit / "stderr"
    t0 = time.monotonic()
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "specward.server", *args], cwd=cwd, env=env,
                                stdout=o, stderr=e, start_new_session=True)
        killer = threading.Timer(LIVENESS_S, lambda: os.killpg(proc.pid, signal.SIGKILL))
        killer.start()
        try:
            # wait4: the child's peak RSS, its waited-for descendants (the parser processes) included
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - t0
    return (proc.returncode, out.read_bytes().decode("utf-8", "replace"), err.read_bytes().decode("utf-8", "replace"),
            seconds, usage.ru_maxrss / 1024)


def opened_paths(audit: Path) -> set[str]:
    paths: set[str] = set()
    for log in audit.glob("open-*.jsonl"):
        for line in log.read_text().splitlines():
            paths.add(json.loads(line))
    return paths


def installation_paths() -> list[str]:
    import site

    import specward.analyzers
    import specward.server

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
             *specward.server.__path__, *specward.analyzers.__path__,
             *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))}
    return sorted(os.path.realpath(r) for r in roots)


SYSTEM_OK = ("/proc/", "/sys/", "/dev/null", "/dev/urandom", "/dev/shm/")


def outside_reads(paths: set[str], ws: Path, audit: Path) -> list[str]:
    allowed = [os.path.realpath(ws), os.path.realpath(audit), *installation_paths()]
    bad = []
    for p in sorted(paths):
        real = os.path.realpath(p)
        if any(real == a or real.startswith(a + os.sep) for a in allowed):
            continue
        if any(p.startswith(s) or real.startswith(s) for s in SYSTEM_OK):
            continue
        bad.append(p)
    return bad


def test_check_of_a_hostile_workspace_ends_bounded_reads_nothing_outside_and_says_what_it_skipped(
        hostile, tmp_path: Path):
    ws, outside = hostile
    shutil.rmtree(ws / ".specward", ignore_errors=True)  # a cold start: parser processes that link
    code, out, err, seconds, rss_mb = run_audited(["check", "."], ws, tmp_path / "audit")
    print(f"hostile check: {seconds:.1f} s, peak RSS {rss_mb:.0f} MB, {MANY:,} files in one folder, "
          f"{DEEP:,} levels, exit {code}\n{out[-3000:]}\n{err[-2000:]}")
    assert code == 1, (code, err)  # the phantom call in the non-UTF-8-named file: findings, not a crash
    assert "internal error" not in err and "walk-" not in err
    assert rss_mb < RSS_BOUND_MB

    # nothing outside the workspace was opened, by the check or its parser processes
    opened = opened_paths(tmp_path / "audit")
    assert any(p.startswith(str(ws)) for p in opened)  # the hook did record
    assert len(list((tmp_path / "audit").glob("open-*.jsonl"))) >= 2  # parser processes logged too
    assert outside_reads(opened, ws, tmp_path / "audit") == []
    assert not any(p.startswith(str(outside)) for p in opened)

    # what it skipped, and why
    lines = out.splitlines()

    def finding(path: str) -> str:
        hits = [ln for ln in lines if ln.startswith(path + ":")]
        assert hits, f"no finding on {path}"
        return hits[0]

    assert "information[file-skipped] a symlink to" in finding("web/src/leak.ts")
    assert "/etc/passwd, outside the workspace: not read" in finding("web/src/passwd.ts")
    assert "outside the workspace" in finding("specs/openapi.yaml")
    assert "not followed" in finding("web/ext") and "not followed" in finding("web/rootfs")
    deep_folder = "deep/" + "/".join(["d"] * DEFAULT_MAX_DEPTH)
    assert f"more than {DEFAULT_MAX_DEPTH} levels below the workspace root" in finding(deep_folder)
    # the non-UTF-8 name, escaped; its phantom call reported; the outside contract not trusted
    assert any(ln.startswith("web/src/\\xff-name.ts:1:") and "error[phantom-api] GET /api/nope" in ln for ln in lines)
    assert any(ln.startswith("web/src/app.ts:2:") and "error[phantom-api] GET /api/secret" in ln for ln in lines)
    assert not any("/api/leaked" in ln or "/api/external" in ln for ln in lines)
    skipped = [ln for ln in err.splitlines() if "skipped" in ln]
    assert len(skipped) == 1
    assert skipped[0].startswith("specward: skipped 3 file(s): ")
    for why in ("web/src/blob.ts (binary file)", "web/src/latin1.ts (not UTF-8", "web/src/huge.js (larger than"):
        assert why in skipped[0], why
    assert "not a regular file" in finding("web/src/pipe.ts")
    assert not list((ws / ".specward").glob("walk-*.txt"))


def test_index_of_a_hostile_workspace(hostile):
    ws, outside = hostile
    idx = WorkspaceIndex(ws, use_cache=False)
    done = threading.Event()
    failure: list[BaseException] = []

    def build() -> None:
        try:
            idx.build()
        except BaseException as exc:  # noqa: BLE001
            failure.append(exc)
        finally:
            done.set()

    t0 = time.monotonic()
    threading.Thread(target=build, daemon=True).start()
    assert done.wait(LIVENESS_S), "the build hangs"
    assert not failure, failure
    print(f"hostile index: {time.monotonic() - t0:.1f} s, {len(idx.facts):,} files")
    assert len(idx.facts) >= MANY
    for rel in ("web/src/leak.ts", "web/src/passwd.ts", "web/ext/ext.ts", "web/src/gone.ts"):
        assert rel not in idx.facts
    assert set(idx.contracts) == {"api/openapi.yaml"}
    assert {"web/src/leak.ts", "web/src/passwd.ts", "specs/openapi.yaml", "web/ext", "web/rootfs"} <= set(idx.ws.skipped)
    assert idx.ws.skipped["web/src/pipe.ts"].startswith("not a regular file")
    assert idx.ws.skipped["api/pipe-openapi.yaml"].startswith("not a regular file")
    assert "web/src/gone.ts" not in idx.ws.skipped  # a dangling link is nothing to read
    assert idx.skipped["web/src/blob.ts"] == "binary file"
    assert idx.skipped["web/src/huge.js"].startswith("larger than")
    assert "web/src/\udcff-name.ts" in idx.facts
    assert "piped/ok.ts" in idx.facts  # the piped .gitignore was not waited on
    assert not any(rel.startswith(("web/loop/", "web/self")) for rel in idx.facts)
    statuses = {s.call.template: s.status for s in idx.all_statuses()}
    assert statuses["/api/secret"] == "phantom"  # the linked outside contract is not used


# ---------------------------------------------------------------------- 1. deep trees
def test_walk_stops_at_max_depth_with_one_finding_and_goes_deeper_only_when_asked(tmp_path: Path):
    make_chain(tmp_path / "deep", DEEP)
    (tmp_path / "top.ts").write_text("fetch('/a');\n")
    try:
        ws = Workspace(tmp_path, Settings())
        sources, _ = ws.walk()
        assert sources == ["top.ts"]
        folder = "deep/" + "/".join(["d"] * DEFAULT_MAX_DEPTH)
        assert list(ws.skipped) == [folder]
        [f] = ws.skipped_findings()
        assert (f.code, f.severity, f.file) == ("file-skipped", "information", folder)
        assert "more than 100 levels below the workspace root: not walked (the max_depth setting)" in f.message
        assert ws.is_excluded(folder + "/d/x.ts")  # what the watcher reports from there is ignored too
    finally:
        remove_chain(tmp_path / "deep")
    # the walk itself has no depth limit of its own (no recursion): 1,500 levels, past
    # Python's recursion limit and within PATH_MAX (the walk lists folders by their path)
    make_chain(tmp_path / "w" / "deep", 1_500)
    try:
        deeper = Workspace(tmp_path / "w", Settings(max_depth=1_501))
        sources, _ = deeper.walk()
        assert sources == ["deep/" + "/".join(["d"] * 1_500) + "/deep.ts"]
        assert deeper.skipped == {}
    finally:
        remove_chain(tmp_path / "w" / "deep")


def test_max_depth_is_a_setting(tmp_path: Path):
    (tmp_path / "specward.toml").write_text("max_depth = 2\n")
    for rel in ("a/b/ok.ts", "a/b/c/no.ts"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("fetch('/x');\n")
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    assert idx.settings.max_depth == 2
    assert "a/b/ok.ts" in idx.facts and "a/b/c/no.ts" not in idx.facts
    assert list(idx.ws.skipped) == ["a/b/c"]
    assert not idx.tracked("a/b/c/no.ts")


@pytest.mark.parametrize("polling", [False, True], ids=["inotify", "polling"])
async def test_watcher_starts_and_delivers_on_a_tree_1000_folders_deep(tmp_path: Path, polling: bool):
    make_chain(tmp_path / "deep", scaled(6_000, 1_000))
    (tmp_path / "src").mkdir()
    loop = asyncio.get_running_loop()
    seen: set[str] = set()
    watcher = DiskWatcher(tmp_path, loop, lambda files, dirs: seen.update(files), debounce=0.05, polling=polling)
    try:
        mode = watcher.start()  # raised RecursionError (both modes): the server never indexed
        assert mode == "polling"  # inotify would walk the whole tree recursively
        await asyncio.sleep(2.5)  # the first poll's snapshot
        target = tmp_path / "src" / "late.ts"
        target.write_text("fetch('/x');\n")
        too_deep = tmp_path / "deep" / Path(*["d"] * (DEFAULT_MAX_DEPTH + 1)) / "no.ts"
        too_deep.write_text("x")
        deadline = time.monotonic() + 20
        while str(target) not in seen and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert str(target) in seen
        assert str(too_deep) not in seen
    finally:
        watcher.stop()
        remove_chain(tmp_path / "deep")


async def test_polling_does_not_follow_a_link_to_the_filesystem_root(tmp_path: Path):
    (tmp_path / "rootfs").symlink_to("/", target_is_directory=True)
    (tmp_path / "loop").symlink_to(".", target_is_directory=True)
    loop = asyncio.get_running_loop()
    watcher = DiskWatcher(tmp_path, loop, lambda files, dirs: None, polling=True)
    t0 = time.monotonic()
    try:
        assert watcher.start() == "polling"
        snapshot = watcher.observer.emitters.copy().pop()._snapshot
        assert len(snapshot.paths) <= 3, sorted(snapshot.paths)[:10]  # the root and the two links
    finally:
        watcher.stop()
    print(f"polling start: {time.monotonic() - t0:.2f} s")


# ---------------------------------------------------------------------- 2. file links out of the root
def test_file_links_out_of_the_workspace_are_refused_by_every_reader(tmp_path: Path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "web" / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.ts").write_text("fetch('/api/leaked');\n")
    (outside / "openapi.yaml").write_text(OUTSIDE_OPENAPI)
    (ws / "web" / "src" / "leak.ts").symlink_to(outside / "secret.ts")
    (ws / "web" / "src" / "passwd.ts").symlink_to("/etc/passwd")
    (ws / "web" / "src" / "inside.ts").symlink_to("app.ts")
    (ws / "web" / "src" / "app.ts").write_text("fetch('/api/secret');\n")
    (ws / "openapi.yaml").symlink_to(outside / "openapi.yaml")
    (ws / "tsconfig.json").symlink_to(outside / "secret.ts")

    w = Workspace(ws, Settings())
    sources, contracts = w.walk()
    assert sources == ["web/src/app.ts", "web/src/inside.ts"]
    assert contracts == []
    assert w.configs == []
    assert set(w.skipped) == {"web/src/leak.ts", "web/src/passwd.ts", "openapi.yaml", "tsconfig.json"}
    assert all(f.code == "file-skipped" for f in w.skipped_findings())
    # the readers refuse on their own (the editor's didOpen, the watcher, parser processes)
    for rel in ("web/src/leak.ts", "web/src/passwd.ts", "openapi.yaml"):
        ft = w.read(rel)
        assert ft.text is None and "outside the workspace: not read" in (ft.reason or "")
        assert read_file(str(ws), rel, 1_000_000).text is None
    assert read_file(str(ws), "../outside/secret.ts", 1_000_000).text is None
    assert w.read("web/src/inside.ts").text == "fetch('/api/secret');\n"

    from specward.analyzers.resolve import ResolverConfig
    from specward.server.engine.parsing import _Linking

    linking = _Linking(str(ws), ["web/src/leak.ts", "web/src/app.ts"], 1_000_000, None, ResolverConfig.build({}))
    assert linking.lookup("web/src/leak.ts") is None
    assert linking.lookup("web/src/app.ts") is not None

    # named by the user (--contract, the editor's setting), a contract may be anywhere,
    # through a link too; named by the workspace's own configuration, not outside it
    # (and its repository: there is none here)
    mine = Workspace(ws, Settings(contracts=["openapi.yaml", str(outside / "openapi.yaml")]))
    assert mine.walk()[1] == []
    assert set(mine.skipped) >= {"openapi.yaml", (outside / "openapi.yaml").as_posix()}
    named = Workspace(ws, Settings(), contract_globs=["openapi.yaml", str(outside / "openapi.yaml")])
    _, contracts = named.walk()
    assert contracts == [(outside / "openapi.yaml").as_posix(), "openapi.yaml"]
    assert named.read("openapi.yaml").text == OUTSIDE_OPENAPI
    assert named.read((outside / "openapi.yaml").as_posix()).text == OUTSIDE_OPENAPI


def test_check_reports_refused_links_and_does_not_use_them(tmp_path: Path, capsys, monkeypatch):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "web" / "src").mkdir(parents=True)
    outside.mkdir()
    (ws / "specward.toml").write_text("")
    (ws / "api.dsl.json").write_text('{"version": "1.0", "feature": "f", "endpoints": [{"id": "e", "method": "GET", '
                                     '"path": "/api/items", "description": "d", "successStatus": 200}]}\n')
    (outside / "secret.ts").write_text("fetch('/api/leaked');\n")
    (outside / "openapi.yaml").write_text(OUTSIDE_OPENAPI)
    (ws / "web" / "src" / "leak.ts").symlink_to(outside / "secret.ts")
    (ws / "web" / "src" / "app.ts").write_text("fetch('/api/secret');\n")
    (ws / "openapi.yaml").symlink_to(outside / "openapi.yaml")
    monkeypatch.chdir(ws)
    assert cli.main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(ln.startswith("web/src/app.ts:1:") and "error[phantom-api] GET /api/secret" in ln for ln in out)
    assert any(ln.startswith("web/src/leak.ts:1:1: information[file-skipped] a symlink to ") for ln in out)
    assert any(ln.startswith("openapi.yaml:1:1: information[file-skipped] a symlink to ") for ln in out)
    assert not any("/api/leaked" in ln for ln in out)


# ---------------------------------------------------------------------- 3. non-UTF-8 file names
def _named_workspace(root: Path, files: int) -> Path:
    (root / "web").mkdir(parents=True)
    (root / "specward.toml").write_text("")
    (root / "openapi.yaml").write_text(OPENAPI)
    for i in range(files):
        (root / "web" / f"f{i}.ts").write_text(f"export const f{i} = () => fetch('/api/items');\n")
    with open(os.path.join(os.fsencode(root), b"web", b"\xff.ts"), "wb") as fh:
        fh.write(b"fetch('/api/nope');\n")
    return root


def test_check_with_a_non_utf8_file_name_reports_it_escaped(tmp_path: Path):
    ws = _named_workspace(tmp_path / "ws", 420)  # enough files for linking parser processes
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "specward.server", "check"], cwd=ws, env=env,
                          capture_output=True, timeout=LIVENESS_S)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 1, err  # a finding; it was a crash (UnicodeEncodeError) with exit 1
    assert "web/\\xff.ts:1:7: error[phantom-api] GET /api/nope" in out
    assert "internal error" not in err and "walk-" not in err  # (the cache's own failure: see below)
    assert not list((ws / ".specward").glob("walk-*.txt"))
    proc = subprocess.run([sys.executable, "-m", "specward.server", "check", "--format", "json"], cwd=ws, env=env,
                          capture_output=True, timeout=LIVENESS_S)
    report = json.loads(proc.stdout)
    files = {d["file"] for d in report["diagnostics"]}
    assert files == {"web/\udcff.ts"} and os.fsencode("web/\udcff.ts") == b"web/\xff.ts"


def test_the_cache_keeps_a_non_utf8_name(tmp_path: Path):
    ws = _named_workspace(tmp_path / "ws", 3)
    WorkspaceIndex(ws).build()
    warm = WorkspaceIndex(ws)
    warm.build()
    assert warm.stats["cached_files"] == 4.0


def test_a_crash_of_check_exits_2_with_one_line(tmp_path: Path, capsys, monkeypatch):
    ws = _named_workspace(tmp_path / "ws", 1)

    def boom(self, progress=None):
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(WorkspaceIndex, "build", boom)
    monkeypatch.chdir(ws)
    assert cli.main(["check"]) == 2
    assert cli.main(["calls"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["specward: internal error: RuntimeError: disk on fire second line "
                   "(set SPECWARD_DEBUG=1 for the traceback)"] * 2


def test_a_configuration_linked_from_outside_is_not_read(tmp_path: Path):
    from specward.server.engine.config import load_config

    (tmp_path / "ws").mkdir()
    (tmp_path / "shared.toml").write_text("max_depth = 3\n")
    (tmp_path / "ws" / "specward.toml").symlink_to(tmp_path / "shared.toml")
    loaded = load_config(tmp_path / "ws")
    assert loaded.settings.max_depth == DEFAULT_MAX_DEPTH
    [problem] = loaded.problems
    assert problem.code == "config-invalid" and "outside the workspace: not read" in problem.message


@pytest.mark.parametrize("link", [".specward", ".specward/cache.sqlite"])
def test_a_cache_linked_out_of_the_workspace_is_not_written(tmp_path: Path, link: str):
    """A repository that ships ``.specward`` (or the database in it) as a link elsewhere
    does not get specward to write there: the cache is not used, the findings are the same."""
    ws = _named_workspace(tmp_path / "ws", 1)
    cold = sorted((f.file, f.code) for f in _built(ws, use_cache=False).all_findings())
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    if link == ".specward":
        (ws / ".specward").symlink_to(outside, target_is_directory=True)
    else:
        (ws / ".specward").mkdir()
        (ws / link).symlink_to(outside / "cache.sqlite")
    idx = _built(ws)
    assert sorted((f.file, f.code) for f in idx.all_findings()) == cold
    assert list(outside.iterdir()) == []


def _built(ws: Path, use_cache: bool = True) -> WorkspaceIndex:
    idx = WorkspaceIndex(ws, use_cache=use_cache)
    idx.build()
    idx.facts.wait_stored()
    return idx


def test_a_contract_the_workspace_names_outside_its_repository_is_not_read(tmp_path: Path):
    """A repository's own specward.toml cannot make specward read /etc/passwd or a file
    beside the checkout; inside the repository (a monorepo's backend) it still can, and the
    user can always name one (--contract)."""
    repo = tmp_path / "repo"
    ws = repo / "frontend"
    (ws / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    (ws / "src/a.ts").write_text("export const a = () => fetch('/api/a');\n")
    (repo / "backend").mkdir()
    spec = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /api/a:\n    get:\n      responses: {'200': {description: ok}}\n"
    (repo / "backend/openapi.yaml").write_text(spec)
    (tmp_path / "beside.yaml").write_text(spec)
    (ws / "specward.toml").write_text(
        'contracts = ["../backend/openapi.yaml", "../../beside.yaml", "/etc/passwd"]\n')
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    assert sorted(idx.contracts) == [str(repo / "backend/openapi.yaml")]
    refused = {f.file: f.message for f in idx.ws.skipped_findings()}
    assert set(refused) == {str(tmp_path / "beside.yaml"), "/etc/passwd"}
    assert all("not read" in m and "--contract" in m for m in refused.values())
    user = WorkspaceIndex(ws, contract_globs=[str(tmp_path / "beside.yaml")], use_cache=False)
    user.build()
    assert sorted(user.contracts) == [str(tmp_path / "beside.yaml")]
