"""The LLM stages from inside the editor (issue 15, ``docs/stages.md``, "In the editor"):

- ``specward.generateSpec`` — argument: the request text (or ``{request, slug?}``); from
  the command palette, or the code action "specward: write a spec for this TODO" on a
  ``TODO``/``FIXME`` comment line (``code_action.py``), the request being the comment's text.
  Proposes ``specs/<slug>.md`` (``generate_cli.propose_spec``).
- ``specward.generateContract`` — argument: ``{spec: "specs/<slug>.md"}``; the code action
  "Generate contract" on a spec. Proposes ``specs/<slug>.dsl.json``
  (``generate_cli.propose_contract``, with its repair rounds), from the editor's text of the spec.

Each runs the stage in the server's thread pool (litellm is imported only there, by
``llm.complete``), with an :class:`~specward.server.lsp.stage_ui.EditorUI` (``$/progress``,
cancellable; ``window/showMessageRequest`` for questions). The proposal's files go to the
editor as ONE ``workspace/applyEdit`` whose every change carries a change annotation that
needs confirmation (a new file: create + insert; an existing one: its whole text replaced).
Before it, its files are snapshotted (:func:`snapshot_before_apply`, ``server/snapshots.py``:
``specward restore RUN_ID`` undoes the run); after it, what was written is recorded in the
snapshot, the run is logged (``Run.record`` with the files the editor applied, none when
declined) and ``specward/lastScore`` is sent again.

Without a model configured the command shows how to configure one (``llm.LLMNotConfigured``'s
message) and does nothing else. A failure (an answer that does not fit, a contract still
invalid after the repairs, the request failing) is a ``window/showMessage`` error naming the
run log file; a cancel is an information message. Nothing raises out of a command but a
malformed argument (an error reply); the server keeps serving."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Span

from .. import convert

if TYPE_CHECKING:
    from ...stage_run import Proposal, Run
    from ..server import SpecwardServer
    from ..session import Session

log = logging.getLogger(__name__)

GENERATE_SPEC = "specward.generateSpec"
GENERATE_CONTRACT = "specward.generateContract"
ANNOTATION = "specward-stage"
MAX_REQUEST_CHARS = 4000
SPEC_FILE = re.compile(r"specs/([^/]+)\.md", re.IGNORECASE)


# ------------------------------------------------------------------ the commands
async def generate_spec(ls: SpecwardServer, arg: Any) -> dict:
    """``arg``: the request text, or ``{request, slug?}``."""
    from ...generate_cli import propose_spec, slug_from_request, valid_slug

    request, slug = (arg.get("request"), arg.get("slug")) if isinstance(arg, dict) else (arg, None)
    if not isinstance(request, str) or not request.strip() or (slug is not None and not isinstance(slug, str)):
        raise ValueError(f"{GENERATE_SPEC} expects the request text (or {{request, slug}})")
    request = " ".join(request.split())[:MAX_REQUEST_CHARS]
    slug = slug if slug is not None else slug_from_request(request)
    if not valid_slug(slug):
        return _said(ls, lsp.MessageType.Error, f"the slug {slug!r} is not kebab-case: nothing was generated")
    return await _run_stage(ls, "spec", "specward: writing a spec", lambda run: propose_spec(run, request, slug),
                            args={"request": request, "slug": slug})


async def generate_contract(ls: SpecwardServer, arg: Any) -> dict:
    """``arg``: ``{spec: "specs/<slug>.md"}`` (or the path itself)."""
    from ...generate_cli import MAX_SPEC_BYTES, propose_contract, valid_slug

    rel = arg.get("spec") if isinstance(arg, dict) else arg
    if not isinstance(rel, str) or not rel:
        raise ValueError(f"{GENERATE_CONTRACT} expects {{spec: specs/<slug>.md}}")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was generated")
    if rel.startswith("file:"):
        rel = session.rel_of_uri(rel) or rel
    m = SPEC_FILE.fullmatch(rel)
    if m is None or not valid_slug(m.group(1)):
        return _said(ls, lsp.MessageType.Error,
                     f"{rel}: not a spec (specs/<slug>.md, the slug in kebab-case): nothing was generated")
    lines, _ = session.text_of(rel)
    if len(lines.data) > MAX_SPEC_BYTES:
        return _said(ls, lsp.MessageType.Error, f"{rel}: larger than {MAX_SPEC_BYTES} bytes: nothing was generated")
    spec_text = lines.data.decode("utf-8", "replace")
    if not spec_text.strip():
        return _said(ls, lsp.MessageType.Error, f"{rel}: the spec is empty (or unreadable): nothing was generated")
    name = rel.rpartition("/")[2]
    return await _run_stage(ls, "contract", f"specward: generating the contract of {name}",
                            lambda run: propose_contract(run, spec_text, name),
                            args={"spec_text": spec_text, "spec_name": name})


# ------------------------------------------------------------------ the run
async def _run_stage(ls: SpecwardServer, stage: str, title: str, propose, *, args: dict | None = None,
                     state=None) -> dict:
    """Configure, propose on a worker thread, confirm in the editor, log. The result:
    ``{applied, runId, files}`` (``runId`` None when no run started). ``args``: the stage's
    arguments, saved in the run's state at once (``specward.resumeRun``, ``generate
    --resume``); ``state``: the ``RunState`` of a run resumed. ``propose`` may offer by
    itself (a resumed run: ``generate_cli.resume_stage``) and return that result, a dict."""
    from ... import llm
    from ...stage_run import NotWritten, Run, Usage, model_config
    from ..stage_ui import EditorUI

    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was generated")
    loop = asyncio.get_running_loop()
    try:  # the environment, the user settings, a trusted workspace's model
        config = await loop.run_in_executor(ls.thread_pool, model_config, session.root)
    except llm.LLMError as exc:  # not configured, or unreadable settings
        return _said(ls, lsp.MessageType.Warning, str(exc))
    ui = await EditorUI.begin(ls, title, f"asking {config.model}...")
    run = Run(session.root, stage, config, ui=ui, args=dict(args or {}), state=state)
    if args is not None or state is not None:
        await loop.run_in_executor(ls.thread_pool, run.save_state)  # resumable from the start
    outcome = "nothing written"
    try:
        try:
            proposal: Proposal = await loop.run_in_executor(ls.thread_pool, propose, run)
        except asyncio.CancelledError:  # $/cancelRequest of the command: stop the request too
            ui.cancel.set()
            raise
        except llm.LLMCancelled:
            outcome = "cancelled"
            return _said(ls, lsp.MessageType.Info, f"{title[len('specward: '):]}: cancelled, nothing was written",
                         run.run_id)
        except llm.LLMNotConfigured as exc:  # litellm is not installed
            return _said(ls, lsp.MessageType.Warning, str(exc), run.run_id)
        except (NotWritten, Usage, llm.LLMError) as exc:
            outcome = "failed"
            details = getattr(exc, "details", [])
            shown = "; ".join([*details[:5], str(exc)]) if details else str(exc)
            return _said(ls, lsp.MessageType.Error, shown, run.run_id)
        if isinstance(proposal, dict):  # offered already (a resumed run)
            outcome = "applied" if proposal.get("applied") else "not applied"
            return {"applied": bool(proposal.get("applied")), "runId": run.run_id, "files": proposal.get("files", [])}
        ui.status("waiting for your confirmation in the editor...")
        applied, files = await _offer(ls, session, run, proposal)
        outcome = "applied" if applied else "not applied"
        return {"applied": applied, "runId": run.run_id, "files": files}
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a stage never takes the server down
        log.exception("%s failed", title)
        outcome = "failed"
        return _said(ls, lsp.MessageType.Error, f"{title[len('specward: '):]} failed: {type(exc).__name__}: {exc}",
                     run.run_id)
    finally:
        ui.end(outcome)


async def _offer(ls: SpecwardServer, session: Session, run: Run, proposal: Proposal) -> tuple[bool, list[str]]:
    """The proposal as one confirmed edit; whether the editor applied it, and its files."""
    from ..last_score import send_last_score

    loop = asyncio.get_running_loop()
    prepared = await loop.run_in_executor(ls.thread_pool, _prepare, session, run, proposal)
    if isinstance(prepared, str):
        _said(ls, lsp.MessageType.Info, prepared, run.run_id)
        await loop.run_in_executor(ls.thread_pool, run.record, [])
        await loop.run_in_executor(ls.thread_pool, run.finish)  # nothing left to write: nothing to resume
        return False, []
    changes, _overwritten, rels, protected = prepared
    try:
        await loop.run_in_executor(ls.thread_pool, snapshot_before_apply, session.root, run.run_id, rels)
    except Exception as exc:  # noqa: BLE001 - no edit without the snapshot it promised
        log.exception("snapshot before applying failed")
        _said(ls, lsp.MessageType.Error, f"{exc}" if "nothing written" in str(exc) else
              f"could not snapshot {', '.join(rels)} ({type(exc).__name__}: {exc}): nothing was written", run.run_id)
        await loop.run_in_executor(ls.thread_pool, run.record, [])
        return False, []
    label = f"specward {proposal.stage}: {', '.join(rels)}"
    annotations = {ANNOTATION: lsp.ChangeAnnotation(
        label=label, needs_confirmation=True,
        description=f"generated by {run.config.model} (run {run.run_id})" + "".join(f"; {n}" for n in proposal.notes))}
    for rel, why in protected.items():  # each protected file confirmed on its own
        annotations[f"{ANNOTATION}:{rel}"] = lsp.ChangeAnnotation(
            label=f"protected path: {rel}", needs_confirmation=True,
            description=f"{rel} reaches a protected path ({why}); confirm this file on its own")
    edit = lsp.WorkspaceEdit(document_changes=changes, change_annotations=annotations)
    result = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    applied = bool(result.applied)
    if not applied:
        log.info("the editor did not apply run %s: %s", run.run_id, result.failure_reason)
    if applied:
        texts = dict(proposal.files)
        await loop.run_in_executor(ls.thread_pool, record_written, session.root, run.run_id,
                                   [(rel, texts[rel]) for rel in rels])
        await loop.run_in_executor(ls.thread_pool, _finished, run, [(rel, texts[rel]) for rel in rels])
    await loop.run_in_executor(ls.thread_pool, run.record, rels if applied else [])
    if applied and proposal.notes:
        _said(ls, lsp.MessageType.Info, "; ".join(proposal.notes), run.run_id)
    await send_last_score(ls)
    return applied, rels if applied else []


def editor_offer(ls: SpecwardServer, session: Session, loop: asyncio.AbstractEventLoop, stage):
    """``propose`` for ``_run_stage`` from a stage written for the command line,
    ``stage(run, offer_all, yes)`` (``slice_cli.slice_run``, ``generate_cli.resume_stage``):
    it runs on the worker thread and its proposal is offered in the editor from there (the
    loop's ``_offer``); the result is ``{applied, files}``."""
    from ...stage_run import EXIT_NOT_WRITTEN, EXIT_OK

    def propose(run) -> dict:
        got: dict = {"applied": False, "files": []}

        def offer_all(run, proposal, _yes) -> int:
            applied, files = asyncio.run_coroutine_threadsafe(_offer(ls, session, run, proposal), loop).result()
            got.update(applied=applied, files=files)
            return EXIT_OK if applied else EXIT_NOT_WRITTEN

        stage(run, offer_all, False)
        return got

    return propose


def _prepare(session: Session, run: Run, proposal: Proposal):
    """The document changes of the proposal, the files they replace, every file, and the
    protected ones (path -> why: each gets an annotation of its own); or a message when
    every file is already up to date."""
    from ...stage_run import target

    changes: list = []
    overwritten: list[str] = []
    rels: list[str] = []
    protected: dict[str, str] = {}
    for rel, text in proposal.files:
        found = target(session.root, rel, allow_protected=True)  # again: confined, not a folder
        uri = session.uri_of(rel)
        note = ANNOTATION
        if found.protected:  # its own annotation: confirmed on its own
            note = f"{ANNOTATION}:{rel}"
            protected[rel] = found.protected
        if rel in session.open:
            lines, version = session.text_of(rel)
            old: str | None = lines.data.decode("utf-8", "replace")
        else:
            version = None
            try:
                old = found.real.read_text("utf-8") if found.real.is_file() else None
            except (OSError, UnicodeDecodeError):
                old = ""  # unreadable: replaced whole, once confirmed
            lines = LineIndex((old or "").encode("utf-8"))
        if old == text:
            continue
        rels.append(rel)
        if old is None:
            changes.append(lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(ignore_if_exists=False),
                                          annotation_id=note))
            whole = convert.start_of_file()
        else:
            overwritten.append(rel)
            whole = convert.range_of(lines, Span(0, len(lines.data)), session.encoding)
        changes.append(lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=[lsp.AnnotatedTextEdit(range=whole, new_text=text, annotation_id=note)]))
    if not rels:
        if not proposal.files:  # the stage proposes nothing (discuss: all decided; update: nothing affected)
            return "; ".join(proposal.notes) or f"{proposal.stage}: nothing to write"
        return f"{', '.join(r for r, _ in proposal.files)}: already up to date, nothing to write"
    return changes, overwritten, rels, protected


