"""What an HTTP call sends and what its caller reads of the answer, per client library: pure
helpers of the linker (``analyzers/http.py``) for the field checks (``analyzers/fields.py``).

* ``payload(kind, verb, site)``: the request body and the query parameters of a library call,
  as the library takes them (axios ``data``/second argument and ``params``, ``fetch``'s
  ``body: JSON.stringify(...)``, ky ``json``/``searchParams``, ofetch ``body``/``query``,
  Angular's body argument and ``params``, openapi-fetch ``body``/``params.query``,
  ``requests``/``httpx`` ``json=``/``params=``, an RTK Query ``query`` object);
* ``bind(value, site, params)``: a wrapper's body or parameters with its caller's values in
  place of the wrapper's own parameters (``send({ data })`` inside ``post(path, data)``);
* ``body_reads(kind, reads)``: the reads of a call's value turned into reads of the response
  body (axios ``.data``, ``fetch``'s ``.json()``, ``r.json()`` in Python, openapi-fetch's
  ``{ data }``), and ``returns(kind, reads)``: what a wrapper hands its callers;
* ``typed(value, declared)``: a body whose values of a declared type (a spread ``...note``
  of ``note: NoteInput``, or the body itself) are replaced by the keys that type declares;
* ``query_names(url)``: the parameter names a query string written into the URL sets.
"""

from __future__ import annotations

import re
from typing import Callable

from .callsites import value_of
from .model import SPREAD, Arg, ArgVal, CallSite, FnVal, Key, Lit, ObjVal, OtherVal, Read, Span, StrVal, UrlExpr

# the verbs whose second argument is the body (axios, Angular's HttpClient)
_BODY_VERBS = frozenset({"post", "put", "patch"})
_NAME = re.compile(r"^[A-Za-z_][\w.\-\[\]]*$")


def _obj(v: ArgVal | None) -> ArgVal | None:
    """A value usable as a body or a parameter set: an object, a wrapper's parameter (bound
    at its callers), or a value of a declared type (``typed``); anything else is not judged."""
    if v is None:
        return None
    if type(v) is ObjVal and (v.keys or all(k == SPREAD for k, _ in v.fields)):
        return v  # (an object of spreads alone, `{ ...note }`, too; not an array)
    if type(v) is StrVal and (len(v.expr) == 1 and type(v.expr[0]) is Arg or v.type_name):
        return v
    return None


def payload(kind: str, verb: str | None, site: CallSite) -> tuple[ArgVal | None, ArgVal | None]:
    """(body, query parameters) of a library call, each an ``ObjVal``, a wrapper's parameter
    (``StrVal`` of one ``Arg``), or None when not visible."""
    args, kwargs = site.args, dict(site.kwargs)
    first = args[0] if args else None
    second = args[1] if len(args) > 1 else None
    third = args[2] if len(args) > 2 else None
    if kind in ("requests", "httpx", "aiohttp"):
        return _obj(kwargs.get("json")), _obj(kwargs.get("params"))
    if kind == "axios" or kind == "angular":
        if verb in _BODY_VERBS:
            config = third
            body = second
        elif verb in (None, "request") and type(first) is ObjVal:
            config, body = first, first.get("data") if kind == "axios" else first.get("body")
        else:
            config, body = second, None
        if type(config) is ObjVal and config.get("data") is not None and body is None:
            body = config.get("data")
        params = config.get("params") if type(config) is ObjVal else None
        return _obj(body), _obj(params)
    if kind in ("fetch", "ky", "ofetch"):
        init = second if type(first) is not ObjVal else first
        if type(init) is not ObjVal:
            return None, None
        if kind == "fetch":
            return _obj(init.get("body")), None
        if kind == "ky":
            return _obj(init.get("json")), _obj(init.get("searchParams"))
        return _obj(init.get("body")), _obj(init.get("query") or init.get("params"))
    if kind == "openapi-fetch":
        init = second
        if type(init) is not ObjVal:
            return None, None
        return _obj(init.get("body")), _obj(init.get("params.query"))
    if kind == "hey-api" and type(first) is ObjVal:  # `client.post({ url, body, query })`
        return _obj(first.get("body")), _obj(first.get("query"))
    if kind == "rtk" and type(first) is ObjVal:
        q = first.get("query")
        if type(q) is FnVal:
            q = q.returns
        if type(q) is ObjVal:
            return _obj(q.get("body")), _obj(q.get("params"))
    return None, None


