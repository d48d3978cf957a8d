"""The Python half of the import checks (:mod:`analyzers.imports`): a Python import's
module, its names, and the package it needs (``PythonChecks``, mixed into the checker: it
uses its ``add``, ``resolve``, ``lookup``, ``env`` and ``manifests_at``), with the tables
both halves share (``KNOWN_DISTRIBUTIONS``, ``normalize_distribution``, ``folders_up``).

Pure, like the checker. docs/imports.md has the rules.
"""

from __future__ import annotations

import re
from typing import Collection, Mapping

from .model import Import, Span
from .package_entry import SITE
from .resolve import FILE, MISSING

# import names whose distribution is named otherwise (configuration may add more:
# Environment.import_names)
KNOWN_DISTRIBUTIONS: Mapping[str, str] = {
    "yaml": "pyyaml", "PIL": "pillow", "sklearn": "scikit-learn", "cv2": "opencv-python",
    "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "jwt": "pyjwt", "dotenv": "python-dotenv",
    "magic": "python-magic", "multipart": "python-multipart", "google.protobuf": "protobuf",
    "attr": "attrs", "OpenSSL": "pyopenssl", "Crypto": "pycryptodome", "serial": "pyserial",
    "usb": "pyusb", "git": "gitpython", "docx": "python-docx", "pptx": "python-pptx",
    "fitz": "pymupdf", "skimage": "scikit-image", "zmq": "pyzmq", "jose": "python-jose",
}


def normalize_distribution(name: str) -> str:
    """PEP 503: ``Python_Dateutil`` -> ``python-dateutil``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def folders_up(path: str) -> list[str]:
    """The folders from ``path``'s own up to the root (``""``)."""
    out = []
    folder = path.rpartition("/")[0]
    while True:
        out.append(folder)
        if not folder:
            return out
        folder = folder.rpartition("/")[0]


