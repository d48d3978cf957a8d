"""The workspace on disk: which files specward looks at, and reading them safely.

Walks the tree once, honouring ``.gitignore`` files (each applies below its folder), the
default excludes (``node_modules``, build output, virtual environments, ...) and the
configured ones. Symlinked folders are followed only when they stay inside the workspace,
and each real folder is visited once, so a symlink loop ends the walk of that branch.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from specward.analyzers.languages import language_of

from .config import DEFAULT_CONTRACTS, DEFAULT_EXCLUDE, Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileText:
    """A file read from disk: ``text`` is None when it was skipped, with ``reason``."""

    rel: str
    text: str | None
    digest: str
    reason: str | None = None


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class Workspace:
    def __init__(self, root: Path, settings: Settings, contract_globs: list[str] | None = None) -> None:
        self.root = root.resolve()
        self._root = str(self.root)
        self.settings = settings
        globs = contract_globs if contract_globs is not None else settings.contracts
        self.explicit_contracts = globs is not None
        self.contract_globs = tuple(globs) if globs is not None else DEFAULT_CONTRACTS
        self._contract_spec = pathspec.PathSpec.from_lines("gitignore", self.contract_globs)
        self.exclude_names = set(DEFAULT_EXCLUDE)
        self.exclude_globs = [g for g in settings.exclude]
        self._ignores: dict[str, pathspec.PathSpec] = {}

    # -------------------------------------------------------------- classification
    def rel(self, path: Path | str) -> str | None:
        """Workspace-relative posix path, or None when outside the workspace."""
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        candidates = [Path(os.path.abspath(p))]
        try:
            candidates.append(p.resolve())
        except (OSError, RuntimeError):
            pass
        for candidate in candidates:
            try:
                return candidate.relative_to(self.root).as_posix()
            except ValueError:
                continue
        return None

    def is_contract(self, rel: str) -> bool:
        return self._contract_spec.match_file(rel)

    def is_source(self, rel: str) -> bool:
        return language_of(rel) is not None

    def is_excluded(self, rel: str) -> bool:
        parts = rel.split("/")
        if any(p in self.exclude_names for p in parts[:-1]):
            return True
        for g in self.exclude_globs:
            if fnmatch.fnmatch(rel, g) or any(fnmatch.fnmatch(p, g) for p in parts):
                return True
        if self.settings.respect_gitignore:
            for i in range(len(parts)):
                base = "/".join(parts[:i])
                spec = self._ignores.get(base)
                if spec is not None and spec.match_file("/".join(parts[i:])):
                    return True
        return False

    def wanted(self, rel: str) -> bool:
        return (self.is_source(rel) or self.is_contract(rel)) and not self.is_excluded(rel)

    # -------------------------------------------------------------- walking
    def _load_gitignore(self, rel_dir: str, abs_dir: str) -> None:
        path = os.path.join(abs_dir, ".gitignore")
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                self._ignores[rel_dir] = pathspec.PathSpec.from_lines("gitignore", fh.read().splitlines())
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)

    def walk(self) -> tuple[list[str], list[str]]:
        """(source files, contract files) as relative posix paths, sorted."""
        sources: list[str] = []
        contracts: list[str] = []
        seen_dirs: set[tuple[int, int]] = set()
        stack: list[tuple[str, str]] = [("", str(self.root))]
        while stack:
            rel_dir, abs_dir = stack.pop()
            try:
                st = os.stat(abs_dir)
            except OSError as exc:
                log.warning("cannot read folder %s: %s", abs_dir, exc)
                continue
            key = (st.st_dev, st.st_ino)
            if key in seen_dirs:
                log.info("skipping %s: already visited (symlink loop?)", rel_dir or ".")
                continue
            seen_dirs.add(key)
            if self.settings.respect_gitignore:
                self._load_gitignore(rel_dir, abs_dir)
            try:
                entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
            except OSError as exc:
                log.warning("cannot list folder %s: %s", abs_dir, exc)
                continue
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=True)
                except OSError:
                    continue
                if is_dir:
                    if entry.name in self.exclude_names or self.is_excluded(rel + "/x"):
                        continue
                    if is_link:
                        try:
                            real = Path(entry.path).resolve(strict=True)
                            real.relative_to(self.root)
                        except (OSError, ValueError, RuntimeError):
                            log.info("not following symlink %s: it leaves the workspace or loops", rel)
                            continue
                    stack.append((rel, entry.path))
                    continue
                try:
                    if not entry.is_file(follow_symlinks=True):
                        continue
                except OSError:
                    continue
                if self.is_excluded(rel):
                    continue
                if self.is_contract(rel):
                    contracts.append(rel)
                elif self.is_source(rel):
                    sources.append(rel)
        sources.sort()
        contracts.sort()
        return sources, contracts

    # -------------------------------------------------------------- reading
    def read(self, rel: str) -> FileText:
        """Read a file as UTF-8 text; binary, non-UTF-8, oversized and unreadable files are
        returned with ``text=None`` and a reason instead of raising."""
        limit = self.settings.max_file_size
        try:
            # non-blocking open: a named pipe with a source file's name must not hang the index
            fd = os.open(os.path.join(self._root, rel), _READ_FLAGS)
        except FileNotFoundError:
            return FileText(rel, None, "", "the file no longer exists")
        except OSError as exc:
            return FileText(rel, None, "", f"cannot be read: {exc.strerror or exc}")
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return FileText(rel, None, "", "not a regular file")
            if st.st_size > limit:
                return FileText(rel, None, "", f"larger than the {limit:,}-byte limit ({st.st_size:,} bytes)")
            with io.FileIO(fd, closefd=False) as fh:
                data = fh.readall()
        except OSError as exc:
            return FileText(rel, None, "", f"cannot be read: {exc.strerror or exc}")
        finally:
            os.close(fd)
        return decode(rel, data, limit)


def decode(rel: str, data: bytes, limit: int) -> FileText:
    digest = digest_of(data)
    if len(data) > limit:
        return FileText(rel, None, digest, f"larger than the {limit:,}-byte limit ({len(data):,} bytes)")
    if b"\0" in data[:8192]:
        return FileText(rel, None, digest, "binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileText(rel, None, digest, f"not UTF-8 (byte {exc.start})")
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is not code; offsets stay consistent with the text we keep
    return FileText(rel, text, digest)
