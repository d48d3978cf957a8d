"""Argument types the subcommands share: a clear one-line error for a value out of range."""

from __future__ import annotations

import argparse
from typing import Callable


def int_at_least(minimum: int, noun: str = "an integer") -> Callable[[str], int]:
    """``type=`` for an integer of at least ``minimum`` (``noun``: what the error calls it)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        if value < minimum:
            bound = "positive" if minimum == 1 else "negative" if minimum == 0 else f"below {minimum}"
            raise argparse.ArgumentTypeError(f"must {'be' if minimum == 1 else 'not be'} {bound}: {text}")
        return value

    return parse
