"""``textDocument/definition``: from an HTTP call to the endpoint's declaration in the
contract file; from a contract endpoint to the backend handlers that implement it
(Express/Fastify and FastAPI/Flask route declarations found in the workspace); from an
OpenAPI path key to the handlers of all its operations."""

from __future__ import annotations

from lsprotocol import types as lsp

from specward.analyzers.matching import full_path

from .. import lookups as f


def _definition(session, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    rel, hit = f.target(session, params.text_document.uri, params.position)
    if hit is not None and hit[0] in ("endpoint", "path"):
        eps = [hit[1]] if hit[0] == "endpoint" else hit[1].endpoints
        routes = {(r, route.span.start): (r, route) for ep in eps for path in sorted({ep.path, full_path(ep)})
                  for r, route in session.index.handlers_of(ep.method, path)}
        return [session.location(r, route.span) for r, route in routes.values()] or None
    if hit is None or hit[0] != "call":
        return None
    st = hit[1]
    if st.endpoint is None:
        return None
    return [session.location(st.endpoint.file, st.endpoint.span)]


async def handle(ls, params: lsp.DefinitionParams):
    return await ls.session.request(_definition, ls.session, params) if ls.session else None
