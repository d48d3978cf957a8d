"""The language server object and the stdio entry point.

How the process ends (``SpecwardServer.terminate``): the session is shut down (bounded:
``EXIT_GRACE_S``, whatever the index thread is doing), stdout and stderr are flushed, and
the process exits with ``os._exit``, so that no thread still busy can keep it alive. Exit
codes are the protocol's: 0 after ``shutdown``, 1 otherwise, for an ``exit`` notification,
stdin closing, the client's output closing, or the editor's process (``processId``)
dying."""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
import time

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from . import transport
from .session import Session

__version__ = "0.1.0"

EXIT_GRACE_S = 3.0  # how long an exit waits for the session to shut down

log = logging.getLogger(__name__)


class SpecwardServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("specward", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         protocol_cls=transport.SpecwardProtocol)
        self.session: Session | None = None
        self.editor_options: dict = {}  # initializationOptions, parsed (handlers/initialize.py)
        self.initialized_seen = False  # handlers/initialized.py: only the first one runs
        self.terminating = False
        self._terminate_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._closing: threading.Thread | None = None
        self._parent_watch: threading.Thread | None = None

    def report_server_error(self, error: Exception, source) -> None:
        """Errors outside a request's reply: a log line (pygls would show a message per error)."""
        log.error("%s: %s", getattr(source, "__name__", source), error)

    # ------------------------------------------------------------------ ending
    def close_session(self, timeout: float | None = None) -> bool:
        """Shut the session down (once; any thread), waiting at most ``timeout`` seconds;
        True when it has."""
        with self._close_lock:
            if self._closing is None:
                session = self.session
                if session is None:
                    return True

                def close() -> None:
                    try:
                        session.shutdown()
                    except Exception:  # noqa: BLE001
                        log.exception("shutting the session down failed")

                self._closing = threading.Thread(target=close, name="specward-session-shutdown", daemon=True)
                self._closing.start()
            closing = self._closing
        closing.join(timeout)
        return not closing.is_alive()

    def terminate(self, code: int, reason: str) -> None:
        """End the process (from any thread): shut the session down within
        ``EXIT_GRACE_S``, flush, ``os._exit(code)``. A second call returns at once."""
        with self._terminate_lock:
            if self.terminating:
                return
            self.terminating = True
        log.info("exiting with code %d: %s", code, reason)
        try:
            deadline = time.monotonic() + EXIT_GRACE_S
            if not self.close_session(EXIT_GRACE_S):
                log.warning("the session did not shut down within %.1f s", EXIT_GRACE_S)
            for thread in threading.enumerate():  # a cache being written gets the rest of the grace
                if thread.name.startswith("specward-cache-writer") and thread.is_alive():
                    thread.join(max(0.0, deadline - time.monotonic()))
        except BaseException:  # noqa: BLE001 - exit whatever happens
            log.exception("shutting down failed")
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001
                    pass
            for handler in logging.getLogger().handlers:
                try:
                    handler.flush()
                except Exception:  # noqa: BLE001
                    pass
            os._exit(code)

    def watch_parent(self, pid: int | None) -> None:
        """Exit once the editor's process ``pid`` (``processId``) has ended."""
        if not pid or pid < 0 or pid == os.getpid() or self._parent_watch is not None:
            return
        self._parent_watch = transport.watch_process(
            pid, lambda: self.terminate(0 if self.protocol._shutdown else 1, f"the editor's process {pid} is gone"))


def create_server() -> SpecwardServer:
    from .registration import register

    server = SpecwardServer()
    register(server)
    return server


def run_stdio(log_file: str | None = None, max_message_bytes: int = transport.DEFAULT_MAX_MESSAGE_BYTES,
              body_timeout: float = transport.DEFAULT_BODY_TIMEOUT_S) -> None:
    """Serve over stdio; never returns (the process exits with the protocol's code)."""
    # stdout carries the protocol: logs go to stderr (and optionally a file), never stdout
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, handlers=handlers,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    # fewer young-generation collections while a keystroke's facts are built
    gc.set_threshold(10_000, 20, 20)
    transport.serve_stdio(create_server(), max_message_bytes=max_message_bytes, body_timeout=body_timeout)
