"""The workspace on disk: where a project's root is, which files specward looks at, and
reading them safely.

Walks the tree once, honouring ``.gitignore`` files (each applies below its folder), the
default excludes (``node_modules``, build output, virtual environments, ...) and the
configured ones. Symlinked folders are followed only when they stay inside the workspace,
and each real folder is visited once, so a symlink loop ends the walk of that branch.

Contracts are found by discovery (globs, and names that must also *look* like a contract,
see ``config.SNIFFED_CONTRACT_NAME``), always inside the workspace, or named explicitly
(``--contract``, the ``contracts`` setting, the editor's setting): an explicit file may be
anywhere readable. One outside the workspace is keyed by its absolute posix path, which
``root / key`` and ``os.path.join(root, key)`` both turn back into that path.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import stat
from pathlib import Path

import pathspec

from specward.analyzers.languages import language_of
from specward.analyzers.resolve import is_resolver_config

from .config import (DEFAULT_CONTRACTS, DEFAULT_EXCLUDE, SNIFF_BYTES, SNIFFED_CONTRACT_NAME, Settings,
                     has_specward_table)
from .reading import FileText, digest_of, read_file

__all__ = ["FileText", "Workspace", "digest_of", "find_project_root", "looks_like_contract"]

log = logging.getLogger(__name__)

_GLOB_CHARS = re.compile(r"[*?\[]")
_YAML_TOP_KEY = re.compile(r"""(?m)^["']?(openapi|swagger)["']?[ \t]*:""")


def find_project_root(path: Path) -> tuple[Path, str] | None:
    """The project ``path`` (a file or folder) belongs to: the nearest folder at or above it
    with a ``specward.toml``, a ``pyproject.toml`` with a ``[tool.specward]`` table, or a
    ``.git`` (folder or file: a worktree, a submodule), with the marker found. The search
    stops at the first folder with any of them, so a configuration above the repository
    root is never used. None when there is none up to the filesystem root."""
    path = Path(path)
    start = path if path.is_dir() else path.parent
    for folder in (start, *start.parents):
        if (folder / "specward.toml").is_file():
            return folder, "specward.toml"
        if has_specward_table(folder / "pyproject.toml"):
            return folder, "pyproject.toml"
        if (folder / ".git").exists():
            return folder, ".git"
    return None


def looks_like_contract(head: str) -> bool:
    """Whether the first bytes of a JSON or YAML file hold a top-level ``openapi`` or
    ``swagger`` key (a YAML key at column 0, or a key of the outermost JSON object)."""
    head = head.lstrip("\ufeff")
    if _YAML_TOP_KEY.search(head):
        return True
    stack: list[str] = []
    i, n = 0, len(head)
    while i < n:
        c = head[i]
        if c == '"':
            j = i + 1
            while j < n and head[j] != '"':
                j += 2 if head[j] == "\\" else 1
            if stack == ["{"] and head[i + 1:j] in ("openapi", "swagger"):
                k = j + 1
                while k < n and head[k] in " \t\r\n":
                    k += 1
                if k < n and head[k] == ":":
                    return True
            i = j + 1
            continue
        if c in "{[":
            stack.append(c)
        elif c in "}]" and stack:
            stack.pop()
        i += 1
    return False


class Workspace:
    def __init__(self, root: Path, settings: Settings, contract_globs: list[str] | None = None) -> None:
        self.root = root.resolve()
        self._root = str(self.root)
        self.settings = settings
        entries = contract_globs if contract_globs is not None else settings.contracts
        self.explicit_contracts = entries is not None
        # an entry with a glob character is a glob (inside the workspace only), unless a
        # file has that very name; any other entry is one file, relative to the root or
        # absolute, and may be outside it
        globs: list[str] = []
        self.contract_files: dict[str, Path] = {}  # key -> absolute path
        for entry in entries or ():
            path = Path(os.path.abspath(self.root / Path(entry).expanduser()))
            if _GLOB_CHARS.search(entry) and not path.is_file():
                globs.append(entry)
            else:
                self.contract_files[self._key(path)] = path
        self.contract_globs = tuple(globs) if entries is not None else DEFAULT_CONTRACTS
        self._contract_spec = pathspec.PathSpec.from_lines("gitignore", self.contract_globs)
        self.exclude_names = set(DEFAULT_EXCLUDE)
        self.exclude_globs = [g for g in settings.exclude]
        self._ignores: dict[str, pathspec.PathSpec] = {}
        self._sniffed: dict[str, tuple[tuple[int, int], bool]] = {}
        self.missing_contracts: list[str] = []  # explicit files that did not exist at the last walk
        self.configs: list[str] = []  # the module resolver's configuration files at the last walk

    def _key(self, path: Path) -> str:
        """A contract file's key: workspace-relative inside it, absolute outside."""
        for candidate in (path, _resolved(path)):
            try:
                return candidate.relative_to(self.root).as_posix()
            except ValueError:
                continue
        return path.as_posix()

    def describe_contracts(self) -> str:
        """What contract discovery (or the configured list) looks for, for messages."""
        if self.explicit_contracts:
            named = [*self.contract_files, *self.contract_globs]
            return "the configured contracts (" + ", ".join(named) + ")" if named else "no contract (an empty list)"
        return ("*.dsl.json, openapi.{yml,yaml,json}, swagger.{yml,yaml,json}, and JSON/YAML files named like "
                "*openapi*, *swagger*, api or spec that start with an openapi or swagger key")

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
        for candidate in candidates:  # an explicit contract outside the workspace
            if candidate.as_posix() in self.contract_files:
                return candidate.as_posix()
        return None

    def is_contract(self, rel: str, text: str | None = None) -> bool:
        """Whether ``rel`` is a contract: named explicitly, matched by a glob, or (discovery
        only) named like one and starting like one (``text``, else the file's first bytes)."""
        if rel in self.contract_files:
            return True
        if self._contract_spec.match_file(rel):
            return True
        if self.explicit_contracts or not SNIFFED_CONTRACT_NAME.search(rel.rpartition("/")[2]):
            return False
        if text is not None:
            return looks_like_contract(text[:SNIFF_BYTES])
        return self._sniff(rel)

    def _sniff(self, rel: str) -> bool:
        path = os.path.join(self._root, rel)
        try:
            st = os.stat(path)
        except OSError:
            return False
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._sniffed.get(rel)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        head = b""
        if stat.S_ISREG(st.st_mode):
            try:
                with open(path, "rb") as fh:
                    head = fh.read(SNIFF_BYTES)
            except OSError:
                pass
        found = looks_like_contract(head.decode("utf-8", "replace"))
        self._sniffed[rel] = (stamp, found)
        return found

    def is_source(self, rel: str) -> bool:
        return language_of(rel) is not None

    def is_excluded(self, rel: str) -> bool:
        if rel in self.contract_files:  # named explicitly: used wherever it is
            return False
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
        configs: list[str] = []
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
                if is_resolver_config(rel):
                    configs.append(rel)
                if self.is_contract(rel):
                    contracts.append(rel)
                elif self.is_source(rel):
                    sources.append(rel)
        # explicit contract files, wherever they are (excluded folders, outside the root)
        self.missing_contracts = [key for key, path in self.contract_files.items() if not path.is_file()]
        contracts.extend(key for key in self.contract_files if key not in self.missing_contracts)
        sources = sorted(set(sources) - set(self.contract_files))
        contracts = sorted(set(contracts))
        self.configs = sorted(configs)  # what the module resolver reads (analyzers/resolve.py)
        return sources, contracts

    # -------------------------------------------------------------- reading
    def read(self, rel: str) -> FileText:
        """Read a file as UTF-8 text; binary, non-UTF-8, oversized and unreadable files are
        returned with ``text=None`` and a reason instead of raising."""
        return read_file(self._root, rel, self.settings.max_file_size)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
