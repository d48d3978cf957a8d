"""Pull diagnostics: ``textDocument/diagnostic`` and ``workspace/diagnostic``, with result
ids so an unchanged file is answered "unchanged". Used instead of push when the client can
pull and supports ``workspace/diagnostic/refresh``; see ``Session.pull``. A client that
pulls without refresh support gets pushed diagnostics, and empty reports here (the same
diagnostic would otherwise show twice)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .. import convert

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session


def _report(session: Session, rel: str) -> tuple[str, int | None, list[lsp.Diagnostic]]:
    lines, version = session.text_of(rel)
    findings = session.findings_of(rel, lambda: lines)
    key = repr([(f.code, f.severity, f.message, f.span) for f in findings]) + f"@{version}"
    result_id = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
    return result_id, version, [convert.diagnostic(f, lines, session.encoding) for f in findings]


def _document(session: Session, params: lsp.DocumentDiagnosticParams) -> lsp.DocumentDiagnosticReport:
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    result_id, _, items = _report(session, rel)
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


def _workspace(session: Session, params: lsp.WorkspaceDiagnosticParams) -> lsp.WorkspaceDiagnosticReport:
    previous = {p.uri: p.value for p in params.previous_result_ids}
    rels = {f.file for f in session.index.all_findings()} | {
        r for r in (session.rel_of_uri(u) for u in previous) if r is not None}
    items = []
    for rel in sorted(rels):
        uri = session.uri_of(rel)
        result_id, version, diags = _report(session, rel)
        if previous.get(uri) == result_id:
            items.append(lsp.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, version=version, result_id=result_id))
        else:
            items.append(lsp.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=version, items=diags,
                                                                   result_id=result_id))
    return lsp.WorkspaceDiagnosticReport(items=items)


async def document(ls: SpecwardServer, params: lsp.DocumentDiagnosticParams) -> lsp.DocumentDiagnosticReport | None:
    session = ls.session
    if session is None or not session.pull:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    await session.ready.wait()  # a pull during indexing is answered once indexing is done
    return await session.request(_document, session, params)


async def workspace(ls: SpecwardServer, params: lsp.WorkspaceDiagnosticParams) -> lsp.WorkspaceDiagnosticReport | None:
    session = ls.session
    if session is None or not session.pull:
        return lsp.WorkspaceDiagnosticReport(items=[])
    await session.ready.wait()
    return await session.request(_workspace, session, params)
