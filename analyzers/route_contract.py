"""The backend's own routes as a contract (``contract_sources``, ``docs/routes.md``): the
composed routes (``routes.compose``) turned into the endpoints client calls are judged
against, and the rule that says when that judgement can be trusted.

Pure: composed routes and call statuses in, endpoints and verdicts out.
"""

from __future__ import annotations

from typing import Iterable

from .matching import CallStatus
from .model import Endpoint
from .routes import ComposedRoute


def handler_label(c: ComposedRoute) -> str:
    """``read_user in app/api/users.py`` (the route's file when its handler has no name)."""
    return f"{c.route.handler} in {c.file}" if c.route.handler else f"the route in {c.file}"


def route_endpoints(composed: Iterable[ComposedRoute]) -> tuple[list[Endpoint], str | None]:
    """(the endpoints of the resolved routes, why a call that matches none of them cannot be
    judged: some route's full path is not known, so it may be the one; None when all are
    known). One endpoint per method and full path (the first route in sort order wins; a
    path routed twice is the framework's first match too)."""
    seen: set[tuple[str, str]] = set()
    out: list[Endpoint] = []
    unknown: list[ComposedRoute] = []
    for c in composed:
        if c.unresolved is not None:
            unknown.append(c)
            continue
        key = (c.method, c.path)
        if key in seen:
            continue
        seen.add(key)
        span = c.route.handler_span if c.route.handler_span is not None and c.route.handler else c.route.span
        out.append(Endpoint(c.method, c.path, c.file, c.route.span, id=c.route.handler,
                            details=(("source", "routes"), ("handler", handler_label(c)),
                                     ("handler_span", (span.start, span.end)), ("framework", c.route.framework))))
    why = None
    if unknown:
        first = unknown[0]
        more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
        why = (f"the backend has routes whose full path is not known ({first.file}: {first.unresolved}{more}); "
               "the call may be to one of them")
    return out, why


def trusted(statuses: Iterable[CallStatus]) -> bool:
    """Whether the routes read are the API these calls use: at least half of the distinct
    paths the calls judged against them reach a route. Otherwise (a backend specward reads
    only part of, routes of another service) the phantoms they would give are not shown."""
    matched: set[tuple[str, str]] = set()
    missed: set[tuple[str, str]] = set()
    for st in statuses:
        template = st.call.template or ""
        if st.status == "matched":
            matched.add((st.call.method, template))
        elif st.status in ("phantom", "method-mismatch"):
            missed.add((st.call.method, template))
    return bool(matched) and 2 * len(matched) >= len(matched) + len(missed)


def _shared(a: str, b: str) -> int:
    """Leading segments two path templates share (any two parameters are the same)."""
    n = 0
    for x, y in zip([s for s in a.split("/") if s], [s for s in b.split("/") if s]):
        if x != y and not (x.startswith("{") and y.startswith("{")):
            break
        n += 1
    return n


def nearest_routes(composed: Iterable[ComposedRoute], method: str, path: str, limit: int = 3) -> list[ComposedRoute]:
    """The resolved routes closest to ``method path`` (a contract entry no route implements):
    most leading segments in common, then the same method; none that shares no segment."""
    scored = [(_shared(c.path, path), c.method == method, c) for c in composed if c.unresolved is None]
    scored = [s for s in scored if s[0] > 0]
    scored.sort(key=lambda s: (-s[0], not s[1], s[2].path, s[2].file, s[2].route.span.start))
    return [c for _, _, c in scored[:limit]]


def contract_for(endpoints: Iterable[Endpoint], path: str) -> tuple[str, str] | None:
    """(contract file, its base path) an undeclared route ``path`` belongs in: the one whose
    entries share most leading segments with it (with their base path); None without one."""
    best: tuple[int, str, str] | None = None
    for ep in endpoints:
        full = (ep.base_path.rstrip("/") + ep.path) if ep.base_path else ep.path
        score = _shared(full, path)
        if best is None or score > best[0] or (score == best[0] and ep.file < best[1]):
            best = (score, ep.file, ep.base_path)
    return None if best is None else (best[1], best[2])
