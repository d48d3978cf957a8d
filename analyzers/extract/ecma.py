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
``ecma_routes.nest_body`` gives NestJS routes their ``body_model``.

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
  paths that are not literals, NestJS controllers and modules, and spans: see
  ``extract/ecma_routes.py`` (``RoutesMixin``, which ``_Program`` inherits). ``handler_span`` is resolved
  from the whole file's functions in ``EcmaCollector.facts`` (a handler is often defined in
  another statement), so each statement's facts still stand alone.
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
from typing import Callable

from tree_sitter import Node, Query, QueryCursor

from .. import languages
from .names import BASE_FIELD
from .urlexpr import merge
from .ecma_values import SEARCH_PARAMS, STRINGIFY, literal_key, passes_through
from .ecma_reads import ReadsMixin
from .ecma_models import ModelsMixin
from .ecma_routes import (FUNCTION_NODES, ROUTE_METHODS_B, WRAPPERS, RoutesMixin, unwrap, resolve_options, resolve_paths,
                          with_handlers)
from ..model import (
    SPREAD,
    Alt,
    Arg,
    ArgVal,
    Call,
    CallSite,
    ClassDef,
    ClientDef,
    DataModel,
    Definition,
    Env,
    Export,
    FileFacts,
    Finding,
    FnVal,
    FunctionDef,
    Import,
    Key,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Part,
    Ref,
    Route,
    RouteMount,
    Span,
    StrVal,
    Unknown,
    UrlExpr,
)

__all__ = ["extract_ecma", "EcmaCollector"]

# Last callee segments that make a call an HTTP call candidate by themselves.
VERBS = frozenset({"get", "post", "put", "patch", "delete", "del", "head", "options", "request"})
ENTRY_POINTS = frozenset(
    {
        "fetch",
        "axios",
        "ky",
        "ofetch",
        "$fetch",
        "superagent",
        "request",
        "useSWR",
        "useSWRImmutable",
        "useSWRMutation",
        "useRequest",
        "useFetch",
    }
)
# Callees never recorded by the argument rules (module loading, not HTTP).
NOT_CALLS = frozenset({"require", "import", "require.resolve"})
# Object keys that make an object-literal argument URL-bearing.
URL_KEYS = frozenset({"url", "path", "baseURL"})
# Keys of a client factory's options holding the base URL.
BASE_KEYS = ("baseURL", "baseUrl", "prefixUrl", "prefixURL", "basePath", "base_url")
# Type names of client instances (typed parameters and fields).
CLIENT_TYPES = {"HttpClient": "angular", "AxiosInstance": "axios", "AxiosStatic": "axios", "KyInstance": "ky",
                "$Fetch": "ofetch"}
# A binding to a call is recorded as a possible client when the callee or the name says so.
_CLIENTISH = re.compile(r"client|api|http|service|sdk|request|fetcher|instance|transport|backend|rest", re.I)
_CLIENTISH_B = re.compile(_CLIENTISH.pattern.encode(), re.I)
_NOT_FACTORIES = frozenset({"fetch", "require", "axios", "axios.get", "axios.post", "fetchJson", "useState",
                            "useRef", "useContext", "ref", "reactive", "inject"})
_BUILTIN_CLASSES = frozenset({"Date", "Map", "Set", "WeakMap", "WeakSet", "Error", "TypeError", "URL",
                              "URLSearchParams", "FormData", "Headers", "Request", "Response", "Promise",
                              "RegExp", "Array", "Object", "AbortController", "Blob", "File", "Event",
                              "CustomEvent", "Proxy", "Intl.DateTimeFormat", "Intl.NumberFormat", "TextEncoder",
                              "TextDecoder", "EventSource", "WebSocket", "Worker", "Image", "Uint8Array",
                              "ArrayBuffer", "DataView", "Subject", "BehaviorSubject", "Observable",
                              "HttpParams", "HttpHeaders", "EventEmitter", "FileReader", "XMLHttpRequest"})
# Module (as imported) or global name -> client kind, for X.create()/X.extend().
CLIENT_MODULES = {
    "axios": "axios",
    "redaxios": "axios",
    "ky": "ky",
    "ky-universal": "ky",
    "ofetch": "ofetch",
    "ohmyfetch": "ofetch",
}
CLIENT_GLOBALS = {"axios": "axios", "ky": "ky", "ofetch": "ofetch", "$fetch": "ofetch"}

# captures that are only a definition's name -> the definition's kind (enums read as variables)
_DEFINITION_KINDS = {"definition.function": "function", "definition.class": "class", "definition.enum": "variable"}
_HIT = frozenset(x.encode() for x in VERBS | ENTRY_POINTS) | frozenset(
    x.upper().encode() for x in VERBS)  # openapi-fetch: client.GET('/x')
_NOT_CALLS_B = frozenset(x.encode() for x in NOT_CALLS)

_FUNCTION_NODES = FUNCTION_NODES
_WRAPPERS = WRAPPERS
# Expression types evaluated as string-like values.
_STRINGISH = frozenset(
    {
        "string",
        "template_string",
        "binary_expression",
        "identifier",
        "member_expression",
        "subscript_expression",
        "ternary_expression",
    }
) | _WRAPPERS
# What a URL builder's return expression may be.
_BUILDS = _STRINGISH | {"object"}
# Branches of a conditional that send no request (SWR's `cond ? key : null`).
_NO_REQUEST = frozenset({"null", "undefined", "false"})
# Calls that only encode a dynamic value: a path parameter, not a URL builder.
_ENCODERS = frozenset({"encodeURIComponent", "encodeURI", "String", "escape", "Number", "parseInt"})
# String methods whose result keeps the receiver's path: `'/t/{id}'.replace('{id}', id)`.
_KEEPS_PATH = frozenset({"replace", "replaceAll", "toString", "trim", "valueOf", "toLowerCase", "normalize"})
# Calls whose result is never a URL built from their arguments (responses, collections,
# numbers, serialisation, logging, React state): not followed as URL builders.
_NOT_BUILDERS = frozenset({
    "fetch", "json", "text", "blob", "then", "catch", "finally", "map", "filter", "reduce", "find", "some",
    "every", "forEach", "push", "pop", "shift", "splice", "slice", "sort", "concat", "includes", "indexOf",
    "keys", "values", "entries", "assign", "stringify", "parse", "log", "error", "warn", "info", "debug",
    "useState", "useEffect", "useRef", "useContext", "useReducer", "useQuery", "useMutation", "useSelector",
    "useDispatch", "dispatch", "setTimeout", "setInterval", "require", "toFixed", "floor", "ceil", "round",
    "max", "min", "abs", "now", "random", "getTime", "toISOString", "split", "length", "from", "isArray",
    "all", "race", "resolve", "reject", "freeze", "arrayBuffer", "formData", "post", "put", "patch", "delete",
    "request", "head", "options",
})
_NOT_BUILDER_OWNERS = frozenset({"JSON", "Math", "Object", "Array", "Promise", "console", "Number", "Date",
                                 "axios", "Reflect", "Symbol", "window", "document", "localStorage"})
