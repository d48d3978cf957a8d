"""The registry of cross-file analyses that judge one file at a time.

Each analysis reads the per-file facts (``FileFacts``, from the one extractor), takes its
cross-file step for one file through a ``lookup`` of other files' facts and the one module
resolver, and returns that file's findings with its **dependency edges**: every workspace
path it read or probed. Adding an analysis means adding one entry to ``ANALYSES``: the
index runs every entry when it builds (in the parser processes on a cold start), runs a
file's entries again when one of its edges changes, and caches the results with the
file's link results; nothing else is edited by hand.

The HTTP-call analysis (the linker and the matcher) is not in this registry yet: it judges
calls across files by channel (a call's verdict depends on the other calls of its client),
so it is not a one-file step; ``docs/architecture.md`` says how the index runs both.

Pure: plain data in (``AnalysisInput`` is picklable, so parser processes get a copy),
plain data out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Iterable

from .model import FileFacts, Finding
from .package_entry import Installed, in_installed
from .resolve import Resolver, ResolverConfig

Lookup = Callable[[str], FileFacts | None]


def thin(facts: FileFacts) -> FileFacts:
    """What the registered analyses may read of a file's facts (its own and other files'):
    the module-level names (imports, exports, definitions and the rest of the import facts).
    A cold build runs the analyses on these, so an analysis that reads more (calls,
    functions, clients) must say so here."""
    return replace(facts, functions=(), constants=(), clients=(), calls=(), routes=(), classes=(), problems=(),
                   views=(), data_models=())


@dataclass(frozen=True)
class AnalysisInput:
    """What the analyses read besides the files' facts. ``files``: the workspace paths
    that are not source files (assets, JSON, stylesheets), for the resolver's existence
    test; ``sources``: the source files (for "did you mean" paths only: whether a source
    exists is asked through ``lookup``); ``unlisted``/``unlisted_dirs``: the files the walk
    saw but did not list (excluded by a ``.gitignore`` or a setting) and the folders it did
    not enter: they exist all the same (generated code is often ignored), so a path among
    them or under one exists for the resolver and nothing in it is judged;
    ``environment``: what is installed and declared (``imports.Environment``, None when not
    read); ``patterns``: the fix-history ledger's patterns (``ledger.Patterns``,
    None without a ledger); ``options``: settings as ``(name, value)`` pairs."""

    files: frozenset[str] = frozenset()
    sources: frozenset[str] = frozenset()
    unlisted: frozenset[str] = frozenset()
    unlisted_dirs: frozenset[str] = frozenset()
    environment: object | None = None
    patterns: object | None = None
    options: tuple[tuple[str, object], ...] = ()
    invariants: tuple = ()  # invariants.Rule, from the configuration and import-linter's contracts

    @cached_property
    def all_files(self) -> frozenset[str]:
        """Every workspace file the walk listed (sources and the rest): computed once per
        inputs, not once per edit."""
        return self.files | self.sources

    def unlisted_path(self, path: str) -> bool:
        """Whether ``path`` is a file the walk did not list, or in a folder it did not enter."""
        if path in self.unlisted:
            return True
        dirs = self.unlisted_dirs
        if dirs:
            cut = path.rfind("/")
            while cut > 0:
                path = path[:cut]
                if path in dirs:
                    return True
                cut = path.rfind("/")
        return False

    def unlisted_below(self, folder: str) -> bool:
        """Whether the walk left out ``folder`` (``""``: the root), a folder above it, or a
        file or a folder below it."""
        if folder and self.unlisted_path(folder + "/x"):
            return True
        prefix = folder + "/" if folder else ""
        return any(p.startswith(prefix) for p in self.unlisted_dirs) or any(p.startswith(prefix) for p in self.unlisted)

    def option(self, name: str, default: object = None) -> object:
        for k, v in self.options:
            if k == name:
                return v
        return default


@dataclass
class Context:
    """One batch of files analyzed together: the resolver (it memoizes per folder) and the
    paths its answers probed, per file being analyzed."""

    inputs: AnalysisInput
    lookup: Lookup
    config: ResolverConfig
    installed: Installed | None = None  # installed packages' files (package_entry.Installed)
    # the text of a workspace file: the open buffer, else the file on disk; None when
    # unreadable (the analyses that read function bodies: body_rules.py). None: not given
    text: Callable[[str], str | None] | None = None
    memo: dict = field(default_factory=dict)  # what analyses share within the batch (chains searched)
    _probed: list[set[str]] = field(default_factory=list)
    _resolver: Resolver | None = None

    @property
    def resolver(self) -> Resolver:
        if self._resolver is None:
            # the resolver asks through an object that does not hold this context: no
            # reference cycle (the index's memory relies on building leaving none)
            self._resolver = Resolver(self.config, _Exists(self.inputs, self.lookup, self._probed,
                                                           self.installed))
        return self._resolver


class _Exists:
    """``exists`` for the resolver: a workspace file that is not a source, or a source with
    facts, or a path the walk did not list (``AnalysisInput.unlisted_path``) that is a file
    (``installed.unlisted_exists``, the disk's answer; without one, any such path exists);
    each path asked is recorded for the analysis being run (its edges)."""

    __slots__ = ("files", "lookup", "probed", "installed", "inputs")

    def __init__(self, inputs: AnalysisInput, lookup: Lookup, probed: list[set[str]],
                 installed: Installed | None = None) -> None:
        self.files, self.lookup, self.probed, self.installed = inputs.files, lookup, probed, installed
        self.inputs = inputs if (inputs.unlisted or inputs.unlisted_dirs) else None

    def __call__(self, path: str) -> bool:
        if self.installed is not None and in_installed(path):
            return self.installed.exists(path)  # not an edge: imports.check_imports says why
        if self.probed:
            self.probed[-1].add(path)
        if path in self.files or self.lookup(path) is not None:
            return True
        if self.inputs is None or not self.inputs.unlisted_path(path):
            return False
        probe = getattr(self.installed, "unlisted_exists", None)
        return probe is None or probe(path)


@dataclass(frozen=True)
class Analysis:
    """``run(facts, ctx) -> (findings, paths read or probed)``; ``wanted(facts, inputs)``
    says cheaply whether there is anything to do for this file."""

    name: str
    run: Callable[[FileFacts, Context], tuple[tuple[Finding, ...], frozenset[str]]]
    wanted: Callable[[FileFacts, AnalysisInput], bool] = lambda facts, inputs: True


def _imports(facts: FileFacts, ctx: Context) -> tuple[tuple[Finding, ...], frozenset[str]]:
    from .imports import Environment, check_imports

    env = ctx.inputs.environment if isinstance(ctx.inputs.environment, Environment) else Environment()
    inputs = ctx.inputs
    result = check_imports(facts, ctx.resolver, ctx.lookup, env, files=inputs.all_files, installed=ctx.installed,
                           unlisted_below=inputs.unlisted_below)
    if inputs.invariants:  # an `imports-resolve` rule restates a phantom import of the files it names
        from .invariants import imports_resolve

        return (*result.findings, *imports_resolve(facts, inputs.invariants, result.findings)), result.deps
    return result.findings, result.deps


def _ledger(facts: FileFacts, ctx: Context) -> tuple[tuple[Finding, ...], frozenset[str]]:
    from .ledger import match_imports, target_key

    deps: set[str] = set()

    def target_of(specifier: str) -> str | None:
        r = ctx.resolver.resolve(facts.path, specifier, "python" if facts.language == "python" else None)
        deps.update(r.probed)
        return target_key(r)

    error_from = ctx.inputs.option("repeat_error_count") or 0
    return tuple(match_imports(facts, ctx.inputs.patterns, target_of, error_from=error_from)), frozenset(deps)


def python_submodule(imp) -> str | None:
    """The module a Python ``from m import name`` names when ``name`` is a submodule:
    ``m.name`` (``.name`` after ``from . import name``); None for ``import m`` and ``from m
    import *``. (Whether it is one, the resolver says.)"""
    if imp.name in ("", "*"):
        return None
    return imp.module + ("" if imp.module.endswith(".") else ".") + imp.name


def import_target(ctx: Context, importer: str, imp, deps: set[str]) -> tuple[str | None, str | None]:
    """What an import names: ``(workspace file, None)``, ``(None, external package)`` or
    ``(None, None)`` (unresolved); the paths the resolver probed go into ``deps``. A Python
    ``from shop.api import routes`` names the submodule when it is one (as import-linter
    counts it), else ``shop.api``."""
    from .resolve import FILE, PACKAGE
    from .resolve_setup import split_package

    python = importer.endswith((".py", ".pyi"))
    submodule = python_submodule(imp) if python else None
    if submodule is not None:
        sub = ctx.resolver.resolve(importer, submodule, "python")
        if sub.kind == FILE and sub.path and not in_installed(sub.path):
            deps.update(sub.probed)
            return sub.path, None
    r = ctx.resolver.resolve(importer, imp.module, "python" if python else None)
    deps.update(r.probed)
    if r.kind == FILE and r.path and not in_installed(r.path):
        return r.path, None
    if r.kind == PACKAGE or (r.kind == FILE and r.path):
        name = imp.module if imp.module and not imp.module.startswith(".") else (r.package or "")
        return None, split_package(name)[0] or name
    return None, None


def _invariants(facts: FileFacts, ctx: Context) -> tuple[tuple[Finding, ...], frozenset[str]]:
    from .invariants import check_invariants

    deps: set[str] = set()
    found, read = check_invariants(facts, ctx.inputs.invariants,
                                   lambda importer, imp: import_target(ctx, importer, imp, deps), ctx.lookup, ctx.memo)
    return found, frozenset(deps | read)


def text_readers(paths: Iterable[str], inputs: AnalysisInput) -> set[str]:
    """The files among ``paths`` whose analyses read texts (``Context.text``: a ``pure`` or
    ``no-hardcoded-config`` rule governs them). Cheap: patterns only, nothing without such
    a rule. An edit that changes no fact of a file still changes what such an analysis
    finds in it or in the files it judges, so the index runs it again then."""
    from .body_rules import BODY_KINDS, governed

    rules = tuple(r for r in inputs.invariants if r.kind in BODY_KINDS)
    return {p for p in paths if governed(p, rules)} if rules else set()


def _body_rules(facts: FileFacts, ctx: Context) -> tuple[tuple[Finding, ...], frozenset[str]]:
    from .body_rules import check_body_rules

    sources = ctx.inputs.sources
    exists = sources.__contains__ if sources else (lambda p: ctx.lookup(p) is not None)
    return check_body_rules(facts.path, facts.imports, ctx.inputs.invariants, ctx.text, exists, ctx.memo)


ANALYSES: tuple[Analysis, ...] = (
    Analysis("imports", _imports, lambda facts, inputs: bool(facts.imports or facts.exports)),
    Analysis("ledger", _ledger, lambda facts, inputs: inputs.patterns is not None and bool(facts.imports)),
    Analysis("invariants", _invariants, lambda facts, inputs: bool(inputs.invariants) and (
        bool(facts.imports or facts.exports) or any(r.kind == "required-symbol" for r in inputs.invariants))),
    Analysis("body-rules", _body_rules, lambda facts, inputs: bool(inputs.invariants)
             and bool(text_readers((facts.path,), inputs))),
)


def analyze(facts: FileFacts, ctx: Context,
            reraise: tuple[type[BaseException], ...] = ()) -> tuple[tuple[Finding, ...], frozenset[str]]:
    """Every registered analysis of one file: its findings (in registry order) and the
    union of their dependency edges (the file itself included). An analysis that fails
    costs only its own findings: the file gets a ``file-skipped`` note naming it.
    ``reraise``: exceptions of the caller's lookup that must pass through (a build's
    "not extracted yet")."""
    findings: list[Finding] = []
    deps: set[str] = {facts.path}
    for a in ANALYSES:
        if not a.wanted(facts, ctx.inputs):
            continue
        ctx._probed.append(set())
        try:
            got, read = a.run(facts, ctx)
        except reraise:
            raise
        except RecursionError:
            got, read = (), frozenset()
        except Exception as exc:  # noqa: BLE001 - reported on the file, the others still run
            from .model import Span

            got = (Finding("file-skipped", "information",
                           f"internal error in the {a.name} check, its findings are missing: {type(exc).__name__}: {exc}",
                           facts.path, Span(0, 0)),)
            read = frozenset()
        finally:
            probed = ctx._probed.pop()
        findings.extend(got)
        deps |= read
        deps |= probed
    return tuple(findings), frozenset(deps)
