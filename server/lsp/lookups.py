"""The contract inside the editor: shared lookups for the request handlers (hover,
definition, references, completion, code lens, symbols, code actions), and the backend's
routes with their callers (references, code lens and symbols on handlers). Runs on the
index thread (``Session.request``), reading the index without racing its writer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.matching import CallStatus, endpoint_id
from specward.analyzers.model import ContractFacts, Endpoint, Finding, Model, Route, Span
from specward.analyzers.routes import ComposedRoute

from . import convert

if TYPE_CHECKING:
    from ..engine.index import WorkspaceIndex
    from .session import Session


def models(index: WorkspaceIndex) -> dict[str, Model]:
    return {m.name: m for c in index.contracts.values() for m in c.models}


def callers_by_endpoint(index: WorkspaceIndex) -> dict[tuple[str, str, str], list[CallStatus]]:
    """Every matched call, grouped by endpoint: one pass over the statuses."""
    out: dict[tuple[str, str, str], list[CallStatus]] = {}
    for rel in sorted(index.statuses):
        for st in index.statuses[rel]:
            if st.status == "matched" and st.endpoint is not None:
                out.setdefault(endpoint_id(st.endpoint), []).append(st)
    return out


def callers(index: WorkspaceIndex, ep: Endpoint) -> list[CallStatus]:
    return callers_by_endpoint(index).get(endpoint_id(ep), [])


def offset(session: Session, rel: str, pos: lsp.Position) -> int:
    lines, _ = session.text_of(rel)
    return convert.offset_of(lines, pos, session.encoding)


_PATH_KEYS: dict[str, tuple[bytes, tuple[ide.PathKey, ...]]] = {}  # rel -> (text, its path keys)


def path_keys(session: Session, rel: str, contract: ContractFacts) -> tuple[ide.PathKey, ...]:
    """The path keys of a contract's text (as the editor has it), parsed once per text."""
    if not ide.has_path_keys(contract):
        return ()
    lines, _ = session.text_of(rel)
    hit = _PATH_KEYS.get(rel)
    if hit is not None and hit[0] == lines.data:
        return hit[1]
    keys = ide.path_keys(rel, lines.data.decode("utf-8", "surrogatepass"))
    if len(_PATH_KEYS) >= 8:
        _PATH_KEYS.clear()
    _PATH_KEYS[rel] = (lines.data, keys)
    return keys


def callers_of_all(index: WorkspaceIndex, eps: Iterable[Endpoint]) -> list[CallStatus]:
    """The matched calls of several endpoints, each once, by file and position."""
    return _each_once(callers_by_endpoint(index), eps)


def _each_once(by_ep: dict[tuple[str, str, str], list[CallStatus]], eps: Iterable[Endpoint]) -> list[CallStatus]:
    seen: dict[tuple[str, int, int], CallStatus] = {}
    for ep in eps:
        for st in by_ep.get(endpoint_id(ep), []):
            seen.setdefault((st.call.file, st.call.span.start, st.call.span.end), st)
    return [seen[k] for k in sorted(seen)]


# ----------------------------------------------------------------- what is under the cursor


@dataclass(frozen=True)
class CallTarget:
    """An HTTP call in a source file, with its verdict."""

    status: CallStatus


@dataclass(frozen=True)
class EndpointTarget:
    """One operation of a contract (an OpenAPI method key, a SpecDSL endpoint's path)."""

    endpoint: Endpoint


@dataclass(frozen=True)
class PathTarget:
    """An OpenAPI/Swagger path key: it stands for every operation of that path."""

    designated: ide.Designated


@dataclass(frozen=True)
class ModelTarget:
    """A model (schema) of a contract."""

    model: Model


@dataclass(frozen=True)
class FindingTarget:
    """A finding of a registered analysis (an import) in a source file."""

    finding: Finding


Target = CallTarget | EndpointTarget | PathTarget | ModelTarget | FindingTarget


def target(session: Session, uri: str, pos: lsp.Position) -> tuple[str | None, Target | None]:
    """What is under the cursor, with the file's relative path."""
    rel = session.rel_of_uri(uri)
    if rel is None:
        return None, None
    index = session.index
    at = offset(session, rel, pos)
    contract = index.contracts.get(rel)
    if contract is not None:
        hit = ide.endpoints_at(contract, at, path_keys(session, rel, contract))
        if hit is not None:
            return rel, (PathTarget(hit) if hit.kind == "path" else EndpointTarget(hit.endpoints[0]))
        m = ide.model_at(contract, at)
        if m is not None:
            return rel, ModelTarget(m)
        return rel, None
    st = ide.call_at(index.statuses.get(rel, ()), at)
    if st is not None:
        return rel, CallTarget(st)
    found = next((x for x in index.analysis_findings.get(rel, ()) if x.span.start <= at <= x.span.end), None)
    return rel, (FindingTarget(found) if found is not None else None)


@dataclass(frozen=True)
class RouteTarget:
    """A backend route declaration (the cursor on its path, its line, or its handler's
    name), with every chain it is composed through (a router mounted twice: two)."""

    route: Route
    composed: tuple[ComposedRoute, ...]


