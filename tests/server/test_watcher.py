"""Real file watching: watchdog on a tree of 5,000+ folders (where watchdog 7.1.0 without an
event filter delivers nothing), and the polling fallback."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from specward.server.engine.watcher import DiskWatcher


async def _changes_seen(root: Path, target: Path, polling: bool, timeout: float) -> set[str]:
    loop = asyncio.get_running_loop()
    seen: set[str] = set()
    watcher = DiskWatcher(root, loop, lambda files, dirs: seen.update(files), debounce=0.05, polling=polling)
    mode = watcher.start()
    assert mode == ("polling" if polling else "inotify")
    try:
        await asyncio.sleep(0.2 if not polling else 2.5)  # let the observer take its first snapshot
        target.write_text("fetch('/api/x');\n")
        deadline = time.monotonic() + timeout
        while str(target) not in seen and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return seen
    finally:
        watcher.stop()


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("big")
    for i in range(70):
        for j in range(75):  # 70 * 75 = 5,250 leaf folders, 5,321 in all
            (root / f"pkg{i}" / f"mod{j}").mkdir(parents=True)
    return root


async def test_inotify_delivers_events_on_a_tree_of_5000_folders(big_tree: Path):
    target = big_tree / "pkg69" / "mod74" / "late.ts"
    seen = await _changes_seen(big_tree, target, polling=False, timeout=15)
    assert str(target) in seen


async def test_polling_fallback_delivers_events(tmp_path: Path):
    (tmp_path / "src").mkdir()
    target = tmp_path / "src" / "a.ts"
    seen = await _changes_seen(tmp_path, target, polling=True, timeout=15)
    assert str(target) in seen


async def test_excluded_folders_are_not_reported(tmp_path: Path):
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    loop = asyncio.get_running_loop()
    seen: set[str] = set()
    watcher = DiskWatcher(tmp_path, loop, lambda files, dirs: seen.update(files), debounce=0.05,
                          skip_dir=lambda name: name == "node_modules")
    watcher.start()
    try:
        await asyncio.sleep(0.2)
        (tmp_path / "node_modules" / "x" / "i.js").write_text("x")
        (tmp_path / "ok.ts").write_text("x")
        deadline = time.monotonic() + 10
        while str(tmp_path / "ok.ts") not in seen and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        watcher.stop()
    assert str(tmp_path / "ok.ts") in seen
    assert not any("node_modules" in p for p in seen)
