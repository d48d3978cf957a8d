"""Following the disk for files the editor does not have open.

watchdog's inotify observer, scheduled with an explicit ``event_filter``: watchdog 7.1.0
delivers no events at all on trees of about 5,000+ directories with the default mask
("Inotify queue overflowed"). When inotify cannot be used (watch limit reached, no
inotify), a polling observer takes over. Events are bridged onto the asyncio loop and
debounced there; the callback receives a set of absolute paths.

Deep trees. watchdog walks recursively, one Python frame per folder level: its inotify
observer adds its watches with ``os.walk`` (recursive up to Python 3.12) and its polling
snapshot recurses by itself, so a tree about 1,000 levels deep raises RecursionError
(from ``start()``, before the workspace was even indexed) and its polling snapshot follows
symlinked folders (one to ``/`` walks the whole disk every poll). So the tree is surveyed
first, without recursion and to ``max_depth`` levels (the walk's limit): when no folder
is deeper, inotify watches it as before; when one is, polling takes over with this
module's own snapshot, iterative, capped at ``max_depth``, skipping excluded folders and
following symlinked folders only inside the workspace, each real folder once. A
RecursionError inside the inotify observer later (a deep tree created while watching)
switches to that polling as well instead of ending the watching silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from pathlib import Path
from typing import Callable, Iterator

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingEmitter
from watchdog.utils.dirsnapshot import DirectorySnapshot

from .config import DEFAULT_MAX_DEPTH
from .reading import is_within, real_root, shown

log = logging.getLogger(__name__)

EVENT_FILTER = [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
                DirCreatedEvent, DirDeletedEvent, DirMovedEvent]
POLL_SECONDS = 2.0


def deeper_than(root: str, max_depth: int) -> str | None:
    """The first folder found more than ``max_depth`` levels below ``root``, as watchdog's
    inotify observer would walk the tree (every folder, symlinks not followed), or None.
    Iterative, and it looks no further than one level past ``max_depth``."""
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                subdirs = [e.path for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        if subdirs and depth + 1 > max_depth:
            return subdirs[0]
        stack.extend((d, depth + 1) for d in subdirs)
    return None


def capped_tree(root: str, max_depth: int, skip_dir: Callable[[str], bool]) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry below ``root`` with its ``lstat``, without recursion: folders at most
    ``max_depth`` levels down, excluded names skipped, symlinked folders followed only when
    their real path is inside ``root``, each real folder once."""
    top = real_root(root)
    try:
        st = os.stat(root)
    except OSError:
        return
    seen = {(st.st_dev, st.st_ino)}
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield entry.path, st
            if depth + 1 > max_depth or skip_dir(entry.name):
                continue
            if stat.S_ISLNK(st.st_mode):
                real = os.path.realpath(entry.path)
                if not is_within(real, top):
                    continue
                try:
                    target = os.stat(real)
                except OSError:
                    continue
                if not stat.S_ISDIR(target.st_mode):
                    continue
                key = (target.st_dev, target.st_ino)
            elif stat.S_ISDIR(st.st_mode):
                key = (st.st_dev, st.st_ino)
            else:
                continue
            if key not in seen:
                seen.add(key)
                stack.append((entry.path, depth + 1))


class _CappedSnapshot(DirectorySnapshot):
    """watchdog's snapshot of a tree, walked by ``capped_tree`` (its own ``walk`` recurses
    once per level and follows every symlinked folder)."""

    def __init__(self, path: str, max_depth: int, skip_dir: Callable[[str], bool]) -> None:
        self._max_depth, self._skip_dir = max_depth, skip_dir
        super().__init__(path, recursive=True, stat=os.lstat)

    def walk(self, root: str) -> Iterator[tuple[str, os.stat_result]]:
        return capped_tree(root, self._max_depth, self._skip_dir)


class _CappedPollingEmitter(PollingEmitter):
    def __init__(self, event_queue, watch, *, timeout=POLL_SECONDS, event_filter=None,
                 max_depth: int = DEFAULT_MAX_DEPTH, skip_dir: Callable[[str], bool] = lambda name: False) -> None:
        super().__init__(event_queue, watch, timeout=timeout, event_filter=event_filter)
        self._take_snapshot = lambda: _CappedSnapshot(self.watch.path, max_depth, skip_dir)


