"""Import verdicts for one file: modules that cannot be resolved (``phantom-import``), names a
module does not export (``missing-export``) and third-party packages the project does not
declare (``undeclared-dependency``).

Pure. Which file or package a specifier names is the one resolver's answer
(:mod:`analyzers.resolve`); another workspace file's facts come from ``lookup``; what is
installed and declared arrives as plain data (:class:`Environment`, read by
``server/engine/packages.py``). Every path read or probed is returned in
``ImportCheck.deps``: the check must run again when one of them changes.

    env = Environment(node_modules={"": frozenset({"react"})}, python_modules=None,
                      stdlib=frozenset(sys.stdlib_module_names), manifests={...})
    result = check_imports(facts, Resolver(config, exists), index.get, env)
    result.findings, result.deps

docs/imports.md has the rules, the decisions and what is not judged.
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass, field, replace
from typing import Callable, Collection, Iterable, Mapping

from wcmatch import glob as wcglob

from .codes import CODES
from .imports_python import KNOWN_DISTRIBUTIONS, PythonChecks, normalize_distribution
from .imports_python import folders_up as _folders_up
from .model import FOLDER_EDGE, Export, FileFacts, Finding, Import, Span
from .package_entry import (NO_SUBPATH, TYPED, Entry, Installed, esm_declarations, exported_subpaths, in_installed,
                            in_node_modules, installed_entry, package_of, types_package)
from .resolve import FILE, INSTALLED, MISSING, NODE, PACKAGE, SVELTEKIT, Resolution, Resolver, clean_specifier
from .resolve_setup import split_package

_COMPONENTS = (".vue", ".svelte")
# import.meta.glob as Vite reads it (tinyglobby/picomatch): `**`, braces, extglobs; dot
# files matched too (a pattern is judged only when it matches nothing at all)
_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.EXTGLOB | wcglob.DOTGLOB
_GLOB_MAGIC = re.compile(r"[*?\[\]{}()!+@]")
_SHOWN_LISTED = 5  # in an import.meta.glob message: files of the folder shown
_SHOWN_GROUPS = 4  # in a phantom-import message: stems tried
_SHOWN_PER_GROUP = 4  # and extensions of each


@dataclass(frozen=True)
class Manifest:
    """What one manifest declares. ``kind``: ``npm`` (package.json) or ``python``
    (pyproject.toml, requirements*.txt, setup.cfg); ``folder``: its workspace-relative folder
    (``""`` = root); ``declared``: the dependency names it declares, normalized (npm names as
    written, Python distribution names by PEP 503: lower case, runs of ``-_.`` as ``-``);
    ``name``: the project's own name (a package importing itself is not undeclared);
    ``complete``: False when the manifest could not be read whole (then nothing is judged
    undeclared against it)."""

    kind: str
    folder: str
    declared: frozenset[str]
    path: str = ""
    name: str | None = None
    complete: bool = True


@dataclass(frozen=True)
class Environment:
    """What is installed and declared, as plain data.

    - ``node_modules``: workspace-relative folder holding a ``node_modules`` (``""`` = root)
      -> the package names installed there (``react``, ``@acme/ui``, ``@types/node``). A
      package is visible from a file when a folder on the file's way up has it. When no
      folder on the way up has a ``node_modules`` at all (a fresh checkout before ``npm
      install``), packages are judged only against the manifests.
    - ``python_modules``: top-level importable names of the project's Python environment;
      None when no environment was found (third-party Python imports are then judged only
      against the manifests).
    - ``stdlib``: the standard library's top-level names.
    - ``manifests``: manifest path -> :class:`Manifest`.
    - ``python_distributions``: import name -> the normalized names of the installed
      distributions that provide it (from ``top_level.txt``/``RECORD``).
    - ``import_names``: configured import name -> distribution name, on top of
      :data:`KNOWN_DISTRIBUTIONS` (``{"ldap": "python-ldap"}``).
    - ``declared_modules``: ambient ``declare module 'x'`` names (and wildcards ``*.svg``) of
      every workspace file -> the file that declares it; fill it with
      :func:`with_declared_modules` from the index's facts.
    - ``node_modules_stamp``: (path, mtime_ns, size) of each ``node_modules`` folder and of
      the install state npm, pnpm and Yarn write in it: it changes with every install, so
      verdicts read from installed packages' files are not reused across one.
    - ``python_site``: the site-packages folder of the project's Python environment (an
      absolute path; where ``site:`` paths of an ``Installed`` reader point), None without one.
    - ``workspace_augments``: module name -> the workspace ``.d.ts`` files that augment it
      (a ``declare module 'x'`` block in a file that imports or exports: codegen output such
      as Hydrogen's ``storefrontapi.generated.d.ts``, a ``declare module 'vue'`` beside an
      ``export {}``); the module is judged as without them, the names their blocks export
      (``FileFacts.augments``) added. Not in ``declared_modules``.
    - ``augmentations``: module name -> the declaration files of a framework's generated
      folder (``.nuxt/``, ``.svelte-kit/``: not workspace files) with a ``declare module``
      block of that name; the names such a block declares are exported by the module (read
      through the ``Installed`` reader); ``generated_stamp``: (path, digest of the text) of
      each, so that verdicts are not reused across a regeneration that changes one.
    """

    node_modules: Mapping[str, frozenset[str]] = field(default_factory=dict)
    python_modules: frozenset[str] | None = None
    stdlib: frozenset[str] = frozenset(sys.stdlib_module_names)
    manifests: Mapping[str, Manifest] = field(default_factory=dict)
    python_distributions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    import_names: Mapping[str, str] = field(default_factory=dict)
    declared_modules: Mapping[str, str] = field(default_factory=dict)
    python_version: str | None = None
    node_modules_stamp: tuple[tuple[str, int, int], ...] = ()
    python_site: str | None = None
    augmentations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    generated_stamp: tuple[tuple[str, str], ...] = ()
    workspace_augments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportCheck:
    findings: tuple[Finding, ...]
    deps: frozenset[str]  # every workspace path read (through lookup) or probed


def with_declared_modules(env: Environment, facts: Iterable[FileFacts]) -> Environment:
    """``env`` with the ambient module declarations of ``facts`` (every workspace file's).
    A change to any file's ``declared_modules`` changes every file's verdicts."""
    declared: dict[str, str] = {}
    augmenting: dict[str, tuple[str, ...]] = {}
    for f in facts:
        augmented = dict(f.augments)
        for m in f.declared_modules:
            if m in augmented:
                augmenting[m] = (*augmenting.get(m, ()), f.path)
            else:
                declared[m] = f.path
    return replace(env, declared_modules=declared, workspace_augments=augmenting)


def check_imports(facts: FileFacts, resolver: Resolver, lookup: Callable[[str], FileFacts | None],
                  env: Environment, *, files: Collection[str] = (), installed: Installed | None = None,
                  unlisted_below: Callable[[str], bool] | None = None) -> ImportCheck:
    """The import findings of one file. ``files`` (optional) is every workspace file, for the
    nearest-path quick fix of a phantom import and the files an ``import.meta.glob`` pattern
    matches; without it no path is suggested and no pattern judged. ``unlisted_below``
    (optional) says whether the walk left out a folder or a file (ignored, excluded) at or
    below a folder (``AnalysisInput.unlisted_below``): a pattern starting there is not judged.
    ``installed`` (optional) reads installed npm packages: with it, a subpath a package does
    not have and a name its declaration files do not export are judged too. What is read
    under ``node_modules`` is not a dependency edge: ``Environment.node_modules_stamp``
    changes with every install instead."""
    return _Checker(facts, resolver, lookup, env, files, installed, unlisted_below).run()


def _wildcard(pattern: str, spec: str) -> bool:
    if "*" not in pattern:
        return pattern == spec
    head, _, tail = pattern.partition("*")
    return len(spec) >= len(head) + len(tail) and spec.startswith(head) and spec.endswith(tail)


def _relative(spec: str) -> bool:
    return spec.startswith(("./", "../", "/")) or spec in (".", "..")


class _Checker(PythonChecks):
    def __init__(self, facts: FileFacts, resolver: Resolver, lookup: Callable[[str], FileFacts | None],
                 env: Environment, files: Collection[str], installed: Installed | None = None,
                 unlisted_below: Callable[[str], bool] | None = None) -> None:
        self.facts = facts
        self.unlisted_below = unlisted_below
        self.installed = installed
        self.path = facts.path
        self.python = facts.language == "python"
        self.resolver = resolver
        self._lookup = lookup
        self.env = env
        self.files = files
        self.deps: set[str] = set()
        self.findings: list[Finding] = []
        self._facts_memo: dict[str, FileFacts | None] = {}

    # ------------------------------------------------------------------ plumbing
    def lookup(self, path: str) -> FileFacts | None:
        if path not in self._facts_memo:
            if self.installed is not None and in_installed(path):
                self._facts_memo[path] = self.installed.facts(path)
            else:
                self.deps.add(path)
                self._facts_memo[path] = self._lookup(path)
        return self._facts_memo[path]

    def resolve(self, importer: str, spec: str) -> Resolution:
        r = self.resolver.resolve(importer, spec, "python" if importer.endswith((".py", ".pyi")) else None)
        if self.installed is not None and in_installed(importer):
            return r  # inside an installed package: see check_imports
        self.deps.update(r.probed)
        if r.path:
            self.deps.add(r.path)
        return r

    def add(self, code: str, imp: Import, span: Span, message: str, fixes: tuple = (), *, severity: str = "",
            **data: object) -> None:
        severity = severity or ("warning" if imp.guarded else CODES[code].severity)
        extra: list[tuple[str, object]] = [("module", imp.module)]
        if imp.name not in ("", "*"):
            extra.append(("name", imp.name))
        extra.extend(sorted(data.items()))
        if fixes:
            extra.append(("fixes", tuple(fixes)))
        self.findings.append(Finding(code, severity, message, self.path, span, tuple(extra)))

    def run(self) -> ImportCheck:
        seen: set[tuple[str, str]] = set()
        for imp in self.facts.imports:
            if imp.kind == "glob":
                self.glob_import(imp)
                continue
            if not imp.module:
                continue
            module_judged = imp.module in {m for m, _ in seen}
            seen.add((imp.module, imp.name))
            if self.python:
                self.python_import(imp, module_judged)
            else:
                self.js_import(imp, module_judged)
        if not self.python:
            for e in self.facts.exports:  # export { x } from './y', export * from './y'
                if e.module is None or (e.module, e.local) in seen:
                    continue
                name = "*" if e.local == "*" else e.local
                module_judged = e.module in {m for m, _ in seen}
                seen.add((e.module, name))
                self.js_import(Import(e.module, name, e.name, e.span, "static"), module_judged)
        order = {id(f): i for i, f in enumerate(self.findings)}
        findings = sorted(self.findings, key=lambda f: (f.span.start, order[id(f)]))
        return ImportCheck(tuple(findings), frozenset(self.deps))

    # ------------------------------------------------------------------ JavaScript/TypeScript
    def glob_import(self, imp: Import) -> None:
        """An ``import.meta.glob`` pattern that matches no file: Vite gives an empty object,
        without a word. Judged only for a pattern relative to the file (``./``, ``../``); a
        negation (``!``), a root-absolute pattern (the Vite root is not known) and an alias
        are not judged. The edge is on the folder the pattern starts in."""
        pattern = imp.module
        if not self.files or not pattern.startswith(("./", "../")):
            return
        base = self.path.split("/")[:-1]
        segments = pattern.split("/")
        head = 0
        while head < len(segments) - 1 and not _GLOB_MAGIC.search(segments[head]):
            seg = segments[head]
            if seg == "..":
                if not base:
                    return  # above the workspace
                base.pop()
            elif seg not in (".", ""):
                base.append(seg)
            head += 1
        folder = "/".join(base)
        rest = "/".join(segments[head:])
        self.deps.add(FOLDER_EDGE + folder)
        prefix = folder + "/" if folder else ""
        below = sorted(f[len(prefix):] for f in self.files if f.startswith(prefix))
        if any(wcglob.globmatch(f, rest, flags=_GLOB_FLAGS) for f in below):
            return
        if self.unlisted_below is not None and self.unlisted_below(folder):
            return  # it may match what the walk left out (generated files, an ignored folder)
        shown = folder or "the workspace root"
        if not below:
            where = f"no file is below {shown}"
        else:
            names = ", ".join(below[:_SHOWN_LISTED]) + (", ..." if len(below) > _SHOWN_LISTED else "")
            where = f"{shown} has {len(below)} file(s): {names}"
        self.add("phantom-import", imp, imp.module_span or imp.span,
                 f"import.meta.glob('{pattern}') matches no file ({where})", severity="warning")

    def js_import(self, imp: Import, module_judged: bool) -> None:
        spec = imp.module
        r = self.resolve(self.path, spec)
        mspan = imp.module_span or imp.span
        if r.kind == FILE:
            self.js_names(imp, r.path)
            return
        if r.kind == MISSING:
            if r.doubt or module_judged or not r.probed:
                # not probed: the specifier names neither a path nor a package (a plugin's
                # virtual module such as `~icons/mdi/home`, `$lib` outside SvelteKit), or
                # leaves the workspace: not judged
                return
            if spec in self.env.declared_modules:
                return  # `declare module '@/generated/api'`: exact names only, a wildcard
                # (`*.svg`) declares types for files that exist, it does not create them
            self.phantom(imp, spec, r, mspan)
            return
        # PACKAGE
        if r.provider == NODE and not (r.doubt or imp.guarded or imp.name == "default" or self.ambient(spec)):
            # `import { readFileSync } from 'node:fs'`: the block of @types/node; a default
            # import is the module itself under esModuleInterop
            target = self.builtin_target(spec)
            if target is not None:
                self.js_names(imp, target, shown=f"'{spec}' ({target.partition('#')[0]})")
            return
        if r.provider != INSTALLED or r.doubt or imp.guarded:
            return
        if self.ambient(spec) or (r.package and self.ambient(r.package)):
            return
        if clean_specifier(spec) in self.env.workspace_augments:
            # augmented, so installed (or tsc says TS2664): its names with the blocks' added
            if self.installed is not None:
                self.installed_module(imp, spec, mspan, True)
            return
        if (module_judged or self.npm_package(imp, r.package or spec, mspan, r.mapped)) and self.installed is not None:
            self.installed_module(imp, spec, mspan, module_judged)

    def esm_installed(self, target: str) -> bool:
        """Whether an installed declaration file is an ES module (a ``declare module``
        block is not: it may be CommonJS)."""
        where = package_of(target) if "#" not in target and self.installed is not None else None
        return where is not None and esm_declarations(target, self.installed.manifest(where[0]))  # type: ignore[union-attr]

    def builtin_target(self, spec: str) -> str | None:
        """``<file>#<spec>``: the one ``declare module '<spec>'`` block of the ``@types/node``
        this file sees (``url.d.ts#node:url``); None without one (no ``@types/node``, a
        module its version does not declare, or declared in more than one file). Only when a
        ``package.json`` on the way up declares ``@types/node``: a copy installed for
        another package's sake may be older than the Node the code runs on."""
        probe = getattr(self.installed, "ambient_for", None)
        up = _folders_up(self.path)
        if probe is None or not any("@types/node" in m.declared for f in up for m in self.manifests_at(f, "npm")):
            return None
        typed = self.installed_entries(self.path, "node", "")[1]
        where = package_of(typed.path) if typed is not None and typed.path else None
        if where is None or not where[0].endswith("/@types/node"):
            return None
        files = probe((where[0],)).get(spec, ())
        return f"{files[0]}#{spec}" if len(files) == 1 else None

    def ambient(self, spec: str) -> bool:
        return any(_wildcard(p, spec) for p in self.env.declared_modules)

    def npm_package(self, imp: Import, name: str, mspan: Span, mapped: str = "") -> bool:
        """Judge the package itself; True when it is installed where this file sees it.
        ``mapped``: the configuration maps the specifier to the package's folder (then it
        is not judged undeclared: the framework that wrote the mapping provides it)."""
        types = types_package(name)
        up = _folders_up(self.path)
        installed_sets = [self.env.node_modules[f] for f in up if f in self.env.node_modules]
        manifests = [m for f in up for m in self.manifests_at(f, "npm")]
        declared = any(name in m.declared or types in m.declared or name == m.name for m in manifests)
        complete = bool(manifests) and all(m.complete for m in manifests)
        if installed_sets:
            installed = any(name in s or types in s for s in installed_sets)
            if not installed and not declared:
                ambient = self.installed_ambient(up, manifests)
                if any(_wildcard(pattern, spec) for pattern in ambient for spec in (name, imp.module)):
                    return False  # `@theme/Layout`: declared by an installed package's types
                where = ", ".join(f"{f}/node_modules" if f else "node_modules"
                                  for f in up if f in self.env.node_modules)
                close = difflib.get_close_matches(imp.module, sorted(n for n in ambient if "*" not in n), n=1,
                                                  cutoff=0.8)
                hint = f"; did you mean '{close[0]}' (declared by an installed package's types)?" if close else ""
                self.add("phantom-import", imp, mspan,
                         f"cannot find package '{name}': it is not installed ({where}) and not declared "
                         f"in package.json: it may be a hallucinated package name{hint}", package=name)
                return False
            if installed and not declared and complete and not mapped:
                self.add("undeclared-dependency", imp, mspan,
                         f"'{name}' is not declared in {manifests[0].path or 'package.json'}", package=name)
            return installed
        if not declared and complete:
            self.add("undeclared-dependency", imp, mspan,
                     f"'{name}' is not declared in {manifests[0].path or 'package.json'} and is not installed "
                     f"(no node_modules): it may be a hallucinated package name", package=name)
        return False

    def installed_ambient(self, up: list[str], manifests: list[Manifest]) -> Mapping[str, tuple[str, ...]]:
        """The ambient modules the declarations of the installed packages this file's
        manifests declare (and the installed ``@types``) declare, each with the files that
        declare it (``analyzers/ambient_installed.py``; asked only for a package about to be
        a phantom or a name about to be a missing export)."""
        probe = getattr(self.installed, "ambient_for", None)
        if probe is None:
            return {}
        roots: list[str] = []
        for f in up:
            here = self.env.node_modules.get(f)
            if not here:
                continue
            nm = f"{f}/node_modules" if f else "node_modules"
            wanted = {n for m in manifests for n in m.declared} | {n for n in here if n.startswith("@types/")}
            roots += [f"{nm}/{n}" for n in sorted(wanted & here)]
        return probe(tuple(roots))

    def installed_module(self, imp: Import, spec: str, mspan: Span, module_judged: bool) -> None:
        """An installed package's subpath and names (see :meth:`installed_target`)."""
        clean = clean_specifier(spec)
        name, sub = split_package(clean)
        if name is None:
            return
        target, code = self.installed_target(self.path, clean)
        if target is not None:
            self.js_names(imp, target, shown=f"'{clean}' ({target.partition('#')[0]})")
        elif code is not None and code.kind == NO_SUBPATH and not module_judged:
            how = (f"its package.json \"exports\" does not export '{'./' + sub if sub else '.'}'"
                   if code.why == "exports" else f"it has no file '{sub}'")
            self.add("phantom-import", imp, mspan,
                     f"cannot find module '{clean}': package '{name}' is installed, but {how}", package=name)

    def installed_target(self, importer: str, spec: str) -> tuple[str | None, Entry | None]:
        """(what to read the exports of ``spec`` from, or None: not judged; the nearest
        installed copy's entry). A declaration file, or ``<file>#<spec>`` when the module is
        a ``declare module '<spec>'`` block of the package's types (what declaration
        bundlers emit: one file of blocks, no top-level exports), also for a subpath that
        no file provides (TypeScript takes the block)."""
        name, sub = split_package(spec)
        if name is None:
            return None, None
        code, typed = self.installed_entries(importer, name, sub)
        if typed is None and sub:
            main = self.installed_entries(importer, name, "")[1]
            facts = self.lookup(main.path) if main is not None and main.path else None
            if facts is not None and spec in facts.declared_modules:
                return f"{main.path}#{spec}", None  # type: ignore[union-attr]
        if typed is None or typed.path is None:
            return None, code
        facts = self.lookup(typed.path)
        if facts is not None and spec in facts.declared_modules:
            # the block decides; a file with exports of its own and a block of the same name
            # (an augmentation of itself) exports both
            return f"{typed.path}#{'+' if facts.exports else ''}{spec}", code
        return typed.path, code

    def installed_entries(self, importer: str, name: str, sub: str) -> tuple[Entry | None, Entry | None]:
        """(the nearest installed copy's entry, the typed entry) of ``name``/``sub`` as seen
        from ``importer``, as TypeScript finds types: in each ``node_modules`` up the tree,
        the package's own declarations, then ``@types/``; whether the subpath exists at all
        is the nearest copy's answer (Node's)."""
        assert self.installed is not None
        types = types_package(name)
        code = None
        for folder in _folders_up(importer):
            here = self.env.node_modules.get(folder, frozenset())
            for pkg in (name, types):
                if pkg not in here:
                    continue
                pkgdir = f"{folder}/node_modules/{pkg}" if folder else f"node_modules/{pkg}"
                entry = installed_entry(pkgdir, sub, self.installed.manifest(pkgdir), self.installed.exists)
                if pkg == name and code is None:
                    code = entry
                if entry.kind == TYPED:
                    return code, entry
        return code, None

    def manifests_at(self, folder: str, kind: str) -> list[Manifest]:
        return sorted((m for m in self.env.manifests.values() if m.kind == kind and m.folder == folder),
                      key=lambda m: m.path)

    def js_names(self, imp: Import, target: str, shown: str | None = None) -> None:
        name = imp.name
        if name in ("", "*") or (imp.kind == "require" and name == "default") or imp.kind == "dynamic":
            return
        if target.endswith(_COMPONENTS):
            return  # a component's default export always exists; its other names are not judged
        facts = self.lookup(target)
        if facts is None:
            return
        known = self.js_exports(target, name, {target})
        if known is None or known[0]:
            return
        if name == "default" and in_node_modules(target) and not self.esm_installed(target):
            return  # a CommonJS package's default import is its module.exports
        added = self.augmented(imp.module, name)
        if added is not None and in_node_modules(target):
            more = self.augmented_by_packages(imp.module, name, target.partition("#")[0])
            added = None if more is None else added | more
        if added is not None:
            more = self.augmented_in_workspace(imp.module, name)
            added = None if more is None else added | more
        if added is None:
            return
        names = sorted(n for n in known[1] | added if n not in ("default", "*", "="))
        if name == "default":
            guess = next((n for n in names if n.lower() == imp.local.lower()), None)
            msg = f"{shown or target} has no default export"
            fixes: tuple = ()
            if guess is not None:
                msg += f" (did you mean '{{ {guess} }}'?)"
                alone = sum(1 for i in self.facts.imports if i.module == imp.module and i.kind == imp.kind) == 1
                if alone:
                    new = f"{{ {guess} }}" if guess == imp.local else f"{{ {guess} as {imp.local} }}"
                    fixes = ((f"Import the named export '{guess}'", self.path, imp.span.start, imp.span.end, new),)
            self.add("missing-export", imp, imp.span, msg, fixes, target=target)
            return
        self.missing_name(imp, target, names, f"'{imp.name}' is not exported by {shown}" if shown else None)

    def assigned_exports(self, path: str, name: str) -> tuple[bool, set[str]] | None:
        """``js_exports`` of an installed declaration file with ``export = N``: the members of
        the namespace ``N`` (``Installed.facts('<file>#=')``), and the names the package's
        other entries add to it in ``declare module '.'`` blocks (React's ``canary`` and
        ``experimental`` types, which a project may include); None when they cannot be
        known, and for a default import (``esModuleInterop`` decides, not the file)."""
        if name == "default" or self.installed is None or not in_node_modules(path):
            return None
        names = self.block_names(f"{path}#=")
        if names is None:
            return None
        if name not in names:
            added = self.own_augmentations(path)
            if added is None:
                return None
            names |= added
        return name in names, names

    def block_names(self, path: str) -> set[str] | None:
        """The names a block of a declaration file exports (``Installed.facts``' ``#``
        paths); None when they cannot be known."""
        block = self.lookup(path)
        if block is None or block.open_exports or any(e.name in ("*", "=") for e in block.exports):
            return None
        return {e.name for e in block.exports}

    def own_augmentations(self, path: str) -> set[str] | None:
        """The names the typed entries a package exports besides ``path`` add to it in a
        ``declare module '.'`` (or '<its own name>') block; None when one cannot be read."""
        assert self.installed is not None
        where = package_of(path)
        if where is None:
            return None
        pkgdir, own = where
        manifest = self.installed.manifest(pkgdir)
        added: set[str] = set()
        for sub in exported_subpaths(manifest):
            entry = installed_entry(pkgdir, sub, manifest, self.installed.exists)
            facts = self.lookup(entry.path) if entry.kind == TYPED and entry.path and entry.path != path else None
            for module in (facts.declared_modules if facts is not None else ()):
                if module in (".", "./index", own):
                    names = self.block_names(f"{entry.path}#{module}")
                    if names is None:
                        return None
                    added |= names
        return added

    def augmented(self, spec: str, name: str) -> set[str] | None:
        """The names the ``declare module '<spec>'`` blocks of generated declaration files
        add to ``spec``; None when one of them declares ``name`` or cannot be read (then
        the name is not judged)."""
        module = clean_specifier(spec)
        if self.installed is None:
            return set()
        return self.block_union((f"{f}#{module}" for f in self.env.augmentations.get(module, ())), name)

    def block_union(self, blocks: Iterable[str], name: str) -> set[str] | None:
        """The names the ``<file>#<module>`` blocks export together; None when one of them
        exports ``name`` (or everything) or cannot be read."""
        added: set[str] = set()
        assert self.installed is not None
        for path in blocks:
            block = self.installed.facts(path)
            if block is None or block.open_exports or any(e.name in (name, "*", "=") for e in block.exports):
                return None
            added.update(e.name for e in block.exports)
        return added

    def augmented_by_packages(self, spec: str, name: str, own: str) -> set[str] | None:
        """The names other installed packages' ``declare module '<spec>'`` blocks add to the
        installed module ``spec`` (``meters-motion`` adding ``tween`` to ``meters``), in the
        declaration files the project's packages reach (:meth:`installed_ambient`); None
        when one of them declares ``name`` or cannot be read. ``own``: the module's own
        declaration file, whose blocks are its exports already."""
        module = clean_specifier(spec)
        up = _folders_up(self.path)
        files = self.installed_ambient(up, [m for f in up for m in self.manifests_at(f, "npm")]).get(module, ())
        return self.block_union((f"{f}#{module}" for f in files if f != own), name)

    def augmented_in_workspace(self, spec: str, name: str) -> set[str] | None:
        """The names the workspace's augmentations of ``spec`` export (their facts are read
        through ``lookup``: a change to one re-judges this file); None when one exports
        ``name``, cannot be read or, by its tree, does not augment ``spec`` after all."""
        module = clean_specifier(spec)
        added: set[str] = set()
        for path in self.env.workspace_augments.get(module, ()):
            facts = self.lookup(path)
            blocks = dict(facts.augments) if facts is not None else {}
            names = blocks.get(module)
            if names is None or name in names:
                return None
            added.update(names)
        return added

    def missing_name(self, imp: Import, target: str, names: list[str], msg: str | None = None) -> None:
        close = difflib.get_close_matches(imp.name, names, n=3, cutoff=0.6)
        msg = msg or f"'{imp.name}' is not exported by {target}"
        fixes: tuple = ()
        if close:
            best = close[0]
            msg += f" (did you mean '{best}'?)"
            local = imp.local or imp.name
            # the local name stays, so that the code using it still reads the same
            fixes = ((f"Change to '{best}'", self.path, imp.span.start, imp.span.end,
                      best if local == best else f"{best} as {local}"),)
        self.add("missing-export", imp, imp.span, msg, fixes, target=target, nearest=tuple(close))

    def js_exports(self, path: str, name: str, seen: set[str]) -> tuple[bool, set[str]] | None:
        """(whether ``path`` exports ``name``, the names it was seen to export); None when its
        exports cannot be known (not a source file, CommonJS, ``export =``, a re-export of
        a package)."""
        facts = self.lookup(path)
        if facts is None or facts.open_exports:
            return None
        if path.endswith(_COMPONENTS):
            return None
        if not facts.exports:
            return None  # no ES exports at all: CommonJS, a script, or a global declaration file
        names: set[str] = set()
        stars: list[Export] = []
        for e in facts.exports:
            if e.name == "=":
                return self.assigned_exports(path, name)
            if e.name == "*" and e.module is not None:
                stars.append(e)
            else:
                names.add(e.name)
        if name in names:
            return True, names
        if name == "default":
            return False, names  # `export *` does not re-export a default
        for e in stars:
            r = self.resolve(path, e.module)
            target = r.path
            if r.kind == PACKAGE and r.provider == INSTALLED and not r.doubt and self.installed is not None:
                # `export * from 'kit'`: the installed package's declarations, found from here
                target = self.installed_target(path, e.module)[0]
                if target is None:
                    return None
            elif r.kind == PACKAGE and r.provider == NODE and "#" in path:
                # @types/node's `declare module 'node:url' { export * from 'url'; }`
                target = self.builtin_target(e.module)
                if target is None:
                    return None
            elif r.kind != FILE:
                if r.kind == MISSING and not r.doubt:
                    continue  # that file's own phantom-import says it
                return None
            if target is None or target in seen:
                continue  # a cycle: what it exports is already being collected
            seen.add(target)
            inner = self.js_exports(target, name, seen)
            if inner is None:
                return None
            if inner[0]:
                return True, names
            names |= inner[1]
        return False, names

    # ------------------------------------------------------------------ messages and fixes
    def phantom(self, imp: Import, spec: str, r: Resolution, span: Span) -> None:
        msg = f"cannot find module '{spec}'"
        tried = _shorten(tuple(p for p in r.probed if not p.endswith(".pyi")) or r.probed, self.python)  # stubs: implied
        if tried:
            msg += f" (tried {tried})"
        fixes = self.path_fixes(imp, r)
        if fixes:
            msg += f"; did you mean '{fixes[0][4]}'?"
        self.add("phantom-import", imp, span, msg, fixes, tried=r.probed)

    def path_fixes(self, imp: Import, r: Resolution) -> tuple:
        """Replace the specifier by the one naming the nearest existing module."""
        if not self.files or not r.probed or imp.module_span is None:
            return ()
        new = self.generated_specifier(imp.module) or _nearest_specifier(self.path, imp.module, r.probed,
                                                                          self.files, self.python)
        if new is None or new == imp.module:
            return ()
        span = imp.module_span
        start, end = span.start, span.end
        if end - start == len(imp.module.encode()) + 2:  # the string literal, quotes included
            start, end = start + 1, end - 1
        fixes = [(f"Change to '{new}'", self.path, start, end, new)]
        if not self.python and _relative(imp.module):
            alias = self.alias_form(new)
            if alias is not None:
                fixes.append((f"Change to '{alias}' (the project's alias)", self.path, start, end, alias))
        return tuple(fixes)

    def generated_specifier(self, spec: str) -> str | None:
        """A module the framework generates and the walk never lists, when ``spec`` is a
        misspelling of it: SvelteKit's ``./$types`` beside a route (``./$typess``)."""
        if self.python or not spec.startswith("./") or "/" in spec[2:]:
            return None
        for name in _GENERATED_SPECIFIERS:
            if spec != name and difflib.SequenceMatcher(None, spec, name).ratio() >= 0.8:
                r = self.resolve(self.path, name)
                if r.kind == PACKAGE and r.provider == SVELTEKIT:
                    return name
        return None

    def alias_form(self, spec: str) -> str | None:
        """The file ``spec`` names, written through the tsconfig ``paths`` alias that covers
        it in this file's configuration (``../../utils/timing`` -> ``@/utils/timing``), when
        that alias names the same file again; None when no alias covers it."""
        r = self.resolve(self.path, spec)  # (recorded: the fix depends on what it reads)
        if r.kind != FILE or r.path is None:
            return None
        ts = self.resolver.config.context(self.path.rpartition("/")[0]).ts
        if ts is None:
            return None
        # the extension as ``spec`` writes it (none, or ``.js`` for a ``.ts`` file, ``.vue``)
        last = spec.rpartition("/")[2]
        written = next((e for e in (".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", ".vue", ".svelte")
                        if last.endswith(e)), "")
        stem = r.path
        for e in sorted(_SOURCE, key=len, reverse=True):
            if stem.endswith(e):
                stem = stem[: -len(e)]
                break
        if not written and stem.endswith("/index") and not last.startswith("index"):
            stem = stem[: -len("/index")]
        stem += written
        for _pattern, prefix, suffix, targets in ts.stars:
            for t in targets:
                head, star, tail = t.partition("*")
                if not star or not stem.startswith(head) or not stem.endswith(tail) or len(stem) < len(head) + len(tail):
                    continue
                alias = prefix + stem[len(head):len(stem) - len(tail)] + suffix
                back = self.resolve(self.path, alias)
                if back.kind == FILE and back.path == r.path:
                    return alias
        return None


_GENERATED_SPECIFIERS = ("./$types",)
def _shorten(probed: tuple[str, ...], python: bool = False) -> str:
    """``src/a.ts, .tsx, .d.ts, ..., src/a/index.ts, .tsx, .d.ts, ...``: the candidates
    grouped by stem (the file, then the folder's index), each group's first path in full
    and the next extensions alone, a few of each. Python's: the first few paths."""
    if python:
        shown = list(dict.fromkeys(probed))
        return ", ".join(shown[:6] + (["..."] if len(shown) > 6 else []))
    groups: list[list[str]] = []
    stems: list[str] = []
    for p in dict.fromkeys(probed):
        name = p.rpartition("/")[2]
        dot = name.find(".", 1)
        stem = p[: len(p) - len(name) + dot] if dot > 0 else p
        if stems and stems[-1] == stem and dot > 0:
            groups[-1].append(name[dot:])
        else:
            stems.append(stem)
            groups.append([p])
    out: list[str] = []
    for g in groups[:_SHOWN_GROUPS]:
        out.extend(g[:_SHOWN_PER_GROUP])
        if len(g) > _SHOWN_PER_GROUP:
            out.append("...")
    if len(groups) > _SHOWN_GROUPS:
        out.append("...")
    return ", ".join(out)


_SOURCE = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")


def _stem(path: str, python: bool) -> str:
    if python:
        if path.endswith("/__init__.py"):
            return path[: -len("/__init__.py")]
        return path[:-3] if path.endswith(".py") else path
    for ext in (".d.ts",) + _SOURCE:
        if path.endswith(ext):
            path = path[: -len(ext)]
            break
    if path.endswith("/index"):
        path = path[: -len("/index")]
    return path


def _nearest_specifier(importer: str, spec: str, probed: tuple[str, ...], files: Collection[str],
                       python: bool) -> str | None:
    """The specifier, in the style written, of the existing module whose path is nearest to
    what ``spec`` names (its first candidate): same number of folders, close by spelling."""
    wanted = _stem(probed[0], python)
    depth = wanted.count("/")
    pool = {}
    for f in files:
        if python and not f.endswith(".py"):
            continue
        if not python and not f.endswith(_SOURCE + (".json", ".css", ".scss", ".svg")):
            continue
        s = _stem(f, python) if f.endswith(_SOURCE) or python else f
        if s.count("/") == depth and s != wanted:
            pool.setdefault(s, f)
    close = difflib.get_close_matches(wanted, list(pool), n=1, cutoff=0.8)
    if not close:
        return None
    found = close[0]
    # keep the specifier's head (alias, dots), replace the tail the paths differ in
    w_parts, f_parts = wanted.split("/"), found.split("/")
    i = 0
    while i < len(w_parts) and w_parts[i] == f_parts[i]:
        i += 1
    differing = len(w_parts) - i  # trailing segments to rewrite
    if python:
        parts = spec.lstrip(".").split(".") if spec.strip(".") else []
        dots = spec[: len(spec) - len(spec.lstrip("."))]
        if differing > len(parts):
            return None
        kept = parts[: len(parts) - differing]
        return dots + ".".join(kept + f_parts[i:])
    segs = spec.split("/")
    last = segs[-1]
    ext = ""
    for e in (".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"):
        if last.endswith(e):
            ext = e
            break
    if differing > len(segs) or any(s in (".", "..") for s in segs[len(segs) - differing:]):
        return None
    tail = f_parts[i:]
    real = pool[found]
    if real.endswith(_SOURCE) and ext:
        tail[-1] = tail[-1] + ext  # keep the extension style written (./x.js names x.ts)
    new = "/".join(segs[: len(segs) - differing] + tail)
    if _relative(spec) and not new.startswith((".", "/")):
        new = "./" + new
    return new


__all__ = ["Environment", "ImportCheck", "KNOWN_DISTRIBUTIONS", "Manifest", "check_imports",
           "normalize_distribution", "with_declared_modules"]
