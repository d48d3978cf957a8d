"""The reliability suite (`pytest tests/reliability`): hostile protocol input, hostile
workspaces, lifecycle, data safety, untrusted and offline. It runs at a reduced size by
default (what CI runs); ``SPECWARD_RELIABILITY_FULL=1`` runs the sizes docs/reliability.md
quotes. Tests that take long even reduced are marked ``slow``."""

from __future__ import annotations

import os

import pytest

FULL = os.environ.get("SPECWARD_RELIABILITY_FULL") == "1"


def scaled(full: int, reduced: int) -> int:
    """A size: ``full`` with SPECWARD_RELIABILITY_FULL=1, else ``reduced``."""
    return full if FULL else reduced


@pytest.fixture
def full() -> bool:
    return FULL
