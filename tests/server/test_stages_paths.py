"""The symlink half of path confinement, with real symlinks (issue 15)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specward.analyzers.stages.confine import PathRefused
from specward.server.stages_paths import resolve_inside


@pytest.fixture
def ws(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    return root, outside


def test_plain_path_inside(ws):
    root, _ = ws
    got = resolve_inside(root, "src/new/notes.ts")  # need not exist yet
    assert got.real == Path(os.path.realpath(root)) / "src" / "new" / "notes.ts"
    assert got.real_rel == "src/new/notes.ts" and got.path == "src/new/notes.ts"
    assert got.protected is None


def test_symlinked_folder_out_is_refused(ws):
    root, outside = ws
    (root / "src" / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathRefused, match="leads out"):
        resolve_inside(root, "src/link/new.ts")


def test_symlink_file_out_is_refused(ws):
    root, outside = ws
    (root / "src" / "a.ts").symlink_to(outside / "secret.txt")
    with pytest.raises(PathRefused, match="leads out"):
        resolve_inside(root, "src/a.ts")


def test_dangling_symlink_out_is_refused(ws):
    root, outside = ws
    (root / "src" / "b.ts").symlink_to(outside / "does-not-exist.ts")
    with pytest.raises(PathRefused, match="leads out"):
        resolve_inside(root, "src/b.ts")


def test_relative_symlink_up_and_out_is_refused(ws):
    root, _ = ws
    (root / "src" / "up").symlink_to("../..", target_is_directory=True)
    with pytest.raises(PathRefused, match="leads out"):
        resolve_inside(root, "src/up/outside/x.ts")


def test_symlink_inside_is_followed(ws):
    root, _ = ws
    (root / "lib").mkdir()
    (root / "src" / "lib").symlink_to(root / "lib", target_is_directory=True)
    got = resolve_inside(root, "src/lib/x.ts")
    assert got.real_rel == "lib/x.ts" and got.protected is None


def test_symlink_into_git_is_protected(ws):
    root, _ = ws
    (root / "docs").symlink_to(root / ".git", target_is_directory=True)
    got = resolve_inside(root, "docs/hooks/pre-commit")
    assert got.real_rel == ".git/hooks/pre-commit"
    assert got.protected is not None and ".git/" in got.protected


def test_symlink_to_the_root_itself_is_refused(ws):
    root, _ = ws
    (root / "self").symlink_to(root, target_is_directory=True)
    with pytest.raises(PathRefused, match="workspace folder itself"):
        resolve_inside(root, "self")


def test_symlink_loop_is_refused(ws):
    root, _ = ws
    (root / "src" / "loop").symlink_to(root / "src" / "loop")
    with pytest.raises(PathRefused, match="loop"):
        resolve_inside(root, "src/loop/x.ts")


def test_root_reached_through_a_symlink(ws, tmp_path):
    root, _ = ws
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    got = resolve_inside(alias, "src/a.ts")
    assert got.real == Path(os.path.realpath(root)) / "src" / "a.ts"


def test_pure_refusals_still_apply(ws):
    root, _ = ws
    for bad in ("/etc/passwd", "../x", "", "C:\\x"):
        with pytest.raises(PathRefused):
            resolve_inside(root, bad)


def test_sibling_with_a_common_prefix_is_outside(tmp_path):
    root = tmp_path / "ws"
    sibling = tmp_path / "ws-other"
    root.mkdir()
    sibling.mkdir()
    (root / "x").symlink_to(sibling, target_is_directory=True)
    with pytest.raises(PathRefused, match="leads out"):
        resolve_inside(root, "x/a.ts")
