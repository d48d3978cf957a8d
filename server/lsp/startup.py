"""The start-up sequence, in one place: what happens between the client's ``initialized``
and a server that answers everything (``start``, called by ``handlers/initialized.py``).

What the client sees, in order: ``$/progress`` begin (when it supports progress),
``specward/status`` ``indexing``, progress reports while the workspace is built, then
either progress end and ``specward/status`` ``ready`` (and a message listing skipped files,
if any), or a ``window/showMessage`` error, ``specward/status`` ``error`` and progress end;
then the diagnostics of the whole workspace, ``specward/status`` with the same state and
``published=True``, and last a request to register file watching on the client. A start-up
that fails leaves a server that answers from whatever was indexed."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.extract import warm_up

from . import convert
from .session import Session

if TYPE_CHECKING:
    from ..engine.index import WorkspaceIndex
    from .server import SpecwardServer

log = logging.getLogger(__name__)

# how a failed start-up is shown (handlers/initialized.py): (ls, exception, what failed) -> what was said
ShowFailure = Callable[["SpecwardServer", BaseException, str], str]

WATCH_GLOB = "**/*.{ts,mts,cts,tsx,js,jsx,mjs,cjs,vue,svelte,py,pyi,json,yaml,yml,toml}"


async def start(ls: SpecwardServer, failed: ShowFailure) -> None:
    """Create the session, index the workspace with ``$/progress``, publish, then follow
    the disk. A step that fails is shown with ``failed``; the steps after it still run
    (a session that cannot be created ends the sequence)."""
    # 1. the session (its index, its worker thread) over the workspace's first folder
    root = workspace_root(ls)
    try:
        session = ls.session = Session(ls, root)
    except Exception as exc:  # noqa: BLE001
        failed(ls, exc, "could not start")
        return
    # 2. progress and the "indexing" status
    progress = await _Progress.begin(ls, session)
    status(ls, "indexing", "Indexing workspace")
    # 3. watch first: a file changed while indexing is re-read after the build (jobs run
    #    in order on the index thread), so no change falls between the walk and the watch
    try:
        session.start_watching()
    except Exception:  # noqa: BLE001 - the client's file events still arrive
        log.exception("watching the workspace failed")
    # 4. the build, on the index thread (it freezes what it allocated: the collector never
    #    re-scans it on an edit)
    failure = await session.submit(_capturing(session), progress.report)
    # 5. its outcome: "ready" (and what was skipped), or the failure shown
    idx = session.index
    if failure is None:
        summary = (f"Indexed {len(idx.facts):,} files, {len(idx.table.endpoints)} endpoints "
                   f"in {len(idx.contracts)} contract(s) in {idx.stats.get('build_s', 0):.1f} s")
        log.info(summary)
        state = "ready"
    else:
        summary = failed(ls, failure, "could not index the workspace")
        state = "error"
    progress.end(summary)
    if failure is None:
        status(ls, "ready", summary)
        _after_build(ls, idx)
    # 6. from here on, didOpen/didChange analyze right away; documents opened while
    #    indexing are analyzed now, with their editor text (no await in between: nothing
    #    slips through)
    session.ready.set()
    for rel in list(session.open):
        session.document_changed(rel)
    # 7. every file's diagnostics, then the same state said again (a client or the
    #    benchmark may wait for the server to be idle)
    await session.submit(session.baseline_changed)  # (read before the publish, not during it)
    await session.publish_all()
    # the grammars and queries, loaded once here: a warm start parsed nothing, and its
    # first keystroke would pay for them (~0.2 s)
    await session.submit(warm_up)
    status(ls, state, summary, published=True)
    # 8. the client's file events too
    await _register_client_watching(ls)


class _Progress:
    """``$/progress`` for the build, when the client supports it and accepts the token;
    otherwise every call does nothing."""

    def __init__(self, ls: SpecwardServer, session: Session, token: str, on: bool) -> None:
        self.ls, self.session, self.token, self.on = ls, session, token, on

    @classmethod
    async def begin(cls, ls: SpecwardServer, session: Session) -> _Progress:
        caps = ls.client_capabilities
        on = bool(caps.window and caps.window.work_done_progress)
        token = str(uuid.uuid4())
        if on:
            try:
                await ls.work_done_progress.create_async(token)
                ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                    title="specward", message="Indexing workspace", percentage=0, cancellable=False))
            except Exception as exc:  # noqa: BLE001 - progress is a courtesy, not a requirement
                log.info("client refused progress: %s", exc)
                on = False
        return cls(ls, session, token, on)

    def report(self, done: int, total: int) -> None:
        """From the index thread: a report, sent from the event loop."""
        if self.on:
            ls, token = self.ls, self.token
            self.session.loop.call_soon_threadsafe(lambda: ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(
                message=f"Indexing {done:,} / {total:,} files", percentage=int(100 * done / max(total, 1)))))

    def end(self, message: str) -> None:
        if self.on:
            self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message))


def _capturing(session: Session) -> Callable[[Callable[[int, int], None]], BaseException | None]:
    """The build, as an index job that returns the exception it raised (None when it
    succeeds): the session's job guard would log it and return None. A build cancelled
    because the session shuts down is not a failure: it propagates."""
    def build(report: Callable[[int, int], None]) -> BaseException | None:
        try:
            session.index.build(report)
        except Exception as exc:  # noqa: BLE001
            if getattr(session, "closing", False) or type(exc).__name__ == "BuildCancelled":
                raise
            log.error("indexing the workspace failed", exc_info=exc)
            return exc
        return None
    build.__name__ = "build"
    return build


def _after_build(ls: SpecwardServer, idx: WorkspaceIndex) -> None:
    if idx.skipped:
        items = sorted(idx.skipped.items())
        shown = ", ".join(f"{p} ({why})" for p, why in items[:3])
        ls.window_show_message(lsp.ShowMessageParams(
            type=lsp.MessageType.Info,
            message=f"specward skipped {len(items)} file(s): {shown}{' …' if len(items) > 3 else ''}"))
    for problem in idx.config.problems:
        log.warning("configuration: %s", problem.message)


async def _register_client_watching(ls: SpecwardServer) -> None:
    """Also ask the client to report file changes (useful on file systems inotify cannot
    watch); events from both sources converge, and unchanged content is ignored."""
    caps = ls.client_capabilities
    watched = caps.workspace.did_change_watched_files if caps.workspace else None
    if not (watched and watched.dynamic_registration):
        return
    try:
        await ls.client_register_capability_async(lsp.RegistrationParams(registrations=[lsp.Registration(
            id="specward-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                watchers=[lsp.FileSystemWatcher(glob_pattern=WATCH_GLOB)]))]))
    except Exception as exc:  # noqa: BLE001
        log.info("client did not accept file-watch registration: %s", exc)


def status(ls: SpecwardServer, state: str, message: str, published: bool = False) -> None:
    """``specward/status``: a custom notification for clients with a status display (the
    VS Code extension's status-bar item); other clients ignore it. ``published``: the
    diagnostics of the whole workspace have been published since indexing ended."""
    try:
        ls.protocol.notify("specward/status", {"state": state, "message": message, "published": published})
    except Exception as exc:  # noqa: BLE001
        log.debug("status notification failed: %s", exc)


def workspace_root(ls: SpecwardServer) -> Path:
    """The workspace's first folder (or its root URI, or the working directory)."""
    ws = ls.workspace
    folders = list(ws.folders.values()) if ws.folders else []
    uri = folders[0].uri if folders else ws.root_uri
    path = convert.uri_to_path(uri) if uri else None
    return path if path is not None else Path.cwd()
