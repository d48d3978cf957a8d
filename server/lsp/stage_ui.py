"""The language server's :class:`~specward.server.stage_run.StageUI`: how an LLM stage run
on a worker thread (``handlers/stage_command.py``) talks to the person in the editor.

- ``status`` and ``received`` are ``$/progress`` reports of one work-done progress that
  :meth:`EditorUI.begin` opens (``window/workDoneProgress/create``, then ``begin`` with
  ``cancellable: true``) and :meth:`EditorUI.end` closes. A client without progress
  support gets nothing, and the stage runs all the same.
- The client's ``window/workDoneProgress/cancel`` for that token sets ``cancel``: pygls
  cancels the token's future and its callback sets the event, on which ``llm.complete``
  aborts the HTTP request within a poll interval; the stage then writes nothing.
- ``choose(question, options)`` is a ``window/showMessageRequest`` (the options as its
  actions), sent from the event loop (``asyncio.run_coroutine_threadsafe``) while the
  worker thread waits for the answer; cancelling stops the wait (None).

Every method may be called from any thread; notifications are always sent from the event
loop (``loop.call_soon_threadsafe``), and none of them raises."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from .server import SpecwardServer

log = logging.getLogger(__name__)

RECEIVED_EVERY_S = 0.25  # at most this often a "characters received" report
_POLL_S = 0.05


class EditorUI:
    """A stage's UI in the editor (see the module's docstring). Build it with
    :meth:`begin` on the event loop."""

    def __init__(self, ls: SpecwardServer, loop: asyncio.AbstractEventLoop, title: str,
                 token: str | None) -> None:
        self.ls, self.loop, self.title, self.token = ls, loop, title, token
        self.cancel = threading.Event()
        self._last_received = 0.0
        self._ended = False

    @classmethod
    async def begin(cls, ls: SpecwardServer, title: str, message: str = "") -> EditorUI:
        """A UI whose progress has begun (when the client supports and accepts it)."""
        loop = asyncio.get_running_loop()
        caps = ls.client_capabilities
        token: str | None = None
        if caps.window and caps.window.work_done_progress:
            token = f"specward-stage-{uuid.uuid4()}"
            try:
                await ls.work_done_progress.create_async(token)
            except Exception as exc:  # noqa: BLE001 - progress is a courtesy
                log.info("the client refused progress: %s", exc)
                token = None
        ui = cls(ls, loop, title, token)
        if token is not None:
            ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                title=title, message=message or None, cancellable=True))
            # window/workDoneProgress/cancel cancels this future (pygls' progress module)
            future = ls.work_done_progress.tokens.get(token)
            if future is not None:
                future.add_done_callback(lambda _f: ui._cancelled_by_client())
        return ui

    def _cancelled_by_client(self) -> None:
        if not self._ended:
            log.info("%s: cancelled from the editor", self.title)
            self.cancel.set()

    # ------------------------------------------------------------------ StageUI
    def status(self, message: str) -> None:
        self._report(message)

    def received(self, chars: int) -> None:
        now = time.monotonic()
        if now - self._last_received >= RECEIVED_EVERY_S:
            self._last_received = now
            self._report(f"{chars:,} characters received")

    def choose(self, question: str, options: list[str]) -> str | None:
        """From the worker thread: the option the user picked, None when dismissed or
        cancelled (or when called on the event loop, where waiting would block it)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop or self.cancel.is_set():
            return None
        params = lsp.ShowMessageRequestParams(type=lsp.MessageType.Info, message=question,
                                              actions=[lsp.MessageActionItem(title=o) for o in options])
        try:
            fut = asyncio.run_coroutine_threadsafe(self.ls.window_show_message_request_async(params), self.loop)
        except RuntimeError:  # the loop is closed
            return None
        while True:
            if self.cancel.is_set():
                fut.cancel()
                return None
            try:
                answer = fut.result(_POLL_S)
                break
            except cf.TimeoutError:
                continue
            except Exception as exc:  # noqa: BLE001 - the client failed or went away
                log.info("window/showMessageRequest failed: %s", exc)
                return None
        title = getattr(answer, "title", None)
        return title if isinstance(title, str) else None

    # ------------------------------------------------------------------ the end
    def end(self, message: str) -> None:
        """Close the progress (once)."""
        if self._ended:
            return
        self._ended = True
        token = self.token
        if token is None:
            return

        def send() -> None:
            try:
                self.ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=message))
            except Exception:  # noqa: BLE001
                log.exception("ending the progress failed")
            self.ls.work_done_progress.tokens.pop(token, None)

        self._on_loop(send)

    def _report(self, message: str) -> None:
        token = self.token
        if token is None or self._ended:
            return

        def send() -> None:
            if self._ended:
                return
            try:
                self.ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=message))
            except Exception:  # noqa: BLE001
                log.exception("a progress report failed")

        self._on_loop(send)

    def _on_loop(self, fn) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            fn()
            return
        try:
            self.loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed: the server is ending
            pass
