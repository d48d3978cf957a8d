"""The language server object and the stdio entry point."""

from __future__ import annotations

import gc
import logging
import sys

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .session import Session

__version__ = "0.1.0"


class SpecwardServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("specward", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.session: Session | None = None
        self.editor_options: dict = {}  # initializationOptions, parsed (handlers/initialize.py)


def create_server() -> SpecwardServer:
    from .features import register

    server = SpecwardServer()
    register(server)
    return server


def run_stdio(log_file: str | None = None) -> None:
    # stdout carries the protocol: logs go to stderr (and optionally a file), never stdout
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, handlers=handlers,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    # fewer young-generation collections while a keystroke's facts are built
    gc.set_threshold(10_000, 20, 20)
    create_server().start_io()
