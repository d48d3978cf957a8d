"""``shutdown``: stop watching and close the cache."""

from __future__ import annotations


def handle(ls, params) -> None:
    if ls.session is not None:
        ls.session.shutdown()
