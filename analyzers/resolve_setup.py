"""The resolver's configuration: what every config file of a workspace says, combined per
importer folder into a :class:`Context`. Pure (text in, plain data out); built once per
configuration change by :meth:`ResolverConfig.build`. The resolution itself is in
``resolve.py``; the rules are written down in docs/module-resolution.md.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from posixpath import dirname
from typing import Callable, Mapping

from .resolve_configs import (
    AliasDef,
    ConfigError,
    JsConfig,
    Package,
    TsRaw,
    join,
    js_config_kind,
    major_version,
    read_js_config,
    read_package,
    read_tsconfig,
)

_JS_CONFIG_EXT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
_JS_GROUP = re.compile(r"\$(\d+|&)")  # JS replacement groups ($1, $&) in regex aliases
_JS_NAMED = re.compile(r"\(\?<(?=[A-Za-z_])")  # (?<name> -> (?P<name>


def is_resolver_config(path: str) -> bool:
    """Whether a file is configuration the resolver reads (rebuild it when one changes):
    ``package.json``, ``tsconfig*.json``, ``jsconfig*.json``, ``svelte.config.*``,
    ``nuxt.config.*``, ``vite.config.*``, ``webpack.config.*`` (and ``webpack.*.js`` such as
    ``webpack.common.js``), ``vue.config.*``. A file that an ``extends`` names under another
    name shows up in ``ResolverConfig.wanted`` (when absent) or ``ResolverConfig.files``."""
    name = path.rpartition("/")[2]
    if name == "package.json":
        return True
    if name.endswith(".json") and name.startswith(("tsconfig", "jsconfig")):
        return True
    return js_config_kind(name) is not None and name.endswith(_JS_CONFIG_EXT)


@dataclass(frozen=True, slots=True)
class Note:
    """A resolver-wide remark about one configuration file (for the CLI's ``calls``)."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(frozen=True, slots=True, eq=False)
class TsOptions:
    """The effective ``baseUrl``/``paths`` of one tsconfig/jsconfig (``extends`` followed).
    Path targets are workspace paths, still holding their ``*``."""

    config: str
    base_url: str | None
    exact: dict[str, tuple[str, ...]]
    stars: tuple[tuple[str, str, str, tuple[str, ...]], ...]  # (pattern, prefix, suffix, targets), longest prefix first
    covers: tuple[tuple[str, bool], ...] | None  # (folder, and below) its include/files cover; None: all under it
    references: tuple[str, ...]
    unknown: tuple[str, ...]  # why its paths/baseUrl may be incomplete (extends not followed)
    frameworks: frozenset[str]  # frameworks whose generated config it extends (missing)
    root_dirs: tuple[str, ...] = ()  # rootDirs as workspace folders (one virtual folder for relative imports)

    def match(self, spec: str) -> tuple[str, tuple[str, ...], str | None] | None:
        """TypeScript's matchPatternOrExact: an exact key first, else the ``*`` pattern with
        the longest prefix. (pattern, targets, text matched by ``*``)."""
        targets = self.exact.get(spec)
        if targets is not None:
            return spec, targets, None
        for pattern, prefix, suffix, targets in self.stars:
            if len(spec) >= len(prefix) + len(suffix) and spec.startswith(prefix) and spec.endswith(suffix):
                return pattern, targets, spec[len(prefix):len(spec) - len(suffix)]
        return None

    def says(self, prefix: str) -> bool:
        bare = prefix.rstrip("/")
        return any(k == bare or k.startswith(prefix) for k in self.exact) or \
            any(p == bare or p.startswith(prefix) or (p + "/").startswith(prefix) for _, p, _, _ in self.stars if p)


@dataclass(frozen=True, slots=True, eq=False)
class Alias:
    """A compiled alias: ``find`` matches itself and ``find/...`` (only itself when ``exact``,
    only ``find/...`` when ``contents``), or ``regex``. Targets: ("path", workspace path) or
    ("spec", specifier); for a regex, the replacement template and its kind."""

    find: str
    targets: tuple[tuple[str, str], ...]
    origin: str
    exact: bool = False
    contents: bool = False
    regex: "re.Pattern[str] | None" = None
    folder: str = ""

    def apply(self, spec: str) -> list[tuple[str, str | None]] | None:
        """The specifiers/paths ``spec`` becomes, or None when the alias does not match."""
        if self.regex is not None:
            if self.regex.search(spec) is None:
                return None
            out: list[tuple[str, str | None]] = []
            for kind, template in self.targets:
                new = self.regex.sub(template, spec, count=1)
                if kind == "path":
                    out.append(("path", join("", new)))
                elif new.startswith("/"):
                    out.append(("path", join(self.folder, new[1:])))
                elif new.startswith(("./", "../")):
                    out.append(("path", join(self.folder, new)))
                else:
                    out.append(("spec", new))
            return out
        find = self.find
        if spec == find:
            if self.contents:
                return None
            rest = ""
        elif not self.exact and spec.startswith(find) and (find.endswith("/") or spec[len(find)] == "/"):
            rest = spec[len(find):] if not find.endswith("/") else "/" + spec[len(find):]
        else:
            return None
        result: list[tuple[str, str | None]] = []
        for kind, value in self.targets:
            if kind == "path":
                result.append(("path", join(value, rest[1:]) if rest else value))
            else:
                result.append(("spec", value + rest))
        return result


def compile_alias(d: AliasDef, folder: str) -> Alias | None:
    if d.pattern is None:
        return Alias(d.find, d.targets, f"{d.origin} {d.find!r}", d.exact, d.contents, None, folder)
    try:
        regex = re.compile(_JS_NAMED.sub("(?P<", d.pattern))
    except re.error:
        return None
    targets = tuple((kind, _JS_GROUP.sub(lambda m: r"\g<0>" if m.group(1) == "&" else rf"\g<{m.group(1)}>",
                                         value.replace("\\", "\\\\"))) for kind, value in d.targets)
    return Alias(d.find, targets, f"{d.origin} {d.find}", False, False, regex, folder)


def compile_paths(paths: dict[str, tuple[str, ...]], base: str) -> tuple[dict, tuple]:
    """(exact, stars) for :class:`TsOptions`, targets joined onto ``base``."""
    exact: dict[str, tuple[str, ...]] = {}
    stars: list[tuple[str, str, str, tuple[str, ...]]] = []
    for pattern, targets in paths.items():
        joined = tuple(p for p in (join(base, t) for t in targets) if p is not None)
        if "*" in pattern:
            prefix, _, suffix = pattern.partition("*")
            stars.append((pattern, prefix, suffix, joined))
        else:
            exact[pattern] = joined
    stars.sort(key=lambda s: -len(s[1]))  # stable: equal prefixes keep their written order
    return exact, tuple(stars)


@dataclass(frozen=True, slots=True, eq=False)
class Context:
    """How specifiers are resolved from the files of one folder. Folders with the same
    configuration share one context (``key``), and so share memoized answers."""

    key: int
    ts: TsOptions | None
    aliases: tuple[Alias, ...]
    sveltekit: str | None  # the SvelteKit project's folder
    nuxt: str | None  # the Nuxt project's folder
    root: str  # the project folder ("/src/x" is read from here)
    imports: Package | None  # the nearest package.json, when it has "imports"
    modules: tuple[str, ...]  # webpack resolve.modules folders
    guess_at: bool  # no configuration says anything about "@/": the old guess applies
    guess_tilde: bool  # same for "~/"
    guess_roots: tuple[str, ...]
    doubt: str  # configuration that could not be read and may change an answer


@dataclass(slots=True)
class _Project:
    folder: str
    aliases: list[Alias]
    frameworks: set[str]
    modules: list[str]
    incomplete: list[str]


_GENERATED = ((".svelte-kit/", "sveltekit"), (".nuxt/", "nuxt"))
# the folders frameworks generate their tsconfig and declarations into (not walked)
GENERATED_FOLDERS = tuple(marker.rstrip("/") for marker, _ in _GENERATED)
_FRAMEWORK_NAMES = {"sveltekit": "SvelteKit's aliases ($lib, kit.alias)", "nuxt": "Nuxt's aliases (~, @, ~~, @@)"}


class ResolverConfig:
    """The parsed configuration of a workspace. Build it once with :meth:`build` (again when
    a file that :func:`is_resolver_config` accepts, or one of ``wanted``, changes) and share
    it between resolvers; only its per-folder memo changes after that."""

    def __init__(self, configs: Mapping[str, str], read: Callable[[str], str | None] | None = None) -> None:
        self._texts = configs
        self._read = read
        self._extra: dict[str, str | None] = {}
        self.notes: tuple[Note, ...] = ()
        self.files: tuple[str, ...] = ()  # the configuration files read
        self.wanted: tuple[str, ...] = ()  # files an extends named that were not given
        self.packages: dict[str, Package] = {}  # folder -> package.json (node_modules included)
        self.by_name: dict[str, Package] = {}  # workspace packages by name
        self._notes: list[Note] = []
        self._wanted: list[str] = []
        self._raw: dict[str, TsRaw | None] = {}
        self._ts: dict[str, TsOptions] = {}
        self._ts_active: set[str] = set()
        self._ts_folder: dict[str, str] = {}
        self._projects: dict[str, _Project] = {}
        self._roots: set[str] = set()
        self._contexts: dict[str, Context] = {}
        self._interned: dict[tuple, Context] = {}
        self._keys = itertools.count()  # next() is atomic: two threads never share a key

    @classmethod
    def build(cls, configs: Mapping[str, str], read: Callable[[str], str | None] | None = None) -> "ResolverConfig":
        """``configs``: workspace-relative path -> text of every configuration file (the
        files :func:`is_resolver_config` accepts; files under ``node_modules`` are used only
        when an ``extends`` names them). ``read(path)``, when given, is asked for the text of
        a file that an ``extends`` or a ``references`` names and ``configs`` lacks (a
        ``tsconfig`` under another name, a package's under ``node_modules``, a generated
        ``.svelte-kit/tsconfig.json``); None means it does not exist. Every path asked and
        not found is in ``wanted``, every file read in ``files``."""
        self = cls(configs, read)
        paths = sorted(configs)
        js: dict[str, list[JsConfig]] = {}
        for path in paths:
            name = path.rpartition("/")[2]
            in_modules = path.startswith("node_modules/") or "/node_modules/" in path
            folder = dirname(path)
            if name == "package.json":
                try:
                    pkg = read_package(path, configs[path])
                except ConfigError as e:
                    self._note(path, f"{e}: ignored")
                    continue
                self.packages[folder] = pkg
                if in_modules:
                    continue
                self._roots.add(folder)
                if pkg.name is not None:
                    other = self.by_name.get(pkg.name)
                    if other is None:
                        self.by_name[pkg.name] = pkg
                    else:
                        self._note(path, f"the package name {pkg.name} is also {other.path}'s: that one is used")
            elif in_modules:
                continue
            elif name in ("tsconfig.json", "jsconfig.json"):
                if name == "tsconfig.json" or folder not in self._ts_folder:
                    self._ts_folder[folder] = path  # tsconfig.json wins over jsconfig.json, as in tsserver
            elif is_resolver_config(path) and not name.endswith(".json"):
                try:
                    cfg = read_js_config(path, configs[path])
                except (ValueError, RecursionError) as e:  # tree-sitter never raises on text; be safe
                    self._note(path, f"could not be read ({e}): ignored")
                    continue
                js.setdefault(folder, []).append(cfg)
                self._roots.add(folder)
        for folder in sorted(set(js) | set(self.packages)):
            self._project(folder, js.get(folder, []))
        for path in sorted(self._ts_folder.values()):
            opts = self.ts_options(path)
            for ref in opts.references if opts is not None else ():
                target = self._reference_path(opts, ref)
                if target is not None:
                    self.ts_options(target)
        self.files = tuple(sorted(set(paths) | {p for p, t in self._extra.items() if t is not None}))
        self.wanted = tuple(dict.fromkeys(self._wanted))
        self.notes = tuple(sorted(self._notes, key=lambda n: (n.file, n.message)))
        return self

    def _text(self, path: str) -> str | None:
        text = self._texts.get(path)
        if text is None and self._read is not None:
            if path not in self._extra:
                self._extra[path] = self._read(path)
            text = self._extra[path]
        return text

    def _note(self, file: str, message: str) -> None:
        note = Note(file, message)
        if note not in self._notes:
            self._notes.append(note)

    # ------------------------------------------------------------------ projects
    def _project(self, folder: str, configs: list[JsConfig]) -> None:
        pkg = self.packages.get(folder)
        if pkg is not None and (folder.startswith("node_modules/") or "/node_modules/" in folder):
            return
        deps = pkg.deps if pkg is not None else {}
        kinds = {c.kind for c in configs}
        frameworks: set[str] = set()
        if "@sveltejs/kit" in deps or ("svelte" in kinds and (pkg is None or not deps)):
            frameworks.add("sveltekit")
        if "nuxt" in kinds or "nuxt" in deps:
            frameworks.add("nuxt")
        if "vue" in kinds or "@vue/cli-service" in deps:
            frameworks.add("vuecli")
        if not configs and not frameworks:
            return
        project = _Project(folder, [], frameworks, [], [])
        for cfg in sorted(configs, key=lambda c: (c.kind not in ("svelte", "nuxt"), c.path)):
            for note in cfg.notes:
                self._note(cfg.path, note)
            if cfg.incomplete:
                project.incomplete.append(f"{cfg.path} has aliases specward could not read")
            for d in cfg.aliases:
                alias = compile_alias(d, folder)
                if alias is None:
                    self._note(cfg.path, f"{d.origin} {d.find!r} skipped: its regular expression is not one specward can read")
                else:
                    project.aliases.append(alias)
            project.modules.extend(cfg.modules)
        self._projects[folder] = project
        self._framework_defaults(project, configs, deps)

    def _framework_defaults(self, project: _Project, configs: list[JsConfig], deps: dict[str, str]) -> None:
        folder = project.folder
        defaults: list[Alias] = []
        if "sveltekit" in project.frameworks:
            lib = next((c.lib for c in configs if c.kind == "svelte" and c.lib is not None), None)
            lib = lib if lib is not None else join(folder, "src/lib")
            defaults.append(Alias("$lib", (("path", lib),), "SvelteKit $lib", folder=folder))  # type: ignore[arg-type]
        if "nuxt" in project.frameworks:
            src = next((c.src_dir for c in configs if c.kind == "nuxt" and c.src_dir is not None), None)
            if src is not None:
                srcs: tuple[tuple[str, str], ...] = (("path", src),)
            else:
                compat = next((c.compat for c in configs if c.kind == "nuxt" and c.compat is not None), None)
                major = major_version(deps.get("nuxt"))
                v3 = compat == 3 or (compat is None and major is not None and major < 4)
                app = join(folder, "app") or ""
                srcs = (("path", folder),) if v3 else (("path", app), ("path", folder))
            for key in ("~", "@"):
                defaults.append(Alias(key, srcs, f"Nuxt {key} (srcDir)", folder=folder))
            for key in ("~~", "@@"):
                defaults.append(Alias(key, (("path", folder),), f"Nuxt {key} (rootDir)", folder=folder))
            defaults.append(Alias("#shared", (("path", join(folder, "shared") or ""),), "Nuxt #shared", folder=folder))
        if "vuecli" in project.frameworks:
            defaults.append(Alias("@", (("path", join(folder, "src") or ""),), "Vue CLI @", folder=folder))
        project.aliases.extend(defaults)

    # ------------------------------------------------------------------ tsconfig
    def _read_raw(self, path: str) -> TsRaw | None:
        if path in self._raw:
            return self._raw[path]
        text = self._text(path)
        raw = None
        if text is not None:
            try:
                raw, problems = read_tsconfig(path, text)
                for p in problems:
                    self._note(path, p)
            except ConfigError as e:
                self._note(path, f"{e}: ignored")
        self._raw[path] = raw
        return raw

    def ts_options(self, path: str) -> TsOptions | None:
        """The effective options of a tsconfig/jsconfig (``extends`` followed), memoized."""
        done = self._ts.get(path)
        if done is not None:
            return done
        merged = self._merged(path)
        if merged is None:
            return None
        base_url, paths, paths_dir, covers, unknown, frameworks, root_dirs = merged
        raw = self._raw[path]
        for ref in raw.references if raw else ():
            # Nuxt 4's tsconfig.json only references .nuxt/tsconfig.app.json and friends
            target = join(dirname(path), ref)
            if target is not None and not target.endswith(".json"):
                target = f"{target}/tsconfig.json" if target else "tsconfig.json"
            if target is not None and self._text(target) is None:
                for marker, framework in _GENERATED:
                    if (target + "/").startswith(marker) or f"/{marker}" in target + "/":
                        if framework not in frameworks:
                            self._note(path, f"references {ref}, which is not in the workspace: "
                                             f"{_FRAMEWORK_NAMES[framework]} assumed")
                        frameworks.add(framework)
        exact, stars = compile_paths(paths, base_url if base_url is not None else paths_dir) if paths else ({}, ())
        opts = self._ts[path] = TsOptions(path, base_url, exact, stars, covers, raw.references if raw else (),
                                           tuple(unknown), frozenset(frameworks), tuple(root_dirs or ()))
        return opts

    def _merged(self, path: str) -> tuple | None:
        raw = self._read_raw(path)
        if raw is None:
            return None
        folder = dirname(path)
        base_url: str | None = None
        paths: dict | None = None
        paths_dir = folder
        covers = None
        root_dirs: list[str] | None = None
        unknown: list[str] = []
        frameworks: set[str] = set()
        self._ts_active.add(path)
        try:
            for ext in raw.extends:
                target, framework = self._extends_target(path, ext)
                if target is None:
                    if framework is not None:
                        frameworks.add(framework)
                        self._note(path, f"extends {ext}, which is not in the workspace: "
                                         f"{_FRAMEWORK_NAMES[framework]} assumed")
                    else:
                        msg = f"extends {ext}, which is not in the workspace: the paths and baseUrl it may set are unknown"
                        unknown.append(f"{path} {msg}")
                        self._note(path, msg)
                    continue
                if target in self._ts_active:
                    self._note(path, f"extends {ext}, which extends this file again: the cycle is cut here")
                    continue
                parent = self._merged(target)
                if parent is None:
                    continue
                p_base, p_paths, p_dir, p_covers, p_unknown, p_frameworks, p_roots = parent
                if p_roots is not None:
                    root_dirs = p_roots
                if p_base is not None:
                    base_url = p_base
                if p_paths is not None:
                    paths, paths_dir = p_paths, p_dir
                if p_covers is not None:
                    covers = p_covers
                unknown.extend(p_unknown)
                frameworks |= p_frameworks
        finally:
            self._ts_active.discard(path)
        if raw.base_url is not None:
            base_url = join(folder, raw.base_url)
            if base_url is None:
                self._note(path, f"baseUrl {raw.base_url} is outside the workspace: ignored")
        if raw.paths is not None:
            paths, paths_dir = raw.paths, folder
        if raw.include is not None or raw.files is not None:
            covers = _covers(folder, raw.include, raw.files)
        if raw.root_dirs is not None:  # relative to the file that writes them
            root_dirs = [r for d in raw.root_dirs if (r := join(folder, d)) is not None]
        return base_url, paths, paths_dir, covers, unknown, frameworks, root_dirs

    def _extends_target(self, path: str, ext: str) -> tuple[str | None, str | None]:
        """(the config file ``ext`` names, or None; the framework whose generated file it is)."""
        folder = dirname(path)
        if ext.startswith(("./", "../", "/")):
            p = join(folder, ext)
            candidates = [] if p is None else [p] if p.endswith(".json") else [p, p + ".json"]
        else:
            name, sub = split_package(ext)
            candidates = []
            if name is not None:
                bases = []
                ws = self.by_name.get(name)
                if ws is not None:
                    bases.append(ws.folder)
                here: str | None = folder
                while here is not None:
                    bases.append(f"{here}/node_modules/{name}" if here else f"node_modules/{name}")
                    here = dirname(here) if here else None
                for base in bases:
                    if sub:
                        candidates += [f"{base}/{sub}"] + ([] if sub.endswith(".json") else [f"{base}/{sub}.json"])
                    else:
                        pkg = self.packages.get(base)
                        if pkg is not None and pkg.tsconfig:
                            t = join(base, pkg.tsconfig)
                            if t is not None:
                                candidates.append(t)
                        candidates.append(f"{base}/tsconfig.json")
        for i, c in enumerate(candidates):
            if self._text(c) is not None:
                self._wanted.extend(candidates[:i])  # asked first: creating one changes the answer
                return c, None
        self._wanted.extend(candidates)
        for c in candidates:
            for marker, framework in _GENERATED:
                if c.startswith(marker) or f"/{marker}" in c:
                    return None, framework
        return None, None

    # ------------------------------------------------------------------ contexts
    def context(self, folder: str) -> Context:
        """How specifiers are resolved from files of ``folder`` (memoized per folder)."""
        ctx = self._contexts.get(folder)
        if ctx is None:
            ctx = self._contexts[folder] = self._make_context(folder)
        return ctx

    def _make_context(self, folder: str) -> Context:
        ts = self._nearest_ts(folder)
        aliases: list[Alias] = []
        modules: list[str] = []
        doubts: list[str] = []
        sveltekit = nuxt = None
        root = None
        imports = None
        nearest_pkg_seen = False
        frameworks_from_ts = ts.frameworks if ts is not None else frozenset()
        if ts is not None:
            doubts.extend(ts.unknown)
        here: str | None = folder
        while here is not None:
            project = self._projects.get(here)
            if project is not None:
                aliases.extend(project.aliases)
                modules.extend(project.modules)
                doubts.extend(project.incomplete)
                if sveltekit is None and "sveltekit" in project.frameworks:
                    sveltekit = here
                if nuxt is None and "nuxt" in project.frameworks:
                    nuxt = here
            if root is None and here in self._roots:
                root = here
            if not nearest_pkg_seen and here in self.packages:
                nearest_pkg_seen = True
                pkg = self.packages[here]
                imports = pkg if isinstance(pkg.imports, dict) else None
            here = dirname(here) if here else None
        if frameworks_from_ts and ts is not None:
            # a config extends a framework's generated tsconfig that is not there: the
            # framework's aliases are assumed for the config's folder
            cfg_folder = dirname(ts.config)
            for framework in sorted(frameworks_from_ts):
                if framework == "sveltekit" and sveltekit is None:
                    sveltekit = cfg_folder
                    aliases.append(Alias("$lib", (("path", join(cfg_folder, "src/lib") or ""),), "SvelteKit $lib",
                                         folder=cfg_folder))
                elif framework == "nuxt" and nuxt is None:
                    nuxt = cfg_folder
                    app = join(cfg_folder, "app") or ""
                    for key in ("~", "@"):
                        aliases.append(Alias(key, (("path", app), ("path", cfg_folder)), f"Nuxt {key} (srcDir)",
                                             folder=cfg_folder))
                    for key in ("~~", "@@"):
                        aliases.append(Alias(key, (("path", cfg_folder),), f"Nuxt {key} (rootDir)", folder=cfg_folder))
        root = root if root is not None else ""
        says_at = (ts is not None and ts.says("@/")) or any(a.find in ("@", "@/") for a in aliases)
        says_tilde = (ts is not None and ts.says("~/")) or any(a.find in ("~", "~/") for a in aliases)
        guess_roots = tuple(dict.fromkeys(
            [r for r in (join(root, "src"), join(root, "app"), root) if r is not None] + ["src", "app", ""]))
        parts = (id(ts), tuple(id(a) for a in aliases), sveltekit, nuxt, root, id(imports), tuple(modules),
                 not says_at, not says_tilde, "; ".join(dict.fromkeys(doubts)))
        ctx = self._interned.get(parts)
        if ctx is None:
            ctx = self._interned[parts] = Context(next(self._keys), ts, tuple(aliases), sveltekit, nuxt, root,
                                                  imports, tuple(modules), not says_at, not says_tilde, guess_roots,
                                                  parts[-1])  # type: ignore[arg-type]
        return ctx

    def _nearest_ts(self, folder: str) -> TsOptions | None:
        here: str | None = folder
        while here is not None:
            path = self._ts_folder.get(here)
            if path is not None:
                opts = self.ts_options(path)
                if opts is None:
                    return None
                return self._referenced(opts, folder) or opts
            here = dirname(here) if here else None
        return None

    def _referenced(self, opts: TsOptions, folder: str) -> TsOptions | None:
        """A solution-style config (``references``): the referenced config whose
        include/files cover ``folder``, as tsserver picks the project of a file."""
        for ref in opts.references:
            target = self._reference_path(opts, ref)
            if target is None:
                continue
            ref_opts = self.ts_options(target)
            if ref_opts is not None and _covered(ref_opts, folder):
                return ref_opts
        return None

    def _reference_path(self, opts: TsOptions, ref: str) -> str | None:
        target = join(dirname(opts.config), ref)
        if target is None:
            return None
        if not target.endswith(".json"):
            target = f"{target}/tsconfig.json" if target else "tsconfig.json"
        if self._text(target) is None:
            self._wanted.append(target)
            return None
        return target

    def package_at(self, folder: str) -> Package | None:
        return self.packages.get(folder)


def _covers(folder: str, include: tuple[str, ...] | None, files: tuple[str, ...] | None) -> tuple[tuple[str, bool], ...]:
    out: list[tuple[str, bool]] = []
    for f in files or ():
        p = join(folder, f)
        if p is not None:
            out.append((dirname(p), False))
    if include is None and files is None:
        include = ("**/*",)
    for pattern in include or ():
        segs = pattern.split("/")
        lit: list[str] = []
        wild = False
        for seg in segs:
            if "*" in seg or "?" in seg:
                wild = True
                break
            lit.append(seg)
        p = join(folder, "/".join(lit)) if lit else folder
        if p is None:
            continue
        if wild:
            rest = segs[len(lit):]
            out.append((p, len(rest) > 1 or any("**" in s for s in rest)))
        elif "." in (lit[-1] if lit else ""):
            out.append((dirname(p), False))  # one file
        else:
            out.append((p, True))  # a folder and everything under it
    return tuple(out)


def _covered(opts: TsOptions, folder: str) -> bool:
    if opts.covers is None:
        base = dirname(opts.config)
        return base == "" or folder == base or folder.startswith(base + "/")
    for place, below in opts.covers:
        if folder == place or (below and (place == "" or folder.startswith(place + "/"))):
            return True
    return False


def split_package(spec: str) -> tuple[str | None, str]:
    """(package name, subpath) of a bare specifier; (None, "") when it cannot be a package
    name (``@/x``, ``~/x``, ``#x``, ``$lib``, empty scope)."""
    if not spec or spec[0] in "~#$!./\\" or ":" in spec or " " in spec:
        return None, ""
    if spec[0] == "@":
        scope, _, rest = spec.partition("/")
        if len(scope) < 2 or not rest:
            return None, ""
        name, _, sub = rest.partition("/")
        if not name:
            return None, ""
        return f"{scope}/{name}", sub
    name, _, sub = spec.partition("/")
    return name, sub
