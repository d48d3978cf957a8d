"""HTTP call sites of JavaScript and TypeScript files (``model.CallSite``), for ``ecma.py``'s
``_Program`` (a mixin: ``CallsMixin``): ``on_call``, run for every call the deep query finds
(the common, rejected path only slices bytes: a callee's last segment in ``_HIT``, else an
argument that may be URL-like, decided before any argument is evaluated, then ``_url_like``
on the evaluated values); the calls it hands on: a route method on an app or router
(``RoutesMixin.on_route``, a ``Route`` rather than a call), ``super(...)`` (``on_super``:
what a constructor passes to its base class, ``ClassDef.super_args``) and RTK Query's
``fetchBaseQuery({ baseUrl })`` (``rtk_base``: a ``ClientDef`` of kind ``rtk``). A recorded
call's ``reads`` come from ``ecma_reads.py`` (``call_reads``). ``URL_KEYS`` is also read by
``ecma._builder``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from .ecma_base import ProgramBase
from .ecma_exprs import _STRINGISH
from .ecma_routes import ROUTE_METHODS_B
from ..model import SPREAD, Alt, Arg, ArgVal, Call, CallSite, ClientDef, FnVal, Lit, ObjVal, Ref, Span, StrVal, UrlExpr

if TYPE_CHECKING:
    from .ecma import _Scope

__all__ = ["CallsMixin", "URL_KEYS"]

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
_HIT = frozenset(x.encode() for x in VERBS | ENTRY_POINTS) | frozenset(
    x.upper().encode() for x in VERBS)  # openapi-fetch: client.GET('/x')
_NOT_CALLS_B = frozenset(x.encode() for x in NOT_CALLS)
# names of constants that hold a path or a URL (decided on the name alone, so that each
# statement's facts stay independent of the others')
_URLISH_NAME = re.compile(rb"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$|[Pp]ath|[Uu]rl|URL|[Uu]ri\b|[Rr]oute|[Ee]ndpoint")


class CallsMixin(ProgramBase):
    """The call-site methods of ``ecma._Program`` (which provides ``span``, ``callee_text``,
    ``locate``, ``arg``, ``value`` and ``obj`` (``ExprsMixin``), ``enclosing_class``
    (``ClientsMixin``), ``on_route`` (``RoutesMixin``), ``call_reads`` (``ReadsMixin``) and
    the tables ``out``, ``fns``, ``maybe``, ``super_args``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        fns: list[_Scope]
        maybe: set[bytes]
        super_args: dict[str, tuple[ArgVal, ...]]

        def callee_text(self, fn: Node) -> str: ...
        def locate(self, n: Node) -> _Scope | None: ...
        def arg(self, n: Node, rec: _Scope | None, scope: _Scope | None) -> ArgVal: ...
        def value(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int = 0) -> ArgVal: ...
        def obj(self, n: Node, rec: _Scope | None, scope: _Scope | None, depth: int) -> ObjVal: ...
        def enclosing_class(self, pos: int) -> str | None: ...
        def on_route(self, fn: Node, args: list[Node], call: Node) -> bool: ...
        def call_reads(self, call: Node, awaited: Node | None, fn: Any) -> tuple: ...

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
