"""``specward impact`` as a user runs it: a real process, in a real git repository made for
the test, comparing a committed contract with the working tree; and ``check
--impact-since``, which shows the same as findings on the contract."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specward.analyzers.contracts import parse_contract
from specward.analyzers.provenance import elements_of, render_header

from conftest import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

API = """\
openapi: 3.0.3
info: {title: Accounts, version: "1"}
servers: [{url: /api}]
paths:
  /auth/login:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Credentials'}
      responses:
        '200':
          description: Logged in
          content:
            application/json:
              schema: {$ref: '#/components/schemas/LoginResponse'}
  /users/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200': {description: One user}
components:
  schemas:
    Credentials: {type: object, properties: {email: {type: string}, password: {type: string}}}
    LoginResponse: {type: object, properties: {token: {type: string}, expires: {type: integer}}}
"""

# the token is gone from the login response, GET /users/{id} is gone, GET /users/me is new
CHANGED = (API.replace("token: {type: string}, ", "")
           .replace("  /users/{id}:\n    get:\n      parameters:\n"
                    "        - {name: id, in: path, required: true, schema: {type: integer}}\n",
                    "  /users/me:\n    get:\n"))

LOGIN_TS = """\
import { login } from './gen/auth';

export const signIn = (email: string, password: string) => login(email, password);
"""

USERS_TS = """\
export async function user(id: number) {
  return fetch(`/api/users/${id}`);
}
"""


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "accounts"
    root.mkdir()
    git(root, "init", "-q")
    (root / "specs").mkdir()
    (root / "web/src/gen").mkdir(parents=True)
    (root / "specs/api.yaml").write_text(API)
    facts = parse_contract("specs/api.yaml", API)
    header = render_header("specs/api.yaml", [(e.id, e.hash) for e in
                                              elements_of(facts, ["POST /api/auth/login", "model LoginResponse"])])
    (root / "web/src/gen/auth.ts").write_text(
        f"{header}\n"
        "export async function login(email: string, password: string) {\n"
        "  return fetch('/api/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) });\n"
        "}\n")
    (root / "web/src/login.ts").write_text(LOGIN_TS)
    (root / "web/src/users.ts").write_text(USERS_TS)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "accounts")
    (root / "specs/api.yaml").write_text(CHANGED)
    return root


def test_impact_of_the_working_tree_against_head(repo: Path):
    out = run("impact", "HEAD:specs/api.yaml", "specs/api.yaml", "--no-cache", cwd=repo)
    assert out.returncode == 1, out.stderr
    assert out.stdout.splitlines() == [
        "specs/api.yaml: HEAD:specs/api.yaml -> specs/api.yaml",
        "endpoints: 1 added, 1 removed, 1 changed; models: 1 changed",
        "  changed  POST /api/auth/login",
        "             response field token removed",
        "  added    GET /api/users/me",
        "  removed  GET /api/users/{id}",
        "  changed  model LoginResponse",
        "             field token removed",
        "blast radius: 3 file(s)",
        "  call sites:",
        "    web/src/gen/auth.ts:3:16  POST /api/auth/login  (POST /api/auth/login, model LoginResponse)",
        # a dynamic segment stands for `me`: the index matches the call to the new endpoint (weakly)
        "    web/src/users.ts:2:16  GET /api/users/{id}  (GET /api/users/me, GET /api/users/{id})",
        "  generated files:",
        "    web/src/gen/auth.ts  (POST /api/auth/login, model LoginResponse)",
        "  importers of generated files:",
        "    web/src/login.ts  (imports web/src/gen/auth.ts)",
    ]


def test_impact_json_from_another_folder_with_new_defaulting_to_the_working_tree(repo: Path):
    out = run("impact", "HEAD:accounts/specs/api.yaml", "--format", "json", "--no-cache", cwd=repo.parent)
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert (data["contract"], data["old"], data["new"]) == ("accounts/specs/api.yaml", "HEAD:accounts/specs/api.yaml",
                                                            "accounts/specs/api.yaml")
    endpoints = data["diff"]["endpoints"]
    assert [c["id"] for c in endpoints["removed"]] == ["GET /api/users/{id}"]
    assert [c["id"] for c in endpoints["added"]] == ["GET /api/users/me"]
    login = endpoints["changed"][0]
    assert login["summary"] == "POST /api/auth/login: response field token removed"
    assert login["changes"] == [{"what": "response field token", "change": "removed", "old": "string", "new": None,
                                 "text": "response field token removed"}]
    radius = data["blast_radius"]
    assert radius["files"] == ["accounts/web/src/gen/auth.ts", "accounts/web/src/login.ts", "accounts/web/src/users.ts"]
    assert [(c["file"], c["line"], c["column"], c["method"], c["url"]) for c in radius["calls"]] == [
        ("accounts/web/src/gen/auth.ts", 3, 16, "POST", "/api/auth/login"),
        ("accounts/web/src/users.ts", 2, 16, "GET", "/api/users/{id}"),
    ]
    assert radius["importers"] == [{"file": "accounts/web/src/login.ts", "imports": ["accounts/web/src/gen/auth.ts"]}]


def test_no_change_exits_zero_and_usage_errors_exit_two(repo: Path):
    (repo / "specs/api.yaml").write_text(API.replace("  ", "    ").replace("info: {title: Accounts", "info: {title: X"))
    same = run("impact", "HEAD:specs/api.yaml", cwd=repo)
    assert same.returncode == 0 and "no endpoint or model changed" in same.stdout, same.stderr
    missing = run("impact", "HEAD~5:specs/api.yaml", cwd=repo)
    assert missing.returncode == 2 and missing.stderr.startswith("specward: error: git: "), missing.stderr
    absent = run("impact", "HEAD:specs/none.yaml", "specs/api.yaml", cwd=repo)
    assert absent.returncode == 2 and "specs/none.yaml" in absent.stderr
    assert run("impact", "specs/api.yaml", cwd=repo).returncode == 2  # a file needs a NEW
    outside = run("impact", "HEAD:../elsewhere.yaml", "specs/api.yaml", cwd=repo)
    assert outside.returncode == 2 and "outside the project" in outside.stderr
    option = run("impact", "--oops:specs/api.yaml", cwd=repo)
    assert option.returncode == 2
    readme = repo / "README.md"
    readme.write_text("# not a contract\n")
    assert "not a readable contract" in run("impact", "README.md", "specs/api.yaml", cwd=repo).stderr
    no_git = run("impact", "HEAD:specs/api.yaml", cwd=repo, env={**os.environ, "PATH": str(repo / "nowhere")})
    assert no_git.returncode == 2 and "git is not installed" in no_git.stderr


def test_check_impact_since_shows_the_change_on_the_contract(repo: Path):
    out = run("check", ".", "--impact-since", "HEAD", "--no-cache", cwd=repo)
    impact = [line for line in out.stdout.splitlines() if "[contract-change-impact]" in line]
    assert impact == [
        "specs/api.yaml:1:1: information[contract-change-impact] GET /api/users/{id} removed — this change affects "
        "1 file",
        "specs/api.yaml:6:5: information[contract-change-impact] POST /api/auth/login: response field token "
        "removed — this change affects 2 files",
        "specs/api.yaml:18:5: information[contract-change-impact] GET /api/users/me added — this change affects "
        "1 file",
        "specs/api.yaml:24:5: information[contract-change-impact] model LoginResponse: field token removed — this "
        "change affects 2 files",
    ]
    # the generated file knows what changed: its version was read from git
    assert ("web/src/gen/auth.ts:1:1: warning[stale-generated] POST /api/auth/login: response field token removed "
            "(specs/api.yaml changed since this file was generated)") in out.stdout.splitlines()
    bad = run("check", ".", "--impact-since", "specs/none.yaml=HEAD:specs/api.yaml", cwd=repo)
    assert bad.returncode == 2 and "not one of the project's contracts" in bad.stderr
