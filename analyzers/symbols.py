"""Symbols across files, for the linker: modules (through the one module resolver), exports
and imports, string constants, URL builders, functions and methods (inherited ones too),
classes and client bindings. Pure: another file's facts are read only through the
``lookup`` callable, and every path read (or probed and not found) is recorded, so the index
re-links exactly the files that depend on a changed one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .callsites import substitute_args
from .model import (
    Alt,
    ArgVal,
    Call,
    CallSite,
    ClientDef,
    FileFacts,
    FunctionDef,
    Part,
    Ref,
    StrVal,
    UrlExpr,
)
from .resolve import FILE, Resolver, ResolverConfig

MAX_DEPTH = 6
_NO_CONFIG = ResolverConfig.build({})


@dataclass(slots=True)
class _Memo:
    value: object
    deps: set[str] = field(default_factory=set)
    reads: set | None = None  # what it read of the watched file (``Symbols.watch``)
    cut: bool = False  # a recursion or a depth limit was cut off computing it (``cutoffs``)


EVERYTHING = ("*",)  # a read token: the watched file's facts read wholesale


class _Reads(dict):
    """A table of the watched file's ``FileIndex`` that adds each key looked up, as
    ``(tag, key)``, to the read set being recorded (the last of ``sink``, when there is
    one); going over the whole table reads ``EVERYTHING``."""

    __slots__ = ("tag", "sink")

    def get(self, key, default=None):
        sink = self.sink
        if sink:
            sink[-1].add((self.tag, key))
        return dict.get(self, key, default)

    def __contains__(self, key) -> bool:
        sink = self.sink
        if sink:
            sink[-1].add((self.tag, key))
        return dict.__contains__(self, key)

    def __getitem__(self, key):
        sink = self.sink
        if sink:
            sink[-1].add((self.tag, key))
        return dict.__getitem__(self, key)

    def _whole(name):  # noqa: N805 - builds the wholesale readers below
        real = getattr(dict, name)

        def method(self, *args):
            if self.sink:
                self.sink[-1].add(EVERYTHING)
            return real(self, *args)
        return method

    for _name in ("__iter__", "__len__", "__bool__", "items", "keys", "values", "copy", "__eq__", "__ne__",
                  "__or__", "__ror__", "__reversed__", "pop", "popitem", "setdefault", "update", "__ior__"):
        if hasattr(dict, _name):
            locals()[_name] = _whole(_name)
    del _name, _whole


class _ReadSet(frozenset):
    """``_Reads`` for a set of names (membership is all the linker asks)."""

    __slots__ = ("tag", "sink")

    def __contains__(self, key) -> bool:
        sink = self.sink
        if sink:
            sink[-1].add((self.tag, key))
        return frozenset.__contains__(self, key)

    def _whole(name):  # noqa: N805
        real = getattr(frozenset, name)

        def method(self, *args):
            if self.sink:
                self.sink[-1].add(EVERYTHING)
            return real(self, *args)
        return method

    for _name in ("__iter__", "__len__", "__bool__", "__eq__", "__ne__", "__and__", "__or__", "__sub__", "__xor__",
                  "__rand__", "__ror__", "__rsub__", "__rxor__", "copy", "difference", "intersection", "isdisjoint",
                  "issubset", "issuperset", "symmetric_difference", "union", "__le__", "__lt__", "__ge__", "__gt__"):
        if hasattr(frozenset, _name):
            locals()[_name] = _whole(_name)
    del _name, _whole


class _ReadList(list):
    """``_Reads`` for a list the linker goes over whole (``star_exports``): one token."""

    __slots__ = ("tag", "sink")

    def _whole(name):  # noqa: N805
        real = getattr(list, name)

        def method(self, *args):
            if self.sink:
                self.sink[-1].add((self.tag,))
            return real(self, *args)
        return method

    for _name in ("__iter__", "__len__", "__bool__", "__getitem__", "__contains__", "__reversed__", "index",
                  "count", "copy", "__eq__", "__ne__"):
        if hasattr(list, _name):
            locals()[_name] = _whole(_name)
    del _name, _whole


def _reading(kind, tag: str, sink: list, table):
    out = kind(table)
    out.tag = tag
    out.sink = sink
    return out


# the tags of the read tokens, per table of ``FileIndex`` (classes and classdefs share one)
READ_TAGS = (("imports", "imp"), ("exports", "exp"), ("constants", "const"), ("functions", "fn"),
             ("clients", "cli"), ("classes", "cls"), ("classdefs", "cls"), ("calls_by_scope", "scope"))


def names_of(idx: "FileIndex") -> set:
    """Every read token a lookup in ``idx``'s tables can give (the keys it holds); built from
    the facts of some statements, what a change of those statements may change."""
    out: set = {(tag, k) for attr, tag in READ_TAGS for k in getattr(idx, attr)}
    out.update(("inst", n) for n in idx.instances)
    out.update(("loc", n) for n in idx.locals)
    if idx.star_exports:
        out.add(("star",))
    return out


class _Probe:
    """``exists`` for the resolver: a file exists when it has facts; each path asked is a
    dependency of what is being linked."""

    __slots__ = ("lookup", "deps")

    def __init__(self, lookup: Callable[[str], FileFacts | None], deps: list[set[str]]) -> None:
        self.lookup = lookup
        self.deps = deps

    def __call__(self, path: str) -> bool:
        if self.deps:
            self.deps[-1].add(path)
        return self.lookup(path) is not None


class FileIndex:
    __slots__ = ("facts", "imports", "exports", "star_exports", "constants", "functions",
                 "clients", "instances", "calls_by_scope", "locals", "classes", "classdefs", "api_hosts")

    def __init__(self, facts: FileFacts, sink: list | None = None) -> None:
        """``sink``: the file is watched (``Symbols.watch``): its tables note each lookup in
        the read set being recorded, the last of ``sink``."""
        self.facts = facts
        self.imports = {i.local: i for i in facts.imports}
        self.exports = {e.name: e for e in facts.exports if e.name != "*"}
        self.star_exports = [e.module for e in facts.exports if e.name == "*" and e.module]
        self.constants = dict(facts.constants)
        self.functions = {f.name: f for f in facts.functions}
        self.clients = {(c.name, c.scope): c for c in facts.clients}
        self.instances = frozenset(c.name for c in facts.clients if c.kind == "factory")
        self.classes = {c.name: c.bases for c in facts.classes}
        self.classdefs = {c.name: c for c in facts.classes}
        by_scope: dict[str, list[CallSite]] = {}
        for c in facts.calls:
            if c.scope is not None:
                by_scope.setdefault(c.scope, []).append(c)
        self.calls_by_scope = by_scope
        names = {d.name for d in facts.definitions}
        names.update(n for n, _ in facts.constants)
        names.update(f.name.split(".")[0] for f in facts.functions)
        names.update(c.name for c in facts.clients)
        self.locals = names
        self.api_hosts: frozenset[str] | None = None
        if sink is not None:
            for attr, tag in READ_TAGS:
                setattr(self, attr, _reading(_Reads, tag, sink, getattr(self, attr)))
            self.instances = _reading(_ReadSet, "inst", sink, self.instances)
            self.locals = _reading(_ReadSet, "loc", sink, self.locals)
            self.star_exports = _reading(_ReadList, "star", sink, self.star_exports)


class Symbols:
    """What names mean across files. One instance per batch of files linked together (it
    memoizes per file, and its resolver per folder)."""

    def __init__(self, lookup: Callable[[str], FileFacts | None], config: ResolverConfig | None = None) -> None:
        self._lookup = lookup
        self._deps: list[set[str]] = []
        self._memo: dict[tuple, _Memo] = {}
        self._active: set[tuple] = set()
        self._index: dict[str, "FileIndex"] = {}
        # the watched file (None: none): what each of its call sites reads of its facts is
        # recorded (``_reads``: the read sets being recorded, innermost last), so that an edit
        # re-classifies only the sites that read a changed name (``Linker.link_file(reads=)``);
        # ``cutoffs``: answers that depended on the order things were asked in (a recursion
        # cut off), with which no read set is to be trusted
        self.watch: str | None = None
        self._reads: list[set] = []
        self.cutoffs = 0
        # the resolver asks through a probe that does not hold the linker (no reference cycle)
        self._resolver = Resolver(config if config is not None else _NO_CONFIG, _Probe(lookup, self._deps))

    def _too_deep(self, depth: int) -> bool:
        """Whether a lookup ``depth`` levels down stops there (a memoized answer found so
        depends on where it was first asked from: counted in ``cutoffs``)."""
        if depth > MAX_DEPTH:
            self.cutoffs += 1
            return True
        return False

    def _facts(self, path: str) -> FileFacts | None:
        if self._deps:
            self._deps[-1].add(path)
        return self._lookup(path)

    def _memoized(self, key: tuple, compute: Callable[[], object]) -> object:
        memo = self._memo.get(key)
        if memo is None:
            if key in self._active:
                self.cutoffs += 1
                return None  # recursion (a wrapper calling itself): no answer
            self._active.add(key)
            self._deps.append(set())
            watching = self.watch is not None
            if watching:
                self._reads.append(set())
            cutoffs = self.cutoffs
            try:
                value = compute()
            finally:
                deps = self._deps.pop()
                reads = self._reads.pop() if watching else None
                self._active.discard(key)
            memo = self._memo[key] = _Memo(value, deps, reads, self.cutoffs != cutoffs)
        elif memo.cut:
            self.cutoffs += 1  # (its answer depends on where it was first asked from)
        if self._deps:
            self._deps[-1] |= memo.deps
        if self._reads:
            if memo.reads is None:
                self._reads[-1].add(EVERYTHING)  # (computed before the watch began)
            else:
                self._reads[-1] |= memo.reads
        return memo.value

    def _file_index(self, path: str) -> "FileIndex | None":
        facts = self._facts(path)
        if facts is None:
            return None
        idx = self._index.get(path)
        if idx is None or idx.facts is not facts:
            idx = self._index[path] = FileIndex(facts, self._reads if path == self.watch else None)
        return idx

    def _facts_whole(self, path: str) -> FileFacts | None:
        """``_facts`` for a reader that goes over the facts themselves: of the watched file,
        that reads everything."""
        if path == self.watch and self._reads:
            self._reads[-1].add(EVERYTHING)
        return self._facts(path)

    def resolve_module(self, importer: str, module: str, language: str) -> str | None:
        """The workspace file ``module`` names, imported from ``importer`` (the one module
        resolver, ``analyzers/resolve.py``); every path it probed is a dependency: a file
        created there changes the answer."""
        r = self._resolver.resolve(importer, module, "python" if language == "python" else None)
        if self._deps:
            self._deps[-1].update(r.probed)
        return r.path if r.kind == FILE else None

    def _import_target(self, idx: "FileIndex", local: str) -> tuple[str | None, str, str] | None:
        """For a local name bound by an import: (resolved file or None, module, export name)."""
        imp = idx.imports.get(local)
        if imp is None:
            return None
        target = self.resolve_module(idx.facts.path, imp.module, idx.facts.language)
        return target, imp.module, imp.name

    def _through_import(self, idx: "FileIndex", dotted: str) -> tuple[str, str] | None:
        """For ``head.rest`` where ``head`` is bound by an import of a workspace file: the
        file and the name ``head.rest`` has there (a namespace import's first member is
        the export)."""
        head, _, rest = dotted.partition(".")
        if head not in idx.imports:
            return None
        t = self._import_target(idx, head)
        if not t or not t[0]:
            return None
        target, _module, export = t
        if export == "*":
            if not rest:
                return None
            export, _, rest = rest.partition(".")
        loc = self._export_local(target, export)
        if loc is None:
            return None
        return loc[0], ".".join(x for x in (loc[1], rest) if x)

    def _export_local(self, path: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, local name) that export ``name`` of ``path`` refers to."""
        idx = self._file_index(path)
        if idx is None or self._too_deep(depth):
            return None
        if idx.facts.language == "python":
            return path, name
        exp = idx.exports.get(name)
        if exp is not None:
            if exp.module:
                target = self.resolve_module(path, exp.module, idx.facts.language)
                return self._export_local(target, exp.local, depth + 1) if target else None
            # `export { x }` where x is itself imported
            if exp.local in idx.imports and exp.local not in idx.locals:
                t = self._import_target(idx, exp.local)
                if t and t[0]:
                    return self._export_local(t[0], t[2], depth + 1)
            return path, exp.local
        for star in idx.star_exports:
            target = self.resolve_module(path, star, idx.facts.language)
            if target:
                found = self._export_local(target, name, depth + 1)
                if found:
                    return found
        # CommonJS-ish and TS without explicit exports: fall back to a top-level name
        if name in idx.locals:
            return path, name
        return None

    def resolve_expr(self, path: str, expr: UrlExpr, scope: str | None = None, depth: int = 0) -> UrlExpr:
        """Replace ``Ref`` parts that name known string constants (here or imported), and
        follow calls of URL builders."""
        out: list[Part] = []
        for part in expr:
            t = type(part)
            if t is Ref:
                resolved = self._resolve_ref(path, part.name, scope, depth)  # type: ignore[union-attr]
                if resolved is not None:
                    out.extend(resolved)
                    continue
            elif t is Alt and not self._too_deep(depth):
                out.append(Alt(tuple(self.resolve_expr(path, o, scope, depth + 1) for o in part.options)))  # type: ignore[union-attr]
                continue
            elif t is Call and not self._too_deep(depth):
                built = self._built(path, part, scope, depth)  # type: ignore[arg-type]
                if built is not None:
                    out.extend(built)
                    continue
            out.append(part)
        return tuple(out)

    def _resolve_ref(self, path: str, name: str, scope: str | None, depth: int) -> UrlExpr | None:
        if self._too_deep(depth):
            return None
        key = ("ref", path, name, scope)
        return self._memoized(key, lambda: self._compute_ref(path, name, scope, depth))  # type: ignore[return-value]

    def _compute_ref(self, path: str, name: str, scope: str | None, depth: int) -> UrlExpr | None:
        idx = self._file_index(path)
        if idx is None:
            return None
        candidates = [name]
        head, _, rest = name.partition(".")
        if head in ("this", "self") and rest and scope:
            cls = scope.split(".")[0]
            candidates = [f"{c}.{rest}" for c in self._class_chain(idx, cls)] or [f"{cls}.{rest}"]
        for cand in candidates:
            expr = idx.constants.get(cand)
            if expr is not None:
                return self.resolve_expr(path, expr, None, depth + 1)
        if head in ("this", "self"):
            for cand in candidates[1:]:  # a field of a base class in another file
                found = self._inherited_constant(idx, cand, depth)
                if found is not None:
                    return found
            return None
        hit = self._through_import(idx, name)
        if hit is not None:
            return self._resolve_ref(hit[0], hit[1], None, depth + 1)
        return None

    def _inherited_constant(self, idx: "FileIndex", qualified: str, depth: int) -> UrlExpr | None:
        cls, _, rest = qualified.partition(".")
        hit = self._class(idx, cls)
        if hit is None or hit[0] == idx.facts.path:
            return None
        return self._resolve_ref(hit[0], f"{hit[1]}.{rest}", None, depth + 1)

    def _built(self, path: str, call: Call, scope: str | None, depth: int) -> UrlExpr | None:
        """What a call of a URL builder evaluates to (its return value with the call's
        arguments), or None when the callee is not one."""
        idx = self._file_index(path)
        if idx is None:
            return None
        hit = self._function(idx, call.callee, scope)
        if hit is None:
            return None
        fpath, fn = hit
        if type(fn.returns) is not StrVal:
            return None
        key = ("builder", fpath, fn.name)
        body = self._memoized(key, lambda: self.resolve_expr(fpath, fn.returns.expr, fn.name, depth + 1))  # type: ignore[union-attr]
        if body is None:
            return None
        args = tuple(self._resolved_arg(path, a, scope, depth) for a in call.args)
        return substitute_args(body, args, (), fn.params)  # type: ignore[arg-type]

    def _resolved_arg(self, path: str, val: ArgVal, scope: str | None, depth: int) -> ArgVal:
        if type(val) is StrVal:
            return StrVal(self.resolve_expr(path, val.expr, scope, depth + 1), val.span)  # type: ignore[union-attr]
        return val

    def _class(self, idx: "FileIndex", name: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, class name there) of a class named here (local or imported)."""
        if name in idx.classes:
            return idx.facts.path, name
        hit = self._through_import(idx, name)
        if hit is not None and not self._too_deep(depth + 1):
            tidx = self._file_index(hit[0])
            if tidx is not None and hit[1] in tidx.classes:
                return hit[0], hit[1]
        return None

    def _class_chain(self, idx: "FileIndex", cls: str) -> list[str]:
        """The class and its base classes declared in this file, nearest first."""
        out = [cls]
        while len(out) <= MAX_DEPTH:
            bases = idx.classes.get(out[-1])
            if not bases or bases[0] not in idx.classes or bases[0] in out:
                break
            out.append(bases[0])
        return out

    def _method(self, idx: "FileIndex", cls: str, name: str, depth: int = 0) -> tuple[str, FunctionDef] | None:
        """Method ``name`` of class ``cls`` of this file, or inherited from a base class
        (here or in another file)."""
        fn = idx.functions.get(f"{cls}.{name}")
        if fn is not None:
            return idx.facts.path, fn
        if self._too_deep(depth):
            return None
        for base in idx.classes.get(cls, ()):
            hit = self._class(idx, base)
            if hit is None:
                continue
            bidx = self._file_index(hit[0])
            if bidx is not None:
                found = self._method(bidx, hit[1], name, depth + 1)
                if found is not None:
                    return found
        return None

    def _function(self, idx: "FileIndex", callee: str, scope: str | None, depth: int = 0) -> tuple[str, FunctionDef] | None:
        """The function a callee names: local, ``this``/``self`` method (also inherited), a
        method of an instance of a workspace class, or imported."""
        if self._too_deep(depth):
            return None
        head, _, rest = callee.partition(".")
        if head in ("this", "self") and rest and scope:
            cls = scope.split(".")[0]
            if "." not in rest:
                return self._method(idx, cls, rest)
            receiver, _, method = callee.rpartition(".")
            return self._instance_method(idx, receiver, method, scope, depth)
        fn = idx.functions.get(callee)
        if fn is not None:
            return idx.facts.path, fn
        if rest:
            receiver, _, method = callee.rpartition(".")
            found = self._instance_method(idx, receiver, method, scope, depth)
            if found is not None:
                return found
        hit = self._through_import(idx, callee)
        if hit is not None:
            tidx = self._file_index(hit[0])
            if tidx is None:
                return None
            fn = tidx.functions.get(hit[1])
            if fn is not None:
                return hit[0], fn
            return self._function(tidx, hit[1], None, depth + 1) if hit[1] != callee else None
        return None

    def _instance_method(self, idx: "FileIndex", receiver: str, method: str, scope: str | None,
                         depth: int) -> tuple[str, FunctionDef] | None:
        """``receiver.method`` where the receiver is an instance of a workspace class
        (``new ApiClient()``, an injected ``private api: ApiService``)."""
        head = receiver.partition(".")[0]
        if receiver not in idx.instances and head not in idx.imports and head not in ("this", "self"):
            return None  # `console.log`, `res.json`: no instance of a class can be named so here
        found = self._client(idx, receiver, scope, depth + 1)
        if found is None or found[1].kind != "factory" or not (found[1].factory or "").startswith("new "):
            return None
        cpath, cdef = found
        cidx = self._file_index(cpath)
        if cidx is None:
            return None
        hit = self._class(cidx, cdef.factory[4:])  # type: ignore[index]
        if hit is None:
            return None
        kidx = self._file_index(hit[0])
        return self._method(kidx, hit[1], method, depth + 1) if kidx is not None else None

    def _client(self, idx: "FileIndex", name: str, scope: str | None, depth: int = 0) -> tuple[str, ClientDef] | None:
        """The client binding ``name`` refers to in ``scope`` (here, a base class's, or imported)."""
        if self._too_deep(depth):
            return None
        head, _, rest = name.partition(".")
        if head in ("this", "self") and scope:
            cls = scope.split(".")[0]
            for c in self._class_chain(idx, cls):
                found = idx.clients.get((f"{head}.{rest}", c))
                if found is not None:
                    return idx.facts.path, found
            chain = self._class_chain(idx, cls)
            bases = idx.classes.get(chain[-1], ())
            for base in bases:  # a client field of a base class in another file
                hit = self._class(idx, base)
                if hit is not None and hit[0] != idx.facts.path:
                    bidx = self._file_index(hit[0])
                    if bidx is not None:
                        found2 = self._client(bidx, name, hit[1], depth + 1)
                        if found2 is not None:
                            return found2
            return None
        s = scope
        while True:
            found = idx.clients.get((name, s))
            if found is not None:
                return idx.facts.path, found
            if s is None:
                break
            s = s.rpartition(".")[0] or None
        hit = self._through_import(idx, name)
        if hit is not None:
            tidx = self._file_index(hit[0])
            if tidx is not None:
                return self._client(tidx, hit[1], None, depth + 1)
        return None
