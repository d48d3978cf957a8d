"""``specward check`` and ``specward calls`` as a user runs them: a real process on real files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

from conftest import copy_example

PROFILE_AVATAR = ("error[phantom-api] GET /api/user/profile/avatar is not in the contract "
                  "(nearest: GET /api/user/profile)")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "ws")


def test_check_text_output_and_exit_code(ws: Path):
    out = run("check", str(ws), cwd=ws.parent)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert f"ws/web/src/features/profile.ts:10:29: {PROFILE_AVATAR}" in lines  # relative to the current folder
    assert any("error[method-mismatch] PATCH /api/users/{id}" in ln and "DELETE, GET" in ln for ln in lines)
    assert lines[-1].startswith("7 error(s), 0 warning(s), 3 information in ")


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
    assert data["summary"]["errors"] == 7 and data["summary"]["phantom"] == 4


def test_clean_workspace_exits_zero(ws: Path):
    for f in ("web/src/features/articles.ts", "web/src/features/profile.ts", "web/src/features/search.ts",
              "scripts/sync_users.py"):
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
        "status": "matched", "endpoint": "GET /api/user/profile", "via": "axios", "reason": None,
        "candidates": [], "match": "exact"}
    assert by[("web/src/features/profile.ts", 20)]["status"] == "method-mismatch"
    assert by[("web/src/features/articles.ts", 12)]["method"] == "DELETE"
    assert by[("web/src/features/articles.ts", 12)]["url"] == "/api/articles/{slug}/comments/{id}"
    assert {r["status"] for r in rows} <= {"matched", "phantom", "method-mismatch", "unresolved"}


def test_calls_json_lists_the_candidates_of_a_conditional_url_and_weak_matches(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n"
        "  /api/posts: {get: {responses: {'200': {description: ok}}}}\n"
        "  /api/posts/mine: {get: {responses: {'200': {description: ok}}}}\n"
        "  /api/users/me: {get: {responses: {'200': {description: ok}}}}\n")
    (tmp_path / "web.ts").write_text(
        "export const posts = (mine: boolean) => fetch('/api/posts' + (mine ? '/mine' : ''));\n"
        "export const user = (id: string) => fetch(`/api/users/${id}`);\n")
    out = run("calls", ".", "--format", "json", cwd=tmp_path)
    rows = {r["line"]: r for r in json.loads(out.stdout)}
    assert rows[1]["candidates"] == ["/api/posts/mine", "/api/posts"] and rows[1]["status"] == "matched"
    assert rows[2]["match"] == "weak" and rows[2]["endpoint"] == "GET /api/users/me"
    text = run("calls", ".", cwd=tmp_path).stdout
    assert "matched (weak)" in text and "[candidates: /api/posts/mine, /api/posts]" in text


def test_calls_says_what_the_module_resolver_could_not_follow(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /api/x: {get: {responses: {'200': {description: ok}}}}\n")
    (tmp_path / "jsconfig.json").write_text('{"extends": "./.svelte-kit/tsconfig.json"}\n')
    (tmp_path / "a.js").write_text("fetch('/api/x');\n")
    text = run("calls", ".", cwd=tmp_path).stdout
    assert "note: jsconfig.json: extends ./.svelte-kit/tsconfig.json" in text
    out = run("calls", ".", "--format", "json", cwd=tmp_path)
    assert json.loads(out.stdout) and "specward: note: jsconfig.json" in out.stderr


def test_calls_text_table(ws: Path):
    out = run("calls", ".", cwd=ws)
    assert out.stdout.splitlines()[0].split() == ["LOCATION", "METHOD", "URL", "STATUS", "ENDPOINT"]
    assert "phantom" in out.stdout and out.stdout.rstrip().splitlines()[-1].startswith("16 call(s)")


def test_usage_errors_exit_two(ws: Path):
    assert run("check", "does-not-exist", cwd=ws).returncode == 2
    out = run("check", ".", "--contract", "nope.yaml", cwd=ws)
    assert out.returncode == 2 and "nope.yaml" in out.stderr


def test_invalid_config_is_checked_with_the_defaults_then_exits_two(ws: Path):
    (ws / "specward.toml").write_text('max_file_size = "big"\nunknown_key = 1\n')
    out = run("check", "web", cwd=ws)
    assert out.returncode == 2
    lines = out.stdout.splitlines()
    # the configuration's problems are findings (whatever the paths given), and the paths
    # given are checked with the defaults all the same
    assert any(ln.startswith("specward.toml:1:1: error[config-invalid] invalid setting max_file_size") for ln in lines)
    assert any(ln.startswith("specward.toml:2:1: error[config-invalid] invalid setting unknown_key") for ln in lines)
    assert f"web/src/features/profile.ts:10:29: {PROFILE_AVATAR}" in lines
    assert lines[-1].startswith("8 error(s)")
    assert out.stderr.splitlines()[-1] == ("specward: error: invalid configuration in specward.toml: "
                                           "checked with the defaults")
    data = json.loads(run("check", "web", "--format", "json", cwd=ws).stdout)
    assert {d["code"] for d in data["diagnostics"]} == {"config-invalid", "phantom-api", "method-mismatch",
                                                            "phantom-import", "missing-export"}


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


# ---------------------------------------------------------------- a cache left in the example
def test_a_cache_left_in_the_example_never_reaches_a_test(request):
    """The README's two lines in order: the first writes `.specward/` into the example (the
    checkout's, ignored by git); the fixtures' copies made after it still start cold."""
    example = Path(__file__).resolve().parents[2] / "examples" / "fullstack"
    left_by_the_user = (example / ".specward").exists()
    try:
        first = run("check", "examples/fullstack", cwd=example.parents[1])
        assert first.returncode == 1, first.stderr
        assert (example / ".specward" / "cache.sqlite").is_file()
        assert (example / ".specward" / ".gitignore").read_text() == "*\n"
        for name in ("ws", "workspace"):  # this module's fixture, and the LSP tests' (conftest)
            copy = request.getfixturevalue(name)
            assert not (copy / ".specward").exists(), name
            idx = WorkspaceIndex(copy)
            idx.build()
            assert idx.stats["parsed_files"] == 9 and idx.stats["cached_files"] == 0, name
            shutil.rmtree(copy)  # the next fixture copies into the same folder
    finally:
        if not left_by_the_user:
            shutil.rmtree(example / ".specward", ignore_errors=True)


def test_git_never_sees_the_cache(ws: Path):
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    before = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ws, capture_output=True,
                            text=True, check=True).stdout
    assert run("check", "web", cwd=ws).returncode == 1
    assert (ws / ".specward" / "cache.sqlite").is_file()
    after = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ws, capture_output=True,
                           text=True, check=True).stdout
    assert after == before and ".specward" not in after


# ---------------------------------------------------------------- the project root
def test_a_folder_argument_is_checked_inside_its_project(ws: Path):
    out = run("check", "web", cwd=ws)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert f"web/src/features/profile.ts:10:29: {PROFILE_AVATAR}" in lines
    assert lines[-1].startswith("6 error(s), 0 warning(s), 0 information in 3 file(s); 12 HTTP call(s): 8 matched, "
                                "3 phantom, 1 method mismatch, 0 unresolved; 13 endpoint(s) in 2 contract(s)")
    assert not any(ln.startswith(("scripts/", "contracts/")) for ln in lines)  # only the path given


def test_paths_print_relative_to_the_current_folder_for_files_and_folders(ws: Path):
    web = ws / "web"
    for args in (("check", "."), ("check", "src"), ("check", "src/features/profile.ts"), ("check",)):
        out = run(*args, cwd=web)
        assert out.returncode == 1, (args, out.stderr)
        assert f"src/features/profile.ts:10:29: {PROFILE_AVATAR}" in out.stdout.splitlines(), args
    out = run("check", "../scripts", cwd=web)
    assert out.stdout.splitlines()[0].startswith("../scripts/sync_users.py:24:25: error[phantom-api]")
    calls = json.loads(run("calls", "src/features/profile.ts", "--format", "json", cwd=web).stdout)
    assert {r["file"] for r in calls} == {"src/features/profile.ts"}


def test_the_repository_root_is_the_project_without_configuration(tmp_path: Path):
    repo = tmp_path / "repo"
    copy_example(repo)
    (repo / "pyproject.toml").unlink()  # the example's marker
    (repo / ".git").mkdir()
    (repo / "web" / "pyproject.toml").write_text('[project]\nname = "web"\n')  # no [tool.specward]: not a marker
    out = run("check", "src", cwd=repo / "web")
    assert out.returncode == 1, out.stderr
    assert f"src/features/profile.ts:10:29: {PROFILE_AVATAR}" in out.stdout.splitlines()
    assert "13 endpoint(s) in 2 contract(s)" in out.stdout
    # the nearest marker wins: web/ with its own specward.toml is a project without a contract
    (repo / "web" / "specward.toml").write_text("")
    where = f"no contract found in {(repo / 'web').resolve()} (the project root: the nearest folder with specward.toml)"
    out = run("check", "src", cwd=repo / "web")
    assert f"specward: note: {where}" in out.stderr
    assert "0 endpoint(s) in 0 contract(s)" in out.stdout and "[phantom-api]" not in out.stdout
    strict = run("check", "src", "--require-contract", cwd=repo / "web")
    assert strict.returncode == 2 and f"specward: error: {where}" in strict.stderr


def test_require_contract_fails_without_one_and_says_where_it_looked(tmp_path: Path):
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "src/api.ts").write_text("export const load = () => fetch('/api/things');\n")
    out = run("check", "src", "--require-contract", cwd=app)
    assert out.returncode == 2
    assert out.stdout.splitlines()[-1].startswith("0 error(s)")
    message = out.stderr.splitlines()[-1]
    assert message.startswith(f"specward: error: no contract found in {(app / 'src').resolve()} (no specward.toml")
    assert "*.dsl.json" in message and "--contract FILE" in message and "--require-contract" in message
    assert run("calls", "src", "--require-contract", cwd=app).returncode == 2
    # the old switch stays accepted: it only silences the note
    allowed = run("check", "src", "--allow-no-contract", cwd=app)
    assert allowed.returncode == 0 and allowed.stderr == ""
    assert run("calls", "src", "--allow-no-contract", cwd=app).returncode == 0
    # asking for both is a usage error, not a guess which one wins
    both = run("check", "src", "--allow-no-contract", "--require-contract", cwd=app)
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_no_contract_runs_the_other_checks_and_notes_the_skipped_api_checks(tmp_path: Path):
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    (app / "src").mkdir()
    (app / "src/cart.ts").write_text(
        "import { formatPrice } from './money';\n"
        "export const total = (n: number) => formatPrice(n);\n"
        "export const load = () => fetch('/api/cart');\n")
    out = run("check", ".", cwd=app)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("src/cart.ts:1:30: error[phantom-import] cannot find module './money'")
    assert lines[-1] == ("1 error(s), 0 warning(s), 0 information in 1 file(s); 1 HTTP call(s): 0 matched, "
                         "0 phantom, 0 method mismatch, 1 unresolved; 0 endpoint(s) in 0 contract(s)")
    notes = [ln for ln in out.stderr.splitlines() if "no contract found" in ln]
    assert len(notes) == 1, out.stderr  # said once
    assert notes[0].startswith(f"specward: note: no contract found in {app.resolve()} (the project root: ")
    assert "phantom-API checks were skipped" in notes[0] and "--contract FILE" in notes[0]
    assert "`contracts` setting" in notes[0] and "error" not in notes[0]
    data = json.loads(run("check", ".", "--format", "json", cwd=app).stdout)
    assert [d["code"] for d in data["diagnostics"]] == ["phantom-import"]
    assert data["summary"]["api_checks_skipped"] is True and data["summary"]["projects_without_contract"] == ["."]
    calls = run("calls", ".", "--format", "json", cwd=app)
    assert calls.returncode == 0 and [r["status"] for r in json.loads(calls.stdout)] == ["unresolved"]
    assert "specward: note: no contract found" in calls.stderr


def test_no_contract_and_nothing_wrong_exits_zero(tmp_path: Path):
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "src/money.ts").write_text("export const formatPrice = (n: number) => `$${n.toFixed(2)}`;\n")
    (app / "src/cart.ts").write_text(
        "import { formatPrice } from './money';\nexport const total = (n: number) => formatPrice(n);\n")
    out = run("check", "src", cwd=app)
    assert out.returncode == 0, (out.stdout, out.stderr)
    assert out.stdout.splitlines()[-1].startswith("0 error(s), 0 warning(s), 0 information in 0 file(s)")
    assert out.stderr.startswith("specward: note: no contract found in ")
    # a project with a contract says nothing of the kind, and its summary says the checks ran
    (app / "src/openapi.yaml").write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
    out = run("check", "src", "--format", "json", cwd=app)
    assert out.returncode == 0 and "no contract" not in out.stderr
    summary = json.loads(out.stdout)["summary"]
    assert summary["api_checks_skipped"] is False and summary["projects_without_contract"] == []


def test_a_broken_contract_is_reported_even_in_a_project_that_has_only_that_one(tmp_path: Path):
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    (app / "openapi.yaml").write_text("openapi: 3.0.3\npaths:\n  /users:\n    get: [unclosed\n")
    (app / "client.ts").write_text("export const users = () => fetch('/users');\n")
    for extra in ((), ("--allow-no-contract",), ("--require-contract",)):
        out = run("check", ".", "--format", "json", *extra, cwd=app)
        assert out.returncode == 1, (extra, out.stderr)
        bad = [d for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "contract-invalid"]
        assert bad and bad[0]["file"] == "openapi.yaml" and bad[0]["severity"] == "error", extra
        assert "no contract found" not in out.stderr, extra
        assert json.loads(out.stdout)["summary"]["api_checks_skipped"] is False


def test_contracts_named_in_the_configuration_and_missing_stay_an_error(tmp_path: Path):
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "specward.toml").write_text('contracts = ["api/*.yaml"]\n')
    (app / "src/api.ts").write_text("export const load = () => fetch('/api/things');\n")
    out = run("check", ".", cwd=app)
    assert out.returncode == 2 and "specward: error: no contract found" in out.stderr
    assert "the configured contracts (api/*.yaml)" in out.stderr
    allowed = run("check", ".", "--allow-no-contract", cwd=app)
    assert allowed.returncode == 0 and "specward: warning: no contract found" in allowed.stderr
    # an empty list says "no contract" on purpose: checked without one, and no note
    (app / "specward.toml").write_text("contracts = []\n")
    quiet = run("check", ".", cwd=app)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_paths_in_two_projects_are_each_checked_in_their_project(tmp_path: Path):
    copy_example(tmp_path / "a")
    copy_example(tmp_path / "b")
    (tmp_path / "b/contracts/articles.dsl.json").unlink()
    out = run("check", "a/web/src/features/profile.ts", "b/web/src/components", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    files = {d["file"] for d in data["diagnostics"]}
    # /api/tags is declared only in the SpecDSL contract, which b no longer has
    assert files == {"a/web/src/features/profile.ts", "b/web/src/components/TagList.tsx"}
    assert data["summary"]["contracts"] == 3 and "2 projects" in out.stderr


# ---------------------------------------------------------------- contracts outside the project
@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """A repository whose frontend is a project of its own and whose contract lives in the backend."""
    mono = tmp_path / "mono"
    copy_example(mono)
    (mono / ".git").mkdir()
    (mono / "pyproject.toml").unlink()
    (mono / "backend").mkdir(exist_ok=True)
    shutil.move(mono / "contracts/openapi.yaml", mono / "backend/openapi.yaml")
    shutil.move(mono / "web", mono / "frontend")
    (mono / "frontend/specward.toml").write_text("")
    return mono


def test_contract_option_outside_the_project(monorepo: Path):
    out = run("check", "frontend", "--contract", "backend/openapi.yaml", cwd=monorepo)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert f"frontend/src/features/profile.ts:10:29: {PROFILE_AVATAR}" in lines
    # findings on the contract, at a path relative to the current folder
    assert ("backend/openapi.yaml:62:5: information[unused-endpoint] PUT /api/user/profile is not called anywhere "
            "in the workspace") in lines
    inside = run("check", ".", "--contract", "../backend/openapi.yaml", "--format", "json", cwd=monorepo / "frontend")
    assert inside.returncode == 1, inside.stderr
    diags = json.loads(inside.stdout)["diagnostics"]
    unused = next(d for d in diags if d["code"] == "unused-endpoint" and "PUT /api/user/profile" in d["message"])
    assert (unused["file"], unused["line"], unused["column"]) == ("../backend/openapi.yaml", 62, 5)


def test_contracts_setting_outside_the_project(monorepo: Path):
    (monorepo / "frontend/specward.toml").write_text('contracts = ["../backend/openapi.yaml"]\n')
    out = run("check", ".", cwd=monorepo / "frontend")
    assert out.returncode == 1, out.stderr
    assert f"src/features/profile.ts:10:29: {PROFILE_AVATAR}" in out.stdout.splitlines()
    assert "endpoint(s) in 1 contract(s)" in out.stdout
    # a glob stays inside the project: it finds nothing there
    (monorepo / "frontend/specward.toml").write_text('contracts = ["../backend/*.yaml"]\n')
    out = run("check", ".", cwd=monorepo / "frontend")
    assert out.returncode == 2 and "the configured contracts (../backend/*.yaml)" in out.stderr
    # a file that does not exist is named
    (monorepo / "frontend/specward.toml").write_text('contracts = ["../backend/gone.yaml"]\n')
    out = run("check", ".", cwd=monorepo / "frontend")
    assert out.returncode == 2
    assert "specward: warning: contract ../backend/gone.yaml, named in specward.toml, does not exist" in out.stderr


# ---------------------------------------------------------------- discovery
def test_discovery_finds_contracts_by_name_and_content_only(tmp_path: Path):
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    (app / "web").mkdir()
    (app / "web/client.ts").write_text(
        "export const a = () => fetch('/api/things');\nexport const b = () => fetch('/api/widgets');\n")
    (app / "api").mkdir()
    (app / "api/spec.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /api/things:\n    get:\n      responses:\n"
        "        '200': {description: ok}\n")
    # a generator's configuration and a UI asset named like contracts: not reported
    (app / "openapi-generator-config.json").write_text('{"generatorName": "typescript-fetch", "inputSpec": "api/spec.yaml"}\n')
    (app / "web/swagger-ui-settings.json").write_text('{"deepLinking": true, "url": "/openapi.json"}\n')
    out = run("check", ".", cwd=app)
    assert out.returncode == 1, out.stderr
    assert out.stdout.splitlines() == [
        "web/client.ts:2:30: error[phantom-api] GET /api/widgets is not in the contract",
        "1 error(s), 0 warning(s), 0 information in 1 file(s); 2 HTTP call(s): 1 matched, 1 phantom, "
        "0 method mismatch, 0 unresolved; 1 endpoint(s) in 1 contract(s)"]
