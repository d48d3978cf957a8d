"""Session: the server's mutable state, and the one worker thread that changes the index.

- Notifications (open, change, close, save, watched files, disk events) run on the event
  loop; they only record what changed and schedule an index job.
- Index jobs run one at a time on a single worker thread (``self.worker``), so the index
  is mutated by one thread only and the event loop stays free for requests. A burst of
  edits to one document coalesces into one job that reads the latest text.
- After a job, findings of the affected files are converted against the exact text the
  job analyzed and published, only when they changed; an open document's first publish
  goes out even when it is empty, and so does the one that clears a file's last finding.
- ``shutdown()`` returns at once, whatever the index thread is doing: it cancels the
  build (``WorkspaceIndex.cancel``: parser processes killed, the cache left consistent),
  drops the queued jobs, and the job still running stops at its next check; the cache is
  closed when that job ends. A process that exits without it (any path) does it first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import concurrent.futures.process  # noqa: F401 - its exit hook must be registered before ours (_shutdown_at_exit)
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Span

from ..engine.index import BuildCancelled, WorkspaceIndex
from ..engine.inputs import GENERATED_TYPES
from ..engine.reading import read_data
from ..engine.watcher import DiskWatcher
from . import convert
from .baseline_marks import BaselineMarks

if TYPE_CHECKING:
    from .server import SpecwardServer

log = logging.getLogger(__name__)

PUBLISH_SLICE_S = 0.01  # index-thread time per job when publishing the whole workspace


class Session:
    def __init__(self, server: "SpecwardServer", root: Path) -> None:
        self.server = server
        self.root = root.resolve()
        options = getattr(server, "editor_options", {}) or {}
        self.index = WorkspaceIndex(self.root, contract_globs=options.get("contracts"),
                                    severity=options.get("severity"))
        self.index.user_ledger = bool(options.get("user_ledger"))
        self.worker = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="specward-index")
        # the opt-in registry check (a user/editor setting only): its network requests run on
        # a thread of their own, never on the index thread or the event loop
        self.registry_worker: cf.ThreadPoolExecutor | None = None
        self._asking = False
        if options.get("registry_check"):
            from ..engine.registry import RegistryCheck

            self.index.registry = RegistryCheck.from_environment(self.root)
            self.registry_worker = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="specward-registry")
        self.loop = asyncio.get_running_loop()
        self.ready = asyncio.Event()
        self.open: dict[str, str] = {}  # rel -> uri of open documents
        self.snapshots: dict[str, tuple[int | None, str]] = {}  # rel -> (version, text) last analyzed
        self.latest: dict[str, tuple[int | None, str]] = {}  # rel -> (version, text) of the editor, last seen
        self.pending: set[str] = set()
        self.published: dict[str, tuple] = {}  # rel -> (findings key, version) of a non-empty publish
        # open documents that have not had a publish for their editor text yet: they get one
        # even when it is empty (a client may wait for it); push only
        self.unannounced: set[str] = set()
        self._lines: dict[str, tuple[tuple[int, int], LineIndex]] = {}
        self.open_lines: dict[str, tuple[int | None, str, LineIndex]] = {}
        self.watcher: DiskWatcher | None = None
        self.encoding = convert.encoding_name(server.workspace.position_encoding)
        caps = server.client_capabilities
        # pull diagnostics when the client can pull *and* can be told to pull again after a
        # change (workspace/diagnostic/refresh): without refresh, a change in another file
        # (a contract edit) would not reach an open document until its next edit. Push
        # otherwise. Never both, or every diagnostic shows twice: a client that pulls but
        # gets pushed diagnostics (Neovim 0.11) is answered empty reports.
        self.pull = bool(caps.text_document and caps.text_document.diagnostic and caps.workspace
                         and caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support)
        # the configuration's baseline: its findings are shown as hints (baseline_marks.py)
        self.baseline = BaselineMarks(self.root, self._warn_soon)
        self.closing = False  # shutdown() was called: no job starts any more
        self._job_lock = threading.Lock()
        self._busy = False  # a job is running on the index thread
        _shutdown_at_exit(self)

    # ------------------------------------------------------------------ paths
    def rel_of_uri(self, uri: str) -> str | None:
        path = convert.uri_to_path(uri)
        if path is None:
            return None
        return self.index.ws.rel(path)

    def uri_of(self, rel: str) -> str:
        return self.open.get(rel) or (self.root / rel).as_uri()

    # ------------------------------------------------------------------ jobs
    def submit(self, fn: Callable[..., Any], *args: Any, raising: bool = False) -> asyncio.Future:
        """Run ``fn`` on the index thread; returns an awaitable future. Once the session is
        shutting down, the future is cancelled (awaiting it cancels the awaiting handler:
        an interrupted build is never followed by a "ready" or a publish). A job that
        fails is logged and gives None, unless ``raising`` (a request's work: its
        exception reaches the client as an error reply)."""
        try:
            if self.closing:
                raise RuntimeError("the session is shutting down")
            return asyncio.wrap_future(self.worker.submit(self._guard, raising, fn, *args), loop=self.loop)
        except RuntimeError:  # (the worker refuses jobs once shut down)
            fut = self.loop.create_future()
            fut.cancel()
            return fut

    def _guard(self, raising: bool, fn: Callable[..., Any], *args: Any) -> Any:
        with self._job_lock:
            if self.closing:
                raise cf.CancelledError()
            self._busy = True
        try:
            return fn(*args)
        except BuildCancelled:
            raise cf.CancelledError() from None
        except Exception:  # noqa: BLE001 - one failing job never stops the session
            if self.closing:  # what a cancelled index raises is no failure
                raise cf.CancelledError() from None
            if raising:
                raise
            log.exception("index job %s failed", getattr(fn, "__name__", fn))
            return None
        finally:
            with self._job_lock:
                self._busy = False
                closing = self.closing
            if closing:
                self._close_cache()  # the job shutdown() did not wait for has ended

    def document_opened(self, rel: str, uri: str) -> None:
        """A document was opened: from now on its editor text is analyzed, and its first
        publish goes out even when it has no finding."""
        self.open[rel] = uri
        if not self.pull:
            self.unannounced.add(rel)
        if self.ready.is_set():
            self.document_changed(rel)

    def untracked_opened(self, uri: str, version: int | None) -> None:
        """A document specward does not analyze (outside the workspace, excluded, not a
        source or contract file) was opened: one empty publish, so that a client waiting
        for its first publish does not wait forever."""
        if self.pull:
            return
        try:
            self.server.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[]))
        except Exception:  # noqa: BLE001
            log.exception("publishing diagnostics for %s failed", uri)

    def document_changed(self, rel: str) -> None:
        """An open document's text changed: analyze its latest text (coalesced). Called on
        the event loop, where pygls applies the edits: the (version, text) pair is taken
        here, in one piece. Read on the index thread, an edit applied in between would pair
        one version's text with another's number (a publish for the wrong version, found
        by tests/reliability/test_soak.py)."""
        uri = self.open.get(rel)
        if uri is not None:
            doc = self.server.workspace.get_text_document(uri)
            self.latest[rel] = (doc.version, doc.source)
        if rel in self.pending:
            return
        self.pending.add(rel)
        fut = self.submit(self._analyze_open, rel)
        fut.add_done_callback(lambda f: self._after(f))

    def _analyze_open(self, rel: str) -> list[lsp.PublishDiagnosticsParams]:
        self.pending.discard(rel)
        uri = self.open.get(rel)
        if uri is None:
            return []
        latest = self.latest.get(rel)
        if latest is None:
            doc = self.server.workspace.get_text_document(uri)
            latest = (doc.version, doc.source)
        version, text = latest
        self.snapshots[rel] = (version, text)
        # an open document's next versions come this way: the index keeps what lets it
        # re-extract only the statements an edit touches
        # (the collector's pass over what the edit built waits until the publish is sent: _after)
        changed = self.index.update(rel, text, incremental=True, hold_collector=True)
        changed.add(rel)
        if self.index.needs_edit_state(rel) and not self.closing:
            # opened with the text already indexed: get its first edit ready (after this
            # publish), and what that edit re-checks
            try:
                self.worker.submit(self._guard, False, self.index.prepare_edits, rel, text)
                self.worker.submit(self._guard, False, self.index.warm_dependents, rel)
            except RuntimeError:  # shutting down meanwhile
                pass
        return self._prepare(changed)

    def disk_changed(self, rels: set[str]) -> None:
        """Files changed on disk: re-read those the editor does not have open."""
        todo = sorted(r for r in rels if r not in self.open)
        if todo:
            self.submit(self._analyze_disk, todo).add_done_callback(self._after)

    def _analyze_disk(self, rels: list[str]) -> list[lsp.PublishDiagnosticsParams]:
        changed: set[str] = set()
        for rel in rels:
            self.snapshots.pop(rel, None)
            self.latest.pop(rel, None)
            changed |= self.index.update_from_disk(rel)
        self.index.persist(rels)
        return self._prepare(changed)

    def _after(self, fut: "asyncio.Future") -> None:
        """On the event loop: send what an index job prepared (or, for a client that
        pulls, ask it to pull again)."""
        try:
            self._send(fut)
        finally:
            self.index.resume_collector()

    def _send(self, fut: "asyncio.Future") -> None:
        if fut.cancelled() or fut.exception() is not None:
            return
        prepared = fut.result() or ()
        self._ask_registry()
        if self.pull:
            if prepared:
                self.server.workspace_diagnostic_refresh(None)
            return
        for params in prepared:
            try:
                self.server.text_document_publish_diagnostics(params)
            except Exception:  # noqa: BLE001
                log.exception("publishing diagnostics for %s failed", params.uri)

    def _ask_registry(self) -> None:
        """When findings wait for the registry's answer about a package name: ask (on the
        registry thread), then publish the files again with the answers."""
        if self.registry_worker is None or self._asking or self.closing or not self.index.registry_wanted:
            return
        self._asking = True

        def asked(fut: "cf.Future") -> None:
            self._asking = False
            try:
                files = fut.result()
            except Exception:  # noqa: BLE001 - offline, refused: the findings stay as they are
                log.exception("asking the package registry failed")
                return
            if files and not self.closing:
                self.loop.call_soon_threadsafe(
                    lambda: self.submit(self._prepare, set(files)).add_done_callback(self._after))

        try:
            self.registry_worker.submit(self.index.ask_registry).add_done_callback(asked)
        except RuntimeError:  # shutting down
            self._asking = False

    # ------------------------------------------------------------------ publishing
    def _prepare(self, rels: set[str]) -> list[lsp.PublishDiagnosticsParams]:
        """On the index thread: the diagnostics of these files that changed since they
        were last published, converted against the exact text that was analyzed."""
        out = []
        if self.baseline_changed():  # every file with findings may show them otherwise
            rels = set(rels) | self.index.finding_paths() | set(self.published)
        # open documents first: the one being edited is what the user is waiting for
        for rel in sorted(rels, key=lambda r: (r not in self.open, r)):
            try:
                params = self._prepare_one(rel)
            except Exception:  # noqa: BLE001
                log.exception("preparing diagnostics for %s failed", rel)
                continue
            if params is not None:
                out.append(params)
        return out

    def baseline_changed(self) -> bool:
        """On the index thread: the configuration names another baseline, or its file changed."""
        renamed = self.baseline.configure(self.index.settings.baseline)
        return self.baseline.refresh() or renamed

    def findings_of(self, rel: str, lines: Callable[[], LineIndex]) -> list:
        """What the editor shows for ``rel``: the index's findings, the baseline's at hint
        severity. ``lines()`` gives the analyzed text, asked for only when the baseline
        records findings of ``rel``."""
        findings = self.index.findings(rel)
        if findings and self.baseline.covers(rel):
            findings = self.baseline.mark(rel, findings, lines().data)
        return findings

    def _lines_of(self, rel: str, snap: tuple[int | None, str] | None) -> LineIndex:
        return self._open_lines(rel, snap[0], snap[1]) if snap is not None else self._disk_lines(rel)

    def _warn_soon(self, message: str) -> None:
        """A warning for the user from any thread (the baseline cannot be read)."""
        def show() -> None:
            try:
                self.server.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))
            except Exception:  # noqa: BLE001 - a message that cannot be sent is logged only
                log.warning("%s", message)
        self.loop.call_soon_threadsafe(show)

    def _prepare_one(self, rel: str) -> lsp.PublishDiagnosticsParams | None:
        """The publish of one file, or None when it would repeat the last one. An empty list
        goes out to clear a file published with findings, and once to an open document
        whose editor text has not been published yet (``unannounced``); a clean file on
        disk is never published."""
        snap = self.snapshots.get(rel) if rel in self.open else None
        if rel not in self.open:
            self.unannounced.discard(rel)
        version = snap[0] if snap is not None else None
        findings = self.findings_of(rel, lambda: self._lines_of(rel, snap))
        # its first publish carries the version of the editor text that was analyzed
        first = snap is not None and rel in self.unannounced
        key = tuple((f.code, f.severity, f.message, f.span) for f in findings)
        if self.published.get(rel) == (key, snap[0] if snap else None) and not first:
            return None
        if not findings and rel not in self.published and not first:
            return None
        self.unannounced.discard(rel)
        index = self._lines_of(rel, snap)  # (built once per version, or per size and mtime)
        diags = [convert.diagnostic(f, index, self.encoding) for f in findings]
        if findings:
            self.published[rel] = (key, version)
        else:
            self.published.pop(rel, None)
        return lsp.PublishDiagnosticsParams(uri=self.uri_of(rel), version=version, diagnostics=diags)

    def _disk_lines(self, rel: str) -> LineIndex:
        """Line index of a file as on disk, reused while its size and mtime are unchanged."""
        path = self.root / rel
        try:
            st = path.stat()
            key = (st.st_mtime_ns, st.st_size)
            hit = self._lines.get(rel)
            if hit is not None and hit[0] == key:
                return hit[1]
            data, _ = read_data(str(self.root), rel, max(self.index.settings.max_file_size, st.st_size),
                                outside_ok=rel in self.index.ws.contract_files)
            if data is None:  # refused (a link out of the workspace) or gone
                raise OSError(rel)
            index = LineIndex(data)
        except OSError:
            self._lines.pop(rel, None)
            return LineIndex(b"")
        self._lines[rel] = (key, index)
        return index

    async def publish_all(self) -> None:
        """Publish every file's diagnostics in short index jobs (``PUBLISH_SLICE_S`` each):
        an edit, a document opened or a request made meanwhile waits for one slice, not
        for the whole workspace."""
        def candidates() -> deque[str]:
            rels = self.index.finding_paths() | set(self.published)  # published: to be cleared
            return deque(sorted(rels, key=lambda r: (r not in self.open, r)))

        todo = await self.submit(candidates) or deque()
        while todo:
            fut = self.submit(self._prepare_slice, todo)
            fut.add_done_callback(self._after)
            await fut

    def _prepare_slice(self, todo: deque[str]) -> list[lsp.PublishDiagnosticsParams]:
        """On the index thread: prepare files from the front of ``todo`` for a short while."""
        deadline = time.perf_counter() + PUBLISH_SLICE_S
        out: list[lsp.PublishDiagnosticsParams] = []
        while todo:
            out.extend(self._prepare({todo.popleft()}))
            if time.perf_counter() >= deadline:
                break
        return out

    # ------------------------------------------------------------------ reading, for requests
    def text_of(self, rel: str) -> tuple[LineIndex, int | None]:
        """The text a request is about, as the editor has it (open) or as on disk."""
        uri = self.open.get(rel)
        if uri is not None:
            doc = self.server.workspace.get_text_document(uri)
            return self._open_lines(rel, doc.version, doc.source), doc.version
        return self._disk_lines(rel), None

    def _open_lines(self, rel: str, version: int | None, text: str) -> LineIndex:
        """Line index of an open document's text, built once per version: publishing an
        edit's diagnostics and the requests that follow share it."""
        hit = self.open_lines.get(rel)
        if hit is None or hit[0] != version or hit[1] is not text:
            hit = self.open_lines[rel] = (version, text, LineIndex.of_text(text))
        return hit[2]

    def location(self, rel: str, span: Span) -> lsp.Location:
        index, _ = self.text_of(rel)
        return lsp.Location(uri=self.uri_of(rel), range=convert.range_of(index, span, self.encoding))

    async def request(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Answer a request on the index thread, after every pending analysis (so it sees
        the latest edit); None while the workspace is still being indexed."""
        if not self.ready.is_set():
            return None
        return await self.submit(fn, *args, raising=True)

    # ------------------------------------------------------------------ watching
    def start_watching(self) -> None:
        def on_change(files: set[str], dirs: set[str]) -> None:
            rels = set()
            for p in files:
                rel = self.index.ws.rel(p)
                if rel and (self.index.tracked(rel) or rel == self.baseline.rel()):
                    rels.add(rel)
            for d in dirs:
                rel = self.index.ws.rel(d)
                if rel is None:
                    continue
                # a folder appeared or vanished: every tracked file below it may have too
                prefix = rel + "/"
                known = [r for r in list(self.index.facts) + list(self.index.contracts) if r.startswith(prefix)]
                rels.update(known)
                if (self.root / rel).is_dir():  # what the walk would list below it (capped, links checked)
                    rels.update(r for r in self.index.ws.files_below(rel) if self.index.tracked(r))
                rels.update(self.index.generated_below(rel))
            self.disk_changed(rels)

        # .specward's manifests and ledger are inputs, and so are a framework's generated
        # tsconfig and declarations (.nuxt/, .svelte-kit/): their events are let through
        self.watcher = DiskWatcher(self.root, self.loop, on_change, skip_dir=lambda n: n in self.index.ws.exclude_names
                                   and n != ".specward" and n not in GENERATED_TYPES,
                                   polling=os.environ.get("SPECWARD_WATCH") == "polling",
                                   max_depth=self.index.settings.max_depth)
        mode = self.watcher.start()
        log.info("watching %s (%s)", self.root, mode)

    def shutdown(self) -> None:
        """Stop at once (idempotent; any thread): cancel the build or flush in progress
        (parser processes killed, not waited for), drop the queued jobs, stop watching. The
        job running on the index thread, if any, is not waited for: it stops at its next
        check (between files) and closes the cache as it ends; else the cache closes now."""
        t0 = time.perf_counter()
        with self._job_lock:
            if self.closing:
                return
            self.closing = True
            busy = self._busy
        self.index.cancel()
        self.worker.shutdown(wait=False, cancel_futures=True)
        if self.registry_worker is not None:  # a request in flight ends at its timeout, unwaited
            self.registry_worker.shutdown(wait=False, cancel_futures=True)
        if self.watcher is not None:
            try:
                self.watcher.stop()
            except Exception:  # noqa: BLE001
                log.exception("stopping the watcher failed")
        if not busy:
            self._close_cache()
        log.info("session shut down in %.3f s%s", time.perf_counter() - t0,
                 " (an index job was still running: it stops at its next check)" if busy else "")

    def _close_cache(self) -> None:
        cache = self.index.cache
        if cache is not None:
            cache.close()


def _shutdown_at_exit(session: Session) -> None:
    """However the process exits (``exit``, stdin closed, a signal turned into SystemExit),
    shut the session down before the interpreter waits for its non-daemon threads: else it
    would wait for the index thread to finish a whole build, and the parser processes and
    the resource tracker would live as long. (``threading._register_atexit`` hooks run
    before that wait, the last registered first; concurrent.futures' process pools join
    their manager threads in one, which wait for the batches in flight: imported at the top
    of this module, it is registered before ours, so ours runs first.)"""
    ref = weakref.ref(session)

    def at_exit() -> None:
        s = ref()
        if s is not None:
            s.shutdown()

    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(at_exit)
    except RuntimeError:  # the interpreter is already shutting down
        pass
