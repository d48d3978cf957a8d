"""The fix-history ledger on disk (server/engine/ledger.py) and ``specward ledger`` on the
command line: real files, real processes appending at once, a writer killed with SIGKILL in
the middle of a write, prune under concurrent appends, git merges with ``merge=union``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from specward.analyzers import ledger as core
from specward.server.engine import ledger as store

from conftest import git

DAY = 86400.0


def rec(source: str, names=("x",), ts: str = "2026-04-07T19:42:30.000Z", run: str = "run", **kw) -> core.Record:
    return core.make_record(source, names, kw.get("reason", "file_not_found"), kw.get("file", "src/app.ts"),
                            kw.get("line", 1), kw.get("kind", "create_file"), kw.get("target", "src/x.ts"),
                            kw.get("stage", "ai"), ts, run)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "project"
    (r / ".git").mkdir(parents=True)
    return r


def read(root: Path):
    path = store.ledger_path(root)
    return core.parse_jsonl(path.read_bytes(), path.relative_to(root).as_posix())


# ---------------------------------------------------------------- appending


WRITER = r"""
import sys
from pathlib import Path
from specward.analyzers import ledger as core
from specward.server.engine import ledger as store
root, me, count, width = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
go = root / "go"
while not go.exists():
    pass
for i in range(count):
    names = [f"{me}-{i}-{k}-" + "n" * width for k in range(3)]
    r = core.make_record(f"@/gen/{me}/{i}", names, "missing_export", f"src/{me}.ts", i + 1, "rename",
                         "Real", "ai", "2026-04-07T19:42:30.000Z", f"{me}-{i}")
    store.append(store.ledger_path(root), r, root=root)
"""


def test_processes_appending_at_once_lose_and_mix_nothing(root: Path):
    writers, count = 8, 150
    # lines of ~6 KB: more than PIPE_BUF, so only O_APPEND with one write keeps them whole
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(root), f"w{n}", str(count), "2000"])
             for n in range(writers)]
    time.sleep(0.5)
    (root / "go").touch()
    for p in procs:
        assert p.wait(timeout=120) == 0
    records, problems = read(root)
    assert problems == ()
    assert len(records) == writers * count
    assert {r.run_id for r in records} == {f"w{n}-{i}" for n in range(writers) for i in range(count)}
    # each writer's records are in its own order
    for n in range(writers):
        mine = [int(r.run_id.split("-")[1]) for r in records if r.run_id.startswith(f"w{n}-")]
        assert mine == sorted(mine)
    data = store.ledger_path(root).read_bytes()
    assert data.endswith(b"\n") and b"\n\n" not in data


KILLED = r"""
import sys
from pathlib import Path
from specward.analyzers import ledger as core
from specward.server.engine import ledger as store
root, n = Path(sys.argv[1]), int(sys.argv[2])
r = core.make_record("./huge", ["n" * 1000] * n, "file_not_found", "src/huge.ts", 1, "create_file",
                     "src/huge.ts", "ai", "2026-04-08T00:00:00.000Z", "huge")
