"""``textDocument/definition``: from an HTTP call to the endpoint's declaration in the
contract file."""

from __future__ import annotations

from lsprotocol import types as lsp

from .. import features_ide as f


def _definition(session, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    rel, hit = f.target(session, params.text_document.uri, params.position)
    if hit is None or hit[0] != "call":
        return None
    st = hit[1]
    if st.endpoint is None:
        return None
    return [session.location(st.endpoint.file, st.endpoint.span)]


async def handle(ls, params: lsp.DefinitionParams):
    return await ls.session.request(_definition, ls.session, params) if ls.session else None
