"""``textDocument/references``: every call site of a contract endpoint, across languages;
on an OpenAPI path key, every call site of each operation of that path; on a call, every
call of the same endpoint."""

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
        case _:
            return None
    out = [session.location(st.call.file, st.call.span) for st in f.callers_of_all(session.index, eps)]
    if params.context.include_declaration:
        declared = {(ep.file, ep.span): ep for ep in eps}  # a $ref path item: all on its key
        out[:0] = [session.location(file, span) for file, span in declared]
    return out


async def handle(ls: SpecwardServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    return await ls.session.request(_references, ls.session, params) if ls.session else None
