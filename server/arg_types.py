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


def finite_number(zero_ok: bool, rule: str) -> Callable[[str], float]:
    """``type=`` for a finite number above 0 (or at least 0, ``zero_ok``); ``rule`` is what
    the error says it must be (``a positive number``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value >= 0 if zero_ok else value > 0) or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be {rule}: {text}")
        return value

    return parse