def _finished(run: Run, files: list[tuple[str, str]]) -> None:
    """The editor applied the run's edit: its files marked written, the run complete (not
    resumable any more)."""
    for rel, text in files:
        run.mark_written(rel, text)
    run.finish()


def snapshot_before_apply(root: Path, run_id: str, rels: list[str]) -> None:
    """The one call site of the snapshots (``specward restore RUN_ID``): every file of the
    edit, before the editor is asked (what exists is kept; what does not is listed, so that
    restore removes it). Raises ``snapshots.SnapshotError``: the edit is then not sent."""
    from ... import snapshots

    if rels:
        snapshots.snapshot(root, run_id, list(rels))


def record_written(root: Path, run_id: str, files: list[tuple[str, str]]) -> None:
    """The editor applied the edit: what was written, in the run's snapshot manifest (a
    failure is a log line: the files are written already, restore then leaves them alone)."""
    from ... import snapshots

    for rel, text in files:
        try:
            snapshots.record_written(root, run_id, rel, text)
        except Exception:  # noqa: BLE001
            log.exception("recording %s in the snapshot of run %s failed", rel, run_id)


def _said(ls: SpecwardServer, kind: lsp.MessageType, message: str, run_id: str | None = None) -> dict:
    """A ``window/showMessage`` (prefixed ``specward:``); the command's result saying
    nothing was applied."""
    try:
        ls.window_show_message(lsp.ShowMessageParams(type=kind, message=f"specward: {message}"))
    except Exception:  # noqa: BLE001
        log.exception("showing a message failed")
    return {"applied": False, "runId": run_id, "files": []}