# React/Vue memo helpers: their value is what the callback returns.
_MEMOS = frozenset({"useMemo", "React.useMemo", "computed", "useComputed"})
MAX_ALTERNATIVES = 8
# Whole-argument expressions whose value is a URL we cannot see: Unknown(reason).
_COMPUTED = frozenset(
    {"call_expression", "ternary_expression", "await_expression", "new_expression"}
)
_IDENTS = frozenset(
    {"identifier", "property_identifier", "shorthand_property_identifier", "private_property_identifier"}
)

_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|.)", re.S)
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\n": "",
    "\r\n": "",
    "\r": "",
    "\u2028": "",
    "\u2029": "",
}
_SPACE = re.compile(r"\s+")
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
# names of constants that hold a path or a URL (decided on the name alone, so that each
# statement's facts stay independent of the others')
_URLISH_NAME = re.compile(rb"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$|[Pp]ath|[Uu]rl|URL|[Uu]ri\b|[Rr]oute|[Ee]ndpoint")
_IDENT_B = re.compile(rb"(?<![\w$'\"`])[A-Za-z_$][\w$]*(?![\w$]*['\"`])")
_PLAIN_DOTTED = re.compile(rb"[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*\Z")
_TYPE_ARGS = re.compile(r"<[^<>()]*>")
_CALL_ARGS = re.compile(r"\([^()]*\)")


def _unescape_one(m: re.Match[str]) -> str:
    e = m.group(1)
    head = e[0]
    try:
        if head == "u":
            return chr(int(e[2:-1] if e[1] == "{" else e[1:], 16))
        if head == "x":
            return chr(int(e[1:], 16))
        if head in "01234567":
            return chr(int(e, 8))
    except (ValueError, OverflowError):
        return e
    return _SIMPLE_ESCAPES.get(e, e)


def unescape(s: str) -> str:
    """Decode JavaScript string escapes (``\\n``, ``\\u00e9``, ``\\u{1F600}``, ``\\x41``...)."""
    if "\\" not in s:
        return s
    out = _ESCAPE.sub(_unescape_one, s)
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:  # surrogate pairs written as two \u escapes
        out = out.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return out


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


_NAMES = re.compile(r"[A-Za-z_$][\w$]*")


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


