"""The one module resolver: which workspace file (or which package) an import names.

Pure. Configuration arrives as text (:meth:`ResolverConfig.build`, fed the files that
:func:`is_resolver_config` accepts); whether a file exists is asked through the ``exists``
callable a :class:`Resolver` is given, and every path asked is returned with the answer
(``Resolution.probed``) so the caller can record it as a dependency. No file is read and
no configuration is run.

Modelled on TypeScript's resolution (``moduleResolution: bundler``) plus what bundlers and
frameworks add: tsconfig/jsconfig ``paths``/``baseUrl`` through ``extends`` chains, the
nearest config per folder (and solution-style ``references``), ``.js`` specifiers naming
``.ts`` sources, index files and ``package.json`` entries, workspace packages by name,
SvelteKit/Nuxt/Vue CLI defaults, literal ``resolve.alias`` entries of Vite, webpack and
vue.config, and Python modules. docs/module-resolution.md has the rules and decisions.

    config = ResolverConfig.build({"jsconfig.json": "...", "package.json": "...", ...})
    resolver = Resolver(config, exists)          # cheap; memoizes per (folder, specifier)
    r = resolver.resolve("src/routes/+page.svelte", "$lib/http.js")
    # Resolution(kind="file", path="src/lib/http.js", via="SvelteKit $lib", probed=(...))
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from posixpath import dirname
from typing import Callable

from .package_entry import in_node_modules
from .resolve_configs import Package, join, subpath_targets
from .resolve_setup import Context, Note, ResolverConfig, is_resolver_config, split_package

FILE = "file"
PACKAGE = "package"
MISSING = "missing"

# what a PACKAGE result names (Resolution.provider)
INSTALLED = ""  # an npm or PyPI package: to be found in node_modules / the environment
WORKSPACE = "workspace"  # a workspace package whose entry file is not in the workspace (not built)
SVELTEKIT = "sveltekit"  # $app/*, $env/*, $service-worker, ./$types
NUXT = "nuxt"  # #app, #imports, #components, #build, and the # modules Nuxt modules add
NODE = "node"  # node:fs, fs, path, ...
VIRTUAL = "virtual"  # virtual:* modules of bundler plugins

_STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True, slots=True)
class Resolution:
    """What one specifier names.

    - ``kind == FILE``: ``path`` is the workspace file (``package`` and ``root`` are set too
      when it is the entry of a workspace package imported by its name).
    - ``kind == PACKAGE``: ``package`` is the package name (``react``, ``@acme/ui``,
      ``$app/navigation``, ``node:fs``, ``requests``) and ``provider`` says what kind it is
      (INSTALLED, WORKSPACE, SVELTEKIT, NUXT, NODE, VIRTUAL); ``root`` is a workspace
      package's folder.
    - ``kind == MISSING``: no file exists where the specifier points.

    ``via`` says which rule decided, in words (for ``calls`` and tests). ``probed`` is every
    path asked of ``exists``, in order: the candidates tried, which a caller records as
    dependencies (creating one of them may change the answer). ``doubt`` is non-empty when
    configuration that could not be read (an ``extends`` that is not in the workspace, an
    alias that is not literal) may change a PACKAGE or MISSING answer. ``mapped`` names the
    configuration entry that maps a package specifier to an installed package's folder
    (Nuxt's generated ``paths`` give ``vue-router`` -> ``node_modules/vue-router``): the
    import is the configuration's, whatever the manifest declares."""

    kind: str
    path: str | None = None
    package: str | None = None
    provider: str = INSTALLED
    root: str | None = None
    via: str = ""
    probed: tuple[str, ...] = ()
    doubt: str = ""
    mapped: str = ""


# TypeScript's probing (checked with tsc 5.9 --traceResolution): a JS/TS extension is
# replaced, in this order; an extensionless name gets these extensions, then the folder.
_TS = (".ts", ".tsx", ".d.ts", ".js", ".jsx")
_REPLACE = {
    ".js": _TS, ".ts": _TS,
    ".jsx": (".tsx", ".ts", ".d.ts", ".jsx", ".js"), ".tsx": (".tsx", ".ts", ".d.ts", ".jsx", ".js"),
    ".mjs": (".mts", ".d.mts", ".mjs"), ".mts": (".mts", ".d.mts", ".mjs"),
    ".cjs": (".cts", ".d.cts", ".cjs"), ".cts": (".cts", ".d.cts", ".cjs"),
}
# after TypeScript's five, what bundlers also find without an extension
_EXTENSIONS = _TS + (".mjs", ".mts", ".cjs", ".cts", ".vue", ".svelte")
_INDEX = tuple("index" + e for e in _TS + (".mjs",))
# extensions that name the file itself (no probing): components, data, styles, assets
_ASSETS = frozenset((".vue", ".svelte", ".json", ".css", ".scss", ".sass", ".less", ".styl", ".svg", ".png",
                     ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico", ".html", ".md", ".mdx", ".txt", ".wasm",
                     ".graphql", ".gql", ".yaml", ".yml", ".toml", ".woff", ".woff2", ".ttf", ".mp3", ".mp4",
                     ".d.ts", ".d.mts", ".d.cts"))
NODE_BUILTINS = frozenset((
    "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram",
    "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector", "module",
    "net", "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
    "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi",
    "worker_threads", "zlib",
))
_SVELTEKIT_MODULES = ("$app/", "$env/")
_TYPES = ("$types", "$types.js", "$types.d.ts")
_OUTSIDE = "\0outside"


class Resolver:
    """Resolves specifiers against a :class:`ResolverConfig`, asking ``exists(path)``
    (workspace-relative POSIX path) whether a file exists. Memoizes per (importer folder,
    specifier) (non-relative specifiers per configuration context, relative ones per
    target): use one instance while the files ``exists`` answers for stay the same (one
    per link batch). A memo hit does not call ``exists``: ``Resolution.probed`` carries the
    paths. Exceptions from ``exists`` propagate and nothing is memoized for that call."""

    def __init__(self, config: ResolverConfig, exists: Callable[[str], bool]) -> None:
        self.config = config
        self._exists = exists
        self._memo: dict[tuple, Resolution] = {}  # per context (or target) and specifier
        self._seen: dict[tuple[str, str], Resolution] = {}  # per importer folder and specifier
        self._deps: frozenset[str] | None = None  # every dependency any package.json names

    @property
    def notes(self) -> tuple[Note, ...]:
        return self.config.notes

    def resolve(self, importer: str, specifier: str, language: str | None = None) -> Resolution:
        """What ``specifier``, imported by the workspace file ``importer``, names.
        ``language == "python"`` for Python imports (``.config``, ``app.api``); any other
        value (or None with a non-Python importer) means JavaScript/TypeScript."""
        folder = importer.rpartition("/")[0]  # posixpath.dirname, for workspace-relative paths
        if language == "python" or (language is None and importer.endswith((".py", ".pyi"))):
            key: tuple = ("py", folder, specifier)
            hit = self._memo.get(key)
            if hit is None:
                hit = self._memo[key] = self._python(folder, specifier)
            return hit
        fast = (folder, specifier)
        hit = self._seen.get(fast)
        if hit is not None:
            return hit
        hit = self._resolve_js(folder, specifier)
        if hit.kind == PACKAGE and hit.doubt and hit.provider == INSTALLED and hit.package not in self._dependencies():
            hit = self._base_url_guess(folder, clean_specifier(specifier), hit)
        self._seen[fast] = hit
        return hit

    def _dependencies(self) -> frozenset[str]:
        deps = self._deps
        if deps is None:
            deps = self._deps = frozenset(n for p in self.config.packages.values() for n in p.deps)
        return deps

    def _base_url_guess(self, folder: str, spec: str, package: Resolution) -> Resolution:
        """A bare specifier that no dependency provides, when configuration that could say
        what it names is missing (``"extends": "./frontend/tsconfig.json"``, not in the
        workspace): it is tried under the importer's folder and each folder above it, as a
        ``baseUrl`` there would make it (CRA's ``baseUrl: src``, webpack's ``resolve.modules``)."""
        probed = list(package.probed)
        here = folder
        while True:
            base = join(here, spec)
            found = self._file(base, probed, spec.endswith("/")) if base is not None else None
            if found is not None:
                return Resolution(FILE, path=found, via=f"guess: a baseUrl of {here or 'the root'} "
                                  f"({package.doubt})", probed=tuple(probed), doubt=package.doubt)
            if not here:
                break
            here = here.rpartition("/")[0]
        return Resolution(package.kind, package.path, package.package, package.provider, package.root,
                          package.via, tuple(probed), package.doubt)

    def _resolve_js(self, folder: str, specifier: str) -> Resolution:
        spec = clean_specifier(specifier)
        ctx = self.config.context(folder)
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            if ctx.sveltekit is not None and spec.rpartition("/")[2] in _TYPES:
                return Resolution(PACKAGE, package=spec, provider=SVELTEKIT, via="SvelteKit generated ./$types")
            target = join(folder, spec)
            key = ("rel", target if target is not None else _OUTSIDE, spec.endswith("/") or spec in (".", ".."))
        elif spec.startswith("/"):
            key = ("abs", ctx.key, spec)
        else:
            key = ("bare", ctx.key, spec)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._js(ctx, key, spec)
        if hit.kind == MISSING and key[0] == "rel" and ctx.ts is not None and ctx.ts.root_dirs and key[1] != _OUTSIDE:
            rkey = ("rootDirs", ctx.key, key[1], key[2])
            got = self._memo.get(rkey)
            if got is None:
                got = self._memo[rkey] = self._root_dirs(ctx.ts, key[1], key[2], hit)
            return got
        return hit

    def _root_dirs(self, ts, target: str, folder_only: bool, missing: Resolution) -> Resolution:
        """TypeScript's ``rootDirs``: the folders are one virtual folder for relative imports,
        so a path that names no file under one is tried at the same place under the others
        (``src/views/a.ts`` importing ``./a.css.js`` from ``generated/views/``)."""
        probed = list(missing.probed)
        roots = sorted(ts.root_dirs, key=len, reverse=True)
        under = next((d for d in roots if not d or target == d or target.startswith(d + "/")), None)
        if under is None:
            return missing
        rest = target[len(under):].lstrip("/")
        for other in ts.root_dirs:
            if other == under:
                continue
            base = f"{other}/{rest}" if other and rest else other or rest
            found = self._file(base, probed, folder_only)
            if found is not None:
                return Resolution(FILE, path=found, via=f"rootDirs of {ts.config}", probed=tuple(probed))
        return Resolution(MISSING, via=missing.via + " (nor under the other rootDirs)", probed=tuple(probed),
                          doubt=missing.doubt)

    # ------------------------------------------------------------------ JavaScript/TypeScript
    def _js(self, ctx: Context, key: tuple, spec: str) -> Resolution:
        probed: list[str] = []
        if key[0] == "rel":
            if key[1] == _OUTSIDE:
                return Resolution(MISSING, via="relative: outside the workspace")
            found = self._file(key[1], probed, key[2])
            return self._answer(found, probed, "relative", "relative: no such file")
        if key[0] == "abs":
            r = self._aliased(ctx, spec, probed, 0)
            if r is not None:
                return r
            for base in dict.fromkeys((join(ctx.root, spec[1:]), join("", spec[1:]))):
                if base is not None:
                    found = self._file(base, probed, spec.endswith("/"))
                    if found is not None:
                        return Resolution(FILE, path=found, via="root-relative", probed=tuple(probed))
            return Resolution(MISSING, via="root-relative: no such file", probed=tuple(probed), doubt=ctx.doubt)
        if not spec:
            return Resolution(MISSING, via="an empty specifier")
        return self._bare(ctx, spec, probed, 0)

    def _bare(self, ctx: Context, spec: str, probed: list[str], depth: int) -> Resolution:
        if ctx.sveltekit is not None and (spec.startswith(_SVELTEKIT_MODULES) or spec in ("$app", "$env", "$service-worker")):
            return Resolution(PACKAGE, package=spec, provider=SVELTEKIT, via="SvelteKit module", probed=tuple(probed))
        if spec.startswith("node:"):
            return Resolution(PACKAGE, package=spec, provider=NODE, via="Node built-in", probed=tuple(probed))
        if spec.startswith("virtual:"):
            return Resolution(PACKAGE, package=spec, provider=VIRTUAL, via="bundler virtual module", probed=tuple(probed))
        mapped = ""
        if depth == 0:
            ts = ctx.ts
            if ts is not None:
                m = ts.match(spec) if ts.stars or ts.exact else None
                if m is not None:
                    pattern, targets, star = m
                    name = split_package(spec)[0]
                    via = f"paths {pattern!r} of {ts.config}"
                    for target in targets:
                        target = target.replace("*", star) if star is not None else target
                        if name is not None and _installed_folder(target) == name \
                                and self._probe(f"{target}/package.json", probed):
                            # a project's installed copy of the package itself (tsc reads its
                            # package.json first): the package, as the configuration maps it
                            return Resolution(PACKAGE, package=name, via=via, probed=tuple(probed), mapped=via)
                        found = self._file(target, probed, False)
                        if found is not None:
                            return Resolution(FILE, path=found, via=via, probed=tuple(probed))
                    if targets and all(in_node_modules(t) for t in targets):
                        if any(t.count("node_modules/") > 1 for t in targets):
                            # another package's own copy (Nuxt maps `h3` into nitro's): which
                            # names it has is not the project's copy's answer
                            return Resolution(PACKAGE, package=name or spec, via=via, probed=tuple(probed),
                                              doubt=f"{via} maps it into another package's dependencies", mapped=via)
                        mapped = via  # an installed package's folder: the package, mapped
                if ts.base_url is not None and m is None:  # tsc: a paths match that fails skips baseUrl
                    base = join(ts.base_url, spec)
                    found = self._file(base, probed, spec.endswith("/")) if base is not None else None
                    if found is not None:
                        return Resolution(FILE, path=found, via=f"baseUrl of {ts.config}", probed=tuple(probed))
            r = self._aliased(ctx, spec, probed, depth)
            if r is not None:
                return r
            for folder in ctx.modules:  # after the aliases, as webpack does
                base = join(folder, spec)
                found = self._file(base, probed, spec.endswith("/")) if base is not None else None
                if found is not None:
                    return Resolution(FILE, path=found, via="webpack resolve.modules", probed=tuple(probed))
        if spec.startswith("#") and ctx.imports is not None:
            pkg = ctx.imports
            targets = subpath_targets(pkg.imports, spec)
            for t in targets:
                if t.startswith("./"):
                    base = join(pkg.folder, t)
                    found = self._file(base, probed, False) if base is not None else None
                    if found is not None:
                        return Resolution(FILE, path=found, via=f"imports of {pkg.path}", probed=tuple(probed))
                elif depth < 2:
                    r = self._bare(ctx, t, probed, depth + 1)
                    if r.kind != MISSING:
                        return _with(r, via=f"imports of {pkg.path} -> {r.via}")
            if targets:
                return Resolution(MISSING, via=f"imports of {pkg.path}: no such file", probed=tuple(probed))
        name, sub = split_package(spec)
        if name is not None:
            pkg = self.config.by_name.get(name)
            if pkg is not None:
                found = self._package_entry(pkg, sub, probed)
                via = f"workspace package {name} ({pkg.path})"
                if found is not None:
                    return Resolution(FILE, path=found, package=name, root=pkg.folder, via=via, probed=tuple(probed))
                return Resolution(PACKAGE, package=name, provider=WORKSPACE, root=pkg.folder,
                                  via=f"{via}: its entry is not in the workspace", probed=tuple(probed))
        if depth == 0 and ((ctx.guess_at and spec.startswith("@/")) or (ctx.guess_tilde and spec.startswith("~/"))):
            for root in ctx.guess_roots:
                base = join(root, spec[2:])
                found = self._file(base, probed, spec.endswith("/")) if base is not None else None
                if found is not None:
                    return Resolution(FILE, path=found, via=f"guess: {spec[:2]} is {root or 'the root'}/ "
                                      "(no configuration defines it)", probed=tuple(probed))
            return Resolution(MISSING, via=f"guess: {spec[:2]} names no file under src/, app/ or the root "
                              "(no configuration defines it)", probed=tuple(probed), doubt=ctx.doubt)
        if ctx.nuxt is not None and spec.startswith("#"):
            return Resolution(PACKAGE, package=spec, provider=NUXT, via="Nuxt virtual module", probed=tuple(probed))
        if name is None:
            return Resolution(MISSING, via="not a package name, and no configuration defines it",
                              probed=tuple(probed), doubt=ctx.doubt)
        provider = NODE if name in NODE_BUILTINS else INSTALLED
        return Resolution(PACKAGE, package=name, provider=provider, via="Node built-in" if provider else "package",
                          probed=tuple(probed), doubt=ctx.doubt, mapped=mapped)

    def _aliased(self, ctx: Context, spec: str, probed: list[str], depth: int) -> Resolution | None:
        """The first alias that matches decides (bundlers do not fall back to packages)."""
        for alias in ctx.aliases:
            subs = alias.apply(spec)
            if subs is None:
                continue
            for kind, value in subs:
                if value is None:
                    continue
                if kind == "path":
                    found = self._file(value, probed, spec.endswith("/"))
                    if found is not None:
                        return Resolution(FILE, path=found, via=alias.origin, probed=tuple(probed))
                else:
                    r = self._bare(ctx, value, probed, depth + 1)
                    if r.kind != MISSING:
                        return _with(r, via=f"{alias.origin} -> {r.via}")
            return Resolution(MISSING, via=f"{alias.origin}: no such file", probed=tuple(probed))
        return None

    def _package_entry(self, pkg: Package, sub: str, probed: list[str]) -> str | None:
        """The file a workspace package's name (plus subpath) names: ``exports`` first, then
        (for the package itself) the entry fields, ``src/index.*`` and ``index.*``; for a
        subpath, the file under the package's folder and under its ``src/``."""
        folder = pkg.folder
        if pkg.exports is not None:
            for t in subpath_targets(pkg.exports, "./" + sub if sub else "."):
                base = join(folder, t) if t.startswith("./") else None
                found = self._file(base, probed, False) if base is not None else None
                if found is not None:
                    return found
        if not sub:
            for _, t in pkg.fields:
                base = join(folder, t)
                found = self._file(base, probed, False) if base is not None else None
                if found is not None:
                    return found
            for base in (join(folder, "src/index"), join(folder, "index")):
                found = self._files(_EXTENSIONS, base, probed) if base is not None else None
                if found is not None:
                    return found
            return None
        for base in (join(folder, sub), join(folder, "src/" + sub)):
            found = self._file(base, probed, sub.endswith("/")) if base is not None else None
            if found is not None:
                return found
        return None

    # ------------------------------------------------------------------ probing
    def _probe(self, path: str, probed: list[str]) -> bool:
        probed.append(path)
        return self._exists(path)

    def _files(self, suffixes: tuple[str, ...], base: str, probed: list[str]) -> str | None:
        for s in suffixes:
            cand = base + s
            if self._probe(cand, probed):
                return cand
        return None

    def _file(self, base: str, probed: list[str], folder_only: bool, depth: int = 0) -> str | None:
        """The file ``base`` names as a module: itself with TypeScript's extension rules,
        else the folder (its package.json entry, then its index)."""
        if base and not folder_only:
            name = base.rpartition("/")[2]
            dot = name.find(".", 1)
            ext = name[name.rfind("."):] if dot > 0 else ""
            if ext:
                if name.endswith((".d.ts", ".d.mts", ".d.cts")):
                    ext = ".d.ts"
                repl = _REPLACE.get(ext)
                if repl is not None:
                    found = self._files(repl, base[:-len(ext)], probed)
                elif ext in _ASSETS:
                    return base if self._probe(base, probed) else None
                else:  # a dotted name (user.service): extensions are added
                    found = self._files(_EXTENSIONS, base, probed) or (base if self._probe(base, probed) else None)
            else:
                found = self._files(_EXTENSIONS, base, probed)
            if found is not None:
                return found
        pkg = self.config.package_at(base)
        if pkg is not None and depth < 2:
            for _, t in pkg.fields:
                entry = join(base, t)
                found = self._file(entry, probed, False, depth + 1) if entry is not None else None
                if found is not None:
                    return found
        prefix = f"{base}/" if base else ""
        return self._files(_INDEX, prefix, probed)

    def _answer(self, found: str | None, probed: list[str], via: str, missing: str) -> Resolution:
        if found is not None:
            return Resolution(FILE, path=found, via=via, probed=tuple(probed))
        return Resolution(MISSING, via=missing, probed=tuple(probed))

    # ------------------------------------------------------------------ Python
    def _python(self, folder: str, module: str) -> Resolution:
        """Relative imports climb one package per extra dot; absolute ones are tried from
        the root, from ``src/``, and from the importer's folder and each parent (a script
        importing a sibling module)."""
        probed: list[str] = []
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            pkg = folder
            for _ in range(dots - 1):
                pkg = dirname(pkg)
            rest = module[dots:].replace(".", "/")
            roots = [f"{pkg}/{rest}" if pkg and rest else pkg or rest]
        else:
            rest = module.replace(".", "/")
            roots = [rest, f"src/{rest}"]
            # the importer's folder and its parents come last, as in pyright, and never for a
            # standard-library name: `from abc import ABC` in pkg/console.py is the standard
            # library's abc, not pkg/abc.py (Python 3 has no implicit relative imports)
            if module.partition(".")[0] not in _STDLIB:
                here = folder
                while here:
                    roots.append(f"{here}/{rest}")
                    here = dirname(here)
        for root in roots:
            r = join("", root)
            if r is None:
                continue
            # the module, then a stub standing alone (a stub beside its module describes it:
            # the module is what runs and what the linker follows)
            for cand in ((f"{r}.py", f"{r}/__init__.py", f"{r}.pyi", f"{r}/__init__.pyi") if r
                         else ("__init__.py", "__init__.pyi")):
                if self._probe(cand, probed):
                    return Resolution(FILE, path=cand, via="python", probed=tuple(probed))
        if module.startswith("."):
            return Resolution(MISSING, via="python: no such module", probed=tuple(probed))
        return Resolution(PACKAGE, package=module.partition(".")[0], via="python: not in the workspace",
                          probed=tuple(probed))


def clean_specifier(spec: str) -> str:
    """Drop what bundlers strip before resolving: webpack inline loaders (``!``) and Vite
    query suffixes (``?raw``, ``?url``)."""
    if "!" in spec:
        spec = spec.rpartition("!")[2]
    if "?" in spec:
        spec = spec.partition("?")[0]
    return spec


def _installed_folder(path: str) -> str | None:
    """The package whose installed folder ``path`` is, when it is one of a project's (not
    nested in another package's ``node_modules``): ``node_modules/vue``,
    ``web/node_modules/@acme/ui``."""
    head, sep, name = path.partition("node_modules/")
    if not sep or (head and not head.endswith("/")) or "node_modules/" in name:
        return None
    parts = name.split("/")
    return name if (len(parts) == 2 and parts[0].startswith("@") and parts[1]) or (len(parts) == 1 and parts[0]) \
        else None


def _with(r: Resolution, via: str) -> Resolution:
    return Resolution(r.kind, r.path, r.package, r.provider, r.root, via, r.probed, r.doubt, r.mapped)


__all__ = [
    "FILE", "PACKAGE", "MISSING", "INSTALLED", "WORKSPACE", "SVELTEKIT", "NUXT", "NODE", "VIRTUAL",
    "NODE_BUILTINS", "Note", "Resolution", "Resolver", "ResolverConfig", "is_resolver_config",
]