line = core.record_line(r)  # built before the signal to write: the write is all that is left
print(len(line), flush=True)
sys.stdin.readline()
store.append(store.ledger_path(root), r, root=root)
"""


def test_a_writer_killed_mid_append_loses_only_its_partial_line(root: Path):
    before = [rec(f"./before{i}", run=f"b{i}") for i in range(20)]
    for r in before:
        store.append(store.ledger_path(root), r, root=root)
    path = store.ledger_path(root)
    for n in (40_000, 120_000, 400_000):  # a bigger record if the write finished before the kill landed
        base = path.stat().st_size
        p = subprocess.Popen([sys.executable, "-c", KILLED, str(root), str(n)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        length = int(p.stdout.readline())
        p.stdin.write("go\n")
        p.stdin.flush()
        deadline = time.monotonic() + 60
        while path.stat().st_size <= base and time.monotonic() < deadline and p.poll() is None:
            pass
        p.send_signal(signal.SIGKILL)
        p.wait()
        written = path.stat().st_size - base
        if 0 < written < length:
            break
    else:
        pytest.fail("the write always finished before SIGKILL landed")
    assert not path.read_bytes().endswith(b"\n")
    records, problems = read(root)
    assert records == tuple(before)  # every earlier record kept
    (p,) = problems
    assert p.code == "ledger-invalid" and "incomplete last line" in p.message
    assert p.span.start == base and p.span.end == base + written
    # the next append starts on a fresh line
    after = rec("./after", run="a")
    store.append(path, after, root=root)
    records, problems = read(root)
    assert records == (*before, after)
    (p,) = problems
    assert "line 21 is not a ledger record" in p.message and core.NOT_JSON in p.message
    assert path.read_bytes().endswith(core.record_line(after).encode())
    assert path.read_bytes()[base + written:base + written + 1] == b"\n"


def test_the_ledger_folder_is_committed_but_the_cache_is_not(root: Path):
    (root / ".specward").mkdir()
    (root / ".specward" / ".gitignore").write_text("*\n")  # what the cache wrote before the ledger
    store.append(store.ledger_path(root), rec("./a"), root=root)
    assert (root / ".specward" / ".gitignore").read_text() == store.GITIGNORE
    assert (root / ".specward" / ".gitattributes").read_text() == "fix-history.jsonl merge=union\n"
    shutil.rmtree(root / ".git")
    git(root, "init", "-q")
    (root / ".specward" / "cache.sqlite").write_bytes(b"x")
    ignored = subprocess.run(["git", "check-ignore", ".specward/cache.sqlite", ".specward/fix-history.jsonl",
                              ".specward/.gitattributes"], cwd=root, capture_output=True, text=True)
    assert ignored.stdout.split() == [".specward/cache.sqlite"]
    attr = git(root, "check-attr", "merge", ".specward/fix-history.jsonl").stdout
    assert attr.strip().endswith("merge: union")
    # a .gitignore someone wrote is left alone
    (root / ".specward" / ".gitignore").write_text("cache.sqlite\n")
    store.append(store.ledger_path(root), rec("./b"), root=root)
    assert (root / ".specward" / ".gitignore").read_text() == "cache.sqlite\n"


def test_a_git_merge_of_two_branches_keeps_every_record_and_a_valid_ledger(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    ledger = store.ledger_path(repo)
    store.append(ledger, rec("./base", run="base"), root=repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    store.append(ledger, rec("./feature", run="feature"), root=repo)
    git(repo, "commit", "-q", "-am", "feature")
    git(repo, "checkout", "-q", "main")
    store.append(ledger, rec("./main", run="main"), root=repo)
    git(repo, "commit", "-q", "-am", "main")
    git(repo, "merge", "-q", "--no-edit", "feature")  # check=True: no conflict
    records, problems = read(repo)
    assert problems == ()
    assert sorted(r.run_id for r in records) == ["base", "feature", "main"]


def test_nothing_is_written_through_a_link_out_of_the_workspace(root: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".specward").symlink_to(outside)
    with pytest.raises(store.LedgerError, match="link"):
        store.append(store.ledger_path(root), rec("./a"), root=root)
    assert list(outside.iterdir()) == []
    (root / ".specward").unlink()
    (root / ".specward").mkdir()
    target = outside / "theirs.jsonl"
    target.write_text("")
    store.ledger_path(root).symlink_to(target)
    with pytest.raises(store.LedgerError, match="link"):
        store.append(store.ledger_path(root), rec("./a"), root=root)
    assert target.read_text() == ""
    with pytest.raises(store.LedgerError):
        store.prune(store.ledger_path(root), 1, root=root)
    # read as any workspace file: a link out is not followed
    patterns, findings = store.load(root)
    assert len(patterns) == 0 and "not read" in findings[0].message


# ---------------------------------------------------------------- reading


def test_load_reads_ai_specs_ledger_specwards_and_the_opt_in_user_ledger(root: Path, tmp_path: Path):
    entry = core.record_json(rec("@/apis/task/type", ("Task",), run="ai-1", file="src/views/List.vue"))
    (root / core.AI_SPEC_LEDGER).write_text(json.dumps({"version": "1.0", "entries": [entry, {"ts": 1}]}, indent=2))
    shared = rec("@/apis/task/type", ("Task",), ts="2026-04-09T00:00:00.000Z", run="editor-1", stage="editor")
    store.append(store.ledger_path(root), shared, root=root)
    with store.ledger_path(root).open("a") as fh:
        fh.write("<<<<<<< HEAD\n")
    user = tmp_path / "data" / "specward" / "fix-history.jsonl"
    store.append(user, shared)  # the same record in both ledgers: counted once
    store.append(user, rec("lodash/fp/deep", ("get",), run="other-project"))
    patterns, findings = store.load(root)
    assert [(p.source, p.count) for p in patterns] == [("@/apis/task/type", 2)]
    assert sorted((f.file, f.message.split(" ")[0]) for f in findings) == [
        (".ai-spec-fix-history.json", "entry"), (".specward/fix-history.jsonl", "merge")]
    patterns, _ = store.load(root, user=True, user_path=user)
    assert [(p.source, p.count) for p in patterns] == [("@/apis/task/type", 2), ("lodash/fp/deep", 1)]
    assert {r.origin for r in patterns.get(core.pattern_key("@/apis/task/type", ["Task"])).records} == {
        core.AI_SPEC, core.SPECWARD}


def test_the_user_ledger_lives_in_the_users_data_folder():
    assert store.user_ledger_path({"XDG_DATA_HOME": "/x/data", "HOME": "/home/me"}, "linux") == Path(
        "/x/data/specward/fix-history.jsonl")
    assert store.user_ledger_path({"XDG_DATA_HOME": "relative", "HOME": "/home/me"}, "linux") == Path(
        "/home/me/.local/share/specward/fix-history.jsonl")
    assert store.user_ledger_path({"HOME": "/Users/me"}, "darwin") == Path(
        "/Users/me/Library/Application Support/specward/fix-history.jsonl")
    assert store.user_ledger_path({"LOCALAPPDATA": "C:/Users/me/AppData/Local"}, "win32") == Path(
        "C:/Users/me/AppData/Local/specward/fix-history.jsonl")
    assert store.user_ledger_path({}, "linux") is None


def test_record_fix_appends_a_stage_editor_record_to_both_ledgers(root: Path, tmp_path: Path):
    user = tmp_path / "u" / "fix-history.jsonl"
    r = store.record_fix(root, "../apis/task/type", ("Task",), "file_not_found", "src/views/a.ts", 3,
                         "rewrite_import", "@/apis/task", user=True, user_path=user, now=1775000000.0)
    assert r.fix.stage == "editor" and r.ts == "2026-03-31T23:33:20.000Z" and r.run_id.startswith("editor-")
    assert read(root)[0] == (r,)
    assert core.parse_jsonl(user.read_bytes(), str(user))[0] == (r,)


# ---------------------------------------------------------------- prune


def test_prune_drops_only_old_records_and_replaces_the_file_atomically(root: Path):
    now = 1780000000.0
    path = store.ledger_path(root)
    old = [rec(f"./old{i}", ts=core.format_ts(now - (40 + i) * DAY), run=f"o{i}") for i in range(3)]
    new = [rec(f"./new{i}", ts=core.format_ts(now - i * DAY), run=f"n{i}") for i in range(3)]
    for a, b in zip(old, new):
        store.append(path, a, root=root)
        store.append(path, b, root=root)
    with path.open("a") as fh:
        fh.write('{"hand": "written"}\n{"partial": "wri')  # kept: a person decides; dropped: a fragment
    store.append(path, rec("./last", ts=core.format_ts(now), run="last"), root=root)
    inode = path.stat().st_ino
    assert store.prune(path, 30, root=root, now=now) == (3, 4)
    assert path.stat().st_ino != inode
    records, problems = read(root)
    assert [r.run_id for r in records] == ["n0", "n1", "n2", "last"]
    assert [p.message.split(":")[0] for p in problems] == ["line 4 is not a ledger record"]
    assert store.prune(path, 30, root=root, now=now) == (0, 4)
    assert store.prune(path, 0, root=root, now=now + 1) == (4, 0)
    assert read(root)[0] == ()
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


PRUNE_WRITER = r"""
import sys, time
from pathlib import Path
from specward.analyzers import ledger as core
from specward.server.engine import ledger as store
root, me = Path(sys.argv[1]), sys.argv[2]
for i in range(200):
    r = core.make_record(f"./{me}/{i}", ["x"], "file_not_found", "a.ts", 1, "create_file", "b.ts", "ai",
                         core.format_ts(time.time()), f"{me}-{i}")
    store.append(store.ledger_path(root), r, root=root)
