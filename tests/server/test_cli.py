"""``specward check`` and ``specward calls`` as a user runs them: a real process on real files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    return root


def test_check_text_output_and_exit_code(ws: Path):
    out = run("check", str(ws), cwd=ws.parent)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert ("web/src/features/profile.ts:10:29: error[phantom-api] GET /api/user/profile/avatar is not in the "
            "contract (nearest: GET /api/user/profile)") in lines
    assert any("error[method-mismatch] PATCH /api/users/{id}" in ln and "DELETE, GET" in ln for ln in lines)
    assert lines[-1].startswith("5 error(s), 0 warning(s), 3 information in ")


def test_check_json_output(ws: Path):
    out = run("check", ".", "--format", "json", cwd=ws)
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data["version"] == 1
    phantom = [d for d in data["diagnostics"] if d["code"] == "phantom-api"]
    assert {d["file"] for d in phantom} == {"web/src/features/articles.ts", "web/src/features/profile.ts",
                                            "scripts/sync_users.py"}
    avatar = next(d for d in phantom if "avatar" in d["message"])
    assert (avatar["line"], avatar["column"], avatar["end_line"], avatar["end_column"]) == (10, 29, 10, 51)
    assert avatar["severity"] == "error"
    assert data["summary"]["errors"] == 5 and data["summary"]["phantom"] == 4


def test_clean_workspace_exits_zero(ws: Path):
    for f in ("web/src/features/articles.ts", "web/src/features/profile.ts", "scripts/sync_users.py"):
        (ws / f).unlink()
    out = run("check", str(ws), cwd=ws.parent)
    assert out.returncode == 0, out.stdout
    assert "0 error(s)" in out.stdout.splitlines()[-1]


def test_check_selected_files_only(ws: Path):
    out = run("check", "web/src/features/profile.ts", "--format", "json", cwd=ws)
    files = {d["file"] for d in json.loads(out.stdout)["diagnostics"]}
    assert files == {"web/src/features/profile.ts"}


def test_contract_option_replaces_discovery(ws: Path):
    out = run("calls", ".", "--format", "json", "--contract", "contracts/openapi.yaml", cwd=ws)
    rows = json.loads(out.stdout)
    tags = next(r for r in rows if r["url"] == "/api/tags")
    assert tags["status"] == "phantom"  # /api/tags is declared only in the SpecDSL contract


def test_calls_json(ws: Path):
    out = run("calls", ".", "--format", "json", cwd=ws)
    assert out.returncode == 0
    rows = json.loads(out.stdout)
    by = {(r["file"], r["line"]): r for r in rows}
    assert by[("web/src/features/profile.ts", 4)] == {
        "file": "web/src/features/profile.ts", "line": 4, "column": 29, "method": "GET", "url": "/api/user/profile",
        "status": "matched", "endpoint": "GET /api/user/profile", "via": "axios", "reason": None}
    assert by[("web/src/features/profile.ts", 20)]["status"] == "method-mismatch"
    assert by[("web/src/features/articles.ts", 12)]["method"] == "DELETE"
    assert by[("web/src/features/articles.ts", 12)]["url"] == "/api/articles/{slug}/comments/{id}"
    assert {r["status"] for r in rows} <= {"matched", "phantom", "method-mismatch", "unresolved"}


def test_calls_text_table(ws: Path):
    out = run("calls", ".", cwd=ws)
    assert out.stdout.splitlines()[0].split() == ["LOCATION", "METHOD", "URL", "STATUS", "ENDPOINT"]
    assert "phantom" in out.stdout and out.stdout.rstrip().splitlines()[-1].startswith("15 call(s)")


def test_usage_errors_exit_two(ws: Path):
    assert run("check", "does-not-exist", cwd=ws).returncode == 2
    out = run("check", ".", "--contract", "nope.yaml", cwd=ws)
    assert out.returncode == 2 and "nope.yaml" in out.stderr


def test_invalid_config_exits_two_and_names_the_file(ws: Path):
    (ws / "specward.toml").write_text('max_file_size = "big"\nunknown_key = 1\n')
    out = run("check", ".", cwd=ws)
    assert out.returncode == 2
    assert "specward.toml:1:" in out.stderr and "max_file_size" in out.stderr
    assert "unknown_key" in out.stderr


def test_broken_contract_is_an_error_on_the_right_line(ws: Path):
    (ws / "contracts/openapi.yaml").write_text("openapi: 3.0.3\npaths:\n  /users:\n    get: [unclosed\n")
    out = run("check", ".", "--format", "json", cwd=ws)
    assert out.returncode == 1
    bad = [d for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "contract-invalid"]
    assert bad and all(d["file"] == "contracts/openapi.yaml" for d in bad)
    assert bad[0]["line"] > 1


def test_skipped_files_are_reported_once(ws: Path):
    (ws / "web/src/bin.ts").write_bytes(b"\x00\x01\x02")
    (ws / "web/src/latin1.py").write_bytes("x = 'caf\xe9'".encode("latin-1"))
    out = run("check", ".", cwd=ws)
    skipped = [ln for ln in out.stderr.splitlines() if "skipped" in ln]
    assert len(skipped) == 1 and "web/src/bin.ts (binary file)" in skipped[0] and "latin1.py (not UTF-8" in skipped[0]
