"""More LLM stages from inside the editor (issue 15; ``docs/stages.md``, "In the editor"),
on the machinery of ``stage_command.py`` (``_run_stage``: progress, cancel, one confirmed
``workspace/applyEdit``, snapshot, run log):

- ``specward.discuss`` — ``{spec?: "specs/<slug>.md", request?, slug?}``: the open
  questions of a spec (the editor's text of it) or of a request, each asked with
  ``window/showMessageRequest`` (its options as the actions; a dismissed question stays
  open), the decisions already in ``specs/<slug>.context.md`` passed in so they are not
  asked again (``discuss_cli.propose_discuss``). Code action on a spec: :data:`DISCUSS_TITLE`.
- ``specward.updateAffected`` — ``{contract: rel-or-uri, old?: "REV"}``: the NEW version is
  the editor's text of the contract, the OLD one ``git show REV:<path>`` (``HEAD`` by
  default); ``update_cli.propose_update`` with a ``agent_tools.Tools`` of its own (the
  cache's index, built on the worker thread and closed after; never the session's live
  index). Code action on a contract whose text differs from its ``HEAD`` version:
  :data:`UPDATE_TITLE`.
- ``specward.resumeRun`` — ``{runId?}``: without a run id, the resumable runs (state files
  ``.specward/runs/*.state.json`` not done, of a stage ``generate --resume`` continues;
  newest first, at most :data:`MAX_LISTED`) offered with ``window/showMessageRequest``; the
  chosen run continued with ``generate_cli.resume_stage`` (the answers it received are not
  asked for again), its proposal offered in the editor.

Every command answers ``{applied, runId, files}``; a problem is a ``window/showMessage``."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from .stage_command import SPEC_FILE, _run_stage, _said, _wants, editor_offer

if TYPE_CHECKING:
    from specward.analyzers.lines import LineIndex
    from ..server import SpecwardServer
    from ..session import Session

log = logging.getLogger(__name__)

DISCUSS = "specward.discuss"
UPDATE_AFFECTED = "specward.updateAffected"
RESUME_RUN = "specward.resumeRun"
DISCUSS_TITLE = "specward: discuss the open questions of this spec"
UPDATE_TITLE = "specward: update the code this contract change affects"
MAX_LISTED = 8
MAX_REQUEST_CHARS = 4000
MAX_CONTEXT_BYTES = 200_000
_REV = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/~^@{}-]{0,199}")


def _rel(session: Session, value: str) -> str:
    return (session.rel_of_uri(value) or value) if value.startswith("file:") else value


def _editor_text(session: Session, rel: str) -> str:
    lines, _ = session.text_of(rel)
    return lines.data.decode("utf-8", "replace")


# ------------------------------------------------------------------ discuss
async def discuss(ls: SpecwardServer, arg: Any) -> dict:
    from ...discuss_cli import context_path, propose_discuss
    from ...generate_cli import MAX_SPEC_BYTES, slug_from_request, valid_slug
    from specward.analyzers.stages.discuss import read_decisions

    arg = {"spec": arg} if isinstance(arg, str) else arg
    if not isinstance(arg, dict):
        raise ValueError(f"{DISCUSS} expects {{spec: specs/<slug>.md}} or {{request, slug?}}")
    spec, request, slug = arg.get("spec"), arg.get("request"), arg.get("slug")
    if not (isinstance(spec, str) and spec or isinstance(request, str) and request.strip()) \
            or (slug is not None and not isinstance(slug, str)):
        raise ValueError(f"{DISCUSS} expects {{spec: specs/<slug>.md}} or {{request, slug?}}")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was generated")
    spec_name = None
    if isinstance(spec, str) and spec:
        rel = _rel(session, spec)
        m = SPEC_FILE.fullmatch(rel)
        if m is None or not valid_slug(m.group(1)):
            return _said(ls, lsp.MessageType.Error,
                         f"{rel}: not a spec (specs/<slug>.md, the slug in kebab-case): nothing was discussed")
        subject = _editor_text(session, rel)
        if len(subject.encode("utf-8")) > MAX_SPEC_BYTES:
            return _said(ls, lsp.MessageType.Error, f"{rel}: larger than {MAX_SPEC_BYTES} bytes: nothing was discussed")
        if not subject.strip():
            return _said(ls, lsp.MessageType.Error, f"{rel}: the spec is empty (or unreadable): nothing was discussed")
        slug = slug if slug is not None else m.group(1)
        spec_name = rel
    else:
        subject = " ".join(request.split())[:MAX_REQUEST_CHARS]
        slug = slug if slug is not None else slug_from_request(subject)
    if not valid_slug(slug):
        return _said(ls, lsp.MessageType.Error, f"the slug {slug!r} is not kebab-case: nothing was discussed")
    context_rel = context_path(slug)
    old = _editor_text(session, context_rel) if (session.root / context_rel).is_file() or context_rel in session.open \
        else ""
    existing = read_decisions(old) if old.strip() and len(old) <= MAX_CONTEXT_BYTES else []
    what = spec_name or "the request"
    return await _run_stage(ls, "discuss", f"specward: discussing {what}",
                            lambda run: propose_discuss(run, subject, slug, existing, spec_name=spec_name),
                            args={"subject": subject, "slug": slug, "spec_name": spec_name})


# ------------------------------------------------------------------ update affected code
async def update_affected(ls: SpecwardServer, arg: Any) -> dict:
    from ... import impact_cli
    from ...engine.git import Git, GitError

    arg = {"contract": arg} if isinstance(arg, str) else arg
    contract, rev = (arg.get("contract"), arg.get("old", "HEAD")) if isinstance(arg, dict) else (None, None)
    if not isinstance(contract, str) or not contract or not isinstance(rev, str):
        raise ValueError(f"{UPDATE_AFFECTED} expects {{contract: path or URI, old?: REV}}")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was updated")
    rel = _rel(session, contract)
    if rel.startswith(("/", "file:")) or ".." in rel.split("/"):
        return _said(ls, lsp.MessageType.Error, f"{contract}: not a file of the workspace: nothing was updated")
    if not _REV.fullmatch(rev):
        return _said(ls, lsp.MessageType.Error, f"{rev!r}: not a git revision: nothing was updated")
    new_text = _editor_text(session, rel)
    loop = asyncio.get_running_loop()

    def old_version() -> str:
        git = Git(session.root)
        if git.exe is None:
            raise GitError("git is not installed, so there is no earlier version to compare with")
        if git.prefix() is None:
            raise GitError(f"{session.root} is not in a git repository, so there is no earlier version of {rel}")
        data = git.show(rev, rel)
        if data is None:
            raise GitError(f"{rel} has no version in {rev} (not committed there, or no such revision)")
        return data.decode("utf-8", "replace")

    try:
        old_text = await loop.run_in_executor(ls.thread_pool, old_version)
    except GitError as exc:
        return _said(ls, lsp.MessageType.Warning, f"{exc}: nothing was updated")
    if old_text == new_text:
        return _said(ls, lsp.MessageType.Info, f"{rel} is as in {rev}: nothing to update")
    label = f"{rev}:{rel}"
    try:
        for text, name in ((old_text, label), (new_text, "NEW")):
            impact_cli.parsed(impact_cli.Version(name, session.root / rel, text), rel)
    except impact_cli.UsageError as exc:
        return _said(ls, lsp.MessageType.Error, f"{exc}: nothing was updated")
    from ...update_cli import update_proposal

    return await _run_stage(ls, "update", f"specward: updating the code {rel} affects", update_proposal,
                            args={"contract_rel": rel, "old_text": old_text, "new_text": new_text,
                                  "old_label": label})


# ------------------------------------------------------------------ resume
def resumable_runs(root: Path, limit: int = MAX_LISTED) -> list:
    """The runs that can be resumed: ``RunState`` of each state file not done, of a stage
    ``generate_cli.RESUMABLE``, newest first (the file's last change), at most ``limit``."""
    from ...engine.reading import read_data
    from ...generate_cli import RESUMABLE
    from ...stage_run import MAX_STATE_BYTES, RunState, StateError

    folder = root / ".specward" / "runs"
    try:
        files = [(p.stat().st_mtime, p.name, p) for p in folder.glob("*.state.json") if p.is_file()]
    except OSError:
        return []
    out = []
    for _mtime, _name, p in sorted(files, reverse=True):
        data, _why = read_data(str(root), p.relative_to(root).as_posix(), MAX_STATE_BYTES)
        if data is None:
            continue
        try:
            state = RunState.from_json(data.decode("utf-8"))
        except (UnicodeDecodeError, StateError):
            continue
        if state.done or state.stage not in RESUMABLE or f"{state.run_id}.state.json" != p.name:
            continue
        out.append(state)
        if len(out) >= limit:
            break
    return out


def run_title(state) -> str:
    """How a resumable run reads in the list: its id, stage and subject."""
    a = state.args
    subject = a.get("request") or a.get("spec_name") or a.get("contract_rel") or ""
    subject = " ".join(str(subject).split())
    subject = subject if len(subject) <= 60 else subject[:57] + "..."
    answers = f", {len(state.answers)} answer(s) received" if state.answers else ""
    return f"{state.run_id}: {state.stage}" + (f" {subject}" if subject else "") + answers


async def resume_run(ls: SpecwardServer, arg: Any = None) -> dict:
    from ...generate_cli import RESUMABLE, resume_stage
    from ...stage_run import Usage, load_state, valid_run_id

    run_id = arg.get("runId") if isinstance(arg, dict) else arg
    if run_id is not None and (not isinstance(run_id, str) or not valid_run_id(run_id)):
        raise ValueError(f"{RESUME_RUN} expects {{runId?}}, a run id")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was resumed")
    loop = asyncio.get_running_loop()
    if run_id is None:
        states = await loop.run_in_executor(ls.thread_pool, resumable_runs, session.root)
        if not states:
            return _said(ls, lsp.MessageType.Info, "no interrupted run to resume")
        titles = {run_title(s): s.run_id for s in states}
        answer = await ls.window_show_message_request_async(lsp.ShowMessageRequestParams(
            type=lsp.MessageType.Info, message="specward: which run should be resumed?",
            actions=[lsp.MessageActionItem(title=t) for t in titles]))
        run_id = titles.get(getattr(answer, "title", None))
        if run_id is None:
            return {"applied": False, "runId": None, "files": []}
    try:
        state = await loop.run_in_executor(ls.thread_pool, load_state, session.root, run_id)
    except Usage as exc:
        return _said(ls, lsp.MessageType.Error, str(exc))
    if state.done:
        return _said(ls, lsp.MessageType.Info, f"run {run_id} is complete: nothing to resume", run_id)
    if state.stage not in RESUMABLE:
        return _said(ls, lsp.MessageType.Error,
                     f"run {run_id} is a {state.stage} run, which cannot be resumed", run_id)

    propose = editor_offer(ls, session, loop, resume_stage)

    return await _run_stage(ls, state.stage, f"specward: resuming run {run_id} ({state.stage})", propose,
                            state=state)


# ------------------------------------------------------------------ code actions (code_action.py)
_HEADS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # session -> (git, {rel: (stamp, bytes)})
_HEADS_LOCK = threading.Lock()


def _head_version(session: Session, rel: str) -> bytes | None:
    """``rel`` as committed in ``HEAD`` (None: no git, no repository, not committed);
    cached until git's stamp changes."""
    from ...engine.git import Git

    with _HEADS_LOCK:
        got = _HEADS.get(session)
        if got is None:
            got = _HEADS[session] = (Git(session.root), {})
    git, cache = got
    if git.exe is None:
        return None
    try:
        stamp = git.stamp()
    except Exception:  # noqa: BLE001 - no git: no action
        return None
    hit = cache.get(rel)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    data = git.show("HEAD", rel)
    cache[rel] = (stamp, data)
    return data


def run_subject(state) -> str | None:
    """The workspace file a run is about: the spec it writes or reads, the contract it
    slices or updates from."""
    a = state.args
    if state.stage == "spec" and isinstance(a.get("slug"), str):
        return f"specs/{a['slug']}.md"
    if state.stage == "contract" and isinstance(a.get("spec_name"), str):
        return f"specs/{a['spec_name']}"
    value = a.get("contract_rel")
    return value if isinstance(value, str) else None


_RESUMABLE_CACHE: dict[str, tuple[tuple, list]] = {}  # root -> (the runs folder's stamp, its runs)


def _resumable_cached(root: Path) -> list:
    """``resumable_runs``, read again only when the runs folder changed (a code action is
    asked for at every move of the cursor)."""
    folder = root / ".specward" / "runs"
    try:
        st = folder.stat()
    except OSError:
        return []
    stamp = (st.st_mtime_ns, st.st_ino)
    hit = _RESUMABLE_CACHE.get(str(root))
    if hit is None or hit[0] != stamp:
        hit = _RESUMABLE_CACHE[str(root)] = (stamp, resumable_runs(root))
    return hit[1]


def more_actions(session: Session, rel: str, lines: LineIndex, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """On a spec: "discuss its open questions"; on a contract the editor holds changed from
    its ``HEAD`` version: "update the code this change affects"; on the spec or contract of
    an interrupted run: "resume" it."""
    from ...generate_cli import valid_slug

    only = params.context.only
    if not _wants(only, lsp.CodeActionKind.Source):
        return []
    out = []
    for state in _resumable_cached(session.root):
        if run_subject(state) == rel:
            title = f"specward: resume the interrupted {state.stage} run {state.run_id}"
            out.append(lsp.CodeAction(title=title, kind=lsp.CodeActionKind.Source, command=lsp.Command(
                title=title, command=RESUME_RUN, arguments=[{"runId": state.run_id}])))
    m = SPEC_FILE.fullmatch(rel)
    if m is not None:
        if valid_slug(m.group(1)):
            out.append(lsp.CodeAction(title=DISCUSS_TITLE, kind=lsp.CodeActionKind.Source, command=lsp.Command(
                title=DISCUSS_TITLE, command=DISCUSS, arguments=[{"spec": rel}])))
        return out
    if rel not in session.index.contracts:
        return out
    head = _head_version(session, rel)
    if head is None or head == lines.data:
        return out
    return out + [lsp.CodeAction(title=UPDATE_TITLE, kind=lsp.CodeActionKind.Source,
                                 command=lsp.Command(title=UPDATE_TITLE, command=UPDATE_AFFECTED,
                                                     arguments=[{"contract": rel}]))]
