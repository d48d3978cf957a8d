"""``textDocument/didOpen``: the editor's text replaces the disk's for this file; every
opened document gets a first publish, empty when it has no finding (push clients)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer


def handle(ls: SpecwardServer, params: lsp.DidOpenTextDocumentParams) -> None:
    session = ls.session
    if session is None:
        return
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None or not session.index.tracked(rel):
        session.untracked_opened(params.text_document.uri, params.text_document.version)
        return
    session.document_opened(rel, params.text_document.uri)
