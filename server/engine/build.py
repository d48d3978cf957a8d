"""How ``WorkspaceIndex`` builds: the walk and reading, the two ways of extracting and
linking (linking parser processes on an empty cache, else extraction here or in extracting
processes with linking here as facts arrive), a crashed parser process's batches retried
until the file that crashes is alone, the registered analyses after the last batch, and the
link results stored in the cache or reused from it (``docs/architecture.md``, "How the
workspace is indexed"). A mixin of ``WorkspaceIndex`` (``index.py``): its state lives there."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import gc
import json
import logging
import os
import time
from typing import Callable, Iterable

from specward.analyzers import serial
from specward.analyzers.analyses import Context, analyze
from specward.analyzers.extract import EXTRACTOR_VERSION
from specward.analyzers.http import Linker
from specward.analyzers.model import FOLDER_EDGE, FileFacts

from .cache import FactsCache
from .config import load_config
from .facts_store import FactsStore
from .parser_pool import BuildCancelled, ParserPool, remove_stale_walk_files
from .parsing import extract_safely, failed
from .reading import outside
from .workspace import Workspace


log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]

PARALLEL_THRESHOLD = 400
BATCH = 64
MAX_RESTARTS = 24  # of parser processes in one build (a crashing file costs about six)
LISTED = ""  # the "digest" of a linked file that is not a source, in a cached row: present by name


def _folder(dep: str) -> str | None:
    """A folder edge's "digest" in a cached row: never one a file has, so a row with one is
    judged again at the next start (what is below a folder is not kept); None (absent) for
    any other path without a digest."""
    return dep if dep.startswith(FOLDER_EDGE) else None


@contextlib.contextmanager
def _collector_paused(freeze: bool = False, resume: bool = True):
    """Pause the cyclic garbage collector (if it runs) for the duration; with ``freeze``,
    move everything alive at the end to the collector's permanent generation; without
    ``resume``, leave it paused (the caller turns it on again later)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled and resume:
            gc.enable()


class _NotYetExtracted(Exception):
    """Raised by the build's lookup for a file whose facts are still being extracted."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


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


class BuildSteps:
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
        self.mounts.clear(), self.suppressions.clear()
        self._composed = None
        for f in self.ws.skipped_findings():  # refused by the walk: a link out, a folder too deep
            self.problems[f.file] = (*self.problems.get(f.file, ()), f)
        self.stats["reused_matches"] = 0.0
        for key in ("first_facts_s", "linked_in_parsers", "link_during_extract_s", "parser_processes", "analyze_s"):
            self.stats.pop(key, None)
        self.calls.clear(), self.deps.clear(), self.rdeps.clear(), self.statuses.clear(), self.used.clear()
        self.adeps.clear(), self.ardeps.clear()
        self.generated.reset()
        self._buffers.clear()  # every file's text is the disk's again
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
            self.generated.seen(rel, ft.text)  # a provenance header (generated.py): a substring test
            self._note_suppressions(rel, ft.text)  # `specward: ignore[...]` comments: a substring test too
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
            ft = self.ws.read(rel)
            self._load_contract(rel, ft)
            self._note_suppressions(rel, ft.text)
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
        self._composed = None  # (composed before any file was extracted, when the table was built)
        if self.routes_as_contract():
            self._rebuild_table()  # the routes are known now
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
        try:
            self.context.load_all()
        except Exception:  # noqa: BLE001 - the manifests' findings are missing, nothing else
            log.exception("cannot judge the context manifests")
        try:
            self.generated.built()
        except Exception:  # noqa: BLE001 - the generated files' findings are missing, nothing else
            log.exception("cannot judge the generated files")
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
                self._set_links(rel, [], {rel}, facts.problems, (*facts.routes, *facts.mounts))
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
        ctx = Context(self.analysis_input, lambda r: thins.get(r) or self.facts.live(r), self.resolver_config,
                      self.installed, text=self._text_reader())
        for rel, thin_facts in thins.items():
            check()
            self._set_analysis(rel, *analyze(thin_facts, ctx))
        self.stats["analyze_s"] = time.perf_counter() - t
        if self.cache and self.cache.store([(r, self.digests[r], f) for r, f in here]):
            self.facts.mark_stored(r for r, _ in here)
        self.stats["linked_in_parsers"] = float(in_parsers)
        return linked, self._linker(self.facts.get)

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
        that must be linked again. (Called on a cleared index: nothing to unlink first.)"""
        cached = self.cache.load_links(self._links_key) if self.cache else {}
        relink = []
        # a file that is not a source is present by name only (LISTED): one that appeared
        # since is not absent any more, one that went away is not present
        listed = dict.fromkeys(self.analysis_input.files, LISTED)
        listed.update(self.digests)
        have, known = listed.items(), listed.keys()
        rdeps, ardeps = self.rdeps, self.ardeps
        inputs = self.analysis_input
        unlisted = inputs.unlisted_path if inputs.unlisted or inputs.unlisted_dirs else None
        for rel in rels:
            row = cached.get(rel)
            # (the view comparisons run in C: ~40 paths per file at 10,000 files)
            if row is None or rel in fresh or not row[0].items() <= have or not known.isdisjoint(row[1]):
                relink.append(rel)
                continue
            _, _, calls, (problems, routes, matches, found, edges, link_deps) = row
            if unlisted is not None and found and any(f.code == "phantom-import" for f in found) \
                    and any(unlisted(d) for d in row[1]):
                # a phantom import judged against the disk of a folder the walk leaves out
                # (installed.unlisted_exists): what is there now is not known
                relink.append(rel)
                continue
            link_deps = set(link_deps)
            if found:
                self.analysis_findings[rel] = found
            self.adeps[rel] = edges = frozenset(edges)
            for dep in edges:
                ardeps.setdefault(dep, set()).add(rel)
            if matches and matches[0] == self._table_key:
                self._cached_matches[rel] = matches
            self.calls[rel] = calls
            self.deps[rel] = link_deps
            if problems:
                self.problems[rel] = problems
            self._set_routes(rel, routes)
            for dep in link_deps:
                rdeps.setdefault(dep, set()).add(rel)
        return relink

    def _flush_links(self) -> None:
        if self.cache:
            self.cache.store_links(self._links_key, self._link_rows())

    def _link_rows(self) -> list[tuple[str, dict, list, tuple]]:
        """The link results not yet stored (of files whose facts are stored), for the cache."""
        if not self.cache or not self._dirty_links:
            return []
        rows = []
        files = self.analysis_input.files
        for rel in self._dirty_links:
            if rel in self.calls and rel in self.digests and self.facts.live(rel) is None:
                # valid while every path either step read is unchanged; each step's own
                # edges are kept apart
                links, edges = self.deps.get(rel, set()), self.adeps.get(rel, frozenset())
                rows.append((rel, {d: self.digests.get(d, LISTED if d in files else _folder(d)) for d in links | edges},
                             self.calls[rel], (self.problems.get(rel, ()),
                                               (*self.routes.get(rel, ()), *self.mounts.get(rel, ())),
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
