"""The configuration's baseline in the editor: a finding the baseline records is shown at
``hint`` severity, its message ending in "(baseline)"; a new one keeps its severity.

The same identities as ``specward check --baseline`` (``analyzers/baseline.py``), computed
on the text that was analyzed (the editor's buffer of an open document), so a finding
stays baselined while lines are typed above it and turns new when its own line changes.
The file is read again when its size or modification time changes; one that cannot be
read is reported once (``window/showMessage``) and counts as no baseline.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Callable

from specward.analyzers import baseline as bl
from specward.analyzers.model import Finding

log = logging.getLogger(__name__)

SUFFIX = " (baseline)"


class BaselineMarks:
    def __init__(self, root: Path, warn: Callable[[str], None]) -> None:
        self.root = root
        self.warn = warn
        self.name: str | None = None  # the configured file, as the configuration spells it
        self._key: tuple | None = None  # (path, mtime, size) of what ``_counts`` was read from
        self._counts: dict[tuple[str, str], dict[str, int]] = {}  # (file, code) -> fingerprint -> count
        self._files: set[str] = set()  # the files ``_counts`` names
        self._warned: tuple | None = None

    @property
    def path(self) -> Path | None:
        return Path(os.path.normpath(self.root / self.name)) if self.name else None

    def rel(self) -> str | None:
        """The baseline file, relative to the workspace root (None: none, or outside it)."""
        path = self.path
        if path is None:
            return None
        rel = os.path.relpath(path, self.root)
        return None if rel.startswith("..") else Path(rel).as_posix()

    def configure(self, name: str | None) -> bool:
        """The configuration's ``baseline``; whether it changed."""
        if name == self.name:
            return False
        self.name, self._key = name, None
        self._set({})
        return True

    def _set(self, counts: dict[tuple[str, str], dict[str, int]]) -> None:
        self._counts = counts
        self._files = {file for file, _ in counts}

    def refresh(self) -> bool:
        """Read the file again when it changed on disk; whether what it records changed."""
        path = self.path
        if path is None:
            changed, self._key = bool(self._counts), None
            self._set({})
            return changed
        try:
            st = path.stat()
        except OSError:
            key = (str(path), None, None)
        else:
            key = (str(path), st.st_mtime_ns, st.st_size)
        if key == self._key:
            return False
        self._key = key
        before = self._counts
        self._set(self._read(path, key))
        return before != self._counts

    def _read(self, path: Path, key: tuple) -> dict:
        if key[1] is None:
            return {}  # not written yet: every finding is new
        try:
            entries = bl.parse(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, bl.BaselineError) as exc:
            if self._warned != key:
                self._warned = key
                self.warn(f"specward: the baseline {self.name} cannot be used ({exc}); every finding is shown "
                          "as new")
            log.warning("baseline %s: %s", path, exc)
            return {}
        counts: dict[tuple[str, str], dict[str, int]] = {}
        folder = path.parent
        for e in entries:
            rel = os.path.relpath(os.path.normpath(folder / e.file), self.root)
            by_fp = counts.setdefault((Path(rel).as_posix(), e.code), {})
            by_fp[e.fingerprint] = by_fp.get(e.fingerprint, 0) + e.count
        return counts

    def covers(self, rel: str) -> bool:
        """Whether the baseline records findings of ``rel`` (else ``mark`` changes nothing)."""
        return rel in self._files

    def mark(self, rel: str, findings: list[Finding], data: bytes) -> list[Finding]:
        """``findings`` of ``rel`` (whose analyzed bytes are ``data``) with the baselined ones
        at hint severity. The first ones of an identity are the baselined ones, as in
        ``baseline.split``."""
        if not self._counts or not findings:
            return findings
        out = []
        left: dict[tuple[str, str], int] = {}
        for f in findings:
            known = self._counts.get((rel, f.code))
            if known:
                fp = bl.fingerprint(f.code, data, f.span.start, f.span.end)
                k = (f.code, fp)
                n = left.get(k, known.get(fp, 0))
                if n > 0:
                    left[k] = n - 1
                    f = replace(f, severity="hint", message=f.message + SUFFIX)
                else:
                    left[k] = 0
            out.append(f)
        return out
