"""``workspace/symbol``: every contract endpoint (``GET /articles/{slug}``), filtered by
the query (case-insensitive subsequence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.matching import full_path

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _matches(query: str, name: str) -> bool:
    it = iter(name.lower())
    return all(ch in it for ch in query.lower().replace(" ", ""))


def _symbols(session: Session, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    out = []
    for ep in session.index.table.endpoints:
        name = f"{ep.method} {full_path(ep)}"
        if _matches(params.query, name):
            out.append(lsp.SymbolInformation(name=name, kind=lsp.SymbolKind.Method,
                                             location=session.location(ep.file, ep.span),
                                             container_name=ep.file))
    return out


async def handle(ls: SpecwardServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation] | None:
    return await ls.session.request(_symbols, ls.session, params) if ls.session else None