class _Program(RoutesMixin, ReadsMixin, ModelsMixin):
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

    # ------------------------------------------------------------------ URL expressions

    def expr(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int = 0) -> UrlExpr | None:
        """A string-like expression as a URL expression, or None when it is not string-like."""
        t = n.type
        if t == "string":
            return (Lit(self.string_value(n)),)
        if t == "template_string":
            return self.template(n, rec, scope, depth)
        if t == "identifier" or t == "shorthand_property_identifier":
            return self.ident(self.src[n.start_byte : n.end_byte].decode("utf-8", "replace"), rec, scope, depth)
        if t == "member_expression" or t == "subscript_expression":
            return self.member(n, rec, scope)
        if t == "binary_expression":
            op = n.child_by_field_name("operator")
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if op is None or left is None or right is None:
                return None
            o = op.type
            if o == "+":
                parts: list[Part] = []
                stringy = False
                for side in (left, right):
                    if side.type == "number":
                        # `page + 1` is arithmetic unless the other side is a string literal
                        other = right if side is left else left
                        if other.type not in ("string", "template_string", "binary_expression"):
                            return None
                        parts.append(Lit(self.text(side)))
                        continue
                    r = self.expr(side, rec, scope, depth + 1) if side.type in _STRINGISH else None
                    if r is None and side.type == "call_expression":
                        c = self.call_expr(side, rec, scope, depth + 1)
                        if c is not None:
                            stringy = stringy or type(c[0]) is not Param
                            parts.extend(c)
                            continue
                    if r is None:
                        parts.append(Param(self.subst_name(side)))
                    else:
                        stringy = True
                        parts.extend(r)
                return merge(parts) if stringy else None
            if o == "||" or o == "??":
                r = self.expr(left, rec, scope, depth + 1) if left.type in _STRINGISH else None
                if r is None and left.type == "call_expression":
                    r = self.call_expr(left, rec, scope, depth + 1)
                if r is not None and len(r) == 1 and type(r[0]) in (Param, Unknown, Call) and right.type in _STRINGISH:
                    # `x ?? '/default'`, `${id ?? ''}`: either value
                    other = self.expr(right, rec, scope, depth + 1)
                    if other is not None:
                        return (Alt((r, other)),)
                if r is None and right.type in _STRINGISH:
                    r = self.expr(right, rec, scope, depth + 1)
                return r
            return None
        if t == "new_expression":
            return self.new_url(n, rec, scope, depth)
        if t == "ternary_expression":
            options: list[UrlExpr] = []
            for side in (n.child_by_field_name("consequence"), n.child_by_field_name("alternative")):
                if side is None:
                    return None
                inner = _unwrap(side)
                if inner.type in _NO_REQUEST or (inner.type == "identifier" and self.text(inner) == "undefined"):
                    continue
                r = self.expr(inner, rec, scope, depth + 1) if inner.type in _STRINGISH and depth < 12 else None
                if r is None:
                    return None
                options.extend(r[0].options if len(r) == 1 and type(r[0]) is Alt else (r,))  # type: ignore[union-attr]
            if not options:
                return None
            if len(options) == 1:
                return options[0]
            return (Alt(tuple(options)),)
        if t in _WRAPPERS:
            inner = n.named_child(0)
            if inner is None:
                return None
            return self.expr(inner, rec, scope, depth + 1)
        return None

    def new_url(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int) -> UrlExpr | None:
        """``new URL(path, base)`` resolved as a browser does: an absolute path keeps only the
        base's origin, a relative one replaces what follows the base's last slash."""
        ctor = n.child_by_field_name("constructor")
        args = n.child_by_field_name("arguments")
        if ctor is None or args is None or self.text(ctor) != "URL" or depth > 12:
            return None
        items = [a for a in args.named_children if a.type != "comment"]
        if not items or items[0].type not in _STRINGISH:
            return None
        path = self.expr(items[0], rec, scope, depth + 1)
        if path is None or len(items) < 2:
            return path
        if path and type(path[0]) is Lit and SCHEME_RE.match(path[0].text):  # type: ignore[union-attr]
            return path
        base = self.expr(items[1], rec, scope, depth + 1) if items[1].type in _STRINGISH else None
        if base is None:
            return (Unknown("computed by new URL()"),)
        if not base or type(base[-1]) is not Lit:
            return base + path
        text = base[-1].text  # type: ignore[union-attr]
        head = path[0].text if path and type(path[0]) is Lit else ""  # type: ignore[union-attr]
        if head.startswith("/"):
            m = SCHEME_RE.match(text)
            if m and len(base) == 1:
                rest = text[m.end():]
                return (Lit(text[: m.end()] + rest.split("/", 1)[0]),) + path
            return base[:-1] + path if not m else base + path
        cut = text.rfind("/")
        kept = text[: cut + 1] if cut >= 0 and not (SCHEME_RE.match(text) and text.count("/") <= 2) else text + "/"
        return merge(list(base[:-1]) + [Lit(kept)] + list(path))

    def call_expr(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int) -> UrlExpr | None:
        """A call inside a URL expression: the receiver for string methods that keep the
        path (``'/t/{id}'.replace('{id}', id)``), a parameter for encoders, a ``Call`` the
        linker may follow (a URL builder), None for a callee that is not a plain name."""
        fn = n.child_by_field_name("function")
        args_node = n.child_by_field_name("arguments")
        if fn is None or args_node is None or depth > 12:
            return None
        if fn.type == "await_expression":  # `await f<T>(x)` as the TypeScript grammar reads it
            inner = fn.named_child(0)
            if inner is None:
                return None
            fn = inner
        name = self.subst_name(args_node)
        if fn.type == "member_expression":
            prop = fn.child_by_field_name("property")
            obj = fn.child_by_field_name("object")
            if prop is not None and obj is not None and self.text(prop) in _KEEPS_PATH and obj.type in _STRINGISH:
                r = self.expr(obj, rec, scope, depth + 1)
                if r is not None and not (len(r) == 1 and type(r[0]) in (Ref, Unknown)):
                    return r
        segs = self.dotted(fn)
        if segs is None:
            return None
        callee = ".".join(segs)
        if callee in _ENCODERS:
            return (Param(name),)
        if segs[-1] in _NOT_BUILDERS or (len(segs) > 1 and segs[0] in _NOT_BUILDER_OWNERS):
            return (Unknown(f"computed by {callee}()"),)  # a response, a collection, a number...
        args = tuple([self.value(a, rec, scope, depth + 1) for a in args_node.named_children if a.type != "comment"])
        return (Call(callee, args, name),)

    def template(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int) -> UrlExpr:
        parts: list[Part] = []
        src = self.src
        for c in n.named_children:
            t = c.type
            if t == "string_fragment":
                parts.append(Lit(src[c.start_byte : c.end_byte].decode("utf-8", "replace")))
            elif t == "escape_sequence":
                parts.append(Lit(unescape(src[c.start_byte : c.end_byte].decode("utf-8", "replace"))))
            elif t == "template_substitution":
                e = c.named_child(0)
                r = None
                if e is not None and e.type in _STRINGISH and depth < 12:
                    r = self.expr(e, rec, scope, depth + 1)
                elif e is not None and e.type == "call_expression":
                    r = self.call_expr(e, rec, scope, depth + 1)
                if r is None or any(type(p) is Unknown for p in r):
                    r = (Param(self.subst_name(e)),)
                parts.extend(r)
        return merge(parts)

    def ident(self, name: str, rec: _Scope | None, scope: _Scope | None, depth: int) -> UrlExpr | None:
        if name == "undefined":
            return None
        r = rec
        while r is not None:
            loc = r.locals.get(name)
            if loc is not None:
                value, is_const, key = loc
                if not is_const and name in self.assigned:
                    return (Unknown(f"reassigned variable {name}"),)
                if key is not None or value.type == "call_expression":
                    v = self.local_value(loc, r, scope, depth + 1)
                    if type(v) is StrVal:
                        return v.expr  # type: ignore[union-attr]
                    return (Unknown(f"value of {name}" if key is not None else self.reason(value)),)
                if depth < 12 and (value.type in _STRINGISH or value.type == "new_expression"):
                    res = self.expr(value, r, scope, depth + 1)
                    if res is not None:
                        return res
                return (Unknown(self.reason(value)),)
            p = self.params(r).get(name)
            if p is not None:
                if r is scope:
                    return (Arg(p[0], p[1]),)
                return (Param(name),)
            r = r.parent
        return (Ref(name),)

    def member(self, n: Node, rec: _Scope | None, scope: _Scope | None) -> UrlExpr | None:
        segs = self.dotted(n)
        if segs is None or len(segs) < 2:
            return None
        if segs[0] == "process" and segs[1] == "env" and len(segs) == 3:
            return (Env(segs[2]),)
        if segs[0] == "import" and segs[1] == "meta" and len(segs) == 4 and segs[2] == "env":
            return (Env(segs[3]),)
        head = segs[0]
        r = rec
        while r is not None:
            loc = r.locals.get(head)
            if loc is not None:
                # `options.path` of a local object (`const options = { path: ... }`)
                if loc[1] or head not in self.assigned:
                    v = self.local_value(loc, r, scope, 1)
                    if type(v) is StrVal and segs[1:] in (["href"], ["pathname"]):
                        return v.expr  # type: ignore[union-attr]
                    if type(v) is ObjVal:
                        v = v.get(".".join(segs[1:]))  # type: ignore[union-attr]
                    elif type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg:  # type: ignore[union-attr]
                        a = v.expr[0]  # type: ignore[union-attr]
                        rest = ".".join(segs[1:])
                        return (Arg(a.index, f"{a.field}.{rest}" if a.field else rest),)
                    else:
                        v = None
                    if type(v) is StrVal:
                        return v.expr  # type: ignore[union-attr]
                return _run_time(segs)
            p = self.params(r).get(head)
            if p is not None:
                if r is scope:
                    rest = ".".join(segs[1:])
                    return (Arg(p[0], f"{p[1]}.{rest}" if p[1] else rest),)
                return _run_time(segs)
            r = r.parent
        return (Ref(".".join(segs)),)

    def reason(self, n: Node) -> str:
        t = n.type
        if t == "await_expression":
            inner = n.named_child(0)
            return self.reason(inner) if inner is not None else "awaited value"
        if t == "call_expression":
            fn = n.child_by_field_name("function")
            return f"computed by {self.callee_text(fn) if fn is not None else 'a call'}()"
        if t == "new_expression":
            ctor = n.child_by_field_name("constructor")
            return f"computed by new {self.callee_text(ctor) if ctor is not None else ''}()"
        if t == "ternary_expression":
            return "conditional expression"
        return t.replace("_", " ")

    def arg(self, n: Node, rec: _Scope | None, scope: _Scope | None) -> ArgVal:
        return self.value(n, rec, scope, 0)

    def value(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int = 0) -> ArgVal:
        """Any expression as an argument value: string-like, object (also through a local
        variable, a destructuring or a memo hook), array, function value, or other."""
        t = n.type
        if t == "object" and depth <= 12:  # (its own span: none built here)
            return self.obj(n, rec, scope, depth)
        base = self.base
        sp = Span(base + n.start_byte, base + n.end_byte)
        if depth > 12:
            return OtherVal(sp)
        if t == "identifier" or t == "shorthand_property_identifier":
            name = self.src[n.start_byte : n.end_byte].decode("utf-8", "replace")
            r = rec
            while r is not None:
                loc = r.locals.get(name)
                if loc is not None:
                    if not loc[1] and name in self.assigned:
                        break
                    v = self.local_value(loc, r, scope, depth + 1)
                    if type(v) is StrVal:
                        return self.typed_value(v.expr, name, r, sp)  # type: ignore[union-attr]
                    if v is not None:
                        return v
                    break
                if name in self.params(r):
                    break
                r = r.parent
            got = self.ident(name, rec, scope, depth)
            if got is None:
                return OtherVal(sp)
            if len(got) == 1 and type(got[0]) is Param:
                got = (Unknown(f"value of {name}"),)
            return self.typed_value(got, name, r, sp)
        elif t in _WRAPPERS or t == "await_expression":
            inner = n.named_child(0)
            if inner is not None and inner.type != "comment":
                v = self.value(inner, rec, scope, depth + 1)
                return StrVal(v.expr, sp) if type(v) is StrVal else v  # type: ignore[union-attr]
        elif t == "array":
            items = [c for c in n.named_children if c.type != "comment"]
            return ObjVal(tuple([(str(i), self.value(c, rec, scope, depth + 1)) for i, c in enumerate(items[:8])]), sp)
        elif t in _FUNCTION_NODES:
            return FnVal(self.returned(n, depth + 1) if self.may_build(n, labels=True) else None, sp)
        elif t == "call_expression":
            fn = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if fn is not None and args is not None:
                callee = self.src[fn.start_byte : fn.end_byte]
                if callee == STRINGIFY:  # the body sent: what is serialized (ecma_values)
                    first = next((a for a in args.named_children if a.type != "comment"), None)
                    if first is not None:
                        got = self.value(first, rec, scope, depth + 1)
                        if passes_through(got):
                            return got
                elif callee.decode("utf-8", "replace") in _MEMOS:
                    first = next((a for a in args.named_children if a.type != "comment"), None)
                    if first is not None and first.type in _FUNCTION_NODES:
                        got = self.returned(first, depth + 1)
                        return got if got is not None else OtherVal(sp)
            r = self.call_expr(n, rec, scope, depth + 1)
            if r is not None:
                return StrVal(r, sp)
            return StrVal((Unknown(self.reason(n)),), sp)
        if t == "new_expression":  # query parameters built from an object (ecma_values)
            ctor = n.child_by_field_name("constructor")
            args = n.child_by_field_name("arguments")
            if ctor is not None and args is not None and self.src[ctor.start_byte : ctor.end_byte] == SEARCH_PARAMS:
                first = next((a for a in args.named_children if a.type != "comment"), None)
                if first is not None and _unwrap(first).type != "array":
                    got = self.value(first, rec, scope, depth + 1)
                    if passes_through(got) and not (type(got) is ObjVal and got.fields and not got.keys):
                        return got
        if t == "ternary_expression":  # `data ? JSON.stringify(data) : undefined`: the body when sent
            yes, no = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
            if yes is not None and no is not None:
                for this, other in ((yes, no), (no, yes)):
                    if self.src[other.start_byte:other.end_byte] in (b"undefined", b"null"):
                        got = self.value(this, rec, scope, depth + 1)
                        if passes_through(got):
                            return got
        if t in _STRINGISH or t == "new_expression":
            r = self.expr(n, rec, scope, depth)
            if r is not None:
                if len(r) == 1 and type(r[0]) is Param:
                    r = (Unknown(f"value of {r[0].name}"),)  # type: ignore[union-attr]
                return StrVal(r, sp)
        if t in _COMPUTED:
            return StrVal((Unknown(self.reason(n)),), sp)
        return OtherVal(sp)

    def typed_value(self, expr: UrlExpr, name: str, r: _Scope | None, sp: Span) -> StrVal:
        """The value of identifier ``name`` (a local or a parameter of ``r``), with the plain
        type reference it is declared with (``const draft: NoteInput = load()``, ``note:
        NoteInput``) as ``StrVal.type_name``: the field checks read it (``payload.typed``)."""
        if r is None or self.grammar == "javascript":
            return StrVal(expr, sp)
        loc = r.locals.get(name)
        declared = ""
        if loc is not None:
            decl = loc[0].parent
            if loc[2] is None and decl is not None and decl.type == "variable_declarator":
                declared = self.declared_type(decl)
        else:
            p = self.params(r).get(name)
            if p is not None and p[1] is None:
                memo = ("types", r.id)
                types = self.values.get(memo)
                if types is None:
                    types = self.values[memo] = self.param_types(r.node)
                declared = types[p[0]] if p[0] < len(types) else ""  # type: ignore[index]
        return StrVal(expr, sp, declared, name) if declared else StrVal(expr, sp)

    def declared_type(self, holder: Node) -> str:
        """The plain type reference a variable declarator or a required parameter is declared
        with (``NoteInput``, ``types.NoteInput``); "" for none or any other type: a generic
        (``Partial<T>``, ``Page<Note>``), a union, an array, a literal type, or a type
        parameter of an enclosing declaration (``function post<Body>(body: Body)``)."""
        ann = holder.child_by_field_name("type")
        inner = ann.named_child(0) if ann is not None and ann.named_child_count == 1 else None
        if inner is None or inner.type not in ("type_identifier", "nested_type_identifier"):
            return ""
        declared = self.text(inner)
        up = holder.parent
        while up is not None:
            tps = up.child_by_field_name("type_parameters")
            if tps is not None:
                for tp in tps.named_children:
                    tn = tp.named_child(0) if tp.type == "type_parameter" else None
                    if tn is not None and self.text(tn) == declared:
                        return ""
            up = up.parent
        return declared

    def param_types(self, fn: Node) -> tuple[str, ...]:
        """The plain type reference each positional parameter of ``fn`` (as ``param_list``
        counts them) is declared with, "" for none. An optional parameter (``note?:
        NoteInput``) has none: its value may be ``undefined``."""
        ps = fn.child_by_field_name("parameters")
        if ps is None:
            return ()
        out = []
        for p in ps.named_children:
            if self.param_info(p) is None:
                continue
            pat = p.child_by_field_name("pattern") if p.type == "required_parameter" else None
            out.append(self.declared_type(p) if pat is not None and pat.type == "identifier" else "")
        return tuple(out)

    def local_value(self, loc: tuple, r: _Scope, scope: _Scope | None, depth: int) -> ArgVal | None:
        """The value of a local variable of function ``r`` (None: not a value specward sees)."""
        node, _const, key = loc
        if depth > 12:
            return None
        memo = (node.id, r.id, scope.id if scope is not None else None)
        if memo in self.values:
            v = self.values[memo]
        else:
            self.values[memo] = None  # a local read while its own value is evaluated: not seen
            v = self.values[memo] = self.value(node, r, scope, depth)
        if v is None:
            return None
        if key is None:
            return v
        if isinstance(key, tuple):  # the rest of a destructuring: what is left of the value
            if type(v) is ObjVal:
                taken = set(key[1])
                return ObjVal(tuple((k, x) for k, x in v.fields if k not in taken), v.span,  # type: ignore[union-attr]
                              tuple(k for k in v.keys if k.name not in taken), v.computed)  # type: ignore[union-attr]
            return v if type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg else None  # type: ignore[union-attr]
        if type(v) is ObjVal:
            got = v.get(key)  # type: ignore[union-attr]
            return got if type(got) is not OtherVal else None
        if type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg:  # type: ignore[union-attr]
            a = v.expr[0]  # type: ignore[union-attr]
            return StrVal((Arg(a.index, f"{a.field}.{key}" if a.field else key),), v.span)
        return None

    def may_build(self, fn: Node, labels: bool = False) -> bool:
        """Whether a function may be a URL builder: it returns a string-like expression or an
        object (not a call's result, JSX, a number...), seen from the node types and, unless
        ``labels`` (a function value: an SWR key, an RTK query, which may return a relative
        path), not a string with literal text but no slash (a label: `${name} (${n})`)."""
        f = self.fn_by_id.get(fn.id)
        body = fn.child_by_field_name("body")
        if body is not None and body.type != "statement_block":
            nodes = [body]
        else:
            nodes = f.returns if f is not None else []
        src = self.src
        for n in nodes:
            n = _unwrap(n)
            t = n.type
            if t == "object":
                raw = src[n.start_byte : n.end_byte]  # an options object: only with a URL in it
                if b"url" in raw or b"path" in raw or b"Url" in raw:
                    return True
            elif not labels and (t == "string" or t == "template_string" or t == "binary_expression"):
                # a URL has a slash, or is only names glued together (`urlBase + apiRoot + path`);
                # `${user.name} (${count})` is a label
                fragments = self.fragments(n, [], 0)
                if any(b"/" in x for x in fragments) or not any(x.strip(b" ?&=#") for x in fragments):
                    return True
            elif t in _BUILDS:
                return True
        return False

    def fragments(self, n: Node, out: list[bytes], depth: int) -> list[bytes]:
        """The literal text of a string, a template (outside its substitutions), or the
        strings of a `+` chain."""
        t = n.type
        src = self.src
        if t == "string":
            out.append(src[n.start_byte + 1 : n.end_byte - 1])
        elif t == "template_string":
            out.extend(src[c.start_byte : c.end_byte] for c in n.named_children if c.type == "string_fragment")
        elif t == "binary_expression" and depth < 12:
            for side in (n.child_by_field_name("left"), n.child_by_field_name("right")):
                if side is not None:
                    self.fragments(_unwrap(side), out, depth + 1)
        return out

    def returned(self, fn: Node, depth: int) -> ArgVal | None:
        """What a function node returns, when that is one visible value (an arrow's
        expression body, a single ``return``, or several string-like returns as one ``Alt``)."""
        f = self.fn_by_id.get(fn.id)
        if f is None or depth > 12:
            return None
        memo = ("returns", fn.id)
        if memo in self.values:
            return self.values[memo]
        self.values[memo] = None  # a function returning its own result: not seen
        got = self.values[memo] = self._returned(f, fn, depth)
        return got

    def _returned(self, f: _Scope, fn: Node, depth: int) -> ArgVal | None:
        scope = f if f.name is not None else f.named
        body = fn.child_by_field_name("body")
        if body is not None and body.type != "statement_block":
            return self.value(body, f, scope, depth)
        if len(f.returns) == 1:
            return self.value(f.returns[0], f, scope, depth)
        if f.returns and len(f.returns) <= MAX_ALTERNATIVES:
            options = []
            for node in f.returns:
                v = self.value(node, f, scope, depth)
                if type(v) is not StrVal:
                    return None
                options.append(v.expr)  # type: ignore[union-attr]
            return StrVal((Alt(tuple(options)),), self.span(fn))
        return None

    def obj(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int) -> ObjVal:
        """An object literal: the values kept (``fields``) and every key written (``keys``,
        ``computed``; see ``ecma_values``)."""
        fields: list[tuple[str, ArgVal]] = []
        keys: list[Key] = []
        computed = False
        src, base = self.src, self.base
        for c in n.named_children:
            t = c.type
            if t == "pair":
                key = c.child_by_field_name("key")
                value = c.child_by_field_name("value")
                if key is None:
                    continue
                kk = literal_key(src, key, base, unescape)
                if kk is None:
                    computed = True
                else:
                    keys.append(kk)
                if value is None:
                    continue
                k = self.key_text(key)
                if k is None:
                    continue
                if depth > 8 and value.type == "object":
                    continue
                v = self.value(value, rec, scope, depth + 1)
                if type(v) is OtherVal:
                    continue
                fields.append((k, v))
            elif t == "shorthand_property_identifier":
                name = self.text(c)
                keys.append(Key(name, Span(base + c.start_byte, base + c.end_byte), True))
                v = self.value(c, rec, scope, depth + 1)
                if type(v) is not OtherVal:
                    fields.append((name, v))
            elif t == "spread_element":
                inner = c.named_child(0)
                if inner is not None:
                    fields.append((SPREAD, self.value(inner, rec, scope, depth + 1)))
            elif t == "method_definition":
                nn = c.child_by_field_name("name")
                kk = literal_key(src, nn, base, unescape) if nn is not None else None
                if kk is None:
                    computed = True
                else:
                    keys.append(kk)
        return ObjVal(tuple(fields), self.span(n), tuple(keys), computed)

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
        self.nest(targets)  # NestJS controllers, modules and apps (ecma_routes.py)
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

    # ------------------------------------------------------------------ handlers

    def on_import(self, c: dict) -> None:
        source = c["import.source"][0]
        got = self.specifier(source)
        if got is None:
            return
        module, mspan = got
        out = self.out.imports
        kind = "type" if "import.type" in c else "static"
        if "import.default" in c:
            n = c["import.default"][0]
            out.append(Import(module, "default", self.text(n), self.span(n), kind, False, mspan))
            self.import_modules[self.text(n)] = module
        elif "import.namespace" in c:
            n = c["import.namespace"][0]
            out.append(Import(module, "*", self.text(n), self.span(n), kind, False, mspan))
            self.import_modules[self.text(n)] = module
        elif "import.name" in c:
            n = c["import.name"][0]
            name = self.key_text(n) or self.text(n)
            alias = c.get("import.alias")
            local = self.text(alias[0]) if alias else name
            end = alias[0] if alias else n
            out.append(Import(module, name, local, Span(self.base + n.start_byte, self.base + end.end_byte), kind,
                              False, mspan))
            self.import_modules[local] = module
        else:  # only for its effect: `import './app.css'`
            out.append(Import(module, "", "", self.span(source), kind, False, mspan))

    def on_loads(self, requires: list[dict], loads: list[tuple[str, Node]], guards: list[tuple[int, int]]) -> None:
        """``require()`` calls (bound, destructured, alone or used as a value: each call once),
        ``import()`` and ``import.meta.glob()``, guarded when inside a try block."""
        out = self.out.imports

        def guarded(pos: int) -> bool:
            for s, e in guards:
                if s <= pos < e:
                    return True
            return False

        claimed: set[int] = set()  # calls a more specific pattern described
        for c in requires:
            if "require.local" in c or "require.name" in c or "require.effect" in c:
                claimed.add(c["require.call"][0].id)
        for c in requires:
            call = c["require.call"][0]
            bound = "require.local" in c or "require.name" in c
            if not bound and "require.effect" not in c and call.id in claimed:
                continue
            got = self.specifier(c["require.source"][0])
            if got is None:
                continue
            module, mspan = got
            g = bool(guards) and guarded(call.start_byte)
            if "require.local" in c:
                n = c["require.local"][0]
                out.append(Import(module, "default", self.text(n), self.span(n), "require", g, mspan))
                self.at[0] = n.start_byte
                self.import_modules[self.text(n)] = module
            elif "require.name" in c:
                n = c["require.name"][0]
                name = self.key_text(n) or self.text(n)
                alias = c.get("require.alias")
                local = self.text(alias[0]) if alias else name
                end = alias[0] if alias else n
                out.append(Import(module, name, local, Span(self.base + n.start_byte, self.base + end.end_byte),
                                  "require", g, mspan))
                self.at[0] = n.start_byte
                self.import_modules[local] = module
            else:  # not bound: for its effect (a statement of its own) or used as a value
                name = "" if "require.effect" in c else "*"
                out.append(Import(module, name, "", self.span(c["require.source"][0]), "require", g, mspan))
        for kind, n in loads:
            got = self.specifier(n)
            if got is not None:
                out.append(Import(got[0], "*", "", self.span(n), kind, bool(guards) and guarded(n.start_byte),
                                  got[1]))

    def on_export(self, c: dict, names: dict) -> None:
        out = self.out.exports
        text, span = self.text, self.span
        if "export.declaration" in c:
            n = c["export.declaration"][0]
            stmt = c["export.statement"][0]
            if _has_default(stmt):
                out.append(Export("default", text(n), span(n)))
            else:
                out.append(Export(text(n), text(n), span(n)))
        elif "export.pattern" in c:  # export const {a, b: c} = o / [x, y] = a
            for n in _bound_names(c["export.pattern"][0], []):
                out.append(Export(text(n), text(n), span(n)))
        elif "export.value" in c:
            v = c["export.value"][0]
            stmt = c["export.statement"][0]
            inner = _unwrap(v)
            local = text(inner) if inner.type == "identifier" else "default"
            out.append(Export("default", local, span(stmt)))
        elif "export.name" in c:
            n = c["export.name"][0]
            alias = c.get("export.alias")
            src = c.get("export.source")
            name = self.key_text(n) or text(n)
            exported = (self.key_text(alias[0]) or text(alias[0])) if alias else name
            module = self.string_value(src[0]) if src else None
            sp = span(c["export.specifier"][0])
            out.append(Export(exported, name, sp, module))
            if src:  # a re-export imports the name too
                self.reexport(src[0], name, sp, "type" if "export.type" in c else "static")
        elif "export.star" in c:
            src = c["export.star"][0]
            out.append(Export("*", "*", span(src), self.string_value(src)))
            self.reexport(src, "*", span(src), "static")
        elif "export.namespace" in c:
            n = c["export.namespace"][0]
            src = c["export.source"][0]
            out.append(Export(text(n), "*", span(n), self.string_value(src)))
            self.reexport(src, "*", span(n), "static")
        elif "export.assign" in c:  # export = x (TypeScript's CommonJS export)
            v = c["export.assign"][0]
            inner = _unwrap(v)
            out.append(Export("=", text(inner) if inner.type == "identifier" else "=", span(v)))
        elif "export.global" in c:  # export as namespace X (the module is also the global X)
            n = c["export.global"][0]
            out.append(Export(text(n), "*", span(n)))

    def reexport(self, source: Node, name: str, span: Span, kind: str) -> None:
        got = self.specifier(source)
        if got is not None:
            self.out.imports.append(Import(got[0], name, "", span, kind, False, got[1]))

    def on_commonjs(self, c: dict) -> None:
        out = self.out.exports
        stmt = c["commonjs"][0]
        if "commonjs.default" in c:
            v = _unwrap(c["commonjs.default"][0])
            if v.type != "object":  # `module.exports = make()`: what it exports is not known
                self.out.opened.append((self.base + stmt.start_byte,))
            if v.type == "identifier":
                out.append(Export("default", self.text(v), self.span(stmt)))
                return
            out.append(Export("default", "default", self.span(stmt)))
            if v.type == "object":
                for p in v.named_children:
                    if p.type == "shorthand_property_identifier":
                        k = self.text(p)
                        out.append(Export(k, k, self.span(p)))
                    elif p.type in ("pair", "method_definition"):
                        key = p.child_by_field_name("key" if p.type == "pair" else "name")
                        k = self.key_text(key) if key is not None else None
                        if k is None:
                            continue
                        val = p.child_by_field_name("value")
                        local = self.text(val) if val is not None and val.type == "identifier" else f"default.{k}"
                        out.append(Export(k, local, self.span(p)))
        else:
            name = self.text(c["commonjs.name"][0])
            v = _unwrap(c["commonjs.value"][0])
            if v.type == "identifier":
                local = self.text(v)
            else:
                left = stmt.child_by_field_name("left")
                segs = self.dotted(left) if left is not None else None
                local = ".".join(segs) if segs else name
            out.append(Export(name, local, self.span(stmt)))

    def enclosing_class(self, pos: int) -> str | None:
        best = None
        for s, e, name in self.classes:
            if s <= pos < e and (best is None or s >= best[0]):
                best = (s, name)
        return best[1] if best else None

    def class_bases(self, cls: Node) -> tuple[str, ...]:
        """What a class extends, as written (type arguments dropped)."""
        for ch in cls.named_children:
            if ch.type == "class_heritage":
                for h in ch.named_children:
                    value = h.child_by_field_name("value") if h.type == "extends_clause" else h
                    if value is None:
                        continue
                    segs = self.dotted(value)
                    if segs:
                        return (".".join(segs),)
        return ()

    def find_typed(self, fn: Node, name: str) -> None:
        """Parameters typed as a client (``api: AxiosInstance``) or injected into a constructor."""
        ps = fn.child_by_field_name("parameters")
        if ps is None or self.grammar == "javascript":
            return
        ctor = fn.type == "method_definition" and name.endswith(".constructor")
        index = -1
        for p in ps.named_children:
            if p.type in ("comment", "decorator", "this"):
                continue
            index += 1
            if p.type not in ("required_parameter", "optional_parameter"):
                continue
            pat = p.child_by_field_name("pattern")
            if pat is None or pat.type != "identifier":
                continue
            injected = ctor and any(ch.type == "accessibility_modifier" or ch.type == "readonly" for ch in p.children)
            if injected:  # `constructor(private routes: Routes)`: a field set from this parameter
                self.ctor_fields.setdefault(name.split(".")[0], []).append((self.text(pat), index))
            typ = p.child_by_field_name("type")
            inner = typ.named_child(0) if typ is not None else None
            if inner is None or inner.type not in ("type_identifier", "nested_type_identifier"):
                continue
            tname = self.text(inner)
            if tname in CLIENT_TYPES or (injected and tname[:1].isupper()):
                self.typed.append((fn, self.text(pat), tname, injected))

    def on_typed(self) -> None:
        out = self.out.clients
        for fn, pname, tname, injected in self.typed:
            f = self.fn_by_id.get(fn.id)
            if f is None or f.name is None:
                continue
            kind = CLIENT_TYPES.get(tname)
            span = self.span(fn)
            if kind is not None and not injected:
                out.append(ClientDef(pname, kind, None, span, f.name, None, True))
            if injected:
                cls = f.name.split(".")[0]
                if kind is not None:
                    if kind != "angular":  # Angular's own constructor parameters are found by the queries
                        out.append(ClientDef(f"this.{pname}", kind, None, span, cls, None, True))
                else:
                    out.append(ClientDef(f"this.{pname}", "factory", None, span, cls, f"new {tname}"))

    def on_class_fields(self, class_fields: list[dict], this_fields: list[dict]) -> None:
        """Class fields and `this` fields: literal ones are constants (``Cls.baseUrl``),
        clients are clients (``this.http``)."""
        out = self.out
        for c in class_fields:
            cls = self.text(c["field.class"][0])
            nn = c["field.name"][0]
            value = _unwrap(c["field.value"][0])
            name = self.key_text(nn)
            if name is None:
                continue
            if value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None and not any(type(p) in (Param, Arg, Unknown) for p in r):
                    out.constants.append((self.base + nn.start_byte, f"{cls}.{name}", r))
            elif value.type in ("call_expression", "new_expression"):
                fn = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                made = False
                if fn is not None and args is not None and fn.type == "member_expression":
                    prop = fn.child_by_field_name("property")
                    obj = fn.child_by_field_name("object")
                    if prop is not None and obj is not None and self.text(prop) in ("create", "extend"):
                        made = self.make_client(obj, args, f"this.{name}", nn, cls, None)
                if not made:
                    self.bind_client(f"this.{name}", value, nn, cls)
        typed = {(f.id, p): t for f, p, t, _ in self.typed}
        for c in this_fields:
            left = c["this.field"][0]
            value = _unwrap(c["this.value"][0])
            segs = self.dotted(left)
            if not segs or len(segs) != 2:
                continue
            cls = self.enclosing_class(left.start_byte)
            if cls is None:
                continue
            f = self.locate(left)
            if value.type == "identifier" and f is not None and f.name is not None and f.name.endswith(".constructor"):
                p = self.params(f).get(self.text(value))
                if p is not None and p[1] is None:  # `this.routes = routes` in the constructor
                    self.ctor_fields.setdefault(cls, []).append((segs[1], p[0]))
            if value.type == "identifier" and f is not None:
                tname = typed.get((f.node.id, self.text(value)))
                kind = CLIENT_TYPES.get(tname) if tname else None
                if kind is not None:
                    out.clients.append(ClientDef(f"this.{segs[1]}", kind, None, self.span(left), cls, None, True))
                    continue
            if value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None and not any(type(p) in (Param, Arg, Unknown) for p in r):
                    out.constants.append((self.base + left.start_byte, f"{cls}.{segs[1]}", r))

    def returned_clients(self, names: dict) -> None:
        """A client a named function returns (`return axios.create({...})`, `() => ky.create(...)`):
        the linker follows calls of such a factory."""
        src = self.src
        for _name, _nn, fn in names.values():
            f = self.fn_by_id.get(fn.id)
            if f is None or f.name is None:
                continue
            body = fn.child_by_field_name("body")
            nodes = [body] if body is not None and body.type != "statement_block" else f.returns
            for n in nodes:
                if n.type != "call_expression":
                    continue
                callee = n.child_by_field_name("function")
                args = n.child_by_field_name("arguments")
                if callee is None or args is None or callee.type != "member_expression":
                    continue
                prop = callee.child_by_field_name("property")
                obj = callee.child_by_field_name("object")
                if prop is not None and obj is not None and src[prop.start_byte : prop.end_byte] in (b"create", b"extend"):
                    self.make_client(obj, args, "return", n, f.name, f)
                    break

    def on_binds(self, binds: list[tuple[Node, Node | None]]) -> None:
        src = self.src
        for nn, value in binds:
            if value is not None and value.type == "await_expression":
                value = value.named_child(0)
            if value is None or value.type not in ("call_expression", "new_expression"):
                continue
            callee = value.child_by_field_name("function" if value.type == "call_expression" else "constructor")
            if callee is None or callee.type not in ("identifier", "member_expression"):
                continue
            craw = src[callee.start_byte : callee.end_byte]
            if not (_CLIENTISH_B.search(craw) or _CLIENTISH_B.search(src[nn.start_byte : nn.end_byte])
                    or (craw[:1].isupper() and callee.parent is not None and callee.parent.type == "new_expression")):
                continue  # most bindings to a call: not a client (decided as bind_client would)
            segs = self.dotted(nn)
            if not segs:
                continue
            name = ".".join(segs)
            if name.startswith("this."):
                scope = self.enclosing_class(nn.start_byte)
                if scope is None:
                    continue
            else:
                f = self.locate(nn)
                named = f.named if f is not None else None
                scope = named.name if named is not None else None
            self.bind_client(name, value, nn, scope)

    def bind_client(self, name: str, value: Node, nn: Node, scope: str | None) -> None:
        """A binding to a call or an instance that may be a client: the linker follows the
        factory (a library's, a workspace function returning a client, a class)."""
        is_new = value.type == "new_expression"
        callee_node = value.child_by_field_name("constructor" if is_new else "function")
        if callee_node is None:
            return
        segs = self.dotted(callee_node)
        if not segs:
            return
        callee = ".".join(segs)
        if segs[-1] in ("create", "extend") or callee in _NOT_FACTORIES:
            return  # library clients come from the client patterns
        if is_new:
            if not callee[:1].isupper() or callee in _BUILTIN_CLASSES:
                return
        elif not (_CLIENTISH.search(callee) or _CLIENTISH.search(name)):
            return
        base = None
        args = value.child_by_field_name("arguments")
        first = next((a for a in args.named_children if a.type != "comment"), None) if args is not None else None
        if first is not None and first.type == "call_expression":  # createClient(createConfig({ baseUrl }))
            args = first.child_by_field_name("arguments")
        if args is not None:
            f = self.locate(value)
            for a in args.named_children:
                if a.type == "object":
                    ov = self.obj(a, f, f.named if f is not None else None, 0)
                    for k in BASE_KEYS:
                        v = ov.get(k)
                        if type(v) is StrVal:
                            base = v.expr  # type: ignore[union-attr]
                            break
                    break
        self.out.clients.append(ClientDef(name, "factory", base, self.span(nn), scope,
                                          ("new " if is_new else "") + callee))

    def on_client(self, c: dict) -> None:
        node = c["client"][0]
        name_nodes = c.get("client.name")
        f = self.locate(node)
        named = f.named if f is not None else None
        if name_nodes:
            nn = name_nodes[0]
            nsegs = self.dotted(nn)
            name = ".".join(nsegs) if nsegs else self.text(nn)
        else:
            nn = node
            name = "default"
        if name.startswith("this."):
            scope = self.enclosing_class(node.start_byte)
        else:
            scope = named.name if named is not None else None
        self.make_client(c["client.library"][0], c["client.arguments"][0], name, nn, scope, f)

    def make_client(self, lib: Node, args: Node, name: str, nn: Node, scope: str | None, f: _Scope | None) -> bool:
        """A client created by a library's ``create``/``extend`` (or an existing client's)."""
        segs = self.dotted(lib)
        if not segs:
            return False
        libname = ".".join(segs)
        kind = None
        base: UrlExpr | None = None
        module = self.import_modules.get(libname)
        if module is not None:
            kind = CLIENT_MODULES.get(module)
        elif libname in CLIENT_GLOBALS:
            kind = CLIENT_GLOBALS[libname]
        else:
            for prev in reversed(self.out.clients):
                if prev.name == libname:
                    kind, base = prev.kind, prev.base
                    break
        if kind is None:
            return False
        named = f.named if f is not None else None
        for a in args.named_children:
            if a.type == "object":
                ov = self.obj(a, f, named, 0)
                for k in BASE_KEYS:
                    v = ov.get(k)
                    if type(v) is StrVal:
                        base = v.expr  # type: ignore[union-attr]
                        break
                break
        self.out.clients.append(ClientDef(name, kind, base, self.span(nn), scope))
        return True

    def on_call(self, c: dict, servers: dict[str, str]) -> None:
        # Runs for every call in the file: the common (rejected) path only slices bytes.
        src = self.src
        fn = c["call.function"][0]
        ft = fn.type
        awaited = None
        if ft == "await_expression":
            # `await client.get<{ id: string }>(url)`: the TypeScript grammar reads the type
            # arguments as applying to the awaited callee
            inner = fn.named_child(0)
            if inner is not None and inner.type in ("member_expression", "identifier"):
                awaited = fn
                fn, ft = inner, inner.type
        if ft == "member_expression":
            last = src[fn.start_byte : fn.end_byte].rsplit(b".", 1)[-1].strip()
        elif ft == "identifier":
            last = src[fn.start_byte : fn.end_byte]
        else:
            last = b""
        hit = last in _HIT
        args = c["call.arguments"][0].named_children
        if ft == "super":  # what a constructor passes to its base class
            self.on_super(c["call"][0], args)
            return
        if hit:
            if ft == "member_expression" and last in ROUTE_METHODS_B and self.on_route(fn, args, c["call"][0]):
                return
        else:
            if not args or last in _NOT_CALLS_B or ft == "import":
                return
            # quick reject of calls whose arguments cannot be URL-like (most calls)
            if last == b"fetchBaseQuery":  # RTK Query: the base of the file's createApi endpoints
                self.rtk_base(c["call"][0], args)
                return
            maybe = self.maybe
            for a in args:
                t = a.type
                if t == "string":
                    if b"/" in src[a.start_byte : a.end_byte]:
                        break
                elif t == "identifier":
                    raw = src[a.start_byte : a.end_byte]
                    if raw in maybe or _URLISH_NAME.search(raw):
                        break
                elif t == "member_expression":
                    if src[a.start_byte : a.end_byte].split(b".", 1)[0].rstrip(b"?") in maybe:
                        break
                elif t == "object":
                    raw = src[a.start_byte : a.end_byte]
                    if b"url" in raw or b"path" in raw or b"baseURL" in raw or b"query" in raw or b"..." in raw:
                        break
                elif t == "binary_expression":
                    if b"+" in src[a.start_byte : a.end_byte]:
                        break
                elif t in _STRINGISH:  # templates, wrapped expressions
                    break
            else:
                return
        call = c["call"][0]
        f = self.locate(call) if self.fns else None
        scope = f.named if f is not None else None
        arg = self.arg
        vals = tuple([arg(a, f, scope) for a in args if a.type != "comment"])
        if not hit:
            for v in vals:
                if _url_like(v):
                    break
            else:
                return
        base = self.base
        self.out.calls.append(
            CallSite(
                self.callee_text(fn),
                Span(base + call.start_byte, base + call.end_byte),
                vals,
                (),
                scope.name if scope is not None else None,
                self.call_reads(call, awaited, f),  # how its value is used (ecma_reads)
            )
        )

    def on_super(self, call: Node, args: list[Node]) -> None:
        cls = self.enclosing_class(call.start_byte)
        if cls is None or cls in self.super_args:
            return
        f = self.locate(call)
        named = f.named if f is not None else None
        self.super_args[cls] = tuple([self.value(a, f, named, 0) for a in args if a.type != "comment"])

    def rtk_base(self, call: Node, args: list[Node]) -> None:
        f = self.locate(call)
        for a in args:
            if a.type == "object":
                ov = self.obj(a, f, f.named if f is not None else None, 0)
                v = ov.get("baseUrl")
                if type(v) is StrVal:
                    self.out.clients.append(ClientDef("rtk", "rtk", v.expr, self.span(call)))  # type: ignore[union-attr]
                return

