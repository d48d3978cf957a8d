"""``InstalledFiles``: what the import checks read of installed packages, for
``analyzers.package_entry``: whether a file under a ``node_modules`` folder exists, a
package's ``package.json`` text, and the facts of its declaration files (``.d.ts``,
extracted by the same extractor as workspace files); and the same of the modules in the
project's Python environment (``site:`` paths: its site-packages, which may lie outside
the workspace, as a linked ``.venv`` does: only ``.py``/``.pyi`` files are read there).

Everything is read lazily, once per environment (the index makes a new one whenever it
reads the environment again: a manifest or a lockfile changed), through the same guarded
reader as workspace files: never through a link out of the workspace, never a file over the
size limit, never anything but a regular file. A package's files are only read, never run.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Mapping

from specward.analyzers.ambient_installed import installed_declarers
from specward.analyzers.extract.declarations import ambient_module, export_assigned
from specward.analyzers.model import FileFacts
from specward.analyzers.package_entry import SITE, TYPED_SUFFIXES, in_node_modules

from .inputs import GENERATED_TYPES
from .parsing import extract_safely
from .reading import read_file, real_root, is_within

log = logging.getLogger(__name__)

FACTS_KEPT = 4096  # declaration files whose facts stay in memory (a package's are read again after)


class InstalledFiles:
    def __init__(self, root: Path | str, max_file_size: int, site: str | None = None) -> None:
        self.root = str(root)
        self.limit = max_file_size
        self.site = site
        self._top = real_root(self.root)
        self._listings: dict[str, frozenset[str]] = {}
        self._exists: dict[str, bool] = {}
        self._manifests: dict[str, str | None] = {}
        self._facts: OrderedDict[str, FileFacts | None] = OrderedDict()
        self._ambient: dict[tuple[str, ...], Mapping[str, tuple[str, ...]]] = {}
        self._lock = threading.Lock()  # the cold build's analyses and an LSP request may both ask

    def exists(self, path: str) -> bool:
        hit = self._exists.get(path)
        if hit is None:
            if path.startswith(SITE):
                rel = path[len(SITE):]
                hit = (self.site is not None and rel.endswith((".py", ".pyi")) and ".." not in rel.split("/")
                       and os.path.isfile(os.path.join(self.site, rel)))
            else:
                hit = in_node_modules(path) and self._is_file(path)
            self._exists[path] = hit
        return hit

    def listing(self, folder: str) -> frozenset[str]:
        hit = self._listings.get(folder)
        if hit is None:
            hit = frozenset()
            rel = folder[len(SITE):] if folder.startswith(SITE) else None
            if self.site is not None and rel is not None and ".." not in rel.split("/"):
                try:
                    hit = frozenset(os.listdir(os.path.join(self.site, rel)))
                except OSError:
                    pass
            self._listings[folder] = hit
        return hit

    def unlisted_exists(self, path: str) -> bool:
        """Whether a workspace path the walk did not list (in an ignored or excluded folder,
        or one too deep) is a regular file, asked of the disk each time (such a folder is
        not watched: a generated file may appear at any time). A path through a link out of
        the workspace is not looked at and counts as existing: it is not judged."""
        real = os.path.realpath(os.path.join(self.root, path))
        if not is_within(real, self._top):
            return True
        try:
            return stat.S_ISREG(os.stat(real).st_mode)
        except (OSError, ValueError):
            return False

    def ambient_for(self, pkgdirs: tuple[str, ...]) -> Mapping[str, tuple[str, ...]]:
        """The ambient modules the declarations of these installed packages reach, each with
        the files that declare it (``analyzers.ambient_installed``), once per set of packages."""
        with self._lock:
            hit = self._ambient.get(pkgdirs)
        if hit is None:
            hit = installed_declarers(pkgdirs, self, lambda p: self._read(p) if self.exists(p) else None)
            with self._lock:
                self._ambient[pkgdirs] = hit
        return hit

    def generated(self, path: str) -> bool:
        """A declaration file of a framework's generated folder (``.nuxt/``, ``.svelte-kit/``),
        which the walk does not list, read for its ``declare module`` blocks."""
        parts = path.split("/")
        return any(p in GENERATED_TYPES for p in parts[:-1]) and ".." not in parts and self._is_file(path)

    def _is_file(self, path: str) -> bool:
        full = os.path.join(self.root, path)
        try:
            st = os.stat(full)
        except (OSError, ValueError):
            return False
        # (a link out of the workspace is not one of its files: a hostile repository's
        # node_modules could point anywhere)
        return stat.S_ISREG(st.st_mode) and is_within(os.path.realpath(full), self._top)

    def manifest(self, pkgdir: str) -> str | None:
        if pkgdir in self._manifests:
            return self._manifests[pkgdir]
        path = f"{pkgdir}/package.json"
        text = self._read(path) if self.exists(path) else None
        self._manifests[pkgdir] = text
        return text

    def facts(self, path: str) -> FileFacts | None:
        """The facts of a declaration file; ``<file>#<module>``: of its ``declare module
        '<module>'`` block; ``<file>#=``: of the namespace its ``export =`` names
        (``package_entry.Installed``)."""
        with self._lock:
            if path in self._facts:
                self._facts.move_to_end(path)
                return self._facts[path]
        facts = None
        real, _, module = path.partition("#")
        if path.startswith(SITE):
            text = self._read(path) if self.exists(path) else None
            facts = extract_safely(path, text) if text is not None else None
        elif real.endswith(TYPED_SUFFIXES) and (self.exists(real) or (module and self.generated(real))):
            text = self._read(real)
            if text is not None and module:
                try:
                    if module == "=":  # `export = N` over a namespace: its members
                        facts = export_assigned(real, text)
                    else:
                        facts = ambient_module(real, text, module.removeprefix("+"))
                    if facts is not None and module.startswith("+"):
                        whole = self.facts(real)
                        facts = None if whole is None else replace(whole, exports=(*whole.exports, *facts.exports))
                except Exception:  # noqa: BLE001 - the block is trusted, as an unreadable file is
                    log.exception("reading the ambient module %s of %s failed", module, real)
            elif text is not None:
                facts = extract_safely(real, text)
        with self._lock:
            self._facts[path] = facts
            while len(self._facts) > FACTS_KEPT:
                self._facts.popitem(last=False)
        return facts

    def _read(self, path: str) -> str | None:
        if path.startswith(SITE):  # the project's own environment, wherever it lives
            assert self.site is not None
            ft = read_file(self.site, path[len(SITE):], self.limit, outside_ok=True)
        else:
            ft = read_file(self.root, path, self.limit)
        if ft.text is None:
            log.info("installed package file %s not read: %s", path, ft.reason)
        return ft.text
