"""Which file of an installed npm package an import names, and whether it has types.

Pure: the package's ``package.json`` text in, an :class:`Entry` out; whether a file exists
is asked through ``exists`` (workspace-relative POSIX paths under a ``node_modules``
folder), as the module resolver does. Modelled on TypeScript's ``moduleResolution:
bundler`` for packages (checked with tsc 5.9):

- a package with ``exports``: the subpath must be one it exports (``null`` targets
  included: not exported); the target's declaration file (``./dist/x.js`` ->
  ``./dist/x.d.ts``; a ``types`` condition names one directly) gives the names;
- without ``exports``: the package itself through ``types``/``typings``, then ``main``/
  ``module`` with the declaration substitution, then ``index.d.ts``; a subpath as a file
  (any extension Node or TypeScript would try) or a folder (``index.*``, ``package.json``).

An entry is ``TYPED`` only when a declaration file (or TypeScript source) was found: only
then may names be judged. A package whose files are missing or whose manifest cannot be
read is ``UNKNOWN`` (trusted): a broken install is not the code's mistake.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from .model import FileFacts
from .resolve_configs import ConfigError, join, parse_jsonc, subpath_targets

TYPED = "typed"  # a declaration file: ``path``; its exports can be judged
UNTYPED = "untyped"  # the module exists, without types (plain JavaScript, JSON, an asset)
NO_SUBPATH = "no-subpath"  # the package has no such module: ``why`` says how that is known
UNKNOWN = "unknown"  # cannot tell (no readable package.json, its targets missing)


class Installed(Protocol):
    """What the import checks may read of installed packages (the engine reads the files:
    ``server/engine/installed.py``). Paths are workspace-relative, under ``node_modules``,
    or ``site:`` + a path in the Python environment's site-packages."""

    def exists(self, path: str) -> bool: ...

    def listing(self, folder: str) -> frozenset[str]:
        """The entry names of a ``site:`` folder (compiled modules have no one name to probe)."""

    def manifest(self, pkgdir: str) -> str | None:
        """The text of ``<pkgdir>/package.json``."""

    # optional: ``unlisted_exists(path) -> bool``, whether a workspace path the walk did not
    # list is a file (``analyses._Exists``; without it such a path counts as existing)

    def facts(self, path: str) -> FileFacts | None:
        """The facts of a declaration file (None for any other file); for ``<file>#<module>``,
        those of its ``declare module '<module>' { ... }`` block; for ``<file>#+<module>``,
        the file's with the block's exports added (a module that augments itself); for
        ``<file>#=``, the members of the namespace its ``export =`` names
        (``extract.declarations.export_assigned``)."""


def in_node_modules(path: str) -> bool:
    return path.startswith("node_modules/") or "/node_modules/" in path


SITE = "site:"  # the prefix of a path in the project's Python environment (``site:werkzeug/serving.py``)


def in_installed(path: str) -> bool:
    """A path an :class:`Installed` reader answers for: under a ``node_modules`` folder, or
    in the Python environment's site-packages (``site:`` paths)."""
    return path.startswith(SITE) or in_node_modules(path)


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str
    path: str | None = None
    why: str = ""  # NO_SUBPATH: "exports" (not in its exports map) or "files" (no such file)


_DECLARATION = {".js": ".d.ts", ".jsx": ".d.ts", ".mjs": ".d.mts", ".cjs": ".d.cts"}
# declaration files and TypeScript sources: the files whose exports can be read as types
TYPED_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts")
# what Node (CommonJS) and TypeScript try after a subpath written without its extension
_SUBPATH_EXTENSIONS = (".d.ts", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".json", ".node", ".d.mts", ".d.cts")
_FOLDER_FILES = ("index.d.ts", "index.ts", "index.js", "index.mjs", "index.cjs", "index.json", "package.json")


def declaration_of(path: str) -> str | None:
    """The declaration file TypeScript reads for a JavaScript file (``x.js`` -> ``x.d.ts``)."""
    for js, dts in _DECLARATION.items():
        if path.endswith(js):
            return path[: -len(js)] + dts
    return None


def _typed(path: str) -> bool:
    return path.endswith(TYPED_SUFFIXES)


def installed_entry(pkgdir: str, sub: str, manifest: str | None, exists: Callable[[str], bool]) -> Entry:
    """The module ``<package>/<sub>`` names, for the package installed at ``pkgdir``
    (``node_modules/react``), whose ``package.json`` text is ``manifest`` (None: unreadable).
    ``sub`` is the subpath after the package name (``""`` for the package itself)."""
    data = _manifest_data(manifest)
    if data is None:
        return Entry(UNKNOWN)
    exports = data.get("exports")
    if exports is not None:
        return _exported(pkgdir, sub, exports, exists)
    if not sub:
        return _main(pkgdir, data, exists)
    return _subpath(pkgdir, sub, exists)


def _manifest_data(manifest: str | None) -> dict | None:
    """A package.json text as an object; None when it is missing or not one."""
    try:
        data = parse_jsonc(manifest) if manifest is not None else None
    except ConfigError:
        return None
    return data if isinstance(data, dict) else None


def types_package(name: str) -> str:
    """The DefinitelyTyped package of ``name``: ``@types/babel__core`` for ``@babel/core``."""
    return "@types/" + (name[1:].replace("/", "__") if name.startswith("@") else name)


