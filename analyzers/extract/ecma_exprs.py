"""URL expressions and argument values of JavaScript and TypeScript expressions, for
``ecma.py``'s ``_Program`` (a mixin: ``ExprsMixin``): ``expr`` evaluates an expression into
a URL expression (None: not string-like), ``template`` a template literal, ``call_expr`` a
call inside one (string methods, encoders, a ``Call`` the linker may follow), ``value`` any
expression into an argument value (``obj``: an object literal), names resolved in a
``_Scope`` (``ident``, ``member``, ``local_value``); ``returned`` and ``may_build``: what a
function returns and whether it may be a URL builder; ``typed_value``: the type a name is
declared with. Also what the rest of the extractor shares with them: ``unescape``
(JavaScript string escapes) and ``_STRINGISH`` (the expression types evaluated as
string-like values).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .ecma_base import ProgramBase
from .names import BASE_FIELD
from .urlexpr import merge
from .ecma_values import SEARCH_PARAMS, STRINGIFY, literal_key, passes_through
from .ecma_routes import FUNCTION_NODES, WRAPPERS, unwrap
from ..model import (
    SPREAD,
    Alt,
    Arg,
    ArgVal,
    Call,
    Env,
    FnVal,
    Key,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Part,
    Ref,
    Span,
    StrVal,
    Unknown,
    UrlExpr,
)

if TYPE_CHECKING:
    from .ecma import _Scope

__all__ = ["ExprsMixin", "unescape"]

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
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


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


_unwrap = unwrap  # (ecma_routes.unwrap: parentheses, `as`, `!`, `satisfies` and the like)


def _run_time(segs: list[str]) -> UrlExpr:
    """A field of a value only known at run time: a base URL when named like one
    (``globals.serverAddr``, ``settings.address``, ``config.apiBaseUrl``), else a value."""
    if BASE_FIELD.search(segs[-1]):
        return (Env(".".join(segs)),)
    return (Param(segs[-1]),)


class ExprsMixin(ProgramBase):
    """The URL-expression and value methods of ``ecma._Program`` (which provides ``text``,
    ``span``, ``string_value``, ``key_text``, ``dotted``, ``callee_text``, ``subst_name``,
    ``params``, ``param_info`` and the tables ``assigned``, ``fn_by_id``, ``values``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        assigned: set[str]
        values: dict[tuple, ArgVal | None]

        def callee_text(self, fn: Node) -> str: ...
        def subst_name(self, n: Node | None) -> str: ...
        def param_info(self, n: Node) -> tuple[str, list[tuple[str, str | None]]] | None: ...

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
