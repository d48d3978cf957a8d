"""``textDocument/documentSymbol``: the models and endpoints of a contract file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.matching import full_path

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _symbols(session: Session, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
    rel = session.rel_of_uri(params.text_document.uri)
    contract = session.index.contracts.get(rel) if rel else None
    if contract is None:
        return None
    out = []
    for m in contract.models:
        rng = session.location(rel, m.span).range
        out.append(lsp.DocumentSymbol(name=m.name, kind=lsp.SymbolKind.Struct, range=rng, selection_range=rng,
                                      detail=f"{len(m.fields)} fields"))
    for ep in contract.endpoints:
        rng = session.location(rel, ep.span).range
        out.append(lsp.DocumentSymbol(name=f"{ep.method} {full_path(ep)}", kind=lsp.SymbolKind.Method, range=rng,
                                      selection_range=rng, detail=ep.summary or ep.id or ""))
    return out


async def handle(ls: SpecwardServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
    return await ls.session.request(_symbols, ls.session, params) if ls.session else None
