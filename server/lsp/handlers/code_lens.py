"""``textDocument/codeLens``: above each endpoint of a contract file, how many calls reach
it (``3 calls``, opening the references) or ``unused``."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.matching import endpoint_id

from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _lenses(session: Session, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    rel = session.rel_of_uri(params.text_document.uri)
    contract = session.index.contracts.get(rel) if rel else None
    if contract is None:
        return None
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


async def handle(ls: SpecwardServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    return await ls.session.request(_lenses, ls.session, params) if ls.session else None
