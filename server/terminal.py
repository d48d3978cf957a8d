"""What the command line does only for a person at a terminal: colours and a progress bar.

Colours (``--color auto|always|never``): ``auto`` colours a stream that is a terminal,
unless ``NO_COLOR`` is set to anything but the empty string (https://no-color.org);
``always`` colours even a pipe (a CI log that renders ANSI); ``never`` never does.
The progress bar goes to standard error, only when it is a terminal, and only once the
work has taken longer than ``delay`` seconds: a quick check never draws it, and a pipe or a
log file never gets a carriage return.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

_CODES = {"error": "1;31", "warning": "1;33", "information": "1;34", "hint": "2", "path": "1", "code": "2",
          "ok": "32"}


def isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def color_on(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return isatty(stream) and not os.environ.get("NO_COLOR")


class Style:
    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, kind: str) -> str:
        code = _CODES.get(kind)
        return f"\x1b[{code}m{text}\x1b[0m" if self.on and code else text


class ProgressBar:
    """``progress(done, total)`` for ``WorkspaceIndex.build``; ``close()`` wipes the line."""

    WIDTH = 30

    def __init__(self, stream: TextIO = sys.stderr, label: str = "indexing", delay: float | None = None) -> None:
        self.stream = stream
        self.label = label
        self.enabled = isatty(stream)
        if delay is None:  # (the tests draw it at once)
            try:
                delay = float(os.environ.get("SPECWARD_PROGRESS_DELAY", "0.5"))
            except ValueError:
                delay = 0.5
        self.start = time.monotonic() + delay
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        if now < self.start or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        filled = self.WIDTH * min(done, total) // total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        try:
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total} files")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            try:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self.drawn = False