class PythonChecks:
    """The Python imports' checks of ``imports._Checker``."""

    def python_import(self, imp: Import, module_judged: bool) -> None:
        module = imp.module
        mspan = imp.module_span or imp.span
        r = self.resolve(self.path, module)
        star = imp.local == "*"
        named = imp.name not in ("*", "") and not star
        if r.kind == FILE:
            if named:
                self.py_name(imp, module, r.path)
            return
        if named:
            sub = self.resolve(self.path, _submodule(module, imp.name))
            if sub.kind == FILE:
                return  # from pkg import sub, pkg a namespace package
        if r.kind == MISSING:
            if module.strip(".") == "":
                # `from . import x` in a folder without __init__.py: x must be a module there
                if named and not r.doubt:
                    folder = r.probed[-1].rpartition("/")[0] if r.probed else ""
                    self.add("missing-export", imp, imp.span,
                             f"'{imp.name}' is not a module of {folder or 'the root'}", target=folder)
                return
            if module_judged or r.doubt:
                return
            self.phantom(imp, module, r, mspan)
            return
        top = module.partition(".")[0]
        if module_judged:
            # (judged as below: a package of the workspace is never read from the environment)
            if (named and not imp.guarded and self.py_installed(top) and not self.namespace_package(top)
                    and self.resolve(self.path, top).kind != FILE):
                self.py_installed_name(imp, module)
            return
        namespace = self.namespace_package(top)
        if namespace and "." not in module:
            return  # a folder of modules without __init__.py
        if "." in module:
            head = self.resolve(self.path, top)
            if head.kind == FILE or namespace:
                if self.env.python_modules is None or top not in self.env.python_modules:
                    self.phantom(imp, module, r, mspan)
                return
        if top in self.env.stdlib or top == "__future__" or imp.guarded:
            return
        self.py_package(imp, top, mspan)
        if named and self.py_installed(top):
            self.py_installed_name(imp, module)

    def py_installed(self, top: str) -> bool:
        """Whether ``top`` is judged as installed in the project's environment for this file
        (as :meth:`py_package` decides), and its files can be read."""
        env = self.env
        return (self.installed is not None and env.python_modules is not None and top in env.python_modules
                and top not in env.stdlib and any(self.manifests_at(f, "python") for f in folders_up(self.path)))

    def site_module(self, module: str) -> str | None:
        """The source (or stub standing alone) of an installed module, as a ``site:`` path;
        None when it has none (a compiled module, a namespace package, not there)."""
        assert self.installed is not None
        base = SITE + module.replace(".", "/")
        for cand in (f"{base}.py", f"{base}/__init__.py", f"{base}.pyi", f"{base}/__init__.pyi"):
            if self.installed.exists(cand):
                return cand
        return None

    def py_installed_name(self, imp: Import, module: str) -> None:
        """``from pkg.mod import name`` with ``pkg`` installed: the name must be one the
        module binds (as for a workspace module: :meth:`py_names`), be declared by a stub
        beside it, or be a submodule of the package (any file or folder of that name,
        compiled ones included)."""
        assert self.installed is not None
        target = self.site_module(module)
        if target is None:
            return
        names = self.py_names(target, {target}, public=False)
        if names is None or imp.name in names:
            return
        if target.endswith(".py") and self.installed.exists(target + "i"):
            stub = self.py_names(target + "i", {target + "i"}, public=False)
            if stub is None or imp.name in stub:
                return
            names |= stub
        package = target.endswith(("/__init__.py", "/__init__.pyi"))
        if package and any(e.partition(".")[0] == imp.name for e in self.installed.listing(target.rpartition("/")[0])):
            return
        shown = target[len(SITE):]
        close = sorted(n for n in names if not n.startswith("__"))
        self.missing_name(imp, target, close, f"'{imp.name}' is not defined in '{module}' ({shown} in the "
                                               f"project's Python environment)")

    def namespace_package(self, top: str) -> bool:
        """Whether ``top`` is a workspace folder holding Python files without being a
        regular package (where the resolver looks: the root, ``src/``, the importer's
        folder and those above it)."""
        if not self.files:
            return False
        folders = _python_folders(self.files)
        return any((f"{f}/{top}" if f else top) in folders for f in ["src", *folders_up(self.path)])

    def py_package(self, imp: Import, top: str, mspan: Span) -> None:
        env = self.env
        up = folders_up(self.path)
        manifests = [m for f in up for m in self.manifests_at(f, "python")]
        candidates = {normalize_distribution(top)}
        candidates |= env.python_distributions.get(top, frozenset())
        for key in (imp.module, top):
            for table in (env.import_names, KNOWN_DISTRIBUTIONS):
                if key in table:
                    candidates.add(normalize_distribution(table[key]))
        declared = any(candidates & m.declared or (m.name and normalize_distribution(m.name) in candidates)
                       for m in manifests)
        complete = bool(manifests) and all(m.complete for m in manifests)
        where = manifests[0].path if manifests else ""
        dist = sorted(env.python_distributions.get(top, ())) or sorted(
            candidates - {normalize_distribution(top)}) or [normalize_distribution(top)]
        if env.python_modules is not None and manifests:
            # the environment found is taken as this file's only when a Python manifest
            # governs the file (a loose script, or a folder of another project, may run
            # under another interpreter)
            installed = top in env.python_modules
            if not installed and not declared:
                self.add("phantom-import", imp, mspan,
                         f"cannot find module '{imp.module}': it is not installed in the project's Python "
                         f"environment and not declared{' in ' + where if where else ''}: it may be a "
                         f"hallucinated package name", package=top)
                return
            if installed and not declared and complete:
                self.add("undeclared-dependency", imp, mspan,
                         f"'{top}' (distribution {dist[0]}) is not declared in {where}", package=top,
                         distribution=dist[0])
            return
        if not declared and complete:
            self.add("undeclared-dependency", imp, mspan,
                     f"'{top}' (distribution {dist[0]}) is not declared in {where} and is not installed "
                     f"(no Python environment found): it may be a hallucinated package name",
                     package=top, distribution=dist[0])

    def py_name(self, imp: Import, module: str, target: str) -> None:
        names = self.py_names(target, {target}, public=False)
        if names is None or imp.name in names:
            return
        if target.endswith(".py") and self.lookup(target + "i") is not None:
            # a stub beside the module (pkg/__init__.pyi): what it declares exists too (type
            # aliases, names the module makes at run time), as pyright reads it
            stub = self.py_names(target + "i", {target + "i"}, public=False)
            if stub is None or imp.name in stub:
                return
            names |= stub
        package = target.endswith("__init__.py")
        if package:
            sub = self.resolve(self.path, _submodule(module, imp.name))
            if sub.kind == FILE:
                return
        close = sorted(n for n in names if not n.startswith("__"))
        where = (f"neither defined in {target} nor a module of {target.rpartition('/')[0] or 'the root'}"
                 if package else f"not defined in {target}")
        self.missing_name(imp, target, close, f"'{imp.name}' is {where}")

    def py_names(self, path: str, seen: set[str], public: bool) -> set[str] | None:
        """The names module ``path`` binds at top level (``public``: those ``from path import
        *`` brings: its ``__all__``, else the names without a leading underscore); None when
        they cannot be known (``__getattr__``, a star import of a package)."""
        facts = self.lookup(path)
        if facts is None or facts.open_exports:
            return None
        if public and facts.all_names is not None:
            return set(facts.all_names)
        names = {d.name for d in facts.definitions}
        names |= {e.name for e in facts.exports}
        names |= set(facts.all_names or ())
        for i in facts.imports:
            if i.local == "*":
                r = self.resolve(path, i.module)
                if r.kind != FILE:
                    return None  # names from a package: not known
                if r.path in seen:
                    continue  # a cycle: those names are being collected already
                seen.add(r.path)
                inner = self.py_names(r.path, seen, public=True)
                if inner is None:
                    return None
                names |= inner
            elif i.local:
                names.add(i.local.partition(".")[0])
        if public:
            names = {n for n in names if not n.startswith("_")}
        return names


_FOLDERS_MEMO: list[tuple[Collection[str], frozenset[str]]] = []


def _python_folders(files: Collection[str]) -> frozenset[str]:
    """Every folder that holds a ``.py`` file, at any depth; memoized for the last file
    list (one batch checks many files against the same list)."""
    if _FOLDERS_MEMO and _FOLDERS_MEMO[0][0] is files:
        return _FOLDERS_MEMO[0][1]
    out: set[str] = set()
    for f in files:
        if f.endswith((".py", ".pyi")):
            folder = f.rpartition("/")[0]
            while folder and folder not in out:
                out.add(folder)
                folder = folder.rpartition("/")[0]
    result = frozenset(out)
    _FOLDERS_MEMO[:] = [(files, result)]
    return result


def _submodule(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"
