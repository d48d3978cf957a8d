"""``workspace/symbol``: every contract endpoint (``GET /articles/{slug}``) and every
backend route whose full path is known (``GET /api/users/{slug}``, at its handler, in its
framework and file), filtered by the query (case-insensitive subsequence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.matching import full_path

from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _matches(query: str, name: str) -> bool:
    it = iter(name.lower())
    return all(ch in it for ch in query.lower().replace(" ", ""))


def _symbols(session: Session, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    out = []
    for ep in session.index.table.endpoints:
        if ep.file not in session.index.contracts:
            continue  # the backend's own routes, when they are the table: listed below
        name = f"{ep.method} {full_path(ep)}"
        if _matches(params.query, name):
            out.append(lsp.SymbolInformation(name=name, kind=lsp.SymbolKind.Method,
                                             location=session.location(ep.file, ep.span),
                                             container_name=ep.file))
    seen: set = set()
    for c in f.all_routes(session.index):
        name = f"{c.method} {c.path}"
        key = (name, c.file, c.route.span)
        if c.unresolved is not None or key in seen or not _matches(params.query, name):
            continue
        seen.add(key)
        out.append(lsp.SymbolInformation(name=name, kind=lsp.SymbolKind.Function,
                                         location=session.location(c.file, f.handler_span(c.route)),
                                         container_name=f"{c.route.framework} {c.file}"))
    return out


async def handle(ls: SpecwardServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation] | None:
    return await ls.session.request(_symbols, ls.session, params) if ls.session else None
