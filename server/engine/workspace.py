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
from typing import Iterator

import pathspec

from specward.analyzers.codes import CODES
from specward.analyzers.languages import language_of
from specward.analyzers.model import Finding, Span
from specward.analyzers.resolve import is_resolver_config
from specward.analyzers.stages.export_openapi import EXPORT_MARK

from .config import (DEFAULT_CONTRACTS, DEFAULT_EXCLUDE, SNIFF_BYTES, SNIFFED_CONTRACT_NAME, Settings,
                     has_specward_table)
from .reading import FileText, digest_of, is_within, outside, read_data, read_file, real_root, refused, shown

__all__ = ["FileText", "Workspace", "digest_of", "find_project_root", "looks_like_contract"]

log = logging.getLogger(__name__)

GITIGNORE_BYTES = 1_000_000
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
    if head.startswith(EXPORT_MARK):
        return False  # an export of a SpecDSL contract (`specward export openapi`): its source is the contract
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
        self._real_root = real_root(self._root)
        self.settings = settings
        entries = contract_globs if contract_globs is not None else settings.contracts
        self.explicit_contracts = entries is not None
        # an entry with a glob character is a glob (inside the workspace only), unless a
        # file has that very name; any other entry is one file, relative to the root or
        # absolute, and may be outside it
        globs: list[str] = []
        self.contract_files: dict[str, Path] = {}  # key -> absolute path
        # a file the workspace's own configuration names outside the workspace is read only
        # inside the repository the workspace is in (a monorepo's backend contract); the
        # user names anything else (``--contract``, the editor's setting)
        trusted = contract_globs is not None
        self.refused_contracts: dict[str, str] = {}
        repo = _repository_root(self.root)
        for entry in entries or ():
            path = Path(os.path.abspath(self.root / Path(entry).expanduser()))
            if _GLOB_CHARS.search(entry) and not path.is_file():
                globs.append(entry)
                continue
            key = self._key(path)
            if not trusted and not _within(_resolved(path), repo):  # (through a link too)
                self.refused_contracts[key] = (
                    "a contract the workspace's configuration names outside the workspace and its repository: "
                    "not read (name it with --contract or the editor's contracts setting to read it)")
                continue
            self.contract_files[key] = path
        self.contract_globs = tuple(globs) if entries is not None else DEFAULT_CONTRACTS
        self._contract_spec = pathspec.PathSpec.from_lines("gitignore", self.contract_globs)
        self.exclude_names = set(DEFAULT_EXCLUDE)
        self.exclude_globs = [g for g in settings.exclude]
        self._ignores: dict[str, pathspec.PathSpec] = {}
        self._sniffed: dict[str, tuple[tuple[int, int], bool]] = {}
        self.missing_contracts: list[str] = []  # explicit files that did not exist at the last walk
        self.configs: list[str] = []  # the module resolver's configuration files at the last walk
        self.others: list[str] = []  # the files that are neither sources nor contracts, at the last walk
        # what the last walk saw but did not list: files excluded (a .gitignore, a setting) and
        # folders it did not enter. They exist all the same: an import of one is not judged
        self.unlisted: set[str] = set()
        self.unlisted_dirs: set[str] = set()
        # what the last walk refused, with why: links out of the workspace, folders too deep
        self.skipped: dict[str, str] = {}

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
        if stat.S_ISREG(st.st_mode) and outside(self._root, rel) is None:
            try:
                # non-blocking, and no further than the head: the file may change meanwhile
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
                try:
                    if stat.S_ISREG(os.fstat(fd).st_mode):
                        head = os.read(fd, SNIFF_BYTES)
                finally:
                    os.close(fd)
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
        return self._too_deep(rel) or self._excluded_by_rules(rel)

    def _excluded_by_rules(self, rel: str) -> bool:
        """Excluded by a folder name, a configured glob or a ``.gitignore``."""
        parts = rel.split("/")
        if any(p in self.exclude_names for p in parts[:-1]):
            return True
        for g in self.exclude_globs:
            if fnmatch.fnmatch(rel, g) or any(fnmatch.fnmatch(p, g) for p in parts):
                return True
        if self.settings.respect_gitignore and self._ignores:
            if len(self._ignores) < len(parts):
                # fewer ignore files than folder levels (a deep path): each file's folder is
                # tested as a prefix, not each prefix built (quadratic in the depth)
                for base, spec in self._ignores.items():
                    if not base:
                        if spec.match_file(rel):
                            return True
                    elif rel.startswith(base) and rel[len(base):len(base) + 1] == "/" \
                            and spec.match_file(rel[len(base) + 1:]):
                        return True
                return False
            for i in range(len(parts)):
                base = "/".join(parts[:i])
                spec = self._ignores.get(base)
                if spec is not None and spec.match_file("/".join(parts[i:])):
                    return True
        return False

    def wanted(self, rel: str) -> bool:
        return (self.is_source(rel) or self.is_contract(rel)) and not self.is_excluded(rel)

    # -------------------------------------------------------------- walking
    def _load_gitignore(self, rel_dir: str) -> None:
        rel = f"{rel_dir}/.gitignore" if rel_dir else ".gitignore"
        # read like any workspace file: a named pipe, a link out of the workspace or a huge
        # file in its place is not read
        data, reason = read_data(self._root, rel, max(self.settings.max_file_size, GITIGNORE_BYTES))
        if data is not None:
            self._ignores[rel_dir] = pathspec.PathSpec.from_lines(
                "gitignore", data.decode("utf-8", "replace").splitlines())
        elif reason != "the file no longer exists":
            log.warning("not using %s: %s", shown(rel), reason)

    def _wanted_name(self, rel: str) -> bool:
        """Whether a file of this name would be read (a source, a contract by its name, a
        module resolver configuration), decided without opening it."""
        return (self.is_source(rel) or is_resolver_config(rel) or self._contract_spec.match_file(rel)
                or SNIFFED_CONTRACT_NAME.search(rel.rpartition("/")[2]) is not None)

    def _too_deep(self, rel: str) -> bool:
        """Whether ``rel`` (a file) is in a folder deeper than ``max_depth`` levels."""
        return rel.count("/") > self.settings.max_depth

    def _walk(self, start_rel: str, start_abs: str, seen_dirs: set[tuple[int, int]]) -> Iterator[str]:
        """The files below one folder (workspace-relative posix paths) that are not
        excluded, regular, and really inside the workspace (or named explicitly). Without
        recursion: a tree of any depth costs one stack entry per pending folder, and folders
        more than ``max_depth`` levels below the root are not entered (``self.skipped``)."""
        max_depth = self.settings.max_depth
        stack: list[tuple[str, str]] = [(start_rel, start_abs)]
        while stack:
            rel_dir, abs_dir = stack.pop()
            try:
                st = os.stat(abs_dir)
            except OSError as exc:
                log.warning("cannot read folder %s: %s", shown(abs_dir), exc.strerror or exc)
                continue
            key = (st.st_dev, st.st_ino)
            if key in seen_dirs:
                log.info("skipping %s: already visited (symlink loop?)", shown(rel_dir or "."))
                continue
            seen_dirs.add(key)
            if self.settings.respect_gitignore:
                self._load_gitignore(rel_dir)
            try:
                with os.scandir(abs_dir) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                log.warning("cannot list folder %s: %s", shown(abs_dir), exc.strerror or exc)
                continue
            depth = rel_dir.count("/") + 1 if rel_dir else 0  # of the entries' folder
            subdirs: list[tuple[str, str]] = []
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=True)
                except OSError:
                    continue
                if is_dir:
                    if entry.name in self.exclude_names or self._excluded_by_rules(rel + "/x"):
                        self.unlisted_dirs.add(rel)
                        continue
                    if is_link:
                        real = os.path.realpath(entry.path)
                        if not is_within(real, self._real_root):
                            self.skipped[rel] = f"a symlink to {shown(real)}, outside the workspace: not followed"
                            self.unlisted_dirs.add(rel)
                            continue
                    if depth + 1 > max_depth:
                        self.skipped[rel] = (f"a folder more than {max_depth} levels below the workspace root: "
                                             "not walked (the max_depth setting)")
                        self.unlisted_dirs.add(rel)
                        continue
                    subdirs.append((rel, entry.path))
                    continue
                try:
                    if not entry.is_file(follow_symlinks=True):
                        # a named pipe, a socket, a device (never opened), or a dangling link
                        if (not is_link or os.path.exists(entry.path)) and self._wanted_name(rel) \
                                and not self.is_excluded(rel):
                            self.skipped[rel] = "not a regular file (a named pipe, a socket or a device): not read"
                        continue
                except OSError:
                    continue
                if self.is_excluded(rel):
                    self.unlisted.add(rel)
                    continue
                if is_link and rel not in self.contract_files:
                    real = os.path.realpath(entry.path)
                    if not is_within(real, self._real_root):
                        if self._wanted_name(rel):
                            self.skipped[rel] = refused(real)
                        continue
                yield rel
            stack.extend(reversed(subdirs))  # folders in name order

    def walk(self) -> tuple[list[str], list[str]]:
        """(source files, contract files) as relative posix paths, sorted. What the walk
        refused (links out of the workspace, folders too deep) is in ``self.skipped``."""
        sources: list[str] = []
        contracts: list[str] = []
        configs: list[str] = []
        others: list[str] = []
        self.skipped = dict(self.refused_contracts)
        self.unlisted, self.unlisted_dirs = set(), set()
        for rel in self._walk("", str(self.root), set()):
            if is_resolver_config(rel):
                configs.append(rel)
            if self.is_contract(rel):
                contracts.append(rel)
            elif self.is_source(rel):
                sources.append(rel)
            else:
                others.append(rel)
        # explicit contract files, wherever they are (excluded folders, outside the root)
        self.missing_contracts = [key for key, path in self.contract_files.items() if not path.is_file()]
        contracts.extend(key for key in self.contract_files if key not in self.missing_contracts)
        sources = sorted(set(sources) - set(self.contract_files))
        contracts = sorted(set(contracts))
        self.configs = sorted(configs)  # what the module resolver reads (analyzers/resolve.py)
        # every other file, by name only: what an import may name besides sources (a
        # stylesheet, an image, JSON) and the manifests the import checks read
        self.others = sorted(others)
        return sources, contracts

    def files_below(self, rel_dir: str) -> list[str]:
        """The files below the folder ``rel_dir`` (relative posix path, "" for the root) the
        walk would list and that are wanted (sources, contracts, resolver configurations):
        for a folder that appeared. Iterative, depth-capped and symlink-checked like the
        walk; what it refuses is added to ``self.skipped``."""
        if rel_dir and (self._too_deep(rel_dir + "/x") or self.is_excluded(rel_dir + "/x")):
            return []
        abs_dir = os.path.join(self._root, rel_dir) if rel_dir else self._root
        if outside(self._root, rel_dir) is not None:
            return []
        return [rel for rel in self._walk(rel_dir, abs_dir, set())
                if self.wanted(rel) or is_resolver_config(rel)]

    def skipped_findings(self) -> list[Finding]:
        """One ``file-skipped`` finding per path the last walk refused."""
        return [Finding("file-skipped", CODES["file-skipped"].severity, why, rel, Span(0, 0))
                for rel, why in sorted(self.skipped.items())]

    # -------------------------------------------------------------- reading
    def read(self, rel: str) -> FileText:
        """Read a file as UTF-8 text; binary, non-UTF-8, oversized and unreadable files, and
        files whose real path is outside the workspace (unless named as contracts), are
        returned with ``text=None`` and a reason instead of raising."""
        return read_file(self._root, rel, self.settings.max_file_size, outside_ok=rel in self.contract_files)


def _repository_root(root: Path) -> Path:
    """The folder of the nearest ``.git`` at or above ``root`` (a folder or a file: a
    worktree, a submodule), or ``root`` itself when there is none."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return _resolved(folder)
    return _resolved(root)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
