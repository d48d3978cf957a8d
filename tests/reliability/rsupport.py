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