def bind(value: ArgVal | None, site: CallSite, params: tuple[str, ...]) -> ArgVal | None:
    """A wrapper's body (or parameter set) as one of its callers sends it: its parameters
    replaced by what the caller passes, in the value itself and in its spreads."""
    if value is None:
        return None
    if type(value) is StrVal:
        arg = value.expr[0] if len(value.expr) == 1 else None
        if type(arg) is not Arg:
            return None  # (a typed value of the wrapper's own is an object by now: ``typed``)
        got = value_of(site.args, site.kwargs, arg, params)  # type: ignore[arg-type]
        return _obj(got)
    if type(value) is ObjVal:
        return _bind_object(value, site, params)
    return value


# the span of a key a wrapper writes itself: sent by every caller, so it counts as sent, but
# it is not written at the call (the checker does not report it there)
FOREIGN = Span(-1, -1)


def _bind_object(value: ObjVal, site: CallSite, params: tuple[str, ...]) -> ObjVal:
    keys = tuple(Key(k.name, FOREIGN) for k in value.keys)
    fields = []
    for k, v in value.fields:
        if k == SPREAD and type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg:
            got = value_of(site.args, site.kwargs, v.expr[0], params)  # type: ignore[arg-type]
            if type(got) is not ObjVal and not (type(got) is StrVal and got.type_name):  # type: ignore[union-attr]
                got = OtherVal(v.span)  # (a typed value of the caller's is judged by its type)
            fields.append((k, got))  # type: ignore[arg-type]
        elif k == SPREAD:
            fields.append((k, v))
    return ObjVal(tuple(fields), FOREIGN, keys, value.computed)


def settled(value: ArgVal | None) -> ObjVal | None:
    """The body or parameter set of a call as judged: an object, with no wrapper parameter
    left in it (a spread of one is something unseen)."""
    if type(value) is not ObjVal:
        return None
    if any(k == SPREAD and type(v) is not ObjVal for k, v in value.fields):
        fields = tuple((k, v if type(v) is ObjVal or k != SPREAD else OtherVal(v.span)) for k, v in value.fields)
        return ObjVal(fields, value.span, value.keys, value.computed)
    return value


# --------------------------------------------------------------------------- typed values


def typed(value: ArgVal | None, declared: Callable[[str], "tuple[str, ...] | None"], wrapper: bool = False,
          depth: int = 0) -> ArgVal | None:
    """A body with each value of a declared type in it (``StrVal.type_name``: a spread
    ``...note`` of ``note: NoteInput``, a key's value, or the body itself) replaced by an
    object of the keys that type declares (``declared(type_name)``: the type as written in the
    body's file; None when it is not a closed workspace type, and the value stays unseen).
    Those keys carry the value's span and their ``origin`` (``NoteInput via ...note``); the
    object counts them as every key the value sends (``docs/fields.md``, "Typed values").

    ``wrapper``: the body of a wrapper, resolved in the wrapper's file: its parameters stay
    (its callers' values, bound by ``bind``), and the keys its own typed values give are
    ``FOREIGN`` (sent by every caller, written at none)."""
    if type(value) is StrVal:
        return _typed(value, declared, "", wrapper)
    if type(value) is not ObjVal or depth > 6:
        return value
    changed = False
    fields = []
    for k, v in value.fields:
        got: ArgVal | None = v
        if type(v) is StrVal:
            got = _typed(v, declared, "..." if k == SPREAD else "", wrapper)
        elif type(v) is ObjVal:
            got = typed(v, declared, wrapper, depth + 1)
        changed = changed or got is not v
        fields.append((k, got))
    return ObjVal(tuple(fields), value.span, value.keys, value.computed) if changed else value  # type: ignore[arg-type]


