"""Per-file facts from JavaScript, TypeScript and TSX source.

``extract_ecma(path, text, grammar)`` parses the text once and runs three queries once each:
``queries/ecma-deep.scm`` over the whole tree (calls, function-like nodes, locals, clients)
and ``queries/ecma-top.scm`` plus ``queries/ecma-top-javascript.scm`` or
``queries/ecma-top-typescript.scm`` limited to the children of ``program``
(``set_max_start_depth(1)``: imports, exports, definitions, classes, enums, Angular clients),
which costs almost nothing. The patterns of ``queries/ecma-loading.scm`` (``require()``,
``import()``, ``import.meta.glob()``, ``try`` blocks, CommonJS exports anywhere) are added to
the deep query (compiled once both ways) only when the text names ``require``, ``exports``,
``import.meta`` or has an ``import(``: their predicates would otherwise be evaluated on
calls and member assignments of every file. ``queries/ecma-members.scm`` (object-literal members) runs only on
the subtrees of module-level object literals (constants, ``export default {...}``,
``module.exports = {...}``). Matches are dispatched by pattern index (kinds computed once per
compiled query). The Python side only dispatches matches and evaluates expression nodes into
URL expressions / argument values (small recursive functions); no tree walks.

Vocabulary (the same in ``python.py``): ``_Program`` is one parsed program and its
``run``; ``_Program.expr`` evaluates an expression into a URL expression (None: not
string-like), ``template`` reads a string with substitutions (a template literal),
``value`` any expression into an argument value; ``_Scope`` is a function-like node whose
names expressions resolve in; ``urlexpr.merge`` joins the pieces. ``_run`` dispatches the
matches by pattern kind in an if-chain (hot kinds first): a table of handler methods with
the later phases split out measured 1-2 % slower over the benchmark workspace.

What the field checks read (issue 14) comes from three modules of its own: ``ecma_values.py``
(``ObjVal.keys``/``computed`` in ``obj``, ``JSON.stringify(x)`` and ``new URLSearchParams(x)``
as the value of ``x`` in ``value``), ``ecma_reads.py`` (``ReadsMixin``: ``CallSite.reads``,
computed in ``on_call`` for the call sites recorded only) and ``ecma_models.py``
(``ModelsMixin``: ``FileFacts.data_models``, with ``queries/ecma-models-*.scm``);
``ecma_nest.nest_body`` gives NestJS routes their ``body_model``.

The rest of ``_Program`` is split the same way: ``ecma_dispatch.py`` (the query steps,
``_queries``, and the dispatch tables ``_COLLECTED`` and ``_HANDLERS``), ``ecma_calls.py``
(``CallsMixin``: ``on_call``, the call sites, with ``on_super`` and ``rtk_base``),
``ecma_exprs.py`` (``ExprsMixin``: ``expr``, ``template``, ``value`` and the rest of the URL
expressions), ``ecma_clients.py`` (``ClientsMixin``: clients, typed and injected parameters,
class fields), ``ecma_modules.py`` (``ModulesMixin``: imports and exports), ``ecma_routes.py``
(``RoutesMixin``: Express, Fastify, Koa and Hono routes and mounts) and ``ecma_nest.py``
(``NestMixin``: NestJS controllers, modules and apps). This module keeps ``_Scope``,
``EcmaCollector`` and ``_Program`` itself: its helpers, scopes and ``run``/``_run``.

Spans are byte offsets into ``text.encode("utf-8")`` (plus ``base`` for the script blocks of
Vue/Svelte components, see ``extract/components.py``). The extractor never raises: on an
internal error it returns what it collected so far.

Decisions the brief left open (see also the tests):

* A call's ``scope`` and the parameters an ``Arg`` refers to are those of the innermost
  *named* function (a ``FunctionDef``); parameters of anonymous callbacks (or of an outer
  function, seen from a nested named one) become ``Param(name)`` inside a URL, and
  ``Unknown("value of x")`` when they are a whole argument.
* Function declarations and ``const f = () => ...`` nested in other functions keep their bare
  name (``load``), so that a call ``load(...)`` finds them.
* A local variable whose initializer is not string-like (``const url = buildUrl(id)``), or a
  reassigned ``let``, is ``Unknown("computed by buildUrl()")`` as a whole argument (a
  ``Param`` inside a template) rather than a ``Ref`` that could hit a same-named constant.
* ``a || 'x'`` / ``a ?? 'x'`` evaluates to ``a`` when ``a`` is string-like (``process.env.X ||
  'http://localhost'`` -> ``Env("X")``), else to the right side.
* Module constants include identifiers and member expressions (``const BASE = config.API`` ->
  ``Ref("config.API")``) so chains resolve; ``let``/``var`` are definitions but not constants.
* A call recognized as an Express/Fastify/Koa/Hono route registration is a ``Route``, and a
  ``use``/``register``/``route`` call on a recognized app or router a ``RouteMount`` (or
  nothing, for middleware), never a ``CallSite`` (backend declarations, not client calls).
  Router names, ``require:`` children, synthetic routers for prefixes that are not literals,
  paths that are not literals, and spans: see ``extract/ecma_routes.py`` (``RoutesMixin``,
  which ``_Program`` inherits); NestJS controllers and modules: ``extract/ecma_nest.py``
  (``NestMixin``). ``handler_span`` is resolved from the whole file's functions in
  ``EcmaCollector.facts`` (a handler is often defined in another statement), so each
  statement's facts still stand alone.
* ``module.exports = { a, b: c }`` exports ``default`` plus ``a`` and ``b`` (local ``c``); the
  object is also an object-literal root named ``default`` (constants ``default.X``, functions
  ``default.f``), like ``export default { ... }``.
* Imports (see ``model.Import``): ``const m = require('x')`` keeps ``name="default"``
  (existing tests and the linker read it so; for CommonJS it is ``module.exports``, and the
  import checks do not judge a required ``default``). ``require()`` is found anywhere,
  ``guarded`` inside a ``try`` block; re-exports are also imports (``local=""``).
* Exports: ``export const {a, b: c} = o`` / ``[x, y] = a`` export the bound names;
  ``export declare ...``, ``export namespace N`` / ``export module N``, overload signatures
  and ``export import A = N.x`` export their names; ``export = x`` is ``Export("=", "x")``;
  ``export as namespace X`` (a UMD global) is ``Export("X", "*")``. Names declared inside
  ``declare module 'x' { ... }`` are not the file's exports; the module names are
  ``FileFacts.declared_modules`` (wildcards as written).
* ``open_exports``: ``module.exports = <not an object literal>``, a CommonJS export
  assignment that is not a module-level statement (inside a function, a condition, chained),
  ``exports[...] = ``, ``Object.assign(module.exports | exports, ...)``,
  ``Object.defineProperty(exports, 'x', ...)`` (``__esModule`` aside) and a statement
  ``__exportStar(..., exports)``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from bisect import bisect_right

from tree_sitter import Node, QueryCursor

from .. import languages
from .ecma_dispatch import _COLLECTED, _HANDLERS, _Matches, _Recorded, _dispatched, _kind, _loads, _queries
from .ecma_exprs import _STRINGISH, ExprsMixin, unescape
from .ecma_calls import URL_KEYS, CallsMixin
from .ecma_clients import ClientsMixin
from .ecma_modules import ModulesMixin
from .ecma_reads import ReadsMixin
from .ecma_models import ModelsMixin
from .ecma_nest import NestMixin
from .ecma_routes import FUNCTION_NODES, RoutesMixin, unwrap, resolve_options, resolve_paths, with_handlers
from ..model import (SPREAD, Alt, Arg, ArgVal, Call, CallSite, ClassDef, ClientDef, DataModel, Definition, Env,
                     Export, FileFacts, Finding, FunctionDef, Import, Lit, ObjVal, Ref, Route, RouteMount, Span,
                     StrVal, Unknown, UrlExpr)

__all__ = ["extract_ecma", "EcmaCollector"]

_FUNCTION_NODES = FUNCTION_NODES
_IDENTS = frozenset(
    {"identifier", "property_identifier", "shorthand_property_identifier", "private_property_identifier"}
)
_SPACE = re.compile(r"\s+")
_IDENT_B = re.compile(rb"(?<![\w$'\"`])[A-Za-z_$][\w$]*(?![\w$]*['\"`])")
_PLAIN_DOTTED = re.compile(rb"[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*\Z")
_TYPE_ARGS = re.compile(r"<[^<>()]*>")
_CALL_ARGS = re.compile(r"\([^()]*\)")


class _Scope:
    """A function-like node: its parameters (lazily), local declarations, enclosing function
    and, when it is a ``FunctionDef``, its qualified name."""

    __slots__ = ("node", "id", "start", "end", "parent", "name", "named", "locals", "_params", "returns")

    def __init__(self, node: Node, start: int, end: int) -> None:
        self.node = node
        self.id = node.id
        self.start = start
        self.end = end
        self.parent: _Scope | None = None
        self.name: str | None = None
        self.named: _Scope | None = None  # innermost named function (self included)
        # name -> (initializer, const?, key): key None for `const x = v`, the field for
        # `const { key: x } = v`, ("...", keys taken) for `const { a, ...x } = v`
        self.locals: dict[str, tuple[Node, bool, object]] = {}
        self._params: dict[str, tuple[int, str | None]] | None = None
        self.returns: list[Node] = []  # expressions of its `return` statements


_NAMES = re.compile(r"[A-Za-z_$][\w$]*")


def first_angular(clients: list[ClientDef]) -> list[ClientDef]:
    """Angular clients (injected ``this.x`` of a class), the first of each (class, name)."""
    seen: set[tuple[str | None, str]] = set()
    out = []
    for cd in clients:
        key = (cd.scope, cd.name)
        if key not in seen:
            seen.add(key)
            out.append(cd)
    return out


def _start(n: Node) -> int:
    return n.start_byte


def _first_start(t: tuple) -> int:
    return t[0].start_byte


class EcmaCollector:
    """Collects facts from one or more parsed programs of one file (components have several
    script blocks). ``add(src, grammar, base)`` then ``facts(path, language)``."""

    def __init__(self) -> None:
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.definitions: list[Definition] = []
        self.functions: list[FunctionDef] = []
        self.constants: list[tuple[int, str, UrlExpr]] = []
        self.clients: list[ClientDef] = []
        self.calls: list[CallSite] = []
        self.routes: list[Route] = []
        self.mounts: list[RouteMount] = []
        # (position, path, prefix, prefix expression, own expression) of the routes whose path
        # is unresolved, for ``ecma_routes.resolve_paths`` (module-level constants may give it)
        self.route_exprs: list[tuple] = []
        # Fastify's ``register(plugin, opts)`` with ``opts`` a name: (position of the mount's
        # span, the name, the router's prefix here); module-level ``const`` object literals:
        # (position, name, their ``prefix``, why it is not known), for ``ecma_routes.resolve_options``
        self.option_refs: list[tuple] = []
        self.option_objects: list[tuple] = []
        self.classes: list[ClassDef] = []
        self.data_models: list[DataModel] = []  # module-level data classes (ecma_models)
        # (position, name) of `declare module 'x'`; (position,) of what makes the exports open
        self.declared: list[tuple[int, str]] = []
        self.opened: list[tuple[int]] = []
        self.failures: list[str] = []  # internal errors: what was collected before is kept

    def failed(self, exc: BaseException) -> None:
        """An internal error while collecting: the file gets a finding that says so."""
        if isinstance(exc, RecursionError):
            self.failures.append("the file is nested too deeply to analyze whole: some of its calls may be missing")
        else:
            self.failures.append("internal error while analyzing the file, some of its calls may be missing: "
                                 f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ result

    def facts(self, path: str, language: str) -> FileFacts:
        def by_span(items: list) -> tuple:
            return tuple(sorted(items, key=lambda x: x.span.start))

        return FileFacts(
            path=path,
            language=language,
            imports=by_span(self.imports),
            exports=by_span(self.exports),
            definitions=by_span(self.definitions),
            functions=by_span(self.functions),
            constants=tuple((n, e) for _, n, e in sorted(self.constants, key=lambda c: c[0])),
            clients=by_span(self.clients),
            calls=by_span(self.calls),
            routes=with_handlers(resolve_paths(by_span(self.routes), self.route_exprs, self.constants),
                                 self.functions, self.definitions),
            mounts=resolve_options(by_span(self.mounts), self.option_refs, self.option_objects),
            classes=by_span(self.classes),
            data_models=by_span(self.data_models),
            open_exports=bool(self.opened),
            declared_modules=tuple(dict.fromkeys(n for _, n in sorted(self.declared))),
            problems=tuple(Finding("file-skipped", "information", m, path, Span(0, 0)) for m in self.failures),
        )

    # ------------------------------------------------------------------ one program

    def add(self, src: bytes, grammar: str, base: int = 0, key: str | None = None, tree=None) -> None:
        """Parse ``src`` with ``grammar`` (unless ``tree`` is its tree) and collect its
        facts, spans shifted by ``base``. ``key`` (the path) lets the parser re-parse
        incrementally from the last tree."""
        _Program(self, src, grammar, base, key, tree).run()


class _Program(CallsMixin, ExprsMixin, ClientsMixin, ModulesMixin, RoutesMixin, NestMixin, ReadsMixin, ModelsMixin):
    """One parsed program: dispatches the query matches, then turns them into facts.

    Cross-statement tables: facts of one top-level statement depend on the others only
    through ``import_modules``, ``assigned`` (read for locals that are not ``const``),
    ``servers`` (written while dispatching) and the clients in ``out.clients`` when one is
    looked up by name (``make_client``); ``angular`` clients are deduplicated across the
    file. ``extract/incremental.py`` relies on this list: a table
    read across statements that is not in it breaks incremental extraction (its tests
    compare it with a full extraction). With ``log`` set, dispatching records each
    statement's contributions to the tables as ``(position, kind, value)``.

    ``tree``: an already parsed tree (else parsed here, incrementally by ``key``);
    ``nodes``: dispatch only these top-level statements instead of the whole tree;
    ``context``: ``(import_modules, assigned, servers)`` of the whole file, replacing what
    dispatching ``nodes`` found (they are only part of the file)."""

    def __init__(self, out: EcmaCollector, src: bytes, grammar: str, base: int, key: str | None = None,
                 tree=None, nodes: list[Node] | None = None, context: tuple | None = None,
                 log: list | None = None) -> None:
        self.out = out
        self.key = key
        self.src = src
        self.grammar = grammar
        self.base = base
        self.tree = tree
        self.nodes = nodes
        self.context = context
        self.log = log
        self.at = [0]  # start of the match being dispatched (for ``log``)
        self.angular: list[ClientDef] = []  # before deduplication
        # module-level apps and routers: name -> (kind, own prefix, the node holding its routes
        # when that prefix is not a literal, else None); see ``server_info``
        self.servers: dict[str, tuple] = {}
        self.local_routers: dict[tuple[int, str], tuple] = {}  # (function id, name) -> as servers
        self.claimed: set[int] = set()  # calls that are route declarations or mounts, not calls
        self.plugins: dict[int, tuple | None] = {}  # function id -> what ``plugin`` found
        self._backend: list = []  # the framework the file's imports name (computed once)
        self.fns: list[_Scope] = []
        self.fn_starts: list[int] = []
        self.fn_by_id: dict[int, _Scope] = {}
        self.assigned: set[str] = set()
        self.import_modules: dict[str, str] = _Recorded()
        self.import_modules.log, self.import_modules.at = log, self.at
        self.classes: list[tuple[int, int, str]] = []
        # (function node, parameter name, type as written, injected?) of parameters typed as
        # a client, or injected into a constructor (`private readonly api: ApiService`)
        self.typed: list[tuple[Node, str, str, bool]] = []
        self.ctor_fields: dict[str, list[tuple[str, int]]] = {}  # class -> (field, constructor parameter)
        self.super_args: dict[str, tuple[ArgVal, ...]] = {}  # class -> what its constructor passes to super()
        # names (bytes) an identifier argument must have to possibly evaluate to an Arg or an
        # inlined local: parameters of named functions and locals of any function
        self.maybe: set[bytes] = set()
        # values of locals' initializers and of functions' returns, per (node, scope): a local
        # used many times is evaluated once
        self.values: dict[tuple, ArgVal | None] = {}

    # ------------------------------------------------------------------ helpers

    def text(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def span(self, n: Node) -> Span:
        return Span(self.base + n.start_byte, self.base + n.end_byte)

    def string_value(self, n: Node) -> str:
        raw = self.text(n)
        if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
            raw = raw[1:-1]
        else:
            raw = raw.strip("'\"")
        return unescape(raw)

    def specifier(self, n: Node) -> tuple[str, Span] | None:
        """A module specifier's value and the span of its content (quotes excluded); None for
        a template with substitutions (not a literal)."""
        s, e = n.start_byte, n.end_byte
        src = self.src
        if n.type == "template_string":
            for ch in n.named_children:
                if ch.type == "template_substitution":
                    return None
        if e - s >= 2 and src[e - 1] == src[s]:
            e -= 1
        s += 1
        if e < s:
            e = s
        return unescape(src[s:e].decode("utf-8", "replace")), Span(self.base + s, self.base + e)

    def key_text(self, n: Node) -> str | None:
        t = n.type
        if t == "string":
            return self.string_value(n)
        if t == "computed_property_name":
            return None
        return self.text(n)

    def dotted(self, n: Node) -> list[str] | None:
        """``a.b?.c`` / ``this.x`` / ``import.meta.env.X`` / ``process.env['X']`` as segments."""
        t = n.type
        if t == "member_expression" or t == "identifier":
            raw = self.src[n.start_byte : n.end_byte]
            if _PLAIN_DOTTED.match(raw):  # fast path: no spaces, comments, ?. or brackets
                return raw.decode("ascii").split(".")
        segs: list[str] = []
        while True:
            t = n.type
            if t == "member_expression":
                prop = n.child_by_field_name("property")
                obj = n.child_by_field_name("object")
                if prop is None or obj is None:
                    return None
                segs.append(self.text(prop))
                n = obj
            elif t == "subscript_expression":
                idx = n.child_by_field_name("index")
                obj = n.child_by_field_name("object")
                if idx is None or obj is None or idx.type != "string":
                    return None
                segs.append(self.string_value(idx))
                n = obj
            elif t in ("identifier", "this", "super", "property_identifier"):
                segs.append(self.text(n))
                break
            elif t == "meta_property":
                segs.extend(("meta", "import"))
                break
            elif t == "non_null_expression" or t == "parenthesized_expression":
                inner = n.named_child(0)
                if inner is None:
                    return None
                n = inner
            else:
                return None
        segs.reverse()
        return segs

    def callee_text(self, fn: Node) -> str:
        segs = self.dotted(fn)
        if segs is not None:
            return ".".join(segs)
        txt = self.text(fn)
        new = txt.startswith("new ")
        txt = _SPACE.sub("", txt).replace("?.", ".")
        for _ in range(4):
            reduced = _CALL_ARGS.sub("()", _TYPE_ARGS.sub("", txt))
            if reduced == txt:
                break
            txt = reduced
        txt = txt.replace("()()", "()")
        if new:
            txt = "new " + txt[3:]
        return txt

    def subst_name(self, n: Node | None) -> str:
        """Readable placeholder name of a computed template piece: its last identifier."""
        if n is None:
            return "param"
        if n.type == "arguments":  # a call's arguments: the last name written in them
            names = _IDENT_B.findall(self.src[n.start_byte : n.end_byte])
            return names[-1].decode("utf-8", "replace") if names else "param"
        names = [self.text(x) for x in _descendant_idents(n)]
        return names[-1] if names else "param"

    # ------------------------------------------------------------------ scopes

    def locate(self, n: Node) -> _Scope | None:
        """Innermost function-like node containing ``n`` (None at module level)."""
        i = bisect_right(self.fn_starts, n.start_byte) - 1
        if i < 0:
            return None
        r: _Scope | None = self.fns[i]
        s, e, nid = n.start_byte, n.end_byte, n.id
        while r is not None and not (r.start <= s and e <= r.end and r.id != nid):
            r = r.parent
        return r

    def params(self, f: _Scope) -> dict[str, tuple[int, str | None]]:
        p = f._params
        if p is None:
            p = {}
            for index, (_, binds) in enumerate(self.param_list(f.node)):
                for name, fld in binds:
                    p.setdefault(name, (index, fld))
            f._params = p
        return p

    def param_list(self, fn: Node) -> list[tuple[str, list[tuple[str, str | None]]]]:
        """[(label, [(bound name, destructured key or None)])] for each positional parameter."""
        ps = fn.child_by_field_name("parameters")
        if ps is None:
            one = fn.child_by_field_name("parameter")
            nodes = [one] if one is not None else []
        else:
            nodes = ps.named_children
        out = []
        for n in nodes:
            info = self.param_info(n)
            if info is not None:
                out.append(info)
        return out

    def pattern_binds(self, pat: Node) -> tuple[list[tuple[str, object]], list[str]]:
        """The bindings of an object pattern, (bound name, key): the key destructured, or
        ("...", keys taken) for a rest element; and its keys as a parameter label shows them
        (``{method,path,...rest}``)."""
        out: list[tuple[str, object]] = []
        keys: list[str] = []
        for c in pat.named_children:
            ct = c.type
            if ct == "shorthand_property_identifier_pattern":
                k = self.text(c)
                keys.append(k)
                out.append((k, k))
            elif ct == "object_assignment_pattern":
                left = c.child_by_field_name("left")
                if left is not None:
                    k = self.text(left)
                    keys.append(k)
                    out.append((k, k))
            elif ct == "pair_pattern":
                key = c.child_by_field_name("key")
                val = c.child_by_field_name("value")
                k = self.key_text(key) if key is not None else None
                if k is None:
                    continue
                keys.append(k)
                if val is not None and val.type == "assignment_pattern":
                    val = val.child_by_field_name("left")
                if val is not None and val.type == "identifier":
                    out.append((self.text(val), k))
            elif ct == "rest_pattern":
                inner = c.named_child(0)
                if inner is not None:
                    name = self.text(inner)
                    out.append((name, (SPREAD, tuple(keys))))
                    keys.append("..." + name)
        return out, keys

    def param_info(self, n: Node) -> tuple[str, list[tuple[str, str | None]]] | None:
        t = n.type
        if t in ("required_parameter", "optional_parameter"):
            pat = n.child_by_field_name("pattern")
            if pat is None:
                return None
            return self.param_info(pat)
        if t == "assignment_pattern":
            left = n.child_by_field_name("left")
            return self.param_info(left) if left is not None else None
        if t == "identifier":
            name = self.text(n)
            return name, [(name, None)]
        if t == "rest_pattern":
            inner = n.named_child(0)
            if inner is not None and inner.type == "identifier":
                name = self.text(inner)
                return "..." + name, [(name, None)]
            return "..." + _SPACE.sub("", self.text(n)[3:]), []
        if t == "object_pattern":
            bound, keys = self.pattern_binds(n)
            # a rest element is the whole parameter (its field is None)
            binds = [(name, k if isinstance(k, str) else None) for name, k in bound]
            return "{" + ",".join(keys) + "}", binds
        if t in ("this", "comment", "decorator"):
            return None
        return _SPACE.sub("", self.text(n)), []

    # ------------------------------------------------------------------ main

    def run(self) -> None:
        try:
            self._run()
        finally:
            for f in self.fns:  # `named` can be the function itself: no cycle outlives the run
                f.named = None

    def _run(self) -> None:
        out = self.out
        g = self.grammar
        src = self.src
        base = self.base
        tree = self.tree if self.tree is not None else languages.parse(g, src, self.key)
        root = tree.root_node
        qs = _queries(g)
        targets = [root] if self.nodes is None else self.nodes
        log = self.log
        at = self.at

        m = _Matches()
        servers = self.servers

        def text(n: Node) -> str:
            return src[n.start_byte : n.end_byte].decode("utf-8", "replace")

        def span(n: Node) -> Span:
            return Span(base + n.start_byte, base + n.end_byte)

        # ---- dispatch the matches: deep query first, then the module-level ones (the order
        # decides which name a function node keeps and the order of equal-span facts). A
        # kind is either collected for the steps below (_COLLECTED) or handled at once
        # (_HANDLERS: one small method per kind)
        whole = self.nodes is None
        steps = qs[(4 if whole else 2) if _loads(src) else (3 if whole else 0)]
        sinks = {k: getattr(m, name).append for k, name in _COLLECTED.items()}
        for q, kinds, top, pi, c in _dispatched(steps, targets, whole):
            k = kinds[pi] or _kind(c)
            if log is not None:  # any capture is inside the statement the match belongs to
                at[0] = next(iter(c.values()))[0].start_byte
            add = sinks.get(k)
            if add is not None:
                add(c)
            else:
                handle = _HANDLERS.get(k)
                if handle is not None:
                    handle(self, m, c)
        scopes, names, roots, root_nodes = m.scopes, m.names, m.roots, m.root_nodes
        top_vars, locals_, patterns, assigned_nodes = m.top_vars, m.locals_, m.patterns, m.assigned_nodes
        this_fields, class_fields, returns, exports = m.this_fields, m.class_fields, m.returns, m.exports
        commonjs, clients, angular, calls, enums = m.commonjs, m.clients, m.angular, m.calls, m.enums
        requires, loads, guards, cjs_any = m.requires, m.loads, m.guards, m.cjs_any

        if log is not None:  # names `assigned` matters for: locals that are not const
            for nn, _, is_const in locals_:
                if not is_const:
                    log.append((nn.start_byte, "let", text(nn)))
            for pat, _, is_const in patterns:
                if not is_const:
                    for name in _NAMES.findall(text(pat)):
                        log.append((pat.start_byte, "let", name))

        # ---- module loading outside import statements (a try block guards it)
        if requires or loads:
            self.on_loads(requires, loads, [(g.start_byte, g.end_byte) for g in guards])
        if cjs_any:  # CommonJS exports assigned where the module-level patterns do not see them
            top = {c["commonjs"][0].id for c in commonjs}
            for n in cjs_any:
                if n.id not in top:
                    out.opened.append((base + n.start_byte,))

        if self.context is not None:  # only some statements were dispatched: the file's tables
            modules, all_assigned, all_servers = self.context
            self.import_modules = dict(modules)
            self.assigned = set(all_assigned)
            servers = self.servers = dict(all_servers)

        # ---- function-like nodes: nesting, names (pre-order: sorted by start, outer first)
        if scopes:
            keyed = [(n.start_byte, -n.end_byte, i) for i, n in enumerate(scopes)]
            keyed.sort()
            stack: list[_Scope] = []
            fns = self.fns
            fn_by_id = self.fn_by_id
            for s, e, i in keyed:
                n = scopes[i]
                f = _Scope(n, s, -e)
                while stack and stack[-1].end <= s:
                    stack.pop()
                f.parent = stack[-1] if stack else None
                named = names.get(f.id)
                if named is not None:
                    f.name = named[0]
                stack.append(f)
                fns.append(f)
                fn_by_id[f.id] = f
            self.fn_starts = [s for s, _, _ in keyed]

        # ---- object-literal roots: module-level const objects, export default / module.exports objects
        for nn, value, _ in top_vars:
            value = _unwrap(value)
            if value.type == "object":
                roots[value.id] = text(nn)
                root_nodes.append(value)
        for c in exports:
            v = c.get("export.value")
            if v:
                v = _unwrap(v[0])
                if v.type == "object":
                    roots[v.id] = "default"
                    root_nodes.append(v)
        for c in commonjs:
            v = c.get("commonjs.default")
            if v:
                v = _unwrap(v[0])
                if v.type == "object":
                    roots[v.id] = "default"
                    root_nodes.append(v)
        member_constants: list[tuple[Node, str, Node]] = []
        if roots:
            # members of the roots and of objects nested in them, in source order (a nested
            # object becomes a root before its own members are seen); roots do not overlap
            root_nodes.sort(key=_start)
            member_q = qs[1]
            seen_roots: set[int] = set()
            for rn in root_nodes:
                if rn.id in seen_roots:
                    continue
                seen_roots.add(rn.id)
                cursor = QueryCursor(member_q)
                cursor.set_byte_range(rn.start_byte, rn.end_byte)
                members = [
                    (c["member.key"][0], c["member.object"][0], c["member.value"][0])
                    for _, c in cursor.matches(rn)
                ]
                members.sort(key=_first_start)
                for key, objn, value in members:
                    prefix = roots.get(objn.id)
                    if prefix is None:
                        continue
                    k = self.key_text(key)
                    if k is None:
                        continue
                    qual = f"{prefix}.{k}"
                    inner = _unwrap(value)
                    vt = inner.type
                    if vt == "object":
                        roots[inner.id] = qual
                    elif vt in _FUNCTION_NODES:
                        if inner.id not in names:
                            names[inner.id] = (qual, key, inner)
                            f = self.fn_by_id.get(inner.id)
                            if f is not None:
                                f.name = qual
                    elif vt in _STRINGISH:
                        member_constants.append((key, qual, inner))

        for f in self.fns:
            p = f.parent
            f.named = f if f.name is not None else (p.named if p is not None else None)

        # ---- locals (declarations inside functions)
        maybe = self.maybe
        if (locals_ or patterns or returns) and self.fns:
            locate = self.locate
            for nn, value, is_const in locals_:
                f = locate(nn)
                if f is not None:
                    raw = src[nn.start_byte : nn.end_byte]
                    loc = f.locals
                    name = raw.decode("utf-8", "replace")
                    if name not in loc:
                        loc[name] = (value, is_const, None)
                    maybe.add(raw)
            for pat, value, is_const in patterns:
                f = locate(pat)
                if f is not None:
                    loc = f.locals
                    for name, key in self.pattern_binds(pat)[0]:
                        if name not in loc:
                            loc[name] = (value, is_const, key)
                        maybe.add(name.encode("utf-8"))
            for node in returns:
                f = locate(node)
                if f is not None:
                    f.returns.append(node)

        # ---- functions (their parameters are what call arguments can refer to as Arg)
        functions = out.functions
        fn_by_id = self.fn_by_id
        param_list = self.param_list
        plists = []
        for name, nn, fn in names.values():
            plist = param_list(fn)
            plists.append(plist)
            f = fn_by_id.get(fn.id)
            if f is not None and f._params is None:
                f._params = p = {}
                for index, (_, binds) in enumerate(plist):
                    for bound, fld in binds:
                        if bound not in p:
                            p[bound] = (index, fld)
                        maybe.add(bound.encode("utf-8"))
        for (name, nn, fn), plist in zip(names.values(), plists):
            self.find_typed(fn, name)
            returned = self.returned(fn, 0) if fn.id in fn_by_id and self.may_build(fn) else None
            functions.append(
                FunctionDef(name, tuple([lbl for lbl, _ in plist]), span(fn), span(nn), _builder(returned))
            )

        # ---- constants
        for nn, value, is_const in top_vars:
            if is_const and value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None:
                    out.constants.append((base + nn.start_byte, text(nn), r))
            elif is_const and nn.type == "identifier" and _unwrap(value).type == "object":
                lit, why, _ = self.register_prefix(value)  # what it says as Fastify's register options
                out.option_objects.append((base + nn.start_byte, text(nn), lit, why))
        for key, qual, value in member_constants:
            r = self.expr(value, None, None)
            if r is not None:
                out.constants.append((base + key.start_byte, qual, r))
        for c in enums:
            value = c["enum.value"][0]
            if value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None:
                    member = c["enum.member"][0]
                    qual = f"{text(c['enum.name'][0])}.{self.key_text(member)}"
                    out.constants.append((base + member.start_byte, qual, r))

        # ---- exports
        for c in exports:
            self.on_export(c, names)
        for c in commonjs:
            self.on_commonjs(c)

        # ---- clients
        for c in clients:
            self.on_client(c)
        for c in angular:
            nn = c["angular.name"][0]
            self.angular.append(ClientDef(f"this.{text(nn)}", "angular", None, span(nn), text(c["angular.class"][0])))
        out.clients.extend(first_angular(self.angular))

        # ---- backend routers: factory-level bindings, mounts, route chains, then calls and routes
        for nn, info in m.routers:
            f = self.locate(nn)
            if f is not None:
                self.local_routers.setdefault((f.id, text(nn)), info)
        self.nest(targets)  # NestJS controllers, modules and apps (ecma_nest.py)
        self.on_models(targets, self.nodes is None)  # data classes and interfaces (ecma_models.py)
        for c in m.mounts:
            self.on_mount(c)
        claimed = self.claimed
        on_call = self.on_call
        for c in calls:
            if claimed and c["call"][0].id in claimed:
                continue
            on_call(c, servers)

        # ---- classes: fields, `this` fields, typed and injected parameters, client bindings
        if class_fields or this_fields:
            self.on_class_fields(class_fields, this_fields)
        # variables and `this` fields bound to a call or `new` (`const api = makeClient()`,
        # `client = createApiClient({ baseUrl })`, `this.api = new ApiService()`)
        bindings = [(nn, value) for nn, value, _ in top_vars] + [(nn, value) for nn, value, _ in locals_]
        bindings += [(nn, nn.parent.child_by_field_name("right")) for nn in assigned_nodes if nn.parent is not None]
        bindings += [(c["this.field"][0], c["this.value"][0]) for c in this_fields]
        self.on_binds(bindings)
        if self.typed:
            self.on_typed()
        self.returned_clients(names)
        if self.ctor_fields or self.super_args:
            out.classes[:] = [replace(c, fields=tuple(self.ctor_fields.get(c.name, ())),
                                      super_args=self.super_args.get(c.name, ())) for c in out.classes]


def _builder(v: ArgVal | None) -> ArgVal | None:
    """A function's return value, kept when a caller may follow it: a string built from
    parameters, constants or the environment (a URL builder), or an object with a URL."""
    if v is None:
        return None
    if type(v) is StrVal:
        expr = v.expr  # type: ignore[union-attr]
        if all(type(p) in (Call, Unknown) for p in expr):
            return None  # `return res.json()`: a call's result, not a URL built here
        return v if _url_parts(expr) else None
    if type(v) is ObjVal:
        return v if any(k in URL_KEYS or type(x) is ObjVal for k, x in v.fields) else None  # type: ignore[union-attr]
    return None


def _url_parts(expr: UrlExpr) -> bool:
    for p in expr:
        t = type(p)
        if t is Arg or t is Env or t is Ref or t is Call:
            return True
        if t is Lit and "/" in p.text:  # type: ignore[union-attr]
            return True
        if t is Alt:
            return True
    return False


_unwrap = unwrap  # (ecma_routes.unwrap: parentheses, `as`, `!`, `satisfies` and the like)


def _descendant_idents(n: Node) -> list[Node]:
    """Identifier-like nodes under ``n`` in source order (small template pieces only)."""
    if n.type in _IDENTS:
        return [n]
    found: list[Node] = []
    for ch in n.named_children:
        found.extend(_descendant_idents(ch))
    return found


def extract_ecma(path: str, text: str, grammar: str, tree=None) -> FileFacts:
    """Facts of a JavaScript / TypeScript / TSX file (``grammar`` is ``javascript``,
    ``typescript`` or ``tsx``; ``tree``: the text's tree when parsed already). On an
    internal error, returns what it has and a ``file-skipped`` finding saying so."""
    out = EcmaCollector()
    try:
        out.add(text.encode("utf-8"), grammar, 0, key=path, tree=tree)
    except Exception as exc:  # noqa: BLE001 - extraction must never take the server down
        out.failed(exc)
    return out.facts(path, grammar)
