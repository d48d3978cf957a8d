"""``FactsStore``: rel -> FileFacts without holding every file's facts in memory (live
facts of unsaved buffers and fresh extractions, a small LRU, the rest loaded from the
cache on demand, waiting for a cold start's cache writer when it must)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Iterable

from specward.analyzers.model import FileFacts

from .cache import FactsCache
from . import parser_pool


class FactsStore:
    """rel -> FileFacts without holding every file's facts in memory.

    Facts that are only in memory (just extracted and not yet stored, an unsaved editor
    buffer, or no cache at all) are *live*; facts stored in the cache are loaded on demand
    and kept in a small LRU. ``digests`` (owned by the index) says which content each path
    has, so a lazily loaded row is always the right one."""

    def __init__(self, cache: FactsCache | None, digests: dict[str, str], limit: int = 1024,
                 recover: Callable[[str], FileFacts | None] | None = None) -> None:
        self.cache = cache if cache is not None and cache.enabled else None
        self.digests = digests
        self.recover = recover
        self.limit = limit
        self._live: dict[str, FileFacts] = {}
        self._lru: OrderedDict[str, FileFacts] = OrderedDict()
        self._stored: set[str] = set()
        self._flushed: threading.Event | None = None

    def __contains__(self, rel: object) -> bool:
        return rel in self._live or rel in self._stored

    def __iter__(self):
        return iter(sorted(set(self._live) | self._stored))

    def __len__(self) -> int:
        return len(set(self._live) | self._stored)

    def get(self, rel: str) -> FileFacts | None:
        facts = self._live.get(rel)
        if facts is not None:
            if type(facts) is not FileFacts:  # an edit state whose facts are built when needed
                facts = self._live[rel] = facts.facts
            return facts
        if rel not in self._stored:
            return None
        facts = self._lru.get(rel)
        if facts is not None:
            self._lru.move_to_end(rel)
            return facts
        if self._flushed is not None and not self._flushed.is_set():
            self._flushed.wait(parser_pool.FLUSH_WAIT_S)  # the parser processes are still writing them
        loaded = self.cache.load(rel, self.digests.get(rel, "")) if self.cache else None
        if not isinstance(loaded, FileFacts):
            # a damaged or vanished row: extract the file again rather than lose it
            loaded = self.recover(rel) if self.recover else None
            if loaded is None:
                return None
        self._lru[rel] = loaded
        if len(self._lru) > self.limit:
            self._lru.popitem(last=False)
        return loaded

    def built(self, rel: str) -> FileFacts | None:
        """The facts of ``rel`` when they are at hand (live and built, or in the LRU): no
        build, no load from the cache; None otherwise."""
        v = self._live.get(rel)
        if v is None:
            return self._lru.get(rel)
        return v if type(v) is FileFacts else v.built

    def put_live(self, rel: str, facts) -> None:
        """``facts``: a file's facts, or an incremental edit's state (``.facts`` builds them;
        an edit that only moved facts is not built until something reads them)."""
        self._live[rel] = facts
        self._stored.discard(rel)
        self._lru.pop(rel, None)

    def mark_stored(self, rels: Iterable[str]) -> None:
        """These files' current facts are now in the cache: memory may let them go."""
        if self.cache is None:
            return
        for rel in rels:
            if rel in self._live:
                del self._live[rel]
                self._stored.add(rel)

    def known_stored(self, rel: str) -> None:
        self._stored.add(rel)

    def flushing(self, done: threading.Event) -> None:
        """Stored facts are still being written to the cache until ``done`` is set."""
        self._flushed = done

    def wait_stored(self, timeout: float | None = None) -> bool:
        """Wait until facts still on their way to the cache are in (True: none pending)."""
        return self._flushed is None or self._flushed.wait(timeout)

    def drop(self, rel: str) -> bool:
        existed = rel in self
        self._live.pop(rel, None)
        self._lru.pop(rel, None)
        self._stored.discard(rel)
        return existed

    def live(self, rel: str) -> FileFacts | None:
        return self.get(rel) if rel in self._live else None

    def holds(self, rel: str, state) -> bool:
        """Whether the live facts of ``rel`` are those of an incremental edit ``state``."""
        v = self._live.get(rel)
        return v is not None and (v is state or v is state.built)
