"""`specward trend` and `specward dashboard` through real subprocesses, on a log written by
`append_run` (server/runs_cli.py); the dashboard opened in headless Chromium when one is
installed (SPECWARD_REQUIRE_REFERENCE=1 makes its absence a failure)."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from specward.analyzers.stages.runs import RunRecord, decode_lines, make_record
from specward.analyzers.stages.score import Dimensions, harness_score, verdict
from specward.server import runs_cli

H1, H2 = "sha256:" + "a" * 64, "sha256:" + "b" * 64


def specward(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, env=env)


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)  # the project root, whatever lies above the temp folder
    (root / "src").mkdir()
    return root


def sample(n: int = 6) -> list[RunRecord]:
    out = []
    for i in range(n):
        score = harness_score(Dimensions(compliance=0.5 + i * 0.08, coverage=0.4 + i * 0.1, compile=1.0))
        prompt = "prompt v1" if i < 3 else "prompt v2"
        codes = ["phantom-api"] if i == 1 else []
        out.append(make_record(f"run-{i}", f"2026-12-0{i + 1}T10:00:00Z", "slice", "openai/test", prompt,
                               ["api/notes.py"], codes, score, verdict(score, "default", codes)))
    return out


def write_log(root: Path, records: list[RunRecord], tail: str = "") -> Path:
    for r in records:
        runs_cli.append_run(root, r)
    log = root / ".specward" / "runs.jsonl"
    if tail:
        with open(log, "a", encoding="utf-8") as f:
            f.write(tail)
    return log


# ---------------------------------------------------------------- append_run
def test_append_run_creates_the_folder_with_its_gitignore(tmp_path: Path):
    root = workspace(tmp_path)
    records = sample(3)
    log = write_log(root, records)
    assert (root / ".specward" / ".gitignore").read_text() == "*\n"  # as the facts cache writes it
    assert decode_lines(log.read_text()) == (tuple(records), ())


def test_append_run_steps_over_a_half_written_line(tmp_path: Path):
    root = workspace(tmp_path)
    log = write_log(root, sample(2), tail='{"v":1,"run_id":"cut')
    runs_cli.append_run(root, sample(3)[2])
    records, problems = decode_lines(log.read_text())
    assert [r.run_id for r in records] == ["run-0", "run-1", "run-2"]
    assert len(problems) == 1 and problems[0].line == 3 and "not JSON" in problems[0].message


def test_append_run_never_writes_through_a_link(tmp_path: Path):
    root = workspace(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".specward").symlink_to(elsewhere)
    with pytest.raises(runs_cli.RunLogError):
        runs_cli.append_run(root, sample(1)[0])
    assert list(elsewhere.iterdir()) == []
    (root / ".specward").unlink()
    (root / ".specward").mkdir()
    (root / ".specward" / "runs.jsonl").symlink_to(elsewhere / "log")
    with pytest.raises(runs_cli.RunLogError):
        runs_cli.append_run(root, sample(1)[0])
    assert list(elsewhere.iterdir()) == []


# ---------------------------------------------------------------- trend
def test_trend_without_a_log(tmp_path: Path):
    root = workspace(tmp_path)
    run = specward("trend", cwd=root / "src")  # the project root is found from a subfolder
    assert run.returncode == 0 and run.stdout == "no runs yet in ../.specward/runs.jsonl\n"
    assert not (root / ".specward").exists()  # reading writes nothing
    (root / ".specward").mkdir()
    (root / ".specward" / "runs.jsonl").write_text("")
    run = specward("trend", "--workspace", str(root), cwd=tmp_path)
    assert run.returncode == 0 and run.stdout == "no runs yet in ws/.specward/runs.jsonl\n"


def test_trend_prints_the_chart_and_the_problems_on_stderr(tmp_path: Path):
    root = workspace(tmp_path)
    write_log(root, sample(6), tail='not json\n{"v":1,"run_id":"run-6","tim')
    run = specward("trend", cwd=root)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "harness score, runs 1-6 of 6 (oldest left)"
    assert lines[1].startswith(" 10 |") and lines[11].startswith("  0 +------")
    assert lines[12] == "        ^"  # run-3: the prompt changed
    assert lines[13].startswith("^ prompt changed")
    assert "\x1b[" not in run.stdout  # not a terminal: no colors
    assert run.stderr.splitlines() == [
        "specward: .specward/runs.jsonl:7: not JSON: skipped",
        "specward: .specward/runs.jsonl:8: incomplete last line (a write was interrupted): skipped"]


def test_trend_width_and_usage_errors(tmp_path: Path):
    root = workspace(tmp_path)
    write_log(root, sample(6))
    run = specward("trend", "--width", "2", "--unicode", cwd=root)
    assert run.returncode == 0 and run.stdout.splitlines()[0] == "harness score, runs 5-6 of 6 (oldest left)"
    assert "█" in run.stdout
    assert specward("trend", "--width", "0", cwd=root).returncode == 2
    run = specward("trend", "--workspace", str(tmp_path / "nowhere"), cwd=root)
    assert run.returncode == 2 and "no such folder" in run.stderr


def _on_a_terminal(root: Path, env: dict) -> bytes:
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "specward.server", "trend"], cwd=root, stdout=follower,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)


def test_trend_colors_only_on_a_terminal_without_no_color(tmp_path: Path):
    root = workspace(tmp_path)
    write_log(root, sample(6))
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert b"\x1b[32m" in _on_a_terminal(root, env)  # PASS bars in green
    assert b"\x1b[" not in _on_a_terminal(root, {**env, "NO_COLOR": "1"})


# ---------------------------------------------------------------- dashboard
class _Circles(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "circle" and "run" in (a.get("class") or "").split():
            self.ids.append(a.get("data-run-id"))


def circles(page: str) -> list[str]:
    p = _Circles()
    p.feed(page)
    return p.ids


def test_dashboard_default_output(tmp_path: Path):
    root = workspace(tmp_path)
    write_log(root, sample(4), tail='{"v":1,"run_id":"half')
    run = specward("dashboard", cwd=root / "src")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "../.specward/dashboard.html\n"
    page = (root / ".specward" / "dashboard.html").read_text("utf-8")
    assert circles(page) == ["run-0", "run-1", "run-2", "run-3"]
    assert "Problems of the log" in page and "line 5: incomplete last line" in page
    assert "runs.jsonl:5: incomplete last line" in run.stderr


def test_dashboard_explicit_output_anywhere_and_escaping(tmp_path: Path):
    root = workspace(tmp_path)
    evil = RunRecord("<script>alert(1)</script>", "2026-12-01T10:00:00Z", "slice", "m", H1, score=4.0,
                     verdict="FAIL")
    write_log(root, [evil, RunRecord("ok", "2026-12-02T10:00:00Z", "slice", "m", H2, score=8.0, verdict="PASS")])
    out = tmp_path / "reports" / "runs.html"
    out.parent.mkdir()
    run = specward("dashboard", "--workspace", str(root), "--output", str(out), cwd=tmp_path / "reports")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "runs.html\n"
    page = out.read_text("utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert circles(page) == ["<script>alert(1)</script>", "ok"]
    assert not (root / ".specward" / "dashboard.html").exists()


def test_dashboard_without_runs_still_writes_a_page(tmp_path: Path):
    root = workspace(tmp_path)
    run = specward("dashboard", cwd=root)
    assert run.returncode == 0 and run.stdout == ".specward/dashboard.html\n"
    assert "no runs yet" in run.stderr
    assert "No runs yet." in (root / ".specward" / "dashboard.html").read_text()
    assert (root / ".specward" / ".gitignore").read_text() == "*\n"


def test_dashboard_refuses_a_linked_specward_folder(tmp_path: Path):
    root = workspace(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".specward").symlink_to(elsewhere)
    run = specward("dashboard", cwd=root)
    assert run.returncode == 2 and "is a link" in run.stderr
    assert list(elsewhere.iterdir()) == []


# ---------------------------------------------------------------- headless Chromium
def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("SPECWARD_REQUIRE_REFERENCE") == "1":
            pytest.fail("SPECWARD_REQUIRE_REFERENCE=1 but no `chromium` or `chromium-browser` on PATH: "
                        "install Chromium (Debian: apt-get install chromium) to render the dashboard")
        pytest.skip("no chromium on PATH (set SPECWARD_REQUIRE_REFERENCE=1 to make this a failure)")
    return found


def _browse(binary: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    return subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_dashboard_renders_in_headless_chromium(tmp_path: Path):
    binary = _chromium()
    root = workspace(tmp_path)
    records = sample(6)
    write_log(root, records, tail='{"v":1,"run_id":"half')
    run = specward("dashboard", cwd=root)
    assert run.returncode == 0, run.stderr
    page = (root / ".specward" / "dashboard.html").resolve()
    dom = _browse(binary, tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    assert circles(dom.stdout) == [r.run_id for r in records]  # one point per run, as the browser built it
    assert dom.stdout.count('class="prompt-change"') == 1
    shot = tmp_path / "dashboard.png"
    done = _browse(binary, tmp_path, f"--screenshot={shot}", "--window-size=1200,800", page.as_uri())
    assert done.returncode == 0, done.stderr
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # a real picture, not a blank stub