def route_target(session: Session, uri: str, pos: lsp.Position) -> tuple[str | None, RouteTarget | None]:
    """The route declaration under the cursor in a backend file, with the file's relative
    path (apart from ``target``: the handlers that match on ``Target`` know no routes)."""
    rel = session.rel_of_uri(uri)
    composed = routes_in(session.index, rel) if rel is not None else []
    if rel is None or not composed:
        return rel, None
    lines, _ = session.text_of(rel)
    at = convert.offset_of(lines, pos, session.encoding)
    line = lines.line_of(at)
    end = lines.starts[line + 1] - 1 if line + 1 < len(lines.starts) else len(lines.data)
    found = ide.route_declaration_at(declarations_in(session.index, rel), at, Span(lines.starts[line], end))
    if found is None:
        return rel, None
    on_handler = found.handler_span is not None and found.handler_span.start <= at <= found.handler_span.end
    # on a handler's name, that handler's routes; on the declaration, every method it stands for
    same = (lambda c: c.route == found) if on_handler else (lambda c: c.route.span == found.span)
    return rel, RouteTarget(found, tuple(c for c in composed if same(c)))


@dataclass
class _RouteState:
    """What the route lookups derive from the index's cached state: the composed routes
    (``WorkspaceIndex.composed_routes``, the same list until a route or a mount changes)
    by file, and the contract endpoints each implements under the endpoint table of the
    time. Computed again only when either of them is another object."""

    composed: list
    table: object
    by_file: dict[str, list[ComposedRoute]]
    implements: dict[ComposedRoute, tuple[Endpoint, ...]]


_ROUTES: list[_RouteState] = []


def _route_state(index: WorkspaceIndex) -> _RouteState:
    composed = index.composed_routes()
    hit = _ROUTES[0] if _ROUTES else None
    if hit is not None and hit.composed is composed and hit.table is index.contract_table:
        return hit
    by_file: dict[str, list[ComposedRoute]] = {}
    for c in composed:
        by_file.setdefault(c.file, []).append(c)
    contract_eps = list(index.contract_table.endpoints)  # (index.table: the routes themselves, with no contract)
    state = _RouteState(composed, index.contract_table, by_file, ide.implemented_endpoints(composed, contract_eps))
    _ROUTES[:] = [state]
    return state


def routes_in(index: WorkspaceIndex, rel: str) -> list[ComposedRoute]:
    """The composed routes declared in ``rel``, in sort order (path, method, place)."""
    return _route_state(index).by_file.get(rel, [])


def declarations_in(index: WorkspaceIndex, rel: str) -> list[Route]:
    """The route declarations of ``rel`` that are composed (each once, in file order):
    routers, NestJS controllers and file-based routes alike."""
    return sorted({c.route for c in routes_in(index, rel)}, key=lambda r: (r.span.start, r.span.end, r.method))


def all_routes(index: WorkspaceIndex) -> list[ComposedRoute]:
    return _route_state(index).composed


def route_endpoints(index: WorkspaceIndex, c: ComposedRoute) -> list[Endpoint]:
    """The endpoints whose matched calls are calls of this route: the contract endpoints
    it implements (``ide.implemented_endpoints``), and the route's own endpoint when the
    endpoint table holds the backend's routes themselves. Nothing for a route whose full
    path is not known: it is never matched."""
    if c.unresolved is not None:
        return []
    own = Endpoint(c.method, c.path, c.file, c.route.span)
    return [*_route_state(index).implements.get(c, ()), own]


def route_callers(index: WorkspaceIndex, composed: Iterable[ComposedRoute],
                  by_ep: dict[tuple[str, str, str], list[CallStatus]] | None = None) -> list[CallStatus]:
    """The calls matched to what these routes implement, each once, by file and position:
    a call's verdict already says which endpoint it reaches, in the frame the matcher
    judged it in, so nothing is matched again here."""
    eps = [ep for c in composed for ep in route_endpoints(index, c)]
    if by_ep is None:
        if not any(index.used.get(endpoint_id(ep)) for ep in eps):
            return []
        by_ep = callers_by_endpoint(index)
    return _each_once(by_ep, eps)


def handlers_for(index: WorkspaceIndex, eps: Iterable[Endpoint]) -> list[ComposedRoute]:
    """The routes that implement these endpoints, for "go to definition": a contract
    endpoint's implementations as ``ide.implemented_endpoints`` judges them (the frame of
    its contract, the most specific route, nothing while an unknown route may be the one),
    or the route an endpoint of the backend's own routes stands for. One per declaration,
    in sort order; never a route whose full path is not known."""
    state = _route_state(index)
    wanted = {endpoint_id(ep) for ep in eps}
    out: dict[tuple[str, int], ComposedRoute] = {}
    for c in state.composed:
        if c.unresolved is not None:
            continue
        if (c.file, c.method, c.path) in wanted or any(endpoint_id(ep) in wanted for ep in state.implements.get(c, ())):
            out.setdefault((c.file, c.route.span.start), c)
    return list(out.values())


def handler_span(route: Route) -> Span:
    """Where a route's handler is: its name in its definition, else the declaration."""
    return route.handler_span if route.handler and route.handler_span is not None else route.span


def line_of(session: Session, rel: str, span: Span) -> int:
    lines, _ = session.text_of(rel)
    return lines.position(span.start)[0] + 1
