"""``workspace/executeCommand``. ``specward.recaptureContext`` captures a context manifest
again (the code action on its findings). ``specward.applyFix``, the quick fixes of a phantom import
or a missing export (``code_action.py``): the server asks the editor to apply the edit
(``workspace/applyEdit``) and, once it did, appends the fix to the workspace's
fix-history ledger (stage ``editor``), so the same mistake is caught on sight next time
(``repeated-hallucination``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import converters
from lsprotocol import types as lsp

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session

log = logging.getLogger(__name__)


def _check(record: object) -> dict:
    if not isinstance(record, dict):
        raise ValueError("specward.applyFix: the record must be an object")
    names = record.get("names") or []
    if not isinstance(record.get("source"), str) or not isinstance(names, list) \
            or not all(isinstance(n, str) for n in names) or not isinstance(record.get("line"), int):
        raise ValueError("specward.applyFix: the record needs source, names, reason, file, line, fix_kind, fix_target")
    return record


def _record(session: Session, record: dict) -> list[lsp.PublishDiagnosticsParams]:
    from ...engine.ledger import LedgerError, record_fix

    try:
        record_fix(session.root, record["source"], tuple(record.get("names") or ()), str(record.get("reason", "")),
                   str(record.get("file", "")), record["line"], str(record.get("fix_kind", "")),
                   str(record.get("fix_target", "")), stage="editor", user=session.index.user_ledger)
    except LedgerError as exc:
        log.warning("the fix was not recorded in the ledger: %s", exc)
        return []
    return session._prepare(session.index.reload_inputs())


async def apply_fix(ls: SpecwardServer, payload: dict) -> bool:
    """Apply the fix's edit; record it when the editor applied it. Returns whether it did."""
    session = ls.session
    if session is None or not isinstance(payload, dict):
        raise ValueError("specward.applyFix expects {edit, record}")
    edit = converters.get_converter().structure(payload.get("edit"), lsp.WorkspaceEdit)
    record = _check(payload.get("record"))
    result = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label="specward fix"))
    if not result.applied:
        log.info("the editor did not apply the fix: %s", result.failure_reason)
        return False
    fut = session.submit(_record, session, record, raising=True)
    fut.add_done_callback(session._after)
    await fut
    return True


RECAPTURE_COMMAND = "specward.recaptureContext"  # code_action.py offers it on a manifest's findings


def _recapture(session: Session, rel: str, more: list[str]) -> list[lsp.PublishDiagnosticsParams]:
    from ...engine.contexts import recapture

    index = session.index
    text = recapture(index, rel, more)
    return session._prepare(index.update(rel, text) | {rel})


async def recapture_context(ls: SpecwardServer, payload: dict) -> bool:
    """Capture a context manifest again (``{manifest, include?}``): its targets from the
    text the editor has now, with the includes a finding asked for."""
    session = ls.session
    if session is None or not isinstance(payload, dict) or not isinstance(payload.get("manifest"), str):
        raise ValueError(f"{RECAPTURE_COMMAND} expects {{manifest, include?}}")
    more = payload.get("include") or []
    if not isinstance(more, list) or not all(isinstance(p, str) for p in more):
        raise ValueError(f"{RECAPTURE_COMMAND}: include must be a list of paths")
    fut = session.submit(_recapture, session, payload["manifest"], more, raising=True)
    fut.add_done_callback(session._after)
    await fut
    return True


async def show_location(ls: SpecwardServer, payload: dict) -> bool:
    """``specward.showLocation`` (``{uri, range}``, the code action "go to the nearest
    route"): the editor opens the file there (``window/showDocument``)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("uri"), str):
        raise ValueError("specward.showLocation expects {uri, range}")
    where = converters.get_converter().structure(payload.get("range"), lsp.Range) if payload.get("range") else None
    result = await ls.window_show_document_async(lsp.ShowDocumentParams(uri=payload["uri"], take_focus=True,
                                                                        selection=where))
    return bool(result and result.success)
