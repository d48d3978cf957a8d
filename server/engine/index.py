"""The workspace index: per-file facts, contracts, linked calls and their findings.

Per-file facts come from the pure ``analyzers.extract.extract(path, text)``; cross-file
results (linked HTTP calls, their match against the merged contracts, unused endpoints)
are recomputed incrementally:

- a source file changes -> re-extract it, re-link it and every file that read it while
  being linked (``rdeps``: importers, callers of its wrappers, files that probed its path
  before it existed), re-match those files' calls;
- a contract changes -> rebuild the endpoint table, re-match every call (no re-linking).

All mutation happens under ``self.lock``; readers take it too. The index never raises for
one bad file: the file is recorded as skipped or gets a finding.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import gc
import json
import logging
import os
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from specward.analyzers import serial
from specward.analyzers.analyses import AnalysisInput, Context, analyze
from specward.analyzers.registry_rule import (hallucinated_package_findings, missing_from_findings, names_to_ask,
                                              replace_import_findings)
from specward.analyzers.contracts import parse_contract
from specward.analyzers.extract import EXTRACTOR_VERSION, extract_edited
from specward.analyzers.extract.incremental import edited_incrementally
from specward.analyzers.http import LINKER_VERSION, HttpCall, Linker
from specward.analyzers.matching import CallStatus, EndpointTable, Matcher, endpoint_id, unused_endpoint_findings
from specward.analyzers.model import ContractFacts, Endpoint, FileFacts, Finding, Route, Span
from specward.analyzers.resolve import ResolverConfig, is_resolver_config

from .cache import FactsCache
from .config import LoadedConfig, Settings, load_config
from .facts_store import FactsStore
from .parser_pool import BuildCancelled, ParserPool, remove_stale_walk_files
from .parsing import extract_safely, failed
from .reading import outside
from .inputs import ambient_modules, analysis_input, inputs_key, is_input_file
from .workspace import FileText, Workspace, digest_of

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]

CONFIG_FILES = ("specward.toml", "pyproject.toml")
PARALLEL_THRESHOLD = 400
BATCH = 64
MAX_RESTARTS = 24  # of parser processes in one build (a crashing file costs about six)
EDIT_STATES = 8  # documents edited incrementally whose extraction state is kept (trees: ~40 B/byte)


@contextlib.contextmanager
def _collector_paused(freeze: bool = False):
    """Pause the cyclic garbage collector (if it runs) for the duration; with ``freeze``,
    move everything alive at the end to the collector's permanent generation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


class _NotYetExtracted(Exception):
    """Raised by the build's lookup for a file whose facts are still being extracted."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _moved_findings(found: tuple[Finding, ...], rel: str, where) -> tuple[Finding, ...] | None:
    """Findings of ``rel`` placed where an edit moved them (their spans, and the edits of
    their quick fixes in this file); None when one cannot be placed."""
    out = []
    for f in found:
        span = where(f.span)
        if span is None:
            return None
        data = f.data
        fixes = dict(data).get("fixes")
        if fixes:
            moved = []
            for title, file, start, end, text in fixes:
                if file == rel:
                    at = where(Span(start, end))
                    if at is None:
                        return None
                    start, end = at.start, at.end
                moved.append((title, file, start, end, text))
            data = tuple((k, tuple(moved)) if k == "fixes" else (k, v) for k, v in data)
        out.append(f if span == f.span and data is f.data else replace(f, span=span, data=data))
    return tuple(out)


class _Building:
    """Which files are still being extracted during a build, and which linked files wait
    for which of them."""

    def __init__(self, pending: set[str]) -> None:
        self.pending = set(pending)
        self.waiting: dict[str, list[str]] = {}
        self.linked: set[str] = set()

    def lookup(self, get: Callable[[str], FileFacts | None]) -> Callable[[str], FileFacts | None]:
        pending = self.pending

        def lookup(rel: str) -> FileFacts | None:
            if rel in pending:
                raise _NotYetExtracted(rel)
            return get(rel)
        return lookup

    def arrived(self, rel: str) -> list[str]:
        """``rel``'s facts are in: the files to try linking now (it, and its waiters)."""
        self.pending.discard(rel)
        return [rel, *self.waiting.pop(rel, ())]

    def wait(self, rel: str, on: str) -> None:
        self.waiting.setdefault(on, []).append(rel)


