"""``specward check --changed-since REV``'s file set (server/changed_since.py): what git says
changed, on real repositories, and what depends on it, on a real index."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from specward.server.changed_since import ChangedSinceError, changed_files, dependents
from specward.server.engine.index import WorkspaceIndex

GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(cwd: Path, *args: str) -> str:
    p = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                       capture_output=True, env={**os.environ, **GIT_ENV}, check=True)
    return p.stdout.decode()


def write(root: Path, rel: str, text: str = "x\n") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def commit(root: Path, message: str = "c") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitignore", "*.log\nbuild/\n")
    for rel in ("src/a.ts", "src/b.ts", "src/old.ts", "src/keep.ts"):
        write(root, rel, f"// {rel}\n")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    return root


# ---------------------------------------------------------------------- changed_files


def test_committed_staged_unstaged_untracked_and_renamed_files(repo: Path):
    write(repo, "src/a.ts", "// changed in a commit\n")
    commit(repo, "feature work")
    git(repo, "mv", "src/old.ts", "src/new.ts")  # a rename, staged
    write(repo, "src/b.ts", "// unstaged edit\n")
    write(repo, "src/staged.ts")
    git(repo, "add", "src/staged.ts")
    write(repo, "src/untracked.ts")
    write(repo, "debug.log")  # ignored
    write(repo, "build/out.js")  # in an ignored folder
    got = changed_files(repo, "main")
    assert got == {"src/a.ts", "src/b.ts", "src/staged.ts", "src/untracked.ts", "src/new.ts", "src/old.ts"}
    assert "src/keep.ts" not in got


def test_a_committed_rename_gives_the_new_path_and_the_old_one(repo: Path):
    git(repo, "mv", "src/old.ts", "src/renamed.ts")
    commit(repo, "rename")
    assert changed_files(repo, "main") == {"src/renamed.ts", "src/old.ts"}


def test_names_with_spaces_newlines_non_ascii_and_non_utf8_bytes(repo: Path):
    write(repo, "src/with space.ts")
    write(repo, "src/café.ts")
    write(repo, "src/two\nlines.ts")
    commit(repo, "odd names")
    raw = os.fsencode(repo / "src") + b"/caf\xe9-latin1.ts"  # not UTF-8: untracked
    with open(raw, "wb") as f:
        f.write(b"x\n")
    got = changed_files(repo, "main")
    latin1 = os.fsdecode(b"src/caf\xe9-latin1.ts")
    assert got == {"src/with space.ts", "src/café.ts", "src/two\nlines.ts", latin1}
    assert (repo / latin1).exists()  # the decoded name opens the file


def test_a_commit_on_main_after_the_branch_point_is_not_a_change_of_the_branch(repo: Path):
    write(repo, "src/a.ts", "// the branch's change\n")
    commit(repo, "branch")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/keep.ts", "// main moved on\n")
    write(repo, "src/main-only.ts")
    commit(repo, "main")
    git(repo, "checkout", "-q", "feature")
    assert changed_files(repo, "main") == {"src/a.ts"}  # rev...HEAD, not rev..HEAD nor a two-tree diff
    assert changed_files(repo, "HEAD") == set()  # nothing since HEAD itself


def test_a_project_root_in_a_subfolder_gets_root_relative_paths_and_nothing_outside(tmp_path: Path):
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q")
    write(top, "apps/web/src/a.ts")
    write(top, "apps/api/main.py")
    commit(top, "base")
    write(top, "apps/web/src/a.ts", "// changed\n")
    write(top, "apps/web/src/new file.ts")
    write(top, "apps/api/main.py", "# changed\n")
    write(top, "README.md")
    assert changed_files(top / "apps" / "web", "HEAD") == {"src/a.ts", "src/new file.ts"}
    assert changed_files(top, "HEAD") == {"apps/web/src/a.ts", "apps/web/src/new file.ts", "apps/api/main.py",
                                          "README.md"}


def test_not_a_repository(tmp_path: Path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(ChangedSinceError, match="not in a git repository"):
        changed_files(tmp_path / "plain", "main")


def test_an_unknown_revision_is_named(repo: Path):
    with pytest.raises(ChangedSinceError, match="unknown revision 'no-such-branch'"):
        changed_files(repo, "no-such-branch")


def test_an_option_is_not_a_revision(repo: Path):
    with pytest.raises(ChangedSinceError, match="not a revision"):
        changed_files(repo, "--output=/tmp/x")


def test_a_shallow_clone_without_the_revision_says_to_fetch_more(tmp_path: Path, repo: Path):
    first = git(repo, "rev-parse", "HEAD").strip()
    for i in range(3):
        write(repo, "src/a.ts", f"// {i}\n")
        commit(repo, f"c{i}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}", str(clone))
    for rev in (first, "HEAD~2"):
        with pytest.raises(ChangedSinceError, match="shallow clone.*fetch-depth: 0"):
            changed_files(clone, rev)


def test_a_shallow_clone_that_has_the_revision_but_not_the_merge_base(tmp_path: Path, repo: Path):
    write(repo, "src/a.ts", "// feature\n")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/keep.ts", "// main\n")
    commit(repo, "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", "--branch", "feature", f"file://{repo}",
        str(clone))
    with pytest.raises(ChangedSinceError, match="shallow clone.*fetch-depth: 0"):
        changed_files(clone, "origin/main")
    # with the whole history, the same question has its answer
    full = tmp_path / "full"
    git(tmp_path, "clone", "-q", "--branch", "feature", f"file://{repo}", str(full))
    assert changed_files(full, "origin/main") == {"src/a.ts"}


# ---------------------------------------------------------------------- dependents

API = """openapi: 3.0.0
info: {title: t, version: "1"}
paths:
  /api/users:
    get:
      responses: {"200": {description: ok}}
