"""Call sites and their URL expressions: pure helpers of the linker (``analyzers/http.py``).

What a caller passes for a wrapper's parameters (``value_of``, ``substitute``), whether a
parameter forwards the path or fills one segment (``forwards_path``), how a client joins its
base and a path (``join_base``), what a request object or an SWR key holds (``url_field``,
``key_of``), which method a value names (``method_of``), and the project a file belongs to.
No cross-file lookups here: those are ``analyzers/symbols.py``'s.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .model import (
    Alt,
    Arg,
    ArgVal,
    Call,
    CallSite,
    FnVal,
    FunctionDef,
    HTTP_METHODS,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Part,
    Ref,
    Env,
    Span,
    StrVal,
    Unknown,
    UrlExpr,
)
from .extract.names import BASE_FIELD
from .urls import SCHEME

MONOREPO_FOLDERS = frozenset({"apps", "packages", "services", "libs", "projects", "modules", "clients", "sdks"})
_PATHISH = re.compile(r"^(path|url|uri|endpoint|route|resource|href|pathname|p|u)$|Path$|Url$|_path$|_url$", re.I)


def bind_fields(site: CallSite, values: dict[str, ArgVal]) -> tuple[CallSite, Span] | None:
    """``site`` with ``this.<field>...`` in its string arguments replaced by the values a
    subclass passes for those fields (and the span of the value used), or None when it reads
    none of them."""
    used: list[Span] = []

    def field_value(dotted: str) -> StrVal | None:
        head, _, rest = dotted.partition(".")
        if head != "this" or not rest:
            return None
        field_name, _, key = rest.partition(".")
        v = values.get(field_name)
        if v is None:
            return None
        if key:
            v = v.get(key) if type(v) is ObjVal else None  # type: ignore[union-attr]
        return v if type(v) is StrVal else None  # type: ignore[return-value]

    def bind(expr: UrlExpr) -> UrlExpr:
        out: list[Part] = []
        for p in expr:
            t = type(p)
            got = None
            if t is Ref:
                got = field_value(p.name)  # type: ignore[union-attr]
            elif t is Call:
                receiver, _, method = p.callee.rpartition(".")  # type: ignore[union-attr]
                if method in ("replace", "replaceAll", "toString", "trim"):
                    got = field_value(receiver)
            if got is not None:
                used.append(got.span)
                out.extend(got.expr)
            else:
                out.append(p)
        return tuple(out)

    args = tuple(StrVal(bind(a.expr), a.span) if type(a) is StrVal else a for a in site.args)  # type: ignore[union-attr]
    if not used:
        return None
    span = used[0]
    args = tuple(StrVal(a.expr, span) if type(a) is StrVal and a != b else a for a, b in zip(args, site.args))  # type: ignore[union-attr]
    return replace(site, args=args), span


def flat(url: UrlExpr) -> list[Part]:
    """The parts of a URL expression with conditional options and builder calls opened."""
    out: list[Part] = []
    for p in url:
        t = type(p)
        if t is Alt:
            for o in p.options:  # type: ignore[union-attr]
                out.extend(flat(o))
        elif t is Call:
            for a in p.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    out.extend(flat(a.expr))  # type: ignore[union-attr]
        else:
            out.append(p)
    return out


def url_field(obj: ObjVal) -> ArgVal | None:
    """The URL of a request object: its ``url``, else its ``path`` when that is a string
    (generated clients pass ``path: { petId }`` for the parameters next to ``url``)."""
    url = obj.get("url")
    if url is not None and type(url) is not OtherVal:
        return url
    path = obj.get("path")
    if type(path) is StrVal:
        return path
    return url if url is not None else (path if type(path) is not ObjVal else None)


def starts_with_slash(v: ArgVal | None) -> bool:
    return type(v) is StrVal and bool(v.expr) and type(v.expr[0]) is Lit and v.expr[0].text.startswith("/")  # type: ignore[union-attr]


def key_of(v: ArgVal) -> ArgVal | None:
    """The URL an SWR-style key stands for: the first item of a key array, what a key
    function returns."""
    for _ in range(3):
        if type(v) is FnVal:
            v = v.returns  # type: ignore[union-attr,assignment]
        elif type(v) is ObjVal and v.get("0") is not None and v.get("url") is None and v.get("path") is None:  # type: ignore[union-attr]
            v = v.get("0")  # type: ignore[union-attr,assignment]
        else:
            break
    return v


def object_request(site: CallSite) -> bool:
    """A call of an unknown function passing a request object: a URL and a method written
    in the object (a spread of the caller's options is not enough to say so)."""
    for a in site.args:
        if type(a) is ObjVal and (a.own("url") or a.own("path")) is not None and url_field(a) is not None:  # type: ignore[union-attr,arg-type]
            m = a.own("method")  # type: ignore[union-attr]
            if type(m) is StrVal and (method_of(m) or any(type(p) is Arg for p in m.expr)):  # type: ignore[union-attr]
                return True
    return False


def method_of(val: object) -> object:
    """A method (``"GET"``), the caller's (``Arg``), one of several (``("POST", "PUT")`` for
    ``id ? 'PUT' : 'POST'``, in the branches' order), or None when it cannot be seen."""
    if type(val) is StrVal:
        if len(val.expr) == 1:  # type: ignore[attr-defined]
            p = val.expr[0]  # type: ignore[attr-defined]
            if type(p) is Lit and p.text.upper() in HTTP_METHODS:
                return p.text.upper()
            if type(p) is Arg:
                return p
            if type(p) is Alt:
                methods = []
                for o in p.options:  # type: ignore[union-attr]
                    m = method_of(StrVal(o, val.span)) if len(o) == 1 else None  # type: ignore[attr-defined]
                    if not isinstance(m, str):
                        return None
                    methods.append(m)
                return tuple(methods)
    return None


def split_alt(url: UrlExpr, n: int) -> list[UrlExpr] | None:
    """The URL once per option of its first conditional piece with ``n`` options (the one a
    conditional method of ``n`` options goes with), or None when there is none."""
    for i, p in enumerate(url):
        if type(p) is Alt and len(p.options) == n:  # type: ignore[union-attr]
            return [url[:i] + tuple(o) + url[i + 1:] for o in p.options]  # type: ignore[union-attr]
    return None


def methods_of(method: object) -> tuple[str, ...]:
    if isinstance(method, tuple):
        return method
    if isinstance(method, str) and method.upper() in HTTP_METHODS:
        return (method.upper(),)
    return ("UNKNOWN",)


def arg_value(site: CallSite, arg: Arg, params: tuple[str, ...]) -> ArgVal | None:
    return value_of(site.args, site.kwargs, arg, params)


def value_of(args: tuple[ArgVal, ...], kwargs: tuple[tuple[str, ArgVal], ...], arg: Arg,
              params: tuple[str, ...]) -> ArgVal | None:
    """The caller's value for a parameter (a field of it, for a destructured parameter):
    None when the caller surely leaves it out, ``OtherVal`` when it cannot be seen."""
    val: ArgVal | None = None
    if arg.index < len(args):
        val = args[arg.index]
    elif arg.index < len(params):
        val = dict(kwargs).get(params[arg.index])
    if val is None:
        return None
    if arg.field is not None:
        if type(val) is ObjVal:
            return val.get(arg.field)  # type: ignore[union-attr]
        if type(val) is StrVal and len(val.expr) == 1 and type(val.expr[0]) is Arg:  # type: ignore[union-attr]
            inner = val.expr[0]  # type: ignore[union-attr]
            return StrVal((Arg(inner.index, f"{inner.field}.{arg.field}" if inner.field else arg.field),), val.span)
        return OtherVal(val.span)
    return val


def substitute(url: UrlExpr, site: CallSite, params: tuple[str, ...]) -> UrlExpr | None:
    return substitute_args(url, site.args, site.kwargs, params)


def substitute_args(url: UrlExpr, args: tuple[ArgVal, ...], kwargs: tuple[tuple[str, ArgVal], ...],
                     params: tuple[str, ...]) -> UrlExpr | None:
    """``url`` with the caller's values in place of its ``Arg`` parts (None: the caller
    does not pass the path)."""
    out: list[Part] = []
    for part in url:
        t = type(part)
        if t is Arg:
            val = value_of(args, kwargs, part, params)  # type: ignore[arg-type]
            if type(val) is StrVal:
                out.extend(val.expr)  # type: ignore[union-attr]
            elif val is None:
                return None
            else:
                out.append(Unknown("the wrapper's path argument is not a string expression"))
        elif t is Alt:
            options = []
            for o in part.options:  # type: ignore[union-attr]
                got = substitute_args(o, args, kwargs, params)
                options.append(got if got is not None else ())
            out.append(Alt(tuple(options)))
        elif t is Call:
            new_args = []
            for a in part.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    got = substitute_args(a.expr, args, kwargs, params)  # type: ignore[union-attr]
                    new_args.append(StrVal(got, a.span) if got is not None else OtherVal(a.span))  # type: ignore[union-attr]
                else:
                    new_args.append(a)
            out.append(Call(part.callee, tuple(new_args), part.name))  # type: ignore[union-attr]
        else:
            out.append(part)
    return tuple(out)


def base_arg(url: UrlExpr, params: tuple[str, ...]) -> bool:
    """``${opts.serverAddr}/api/assets``: a parameter named like a base, then a literal path
    and no other parameter. The call is made here, through a base only its caller knows."""
    if len(url) < 2 or type(url[0]) is not Arg or type(url[1]) is not Lit or not url[1].text.startswith("/"):  # type: ignore[union-attr]
        return False
    first = url[0]
    name = first.field or (params[first.index] if first.index < len(params) else "")  # type: ignore[union-attr]
    if not BASE_FIELD.search(name.rpartition(".")[2]):
        return False
    text = ""
    for p in flat(url[1:]):  # later parameters may only fill segments or the query
        if type(p) is Arg and not (text.endswith("/") or "?" in text):
            return False
        text += p.text if type(p) is Lit else "x"  # type: ignore[union-attr]
    return True


def args_to_params(url: UrlExpr, fn: FunctionDef | None) -> UrlExpr:
    out: list[Part] = []
    for i, p in enumerate(url):
        t = type(p)
        if t is Arg and i == 0 and base_arg(url, fn.params if fn is not None else ()):
            out.append(Env(arg_label(p, fn)))  # type: ignore[arg-type]
        elif t is Arg:
            out.append(Param(arg_label(p, fn)))  # type: ignore[arg-type]
        elif t is Alt:
            out.append(Alt(tuple(args_to_params(o, fn) for o in p.options)))  # type: ignore[union-attr]
        else:
            out.append(p)
    return tuple(out)


def arg_label(arg: Arg, fn: FunctionDef | None) -> str:
    if arg.field:
        return arg.field.rpartition(".")[2]
    if fn is not None and arg.index < len(fn.params):
        return fn.params[arg.index].strip("{}.").split(",")[0] or "param"
    return "param"


def forwards_path(url: UrlExpr, base_len: int, params: tuple[str, ...] = ()) -> bool:
    """True when an Arg supplies the path itself (``${API_ROOT}${url}``, ``BASE + '/' + path``,
    ``getQueryPath(path)``, ``/api${path}`` for a parameter named like a path), not one
    segment or a query value of a literal path (``/articles/${slug}``, ``/orders?limit=${n}``)."""
    if base_arg(url[base_len:], params):
        return False
    return bool(_forwards_in(url[base_len:], "", params)[0])


def _forwards_in(parts: UrlExpr, text_before: str, params: tuple[str, ...]) -> tuple[bool | None, str]:
    """(whether the first Arg met forwards the path, None when there is none; the text so far)."""
    for part in parts:
        t = type(part)
        if t is Arg:
            if not text_before.strip("/"):
                return True, text_before
            # glued to a literal without a slash: the rest of the path, when named like one
            name = part.field or (params[part.index] if part.index < len(params) else "")  # type: ignore[union-attr]
            glued = (not text_before.endswith("/") and "?" not in text_before and "=" not in text_before
                     and bool(_PATHISH.search(name.rpartition(".")[2])))
            return glued, text_before
        if t is Alt:
            verdicts = [_forwards_in(o, text_before, params)[0] for o in part.options]  # type: ignore[union-attr]
            if any(v is not None for v in verdicts):
                return any(verdicts), text_before
            text_before += "x"
        elif t is Call:
            for a in part.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    v = _forwards_in(a.expr, text_before, params)[0]  # type: ignore[union-attr]
                    if v is not None:
                        return v, text_before
            text_before += "x"
        else:
            text_before += part.text if t is Lit else "x"  # type: ignore[union-attr]
    return None, text_before


def join_base(base: UrlExpr, path: UrlExpr) -> UrlExpr:
    """``base`` + ``path`` the way clients join them (an absolute URL replaces the base).
    The parts stay separate so the caller knows where the base ends."""
    if path and type(path[0]) is Lit and SCHEME.match(path[0].text):  # type: ignore[union-attr]
        return path
    if path and type(path[0]) is Lit and base and type(base[-1]) is Lit:
        left, right = base[-1].text, path[0].text  # type: ignore[union-attr]
        if left.endswith("/") and right.startswith("/"):
            right = right[1:]
        elif not left.endswith("/") and not right.startswith("/") and right:
            right = "/" + right
        return base + (Lit(right),) + path[1:]
    if path and type(path[0]) is Lit and not path[0].text.startswith("/"):  # type: ignore[union-attr]
        return base + (Lit("/" + path[0].text),) + path[1:]  # type: ignore[union-attr]
    return base + path


def project_of(path: str) -> str:
    """The project a file belongs to, from its path alone: the first folder, or the first two
    for the usual monorepo folders (``apps/web``, ``packages/sdk``)."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] in MONOREPO_FOLDERS:
        return f"{parts[0]}/{parts[1]}"
    return parts[0] if len(parts) > 1 else ""
