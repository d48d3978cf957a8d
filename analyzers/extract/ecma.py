"""Per-file facts from JavaScript, TypeScript and TSX source.

``extract_ecma(path, text, grammar)`` parses the text once and runs three queries once each:
``queries/ecma-deep.scm`` over the whole tree (calls, function-like nodes, locals, clients)
and ``queries/ecma-top.scm`` plus ``queries/ecma-top-javascript.scm`` or
``queries/ecma-top-typescript.scm`` limited to the children of ``program``
(``set_max_start_depth(1)``: imports, exports, definitions, classes, enums, Angular clients),
which costs almost nothing. ``queries/ecma-members.scm`` (object-literal members) runs only on
the subtrees of module-level object literals (constants, ``export default {...}``,
``module.exports = {...}``). Matches are dispatched by pattern index (kinds computed once per
compiled query). The Python side only dispatches matches and evaluates expression nodes into
URL expressions / argument values (small recursive functions); no tree walks.

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
* A call recognized as an Express/Fastify route registration is a ``Route``, never a
  ``CallSite`` (it is a backend declaration, not a client call).
* ``module.exports = { a, b: c }`` exports ``default`` plus ``a`` and ``b`` (local ``c``); the
  object is also an object-literal root named ``default`` (constants ``default.X``, functions
  ``default.f``), like ``export default { ... }``.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from tree_sitter import Node, Query, QueryCursor

from .. import languages
from ..model import (
    Arg,
    ArgVal,
    CallSite,
    ClientDef,
    Definition,
    Env,
    Export,
    FileFacts,
    FunctionDef,
    Import,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Part,
    Ref,
    Route,
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
BASE_KEYS = ("baseURL", "baseUrl", "prefixUrl", "prefixURL")
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

ROUTE_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
ROUTE_RECEIVERS = frozenset({"app", "router", "server"})
# captures that are only a definition's name -> the definition's kind (enums read as variables)
_DEFINITION_KINDS = {"definition.function": "function", "definition.class": "class", "definition.enum": "variable"}
_ROUTE_HANDLERS = frozenset(
    {"arrow_function", "function_expression", "identifier", "member_expression", "call_expression"}
)
_HIT = frozenset(x.encode() for x in VERBS | ENTRY_POINTS)
_ROUTE_METHODS_B = frozenset(x.encode() for x in ROUTE_METHODS)
_NOT_CALLS_B = frozenset(x.encode() for x in NOT_CALLS)
_ROUTE_PARAM = re.compile(r":([A-Za-z_$][\w$]*)(?:\([^)]*\))?\??")

_FUNCTION_NODES = frozenset(
    {"arrow_function", "function_expression", "generator_function", "method_definition"}
)
_WRAPPERS = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"}
)
# Expression types evaluated as string-like values.
_STRINGISH = frozenset(
    {
        "string",
        "template_string",
        "binary_expression",
        "identifier",
        "member_expression",
        "subscript_expression",
    }
) | _WRAPPERS
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


def merge(parts: list[Part]) -> UrlExpr:
    """Adjacent literals merged, empty literals dropped."""
    out: list[Part] = []
    for p in parts:
        if type(p) is Lit:
            if not p.text:
                continue
            if out and type(out[-1]) is Lit:
                out[-1] = Lit(out[-1].text + p.text)  # type: ignore[union-attr]
                continue
        out.append(p)
    return tuple(out)


class _Fn:
    """A function-like node: its parameters (lazily), local declarations, enclosing function
    and, when it is a ``FunctionDef``, its qualified name."""

    __slots__ = ("node", "id", "start", "end", "parent", "name", "named", "locals", "_params")

    def __init__(self, node: Node, start: int, end: int) -> None:
        self.node = node
        self.id = node.id
        self.start = start
        self.end = end
        self.parent: _Fn | None = None
        self.name: str | None = None
        self.named: _Fn | None = None  # innermost named function (self included)
        self.locals: dict[str, tuple[Node, bool]] = {}
        self._params: dict[str, tuple[int, str | None]] | None = None


# Match kinds: the first of these capture names a match has (the last, "export", when none).
_KINDS = (
    "call",
    "scope",
    "local.name",
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
    "class",
    "commonjs",
    "client",
    "angular.name",
    "server.name",
    "enum.member",
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


_QUERIES: dict[str, tuple] = {}


def _queries(grammar: str) -> tuple:
    """((query, pattern kinds, module-level?) in dispatch order, members query) per grammar."""
    qs = _QUERIES.get(grammar)
    if qs is None:
        extra = "ecma-top-javascript.scm" if grammar == "javascript" else "ecma-top-typescript.scm"
        steps = []
        for name, top in (("ecma-deep.scm", False), ("ecma-top.scm", True), (extra, True)):
            q = languages.query(grammar, name)
            steps.append((q, _pattern_kinds(q), top))
        qs = _QUERIES[grammar] = (tuple(steps), languages.query(grammar, "ecma-members.scm"))
    return qs


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
            routes=by_span(self.routes),
        )

    # ------------------------------------------------------------------ one program

    def add(self, src: bytes, grammar: str, base: int = 0, key: str | None = None) -> None:
        """Parse ``src`` with ``grammar`` and collect its facts, spans shifted by ``base``.
        ``key`` (the path) lets the parser re-parse incrementally from the last tree."""
        _Program(self, src, grammar, base, key).run()


class _Program:
    def __init__(self, out: EcmaCollector, src: bytes, grammar: str, base: int, key: str | None = None) -> None:
        self.out = out
        self.key = key
        self.src = src
        self.grammar = grammar
        self.base = base
        self.fns: list[_Fn] = []
        self.fn_starts: list[int] = []
        self.fn_by_id: dict[int, _Fn] = {}
        self.assigned: set[str] = set()
        self.import_modules: dict[str, str] = {}
        self.classes: list[tuple[int, int, str]] = []
        # names (bytes) an identifier argument must have to possibly evaluate to an Arg or an
        # inlined local: parameters of named functions and locals of any function
        self.maybe: set[bytes] = set()

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
        names = [self.text(x) for x in _descendant_idents(n)]
        return names[-1] if names else "param"

    # ------------------------------------------------------------------ scopes

    def locate(self, n: Node) -> _Fn | None:
        """Innermost function-like node containing ``n`` (None at module level)."""
        i = bisect_right(self.fn_starts, n.start_byte) - 1
        if i < 0:
            return None
        r: _Fn | None = self.fns[i]
        s, e, nid = n.start_byte, n.end_byte, n.id
        while r is not None and not (r.start <= s and e <= r.end and r.id != nid):
            r = r.parent
        return r

    def params(self, f: _Fn) -> dict[str, tuple[int, str | None]]:
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
            keys: list[str] = []
            binds: list[tuple[str, str | None]] = []
            for c in n.named_children:
                ct = c.type
                if ct == "shorthand_property_identifier_pattern":
                    k = self.text(c)
                    keys.append(k)
                    binds.append((k, k))
                elif ct == "object_assignment_pattern":
                    left = c.child_by_field_name("left")
                    if left is not None:
                        k = self.text(left)
                        keys.append(k)
                        binds.append((k, k))
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
                        binds.append((self.text(val), k))
                elif ct == "rest_pattern":
                    inner = c.named_child(0)
                    if inner is not None:
                        keys.append("..." + self.text(inner))
                        binds.append((self.text(inner), None))
            return "{" + ",".join(keys) + "}", binds
        if t in ("this", "comment", "decorator"):
            return None
        return _SPACE.sub("", self.text(n)), []

    # ------------------------------------------------------------------ URL expressions

    def ev(self, n: Node, rec: _Fn | None, scope: _Fn | None, depth: int = 0) -> UrlExpr | None:
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
                    r = self.ev(side, rec, scope, depth + 1) if side.type in _STRINGISH else None
                    if r is None:
                        parts.append(Param(self.subst_name(side)))
                    else:
                        stringy = True
                        parts.extend(r)
                return merge(parts) if stringy else None
            if o == "||" or o == "??":
                r = self.ev(left, rec, scope, depth + 1) if left.type in _STRINGISH else None
                if r is None and right.type in _STRINGISH:
                    r = self.ev(right, rec, scope, depth + 1)
                return r
            return None
        if t in _WRAPPERS:
            inner = n.named_child(0)
            if inner is None:
                return None
            return self.ev(inner, rec, scope, depth + 1)
        return None

    def template(self, n: Node, rec: _Fn | None, scope: _Fn | None, depth: int) -> UrlExpr:
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
                    r = self.ev(e, rec, scope, depth + 1)
                if r is None or any(type(p) is Unknown for p in r):
                    r = (Param(self.subst_name(e)),)
                parts.extend(r)
        return merge(parts)

    def ident(self, name: str, rec: _Fn | None, scope: _Fn | None, depth: int) -> UrlExpr | None:
        if name == "undefined":
            return None
        r = rec
        while r is not None:
            loc = r.locals.get(name)
            if loc is not None:
                value, is_const = loc
                if not is_const and name in self.assigned:
                    return (Unknown(f"reassigned variable {name}"),)
                if depth < 12 and value.type in _STRINGISH:
                    res = self.ev(value, r, scope, depth + 1)
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

    def member(self, n: Node, rec: _Fn | None, scope: _Fn | None) -> UrlExpr | None:
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
            if head in r.locals:
                break
            p = self.params(r).get(head)
            if p is not None:
                if r is scope:
                    rest = ".".join(segs[1:])
                    return (Arg(p[0], f"{p[1]}.{rest}" if p[1] else rest),)
                return (Param(segs[-1]),)
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

    def arg(self, n: Node, rec: _Fn | None, scope: _Fn | None) -> ArgVal:
        t = n.type
        if t == "object":
            return self.obj(n, rec, scope, 0)
        base = self.base
        if t in _STRINGISH:
            r = self.ev(n, rec, scope)
            if r is not None:
                if len(r) == 1 and type(r[0]) is Param:
                    r = (Unknown(f"value of {r[0].name}"),)  # type: ignore[union-attr]
                return StrVal(r, Span(base + n.start_byte, base + n.end_byte))
        elif t in _COMPUTED:
            return StrVal((Unknown(self.reason(n)),), Span(base + n.start_byte, base + n.end_byte))
        return OtherVal(Span(base + n.start_byte, base + n.end_byte))

    def obj(self, n: Node, rec: _Fn | None, scope: _Fn | None, depth: int) -> ObjVal:
        fields: list[tuple[str, ArgVal]] = []
        for c in n.named_children:
            t = c.type
            if t == "pair":
                key = c.child_by_field_name("key")
                value = c.child_by_field_name("value")
                if key is None or value is None:
                    continue
                k = self.key_text(key)
                if k is None:
                    continue
                if value.type == "object":
                    if depth > 8:
                        continue
                    v: ArgVal = self.obj(value, rec, scope, depth + 1)
                else:
                    v = self.arg(value, rec, scope)
                    if type(v) is OtherVal:
                        continue
                fields.append((k, v))
            elif t == "shorthand_property_identifier":
                k = self.text(c)
                r = self.ident(k, rec, scope, 0)
                if r is not None:
                    fields.append((k, StrVal(r, self.span(c))))
        return ObjVal(tuple(fields), self.span(n))

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
        tree = languages.parse(g, src, self.key)
        root = tree.root_node
        qs = _queries(g)

        scopes: list[Node] = []
        names: dict[int, tuple[str, Node, Node]] = {}  # function node id -> (name, name node, node)
        roots: dict[int, str] = {}  # object node id -> qualified prefix
        root_nodes: list[Node] = []
        top_vars: list[tuple[Node, Node, bool]] = []
        locals_: list[tuple[Node, Node, bool]] = []
        exports: list[dict] = []
        commonjs: list[dict] = []
        clients: list[dict] = []
        angular: list[dict] = []
        calls: list[dict] = []
        servers: dict[str, str] = {}
        enums: list[dict] = []
        definitions = out.definitions
        assigned = self.assigned

        def text(n: Node) -> str:
            return src[n.start_byte : n.end_byte].decode("utf-8", "replace")

        def span(n: Node) -> Span:
            return Span(base + n.start_byte, base + n.end_byte)

        # ---- dispatch the matches: deep query first, then the module-level ones (the order
        # decides which name a function node keeps and the order of equal-span facts)
        for q, kinds, top in qs[0]:
            cursor = QueryCursor(q)
            if top:
                cursor.set_max_start_depth(1)  # patterns are rooted at children of `program`
            for pi, c in cursor.matches(root):
                k = kinds[pi] or _kind(c)
                if k == "call":
                    calls.append(c)
                elif k == "scope":
                    scopes.append(c["scope"][0])
                elif k == "local.name":
                    kind = c.get("local.kind")
                    locals_.append((c["local.name"][0], c["local.value"][0], bool(kind) and kind[0].type == "const"))
                elif k == "function":
                    fn = c["function"][0]
                    if "function.name" in c:
                        nn = c["function.name"][0]
                        if fn.id not in names:
                            names[fn.id] = (text(nn), nn, fn)
                    elif "function.member" in c:
                        nn = c["function.member"][0]
                        segs = self.dotted(nn)
                        if segs and fn.id not in names:
                            names[fn.id] = (".".join(segs), nn, fn)
                elif k == "definition.variable":
                    nn = c["definition.variable"][0]
                    definitions.append(Definition(text(nn), "variable", span(nn)))
                    value = c.get("definition.value")
                    if value:
                        kind = c.get("definition.kind")
                        top_vars.append((nn, value[0], bool(kind) and kind[0].type == "const"))
                elif k in _DEFINITION_KINDS:  # function, class, enum names
                    nn = c[k][0]
                    definitions.append(Definition(text(nn), _DEFINITION_KINDS[k], span(nn)))
                elif k == "export":
                    exports.append(c)
                elif k == "import.source":
                    self.on_import(c)
                elif k == "method":
                    fn = c["method"][0]
                    nn = c["method.name"][0]
                    qual = f"{text(c['method.class'][0])}.{text(nn)}"
                    if fn.id not in names:
                        names[fn.id] = (qual, nn, fn)
                    definitions.append(Definition(qual, "method", span(nn)))
                elif k == "class":
                    n = c["class"][0]
                    self.classes.append((n.start_byte, n.end_byte, text(c["class.name"][0])))
                elif k == "assigned":
                    assigned.add(text(c["assigned"][0]))
                elif k == "function.default":
                    fn = c["function.default"][0]
                    if fn.id not in names:
                        names[fn.id] = ("default", fn, fn)
                elif k == "require.source":
                    self.on_require(c)
                elif k == "commonjs":
                    commonjs.append(c)
                elif k == "client":
                    clients.append(c)
                elif k == "angular.name":
                    angular.append(c)
                elif k == "server.name":
                    factory = text(c["server.factory"][0])
                    servers[text(c["server.name"][0])] = "fastify" if "astify" in factory else "express"
                elif k == "enum.member":
                    enums.append(c)

        # ---- function-like nodes: nesting, names (pre-order: sorted by start, outer first)
        if scopes:
            keyed = [(n.start_byte, -n.end_byte, i) for i, n in enumerate(scopes)]
            keyed.sort()
            stack: list[_Fn] = []
            fns = self.fns
            fn_by_id = self.fn_by_id
            for s, e, i in keyed:
                n = scopes[i]
                f = _Fn(n, s, -e)
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
        if locals_ and self.fns:
            locate = self.locate
            for nn, value, is_const in locals_:
                f = locate(nn)
                if f is not None:
                    raw = src[nn.start_byte : nn.end_byte]
                    loc = f.locals
                    name = raw.decode("utf-8", "replace")
                    if name not in loc:
                        loc[name] = (value, is_const)
                    maybe.add(raw)

        # ---- functions (their parameters are what call arguments can refer to as Arg)
        functions = out.functions
        fn_by_id = self.fn_by_id
        param_list = self.param_list
        for name, nn, fn in names.values():
            plist = param_list(fn)
            functions.append(
                FunctionDef(name, tuple([lbl for lbl, _ in plist]), span(fn), span(nn))
            )
            f = fn_by_id.get(fn.id)
            if f is not None and f._params is None:
                f._params = p = {}
                for index, (_, binds) in enumerate(plist):
                    for bound, fld in binds:
                        if bound not in p:
                            p[bound] = (index, fld)
                        maybe.add(bound.encode("utf-8"))

        # ---- constants
        for nn, value, is_const in top_vars:
            if is_const and value.type in _STRINGISH:
                r = self.ev(value, None, None)
                if r is not None:
                    out.constants.append((base + nn.start_byte, text(nn), r))
        for key, qual, value in member_constants:
            r = self.ev(value, None, None)
            if r is not None:
                out.constants.append((base + key.start_byte, qual, r))
        for c in enums:
            value = c["enum.value"][0]
            if value.type in _STRINGISH:
                r = self.ev(value, None, None)
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
        seen: set[tuple[str, str]] = set()
        for c in angular:
            nn = c["angular.name"][0]
            cls = text(c["angular.class"][0])
            key = (cls, text(nn))
            if key in seen:
                continue
            seen.add(key)
            out.clients.append(ClientDef(f"this.{text(nn)}", "angular", None, span(nn), cls))

        # ---- calls and routes
        on_call = self.on_call
        for c in calls:
            on_call(c, servers)

    # ------------------------------------------------------------------ handlers

    def on_import(self, c: dict) -> None:
        module = self.string_value(c["import.source"][0])
        out = self.out.imports
        if "import.default" in c:
            n = c["import.default"][0]
            out.append(Import(module, "default", self.text(n), self.span(n)))
            self.import_modules[self.text(n)] = module
        elif "import.namespace" in c:
            n = c["import.namespace"][0]
            out.append(Import(module, "*", self.text(n), self.span(n)))
            self.import_modules[self.text(n)] = module
        elif "import.name" in c:
            n = c["import.name"][0]
            name = self.key_text(n) or self.text(n)
            alias = c.get("import.alias")
            local = self.text(alias[0]) if alias else name
            end = alias[0] if alias else n
            out.append(Import(module, name, local, Span(self.base + n.start_byte, self.base + end.end_byte)))
            self.import_modules[local] = module

    def on_require(self, c: dict) -> None:
        module = self.string_value(c["require.source"][0])
        out = self.out.imports
        if "require.local" in c:
            n = c["require.local"][0]
            out.append(Import(module, "default", self.text(n), self.span(n)))
            self.import_modules[self.text(n)] = module
        elif "require.name" in c:
            n = c["require.name"][0]
            name = self.key_text(n) or self.text(n)
            alias = c.get("require.alias")
            local = self.text(alias[0]) if alias else name
            end = alias[0] if alias else n
            out.append(Import(module, name, local, Span(self.base + n.start_byte, self.base + end.end_byte)))

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
            out.append(Export(exported, name, span(c["export.specifier"][0]), module))
        elif "export.star" in c:
            src = c["export.star"][0]
            out.append(Export("*", "*", span(src), self.string_value(src)))
        elif "export.namespace" in c:
            n = c["export.namespace"][0]
            src = c["export.source"][0]
            out.append(Export(text(n), "*", span(n), self.string_value(src)))

    def on_commonjs(self, c: dict) -> None:
        out = self.out.exports
        stmt = c["commonjs"][0]
        if "commonjs.default" in c:
            v = _unwrap(c["commonjs.default"][0])
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

    def on_client(self, c: dict) -> None:
        lib = c["client.library"][0]
        node = c["client"][0]
        segs = self.dotted(lib)
        if not segs:
            return
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
            return
        f = self.locate(node)
        named = f.named if f is not None else None
        for a in c["client.arguments"][0].named_children:
            if a.type == "object":
                ov = self.obj(a, f, named, 0)
                for k in BASE_KEYS:
                    v = ov.get(k)
                    if type(v) is StrVal:
                        base = v.expr  # type: ignore[union-attr]
                        break
                break
        name_nodes = c.get("client.name")
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
        self.out.clients.append(ClientDef(name, kind, base, self.span(nn), scope))

    def on_call(self, c: dict, servers: dict[str, str]) -> None:
        # Runs for every call in the file: the common (rejected) path only slices bytes.
        src = self.src
        fn = c["call.function"][0]
        ft = fn.type
        if ft == "member_expression":
            last = src[fn.start_byte : fn.end_byte].rsplit(b".", 1)[-1].strip()
        elif ft == "identifier":
            last = src[fn.start_byte : fn.end_byte]
        else:
            last = b""
        hit = last in _HIT
        args = c["call.arguments"][0].named_children
        if hit:
            if ft == "member_expression" and last in _ROUTE_METHODS_B and self.on_route(fn, args, servers):
                return
        else:
            if not args or last in _NOT_CALLS_B or ft == "import":
                return
            # quick reject of calls whose arguments cannot be URL-like (most calls)
            maybe = self.maybe
            for a in args:
                t = a.type
                if t == "string":
                    if b"/" in src[a.start_byte : a.end_byte]:
                        break
                elif t == "identifier":
                    if src[a.start_byte : a.end_byte] in maybe:
                        break
                elif t == "member_expression":
                    if src[a.start_byte : a.end_byte].split(b".", 1)[0].rstrip(b"?") in maybe:
                        break
                elif t == "object":
                    raw = src[a.start_byte : a.end_byte]
                    if b"url" in raw or b"path" in raw or b"baseURL" in raw:
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
            )
        )

    def on_route(self, fn: Node, args: list[Node], servers: dict[str, str]) -> bool:
        """Record ``app.get('/users/:id', handler)`` as a Route (and not as a call)."""
        if len(args) < 2 or args[0].type != "string" or args[-1].type not in _ROUTE_HANDLERS:
            return False
        obj = fn.child_by_field_name("object")
        prop = fn.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier":
            return False
        recv = self.text(obj)
        if recv not in servers and recv not in ROUTE_RECEIVERS:
            return False
        path = _ROUTE_PARAM.sub(r"{\1}", self.string_value(args[0]))
        framework = servers.get(recv, "express")
        self.out.routes.append(Route(self.text(prop).upper(), path, self.span(args[0]), framework))
        return True


def _url_like(v: ArgVal) -> bool:
    if type(v) is StrVal:
        expr = v.expr  # type: ignore[union-attr]
        if expr and type(expr[0]) is Arg:
            return True
        return any(type(p) is Lit and "/" in p.text for p in expr)  # type: ignore[union-attr]
    if type(v) is ObjVal:
        return any(k in URL_KEYS for k, _ in v.fields)  # type: ignore[union-attr]
    return False


def _unwrap(n: Node) -> Node:
    while n.type in _WRAPPERS:
        inner = n.named_child(0)
        if inner is None:
            break
        n = inner
    return n


def _has_default(stmt: Node) -> bool:
    for ch in stmt.children:
        t = ch.type
        if t == "default":
            return True
        if ch.is_named and t != "decorator":
            return False
    return False


def _descendant_idents(n: Node) -> list[Node]:
    """Identifier-like nodes under ``n`` in source order (small template pieces only)."""
    if n.type in _IDENTS:
        return [n]
    found: list[Node] = []
    for ch in n.named_children:
        found.extend(_descendant_idents(ch))
    return found


def extract_ecma(path: str, text: str, grammar: str) -> FileFacts:
    """Facts of a JavaScript / TypeScript / TSX file (``grammar`` is ``javascript``,
    ``typescript`` or ``tsx``). Never raises; on an internal error returns what it has."""
    out = EcmaCollector()
    try:
        out.add(text.encode("utf-8"), grammar, 0, key=path)
    except Exception:  # noqa: BLE001 - extraction must never take the server down
        pass
    try:
        return out.facts(path, grammar)
    except Exception:  # noqa: BLE001
        return FileFacts(path=path, language=grammar)
