"""The workspace index on real files: incremental updates, the SQLite cache, bad input."""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from specward.server.engine import build as build_mod
from specward.server.engine.index import WorkspaceIndex

from conftest import copy_example


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "ws")


def summary(idx: WorkspaceIndex) -> list[tuple[str, str, str]]:
    return sorted((f.file, f.code, f.message) for f in idx.all_findings())


def phantoms(idx: WorkspaceIndex, rel: str) -> list[str]:
    return [f.message for f in idx.findings(rel) if f.code == "phantom-api"]


def test_warm_start_parses_nothing_and_finds_the_same(ws: Path):
    cold = WorkspaceIndex(ws)
    cold.build()
    assert cold.stats["parsed_files"] == 9  # 7 client files, 2 backend files
    assert (ws / ".specward" / "cache.sqlite").is_file()
    assert (ws / ".specward" / ".gitignore").read_text() == "*\n"
    warm = WorkspaceIndex(ws)
    warm.build()
    assert warm.stats["parsed_files"] == 0 and warm.stats["cached_files"] == 9
    assert summary(warm) == summary(cold)
    # one file changed on disk: only it is parsed again
    p = ws / "web/src/components/TagList.tsx"
    p.write_text(p.read_text().replace("/api/tags", "/api/tagz"))
    again = WorkspaceIndex(ws)
    again.build()
    assert again.stats["parsed_files"] == 1
    assert phantoms(again, "web/src/components/TagList.tsx")


def test_corrupt_cache_is_rebuilt(ws: Path):
    (ws / ".specward").mkdir()
    (ws / ".specward" / "cache.sqlite").write_bytes(b"this is not a database" * 100)
    idx = WorkspaceIndex(ws)
    idx.build()
    assert idx.cache is not None and idx.cache.enabled
    assert len(phantoms(idx, "web/src/features/profile.ts")) == 1
    again = WorkspaceIndex(ws)
    again.build()
    assert again.stats["parsed_files"] == 0


