"""``textDocument/didOpen``: the editor's text replaces the disk's for this file."""

from __future__ import annotations

from lsprotocol import types as lsp


def handle(ls, params: lsp.DidOpenTextDocumentParams) -> None:
    session = ls.session
    if session is None:
        return
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None or not session.index.tracked(rel):
        return
    session.open[rel] = params.text_document.uri
    if session.ready.is_set():
        session.document_changed(rel)
