"""``textDocument/didSave``: the saved facts go to the cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer


def handle(ls: SpecwardServer, params: lsp.DidSaveTextDocumentParams) -> None:
    session = ls.session
    if session is None:
        return
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is not None and rel in session.open:
        session.submit(session.index.persist, [rel])
