"""``textDocument/completion`` inside the URL string of an HTTP call: the contract's paths,
those accepting the call's method first, without the base the call's client adds, with
parameters as snippet placeholders."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.model import Span

from .. import convert

if TYPE_CHECKING:
    from specward.analyzers.lines import LineIndex
    from specward.analyzers.matching import CallStatus
    from ..server import SpecwardServer
    from ..session import Session


MAX_ITEMS = 50


def _complete(session: Session, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None or rel in session.index.contracts:
        return None
    lines, _ = session.text_of(rel)
    at = convert.offset_of(lines, params.position, session.encoding)
    line_start = lines.starts[lines.line_of(at)]
    ctx = ide.url_context(lines.data[line_start:at].decode("utf-8", "replace"))
    if ctx is None:
        return None
    st = ide.call_at(session.index.statuses.get(rel, ()), at)
    method, base = ctx.method, ""
    if st is not None and st.call.span.start <= at <= st.call.span.end:
        method = st.call.method
        base = ide.call_base(st.call)
    elif "." in ctx.callee:
        client = ctx.callee.rpartition(".")[0]
        # an instance whose other calls in this file show the base it adds (`api.get`)
        for other in session.index.statuses.get(rel, ()):
            if other.call.via and ide.call_base(other.call) and client in _callee_text(lines, other):
                base = ide.call_base(other.call)
                break
    start = at - len(ctx.typed.encode("utf-8"))
    rng = convert.range_of(lines, Span(start, at), session.encoding)
    candidates = [c for c in ide.path_completions(session.index.table, method, base, ctx.quote, ctx.prefix)
                  if c.label.lower().startswith(ctx.typed.lower())]
    # a long list costs more to send than to compute: the first ones, the rest on the next key
    incomplete = len(candidates) > MAX_ITEMS
    items = []
    for i, c in enumerate(candidates[:MAX_ITEMS]):
        ep = c.endpoint
        items.append(lsp.CompletionItem(
            label=c.label, kind=lsp.CompletionItemKind.Reference,
            detail=f"{c.method} {c.label}" + (f" — {ep.summary}" if ep.summary else ""),
            label_details=lsp.CompletionItemLabelDetails(description=c.method),
            sort_text=f"{0 if c.preferred else 1}{i:05d}", filter_text=c.label,
            insert_text_format=lsp.InsertTextFormat.Snippet,
            text_edit=lsp.TextEdit(range=rng, new_text=c.snippet)))
    return lsp.CompletionList(is_incomplete=incomplete, items=items)


def _callee_text(lines: LineIndex, st: CallStatus) -> str:
    return lines.data[st.call.call_span.start:st.call.span.start].decode("utf-8", "replace")


async def handle(ls: SpecwardServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    return await ls.session.request(_complete, ls.session, params) if ls.session else None
