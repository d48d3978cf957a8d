"""What the linker produces: ``HttpCall``, one resolved HTTP call, and ``finish``, which
turns a resolved URL expression into one (template, relative part, host; every candidate
path of a conditional URL). Pure; ``http.py`` decides which call sites are HTTP calls and
resolves their URL expressions."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Alt, ObjVal, Read, Span, UrlExpr
from .urls import MAX_CANDIDATES, expand, url_of


@dataclass(frozen=True)
class HttpCall:
    """One resolved HTTP call. ``template`` is the full path template (scheme and host
    dropped, query dropped) or None when unresolved; ``relative`` is the part after a base
    URL that came from a client or a base constant (None when there was no such base);
    ``host`` is the host of an absolute URL, and ``reason`` says why a call is unresolved."""

    file: str
    span: Span
    call_span: Span
    method: str
    template: str | None
    relative: str | None = None
    host: str | None = None
    reason: str | None = None
    via: str = ""
    base_unknown: bool = False  # a leading base was dropped (environment, configuration)
    # the client or base the call goes through ("" for none): calls of one channel share the
    # frame they are judged in (analyzers/matching.py)
    channel: str = ""
    # a conditional URL: (template, relative, reason) of each candidate path; empty otherwise
    candidates: tuple[tuple[str | None, str | None, str | None], ...] = ()
    # the client may add a base specward cannot see (an Angular interceptor, axios defaults)
    implicit: bool = False
    # an absolute URL to a host no base or constant of its file names: the API's only when a
    # contract's servers name that host (judged with the contracts)
    external: bool = False
    # what the call sends and reads, for the field checks (analyzers/fields.py): the JSON
    # body when it is an object (literal, or known through a variable or a wrapper's
    # parameter), the query parameters when they are an object, the names a query string
    # written into the URL sets, and the reads of the response body (steps from the body:
    # property names, ``[]`` for an element, ``name()`` for a method)
    body: ObjVal | None = None
    params: ObjVal | None = None
    query: tuple[str, ...] = ()
    reads: tuple[Read, ...] = ()


def finish(path: str, span: Span, call_span: Span, method: str, url: UrlExpr, base_len: int,
           via: str, channel: str = "", api_hosts: frozenset[str] = frozenset(), implicit: bool = False
           ) -> HttpCall | None:
    """Turn a resolved URL expression into an ``HttpCall`` (template, relative, host; every
    candidate path of a conditional URL)."""
    if not any(type(p) is Alt for p in url):  # the usual case: one path
        r = url_of(url, base_len)
        if r.kind == "skip":
            return None
        external = r.external and not (r.host is not None and r.host.lower() in api_hosts)
        return HttpCall(path, span, call_span, method, r.template, r.relative, r.host,
                        f"external host {r.host}" if external else r.reason, via, r.base_unknown, channel, (),
                        implicit, external)
    options = expand(url, base_len)
    if len(options) > MAX_CANDIDATES:
        return HttpCall(path, span, call_span, method, None,
                        reason=f"a conditional URL with more than {MAX_CANDIDATES} candidate paths",
                        via=via, channel=channel)
    results = []
    for u, bl in options:
        r = url_of(u, bl)
        if r.kind == "skip":
            continue
        if r.external and r.host is not None and r.host.lower() in api_hosts:
            r = r._replace(external=False)
        if r.external:
            r = r._replace(reason=f"external host {r.host}")
        results.append(r)
    if not results:
        return None
    seen: set = set()
    unique = []
    for r in results:
        key = (r.template, r.relative, r.reason)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    main = next((r for r in unique if r.template is not None), unique[0])
    candidates = tuple((r.template, r.relative, r.reason) for r in unique) if len(unique) > 1 else ()
    return HttpCall(path, span, call_span, method, main.template, relative=main.relative, host=main.host,
                    reason=main.reason, via=via, base_unknown=any(r.base_unknown for r in unique),
                    channel=channel, candidates=candidates, implicit=implicit, external=main.external)