def _typed(v: StrVal, declared: Callable[[str], "tuple[str, ...] | None"], how: str, wrapper: bool) -> ArgVal:
    if not v.type_name:
        return v
    if wrapper and len(v.expr) == 1 and type(v.expr[0]) is Arg:
        return v  # a parameter of the wrapper: what each caller passes
    names = declared(v.type_name)
    if names is None:  # (not to be read again in a caller's file, where the name means nothing)
        return StrVal(v.expr, v.span) if wrapper else v
    span = FOREIGN if wrapper else v.span
    origin = f"{v.type_name} via {how}{v.name}"
    return ObjVal((), span, tuple(Key(n, span, origin=origin) for n in names))


# --------------------------------------------------------------------------- reads

# How the body is reached from a library call's value: a step to take after the awaits
# (axios `.data`, fetch `.json()`), and whether awaits follow it (`await res.json()`).
_UNWRAP: dict[str, tuple[str, ...]] = {
    "axios": ("data",),
    "fetch": ("json()",),
    "ky": ("json()",),
    "ofetch": (),
    "requests": ("json()",),
    "httpx": ("json()",),
    "aiohttp": ("json()",),
    "openapi-fetch": ("data",),
    "hey-api": ("data",),
}


def _strip(steps: tuple[str, ...], spans: tuple, path: tuple[str, ...]) -> tuple[tuple[str, ...], tuple] | None:
    """``steps`` after the awaits and the ``path`` to the body (and the awaits after it), or
    None when they go elsewhere (``res.status``, ``res.headers``)."""
    i = 0
    n = len(steps)
    while i < n and steps[i] == "await":
        i += 1
    for want in path:
        if i >= n or steps[i] != want:
            return None
        i += 1
        while i < n and steps[i] == "await":
            i += 1
    return steps[i:], spans[i:]


def body_reads(kind: str, reads: tuple[Read, ...], through: tuple[str, ...] | None = None) -> tuple[Read, ...]:
    """The reads of the response body among the reads of a call's value. ``through``: the
    steps from the value to the body when it is not the library's own (a wrapper's)."""
    path = through if through is not None else _UNWRAP.get(kind)
    if path is None:
        return ()
    out = []
    for r in reads:  # (a read whose value is returned is a read all the same)
        got = _strip(r.steps, r.spans, path)
        if got is not None and got[0]:
            out.append(Read(got[0], got[1]))
    return tuple(out)


def returns(kind: str, reads: tuple[Read, ...], through: tuple[str, ...] | None = None
            ) -> tuple[str, ...] | None:
    """What a wrapper's callers must take from its value to reach the response body: ``()``
    when it returns the body itself (``return res.data``), the library's own path when it
    returns the library's value (``return axios.get(u)``), None when it returns something
    else or nothing visible."""
    path = through if through is not None else _UNWRAP.get(kind)
    if path is None:
        return None
    found: tuple[str, ...] | None = None
    for r in reads:
        if not r.returned:
            continue
        steps = tuple(s for s in r.steps if s != "await")
        if not steps:
            got = path
        elif steps == path:
            got = ()
        else:
            return None  # returns a part of it, or something made from it
        if found is not None and found != got:
            return None
        found = got
    return found


# --------------------------------------------------------------------------- query strings


def query_names(url: UrlExpr) -> tuple[str, ...]:
    """The names a query string written into the URL sets: ``/items?page=${p}&size=20`` gives
    ``page``, ``size``. Only names written literally count; a query built elsewhere gives none."""
    text = []
    started = False
    for part in url:
        if type(part) is Lit:
            t = part.text
            if not started:
                q = t.find("?")
                if q < 0:
                    continue
                started = True
                t = t[q + 1:]
            text.append(t)
        elif started:
            text.append("\0")  # a value (or a name) not known here
    if not started:
        return ()
    names = []
    for piece in "".join(text).split("#", 1)[0].split("&"):
        name, eq, _ = piece.partition("=")
        if eq and "\0" not in name and _NAME.match(name) and name not in names:
            names.append(name)
    return tuple(names)