def _module_level(declarator: Node | None) -> bool:
    """Whether a variable declarator is a module-level statement's (or an exported one's)."""
    d = declarator.parent if declarator is not None else None
    up = d.parent if d is not None else None
    if up is not None and up.type == "export_statement":
        up = up.parent
    return up is not None and up.type == "program"


def _run_time(segs: list[str]) -> UrlExpr:
    """A field of a value only known at run time: a base URL when named like one
    (``globals.serverAddr``, ``settings.address``, ``config.apiBaseUrl``), else a value."""
    if BASE_FIELD.search(segs[-1]):
        return (Env(".".join(segs)),)
    return (Param(segs[-1]),)


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


def _url_like(v: ArgVal | None, depth: int = 0) -> bool:
    """Whether a value may hold a URL: a string with a slash or starting with a parameter
    of the enclosing function, an object with a URL key (also through a spread), an array
    or function value holding one."""
    t = type(v)
    if t is StrVal:
        expr = v.expr  # type: ignore[union-attr]
        if expr and type(expr[0]) is Arg:
            return True
        return _slashy(expr, depth)
    if depth > 4:
        return False
    if t is ObjVal:
        for k, x in v.fields:  # type: ignore[union-attr]
            if k in URL_KEYS or ((k == SPREAD or k == "0") and _url_like(x, depth + 1)):
                return True
            if k == "query" and type(x) is FnVal and type(x.returns) in (StrVal, ObjVal):  # type: ignore[union-attr]
                return True  # RTK Query: `query: () => 'wishlist'`
        return False
    if t is FnVal:
        return _url_like(v.returns, depth + 1)  # type: ignore[union-attr]
    return False


