"""``shutdown``: stop watching and close the cache (``Session.shutdown``, bounded here:
the reply does not wait for more than a few seconds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..server import SpecwardServer

SHUTDOWN_WAIT_S = 3.0


def handle(ls: SpecwardServer, params: None) -> None:
    ls.close_session(timeout=SHUTDOWN_WAIT_S)