# ------------------------------------------------------------------ code actions (code_action.py)
TODO_COMMENT = re.compile(
    r"(?:^|\s)(?:#+|//+|/\*+|\*+|<!--|--|;+)\s*(?:TODO|FIXME)\b(?:\([^)]*\))?\s*[:\-]?\s*(?P<text>.*?)\s*(?:\*/|-->)?\s*$")
MAX_ACTION_LINES = 50
TODO_TITLE = "specward: write a spec for this TODO"


def todo_request(line: str) -> str | None:
    """The request a ``TODO``/``FIXME`` comment line states (its text after the marker),
    None when the line has no such comment or it says nothing."""
    m = TODO_COMMENT.search(line)
    if m is None:
        return None
    text = " ".join(m.group("text").split())
    return text if len(text) >= 3 else None


def _wants(only: list | None, kind: lsp.CodeActionKind) -> bool:
    return not only or any(kind.value.startswith(str(getattr(k, "value", k))) for k in only)


def stage_actions(session: Session, rel: str, lines: LineIndex, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """On a ``specs/<slug>.md`` spec: "Generate contract"; on a ``TODO``/``FIXME`` comment
    line of any other file in the requested range: "specward: write a spec for this TODO"."""
    from ...generate_cli import valid_slug

    only = params.context.only
    out: list[lsp.CodeAction] = []
    m = SPEC_FILE.fullmatch(rel)
    if m is not None:
        if valid_slug(m.group(1)) and _wants(only, lsp.CodeActionKind.Source):
            target = f"specs/{m.group(1)}.dsl.json"
            out.append(lsp.CodeAction(title=f"Generate contract ({target})", kind=lsp.CodeActionKind.Source,
                                      command=lsp.Command(title="Generate contract", command=GENERATE_CONTRACT,
                                                          arguments=[{"spec": rel}])))
        return out
    if not _wants(only, lsp.CodeActionKind.Refactor):
        return out
    first = max(params.range.start.line, 0)
    last = min(params.range.end.line, first + MAX_ACTION_LINES, len(lines.starts) - 1)
    for n in range(first, last + 1):
        start = lines.starts[n]
        end = lines.starts[n + 1] if n + 1 < len(lines.starts) else len(lines.data)
        request = todo_request(lines.data[start:end].decode("utf-8", "replace").rstrip("\r\n"))
        if request is None:
            continue
        out.append(lsp.CodeAction(title=TODO_TITLE, kind=lsp.CodeActionKind.Refactor,
                                  command=lsp.Command(title=TODO_TITLE, command=GENERATE_SPEC, arguments=[request])))
        break  # one per request: the first TODO of the range
    return out