"""


def test_records_appended_while_prune_rewrites_the_ledger_are_never_lost(root: Path):
    path = store.ledger_path(root)
    for i in range(300):
        store.append(path, rec(f"./stale{i}", ts="2020-01-01T00:00:00.000Z", run=f"s{i}"), root=root)
    procs = [subprocess.Popen([sys.executable, "-c", PRUNE_WRITER, str(root), f"p{n}"]) for n in range(4)]
    removed, stale, rewrites = 0, 300, 0
    while any(p.poll() is None for p in procs):
        got = store.prune(path, 365, root=root)[0]
        removed += got
        rewrites += got > 0
        # one more old record, so that every prune rewrites the file while the writers append
        store.append(path, rec(f"./stale{stale}", ts="2020-01-01T00:00:00.000Z", run=f"s{stale}"), root=root)
        stale += 1
    for p in procs:
        assert p.wait() == 0
    removed += store.prune(path, 365, root=root)[0]
    records, problems = read(root)
    assert problems == () and removed == stale and rewrites > 10
    assert {r.run_id for r in records} == {f"p{n}-{i}" for n in range(4) for i in range(200)}


# ---------------------------------------------------------------- the command line


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", "ledger", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def test_ledger_add_list_stats_prompt_prune_on_the_command_line(root: Path, tmp_path: Path):
    (root / "src").mkdir()
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    for file, line in (("src/login.tsx", 3), ("src/signup.tsx", 8)):
        out = cli("add", "--source", "next-auth/client", "--names", "useAuth", "--reason", "missing_export",
                  "--file", file, "--line", str(line), "--fix-kind", "rewrite_import", "--fix-target",
                  "next-auth/react", "--stage", "editor", cwd=root / "src", env=env)  # the project is found above
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(f"recorded pattern {core.pattern_key('next-auth/client', ['useAuth'])} in ")
    out = cli("add", "--source", "./types", "--names", "Task", "--file", str(root / "src/board.ts"),
              "--fix-kind", "rename", "--fix-target", "TaskItem", cwd=root, env=env)
    assert out.returncode == 0, out.stderr
    records, problems = read(root)
    assert problems == () and [r.broken.file for r in records] == ["src/login.tsx", "src/signup.tsx", "src/board.ts"]
    assert records[2].fix.stage == "manual"

    out = cli("list", cwd=root, env=env)
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["PATTERN", "COUNT", "LAST", "SEEN", "REASON", "IMPORT", "LAST", "FIX"]
    assert "import { useAuth } from 'next-auth/client'" in lines[1] and lines[1].split()[1] == "2"
    assert lines[-1] == "2 pattern(s), 3 record(s)"
    listed = json.loads(cli("list", "--format", "json", cwd=root, env=env).stdout)
    assert [(p["source"], p["count"], p["fix"]["kind"]) for p in listed] == [
        ("next-auth/client", 2, "rewrite_import"), ("./types", 1, "rename")]
    stats = json.loads(cli("stats", "--format", "json", cwd=root, env=env).stdout)
    assert (stats["records"], stats["patterns"], stats["byStage"]) == (3, 2, {"editor": 2, "manual": 1})

    first = cli("prompt", cwd=root, env=env)
    second = cli("prompt", "--project", str(root / "src"), cwd=tmp_path, env=env)
    assert first.returncode == 0 and first.stdout == second.stdout
    assert first.stdout == core.prompt(store.load(root)[0])
    assert "1. DO NOT: import { useAuth } from 'next-auth/client'" in first.stdout

    # a damaged line: a warning on stderr as `check` prints it, the rest still read, exit 0
    with store.ledger_path(root).open("a") as fh:
        fh.write("=======\n")
    out = cli("list", cwd=root, env=env)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == "2 pattern(s), 3 record(s)"
    assert out.stderr.startswith(".specward/fix-history.jsonl:4:1: warning[ledger-invalid] merge conflict marker")

    out = cli("prune", "--older-than", "0", cwd=root, env=env)
    assert out.returncode == 0 and "removed 3 record(s)" in out.stdout
    assert cli("list", "--format", "json", cwd=root, env=env).stdout.strip() == "[]"

    # the user's ledger, opt-in
    out = cli("add", "--user", "--source", "axios/lib/core", "--file", "x.ts", "--fix-kind", "rewrite_import",
              "--fix-target", "axios", cwd=root, env=env)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "xdg" / "specward" / "fix-history.jsonl").is_file()
    assert cli("list", "--format", "json", cwd=root, env=env).stdout.strip() == "[]"
    assert [p["source"] for p in json.loads(cli("list", "--user", "--format", "json", cwd=root, env=env).stdout)] == [
        "axios/lib/core"]


def test_ledger_usage_errors_exit_2(root: Path):
    for args in (("prune",), ("prune", "--older-than", "-1"), ("add", "--source", "x"), ("frobnicate",),
                 ("list", "--project", "no/such/folder")):
        out = cli(*args, cwd=root)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
    (root / ".specward").symlink_to(root.parent)
    out = cli("add", "--source", "x", "--file", "a.ts", "--fix-kind", "create_file", cwd=root)
    assert out.returncode == 2 and "link" in out.stderr
