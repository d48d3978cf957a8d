"""Architecture invariants on the import graph: ``layers``, ``forbidden`` and
``independence`` rules, as import-linter's contracts of the same names mean them, checked
one file at a time (``invariant-violation`` at the import that crosses the rule); and two
rules on one file's facts: ``required-symbol`` (a module must define names) and
``imports-resolve`` (a file's phantom imports restated). ``config-schema`` is in
``config_schema.py``; ``pure`` and ``no-hardcoded-config``, which read function bodies, in
``body_rules.py``.

Pure. A rule names modules by **pattern**:

- a dotted name (``shop.domain``) is that Python module and every module below it; a
  segment may be ``*`` (one name) or ``**`` (any number), as in import-linter's
  ``ignore_imports``; a dotted name also matches an external package of that name
  (``requests``, when a ``forbidden`` rule names it);
- a pattern with a ``/`` is a workspace path: the file, or every file below that folder
  (``web/src/db``), or a glob (``web/src/**/*.server.ts``); an npm package is named as it is
  imported (``axios``, ``@acme/db``).

How a file's import is judged against a rule:

- ``layers`` (highest first): a module of a layer must not import a module of a layer
  above it, nor a sibling of its own layer that is marked independent (``a | b``);
- ``forbidden``: a source module must not import a forbidden one;
- ``independence``: none of the modules may import another.

With ``indirect`` (import-linter's default), an import of a module that leads, through
imports of modules the rule does not name, to a module the file must not import is a
violation too, placed at the first import of that chain (the shortest one is shown). A
chain never passes through a module the rule names: that module's own imports are judged
in its own file, as import-linter does. ``ignore`` pairs drop import edges
(``importer -> imported`` patterns) from the graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from wcmatch import glob as wcglob

from .codes import CODES
from .model import FileFacts, Finding, Import, Span

IMPORT_GRAPH_KINDS = ("layers", "forbidden", "independence")  # the others: required-symbol, imports-resolve,
# config-schema (config_schema.py), pure and no-hardcoded-config (body_rules.py, on function bodies)
GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB
_PY = (".py", ".pyi")
_JS_SUFFIX = re.compile(r"\.(d\.)?[cm]?[jt]sx?$|\.(vue|svelte)$")
_MAX_CHAIN_FILES = 20_000  # a chain search stops after this many files (a runaway graph)


@dataclass(frozen=True)
class Rule:
    """One invariant. ``layers``: highest first, each layer's module patterns (siblings);
    ``independent``: per layer, whether its siblings must not import each other;
    ``sources``/``targets``: a ``forbidden`` rule; ``modules``: an ``independence`` rule, the
    files of a ``pure`` rule or those a ``no-hardcoded-config`` rule judges (none: every
    source file). ``pure``: ``marker`` (``""``: ``pure``), ``all_functions``, ``effects``
    (``()``: ``body_rules.DEFAULT_EFFECTS``); ``no-hardcoded-config``: ``config`` (the
    module) and its ``keys``. ``origin``: where it was written (``specward.toml``,
    ``.importlinter``), ``name``: its title there."""

    id: str
    kind: str
    layers: tuple[tuple[str, ...], ...] = ()
    independent: tuple[bool, ...] = ()
    sources: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    indirect: bool = True
    ignore: tuple[tuple[str, str], ...] = ()
    origin: str = ""
    name: str = ""
    marker: str = ""
    all_functions: bool = False
    effects: tuple[str, ...] = ()
    config: str = ""
    keys: tuple[str, ...] = ()

    def groups(self) -> list[tuple[str, ...]]:
        """Every group of patterns the rule names (a chain passes through none of them)."""
        if self.kind == "layers":
            return list(self.layers)
        if self.kind == "forbidden":
            return [self.sources, self.targets]
        return [(m,) for m in self.modules]


# ---------------------------------------------------------------------- module names

def module_names(path: str) -> tuple[str, ...]:
    """The names a workspace file is known by: a Python file's dotted names (from the root
    and from below ``src/``), a JavaScript file's path without its extension (and without
    ``/index``); the path itself always comes last."""
    if path.endswith(_PY):
        stem = path.rsplit(".", 1)[0]
        if stem.endswith("/__init__") or stem == "__init__":
            stem = stem[: -len("__init__")].rstrip("/")
        dotted = stem.replace("/", ".")
        names = [dotted]
        if dotted.startswith("src."):
            names.append(dotted[4:])
        return (*names, path)
    stem = _JS_SUFFIX.sub("", path)
    if stem.endswith("/index"):
        return (stem, stem[: -len("/index")], path)
    return (stem, path)


def shown_name(path: str) -> str:
    """How a file is named in a message: its Python module (below ``src/``), else its path."""
    if path.endswith(_PY):
        names = module_names(path)
        return names[1] if len(names) > 2 else names[0]
    return path


@lru_cache(maxsize=4096)
def _dotted(pattern: str) -> re.Pattern[str]:
    parts = []
    for seg in pattern.split("."):
        parts.append(r"[^.]+" if seg == "*" else r".+" if seg == "**" else re.escape(seg))
    return re.compile(r"\.".join(parts) + r"(\..+)?")


def matches(pattern: str, path: str | None, package: str | None = None) -> bool:
    """Whether a workspace file (``path``) or an external package (``package``, as
    imported: ``requests``, ``@acme/db``) is in the modules ``pattern`` names."""
    if "/" in pattern and not pattern.startswith("@"):
        if path is None:
            return False
        if wcglob.is_magic(pattern, flags=GLOB_FLAGS):
            return wcglob.globmatch(path, pattern, flags=GLOB_FLAGS)
        p = pattern.rstrip("/")
        return path == p or path.startswith(p + "/") or _JS_SUFFIX.sub("", path) == p \
            or (path.endswith(_PY) and path.rsplit(".", 1)[0] == p)
    if path is not None:
        rx = _dotted(pattern)
        return any(rx.fullmatch(n) for n in module_names(path)[:-1] if path.endswith(_PY))
    if package is not None:
        return package == pattern or package.startswith(pattern + "/") or _dotted(pattern).fullmatch(package) is not None
    return False


def is_module(pattern: str, path: str) -> bool:
    """Whether ``path`` is the module ``pattern`` names itself (not one below it): a dotted
    name of the Python file, the path with or without its extension, or a glob matching it."""
    if "/" not in pattern:
        return path.endswith(_PY) and pattern in module_names(path)[:-1]
    if wcglob.is_magic(pattern, flags=GLOB_FLAGS):
        return wcglob.globmatch(path, pattern, flags=GLOB_FLAGS)
    return pattern in module_names(path) or path.rsplit(".", 1)[0] == pattern


def _in(patterns: tuple[str, ...], path: str | None, package: str | None = None) -> str | None:
    return next((p for p in patterns if matches(p, path, package)), None)


# ---------------------------------------------------------------------- the check

Target = tuple[str | None, str | None]  # (workspace path, external package)
ResolveImport = Callable[[str, Import], Target]  # (importer, import) -> its target


@dataclass
class _Forbidden:
    """What one file must not import under one rule: patterns, each with why."""

    rule: Rule
    own: str  # the pattern the file is in
    banned: list[tuple[str, str]]  # (pattern, why)


def _duties(rule: Rule, path: str) -> _Forbidden | None:
    if rule.kind not in IMPORT_GRAPH_KINDS:
        return None
    if rule.kind == "layers":
        for i, layer in enumerate(rule.layers):
            own = _in(layer, path)
            if own is None:
                continue
            banned = [(p, f"{p} is a higher layer") for higher in rule.layers[:i] for p in higher]
            if i < len(rule.independent) and rule.independent[i]:
                banned += [(p, f"{p} is an independent sibling in its layer") for p in layer if p != own]
            return _Forbidden(rule, own, banned)
        return None
    if rule.kind == "forbidden":
        own = _in(rule.sources, path)
        return None if own is None else _Forbidden(rule, own, [(p, f"{p} is forbidden to {own}") for p in rule.targets])
    own = _in(rule.modules, path)
    if own is None:
        return None
    return _Forbidden(rule, own, [(p, f"{p} and {own} are independent") for p in rule.modules if p != own])


def _ignored(rule: Rule, importer: str, target: Target) -> bool:
    path, package = target
    return any(matches(a, importer) and matches(b, path, package) for a, b in rule.ignore)


def check_invariants(facts: FileFacts, rules: tuple[Rule, ...], resolve: ResolveImport,
                     lookup: Callable[[str], FileFacts | None],
                     memo: dict | None = None) -> tuple[tuple[Finding, ...], frozenset[str]]:
    """The ``invariant-violation`` findings of one file, and every path read (a chain's
    files: editing one of them may make or break the chain). ``resolve`` gives an import's
    target (a workspace file, or an external package, or neither); ``memo`` (optional)
    is shared by the files of one batch."""
    memo = {} if memo is None else memo
    path = facts.path
    deps: set[str] = set()
    out: list[Finding] = list(_required_symbols(facts, rules))
    duties = [d for d in (_duties(r, path) for r in rules) if d is not None and d.banned]
    if not duties:
        return tuple(out), frozenset()
    seen: set[tuple[str, str]] = set()
    for imp in graph_imports(facts):
        target = resolve(path, imp)
        if target == (None, None):
            continue
        for duty in duties:
            rule = duty.rule
            if (rule.id, imp.module) in seen or _ignored(rule, path, target):
                continue
            hit = next(((p, why) for p, why in duty.banned if matches(p, *target)), None)
            chain: list[str] = []
            if hit is None and rule.indirect and target[0] is not None \
                    and not any(_in(g, target[0]) for g in rule.groups()):
                found = _chain(rule, duty, target[0], resolve, lookup, memo)
                deps |= found[1]
                if found[0] is not None:
                    hit, chain = found[0]
            if hit is None:
                continue
            seen.add((rule.id, imp.module))
            shown = shown_name(target[0]) if target[0] else target[1]
            via = f" through {' -> '.join([shown, *chain])}" if chain else ""
            title = f" ({rule.name})" if rule.name and rule.name != rule.id else ""
            msg = f"[{rule.id}]{title} {shown_name(path)} must not import {hit[0]}{via}: {hit[1]}"
            data = (("rule", rule.id), ("module", imp.module), ("origin", rule.origin))
            out.append(Finding("invariant-violation", CODES["invariant-violation"].severity, msg, path,
                               imp.module_span or imp.span, data))
    return tuple(out), frozenset(deps)


def _required_symbols(facts: FileFacts, rules: tuple[Rule, ...]):
    """``required-symbol``: a name the file must define (a definition, an export, or, in
    Python, a name it imports: a module attribute all the same) and does not. A file with
    an ``export *`` or exports that cannot be known is trusted."""
    wanted = [r for r in rules if r.kind == "required-symbol" and any(is_module(m, facts.path) for m in r.modules)]
    if not wanted or facts.open_exports or any(e.name == "*" for e in facts.exports):
        return
    have = {d.name for d in facts.definitions} | {e.name for e in facts.exports}
    if facts.language == "python":
        have |= {i.local for i in facts.imports if i.local}
    for rule in wanted:
        for name in rule.symbols:
            if name not in have:
                yield Finding("invariant-violation", CODES["invariant-violation"].severity,
                              f"[{rule.id}] {shown_name(facts.path)} must define {name}", facts.path, Span(0, 0),
                              (("rule", rule.id), ("symbol", name), ("origin", rule.origin)))


def imports_resolve(facts: FileFacts, rules: tuple[Rule, ...], found: tuple[Finding, ...]) -> list[Finding]:
    """``imports-resolve``: each ``phantom-import`` of a file the rule names is a violation
    of the rule too (the context harness' import-resolution invariant)."""
    wanted = [r for r in rules if r.kind == "imports-resolve" and _in(r.sources, facts.path)]
    out = []
    for rule in wanted:
        for f in found:
            if f.code == "phantom-import":
                module = dict(f.data).get("module", "")
                out.append(Finding("invariant-violation", CODES["invariant-violation"].severity,
                                   f"[{rule.id}] every import of {shown_name(facts.path)} must resolve: "
                                   f"'{module}' cannot be found",
                                   f.file, f.span, (("rule", rule.id), ("module", module), ("origin", rule.origin))))
    return out


def graph_imports(facts: FileFacts) -> list[Import]:
    """The imports that are edges of the import graph (JavaScript's `export … from` too)."""
    imps = [i for i in facts.imports if i.module and i.kind != "glob"]
    if facts.language != "python":
        imps += [Import(e.module, e.local, e.name, e.span, "static") for e in facts.exports if e.module]
    return imps


def _chain(rule: Rule, duty: _Forbidden, start: str, resolve: ResolveImport,
           lookup: Callable[[str], FileFacts | None], memo: dict):
    """The shortest chain from ``start`` to a banned module through modules the rule does
    not name: ``((pattern, why), [module names after start]) or None``, and the files read."""
    key = (rule.id, duty.own, start)
    if key in memo:
        return memo[key]
    groups = rule.groups()
    parents: dict[str, str | None] = {start: None}
    queue = [start]
    result = None
    read: set[str] = set()
    while queue and result is None and len(parents) < _MAX_CHAIN_FILES:
        nxt: list[str] = []
        for here in queue:
            facts = lookup(here)
            read.add(here)
            if facts is None:
                continue
            for imp in graph_imports(facts):
                target = resolve(here, imp)
                if target == (None, None) or _ignored(rule, here, target):
                    continue
                hit = next(((p, why) for p, why in duty.banned if matches(p, *target)), None)
                if hit is not None:
                    hops = []  # the modules after ``start`` up to ``here``
                    step = here
                    while parents[step] is not None:
                        hops.append(shown_name(step))
                        step = parents[step]  # type: ignore[assignment]
                    result = (hit, [*reversed(hops), shown_name(target[0]) if target[0] else str(target[1])])
                    break
                nxt_path = target[0]
                if nxt_path is None or nxt_path in parents or any(_in(g, nxt_path) for g in groups):
                    continue
                parents[nxt_path] = here
                nxt.append(nxt_path)
            if result is not None:
                break
        queue = nxt
    memo[key] = (result, frozenset(read))
    return memo[key]
