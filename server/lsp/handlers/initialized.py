"""``initialized``: the start-up (``startup.start``: create the session, index the
workspace with ``$/progress``, publish, then follow the disk).

Only the first ``initialized`` runs (a repeated one would index again and watch twice). A
start-up that fails (the session cannot be created, the build raises) is shown here: a
``window/showMessage`` error and ``specward/status`` with state ``error``; the server then
answers from whatever was indexed (documents opened are analyzed, requests answer what
they can, or nothing)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .. import last_score, startup

if TYPE_CHECKING:
    from ..server import SpecwardServer

log = logging.getLogger(__name__)


async def handle(ls: SpecwardServer, params: lsp.InitializedParams) -> None:
    if ls.initialized_seen:
        log.info("repeated initialized notification ignored")
        return
    ls.initialized_seen = True
    last_score.start(ls)  # specward/lastScore now, then whenever the run log changes
    await startup.start(ls, _failed)


def _failed(ls: SpecwardServer, exc: BaseException, what: str) -> str:
    """Say that start-up failed (a message and an error status); returns what was said."""
    detail = str(exc).replace("\n", " ")
    if len(detail) > 200:
        detail = detail[:197] + "..."
    message = (f"specward {what}: {type(exc).__name__}{': ' + detail if detail else ''}. "
               "Its answers come from what was indexed; the server log has the details.")
    log.error("%s", message, exc_info=exc)
    try:
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=message))
    except Exception:  # noqa: BLE001
        log.exception("showing the start-up failure failed")
    startup.status(ls, "error", message)
    return message
