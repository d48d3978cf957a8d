"""``shutdown``: stop watching and close the cache (``Session.shutdown``, bounded here:
the reply does not wait for more than a few seconds)."""

from __future__ import annotations

SHUTDOWN_WAIT_S = 3.0


def handle(ls, params) -> None:
    ls.close_session(timeout=SHUTDOWN_WAIT_S)
