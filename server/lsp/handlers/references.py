"""``textDocument/references``: every call site of a contract endpoint, across languages;
on a call, every call of the same endpoint."""

from __future__ import annotations

from lsprotocol import types as lsp

from .. import features_ide as f


def _references(session, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    rel, hit = f.target(session, params.text_document.uri, params.position)
    if hit is None:
        return None
    kind, obj = hit
    if kind == "call":
        if obj.endpoint is None or obj.status != "matched":
            return None
        ep = obj.endpoint
    elif kind == "endpoint":
        ep = obj
    else:
        return None
    out = [session.location(st.call.file, st.call.span) for st in f.callers(session.index, ep)]
    if params.context.include_declaration:
        out.insert(0, session.location(ep.file, ep.span))
    return out


async def handle(ls, params: lsp.ReferenceParams):
    return await ls.session.request(_references, ls.session, params) if ls.session else None