def package_of(path: str) -> tuple[str, str] | None:
    """(the folder of the installed package ``path`` is in, the package name whose types it
    holds: ``@types/babel__core`` holds ``@babel/core``'s) for a path under ``node_modules``."""
    head, sep, rest = path.rpartition("node_modules/")
    parts = rest.split("/")
    if not sep or len(parts) < 2 or (parts[0].startswith("@") and len(parts) < 3):
        return None
    pkg = "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]
    name = pkg
    if pkg.startswith("@types/"):
        bare = pkg[len("@types/"):]
        name = "@" + bare.replace("__", "/", 1) if "__" in bare else bare
    return f"{head}node_modules/{pkg}", name


def esm_declarations(path: str, manifest: str | None) -> bool:
    """Whether TypeScript reads the installed declaration file ``path`` as an ES module
    (``.d.mts``, or ``.d.ts`` in a package with ``"type": "module"``; ``manifest``: its
    package's package.json). Otherwise its module is CommonJS, whose default import is
    ``module.exports`` (Node's, and tsc's synthesized default)."""
    if path.endswith(".d.mts"):
        return True
    if not path.endswith(".d.ts"):
        return False
    data = _manifest_data(manifest)
    return data is not None and data.get("type") == "module"


def exported_subpaths(manifest: str | None) -> tuple[str, ...]:
    """The subpaths (``canary`` for ``"./canary"``) a package's ``exports`` names one by one
    (no pattern, no ``package.json``); empty without such a map."""
    data = _manifest_data(manifest)
    exports = data.get("exports") if data is not None else None
    if not isinstance(exports, dict):
        return ()
    return tuple(k[2:] for k in exports if isinstance(k, str) and k.startswith("./") and len(k) > 2
                 and "*" not in k and not k.endswith(".json"))


# the `exports` conditions tsc matches for an import in a project whose module settings are
# not read here (`bundler`: types, import, default; `node16`: node and require too), and
# the versioned `types@...` ones; `customConditions` are not read
TS_CONDITIONS = frozenset(("types", "import", "require", "node", "default"))


def _candidates(path: str) -> list[str]:
    """A target and the declaration file TypeScript would read for it, types first."""
    dts = declaration_of(path)
    return [dts, path] if dts is not None else [path]


def _pick(paths: list[str], exists: Callable[[str], bool]) -> Entry | None:
    """The first declaration that exists, else the first file that exists (untyped)."""
    found = [p for p in dict.fromkeys(paths) if exists(p)]
    typed = next((p for p in found if _typed(p)), None)
    if typed is not None:
        return Entry(TYPED, typed)
    if found:
        return Entry(UNTYPED, found[0])
    return None


def _exported(pkgdir: str, sub: str, exports: object, exists: Callable[[str], bool]) -> Entry:
    """Whether the subpath exists is every condition's answer (some environment resolves
    it); its types are those the conditions TypeScript matches lead to first
    (:data:`TS_CONDITIONS`): a ``react-server`` or ``browser`` entry before them may
    declare less (React Router's server entry has no ``useLoaderData``). Only when those
    lead nowhere are the other conditions' files read."""
    key = "./" + sub if sub else "."
    targets = subpath_targets(exports, key)
    if not targets:
        return Entry(NO_SUBPATH, why="exports")
    for group in (subpath_targets(exports, key, TS_CONDITIONS), targets):
        paths = [p for t in group if t.startswith("./") and (p := join(pkgdir, t)) is not None
                 and p.startswith(pkgdir + "/")]
        got = _pick([c for p in paths for c in _candidates(p)], exists)
        if got is not None:
            return got
    return Entry(UNKNOWN)


def _main(pkgdir: str, data: dict, exists: Callable[[str], bool]) -> Entry:
    paths: list[str] = []
    for field in ("types", "typings"):
        value = data.get(field)
        if isinstance(value, str) and value:
            p = join(pkgdir, value)
            if p is not None:
                paths += [p, p + ".d.ts", p + "/index.d.ts"] if not _typed(p) else [p]
    for field in ("main", "module"):
        value = data.get(field)
        if isinstance(value, str) and value:
            p = join(pkgdir, value)
            if p is not None:
                paths += _candidates(p) if declaration_of(p) else [p + ".d.ts", p, p + ".js", p + "/index.d.ts",
                                                                   p + "/index.js"]
    paths += [f"{pkgdir}/index.d.ts", f"{pkgdir}/index.js"]
    got = _pick(paths, exists)
    return got if got is not None else Entry(UNKNOWN)


def _subpath(pkgdir: str, sub: str, exists: Callable[[str], bool]) -> Entry:
    base = join(pkgdir, sub.rstrip("/"))
    if base is None or not base.startswith(pkgdir + "/"):
        return Entry(UNKNOWN)
    paths = ([] if sub.endswith("/") else [*_candidates(base), *(base + e for e in _SUBPATH_EXTENSIONS)])
    paths += [f"{base}/{name}" for name in _FOLDER_FILES]
    got = _pick(paths, exists)
    if got is None:
        return Entry(NO_SUBPATH, why="files")
    if got.path is not None and got.path.endswith("/package.json"):
        return Entry(UNKNOWN)  # a nested package: its own fields decide, not read here
    return got
