"""``textDocument/didClose``: the file follows the disk again (unsaved edits are gone)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer


def handle(ls: SpecwardServer, params: lsp.DidCloseTextDocumentParams) -> None:
    session = ls.session
    if session is None:
        return
    rel = session.rel_of_uri(params.text_document.uri)
    if rel is None or session.open.pop(rel, None) is None:
        return
    session.snapshots.pop(rel, None)
    session.latest.pop(rel, None)
    session.open_lines.pop(rel, None)
    session.disk_changed({rel})
