"""Paths a model proposes are confined to the workspace by their text, and the protected
ones are told apart (issue 15, "Approval, safety, undo")."""

from __future__ import annotations

import pytest

from specward.analyzers.stages.confine import PathRefused, confine, normalise, protection


@pytest.mark.parametrize("path,expected", [
    ("src/api/notes.ts", "src/api/notes.ts"),
    ("./src/a.ts", "src/a.ts"),
    ("src//a.ts", "src/a.ts"),
    ("src/./a.ts", "src/a.ts"),
    ("src/x/../a.ts", "src/a.ts"),
    ("src\\api\\notes.ts", "src/api/notes.ts"),
    ("a/b/../../c.py", "c.py"),
    ("routes/[id]/+page.svelte", "routes/[id]/+page.svelte"),
    ("..foo/bar", "..foo/bar"),
    ("a/...", "a/..."),
    ("notes file.md", "notes file.md"),
])
def test_accepted_and_normalised(path, expected):
    assert normalise(path) == expected
    assert confine(path).path == expected


@pytest.mark.parametrize("path,reason", [
    ("", "empty"),
    ("   ", "empty"),
    ("src/a\x00.ts", "NUL"),
    ("src/a\n.ts", "control character"),
    ("/etc/passwd", "absolute"),
    ("\\etc\\passwd", "absolute"),
    ("C:\\Windows\\x.dll", "Windows drive"),
    ("c:/x", "Windows drive"),
    ("C:x.txt", "Windows drive"),
    ("\\\\server\\share\\x", "UNC"),
    ("//server/share/x", "UNC"),
    ("\\\\?\\C:\\x", "UNC"),
    ("file:///etc/passwd", "':'"),
    ("notes.txt:stream", "':'"),
    ("~/.bashrc", "home"),
    ("~", "home"),
    ("../outside.ts", "climbs out"),
    ("src/../../outside.ts", "climbs out"),
    ("..\\outside.ts", "climbs out"),
    ("a/../..", "climbs out"),
    (".", "workspace folder itself"),
    ("a/..", "workspace folder itself"),
    ("src/", "a folder"),
])
def test_refused(path, reason):
    with pytest.raises(PathRefused) as exc:
        confine(path)
    assert reason in exc.value.reason
    assert exc.value.path == path


def test_not_a_string_is_refused():
    with pytest.raises(PathRefused, match="not a string"):
        confine(None)  # type: ignore[arg-type]


def test_message_shows_control_characters_escaped():
    with pytest.raises(PathRefused) as exc:
        confine("a\x00b")
    assert "'a\\x00b'" in str(exc.value)


@pytest.mark.parametrize("path,what", [
    (".git/config", ".git/"),
    (".git/hooks/pre-commit", ".git/"),
    ("vendor/lib/.git/hooks/post-checkout", ".git/"),
    (".git", ".git/"),
    (".GIT/config", ".git/"),
    (".vscode/tasks.json", ".vscode/"),
    ("web/.vscode/settings.json", ".vscode/"),
    (".github/workflows/ci.yml", ".github/workflows/"),
    ("sub/.github/workflows/deploy.yaml", ".github/workflows/"),
    ("evil.pth", "*.pth"),
    ("lib/site-packages/x.PTH", "*.pth"),
    ("specward.toml", "specward.toml"),
    ("pyproject.toml", "pyproject.toml"),
    ("backend/pyproject.toml", "pyproject.toml"),
    (".specward/fix-history.jsonl", ".specward/"),
    (".specward/runs.jsonl", ".specward/"),
    (".specward/cache/index.sqlite", ".specward/"),
    (".ai-spec-fix-history.json", "ai-spec"),
])
def test_protected(path, what):
    got = confine(path)
    assert got.protected is not None and what in got.protected


def test_normalisation_happens_before_the_protection_check():
    assert confine("src/../.git/config").protected is not None
    assert confine(".\\.vscode\\tasks.json").protected is not None


@pytest.mark.parametrize("path", [
    "src/git/config.ts", ".github/ISSUE_TEMPLATE/bug.md", ".github/dependabot.yml", "workflows/ci.yml",
    "src/path.py", "docs/specward.md", "specward.toml.md", ".gitignore", ".vscodeignore", "src/x.pth.txt",
    "specs/notes.dsl.json", "a/.specwardrc",
])
def test_not_protected(path):
    assert confine(path).protected is None
    assert protection(normalise(path)) is None