class WorkspaceIndex:
    def __init__(self, root: Path, contract_globs: list[str] | None = None, use_cache: bool = True,
                 workers: int | None = None, severity: dict[str, str] | None = None) -> None:
        self.root = Path(root).resolve()
        self.lock = threading.RLock()
        self._contract_globs = contract_globs
        self._severity = dict(severity or {})  # editor settings: override the file's
        self._use_cache = use_cache
        self.workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
        self.config: LoadedConfig = load_config(self.root)
        self.ws = Workspace(self.root, self.config.settings, contract_globs)
        self.cache: FactsCache | None = None
        self.digests: dict[str, str] = {}
        self.facts = FactsStore(None, self.digests)
        self.problems: dict[str, tuple[Finding, ...]] = {}
        self.routes: dict[str, tuple[Route, ...]] = {}  # backend route declarations per file
        # the findings of the registered one-file analyses (analyzers/analyses.py) per file,
        # their edges merged into ``deps``; what reading their inputs found (a ledger line)
        self.analysis_findings: dict[str, tuple[Finding, ...]] = {}
        self.analysis_input = AnalysisInput()
        self.input_problems: dict[str, tuple[Finding, ...]] = {}
        # the opt-in registry check (server/engine/registry.py; set by the command line or the
        # editor, never by the workspace): its cached answers turn "may be hallucinated"
        # into hallucinated-package; the names it has no answer for yet, to be asked
        self.registry = None
        self.user_ledger = False  # read the user's own fix-history ledger too (a user opt-in)
        self.registry_wanted: dict[tuple[str, str], set[str]] = {}
        self._dirty_links: set[str] = set()
        # matched endpoints from the cache, per file, valid while the endpoint table is the same
        self._cached_matches: dict[str, tuple[str, tuple]] = {}
        self._table_key = ""
        self._ep_by_id: dict[tuple[str, str, str], Endpoint] = {}
        self.contracts: dict[str, ContractFacts] = {}
        self.skipped: dict[str, str] = {}
        self.calls: dict[str, list[HttpCall]] = {}
        self.deps: dict[str, set[str]] = {}
        self.rdeps: dict[str, set[str]] = {}
        # the registered analyses' own edges (what a file's analyses read or probed) and
        # their reverse: a change reached only through these re-runs the analyses, not the
        # linker
        self.adeps: dict[str, frozenset[str]] = {}
        self.ardeps: dict[str, set[str]] = {}
        self.statuses: dict[str, list[CallStatus]] = {}
        self.used: Counter[tuple[str, str, str]] = Counter()
        self.table = EndpointTable(())
        self.matcher = Matcher(self.table)
        # the module resolver's configuration (tsconfig/jsconfig, package.json, framework and
        # bundler configs), and the text of every file it read
        self.resolver_config = ResolverConfig.build({})
        self._resolver_texts: dict[str, str] = {}
        self._links_key = LINKER_VERSION
        self._resolver_digest = ""
        self._sources: list[str] = []  # the source files of the last walk
        self.unused: list[Finding] = []
        self.stats: dict[str, float] = {}
        # per document edited with `update(..., incremental=True)` (the editor's open ones):
        # what its next incremental extraction starts from (analyzers/extract/incremental.py)
        self._edit_states: OrderedDict[str, object] = OrderedDict()
        self._cancelled = threading.Event()
        self._parser_sets: list[ParserPool] = []  # started by builds, until they and their flush end
        self._parser_sets_lock = threading.Lock()
        self._build_sets: list[ParserPool] = []  # those of the build in progress (or the last one)

    @property
    def settings(self) -> Settings:
        return self.config.settings

    # ================================================================== cancelling
    def cancel(self) -> None:
        """Stop the build in progress, and any later one, at once (thread-safe; returns without
        waiting, never takes ``self.lock``). The build raises ``BuildCancelled`` at its next
        check, between files and batches; the parser processes are killed, not waited for;
        a flush of their facts to the cache stops. Nothing more is written to the cache, and
        what it holds is consistent (see ``BuildCancelled``). The index is not to be used
        after this: a session that is shutting down calls it."""
        self._cancelled.set()
        with self._parser_sets_lock:
            sets = list(self._parser_sets)
        for parsers in sets:
            parsers.kill()

    def _check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise BuildCancelled()

    def _track(self, parsers: "ParserPool") -> "ParserPool":
        """Parser processes a build started: ``cancel()`` kills them (and kills them now, if it
        was called while they started)."""
        with self._parser_sets_lock:
            # the sets whose work is over (processes shut down, facts flushed) are let go
            self._parser_sets = [p for p in self._parser_sets if not p.finished] + [parsers]
        self._build_sets.append(parsers)
        if self._cancelled.is_set():
            parsers.kill()
        return parsers

    # ================================================================== building
    def build(self, progress: Progress | None = None) -> None:
        """Index the whole workspace (cold, or warm from the cache). Raises
        ``BuildCancelled`` when ``cancel()`` is called meanwhile (or was before)."""
        # building allocates millions of objects that live as long as the index: the cyclic
        # collector would scan them again and again for nothing, so it pauses meanwhile, and
        # they are frozen after it (a full collection of them would take 0.3-2 s at 10,000
        # files). That leaks nothing because building leaves no reference cycle behind
        # (tests/server/test_index.py checks it).
        with _collector_paused(freeze=True):
            self._build(progress)

    def _build(self, progress: Progress | None) -> None:
        t0 = time.perf_counter()
        self._check_cancelled()
        with self.lock:
            self._build_sets = []
            try:
                self._build_locked(progress, t0)
            except BaseException as exc:
                # this build's parser processes are of no use any more (and those spawned
                # after cancel() looked are ended here); their walk file goes with them
                for parsers in self._build_sets:
                    parsers.kill()
                if isinstance(exc, BuildCancelled):
                    log.info("indexing cancelled after %.2f s", time.perf_counter() - t0)
                raise

    def _build_locked(self, progress: Progress | None, t0: float) -> None:
        check = self._check_cancelled
        self.config = load_config(self.root)
        self.ws = Workspace(self.root, self.config.settings, self._contract_globs)
        if self.cache is None:
            self.cache = FactsCache(self.root, EXTRACTOR_VERSION, self._use_cache and self.settings.cache)
        if self.cache.writable:
            remove_stale_walk_files(self.cache.path.parent)
        sources, contracts = self.ws.walk()
        self._sources = sources
        self._configure_resolver({rel: self.ws.read(rel).text for rel in self.ws.configs})
        self._read_inputs()
        total = len(sources) + len(contracts)
        cached = self.cache.digests() if self.cache else {}
        self.digests.clear(), self.skipped.clear(), self.contracts.clear(), self.problems.clear()
        self.routes.clear(), self._cached_matches.clear(), self.analysis_findings.clear()
        for f in self.ws.skipped_findings():  # refused by the walk: a link out, a folder too deep
            self.problems[f.file] = (*self.problems.get(f.file, ()), f)
        self.stats["reused_matches"] = 0.0
        for key in ("first_facts_s", "linked_in_parsers", "link_during_extract_s", "parser_processes", "analyze_s"):
            self.stats.pop(key, None)
        self.calls.clear(), self.deps.clear(), self.rdeps.clear(), self.statuses.clear(), self.used.clear()
        self.adeps.clear(), self.ardeps.clear()
        self.facts = FactsStore(self.cache, self.digests, recover=self._recover)
        parsers = None
        if self.workers >= 2 and len(sources) >= PARALLEL_THRESHOLD and len(cached) < len(sources) // 2:
            # most files will be parsed: start the parser processes now. With a cache
            # and nothing in it, they link too and write the facts to the cache later
            linking = not cached and self.cache.writable
            parsers = self._start_parsers(sources if linking else None)
        todo: list[tuple[str, str, str]] = []
        done = 0
        for rel in sources:
            check()
            ft = self.ws.read(rel)
            if ft.text is None:
                self.skipped[rel] = ft.reason or "skipped"
                done += 1
                continue
            self.digests[rel] = ft.digest
            if cached.get(rel) == ft.digest:
                self.facts.known_stored(rel)  # loaded only if some file must be re-linked
                done += 1
            else:
                todo.append((rel, ft.digest, ft.text))
                if parsers is not None:  # the parser processes start on the first files at once
                    parsers.add(rel, ft.digest, ft.text)
        if parsers is not None:
            parsers.add_rest()
        if progress:
            progress(done, total)
        self.stats["cached_files"] = float(done)
        self.stats["parsed_files"] = float(len(todo))
        for rel in contracts:
            self._load_contract(rel, self.ws.read(rel))
        self._rebuild_table()
        fresh = {rel for rel, _, _ in todo}
        relink = self._reuse_links(sorted(self.digests), fresh)
        self.stats["relinked_files"] = float(len(relink))
        t1 = time.perf_counter()
        on_progress = lambda n: progress and progress(done + n, total)  # noqa: E731
        in_parsers = parsers is not None and parsers.linking is not None and len(todo) >= PARALLEL_THRESHOLD
        if in_parsers:
            linked, linker = self._link_in_parsers(todo, parsers, on_progress, t0)
        else:
            linked, linker = self._extract_and_link(todo, fresh, parsers, on_progress, t0)
        t2 = time.perf_counter()
        self.stats["extract_s"] = t2 - t1  # wall time, the linking done meanwhile included
        check()  # (every file was read: ``digests`` is the whole workspace's)
        if self.cache:
            self.cache.forget([p for p in cached if p not in self.digests])
        if progress:
            progress(total, total)
        for rel in relink:  # not extracted now (stored facts, a changed dependency) or never tried
            if rel not in linked:
                check()
                self._link_one(linker, rel)
        check()
        self._rematch(list(self.calls))
        self._cached_matches.clear()
        check()  # the link results are complete from here on: they may be stored
        if in_parsers and self.cache:
            # the index is ready: the parser processes' facts, then the link results,
            # reach the cache from here on (encoding them is about a second of work)
            rows = self._link_rows()
            self.facts.flushing(parsers.flush_to(self.cache, then=lambda: self.cache.store_links(self._links_key, rows)))
        else:
            self._flush_links()
        self.stats["link_s"] = time.perf_counter() - t2  # what was left to link, and matching
        self.stats["build_s"] = time.perf_counter() - t0

    def _extract_and_link(self, todo: list[tuple[str, str, str]], fresh: set[str], parsers: "ParserPool | None",
                          progress: Callable[[int], None], t0: float) -> tuple[set[str], Linker]:
        """Extract here or in parser processes, and link here meanwhile: a file is linked as
        soon as its facts arrive; a file whose linking reads a file still being extracted
        waits for that file (this process would otherwise idle while the parser processes
        work). Returns the files linked, and the linker (its memo is still valid)."""
        building = _Building(fresh)
        linker = self._linker(building.lookup(self.facts.get))
        linked = 0.0
        encoded = []
        check = self._check_cancelled
        for rel, payload, crash in self._run_batches(todo, parsers, progress):
            check()
            digest = self.digests[rel]
            if crash is not None:
                facts = failed(rel, crash)
            elif isinstance(payload, FileFacts):
                facts = payload
            else:
                blob = payload[1]  # type: ignore[index]
                facts = serial.loads(blob)
                encoded.append((rel, digest, blob))
            self.facts.put_live(rel, facts)
            tl = time.perf_counter()
            self.stats.setdefault("first_facts_s", tl - t0)
            for ready in building.arrived(rel):
                self._link_attempt(linker, ready, building)
            linked += time.perf_counter() - tl
        self.stats["link_during_extract_s"] = linked
        check()
        if self.cache:
            # (only what was stored may leave memory: a cache that cannot be written keeps it)
            if self.cache.store_encoded(encoded):
                self.facts.mark_stored(e[0] for e in encoded)
            done_encoding = {e[0] for e in encoded}
            rest = [r for r in fresh if r not in done_encoding]
            if self.cache.store([(r, self.digests[r], self.facts.live(r)) for r in rest]):
                self.facts.mark_stored(rest)
        return building.linked, linker

    def _link_in_parsers(self, todo: list[tuple[str, str, str]], parsers: "ParserPool",
                         progress: Callable[[int], None], t0: float) -> tuple[set[str], Linker]:
        """The parser processes extract and link; their facts reach the cache after the
        build (``_build`` starts that; ``FactsStore`` waits for them when asked sooner).
        Returns the files linked, and a linker for the rest."""
        linked: set[str] = set()
        here: list[tuple[str, FileFacts]] = []  # crashed, or parsed in this process
        in_parsers = 0
        check = self._check_cancelled
        # the registered analyses run here, on the thin facts the processes send, once every
        # file is in (analyzers/analyses.py; run as batches arrive, a file's analysis would
        # stop at each import of a file still being extracted and start again later: ~4x)
        thins: dict[str, FileFacts] = {}
        for rel, payload, crash in self._run_batches(todo, parsers, progress):
            check()
            self.stats.setdefault("first_facts_s", time.perf_counter() - t0)
            if crash is not None:
                facts = failed(rel, crash)
                here.append((rel, facts))
                self.facts.put_live(rel, facts)
                self._set_links(rel, [], {rel}, facts.problems, facts.routes)
            elif isinstance(payload, FileFacts):  # parsed here (the processes could not start): linked below
                here.append((rel, payload))
                self.facts.put_live(rel, payload)
                continue
            else:
                _, calls, deps, problems, routes, thin_facts = payload  # type: ignore[misc]
                self.facts.known_stored(rel)
                self._set_links(rel, calls, deps, problems, routes)
                thins[rel] = thin_facts
                in_parsers += 1
            linked.add(rel)
        check()
        t = time.perf_counter()
        ctx = Context(self.analysis_input, lambda r: thins.get(r) or self.facts.live(r), self.resolver_config)
        for rel, thin_facts in thins.items():
            check()
            self._set_analysis(rel, *analyze(thin_facts, ctx))
        self.stats["analyze_s"] = time.perf_counter() - t
        if self.cache and self.cache.store([(r, self.digests[r], f) for r, f in here]):
            self.facts.mark_stored(r for r, _ in here)
        self.stats["linked_in_parsers"] = float(in_parsers)
        return linked, self._linker(self.facts.get)

    def _set_analysis(self, rel: str, found: tuple[Finding, ...] | None, edges: frozenset[str] = frozenset()) -> None:
        """Record one file's analysis results (``found`` None: the file has no facts) and
        its analysis edges."""
        for dep in self.adeps.pop(rel, ()):
            s = self.ardeps.get(dep)
            if s is not None:
                s.discard(rel)
        if found:
            self.analysis_findings[rel] = found
        else:
            self.analysis_findings.pop(rel, None)
        if found is None:
            return
        self.adeps[rel] = edges
        for dep in edges:
            self.ardeps.setdefault(dep, set()).add(rel)
        self._dirty_links.add(rel)

    def _analyze(self, paths: Iterable[str]) -> None:
        """The registered analyses of these files again (their calls need no linking)."""
        ctx = self._linker(self.facts.get).analysis  # type: ignore[attr-defined]
        for rel in paths:
            facts = self.facts.get(rel)
            if facts is None:
                self._set_analysis(rel, None)
            else:
                self._set_analysis(rel, *analyze(facts, ctx))

    def dependents(self, rel: str) -> set[str]:
        """Every file whose findings may change with ``rel``: through its links or its analyses."""
        return self.rdeps.get(rel, set()) | self.ardeps.get(rel, set())

    def _recover(self, rel: str) -> FileFacts | None:
        ft = self.ws.read(rel)
        if ft.text is None or ft.digest != self.digests.get(rel):
            return None
        log.info("re-extracting %s: its cached facts were unusable", rel)
        facts = extract_safely(rel, ft.text)
        if self.cache:
            self.cache.store([(rel, ft.digest, facts)])
        return facts

    def _reuse_links(self, rels: Iterable[str], fresh: set[str]) -> list[str]:
        """Take cached link results whose every dependency is unchanged; return the files
        that must be linked again."""
        cached = self.cache.load_links(self._links_key) if self.cache else {}
        relink = []
        digests = self.digests
        for rel in rels:
            row = cached.get(rel)
            if row is None or rel in fresh or any(digests.get(d) != dg for d, dg in row[0].items()):
                relink.append(rel)
                continue
            deps, calls, (problems, routes, matches, *rest) = row
            link_deps = set(rest[2]) if len(rest) >= 3 else set(deps)
            if len(rest) >= 2:
                self._set_analysis(rel, rest[0], frozenset(rest[1]))
            if matches and matches[0] == self._table_key:
                self._cached_matches[rel] = matches
            self.calls[rel] = calls
            self.deps[rel] = link_deps
            if problems:
                self.problems[rel] = problems
            if routes:
                self.routes[rel] = routes
            for dep in link_deps:
                self.rdeps.setdefault(dep, set()).add(rel)
        return relink

    def _flush_links(self) -> None:
        if self.cache:
            self.cache.store_links(self._links_key, self._link_rows())

    def _link_rows(self) -> list[tuple[str, dict, list, tuple]]:
        """The link results not yet stored (of files whose facts are stored), for the cache."""
        if not self.cache or not self._dirty_links:
            return []
        rows = []
        for rel in self._dirty_links:
            if rel in self.calls and rel in self.digests and self.facts.live(rel) is None:
                # valid while every path either step read is unchanged; each step's own
                # edges are kept apart
                links, edges = self.deps.get(rel, set()), self.adeps.get(rel, frozenset())
                rows.append((rel, {d: self.digests.get(d) for d in links | edges},
                             self.calls[rel], (self.problems.get(rel, ()), self.routes.get(rel, ()),
                                               self._matches_of(rel), self.analysis_findings.get(rel, ()),
                                               tuple(sorted(edges)), tuple(sorted(links)))))
        self._dirty_links.clear()
        return rows

    def _parsers(self, sources: list[str] | None = None) -> "ParserPool":
        """Parser processes, started at once: they load the grammars and compile the
        queries while this process is still reading the files. With ``sources`` (every
        source file of the walk) they link as well (``parsing.link_batch``)."""
        linking = None
        if sources is not None and self.cache is not None and self.cache.enabled:
            # the walk goes to the processes as a file in the cache folder: as an argument it
            # would be written to each new process's pipe, and a process that dies before
            # reading it all (a broken environment) would block that write for ever
            walk = self.cache.path.parent / f"walk-{os.getpid()}.txt"

            try:
                if outside(str(self.ws.root), walk.parent.name) is not None:  # .specward links out
                    raise OSError("the cache folder is a symlink out of the workspace")
                # the sources, then the texts the module resolver reads (see parsing.start_linking);
                # file names are bytes that need not be UTF-8: kept as they are (surrogateescape)
                walk.write_bytes(("\0".join(sources) + "\0\0" + json.dumps(self._resolver_texts))
                                 .encode("utf-8", "surrogateescape"))
                linking = (str(self.ws.root), str(walk), self.settings.max_file_size)
            except OSError as exc:
                log.warning("cannot write %s (%s): the main process links", walk, exc)
        return ParserPool(self.workers, linking, BATCH)

    def _start_parsers(self, sources: list[str] | None = None) -> "ParserPool | None":
        """``_parsers``, tracked for ``cancel()``; None when no process can be started at
        all (the multiprocessing primitives fail: a full ``/dev/shm``, a file-size limit):
        the files are then parsed here."""
        try:
            return self._track(self._parsers(sources))
        except OSError as exc:
            log.warning("parser processes cannot start (%s): the files are parsed here", exc)
            return None

    def _run_batches(self, todo: list[tuple[str, str, str]], parsers: "ParserPool | None",
                     progress: Callable[[int], None]) -> Iterable[tuple[str, object, str | None]]:
        """Extract (and with linking parser processes, link) ``todo``, yielding
        ``(rel, payload, None)`` as results come, or ``(rel, None, message)`` for a file
        a parser process crashed on. Here, one by one, when there are few files; else in
        parser processes: ``parsers`` when they were started before reading (and sent
        what was read), new extracting ones otherwise. The batches a crashed process
        took down are retried so that only the file that crashes is lost."""
        here = len(todo) < PARALLEL_THRESHOLD or self.workers < 2
        if not here and parsers is None:  # most files were cached, but there are still many to parse
            parsers = self._start_parsers()
            if parsers is None:
                here = True
            else:
                for i in range(0, len(todo), BATCH):
                    parsers.submit(todo[i:i + BATCH])
        if here:
            if parsers is not None:
                parsers.shutdown()
            self.stats["parser_processes"] = 0.0
            for i, (rel, _, text) in enumerate(todo, 1):
                self._check_cancelled()
                yield rel, extract_safely(rel, text), None
                if i % BATCH == 0:
                    progress(i)
            progress(len(todo))
            return
        assert parsers is not None
        self.stats["parser_processes"] = float(self.workers)
        finished = 0
        suspects: list[list[tuple[str, str, str]]] = []
        for fut in cf.as_completed(list(parsers.sent)):
            self._check_cancelled()  # (killed processes fail every batch at once)
            batch = parsers.sent.pop(fut)
            try:
                results = fut.result()
            except Exception as exc:  # noqa: BLE001 - a process died (native crash) or failed
                # every batch in flight fails with it: which file did it is not known yet
                if not suspects:
                    log.warning("a parser process failed (%s)", exc)
                suspects.append(batch)
                continue
            for result in results:
                yield result[0], result, None
            finished += len(batch)
            progress(finished)
        # Again in new processes, one batch in flight at a time so that a failure names its
        # batch; a failing batch is halved until the file that fails is alone. Processes
        # that cannot start at all leave the files to this process; processes that keep
        # failing (more restarts than a few crashing files need) leave them unanalyzed.
        restarts = 0
        while suspects:
            self._check_cancelled()
            if restarts == MAX_RESTARTS:
                log.warning("the parser processes keep failing: %d file(s) not analyzed", sum(map(len, suspects)))
                for batch in suspects:
                    for item in batch:
                        yield item[0], None, "not analyzed: the parser processes kept failing"
                break
            log.warning("retrying %d file(s) one batch at a time", sum(map(len, suspects)))
            restarts += 1
            try:
                parsers.restart()
                started = parsers.started()
            except OSError as exc:  # cannot even create the processes' queues now
                log.warning("parser processes cannot start (%s)", exc)
                started = False
            if not started:
                for batch in suspects:
                    for rel, _, text in batch:
                        yield rel, extract_safely(rel, text), None
                    finished += len(batch)
                    progress(finished)
                break
            while suspects:
                self._check_cancelled()
                batch = suspects.pop(0)
                try:
                    results = parsers.run(batch)
                except Exception as exc:  # noqa: BLE001
                    if len(batch) == 1:
                        log.warning("the parser crashed on %s (%s)", batch[0][0], exc)
                        yield batch[0][0], None, f"the parser crashed on this file ({exc})"
                    else:
                        half = len(batch) // 2
                        suspects[:0] = [batch[:half], batch[half:]]
                    break  # the processes are gone: new ones
                for result in results:
                    yield result[0], result, None
                finished += len(batch)
                progress(finished)
        if not parsers.linking:
            parsers.shutdown()

    def _load_contract(self, rel: str, ft: FileText) -> None:
        if ft.text is None:
            self.contracts[rel] = ContractFacts(rel, "unknown", findings=(
                Finding("contract-invalid", "error", f"contract file {ft.reason}", rel, Span(0, 0)),), readable=False)
            return
        try:
            self.contracts[rel] = parse_contract(rel, ft.text)
        except Exception as exc:  # noqa: BLE001
            log.exception("contract parse failed for %s", rel)
            self.contracts[rel] = ContractFacts(rel, "unknown", findings=(
                Finding("contract-invalid", "error", f"internal error while reading the contract: {exc}", rel, Span(0, 0)),),
                readable=False)

    # ================================================================== cross-file
    def _rebuild_table(self) -> None:
        endpoints = [ep for path in sorted(self.contracts) for ep in self.contracts[path].endpoints]
        unreadable = [path for path in sorted(self.contracts) if not self.contracts[path].readable]
        self.table = EndpointTable(endpoints, self.settings.base_paths,
                                   case_sensitive=self.settings.case_sensitive, unreadable=unreadable,
                                   hosts=[h for c in self.contracts.values() for h in c.hosts])
        self.matcher = Matcher(self.table)
        self._ep_by_id = {endpoint_id(ep): ep for ep in endpoints}
        ident = repr(([(ep.file, ep.method, ep.path, ep.base_path) for ep in endpoints], self.settings.base_paths))
        self._table_key = digest_of(ident.encode())

    def _link(self, paths: Iterable[str]) -> None:
        linker = self._linker(self.facts.get)
        for rel in paths:
            self._link_one(linker, rel)

    def _linker(self, lookup: Callable[[str], FileFacts | None]) -> Linker:
        """A linker for one batch of files, and the context the registered analyses of
        those files share (the same lookup: during a build it waits for files still being
        extracted, which stops analyses and linking alike)."""
        linker = Linker(lookup, self.resolver_config)
        linker.analysis = Context(self.analysis_input, lookup, self.resolver_config)  # type: ignore[attr-defined]
        return linker

    def _link_attempt(self, linker: Linker, rel: str, building: "_Building") -> None:
        """Link ``rel`` during a build, or park it until the file it needs is extracted."""
        try:
            self._link_one(linker, rel)
        except _NotYetExtracted as wait:
            building.wait(rel, wait.path)
        else:
            building.linked.add(rel)

    def _link_one(self, linker: Linker, rel: str) -> None:
        facts = self.facts.get(rel)
        if facts is None:
            self._set_links(rel, None, set(), (), ())
            self._set_analysis(rel, None)
            return
        try:
            calls, deps = linker.link_file(rel)
        except _NotYetExtracted:
            raise
        except Exception:  # noqa: BLE001
            log.exception("linking failed for %s", rel)
            calls, deps = [], {rel}
        found, edges = analyze(facts, linker.analysis, reraise=(_NotYetExtracted,))  # type: ignore[attr-defined]
        self._set_links(rel, calls, deps, facts.problems, facts.routes)
        self._set_analysis(rel, found, edges)

    def _set_links(self, rel: str, calls: list[HttpCall] | None, deps: set[str],
                   problems: tuple[Finding, ...], routes: tuple[Route, ...]) -> None:
        """Record one file's link results (``calls`` None: the file has no facts)."""
        for dep in self.deps.pop(rel, ()):
            s = self.rdeps.get(dep)
            if s is not None:
                s.discard(rel)
        if calls is None:
            self.calls.pop(rel, None)
            self.problems.pop(rel, None)
            self.routes.pop(rel, None)
            return
        self.calls[rel] = calls
        self.deps[rel] = deps
        self._dirty_links.add(rel)
        if problems:
            self.problems[rel] = problems
        else:
            self.problems.pop(rel, None)
        if routes:
            self.routes[rel] = routes
        else:
            self.routes.pop(rel, None)
        for dep in deps:
            self.rdeps.setdefault(dep, set()).add(rel)

    def _matches_of(self, rel: str) -> tuple:
        """(table key, per call: the matched endpoint's id and whether the match is weak, or
        None when the call is to be judged again: not matched, or matched with a note), for
        the cache."""
        sts = self.statuses.get(rel, ())
        return (self._table_key, tuple((*endpoint_id(st.endpoint), st.weak)
                                       if st.status == "matched" and st.endpoint and st.finding is None else None
                                       for st in sts))

    def _match(self, rel: str, calls: list[HttpCall]) -> list[CallStatus]:
        """Judge a file's calls; a warm start reuses the cached matched endpoints when the
        endpoint table is the one they were matched against (everything else is judged)."""
        judge = self.matcher.judge
        cached = self._cached_matches.pop(rel, None)
        if cached is None or cached[0] != self._table_key or len(cached[1]) != len(calls):
            return [judge(c) for c in calls]
        out = []
        for call, ep_id in zip(calls, cached[1]):
            ep = self._ep_by_id.get(tuple(ep_id[:3])) if ep_id else None
            out.append(CallStatus(call, "matched", ep, weak=bool(ep_id[3:4] == (True,)))  # type: ignore[index]
                       if ep is not None else judge(call))
            self.stats["reused_matches"] = self.stats.get("reused_matches", 0.0) + (ep is not None)
        return out

    def _rematch(self, paths: Iterable[str]) -> set[str]:
        """Judge the calls of ``paths`` again (their calls changed, or the table did), and
        of every file whose channel's frame their evidence changed; returns the files judged."""
        paths = set(paths)
        if not self.contracts:
            changed: set[str] = set()
        else:
            changed = set()
            everything = len(paths) >= len(self.calls)  # a build, a contract change: all are judged
            for rel in paths:
                calls = self.calls.get(rel)
                changed |= self.matcher.observe(rel, calls or (), changes=not everything)
        for channel in changed:
            paths |= self.matcher.files_of(channel)
        for rel in paths:
            for st in self.statuses.pop(rel, ()):
                if st.status == "matched" and st.endpoint is not None:
                    key = endpoint_id(st.endpoint)
                    self.used[key] -= 1
                    if self.used[key] <= 0:
                        del self.used[key]
            calls = self.calls.get(rel)
            if not calls:
                continue
            sts = self._match(rel, calls) if self.contracts else [CallStatus(c, "unresolved") for c in calls]
            self.statuses[rel] = sts
            for st in sts:
                if st.status == "matched" and st.endpoint is not None:
                    self.used[endpoint_id(st.endpoint)] += 1
        self.unused = unused_endpoint_findings(self.table.endpoints, set(self.used))
        return paths

    # ================================================================== updates
    def update(self, rel: str, text: str | None, incremental: bool = False) -> set[str]:
        """A file's new text (None: deleted or unreadable). Returns the paths whose findings
        may have changed. ``incremental``: the file is being edited (an open document) and
        its next versions will come this way too: keep what lets the next edit re-extract
        only the statements it touches (the results are the same either way)."""
        # an update of a large file builds tens of thousands of objects that live until it
        # ends: with the collector on, its young-generation passes scan them again and again
        # (~10 % of an edit's time); paused, one pass after the update sees them once
        with self.lock, _collector_paused():
            if rel in CONFIG_FILES:
                before = set(self.facts) | set(self.contracts) | {rel}
                self.build()
                return before | set(self.facts) | set(self.contracts)
            affected: set[str] = set()
            if self._resolves_with(rel):
                affected = self._update_resolver(rel, text)
            if is_input_file(rel) or (rel.endswith(".d.ts") and self._ambient_changed(rel, text)):
                affected |= self.reload_inputs()
            if self.ws.is_excluded(rel):
                return affected  # (a ledger in .specward/, a manifest in an excluded folder)
            if (rel in self.rdeps or rel in self.ardeps) and not self.ws.is_source(rel) \
                    and not self.ws.is_contract(rel, text) \
                    and rel not in self.contracts:
                return affected | self._other_file_changed(rel)
            # a contract that no longer looks like one (an edit removed its openapi key)
            # stays a contract, and is reported, rather than vanishing silently
            if self.ws.is_contract(rel, text) or rel in self.contracts:
                return self._update_contract(rel, text) | affected
            if self.ws.is_source(rel):
                return self._update_source(rel, text, incremental) | affected
            return affected

    def update_from_disk(self, rel: str) -> set[str]:
        ft = self.ws.read(rel)
        if ft.text is None and ft.reason != "the file no longer exists":
            with self.lock:
                self.skipped[rel] = ft.reason or "skipped"
        return self.update(rel, ft.text)

    def _update_source(self, rel: str, text: str | None, incremental: bool = False) -> set[str]:
        old_unused = {f.span for f in self.unused}
        change = None
        if text is None:
            self._edit_states.pop(rel, None)
            existed = self.facts.drop(rel)
            self.digests.pop(rel, None)
            if not existed:
                return {rel}
        else:
            digest = digest_of(text.encode("utf-8", "surrogatepass"))
            if self.digests.get(rel) == digest and rel in self.facts:
                return set()
            self.skipped.pop(rel, None)
            facts, change = self._extract(rel, text, incremental)
            self.facts.put_live(rel, facts)
            self.digests[rel] = digest
            if change is not None and change.moved_only and self._move_links(rel, facts, change):
                return {rel}  # no fact changed, only where they are: nothing to link or match
        linked = {rel} | self.rdeps.get(rel, set())
        self._link(linked)
        judged = self.ardeps.get(rel, set()) - linked  # reached only through an analysis edge
        self._analyze(judged)
        affected = linked | judged | self._rematch(linked)
        if {f.span for f in self.unused} != old_unused:
            affected |= set(self.contracts)
        return affected

    def prepare_edits(self, rel: str, text: str) -> None:
        """Give an open document what its incremental edits start from, when it has none
        (opened with the text already indexed): else its first edit extracts the whole file."""
        with self.lock, _collector_paused():
            if (rel in self._edit_states or rel not in self.facts or not self.ws.is_source(rel)
                    or self.digests.get(rel) != digest_of(text.encode("utf-8", "surrogatepass"))):
                return
            try:
                _, state, _ = extract_edited(rel, text, None, lazy=True)
            except Exception:  # noqa: BLE001 - its first edit extracts it in full instead
                return
            if state is not None:
                self._keep_state(rel, state)
                self.facts.put_live(rel, state)  # the same facts (same text), from that state

    def _keep_state(self, rel: str, state) -> None:
        """Keep ``rel``'s edit state; the oldest beyond ``EDIT_STATES`` is dropped, and its
        facts, if the store holds them through it, are built so that its tree goes too."""
        self._edit_states[rel] = state
        while len(self._edit_states) > EDIT_STATES:
            old_rel, old = self._edit_states.popitem(last=False)
            if self.facts.holds(old_rel, old):
                self.facts.put_live(old_rel, old.facts)

    def needs_edit_state(self, rel: str) -> bool:
        """Whether an open document still lacks what its incremental edits start from."""
        return rel not in self._edit_states and edited_incrementally(rel)

    def _extract(self, rel: str, text: str, incremental: bool):
        """(facts, how they differ from the index's facts of ``rel`` or None when not known)."""
        state = self._edit_states.pop(rel, None)
        if not incremental:
            return extract_safely(rel, text), None
        try:
            facts, new_state, change = extract_edited(rel, text, state, lazy=True)
        except Exception:  # noqa: BLE001 - the plain path reports the failure on the file
            return extract_safely(rel, text), None
        if new_state is not None:
            self._keep_state(rel, new_state)
            if facts is None:
                facts = new_state  # its facts are built when something reads them
        if state is None or not self.facts.holds(rel, state):
            change = None  # `change` compares with the state's facts, not the index's
        return facts, change

    def _move_links(self, rel: str, facts, change) -> bool:
        """An edit moved ``rel``'s facts without changing them: move its linked calls and
        their statuses the same way (a file's link results hold only its own spans, so no
        other file's change). False when a span cannot be placed: link as usual then."""
        calls = self.calls.get(rel)
        if calls is None or rel not in self.deps:
            return False
        where = change.span

        def moved_call(c: HttpCall) -> HttpCall | None:
            span, call_span = where(c.span), where(c.call_span)
            if span is None or call_span is None:
                return None
            return c if span == c.span and call_span == c.call_span else replace(c, span=span, call_span=call_span)

        new_calls = [moved_call(c) for c in calls]
        new_statuses = []
        for st in self.statuses.get(rel, ()):
            call = moved_call(st.call)
            finding = st._finding
            if finding is not None:
                span = where(finding.span)
                if span is None:
                    return False
                if span != finding.span:
                    finding = replace(finding, span=span)
            if call is None:
                return False
            unmoved = call is st.call and finding is st._finding
            new_statuses.append(st if unmoved else replace(st, call=call, _finding=finding))
        if any(c is None for c in new_calls):
            return False
        moved: dict = {}
        for table in (self.problems, self.routes):  # the facts' own, moved the same way
            items = table.get(rel, ())
            spans = [where(x.span) for x in items]
            if None in spans:
                return False
            moved[id(table)] = tuple(replace(x, span=sp) for x, sp in zip(items, spans))
        moved_analysis = _moved_findings(self.analysis_findings.get(rel, ()), rel, where)
        if moved_analysis is None:
            return False
        self.calls[rel] = new_calls
        if rel in self.statuses:
            self.statuses[rel] = new_statuses
        for table in (self.problems, self.routes):
            if moved[id(table)]:
                table[rel] = moved[id(table)]
        self._dirty_links.add(rel)
        if self.analysis_findings.get(rel):
            self.analysis_findings[rel] = moved_analysis
        self.stats["moved_links"] = self.stats.get("moved_links", 0.0) + 1
        return True

    def _update_contract(self, rel: str, text: str | None) -> set[str]:
        if text is None:
            self.contracts.pop(rel, None)
        else:
            self._load_contract(rel, FileText(rel, text, ""))
        self._rebuild_table()
        paths = list(self.calls)
        self._rematch(paths)
        return set(paths) | set(self.contracts) | {rel}

    def persist(self, rels: Iterable[str]) -> None:
        """The files' current facts match the disk: store them (and pending link results)."""
        if self.cache is None or not self.cache.enabled:
            return
        with self.lock:
            rows = []
            for r in rels:
                facts = self.facts.live(r)
                if facts is not None and r in self.digests:
                    rows.append((r, self.digests[r], facts))
            if self.cache.store(rows):
                self.facts.mark_stored(r for r, _, _ in rows)
            self._flush_links()

    # ================================================================== queries
    def findings(self, rel: str) -> list[Finding]:
        """All findings of one file, with configured severities applied."""
        with self.lock:
            out: list[Finding] = list(self.problems.get(rel, ()))
            out.extend(self._with_registry(rel, self.analysis_findings.get(rel, ())))
            out.extend(self.input_problems.get(rel, ()))
            for st in self.statuses.get(rel, ()):
                if st.finding is not None:
                    out.append(st.finding)
            contract = self.contracts.get(rel)
            if contract is not None:
                out.extend(contract.findings)
                out.extend(f for f in self.unused if f.file == rel)
            if self.config.source is not None and rel == self.config.source.relative_to(self.root).as_posix():
                out.extend(self.config.problems)
            return self._apply_severity(out)

    def _with_registry(self, rel: str, found: tuple[Finding, ...]) -> tuple[Finding, ...] | list[Finding]:
        """``found`` with the registry's answers, when the registry check is on: a package
        that is neither declared nor installed and that the registry does not know is a
        ``hallucinated-package``; names without an answer yet go to ``registry_wanted``."""
        if self.registry is None or not found:
            return found
        facts = self.facts.get(rel)
        missing = missing_from_findings(facts, found) if facts is not None else []
        if not missing:
            return found
        names = getattr(self.analysis_input.environment, "import_names", None)
        for pair in names_to_ask(missing, names):
            if self.registry.known(*pair) is None:
                self.registry_wanted.setdefault(pair, set()).add(rel)
        extra = hallucinated_package_findings(rel, missing, self.registry.known, names)
        return replace_import_findings(found, extra) if extra else found

    def ask_registry(self) -> set[str]:
        """Ask the registry about the names findings are waiting for (blocking: network);
        returns the files whose findings may have changed."""
        if self.registry is None:
            return set()
        with self.lock:
            wanted, self.registry_wanted = self.registry_wanted, {}
        if not wanted:
            return set()
        self.registry.ask_many(list(wanted))
        return set().union(*wanted.values())

    def _apply_severity(self, findings: list[Finding]) -> list[Finding]:
        overrides = {**self.settings.severity, **self._severity}
        out = []
        for f in findings:
            sev = overrides.get(f.code)
            if sev == "off":
                continue
            out.append(replace(f, severity=sev) if sev else f)
        return out

    def finding_paths(self) -> set[str]:
        """Every file that may have findings (the others have none)."""
        with self.lock:
            paths = (set(self.statuses) | set(self.contracts) | set(self.problems) | set(self.analysis_findings)
                     | set(self.input_problems))
            if self.config.source is not None and self.config.problems:
                paths.add(self.config.source.relative_to(self.root).as_posix())
            return paths

    def all_findings(self) -> list[Finding]:
        with self.lock:
            out = []
            for p in sorted(self.finding_paths()):
                out.extend(self.findings(p))
            return out

    def handlers_of(self, method: str, path: str) -> list[tuple[str, Route]]:
        """Backend route declarations implementing ``method path`` (either side's
        parameters match any segment)."""
        table = EndpointTable([Endpoint(method, path, "", Span(0, 0))])
        out = []
        with self.lock:
            for rel in sorted(self.routes):
                for route in self.routes[rel]:
                    if route.method in (method, "ANY") and table.lookup(route.path):
                        out.append((rel, route))
        return out

    def all_statuses(self) -> list[CallStatus]:
        with self.lock:
            return [st for p in sorted(self.statuses) for st in self.statuses[p]]

    def tracked(self, rel: str) -> bool:
        return (rel in CONFIG_FILES or self.ws.wanted(rel) or self._resolves_with(rel) or is_input_file(rel)
                or rel in self.rdeps or rel in self.ardeps)

    # ================================================================== module resolution
    def _resolves_with(self, rel: str) -> bool:
        """Whether the module resolver reads this file (or asked for it, and it was missing)."""
        return ((is_resolver_config(rel) and not self.ws.is_excluded(rel)) or rel in self._resolver_texts
                or rel in self.resolver_config.wanted)

    def _configure_resolver(self, texts: dict[str, str | None]) -> None:
        """Build the resolver's configuration from these files (and any file their
        ``extends`` names, read here: never outside the workspace)."""
        found = {rel: t for rel, t in texts.items() if t is not None}
        extra: dict[str, str] = {}

        def read(rel: str) -> str | None:
            if rel.startswith(("/", "../")) or "/../" in rel:
                return None
            ft = self.ws.read(rel)
            if ft.text is not None:
                extra[rel] = ft.text
            return ft.text

        self.resolver_config = ResolverConfig.build(found, read)
        self._resolver_texts = {**found, **extra}
        digest = digest_of(json.dumps(sorted(self._resolver_texts.items())).encode("utf-8", "surrogatepass"))
        self._resolver_digest = digest
        self._links_key = f"{LINKER_VERSION}-{digest}-{inputs_key(self.analysis_input)}"

    def _ambient_changed(self, rel: str, text: str | None) -> bool:
        env = self.analysis_input.environment
        declared = getattr(env, "declared_modules", {}) or {}
        before = sorted(m for m, r in declared.items() if r == rel)
        return before != sorted(set(ambient_modules(text or "")))

    def _other_file_changed(self, rel: str) -> set[str]:
        """A file that is not a source (a stylesheet, an image) appeared or went away, and
        some file's analyses asked for it: those are judged again."""
        files = set(self.analysis_input.files)
        if (self.root / rel).exists():
            files.add(rel)
        else:
            files.discard(rel)
        self.analysis_input = replace(self.analysis_input, files=frozenset(files))
        linked = set(self.rdeps.get(rel, ()))
        self._link(linked)
        judged = self.ardeps.get(rel, set()) - linked
        self._analyze(judged)
        return linked | judged | self._rematch(linked)

    def _read_inputs(self) -> None:
        """Read what the registered analyses take besides facts (installed packages,
        manifests, the fix-history ledgers); the link results' cache key follows them."""
        self.analysis_input, self.input_problems = analysis_input(self.root, self.ws, self.settings, self._sources,
                                                                  self.user_ledger)
        self._links_key = f"{LINKER_VERSION}-{self._resolver_digest}-{inputs_key(self.analysis_input)}"

    def reload_inputs(self) -> set[str]:
        """A manifest or a ledger changed (or was written by specward itself): when what
        the analyses read differs, every file is judged again. Returns the paths whose
        findings may have changed."""
        with self.lock, _collector_paused():
            before, problems_before = self._links_key, set(self.input_problems)
            self._read_inputs()
            changed = problems_before | set(self.input_problems)
            if self._links_key == before:
                return changed
            everything = list(self.calls) + [r for r in self.digests if r not in self.calls]
            self._link(everything)
            return changed | self._rematch(everything) | set(self.contracts) | set(everything)

    def _update_resolver(self, rel: str, text: str | None) -> set[str]:
        """A configuration file of the resolver changed: every file is linked again."""
        texts: dict[str, str | None] = {r: t for r, t in self._resolver_texts.items() if r != rel}
        if text is not None and is_resolver_config(rel):
            texts[rel] = text
        before = self._links_key
        self._configure_resolver(texts)
        if self._links_key == before:
            return set()
        everything = list(self.calls) + [r for r in self.digests if r not in self.calls]
        self._link(everything)
        return self._rematch(everything) | set(self.contracts)