def test_locked_cache_is_not_fatal(ws: Path):
    WorkspaceIndex(ws).build()
    other = sqlite3.connect(ws / ".specward" / "cache.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        p = ws / "web/src/components/TagList.tsx"
        p.write_text(p.read_text().replace("/api/tags", "/api/tagz"))
        idx = WorkspaceIndex(ws)
        idx.build()  # cannot read or write the cache: still indexes everything
        assert phantoms(idx, "web/src/components/TagList.tsx")
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_cache_rows_from_another_extractor_version_are_ignored(ws: Path):
    WorkspaceIndex(ws).build()
    db = sqlite3.connect(ws / ".specward" / "cache.sqlite", isolation_level=None)
    db.execute("UPDATE facts SET version='old'")
    db.close()
    idx = WorkspaceIndex(ws)
    idx.build()
    assert idx.stats["parsed_files"] == 9


def test_planted_cache_row_cannot_run_code(ws: Path, tmp_path: Path):
    """A pickle that would call os.system is refused: the row is dropped and re-extracted."""
    WorkspaceIndex(ws).build()
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    db = sqlite3.connect(ws / ".specward" / "cache.sqlite", isolation_level=None)
    db.execute("UPDATE facts SET data=? WHERE path='scripts/sync_users.py'", (pickle.dumps(Evil()),))
    db.execute("UPDATE links SET data=?", (pickle.dumps(Evil()),))
    db.close()
    idx = WorkspaceIndex(ws)
    idx.build()
    assert not marker.exists()
    assert phantoms(idx, "scripts/sync_users.py")  # links were recomputed
    facts = idx.facts.get("scripts/sync_users.py")  # the damaged row is re-extracted from disk
    assert facts is not None and any(c.callee == "requests.get" for c in facts.calls)
    assert isinstance(idx.cache.load("scripts/sync_users.py", idx.digests["scripts/sync_users.py"]), type(facts))
    assert not marker.exists()


def test_editing_a_constant_rechecks_importers(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    assert phantoms(idx, "web/src/features/profile.ts")
    text = (ws / "web/src/api/http.ts").read_text()
    changed = idx.update("web/src/api/http.ts", text.replace("baseURL: '/api'", "baseURL: '/api/v2'"))
    assert "web/src/features/profile.ts" in changed
    msgs = phantoms(idx, "web/src/features/profile.ts")
    assert msgs == ["GET /api/v2/user/profile/avatar is not in the contract (nearest: GET /api/user/profile)"]


def test_a_new_file_resolves_a_dangling_import(ws: Path):
    (ws / "web/src/features/late.ts").write_text("import { SECTION } from '../api/paths';\nfetch(`${SECTION}/tagz`);\n")
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    assert phantoms(idx, "web/src/features/late.ts") == []  # SECTION unknown: never guessed
    changed = idx.update("web/src/api/paths.ts", "export const SECTION = '/api';\n")
    assert "web/src/features/late.ts" in changed
    assert phantoms(idx, "web/src/features/late.ts") == ["GET /api/tagz is not in the contract (nearest: GET /api/tags)"]
    # and deleting it again makes the call unresolved again
    idx.update("web/src/api/paths.ts", None)
    assert phantoms(idx, "web/src/features/late.ts") == []


def test_contract_edit_rematches_without_relinking(ws: Path):
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    contract = ws / "contracts/openapi.yaml"
    text = contract.read_text().replace("  /user/profile:\n", "  /user/profile/avatar:\n    get:\n      responses:\n"
                                        "        \"200\":\n          description: ok\n  /user/profile:\n")
    changed = idx.update("contracts/openapi.yaml", text)
    assert "web/src/features/profile.ts" in changed
    assert phantoms(idx, "web/src/features/profile.ts") == []


def test_bad_files_are_skipped_with_reasons(ws: Path):
    (ws / "web/src/blob.ts").write_bytes(b"\x00\x01binary")
    (ws / "web/src/latin1.py").write_bytes("x = 'caf\xe9'".encode("latin-1"))
    (ws / "web/src/huge.js").write_bytes(b"//" + b"x" * (50 * 1024 * 1024))
    (ws / "web/src/broken.ts").write_text("fetch('/api/nowhere');\nfunction (((( {{{ \n")
    (ws / "node_modules/lib").mkdir(parents=True)
    (ws / "node_modules/lib/index.js").write_text("fetch('/api/phantom-in-deps')")
    (ws / ".gitignore").write_text("generated/\n")
    (ws / "generated").mkdir()
    (ws / "generated/client.ts").write_text("fetch('/api/phantom-generated')")
    loop = ws / "web/src/loop"
    loop.mkdir()
    (loop / "again").symlink_to(loop)
    (ws / "web/src/outside").symlink_to("/usr/lib")
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    assert idx.skipped["web/src/blob.ts"] == "binary file"
    assert idx.skipped["web/src/latin1.py"].startswith("not UTF-8")
    assert idx.skipped["web/src/huge.js"].startswith("larger than the 1,000,000-byte limit")
    assert "node_modules/lib/index.js" not in idx.facts and "generated/client.ts" not in idx.facts
    assert not any(p.startswith("web/src/outside") for p in idx.facts)
    # a file tree-sitter cannot fully parse still yields the call that parses
    assert phantoms(idx, "web/src/broken.ts") == ["GET /api/nowhere is not in the contract"]
    # a named pipe or a folder with a source file's name (say, a watcher event) is refused
    # at once; reading a pipe would wait for a writer forever
    os.mkfifo(ws / "web/src/pipe.ts")
    (ws / "web/src/folder.ts").mkdir()
    for rel in ("web/src/pipe.ts", "web/src/folder.ts"):
        assert idx.update_from_disk(rel) == {rel}
        assert idx.skipped[rel] == "not a regular file"


def test_parallel_cold_index_matches_sequential(ws: Path, monkeypatch):
    for i in range(40):
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch('/api/gen/{i}');\n")
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 10)
    par = WorkspaceIndex(ws, use_cache=False, workers=2)
    par.build()
    assert summary(par) == summary(seq)
    assert len([f for f in par.all_findings() if "/api/gen/" in f.message]) == 40


@pytest.mark.parametrize("cache", [False, True], ids=["linked-here", "linked-in-parser-processes"])
def test_files_linked_before_what_they_import_is_extracted(ws: Path, monkeypatch, cache: bool):
    """A file whose wrapper chain reaches files extracted after it (sorted later) is linked
    once they are in: here, while the parser processes extract (no cache), or in a parser
    process that reads and extracts what it lacks (a cold cache)."""
    src = ws / "web/src/chain"
    src.mkdir()
    (src / "a0.ts").write_text("import { load } from './a1';\nexport const run = (id: string) => load(`/nowhere/${id}`);\n")
    (src / "a1.ts").write_text("import { get } from './a2';\nexport function load(path: string) { return get(path); }\n")
    (src / "a2.ts").write_text("import { BASE } from './z';\n"
                               "export function get(path: string) { return fetch(`${BASE}${path}`); }\n")
    (src / "z.ts").write_text("export const BASE = '/api';\n")
    expected = ["GET /api/nowhere/{id} is not in the contract"]
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    assert phantoms(seq, "web/src/chain/a0.ts") == expected
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 2)
    par = WorkspaceIndex(ws, use_cache=cache, workers=2)
    par.build()
    assert ("linked_in_parsers" in par.stats) == cache
    assert phantoms(par, "web/src/chain/a0.ts") == expected
    assert summary(par) == summary(seq)
    # a0 read every file of the chain: editing the last one re-checks it
    assert {"web/src/chain/a0.ts"} <= par.update("web/src/chain/z.ts", "export const BASE = '/api/user';\n")
    assert [m.split(" (")[0] for m in phantoms(par, "web/src/chain/a0.ts")] == [
        "GET /api/user/nowhere/{id} is not in the contract"]


