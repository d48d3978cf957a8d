"""Extraction that never fails, and the parser processes' entry points.

Kept apart from ``index.py`` so a parser process (spawned) imports only the analyzers
(and ``reading.py``), not the server's configuration, contract and cache modules: it
starts sooner and smaller.

Two kinds of parser process:

- ``extract_batch``: extract and return each file's facts, encoded; the main process
  decodes and links them (any build with parser processes and no cache to write to).
- ``link_batch`` (a *linking* parser process, set up by ``start_linking``): extract, keep
  the facts, link the files right here and return only the link results. A file a link
  reads that this process has not extracted (another process has it) is read and
  extracted here too. When the process exits, ``flush`` encodes every file's facts and
  puts them on a queue the main process drains into the cache, *after* the index is
  ready: a cold start pays neither encoding nor decoding before its diagnostics.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
import threading
import time
from multiprocessing import util

from specward.analyzers import serial
from specward.analyzers.analyses import thin
from specward.analyzers.extract import ecma_dispatch, extract, parse_source, warm_up
from specward.analyzers.http import HttpCall, Linker
from specward.analyzers.languages import language_of
from specward.analyzers.model import FileFacts, Finding, Route, Span
from specward.analyzers.resolve import ResolverConfig

from .reading import read_file

log = logging.getLogger(__name__)


def extract_safely(rel: str, text: str, tree=None) -> FileFacts:
    """Extraction never takes the index down: an exception becomes a finding on the file."""
    try:
        return extract(rel, text, tree)
    except RecursionError:
        return failed(rel, "the file is nested too deeply to analyze")
    except Exception as exc:  # noqa: BLE001 - reported to the user, not swallowed
        log.exception("extraction failed for %s", rel)
        return failed(rel, f"internal error while analyzing the file: {type(exc).__name__}: {exc}")


def failed(rel: str, message: str) -> FileFacts:
    return FileFacts(rel, language_of(rel) or "unknown",
                     problems=(Finding("file-skipped", "information", message, rel, Span(0, 0)),))


PARENT_POLL_S = 0.25  # how often a parser process checks that the index's process is alive


def watch_parent(parent: int) -> None:
    """End this process once ``parent``, the index's process that started it, is gone
    (killed in the middle of a build): its queue would otherwise keep it waiting for work
    for ever. Part of every parser process's initializer."""

    def watch() -> None:
        while os.getppid() == parent:  # a dead parent's children are re-parented
            time.sleep(PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="specward-parent-watch", daemon=True).start()


def start_worker() -> None:
    """Parser-process start-up work: grammars and queries, loaded while the main process
    is still reading the files."""
    _warm_up()


def _warm_up() -> None:
    """``warm_up`` for a parser process: it extracts whole files only, so an edit's
    statement-level queries are never compiled here (``ecma_dispatch.STATEMENT_QUERIES_EAGER``)."""
    ecma_dispatch.STATEMENT_QUERIES_EAGER = False
    warm_up()


