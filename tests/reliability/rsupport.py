"""The reliability suite (`pytest tests/reliability`): hostile protocol input, hostile
workspaces, lifecycle, data safety, untrusted and offline. It runs at a reduced size by
default (what CI runs); ``SPECWARD_RELIABILITY_FULL=1`` runs the sizes docs/reliability.md
quotes. Tests that take long even reduced are marked ``slow``. Import helpers with
``from rsupport import ...`` (the folder is on sys.path as the tests' own folder)."""

from __future__ import annotations

import os

FULL = os.environ.get("SPECWARD_RELIABILITY_FULL") == "1"


def scaled(full: int, reduced: int) -> int:
    """A size: ``full`` with SPECWARD_RELIABILITY_FULL=1, else ``reduced``."""
    return full if FULL else reduced


async def wait_for(cond, what: str, timeout: float = 60.0):
    """Poll ``cond`` until it is true (never a fixed sleep); its value, or AssertionError."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