def test_many_changed_files_are_parsed_in_parser_processes_on_a_warm_start(ws: Path, monkeypatch):
    """Most files cached, many changed: the changed ones are still parsed in parallel, and
    linked here with the cached ones."""
    for i in range(40):
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch('/api/gen/{i}');\n")
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 10)
    first = WorkspaceIndex(ws, workers=2)
    first.build()
    first.facts.wait_stored()
    for i in range(15):  # 15 of 48 files change: the cache still has most of them
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch('/api/changed/{i}');\n")
    warm = WorkspaceIndex(ws, workers=2)
    warm.build()
    assert warm.stats["parsed_files"] == 15 and warm.stats["parser_processes"] == 2
    assert "linked_in_parsers" not in warm.stats
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    assert summary(warm) == summary(seq)
    assert len([f for f in warm.all_findings() if "/api/changed/" in f.message]) == 15


def test_cold_cache_is_filled_by_the_parser_processes_after_the_build(ws: Path, monkeypatch):
    """On a cold cache the parser processes link, and their facts reach the cache after the
    build: a request for them meanwhile waits, and the next start parses nothing."""
    for i in range(40):
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch('/api/gen/{i}');\n")
    (ws / "web/src/blob.ts").write_bytes(b"\x00\x01binary")
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 10)
    cold = WorkspaceIndex(ws, workers=2)
    cold.build()
    parsed = cold.stats["parsed_files"]
    assert cold.stats["linked_in_parsers"] == parsed == 49  # 40 + the example's 9; not the binary file
    assert summary(cold) == summary(seq)
    assert cold.skipped["web/src/blob.ts"] == "binary file"
    facts = cold.facts.get("web/src/gen7.ts")  # waits for the parser processes' facts
    assert facts is not None and [c.callee for c in facts.calls] == ["fetch"]
    assert cold.facts._flushed is not None and cold.facts._flushed.is_set()
    stored = sqlite3.connect(ws / ".specward" / "cache.sqlite").execute("SELECT count(*) FROM facts").fetchone()[0]
    assert stored == parsed
    warm = WorkspaceIndex(ws, workers=2)
    warm.build()
    assert warm.stats["parsed_files"] == warm.stats["relinked_files"] == 0  # facts and links cached
    assert "linked_in_parsers" not in warm.stats
    assert summary(warm) == summary(seq)


