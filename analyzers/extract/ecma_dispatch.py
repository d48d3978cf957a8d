"""The query steps and the dispatch of their matches, for ``ecma.py``'s ``_Program``:
per grammar, the compiled queries and their pattern kinds (``_queries``; the
statement-level steps compiled on first use unless ``STATEMENT_QUERIES_EAGER``), every
match of the steps in dispatch order (``_dispatched``), and the two tables
``_Program._run`` dispatches a match's kind through: ``_COLLECTED``, the kinds gathered in
``_Matches`` for the steps after the dispatch, and ``_HANDLERS``, one small function per
kind handled at once. ``_Recorded`` is the module-level import table that logs what each
statement writes (for ``extract/incremental.py``).

``STATEMENT_QUERIES_EAGER`` is read here when a grammar's steps are compiled: set it on
this module (``server/engine/parsing.py`` does, in the parser processes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from tree_sitter import Node, Query, QueryCursor

from .. import languages
from ..model import ClassDef, Definition

if TYPE_CHECKING:
    from .ecma import _Program

# captures that are only a definition's name -> the definition's kind (enums read as variables)
_DEFINITION_KINDS = {"definition.function": "function", "definition.class": "class", "definition.enum": "variable"}

# Match kinds: the first of these capture names a match has (the last, "export", when none).
_KINDS = (
    "call",
    "scope",
    "local.name",
    "local.pattern",
    "return.value",
    "assigned",
    "function",
    "function.default",
    "method",
    "definition.variable",
    "definition.function",
    "definition.class",
    "definition.enum",
    "import.source",
    "require.source",
    "dynamic.source",
    "glob.source",
    "guard",
    "commonjs.any",
    "exports.open",
    "declared.module",
    "class",
    "commonjs",
    "client",
    "angular.name",
    "server.name",
    "mount",
    "enum.member",
    "this.field",
    "field.name",
)


def _kind(c: dict) -> str:
    for k in _KINDS:
        if k in c:
            return k
    return "export"


def _pattern_kinds(q: Query) -> list[str | None]:
    """Per pattern, its match kind when every match of the pattern has the same one (the
    deciding capture is not optional), else None (decided per match by ``_kind``)."""
    names = [q.capture_name(i) for i in range(q.capture_count)]
    out: list[str | None] = []
    for p in range(q.pattern_count):
        present: dict[str, str | None] = {}
        for i, name in enumerate(names):
            try:
                present[name] = q.capture_quantifier(p, i)
            except Exception:  # noqa: BLE001 - some bindings raise for "not in this pattern"
                continue
        kind: str | None = "export"
        for k in _KINDS:
            if k in present:
                kind = k if present[k] in ("", "+") else None  # "" is "exactly one"
                break
        out.append(kind)
    return out


_QUERIES: dict[str, "_Queries"] = {}
# whether a grammar's statement-level steps (an edit's: queries 0 and 2 of ``_queries``) are
# compiled with the others, on first use of the grammar (the server: its first keystroke
# would pay for them) or only when a statement is extracted (parser processes extract whole
# files only: the split ecma-top*.scm queries are ~0.35 s of their start-up)
STATEMENT_QUERIES_EAGER = True


class _Queries:
    """A grammar's query steps (see ``_queries``), indexed like a tuple; the
    statement-level ones (0 and 2) compiled on first use unless eager."""

    __slots__ = ("grammar", "items")

    def __init__(self, grammar: str) -> None:
        self.grammar = grammar
        extra = _extra_top(grammar)
        deep = languages.query(grammar, "ecma-deep.scm")
        deep_step = (deep, _pattern_kinds(deep), False, None)
        # the deep query with ecma-loading.scm's patterns added (one traversal either way)
        both = Query(languages.grammar(grammar),
                     languages.query_source("ecma-deep.scm") + "\n" + languages.query_source("ecma-loading.scm"))
        loading = (both, _pattern_kinds(both), False, None)
        top_src = languages.query_source("ecma-top.scm")
        tops = Query(languages.grammar(grammar), top_src + "\n" + languages.query_source(extra))
        # ecma-top.scm's patterns come first: as many as start within its text
        n = len(top_src.encode("utf-8"))
        split = sum(1 for i in range(tops.pattern_count) if tops.start_byte_for_pattern(i) < n)
        top = (tops, _pattern_kinds(tops), True, split)
        self.items: list = [None, languages.query(grammar, "ecma-members.scm"), None, (deep_step, top), (loading, top)]
        if STATEMENT_QUERIES_EAGER:
            self[0], self[2]

    def __getitem__(self, i: int):
        got = self.items[i]
        if got is None:
            steps = [self.items[3][0]]
            for name in ("ecma-top.scm", _extra_top(self.grammar)):
                q = languages.query(self.grammar, name)
                steps.append((q, _pattern_kinds(q), True, None))
            self.items[0] = tuple(steps)
            self.items[2] = (self.items[4][0], *steps[1:])
            got = self.items[i]
        return got


def _extra_top(grammar: str) -> str:
    return "ecma-top-javascript.scm" if grammar == "javascript" else "ecma-top-typescript.scm"


def _queries(grammar: str) -> _Queries:
    """((query, pattern kinds, module-level?, split) in dispatch order, members query, the
    same steps with ecma-loading.scm's patterns in the deep query, then both again for a
    whole tree: there the two module-level queries are one (one traversal of the top
    level instead of two), its matches dispatched as two queries' would be, those of the
    patterns before ``split`` (ecma-top.scm's) first) per grammar."""
    qs = _QUERIES.get(grammar)
    if qs is None:
        qs = _QUERIES[grammar] = _Queries(grammar)
    return qs


def _loads(src: bytes) -> bool:
    """Whether the text may have a fact of ecma-loading.scm (a require() call, import(),
    import.meta.glob(), a CommonJS export); text without one skips that query. (Five
    substring searches cost a third of one regular expression with the alternatives.)"""
    return (b"require" in src or b"exports" in src or b"import(" in src or b"import.meta" in src
            or b"import (" in src)


def _dispatched(steps: tuple, targets: list[Node], whole: bool):
    """``(query, kinds, module-level?, pattern index, captures)`` of every match, query by
    query in dispatch order, over the whole tree (``targets`` is ``[root]``) or over some
    top-level statements (in source order, module-level patterns rooted at each)."""
    for q, kinds, top, split in steps:
        for node in targets:
            cursor = QueryCursor(q)
            if top:
                # module-level patterns are rooted at children of `program`
                cursor.set_max_start_depth(1 if whole else 0)
            if split is None:
                for pi, c in cursor.matches(node):
                    yield q, kinds, top, pi, c
            else:  # two queries in one: the first one's matches, then the second one's
                later = []
                for pi, c in cursor.matches(node):
                    if pi < split:
                        yield q, kinds, top, pi, c
                    else:
                        later.append((pi, c))
                for pi, c in later:
                    yield q, kinds, top, pi, c


class _Recorded(dict):
    """A module-level table (``import_modules``) that logs each entry written, with the
    position of the match being dispatched (``at[0]``), when its program records
    contributions (no reference back to the program: extraction leaves no cycles)."""

    __slots__ = ("log", "at")

    def __setitem__(self, key, value) -> None:
        if self.log is not None:
            self.log.append((self.at[0], "import", (key, value)))
        super().__setitem__(key, value)


class _Matches:
    """What one run's matches collected, by kind, for the steps after the dispatch."""

    __slots__ = ("scopes", "names", "roots", "root_nodes", "top_vars", "locals_", "patterns", "assigned_nodes",
                 "this_fields", "class_fields", "returns", "exports", "commonjs", "clients", "angular", "calls",
                 "enums", "requires", "loads", "guards", "cjs_any", "mounts", "routers")

    def __init__(self) -> None:
        self.scopes: list[Node] = []
        self.names: dict[int, tuple[str, Node, Node]] = {}  # function node id -> (name, name node, node)
        self.roots: dict[int, str] = {}  # object node id -> qualified prefix
        self.root_nodes: list[Node] = []
        self.top_vars: list[tuple[Node, Node, bool]] = []
        self.locals_: list[tuple[Node, Node, bool]] = []
        self.patterns: list[tuple[Node, Node, bool]] = []  # `const { a, b: c, ...rest } = value` in functions
        self.assigned_nodes: list[Node] = []  # `x = ...` after x's declaration
        self.this_fields: list[dict] = []  # `this.x = value` in methods
        self.class_fields: list[dict] = []  # class fields with a value
        self.returns: list[Node] = []
        self.exports: list[dict] = []
        self.commonjs: list[dict] = []
        self.clients: list[dict] = []
        self.angular: list[dict] = []
        self.calls: list[dict] = []
        self.enums: list[dict] = []
        self.requires: list[dict] = []  # require() calls (and TypeScript's `import x = require()`)
        self.loads: list[tuple[str, Node]] = []  # import('m') / import.meta.glob('p'): (kind, specifier)
        self.guards: list[Node] = []  # try blocks
        self.cjs_any: list[Node] = []  # CommonJS export assignments anywhere
        self.mounts: list[dict] = []  # `X.use(...)` / `X.register(...)` / `X.route(...)`
        self.routers: list[tuple[Node, tuple]] = []  # routers bound inside functions: (name node, server info)


# kinds whose matches are only collected (kind -> the _Matches list), for the steps after the dispatch
_COLLECTED = {"call": "calls", "export": "exports", "require.source": "requires", "commonjs": "commonjs",
              "client": "clients", "angular.name": "angular", "enum.member": "enums", "this.field": "this_fields",
              "field.name": "class_fields", "mount": "mounts"}


def _on_scope(p: "_Program", m: _Matches, c: dict) -> None:
    m.scopes.append(c["scope"][0])


def _on_local(p: "_Program", m: _Matches, c: dict) -> None:
    kind = c.get("local.kind")
    m.locals_.append((c["local.name"][0], c["local.value"][0], bool(kind) and kind[0].type == "const"))


def _on_local_pattern(p: "_Program", m: _Matches, c: dict) -> None:
    kind = c.get("local.kind")
    m.patterns.append((c["local.pattern"][0], c["local.value"][0], bool(kind) and kind[0].type == "const"))


def _on_return(p: "_Program", m: _Matches, c: dict) -> None:
    m.returns.append(c["return.value"][0])


def _on_function(p: "_Program", m: _Matches, c: dict) -> None:
    fn = c["function"][0]
    if "function.name" in c:
        nn = c["function.name"][0]
        if fn.id not in m.names:
            m.names[fn.id] = (p.text(nn), nn, fn)
    elif "function.member" in c:
        nn = c["function.member"][0]
        segs = p.dotted(nn)
        if segs and fn.id not in m.names:
            m.names[fn.id] = (".".join(segs), nn, fn)


def _on_variable(p: "_Program", m: _Matches, c: dict) -> None:
    nn = c["definition.variable"][0]
    p.out.definitions.append(Definition(p.text(nn), "variable", p.span(nn)))
    value = c.get("definition.value")
    if value:
        kind = c.get("definition.kind")
        m.top_vars.append((nn, value[0], bool(kind) and kind[0].type == "const"))


def _definition(kind: str, what: str) -> Callable[["_Program", _Matches, dict], None]:
    def on(p: "_Program", m: _Matches, c: dict) -> None:
        nn = c[kind][0]
        p.out.definitions.append(Definition(p.text(nn), what, p.span(nn)))
    return on


def _on_import(p: "_Program", m: _Matches, c: dict) -> None:
    p.on_import(c)


def _on_method(p: "_Program", m: _Matches, c: dict) -> None:
    fn = c["method"][0]
    nn = c["method.name"][0]
    qual = f"{p.text(c['method.class'][0])}.{p.text(nn)}"
    if fn.id not in m.names:
        m.names[fn.id] = (qual, nn, fn)
    p.out.definitions.append(Definition(qual, "method", p.span(nn)))


def _on_class(p: "_Program", m: _Matches, c: dict) -> None:
    n = c["class"][0]
    cname = c["class.name"][0]
    p.classes.append((n.start_byte, n.end_byte, p.text(cname)))
    p.out.classes.append(ClassDef(p.text(cname), p.class_bases(n), p.span(cname)))


def _on_assigned(p: "_Program", m: _Matches, c: dict) -> None:
    name = p.text(c["assigned"][0])
    p.assigned.add(name)
    m.assigned_nodes.append(c["assigned"][0])
    if p.log is not None:
        p.log.append((p.at[0], "assigned", name))


def _on_default_function(p: "_Program", m: _Matches, c: dict) -> None:
    fn = c["function.default"][0]
    if fn.id not in m.names:
        m.names[fn.id] = ("default", fn, fn)


def _on_declared_module(p: "_Program", m: _Matches, c: dict) -> None:
    n = c["declared.module"][0]
    got = p.specifier(n)
    if got is not None:
        p.out.declared.append((p.base + n.start_byte, got[0]))


def _on_server(p: "_Program", m: _Matches, c: dict) -> None:
    """An app or router bound to a variable: a module-level one joins ``servers`` (the
    file's routers, a cross-statement table), one inside a function is its factory's
    (``local_routers``, once the functions are known)."""
    nn = c["server.name"][0]
    info = p.server_info(c)
    if _module_level(nn.parent):
        name = p.text(nn)
        p.servers[name] = info
        if p.log is not None:
            p.log.append((p.at[0], "server", (name, info)))
    else:
        m.routers.append((nn, info))


# kind -> its handler, for the kinds handled as they are dispatched
_HANDLERS: dict[str, Callable[["_Program", _Matches, dict], None]] = {
    "scope": _on_scope,
    "local.name": _on_local,
    "local.pattern": _on_local_pattern,
    "return.value": _on_return,
    "function": _on_function,
    "definition.variable": _on_variable,
    **{k: _definition(k, what) for k, what in _DEFINITION_KINDS.items()},
    "import.source": _on_import,
    "method": _on_method,
    "class": _on_class,
    "assigned": _on_assigned,
    "function.default": _on_default_function,
    "dynamic.source": lambda p, m, c: m.loads.append(("dynamic", c["dynamic.source"][0])),
    "glob.source": lambda p, m, c: m.loads.append(("glob", c["glob.source"][0])),
    "guard": lambda p, m, c: m.guards.append(c["guard"][0]),
    "commonjs.any": lambda p, m, c: m.cjs_any.append(c["commonjs.any"][0]),
    "exports.open": lambda p, m, c: p.out.opened.append((p.base + c["exports.open"][0].start_byte,)),
    "declared.module": _on_declared_module,
    "server.name": _on_server,
}


def _module_level(declarator: Node | None) -> bool:
    """Whether a variable declarator is a module-level statement's (or an exported one's)."""
    d = declarator.parent if declarator is not None else None
    up = d.parent if d is not None else None
    if up is not None and up.type == "export_statement":
        up = up.parent
    return up is not None and up.type == "program"
