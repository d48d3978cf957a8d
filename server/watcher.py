"""Following the disk for files the editor does not have open.

watchdog's inotify observer, scheduled with an explicit ``event_filter``: watchdog 7.1.0
delivers no events at all on trees of about 5,000+ directories with the default mask
("Inotify queue overflowed"). When inotify cannot be used (watch limit reached, no
inotify), a polling observer takes over. Events are bridged onto the asyncio loop and
debounced there; the callback receives a set of absolute paths.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Callable

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
from watchdog.observers.polling import PollingObserver

log = logging.getLogger(__name__)

EVENT_FILTER = [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
                DirCreatedEvent, DirDeletedEvent, DirMovedEvent]


class _Bridge(FileSystemEventHandler):
    def __init__(self, watcher: "DiskWatcher") -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        paths = [event.src_path]
        dest = getattr(event, "dest_path", None)
        if dest:
            paths.append(dest)
        for p in paths:
            p = p.decode() if isinstance(p, bytes) else p
            self.watcher.loop.call_soon_threadsafe(self.watcher._queue, p, event.is_directory)


class DiskWatcher:
    def __init__(self, root: Path, loop: asyncio.AbstractEventLoop,
                 on_change: Callable[[set[str], set[str]], None], debounce: float = 0.1,
                 skip_dir: Callable[[str], bool] | None = None, polling: bool = False) -> None:
        self.root = root
        self.loop = loop
        self.on_change = on_change
        self.debounce = debounce
        self.skip_dir = skip_dir or (lambda name: False)
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
            obs = Observer()
            obs.schedule(handler, str(self.root), recursive=True, event_filter=EVENT_FILTER)
            obs.start()
            self.observer, self.mode = obs, "inotify"
        except OSError as exc:
            log.warning("native file watching unavailable (%s); polling every 2 s instead", exc)
            try:
                obs = PollingObserver(timeout=2)
                obs.schedule(handler, str(self.root), recursive=True)
                obs.start()
                self.observer, self.mode = obs, "polling"
            except OSError as exc2:
                log.error("file watching disabled: %s", exc2)
        return self.mode

    def _queue(self, path: str, is_dir: bool) -> None:
        rel = path[len(str(self.root)) + 1:] if path.startswith(str(self.root) + "/") else None
        if rel is None or any(self.skip_dir(part) for part in rel.split("/")[:-1]):
            return
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
            try:
                self.observer.stop()
                self.observer.join(timeout=2)
            except Exception:  # noqa: BLE001
                pass
            self.observer = None