def test_building_and_updating_leave_no_reference_cycles(ws: Path):
    """The build freezes what it allocated instead of collecting it (a full collection
    takes seconds on a large workspace): that leaks only if it left garbage cycles."""
    first = WorkspaceIndex(ws, use_cache=False)  # one-time work (imports, grammars) out of the way
    first.build()
    gc.unfreeze()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        idx = WorkspaceIndex(ws)
        idx.build()  # cold, through the cache; both contract formats, TypeScript and Python
        for rel in ("contracts/openapi.yaml", "contracts/articles.dsl.json", "web/src/api/http.ts",
                    "scripts/sync_users.py"):
            idx.update(rel, (ws / rel).read_text() + "\n")
        idx.update("contracts/openapi.yaml", "openapi: [unclosed\n")  # a broken contract too
        warm = WorkspaceIndex(ws)
        warm.build()
        gc.unfreeze()
        assert gc.collect() == 0
        # (the indexes stay alive until here: an index itself is a cycle with its facts store)
        assert idx.findings("contracts/openapi.yaml") and warm.all_findings() and first.all_findings()
    finally:
        if enabled:
            gc.enable()


def test_invalid_config_is_reported_and_defaults_used(ws: Path):
    (ws / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.specward]\nmax_file_size = "big"\n')
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    problems = idx.findings("pyproject.toml")
    assert [p.code for p in problems] == ["config-invalid"]
    line = (ws / "pyproject.toml").read_bytes()[problems[0].span.start:problems[0].span.end]
    assert line.startswith(b"max_file_size")
    assert idx.settings.max_file_size == 1_000_000
    assert phantoms(idx, "web/src/features/profile.ts")


def test_severity_overrides(ws: Path):
    (ws / "specward.toml").write_text('[severity]\nphantom-api = "warning"\nunused-endpoint = "off"\n')
    idx = WorkspaceIndex(ws, use_cache=False)
    idx.build()
    sev = {(f.code, f.severity) for f in idx.all_findings()}
    assert ("phantom-api", "warning") in sev and not any(c == "unused-endpoint" for c, _ in sev)


def test_warm_start_reuses_matches_only_against_the_same_contracts(ws: Path):
    cold = WorkspaceIndex(ws)
    cold.build()
    assert cold.stats["reused_matches"] == 0
    warm = WorkspaceIndex(ws)
    warm.build()
    assert warm.stats["reused_matches"] == 11  # every matched call of the example
    assert summary(warm) == summary(cold)
    contract = ws / "contracts/openapi.yaml"
    contract.write_text(contract.read_text().replace("  /user/profile:\n", "  /user/profile/avatar:\n    get:\n"
                                                     "      responses:\n        \"200\":\n          description: ok\n"
                                                     "  /user/profile:\n"))
    changed = WorkspaceIndex(ws)
    changed.build()
    assert changed.stats["reused_matches"] == 0  # another endpoint table: everything matched again
    assert phantoms(changed, "web/src/features/profile.ts") == []


# A parser process that dies on one file (a native crash in a grammar, say): the file is
# made to abort its process by a sitecustomize module every spawned process imports.
# (a batch's files are parsed before any is extracted: both steps abort on the file)
CRASHING = """
import os
import specward.server.engine.parsing as parsing
_extract, _parse = parsing.extract_safely, parsing.parse_source
def extract_safely(rel, text, tree=None):
    if rel.endswith("crash.ts"):
        os.abort()
    return _extract(rel, text, tree)
def parse_source(rel, text):
    if rel.endswith("crash.ts"):
        os.abort()
    return _parse(rel, text)
parsing.extract_safely, parsing.parse_source = extract_safely, parse_source
"""


