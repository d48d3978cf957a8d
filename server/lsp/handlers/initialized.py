"""``initialized``: create the session, index the workspace with ``$/progress``, publish,
then follow the disk.

Only the first ``initialized`` runs (a repeated one would index again and watch twice). A
start-up that fails (the session cannot be created, the build raises) is shown: a
``window/showMessage`` error and ``specward/status`` with state ``error``; the server then
answers from whatever was indexed (documents opened are analyzed, requests answer what
they can, or nothing)."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

from lsprotocol import types as lsp

from .. import convert
from ..session import Session

log = logging.getLogger(__name__)


async def handle(ls, params: lsp.InitializedParams) -> None:
    if ls.initialized_seen:
        log.info("repeated initialized notification ignored")
        return
    ls.initialized_seen = True
    root = _root(ls)
    try:
        session = ls.session = Session(ls, root)
    except Exception as exc:  # noqa: BLE001
        _failed(ls, exc, "could not start")
        return
    caps = ls.client_capabilities
    progress = bool(caps.window and caps.window.work_done_progress)
    token = str(uuid.uuid4())
    if progress:
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                title="specward", message="Indexing workspace", percentage=0, cancellable=False))
        except Exception as exc:  # noqa: BLE001 - progress is a courtesy, not a requirement
            log.info("client refused progress: %s", exc)
            progress = False

    _status(ls, "indexing", "Indexing workspace")

    def report(done: int, total: int) -> None:
        if progress:
            session.loop.call_soon_threadsafe(lambda: ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(
                message=f"Indexing {done:,} / {total:,} files", percentage=int(100 * done / max(total, 1)))))

    # watch first: a file changed while indexing is re-read after the build (jobs run in
    # order on the index thread), so no change falls between the walk and the watch
    try:
        session.start_watching()
    except Exception:  # noqa: BLE001 - the client's file events still arrive
        log.exception("watching the workspace failed")
    # (the build freezes what it allocated: the collector never re-scans it on an edit)
    failure = await session.submit(_capturing(session), report)
    idx = session.index
    if failure is None:
        summary = (f"Indexed {len(idx.facts):,} files, {len(idx.table.endpoints)} endpoints "
                   f"in {len(idx.contracts)} contract(s) in {idx.stats.get('build_s', 0):.1f} s")
        log.info(summary)
        state = "ready"
    else:
        summary = _failed(ls, failure, "could not index the workspace")
        state = "error"
    if progress:
        ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=summary))
    if failure is None:
        _status(ls, "ready", summary)
        _after_build(ls, idx)
    # from here on, didOpen/didChange analyze right away; documents opened while indexing
    # are analyzed now, with their editor text (no await in between: nothing slips through)
    session.ready.set()
    for rel in list(session.open):
        session.document_changed(rel)
    await session.publish_all()
    # the same state, said again once every file's diagnostics are out (a client or the
    # benchmark may wait for the server to be idle)
    _status(ls, state, summary, published=True)
    await _register_client_watching(ls)


def _capturing(session):
    """The build, as an index job that returns the exception it raised (None when it
    succeeds): the session's job guard would log it and return None. A build cancelled
    because the session shuts down is not a failure: it propagates."""
    def build(report) -> BaseException | None:
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


def _failed(ls, exc: BaseException, what: str) -> str:
    """Say that start-up failed (a message and an error status); returns what was said."""
    detail = str(exc).replace("\n", " ")
    if len(detail) > 200:
        detail = detail[:197] + "..."
    message = (f"specward {what}: {type(exc).__name__}{': ' + detail if detail else ''}. "
               "Its answers come from what was indexed; the server log has the details.")
    log.error("%s", message, exc_info=exc)
    try:
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=message))
    except Exception:  # noqa: BLE001
        log.exception("showing the start-up failure failed")
    _status(ls, "error", message)
    return message


def _after_build(ls, idx) -> None:
    if idx.skipped:
        items = sorted(idx.skipped.items())
        shown = ", ".join(f"{p} ({why})" for p, why in items[:3])
        ls.window_show_message(lsp.ShowMessageParams(
            type=lsp.MessageType.Info,
            message=f"specward skipped {len(items)} file(s): {shown}{' …' if len(items) > 3 else ''}"))
    for problem in idx.config.problems:
        log.warning("configuration: %s", problem.message)


WATCH_GLOB = "**/*.{ts,mts,cts,tsx,js,jsx,mjs,cjs,vue,svelte,py,pyi,json,yaml,yml,toml}"


async def _register_client_watching(ls) -> None:
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


def _status(ls, state: str, message: str, published: bool = False) -> None:
    """``specward/status``: a custom notification for clients with a status display (the
    VS Code extension's status-bar item); other clients ignore it. ``published``: the
    diagnostics of the whole workspace have been published since indexing ended."""
    try:
        ls.protocol.notify("specward/status", {"state": state, "message": message, "published": published})
    except Exception as exc:  # noqa: BLE001
        log.debug("status notification failed: %s", exc)


def _root(ls) -> Path:
    ws = ls.workspace
    folders = list(ws.folders.values()) if ws.folders else []
    uri = folders[0].uri if folders else ws.root_uri
    path = convert.uri_to_path(uri) if uri else None
    return path if path is not None else Path.cwd()
