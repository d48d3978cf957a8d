"""The ambient modules installed packages declare for a project: the ``declare module 'x'``
names in the declaration files tsc's program reaches from the project's own dependencies
(Docusaurus's ``@theme/Layout`` and ``@docusaurus/Link`` are no packages: they are declared
in ``@docusaurus/theme-classic`` and ``@docusaurus/module-type-aliases``, which the project
reaches through ``@docusaurus/preset-classic``). For the import checks: a package specifier
that nothing installs but such a block declares is no phantom, as it is none for tsc.

Pure: files are read through the ``Installed`` reader's ``exists``/``manifest`` and a
``read`` function (text of a file under ``node_modules``). The roots are the typed entries
of the packages given (a project's declared dependencies and its ``@types``, as tsc includes
every ``@types`` package); from each declaration file, ``/// <reference path|types>`` and
the modules it imports or re-exports are followed (relative ones to their declaration file,
packages to the nearest installed copy's typed entry), breadth first, at most ``MAX_FILES``
files. Over-approximating tsc's program is the safe side here: a name more is a phantom
fewer.
"""

from __future__ import annotations

import re
from collections import deque
from posixpath import dirname
from typing import Callable, Iterable

from .package_entry import TYPED, Installed, declaration_of, installed_entry, types_package
from .resolve_configs import join
from .resolve_setup import split_package

MAX_FILES = 3000

_AMBIENT = re.compile(r"""^[ \t]*(?:export[ \t]+)?declare[ \t]+module[ \t]+(['"])([^'"\n]+)\1""", re.M)
_REFERENCE = re.compile(r"""^[ \t]*///[ \t]*<reference[ \t]+(path|types)[ \t]*=[ \t]*(['"])([^'"\n]+)\2""", re.M)
_IMPORTED = re.compile(r"""(?:\bfrom[ \t]*|\bimport[ \t]*\(?[ \t]*|\brequire[ \t]*\([ \t]*)(['"])([^'"\n]+)\1""")
_RELATIVE_DECLARATIONS = ("", ".d.ts", "/index.d.ts", ".d.mts", ".d.cts")


def ambient_modules(text: str) -> list[str]:
    """The names a declaration file declares as modules (``declare module 'x' {``,
    ``declare module '*.svg'``), with a text scan: the workspace's ``.d.ts`` files are read
    so before any file is parsed (every parser process needs them from the start), and
    the installed ones reached here. (Read from ``.d.ts`` files only: an augmentation in a
    ``.ts`` file names a module that exists anyway.)"""
    return [m.group(2) for m in _AMBIENT.finditer(text)] if "declare" in text else []


_MODULE_ITEM = re.compile(r"^(?:import|export)\b", re.M)


def augmented_modules(text: str) -> tuple[list[str], list[str]]:
    """(the modules a workspace declaration file declares, those it augments), by a text
    scan like :func:`ambient_modules`: in a file with a top-level import or export (at the
    start of a line), a ``declare module 'x'`` block of an exact name augments ``x``
    (``FileFacts.augments`` holds what the tree says; a wildcard is a declaration)."""
    names = ambient_modules(text)
    if not names or not _MODULE_ITEM.search(text):
        return names, []
    return [n for n in names if "*" in n], [n for n in names if "*" not in n]


def installed_ambient(pkgdirs: Iterable[str], installed: Installed, read: Callable[[str], str | None],
                      max_files: int = MAX_FILES) -> frozenset[str]:
    """The ambient module names (wildcards as written) of the declaration files reached
    from the typed entries of the packages installed at ``pkgdirs``."""
    return frozenset(installed_declarers(pkgdirs, installed, read, max_files))


def installed_declarers(pkgdirs: Iterable[str], installed: Installed, read: Callable[[str], str | None],
                        max_files: int = MAX_FILES) -> dict[str, tuple[str, ...]]:
    """:func:`installed_ambient`'s names, each with the declaration files that have a
    ``declare module`` block of that name (in the order reached): for an installed module,
    the blocks other packages augment it with (``declare module 'vue' { ... }``)."""
    seen: set[str] = set()
    queue: deque[str] = deque()
    names: dict[str, list[str]] = {}

    def push(path: str | None) -> None:
        if path is not None and path not in seen and len(seen) < max_files:
            seen.add(path)
            queue.append(path)

    def package(folder: str, spec: str, reference: bool = False) -> None:
        """The typed entry of ``spec`` as tsc finds it: the package's own types, then
        ``@types/``; for a ``/// <reference types>``, ``@types/`` (the type roots) first."""
        name, sub = split_package(spec)
        if name is None:
            return
        types = types_package(name)
        for pkg in ((types, name) if reference else (name, types)):
            pkgdir = _nearest_copy(folder, pkg, installed)
            if pkgdir is not None:
                entry = installed_entry(pkgdir, sub, installed.manifest(pkgdir), installed.exists)
                if entry.kind == TYPED:
                    push(entry.path)
                    return

    for pkgdir in pkgdirs:
        entry = installed_entry(pkgdir, "", installed.manifest(pkgdir), installed.exists)
        if entry.kind == TYPED:
            push(entry.path)
    while queue:
        path = queue.popleft()
        text = read(path)
        if not text:
            continue
        folder = dirname(path)
        for module in ambient_modules(text):
            files = names.setdefault(module, [])
            if path not in files:
                files.append(path)
        for m in _REFERENCE.finditer(text):
            if m.group(1) == "types":
                package(folder, m.group(3), reference=True)
            else:
                push(_relative(folder, m.group(3), installed))
        for m in _IMPORTED.finditer(text):
            spec = m.group(2)
            if spec.startswith("."):
                push(_relative(folder, spec, installed))
            elif not spec.startswith(("node:", "#")):
                package(folder, spec)
    return {module: tuple(files) for module, files in names.items()}


def _relative(folder: str, spec: str, installed: Installed) -> str | None:
    base = join(folder, spec)
    if base is None:
        return None
    for cand in [declaration_of(base)] + [base + s for s in _RELATIVE_DECLARATIONS]:
        if cand is not None and cand.endswith((".d.ts", ".d.mts", ".d.cts")) and installed.exists(cand):
            return cand
    return None


def _nearest_copy(folder: str, name: str, installed: Installed) -> str | None:
    """``<ancestor>/node_modules/<name>`` nearest to ``folder`` that has a package.json."""
    while True:
        if folder.rpartition("/")[2] != "node_modules":
            cand = f"{folder}/node_modules/{name}" if folder else f"node_modules/{name}"
            if installed.exists(f"{cand}/package.json"):
                return cand
        if not folder:
            return None
        folder = folder.rpartition("/")[0]


__all__ = ["MAX_FILES", "ambient_modules", "augmented_modules", "installed_ambient", "installed_declarers"]
