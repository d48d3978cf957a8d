"""``specward.exportContract``: the code actions "Export OpenAPI 3.1" and "Generate
TypeScript types and client" on a SpecDSL contract (``code_action.py`` offers them). No LLM:
the exporters of ``analyzers/stages/`` turn the editor's text of the contract into the new
file's text, and the server asks the editor to apply one ``WorkspaceEdit`` whose changes
carry a change annotation that needs the user's confirmation (``docs/export.md``): nothing
is written without it, and the target must be a path of the workspace (symlinks followed)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.export_openapi import dump, load_spec, to_openapi
from specward.analyzers.stages.export_ts import to_typescript

from .. import convert

if TYPE_CHECKING:
    from ..server import SpecwardServer
    from ..session import Session

log = logging.getLogger(__name__)

EXPORT_COMMAND = "specward.exportContract"
KINDS = {"openapi": ("Export OpenAPI 3.1", ".openapi.yaml"), "client": ("Generate TypeScript types and client", ".client.ts")}
ANNOTATION = "specward-export"


def target_of(rel: str, kind: str) -> str:
    """Where an export of the contract ``rel`` goes: beside it, ``articles.dsl.json`` →
    ``articles.openapi.yaml`` / ``articles.client.ts``."""
    stem = rel[: -len(".dsl.json")] if rel.lower().endswith(".dsl.json") else rel
    return stem + KINDS[kind][1]


def _prepare(session: Session, rel: str, kind: str) -> tuple[str, str, str | None] | str:
    """(target, new text, old text or None), or a message saying why nothing is exported."""
    from ...stages_paths import resolve_inside

    lines, _ = session.text_of(rel)
    text = lines.data.decode("utf-8", "replace")
    spec, findings = load_spec(rel, text)
    if spec is None:
        return f"{rel}: the contract has {len(findings)} problem(s): fix them first, nothing was exported"
    out = dump(to_openapi(spec), "yaml", source=rel.rpartition("/")[2]) if kind == "openapi" else to_typescript(spec)
    target = target_of(rel, kind)
    try:
        real = resolve_inside(session.root, target)
    except (PathRefused, OSError) as exc:
        return f"{target}: refused ({exc})"
    if real.protected:
        return f"{target}: refused, {real.protected}"
    try:
        old = real.real.read_text("utf-8") if real.real.is_file() else None
    except (OSError, UnicodeDecodeError):
        old = ""  # unreadable: replaced only after the confirmation, like any other
    if old == out:
        return f"{target} is up to date"
    return target, out, old


def workspace_edit(uri: str, text: str, replaces: bool, label: str) -> lsp.WorkspaceEdit:
    """One file created (or replaced) with ``text``, every change under an annotation that
    needs the user's confirmation."""
    note = lsp.ChangeAnnotation(label=label, needs_confirmation=True,
                                description=("replaces the file's content" if replaces else "creates the file")
                                + " (specward export, no LLM)")
    return lsp.WorkspaceEdit(
        document_changes=[
            lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=True), annotation_id=ANNOTATION),
            lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                                 edits=[lsp.AnnotatedTextEdit(range=convert.start_of_file(), new_text=text,
                                                              annotation_id=ANNOTATION)]),
        ],
        change_annotations={ANNOTATION: note})


async def export_contract(ls: SpecwardServer, payload: dict) -> bool:
    """``{contract, kind}`` (kind ``openapi`` or ``client``): whether the editor applied the
    export. A contract with problems, or a target outside the workspace, is a message."""
    session = ls.session
    if session is None or not isinstance(payload, dict) or payload.get("kind") not in KINDS \
            or not isinstance(payload.get("contract"), str):
        raise ValueError(f"{EXPORT_COMMAND} expects {{contract, kind: openapi|client}}")
    rel, kind = payload["contract"], payload["kind"]
    got = await session.submit(_prepare, session, rel, kind, raising=True)
    if isinstance(got, str):
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Info, message=f"specward: {got}"))
        return False
    target, text, old = got
    edit = workspace_edit(session.uri_of(target), text, old is not None, f"{KINDS[kind][0]}: {target}")
    result = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label=KINDS[kind][0]))
    if not result.applied:
        log.info("the editor did not apply the export: %s", result.failure_reason)
    return bool(result.applied)
