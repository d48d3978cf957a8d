"""``textDocument/codeLens``: above each endpoint of a contract file, how many calls reach
it (``3 calls``, opening the references) or ``unused``; above each route declaration of a
backend file, how many calls reach it (``2 callers``, opening them, or ``no callers``) and
its full path when the declaration does not write it all (``GET /api/users/{slug}``).
Requested often: everything comes from the index's cached state (the composed routes, the
calls' verdicts), and the callers are gathered only when some endpoint has any."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.matching import endpoint_id

from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _lenses(session: Session, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    rel = session.rel_of_uri(params.text_document.uri)
    contract = session.index.contracts.get(rel) if rel else None
    if contract is None:
        return _route_lenses(session, params, rel) if rel and f.routes_in(session.index, rel) else None
    counts: Counter = session.index.used
    by_endpoint = f.callers_by_endpoint(session.index) if any(counts.get(endpoint_id(ep)) for ep in contract.endpoints) else {}
    out = []
    for ep in contract.endpoints:
        n = counts.get(endpoint_id(ep), 0)
        loc = session.location(rel, ep.span)
        if n:
            refs = [session.location(st.call.file, st.call.span) for st in by_endpoint.get(endpoint_id(ep), [])]
            cmd = lsp.Command(title=f"{n} call{'s' if n != 1 else ''}", command="editor.action.showReferences",
                              arguments=[params.text_document.uri, loc.range.start, refs])
        else:
            cmd = lsp.Command(title="unused", command="")
        out.append(lsp.CodeLens(range=loc.range, command=cmd))
    return out


def _route_lenses(session: Session, params: lsp.CodeLensParams, rel: str) -> list[lsp.CodeLens]:
    index = session.index
    composed = f.routes_in(index, rel)
    used = index.used
    by_ep = (f.callers_by_endpoint(index)
             if any(used.get(endpoint_id(ep)) for c in composed for ep in f.route_endpoints(index, c)) else {})
    out = []
    spans = sorted({r.span for r in f.declarations_in(index, rel)}, key=lambda sp: (sp.start, sp.end))
    for span in spans:  # a declaration standing for several methods (a view's): one lens for all
        chains = [c for c in composed if c.route.span == span]
        loc = session.location(rel, span)
        callers = f.route_callers(index, chains, by_ep)
        if callers:
            refs = [session.location(st.call.file, st.call.span) for st in callers]
            cmd = lsp.Command(title=f"{len(callers)} caller{'s' if len(callers) != 1 else ''}",
                              command="editor.action.showReferences",
                              arguments=[params.text_document.uri, loc.range.start, refs])
        else:
            cmd = lsp.Command(title="no callers", command="")
        out.append(lsp.CodeLens(range=loc.range, command=cmd))
        shown: set[str] = set()
        for c in chains:
            if c.unresolved is not None:
                title = f"full path not known: {c.unresolved}"
            elif c.path != ide.written_path(c):
                title = f"{c.method} {c.path}"
            else:
                continue
            if title not in shown:
                shown.add(title)
                out.append(lsp.CodeLens(range=loc.range, command=lsp.Command(title=title, command="")))
    return out


async def handle(ls: SpecwardServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    return await ls.session.request(_lenses, ls.session, params) if ls.session else None