@pytest.mark.parametrize("cache", [False, True], ids=["extracting", "linking"])
def test_a_parser_process_crash_loses_only_its_file(ws: Path, tmp_path: Path, monkeypatch, cache: bool):
    for i in range(30):
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch('/api/gen/{i}');\n")
    (ws / "web/src/crash.ts").write_text("export const c = () => fetch('/api/crash');\n")
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(CRASHING)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(build_mod, "BATCH", 8)
    par = WorkspaceIndex(ws, use_cache=cache, workers=2)
    par.build()
    crashed = [f for f in par.findings("web/src/crash.ts")]
    assert [(f.code, f.message.split(" (")[0]) for f in crashed] == [
        ("file-skipped", "the parser crashed on this file")]
    # every other file was analyzed, in spite of sharing a batch and processes with it
    others = [x for x in summary(par) if x[0] != "web/src/crash.ts"]
    assert others == [x for x in summary(seq) if x[0] != "web/src/crash.ts"]
    assert len([x for x in others if "/api/gen/" in x[2]]) == 30
    par.facts.wait_stored()


@pytest.mark.parametrize("cache", [False, True], ids=["extracting", "linking"])
def test_parser_processes_that_cannot_start_leave_the_files_to_the_index(ws: Path, tmp_path: Path, monkeypatch,
                                                                          cache: bool):
    """Every spawned process dies at once (a broken environment): the build parses here.
    The walk is over 64 KB of paths, more than a pipe holds: handing it to a process that
    died used to block the build for ever."""
    many = ws / "web/src/a_generated_folder_with_a_rather_long_name_to_make_the_walk_large"
    many.mkdir()
    for i in range(1000):
        (many / f"module_{i:04d}.ts").write_text(f"export const f{i} = () => fetch('/api/gen/{i}');\n")
    seq = WorkspaceIndex(ws, use_cache=False, workers=1)
    seq.build()
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import os, sys\nif '--multiprocessing-fork' in sys.argv:\n    os._exit(3)\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]))
    par = WorkspaceIndex(ws, use_cache=cache, workers=2)
    building = threading.Thread(target=par.build, daemon=True)
    building.start()
    building.join(120)
    assert not building.is_alive(), "the build hung"
    assert summary(par) == summary(seq)
    assert par.stats["parser_processes"] == 2 and par.stats.get("linked_in_parsers", 0) == 0
    assert par.facts.wait_stored(60)
    assert not list((ws / ".specward").glob("walk-*.txt"))  # the walk's file is gone


BUILD_FOR_EVER = """
import sys
from pathlib import Path
from specward.server.engine.index import WorkspaceIndex
idx = WorkspaceIndex(Path(sys.argv[1]), use_cache=sys.argv[2] == "cache", workers=2)
idx.build()
"""


def _processes_marked(mark: str) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
@pytest.mark.parametrize("cache", [False, True], ids=["extracting", "linking"])
def test_parser_processes_end_when_the_index_process_is_killed(ws: Path, cache: bool):
    """A server killed in the middle of a build (an editor reloading) leaves no parser
    process behind waiting for work."""
    for i in range(3000):
        (ws / f"web/src/gen{i}.ts").write_text(f"export const f{i} = () => fetch(`/api/gen/{i}/${{x}}`);\n" * 20)
    mark = f"SPECWARD_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    proc = subprocess.Popen([sys.executable, "-c", BUILD_FOR_EVER, str(ws), "cache" if cache else "none"], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(_processes_marked(mark) - {proc.pid}) < 2:  # a parser process (and the resource tracker)
            assert time.monotonic() < deadline, "no parser processes started"
            assert proc.poll() is None, "the build ended before it could be killed"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while _processes_marked(mark):
            assert time.monotonic() < deadline, f"parser processes left behind: {_processes_marked(mark)}"
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _processes_marked(mark):
            os.kill(pid, signal.SIGKILL)