def _slashy(expr: UrlExpr, depth: int) -> bool:
    for p in expr:
        t = type(p)
        if t is Lit:
            if "/" in p.text:  # type: ignore[union-attr]
                return True
        elif t is Ref:
            # a constant named like a path (`PATH`, `API_URL`, `usersEndpoint`), from this
            # module or another: its value is known only to the linker
            if _URLISH_NAME.search(p.name.rpartition(".")[2].encode()):  # type: ignore[union-attr]
                return True
        elif t is Alt:
            if depth < 4 and any(_slashy(o, depth + 1) for o in p.options):  # type: ignore[union-attr]
                return True
        elif t is Call:
            if depth < 4 and any(_url_like(a, depth + 1) for a in p.args):  # type: ignore[union-attr]
                return True
    return False


_unwrap = unwrap  # (ecma_routes.unwrap: parentheses, `as`, `!`, `satisfies` and the like)


def _has_default(stmt: Node) -> bool:
    for ch in stmt.children:
        t = ch.type
        if t == "default":
            return True
        if ch.is_named and t != "decorator":
            return False
    return False


_PATTERN_PARTS = frozenset({"object_pattern", "array_pattern", "rest_pattern"})


def _bound_names(n: Node, out: list[Node]) -> list[Node]:
    """The identifiers a destructuring pattern binds, in source order."""
    t = n.type
    if t == "identifier" or t == "shorthand_property_identifier_pattern":
        out.append(n)
    elif t == "pair_pattern":
        v = n.child_by_field_name("value")
        if v is not None:
            _bound_names(v, out)
    elif t == "object_assignment_pattern" or t == "assignment_pattern":
        v = n.child_by_field_name("left")
        if v is not None:
            _bound_names(v, out)
    elif t in _PATTERN_PARTS:
        for ch in n.named_children:
            _bound_names(ch, out)
    return out


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
