"""`specward export openapi|client` through a real subprocess (server/export_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "examples" / "fullstack" / "contracts" / "articles.dsl.json"


def specward(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_openapi_to_stdout_yaml_and_json(tmp_path: Path):
    run = specward("export", "openapi", str(ARTICLES), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    doc = yaml.safe_load(run.stdout)
    assert doc["openapi"] == "3.1.0" and "/api/articles/{slug}" in doc["paths"]
    assert "'201':" in run.stdout
    run = specward("export", "openapi", str(ARTICLES), "--format", "json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == doc
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_client_to_stdout(tmp_path: Path):
    run = specward("export", "client", str(ARTICLES), "--lang", "ts", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "export function createClient(" in run.stdout and "export interface Article {" in run.stdout


def test_client_needs_a_language(tmp_path: Path):
    run = specward("export", "client", str(ARTICLES), cwd=tmp_path)
    assert run.returncode == 2 and "--lang" in run.stderr


def test_output_without_yes_and_terminal_writes_nothing(tmp_path: Path):
    run = specward("export", "client", str(ARTICLES), "--lang", "ts", "--output", "web/api.ts", cwd=tmp_path)
    assert run.returncode == 1
    assert "specward will create web/api.ts" in run.stdout and "+++ b/web/api.ts" in run.stdout
    assert "--yes" in run.stderr
    assert not (tmp_path / "web").exists()


def test_output_with_yes_writes_then_diffs(tmp_path: Path):
    run = specward("export", "openapi", str(ARTICLES), "--output", "openapi.yaml", "--yes", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = (tmp_path / "openapi.yaml").read_text("utf-8")
    assert written == specward("export", "openapi", str(ARTICLES), cwd=tmp_path).stdout
    again = specward("export", "openapi", str(ARTICLES), "--output", "openapi.yaml", cwd=tmp_path)
    assert again.returncode == 0 and "already up to date" in again.stderr and again.stdout == ""
    (tmp_path / "openapi.yaml").write_text(written.replace("title: Articles and comments", "title: Old"), "utf-8")
    changed = specward("export", "openapi", str(ARTICLES), "--output", "openapi.yaml", cwd=tmp_path)
    assert changed.returncode == 1
    assert "specward will overwrite openapi.yaml" in changed.stdout
    assert "-  title: Old\n+  title: Articles and comments\n" in changed.stdout
    assert "title: Old" in (tmp_path / "openapi.yaml").read_text("utf-8")  # unchanged


def test_output_outside_the_current_folder_is_refused(tmp_path: Path):
    inner = tmp_path / "inner"
    inner.mkdir()
    run = specward("export", "openapi", str(ARTICLES), "--output", "../out.yaml", "--yes", cwd=inner)
    assert run.returncode == 2 and "outside the current folder" in run.stderr
    assert not (tmp_path / "out.yaml").exists()


def test_broken_contract_is_exit_2_with_the_problems(tmp_path: Path):
    bad = tmp_path / "bad.dsl.json"
    bad.write_text('{"version": "2.0", "feature": {"id": "x", "title": "X", "description": "d"},\n'
                   ' "models": [], "endpoints": [{"id": "E", "method": "get", "path": "/x"}]}\n', "utf-8")
    for args in (("openapi",), ("client", "--lang", "ts")):
        run = specward("export", args[0], "bad.dsl.json", *args[1:], cwd=tmp_path)
        assert run.returncode == 2
        assert run.stdout == ""
        assert "bad.dsl.json:1:" in run.stderr and 'version: must be "1.0"' in run.stderr
        assert "the contract is not valid" in run.stderr
    (tmp_path / "syntax.dsl.json").write_text("{ not json", "utf-8")
    run = specward("export", "openapi", "syntax.dsl.json", cwd=tmp_path)
    assert run.returncode == 2 and "not valid" in run.stderr


def test_missing_or_wrong_kind_of_file_is_exit_2(tmp_path: Path):
    run = specward("export", "openapi", "nope.dsl.json", cwd=tmp_path)
    assert run.returncode == 2 and "cannot read" in run.stderr
    (tmp_path / "api.yaml").write_text("openapi: 3.1.0\n", "utf-8")
    run = specward("export", "openapi", "api.yaml", cwd=tmp_path)
    assert run.returncode == 2 and "not a SpecDSL contract" in run.stderr
