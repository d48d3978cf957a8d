"""Extraction that never fails, and the parser processes' entry points.

Kept apart from ``index.py`` so a parser process (spawned) imports only the analyzers,
not the server's configuration, contract and cache modules: it starts sooner and smaller.
"""

from __future__ import annotations

import gc
import logging

from specward.analyzers import serial
from specward.analyzers.extract import extract, warm_up
from specward.analyzers.languages import language_of
from specward.analyzers.model import FileFacts, Finding, Span

log = logging.getLogger(__name__)


def extract_safely(rel: str, text: str) -> FileFacts:
    """Extraction never takes the index down: an exception becomes a finding on the file."""
    try:
        return extract(rel, text)
    except RecursionError:
        return failed(rel, "the file is nested too deeply to analyze")
    except Exception as exc:  # noqa: BLE001 - reported to the user, not swallowed
        log.exception("extraction failed for %s", rel)
        return failed(rel, f"internal error while analyzing the file: {type(exc).__name__}: {exc}")


def failed(rel: str, message: str) -> FileFacts:
    return FileFacts(rel, language_of(rel) or "unknown",
                     problems=(Finding("file-skipped", "information", message, rel, Span(0, 0)),))


def start_worker() -> None:
    """Parser-process start-up work: grammars and queries, loaded while the main process
    is still reading the files."""
    warm_up()


def extract_batch(items: list[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """Parser-process entry point. Returns each file's facts encoded once: the bytes go to
    the cache as they are, and the main process decodes them for linking.

    The cyclic collector is off while the batch runs (extraction allocates many objects
    and leaves no cycles; the collector's passes cost 5-10 % of extraction) and makes one
    young-generation pass after it, so nothing the batch left behind outlives it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [(rel, serial.dumps(extract_safely(rel, text))) for rel, text in items]
    finally:
        gc.collect(0)  # what the batch left behind is all young: a cheap pass
        if enabled:
            gc.enable()
