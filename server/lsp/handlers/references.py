"""``textDocument/references``: every call site of a contract endpoint, across languages;
on an OpenAPI path key, every call site of each operation of that path; on a call, every
call of the same endpoint; on a backend route (its handler's name, its path, its line),
the calls that reach it: matched to the contract endpoint it implements, or to the route
itself when the routes are what calls are judged against (``lookups.route_callers``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _references(session: Session, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    _, hit = f.target(session, params.text_document.uri, params.position)
    match hit:
        case f.CallTarget(status=st):
            if st.endpoint is None or st.status != "matched":
                return None
            eps = [st.endpoint]
        case f.EndpointTarget(endpoint=ep):
            eps = [ep]
        case f.PathTarget(designated=d):
            eps = list(d.endpoints)
        case None:
            return _route_references(session, params)
        case _:
            return None
    out = [session.location(st.call.file, st.call.span) for st in f.callers_of_all(session.index, eps)]
    if params.context.include_declaration:
        declared = {(ep.file, ep.span): ep for ep in eps}  # a $ref path item: all on its key
        out[:0] = [session.location(file, span) for file, span in declared]
    return out


def _route_references(session: Session, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    rel, hit = f.route_target(session, params.text_document.uri, params.position)
    if hit is None or rel is None:
        return None
    out = [session.location(st.call.file, st.call.span) for st in f.route_callers(session.index, hit.composed)]
    if params.context.include_declaration:
        out.insert(0, session.location(rel, f.handler_span(hit.route)))
    return out


async def handle(ls: SpecwardServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    return await ls.session.request(_references, ls.session, params) if ls.session else None
