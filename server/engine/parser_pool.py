"""The parser processes of one build (``ParserPool``): spawning them (extracting or
linking ones, see ``parsing.py``), the batches sent to them, killing them on ``cancel``,
the walk file they read, and the thread that drains a linking pool's facts into the cache
after the build. ``index.WorkspaceIndex`` drives it; nothing here knows the index."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import multiprocessing
import os
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from .cache import FactsCache
from .parsing import extract_batch, link_batch, start_linking, start_worker, watch_parent

if sys.version_info < (3, 12):
    # CPython 3.11's exit hook wakes every process pool's manager thread through a pipe that
    # thread may be closing at that very moment (the check and the write are not under one
    # lock): the write fails with EBADF and the interpreter prints "Exception ignored in
    # threading" with a traceback on stderr, after the run's output. Seen in CI when a
    # build's pool ends while the process exits (a full disk stopped its cache writer).
    # 3.12 takes a lock around both. Nothing is lost: the thread is ending already.
    import concurrent.futures.process as _cfp

    _wake = _cfp._ThreadWakeup.wakeup

    def _wakeup_if_open(self) -> None:
        try:
            _wake(self)
        except (OSError, ValueError):  # closed meanwhile by its own thread
            pass

    _cfp._ThreadWakeup.wakeup = _wakeup_if_open

log = logging.getLogger(__name__)

FLUSH_WAIT_S = 120.0  # longest wait for the parser processes' facts to reach the cache
STALE_WALK_S = 600.0  # age from which a dead process's walk file is removed


class BuildCancelled(Exception):
    """``WorkspaceIndex.cancel()`` was called: the build stopped at its next check (between
    files and batches) and left the index incomplete. The cache holds only rows that were
    complete when written (each is valid on its own: facts per content digest, link results
    per dependency digests), so the next start works from it."""


def remove_stale_walk_files(folder: Path) -> None:
    """A process killed in the middle of a build (kill -9) leaves its walk file behind: a
    later build removes it once that process is gone and the file is old (``STALE_WALK_S``:
    a process of another container sharing the workspace has a pid unknown here)."""
    now = time.time()
    for f in folder.glob("walk-*.txt"):
        try:
            pid = int(f.stem[len("walk-"):])
            if pid == os.getpid() or now - f.stat().st_mtime < STALE_WALK_S:
                continue
            try:
                os.kill(pid, 0)
                continue  # alive
            except ProcessLookupError:
                pass
            except PermissionError:
                continue  # alive, another user's
            f.unlink()
        except (ValueError, OSError):
            pass


_WALK_USERS: dict[str, "ParserPool"] = {}  # walk file -> the parser processes reading it now


class ParserPool:
    """The parser processes of one build and the batches sent to them. ``linking``:
    ``(root, file listing the walk's sources, size limit)`` for linking parser processes
    (``parsing.link_batch``), None for extracting ones (``parsing.extract_batch``)."""

    def __init__(self, workers: int, linking: tuple[str, str, int] | None, batch: int = 64) -> None:
        self.workers = workers
        self.batch = batch  # files per batch sent by add()
        self.linking = linking
        self.sent: dict[cf.Future, list[tuple[str, str, str]]] = {}
        self._reading: list[tuple[str, str, str]] = []
        self.killed = False  # kill() was called: these processes and any started later end at once
        self.flushed: threading.Event | None = None  # flush_to's event, once it runs
        self.stopped = False  # (extracting processes) shut down: they end after their batch
        self.pool: cf.ProcessPoolExecutor | None = None
        self.queue = None
        self._procs: dict | None = None
        if linking:
            _WALK_USERS[linking[1]] = self
        try:
            self._start()
        except OSError:  # no semaphore or pipe to be had (a full /dev/shm, limits): no processes
            self.remove_walk_file()
            raise

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.queue = ctx.Queue() if self.linking else None
        if self.linking:
            self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=start_linking,
                                               initargs=(*self.linking, self.queue, os.getpid()))
        else:
            self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=watch_parent,
                                               initargs=(os.getpid(),))
        # the pool forgets its processes on shutdown(wait=False) while they still run: kill()
        # needs them, so the dict (filled as processes spawn) is kept from the start
        self._procs = getattr(self.pool, "_processes", None)
        self._starting = [self.pool.submit(start_worker) for _ in range(self.workers)]
        if self.killed:  # kill() ran while these were starting (kill() reads self.pool after setting it)
            self._kill_pool(self.pool, self._procs, self.queue)

    def kill(self) -> None:
        """End the processes now (SIGKILL), without waiting for them; no batch is sent any
        more and a flush in progress stops, dropping the facts not stored yet. Thread-safe
        (``WorkspaceIndex.cancel``): the build thread may be sending batches meanwhile."""
        self.killed = True
        self._kill_pool(self.pool, self._procs, self.queue)
        # now, not when the build thread gets there: the process may exit first (os._exit)
        try:
            self.remove_walk_file()
        except OSError:
            pass

    @staticmethod
    def _kill_pool(pool: cf.ProcessPoolExecutor, procs: dict | None, q) -> None:
        for proc in list((procs or {}).values()):
            try:
                proc.kill()
            except Exception:  # noqa: BLE001 - already gone (exited, joined, closed)
                pass
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except Exception:  # noqa: BLE001
            pass
        if q is not None:
            # the drain thread may be inside a read of a message a killed process had only
            # partly written: with this process's copy of the pipe's write end closed too, no
            # writer is left and that read ends (EOFError) instead of waiting for ever
            writer = getattr(q, "_writer", None)
            try:
                if writer is not None:
                    writer.close()
            except Exception:  # noqa: BLE001
                pass

    def started(self, timeout: float = 120.0) -> bool:
        """Whether the processes could start (load the grammars and queries)."""
        try:
            for fut in self._starting:
                fut.result(timeout)
        except Exception as exc:  # noqa: BLE001
            log.warning("parser processes cannot start: %s", exc)
            return False
        return True

    def add(self, rel: str, digest: str, text: str) -> None:
        """One more file read: sent with the next full batch."""
        self._reading.append((rel, digest, text))
        if len(self._reading) == self.batch:
            self.submit(self._reading)
            self._reading = []

    def add_rest(self) -> None:
        if self._reading:
            self.submit(self._reading)
            self._reading = []

    def submit(self, batch: list[tuple[str, str, str]]) -> None:
        try:
            if self.killed:
                raise RuntimeError("the parser processes were killed")
            if self.linking:
                fut = self.pool.submit(link_batch, batch)
            else:
                fut = self.pool.submit(extract_batch, [(rel, text) for rel, _, text in batch])
        except (cf.BrokenExecutor, RuntimeError) as exc:  # the processes are gone already
            fut = cf.Future()
            fut.set_exception(exc)
        self.sent[fut] = batch

    def run(self, batch: list[tuple[str, str, str]]) -> list:
        """One batch, waited for (raises when its process fails)."""
        self.submit(batch)
        fut = next(reversed(self.sent))
        try:
            return fut.result()
        finally:
            del self.sent[fut]

    def restart(self) -> None:
        """New processes in place of these (a linking one's facts are dropped)."""
        self.shutdown()
        self.sent.clear()
        if self.killed:
            raise BuildCancelled()
        self._start()

    def remove_walk_file(self) -> None:
        """Once no process of this build will start any more: when they have all exited
        (``flush_to``; a process spawned at the start may read it only after the build has
        ended, a small one), or were killed. Not when a later build of this process has
        written the file again (its name is the process's) for its own processes."""
        if self.linking and _WALK_USERS.get(self.linking[1]) is self:
            Path(self.linking[1]).unlink(missing_ok=True)
            _WALK_USERS.pop(self.linking[1], None)

    def shutdown(self) -> None:
        if self.linking:
            self.flush_to(None)  # linking processes put their facts on the queue as they exit
        else:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.stopped = True

    @property
    def finished(self) -> bool:
        """Whether these processes' work is over (stopped, their facts flushed)."""
        return self.stopped if self.flushed is None else self.flushed.is_set()

    def flush_to(self, cache: FactsCache | None, then: Callable[[], None] | None = None) -> threading.Event:
        """Stop the (linking) processes: each puts its facts on the queue as it exits, and
        a background thread stores them in ``cache`` (None: drops them), then runs
        ``then``. The returned event is set once that is done, or once waiting for the
        facts has failed (facts missing from the cache are extracted again when needed)."""
        done = self.flushed = threading.Event()
        pool, q = self.pool, self.queue
        assert q is not None

        failed: list[bool] = []  # a store failed: the rest is read off the queue and dropped

        def drain() -> None:
            stopping = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True},
                                        name="specward-parsers-stop", daemon=True)
            stopping.start()
            deadline = time.monotonic() + FLUSH_WAIT_S
            try:
                while time.monotonic() < deadline and not self.killed:
                    try:
                        rows = q.get(timeout=0.2)
                    except queue.Empty:
                        if not stopping.is_alive():
                            break  # every process has exited, so everything it put is read
                        continue
                    if self.killed:
                        break  # cancelled: what is not stored yet is dropped
                    if rows is not None and cache is not None and not failed:  # None: one process is done
                        try:
                            cache.store_encoded(rows)
                        except Exception:  # noqa: BLE001 - keep draining: a process blocks on a full queue
                            log.exception("storing the parser processes' facts failed")
                            failed.append(True)
                # the link results only once every fact is in (a file whose facts are missing
                # is parsed and linked again at the next start, whatever its links say)
                if then is not None and not self.killed and not failed:
                    then()
            except Exception:  # noqa: BLE001 - the cache is an optimization, never fatal
                log.exception("storing the parser processes' facts failed")
            finally:
                # every process of the pool has exited (or was killed): none will read the
                # walk any more, unless new ones took over (``restart``)
                if self.pool is pool and (self.killed or not stopping.is_alive()):
                    with contextlib.suppress(OSError):
                        self.remove_walk_file()
                done.set()

        # not a daemon: a process that indexed and exits at once (`specward check`) still
        # leaves a complete cache for the next start (kill() ends it within ~0.2 s)
        threading.Thread(target=drain, name="specward-cache-writer").start()
        if self.killed:  # cancelled while this started: the processes may have been spared
            self._kill_pool(pool, self._procs, q)
        return done