def extract_batch(items: list[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """Parser-process entry point. Returns each file's facts encoded once: the bytes go to
    the cache as they are, and the main process decodes them for linking."""
    with _collector_off():
        trees = parsed(items)
        return [(rel, serial.dumps(extract_safely(rel, text, tree))) for (rel, text), tree in zip(items, trees)]


def parsed(items: list[tuple[str, str]]) -> list:
    """The trees of a batch's files, all parsed before any is extracted (see
    ``parse_source``): None for a file extraction parses itself."""
    return [parse_source(rel, text) for rel, text in items]


class _collector_off:
    """The cyclic collector is off while a batch runs (extraction allocates many objects
    and leaves no cycles; the collector's passes cost 5-10 % of extraction) and makes one
    young-generation pass after it, so nothing the batch left behind outlives it."""

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        gc.collect(0)  # what the batch left behind is all young: a cheap pass
        if self.enabled:
            gc.enable()


# ----------------------------------------------------------------------- linking processes

LinkResult = tuple[str, list[HttpCall], set[str], tuple[Finding, ...], tuple[Route, ...], FileFacts]
FLUSH_ROWS = 256  # facts rows per message on the flush queue


class _Linking:
    """A linking parser process's state for one build."""

    def __init__(self, root: str, sources: list[str], limit: int, queue, config: ResolverConfig) -> None:
        self.root = root
        self.tracked = frozenset(sources)
        self.limit = limit
        self.queue = queue
        self.config = config
        # rel -> (digest, facts); facts None for a file read here that cannot be analyzed
        self.facts: dict[str, tuple[str, FileFacts | None]] = {}
        self.linker = Linker(self.lookup, config)

    def lookup(self, rel: str) -> FileFacts | None:
        got = self.facts.get(rel)
        if got is None:
            if rel not in self.tracked:  # never read what the workspace walk did not list
                return None
            ft = read_file(self.root, rel, self.limit)
            got = self.facts[rel] = (ft.digest, None if ft.text is None else extract_safely(rel, ft.text))
        return got[1]

    def flush(self) -> None:
        """Encode every extracted file's facts onto the queue, say this process is done and
        end it once the queue has taken everything (tearing down an interpreter that holds
        a whole workspace's facts would only free memory, for a second or more)."""
        try:
            rows: list[tuple[str, str, bytes]] = []
            for rel, (digest, facts) in self.facts.items():
                if facts is not None:
                    rows.append((rel, digest, serial.dumps(facts)))
                    if len(rows) == FLUSH_ROWS:
                        self.queue.put(rows)
                        rows = []
            if rows:
                self.queue.put(rows)
        finally:
            self.queue.put(None)
            self.queue.close()
            self.queue.join_thread()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)


_linking: _Linking | None = None


def start_linking(root: str, walk: str, limit: int, queue, parent: int) -> None:
    """Initializer of a linking parser process: ``walk`` is a file listing every source
    file of the walk, NUL-separated (the only files a link may read); ``queue`` receives
    the facts at exit; ``parent`` is the index's process."""
    global _linking
    watch_parent(parent)
    # the facts live until the process ends and extraction leaves no reference cycles
    # (tests/server/test_index.py checks it): the cyclic collector would only scan them
    # again and again, so it stays off for the life of this process
    gc.disable()
    _warm_up()
    with open(walk, encoding="utf-8", errors="surrogateescape") as fh:  # file names as they are (bytes)
        listed, _, configs = fh.read().partition("\0\0")
    sources = listed.split("\0") if listed else []
    config = ResolverConfig.build(json.loads(configs) if configs else {})
    _linking = _Linking(root, sources, limit, queue, config)
    util.Finalize(_linking, _linking.flush, exitpriority=10)  # runs when the process exits


def link_batch(items: list[tuple[str, str, str]]) -> list[LinkResult]:
    """Linking parser-process entry point: ``(rel, digest, text)`` items (read by the main
    process) -> ``(rel, calls, deps, problems, routes and mounts, thin facts)`` per file."""
    st = _linking
    assert st is not None, "link_batch needs start_linking as the process initializer"
    todo = []
    for rel, digest, text in items:
        had = st.facts.get(rel)
        if had is None or had[0] != digest:
            if had is not None:  # read here earlier with other content: links may be stale
                st.linker = Linker(st.lookup, st.config)
            todo.append((rel, digest, text))
    for (rel, digest, text), tree in zip(todo, parsed([(rel, text) for rel, _, text in todo])):
        st.facts[rel] = (digest, extract_safely(rel, text, tree))
    out: list[LinkResult] = []
    for rel, _, _ in items:
        facts = st.facts[rel][1]
        assert facts is not None
        try:
            calls, deps = st.linker.link_file(rel)
        except Exception:  # noqa: BLE001 - one file's linking never fails the batch
            log.exception("linking failed for %s", rel)
            calls, deps = [], {rel}
        # what the registered analyses read of a file (analyzers/analyses.py): they run in
        # the main process, which gets every file's thin facts (here, each process has only
        # some files, and following every import would extract the others' files again)
        out.append((rel, calls, deps, facts.problems, (*facts.routes, *facts.mounts), thin(facts)))
    return out
