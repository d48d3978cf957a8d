"""``workspace/didChangeWatchedFiles``: the client saw files change on disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer


def handle(ls: SpecwardServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    session = ls.session
    if session is None:
        return
    rels = set()
    for change in params.changes:
        rel = session.rel_of_uri(change.uri)
        if rel is not None and (session.index.tracked(rel) or rel == session.baseline.rel()):
            rels.add(rel)
    session.disk_changed(rels)
