"""``workspace/symbol``: every contract endpoint (``GET /articles/{slug}``), filtered by
the query (case-insensitive subsequence)."""

from __future__ import annotations

from lsprotocol import types as lsp

from specward.analyzers.matching import full_path


def _matches(query: str, name: str) -> bool:
    it = iter(name.lower())
    return all(ch in it for ch in query.lower().replace(" ", ""))


def _symbols(session, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    out = []
    for ep in session.index.table.endpoints:
        name = f"{ep.method} {full_path(ep)}"
        if _matches(params.query, name):
            out.append(lsp.SymbolInformation(name=name, kind=lsp.SymbolKind.Method,
                                             location=session.location(ep.file, ep.span),
                                             container_name=ep.file))
    return out


async def handle(ls, params: lsp.WorkspaceSymbolParams):
    return await ls.session.request(_symbols, ls.session, params) if ls.session else None
