"""``textDocument/didChange``: pygls has applied the incremental edits; re-analyze."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer


def handle(ls: SpecwardServer, params: lsp.DidChangeTextDocumentParams) -> None:
    session = ls.session
    if session is None:
        return
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None or rel not in session.open:
        return
    if session.ready.is_set():
        session.document_changed(rel)