def _guarded_inotify(on_failure: Callable[[BaseException], None]) -> BaseObserver:
    """watchdog's inotify observer whose emitter reports a failure (a RecursionError while
    it adds the watches of a deep new tree) instead of ending its thread silently."""
    obs = Observer()
    base = getattr(obs, "_emitter_class", None)
    if base is None or not hasattr(base, "queue_events"):  # another watchdog: as it is
        return obs

    class _Guarded(base):  # type: ignore[misc, valid-type]
        def queue_events(self, *args, **kwargs) -> None:
            try:
                super().queue_events(*args, **kwargs)
            except RecursionError as exc:
                self.stop()
                on_failure(exc)

    obs._emitter_class = _Guarded
    return obs


class _Bridge(FileSystemEventHandler):
    def __init__(self, watcher: "DiskWatcher") -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        paths = [event.src_path]
        dest = getattr(event, "dest_path", None)
        if dest:
            paths.append(dest)
        for p in paths:
            p = os.fsdecode(p) if isinstance(p, bytes) else p
            self.watcher.loop.call_soon_threadsafe(self.watcher._queue, p, event.is_directory)


class DiskWatcher:
    def __init__(self, root: Path, loop: asyncio.AbstractEventLoop,
                 on_change: Callable[[set[str], set[str]], None], debounce: float = 0.1,
                 skip_dir: Callable[[str], bool] | None = None, polling: bool = False,
                 max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        self.root = root
        self.loop = loop
        self.on_change = on_change
        self.debounce = debounce
        self.skip_dir = skip_dir or (lambda name: False)
        self.max_depth = max_depth
        self._files: set[str] = set()
        self._dirs: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.observer = None
        self.mode = "off"
        self.polling = polling

    def start(self) -> str:
        handler = _Bridge(self)
        try:
            if self.polling:
                raise OSError("polling requested")
            deep = deeper_than(str(self.root), self.max_depth)
            if deep is not None:
                where = shown(os.path.relpath(deep, self.root))
                where = where if len(where) <= 60 else where[:60] + "…"
                raise OSError(f"a folder is more than {self.max_depth} levels deep ({where}), and watchdog's "
                              "inotify observer walks the whole tree recursively")
            obs = _guarded_inotify(self._inotify_failed)
            try:
                obs.schedule(handler, str(self.root), recursive=True, event_filter=EVENT_FILTER)
                obs.start()
            except RecursionError as exc:  # the tree grew since the survey
                _stop(obs)
                raise OSError(f"inotify observer failed: {type(exc).__name__}") from exc
            except BaseException:
                _stop(obs)
                raise
            self.observer, self.mode = obs, "inotify"
        except OSError as exc:
            log.warning("native file watching unavailable (%s); polling every %g s instead", exc, POLL_SECONDS)
            self._poll(handler)
        return self.mode

    def _poll(self, handler: FileSystemEventHandler) -> None:
        obs = BaseObserver(_CappedPollingEmitter, timeout=POLL_SECONDS, max_depth=self.max_depth,
                           skip_dir=self.skip_dir)
        try:
            obs.schedule(handler, str(self.root), recursive=True)
            obs.start()
            self.observer, self.mode = obs, "polling"
        except Exception as exc:  # noqa: BLE001 - watching is a convenience: never fatal
            _stop(obs)
            log.error("file watching disabled: %s", exc)
            self.observer, self.mode = None, "off"

    def _inotify_failed(self, exc: BaseException) -> None:
        """From the inotify emitter's thread: switch to polling on the event loop."""
        log.warning("the inotify observer failed (%s: a tree too deep?); polling every %g s instead",
                    type(exc).__name__, POLL_SECONDS)

        def switch() -> None:
            if self.mode != "inotify":
                return
            old, self.observer = self.observer, None
            _stop(old)
            self._poll(_Bridge(self))

        try:
            self.loop.call_soon_threadsafe(switch)
        except RuntimeError:  # the loop is closed: the server is going away
            pass

    def _queue(self, path: str, is_dir: bool) -> None:
        rel = path[len(str(self.root)) + 1:] if path.startswith(str(self.root) + "/") else None
        if rel is None:
            return
        parts = rel.split("/")
        if len(parts) - 1 > self.max_depth or any(self.skip_dir(part) for part in parts[:-1]):
            return  # below the walk's depth limit, or in an excluded folder
        (self._dirs if is_dir else self._files).add(path)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(self.debounce, self._flush)

    def _flush(self) -> None:
        files, dirs = self._files, self._dirs
        self._files, self._dirs, self._timer = set(), set(), None
        try:
            self.on_change(files, dirs)
        except Exception:  # noqa: BLE001
            log.exception("handling file changes failed")

    def stop(self) -> None:
        if self.observer is not None:
            _stop(self.observer)
            self.observer = None
        self.mode = "off"


def _stop(obs) -> None:
    try:
        obs.stop()
        if obs.is_alive():
            obs.join(timeout=2)
    except Exception:  # noqa: BLE001
        pass
