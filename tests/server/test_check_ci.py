"""``specward check`` in CI, as a pipeline runs it: a real process on a real project.

Baselines (written, applied, kept across unrelated edits, broken), gates, ``--exit-zero``,
``--max-warnings``, ``--statistics``, ``--color``, the progress bar, ``--changed-since`` on
a real git repository, the CI formats and ``--version``.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from test_report_formats import errors as sarif_errors

NOTES = """\
openapi: 3.0.3
info: {title: Notes, version: '1'}
paths:
  /api/notes:
    get:
      responses: {'200': {description: the notes}}
    post:
      responses: {'201': {description: made}}
  /api/notes/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: one note}}
"""

CLIENT = """\
import { base } from './base';

export const listNotes = () => fetch(`${base}/notes`);
export const oneNote = (id: string) => fetch(`${base}/notes/${id}`);
export const addNote = (text: string) => fetch(`${base}/notes`, { method: 'POST', body: JSON.stringify({ text }) });
export const archive = (id: string) => fetch(`${base}/notes/${id}/archive`, { method: 'POST' });
"""

BASE = "export const base = '/api';\n"
OTHER = "export const tags = () => fetch('/api/tags');\n"


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "specward.toml").write_text("", "utf-8")
    (root / "openapi.yaml").write_text(NOTES, "utf-8")
    (root / "src/notes.ts").write_text(CLIENT, "utf-8")
    (root / "src/base.ts").write_text(BASE, "utf-8")
    (root / "src/tags.ts").write_text(OTHER, "utf-8")
    return root


def findings(out: subprocess.CompletedProcess) -> list[str]:
    return [ln for ln in out.stdout.splitlines() if "[" in ln and ln.count(":") >= 3]


def codes_at(out: subprocess.CompletedProcess) -> list[tuple[str, str]]:
    rows = json.loads(out.stdout)["diagnostics"]
    return [(d["file"], d["code"]) for d in rows]


# ---------------------------------------------------------------- baselines
def test_baseline_records_today_and_fails_only_on_new_findings(proj: Path):
    before = run("check", "--no-cache", cwd=proj)
    assert before.returncode == 1 and len(findings(before)) == 2, before.stdout  # archive and tags
    wrote = run("check", "--no-cache", "--write-baseline", "specward-baseline.json", cwd=proj)
    assert wrote.returncode == 0, wrote.stderr
    assert "recorded 2 finding(s)" in wrote.stderr
    doc = json.loads((proj / "specward-baseline.json").read_text("utf-8"))
    assert sorted((e["file"], e["code"]) for e in doc["findings"]) == [("src/notes.ts", "phantom-api"),
                                                                       ("src/tags.ts", "phantom-api")]
    again = run("check", "--no-cache", "--baseline", "specward-baseline.json", cwd=proj)
    assert again.returncode == 0, again.stdout
    assert findings(again) == []
    assert "2 in the baseline specward-baseline.json not shown" in again.stdout

    # lines added above a baselined finding leave it baselined; a new mistake is reported
    text = "// the notes API, as the app uses it\n\n" + CLIENT + \
        "export const pin = (id: string) => fetch(`${base}/notes/${id}/pin`, { method: 'PUT' });\n"
    (proj / "src/notes.ts").write_text(text, "utf-8")
    moved = run("check", "--no-cache", "--baseline", "specward-baseline.json", cwd=proj)
    assert moved.returncode == 1
    assert [ln.split(": ", 1)[0] for ln in findings(moved)] == ["src/notes.ts:9:42"]
    assert "/pin" in findings(moved)[0]

    # the baselined line itself edited: its finding is new
    (proj / "src/notes.ts").write_text(text.replace("/archive`, { method: 'POST' }", "/archived`"), "utf-8")
    edited = run("check", "--no-cache", "--baseline", "specward-baseline.json", "--format", "json", cwd=proj)
    assert sorted(codes_at(edited)) == [("src/notes.ts", "phantom-api"), ("src/notes.ts", "phantom-api")]


def test_a_fixed_finding_drops_out_and_files_not_checked_keep_theirs(proj: Path):
    assert run("check", "--no-cache", "--write-baseline", "b.json", cwd=proj).returncode == 0
    (proj / "src/notes.ts").write_text(CLIENT.replace("/archive`, { method: 'POST' }", "`"), "utf-8")
    # written again for src/tags.ts only: notes.ts's entry is kept, though it is fixed now
    assert run("check", "--no-cache", "src/tags.ts", "--write-baseline", "b.json", cwd=proj).returncode == 0
    files = [e["file"] for e in json.loads((proj / "b.json").read_text("utf-8"))["findings"]]
    assert files == ["src/notes.ts", "src/tags.ts"]
    # written for the whole project: the fixed finding is gone
    assert run("check", "--no-cache", "--write-baseline", "b.json", cwd=proj).returncode == 0
    files = [e["file"] for e in json.loads((proj / "b.json").read_text("utf-8"))["findings"]]
    assert files == ["src/tags.ts"]


def test_identical_findings_are_counted(proj: Path):
    twice = OTHER + OTHER.replace("tags", "labels").replace("/api/labels", "/api/tags")
    (proj / "src/tags.ts").write_text(twice, "utf-8")
    assert run("check", "--no-cache", "--write-baseline", "b.json", cwd=proj).returncode == 0
    entry = next(e for e in json.loads((proj / "b.json").read_text("utf-8"))["findings"]
                 if e["file"] == "src/tags.ts")
    assert entry["count"] == 1  # different lines: different identities
    (proj / "src/tags.ts").write_text(OTHER + OTHER, "utf-8")  # the same line twice
    assert run("check", "--no-cache", "--write-baseline", "b.json", cwd=proj).returncode == 0
    entry = next(e for e in json.loads((proj / "b.json").read_text("utf-8"))["findings"]
                 if e["file"] == "src/tags.ts")
    assert entry["count"] == 2
    (proj / "src/tags.ts").write_text(OTHER * 3, "utf-8")  # a third copy: only it is new
    out = run("check", "--no-cache", "--baseline", "b.json", cwd=proj)
    assert out.returncode == 1
    assert [ln.split(": ", 1)[0] for ln in findings(out)] == ["src/tags.ts:3:33"]


def test_the_configured_baseline_is_used_and_can_be_ignored(proj: Path):
    assert run("check", "--no-cache", "--write-baseline", "ci/baseline.json", cwd=proj).returncode == 0
    (proj / "specward.toml").write_text('baseline = "ci/baseline.json"\n', "utf-8")
    assert run("check", "--no-cache", cwd=proj).returncode == 0
    # from another folder, the paths in it still mean the same files
    assert run("check", "--no-cache", "proj", cwd=proj.parent).returncode == 0
    assert run("check", "--no-cache", "--no-baseline", cwd=proj).returncode == 1
    (proj / "ci/baseline.json").unlink()
    missing = run("check", "--no-cache", cwd=proj)
    assert missing.returncode == 1
    assert "baseline ci/baseline.json, named in the configuration, does not exist" in missing.stderr


def test_a_configured_baseline_outside_the_project_is_invalid_configuration(proj: Path):
    (proj / "specward.toml").write_text('baseline = "../elsewhere.json"\n', "utf-8")
    out = run("check", "--no-cache", cwd=proj)
    assert out.returncode == 2
    assert "config-invalid" in out.stdout and "the baseline must be a path inside the project" in out.stdout


@pytest.mark.parametrize("content, says", [
    ('{"specward_baseline": 1, "findings": [', "not valid JSON"),
    ('{"version": "2.1.0", "runs": []}', "not a specward baseline"),
    ('{"specward_baseline": 9, "findings": []}', "baseline format 9; this specward reads format 1"),
    ('{"specward_baseline": 1, "findings": [{"file": "a.ts"}]}', "findings[0] needs string `file`"),
])
def test_a_broken_baseline_is_a_clear_error_and_is_left_alone(proj: Path, content: str, says: str):
    (proj / "b.json").write_text(content, "utf-8")
    out = run("check", "--no-cache", "--baseline", "b.json", cwd=proj)
    assert out.returncode == 2
    assert f"specward: error: baseline b.json: {says}" in out.stderr
    wrote = run("check", "--no-cache", "--write-baseline", "b.json", cwd=proj)
    assert wrote.returncode == 2 and says in wrote.stderr
    assert (proj / "b.json").read_text("utf-8") == content  # nothing lost
    absent = run("check", "--no-cache", "--baseline", "none.json", cwd=proj)
    assert absent.returncode == 2 and "no such file (record one with --write-baseline none.json)" in absent.stderr


# ---------------------------------------------------------------- gates and exit status
def test_hard_and_soft_gates(proj: Path):
    (proj / "specward.toml").write_text('[severity]\n"phantom-api" = "warning"\n\n[gates]\nhard = ["phantom-api"]\n',
                                        "utf-8")
    hard = run("check", "--no-cache", cwd=proj)
    assert hard.returncode == 1 and "0 error(s), 2 warning(s)" in hard.stdout
    assert "failing on hard gate(s): 2 phantom-api" in hard.stderr
    (proj / "specward.toml").write_text('[gates]\nsoft = ["phantom-api"]\n', "utf-8")
    soft = run("check", "--no-cache", cwd=proj)
    assert soft.returncode == 0, soft.stdout
    assert len(findings(soft)) == 2  # reported all the same
    assert soft.stdout.splitlines()[-1] == "accepted (soft gates): 2 phantom-api"
    data = json.loads(run("check", "--no-cache", "--format", "json", cwd=proj).stdout)
    assert data["summary"]["accepted"] == {"phantom-api": 2}


def test_gates_with_unknown_or_conflicting_codes_are_invalid_configuration(proj: Path):
    (proj / "specward.toml").write_text('[gates]\nhard = ["phantom-apis"]\n', "utf-8")
    out = run("check", "--no-cache", cwd=proj)
    assert out.returncode == 2
    assert "config-invalid" in out.stdout and "unknown diagnostic code(s) phantom-apis" in out.stdout
    (proj / "specward.toml").write_text('[gates]\nhard = ["phantom-api"]\nsoft = ["phantom-api"]\n', "utf-8")
    out = run("check", "--no-cache", cwd=proj)
    assert out.returncode == 2 and "both hard and soft: phantom-api" in out.stdout


def test_exit_zero_and_max_warnings(proj: Path):
    assert run("check", "--no-cache", "--exit-zero", cwd=proj).returncode == 0
    (proj / "specward.toml").write_text('[severity]\n"phantom-api" = "warning"\n', "utf-8")
    assert run("check", "--no-cache", cwd=proj).returncode == 0  # warnings do not fail by themselves
    assert run("check", "--no-cache", "--max-warnings", "2", cwd=proj).returncode == 0
    over = run("check", "--no-cache", "--max-warnings", "1", cwd=proj)
    assert over.returncode == 1 and "2 warning(s), more than --max-warnings 1" in over.stderr
    zero = run("check", "--no-cache", "--max-warnings", "0", "--exit-zero", cwd=proj)
    assert zero.returncode == 0 and "exit status 0 (--exit-zero)" in zero.stderr
    bad = run("check", "--max-warnings", "-1", cwd=proj)
    assert bad.returncode == 2 and "must not be negative" in bad.stderr


def test_statistics(proj: Path):
    (proj / "src/tags.ts").write_text(OTHER + "import { nothing } from './gone';\n", "utf-8")
    out = run("check", "--no-cache", "--statistics", cwd=proj)
    lines = out.stdout.splitlines()
    assert lines[:2] == ["     2  phantom-api     error", "     1  phantom-import  error"]
    assert lines[2].startswith("3 error(s)")
    data = json.loads(run("check", "--no-cache", "--statistics", "--format", "json", cwd=proj).stdout)
    assert data["statistics"] == [{"code": "phantom-api", "count": 2, "severity": "error"},
                                  {"code": "phantom-import", "count": 1, "severity": "error"}]


# ---------------------------------------------------------------- colour and progress
def test_colour_only_when_asked_or_at_a_terminal(proj: Path):
    assert "\x1b[" not in run("check", "--no-cache", cwd=proj).stdout  # a pipe: auto is off
    always = run("check", "--no-cache", "--color", "always", cwd=proj).stdout
    assert "\x1b[1;31merror\x1b[0m" in always
    assert "\x1b[" not in run("check", "--no-cache", "--color", "never", cwd=proj).stdout
    at_tty = _at_terminal(proj, ["check", "--no-cache"], {})
    assert "\x1b[1;31merror" in at_tty
    assert "\x1b[" not in _at_terminal(proj, ["check", "--no-cache"], {"NO_COLOR": "1"})


def _at_terminal(cwd: Path, args: list[str], env: dict, stream: str = "stdout") -> str:
    """What the command writes to ``stream`` when that stream is a terminal."""
    main, sub = pty.openpty()
    other = subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-m", "specward.server", *args], cwd=cwd,
                            stdout=sub if stream == "stdout" else other, stderr=sub if stream == "stderr" else other,
                            env={**os.environ, **env})
    os.close(sub)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    proc.communicate(timeout=120)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_only(proj: Path):
    shown = _at_terminal(proj, ["check", "--no-cache"], {"SPECWARD_PROGRESS_DELAY": "0"}, stream="stderr")
    assert "indexing . [" in shown and "files" in shown and "\r" in shown
    piped = run("check", "--no-cache", cwd=proj, env={"SPECWARD_PROGRESS_DELAY": "0"})
    assert "\r" not in piped.stderr and "indexing" not in piped.stderr


# ---------------------------------------------------------------- --changed-since
def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, check=True,
                   capture_output=True)


def test_changed_since_reports_the_changed_files_and_their_dependents(proj: Path):
    git(proj, "init", "-q", "-b", "main")
    git(proj, "add", "-A")
    git(proj, "commit", "-qm", "start")
    out = run("check", "--no-cache", "--changed-since", "main", "--format", "json", cwd=proj)
    assert out.returncode == 0 and codes_at(out) == []  # nothing changed: nothing reported
    (proj / "src/base.ts").write_text("export const base = '/api/v2';\n", "utf-8")  # every call of notes.ts moves
    out = run("check", "--no-cache", "--changed-since", "main", "--format", "json", cwd=proj)
    assert out.returncode == 1
    # the importer, and the contract whose endpoints it no longer calls; tags.ts is not reported
    assert {f for f, _ in codes_at(out)} == {"src/notes.ts", "openapi.yaml"}
    bad = run("check", "--no-cache", "--changed-since", "no-such-branch", cwd=proj)
    assert bad.returncode == 2 and "no-such-branch" in bad.stderr


def test_changed_since_outside_a_repository(proj: Path):
    out = run("check", "--no-cache", "--changed-since", "HEAD", cwd=proj)
    assert out.returncode == 2 and out.stderr.startswith("specward: error: --changed-since")


# ---------------------------------------------------------------- the CI formats
def test_sarif_from_the_command_line_validates(proj: Path):
    out = run("check", "--no-cache", "--format", "sarif", cwd=proj)
    assert out.returncode == 1
    log = json.loads(out.stdout)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results) == \
        ["src/notes.ts", "src/tags.ts"]
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["phantom-api"]["helpUri"].endswith("/docs/diagnostics/phantom-api.md")
    assert "2 error(s)" in out.stderr  # the summary goes to standard error


def test_github_gitlab_and_junit_from_the_command_line(proj: Path):
    gh = run("check", "--no-cache", "--format", "github", cwd=proj).stdout.splitlines()
    assert len(gh) == 2 and all(ln.startswith("::error file=src/") for ln in gh)
    gl = json.loads(run("check", "--no-cache", "--format", "gitlab", cwd=proj).stdout)
    assert sorted(i["location"]["path"] for i in gl) == ["src/notes.ts", "src/tags.ts"]
    assert len({i["fingerprint"] for i in gl}) == 2
    suite = ET.fromstring(run("check", "--no-cache", "--format", "junit", cwd=proj).stdout)
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert {"src/notes.ts", "src/tags.ts", "src/base.ts", "openapi.yaml"} <= set(cases)
    assert cases["src/base.ts"].find("failure") is None
    assert cases["src/tags.ts"].find("failure") is not None


def test_version(proj: Path):
    out = run("--version", cwd=proj)
    assert out.returncode == 0 and out.stdout.startswith("specward ")
