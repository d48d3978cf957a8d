"""``textDocument/hover``: the contract card of a call, why a call is phantom or
unresolved, the callers of a contract endpoint, the operations of an OpenAPI path key and
their callers, the fields of a model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.contract_diff import impact_card
from specward.analyzers.handler_doc import handler_doc, route_card
from specward.analyzers.matching import endpoint_id
from specward.analyzers.model import Span
from specward.analyzers.schema_card import schema_lines

from .. import convert
from .. import lookups as f

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _hover(session: Session, params: lsp.HoverParams) -> lsp.Hover | None:
    rel, hit = f.target(session, params.text_document.uri, params.position)
    index = session.index
    entries: set = set()  # the contract entries whose last change's impact the card adds
    match hit:
        case None:
            return _model_import(session, rel, params.position) if rel else None
        case f.CallTarget(status=st):
            near = index.table.nearest(st.call) if st.status == "phantom" else []
            where = None
            if st.endpoint is not None:
                where = f"{st.endpoint.file}:{f.line_of(session, st.endpoint.file, st.endpoint.span)}"
            if st.status == "matched" and st.endpoint is not None and dict(st.endpoint.details).get("source") == "routes":
                text = _route_card(session, st.endpoint)
            else:
                text = ide.hover_call(st, f.models(index), where, near)
            span = st.call.span
        case f.EndpointTarget(endpoint=ep):
            calls = [(st.call.file, f.line_of(session, st.call.file, st.call.span)) for st in f.callers(index, ep)]
            text = ide.hover_endpoint(ep, calls)
            span = ep.span
            entries = {ep.span}
        case f.PathTarget(designated=d):
            by_ep = f.callers_by_endpoint(index)
            ops = [(ep, [(st.call.file, f.line_of(session, st.call.file, st.call.span))
                         for st in by_ep.get(endpoint_id(ep), [])]) for ep in d.endpoints]
            text = ide.hover_path(d.path, ops)
            span = d.span
            entries = {ep.span for ep in d.endpoints}
        case f.ModelTarget(model=m):
            text = ide.hover_model(m)
            span = m.span
            entries = {m.span}
        case f.FindingTarget(finding=found):
            text = ide.hover_finding(found)
            if text is None:
                return None
            span = found.span
    cards = [c for x in index.generated.impact.get(rel, ()) if x.span in entries and (c := impact_card(x))]
    if cards:
        text = "\n\n---\n\n".join([text, *cards])
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=session.location(rel, span).range)


async def handle(ls: SpecwardServer, params: lsp.HoverParams) -> lsp.Hover | None:
    return await ls.session.request(_hover, ls.session, params) if ls.session else None


def _route_card(session: Session, ep) -> str:
    """The card of a call whose contract is the backend's routes: the handler's signature
    and docstring (read from its file's current text), and where it is."""
    d = dict(ep.details)
    start, _ = d.get("handler_span") or (ep.span.start, ep.span.end)
    text = session.index._text_reader()(ep.file)
    doc = None
    if text is not None:
        try:
            doc = handler_doc(ep.file, text, start)
        except Exception:  # noqa: BLE001 - a card without the signature, rather than none
            doc = None
    line = f.line_of(session, ep.file, Span(start, start))
    card = route_card(ep.method, ep.path, ep.id or "the route", f"{ep.file}:{line}", doc, d.get("framework"))
    schema = schema_lines(ep.schemas) if ep.schemas is not None else []
    return "\n\n".join([card, "\n".join(schema)]) if schema else card


def _model_import(session: Session, rel: str, pos: lsp.Position) -> lsp.Hover | None:
    """On an import of a (generated) type named like a contract model: its fields."""
    lines, _ = session.text_of(rel)
    at = convert.offset_of(lines, pos, session.encoding)
    line = lines.line_of(at)
    start = lines.starts[line]
    name = ide.imported_name_at(lines.line_text(line), at - start)
    model = f.models(session.index).get(name) if name else None
    if model is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                value=ide.hover_model(model) + f"\n\nFrom `{model.file}`"))
