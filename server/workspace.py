"""The workspace on disk: which files specward looks at, and reading them safely.

Walks the tree once, honouring ``.gitignore`` files (each applies below its folder), the
default excludes (``node_modules``, build output, virtual environments, ...) and the
configured ones. Symlinked folders are followed only when they stay inside the workspace,
and each real folder is visited once, so a symlink loop ends the walk of that branch.
"""

from __future__ import annotations

import fnmatch
import logging
import os
from pathlib import Path

import pathspec

from specward.analyzers.languages import language_of

from .config import DEFAULT_CONTRACTS, DEFAULT_EXCLUDE, Settings
from .reading import FileText, digest_of, read_file

__all__ = ["FileText", "Workspace", "digest_of"]

log = logging.getLogger(__name__)


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
        return read_file(self._root, rel, self.settings.max_file_size)