"""
OTHER_API = """openapi: 3.0.0
info: {title: o, version: "1"}
paths:
  /api/orders:
    get:
      responses: {"200": {description: ok}}
"""
FILES = {
    "specward.toml": "",
    "specs/api.yaml": API,
    "orders/openapi.yaml": OTHER_API,
    "src/c.ts": "export const x = 1;\nexport const BASE = '/api';\n",
    "src/b.ts": "export * from './c';\n",  # a re-export
    "src/a.ts": "import { x } from './b';\nexport const y = x;\n",  # imports c's export through b
    "src/top.ts": "import { y } from './a';\nconsole.log(y);\n",  # reads only a's own export
    "src/url.ts": "import { BASE } from './b';\nexport const load = () => fetch(BASE + '/users');\n",
    "src/caller.ts": "export const users = () => fetch('/api/users');\n",
    "src/orders.ts": "export const orders = () => fetch('/api/orders');\n",
    "src/phantom.ts": "export const nothing = () => fetch('/api/nothing');\n",
    "src/importer.ts": "import { gone } from './gone';\nconsole.log(gone);\n",  # a missing module
    "src/lonely.ts": "export const z = 2;\n",
    "README.md": "# ws\n",
}


@pytest.fixture
def index(tmp_path: Path) -> WorkspaceIndex:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        write(root, rel, text)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    # what the tests below lean on
    assert {st.status for st in idx.statuses["src/phantom.ts"]} == {"phantom"}
    assert [st.endpoint.file for st in idx.statuses["src/orders.ts"]] == ["orders/openapi.yaml"]
    return idx


def test_a_changed_module_brings_its_importers_and_re_export_chains_not_unrelated_files(index: WorkspaceIndex):
    got = dependents(index, {"src/c.ts"})
    assert {"src/c.ts", "src/b.ts", "src/a.ts", "src/url.ts"} <= got  # a and url read c through b
    # top imports only a's own export; the others read nothing of c
    assert got.isdisjoint({"src/top.ts", "src/lonely.ts", "src/phantom.ts", "src/orders.ts", "orders/openapi.yaml"})


def test_a_changed_importer_brings_its_own_importers(index: WorkspaceIndex):
    got = dependents(index, {"src/a.ts"})
    assert {"src/a.ts", "src/top.ts"} <= got
    assert got.isdisjoint({"src/c.ts", "src/b.ts", "src/lonely.ts"})


def test_a_gone_path_brings_the_files_that_import_it(index: WorkspaceIndex):
    # (a rename's old path, or a deleted file: importer.ts probes src/gone.*)
    got = dependents(index, {"src/gone.ts"})
    assert "src/importer.ts" in got
    assert "src/lonely.ts" not in got


def test_a_changed_contract_brings_its_callers_and_the_calls_it_may_now_judge(index: WorkspaceIndex):
    got = dependents(index, {"specs/api.yaml"})
    assert {"specs/api.yaml", "src/caller.ts", "src/url.ts", "src/phantom.ts"} <= got
    assert "orders/openapi.yaml" in got  # every contract's own findings (unused-endpoint)
    # a call matched against the other contract, and files without calls, are left out
    assert got.isdisjoint({"src/orders.ts", "src/lonely.ts", "src/top.ts", "src/a.ts"})


def test_a_deleted_contract_brings_the_unmatched_calls(index: WorkspaceIndex):
    got = dependents(index, {"specs/old-api.yaml"})
    assert "src/phantom.ts" in got
    assert "src/lonely.ts" not in got


@pytest.mark.parametrize("config", ["specward.toml", "pyproject.toml", "package.json", "tsconfig.json",
                                    "web/jsconfig.json", "requirements.txt", ".gitignore"])
def test_a_configuration_file_changes_everything(index: WorkspaceIndex, config: str):
    got = dependents(index, {config})
    assert set(index.digests) | set(index.contracts) <= got
    assert {"src/lonely.ts", "src/top.ts", "orders/openapi.yaml"} <= got


def test_a_plain_file_changes_nothing_else(index: WorkspaceIndex):
    assert dependents(index, {"README.md"}) == {"README.md"}
    assert dependents(index, {"docs/gone.md"}) == {"docs/gone.md"}
    assert dependents(index, set()) == set()
