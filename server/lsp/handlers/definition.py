"""``textDocument/definition``: from an HTTP call to the endpoint's declaration in the
contract file; from a contract endpoint to the backend handlers that implement it
(Express/Fastify and FastAPI/Flask route declarations found in the workspace); from an
OpenAPI path key to the handlers of all its operations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _definition(session: Session, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    _, hit = f.target(session, params.text_document.uri, params.position)
    match hit:
        case f.EndpointTarget(endpoint=ep):
            eps: tuple = (ep,)
        case f.PathTarget(designated=d):
            eps = d.endpoints
        case f.CallTarget(status=st):
            return [session.location(st.endpoint.file, st.endpoint.span)] if st.endpoint is not None else None
        case _:
            return None
    return [session.location(c.file, c.route.span) for c in f.handlers_for(session.index, eps)] or None


async def handle(ls: SpecwardServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    return await ls.session.request(_definition, ls.session, params) if ls.session else None
