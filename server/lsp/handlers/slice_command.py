"""The slice stage from inside the editor (issue 15, "Slice"; ``docs/stages.md``, "In the editor"):

- ``specward.generateSlice`` — argument ``{contract, endpoints?, models?}``: ``contract`` a
  workspace-relative path or a ``file:`` URI, ``endpoints`` as ``"METHOD /path"``, ``models``
  by name (neither: the whole contract). Code actions on a contract (SpecDSL or OpenAPI):
  on an endpoint's declaration "specward: generate a slice for GET /api/notes/{id}", on a
  model's "... for model Note", and the ``source`` action "... for every endpoint".
- ``specward.implementEndpoint`` — argument ``{file, method, path, contract?}``: the quick
  fix "Implement this endpoint" of a ``phantom-api`` diagnostic. The endpoint is added to
  the contract (``analyzers/stages/contract_add.py``; without ``contract``, the one the
  call's nearest endpoints are in, else the one whose paths and base path share most with
  the call, else the only SpecDSL contract) and the slice of that endpoint generated; the
  contract's edit and the slice's files are ONE proposal, and the files are judged with
  the new contract in place (``stage_files.WithContract``).

Both run ``slice_cli.slice_run`` through ``stage_command._run_stage`` on a worker thread:
the stage builds its own ``agent_tools.Tools`` (with the cache) there and closes it after
(checking proposed files overlays that index, never the session's, whose findings the
editor shows), offers its proposal as one confirmed ``workspace/applyEdit``, and scores
what the editor applied. The slug is the contract's file name up to its first dot; the
spec ``specs/<slug>.md`` is used when it exists. The run's arguments are saved first, so
``specward.resumeRun`` and ``specward generate --resume`` continue an interrupted run."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from specward.analyzers.matching import full_path

from .stage_command import _run_stage, _said, _wants, editor_offer

if TYPE_CHECKING:
    from specward.analyzers.lines import LineIndex
    from specward.analyzers.model import Call

    from ..server import SpecwardServer
    from ..session import Session

log = logging.getLogger(__name__)

GENERATE_SLICE = "specward.generateSlice"
IMPLEMENT_ENDPOINT = "specward.implementEndpoint"
IMPLEMENT_TITLE = "Implement this endpoint"
MAX_ACTION_LINES = 200


# ------------------------------------------------------------------ arguments
def _strings(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{GENERATE_SLICE}: `{what}` must be a list of strings")
    return [" ".join(v.split()) for v in value]


def _rel(session: Session, value: str) -> str:
    return (session.rel_of_uri(value) or value) if value.startswith("file:") else value


def _text(session: Session, rel: str) -> str:
    lines, _ = session.text_of(rel)
    return lines.data.decode("utf-8", "replace")


def _slug_and_spec(session: Session, contract_rel: str) -> tuple[str, str | None]:
    slug = contract_rel.rpartition("/")[2].split(".", 1)[0]
    spec = f"specs/{slug}.md"
    return slug, (_text(session, spec) or None) if (session.root / spec).is_file() else None


def _checked(contract_rel: str, text: str, endpoints: list[str], models: list[str]) -> str | None:
    """What is wrong with the selection, before any request (None: nothing)."""
    from specward.analyzers.contracts import parse_contract

    from ...slice_cli import select
    from ...stage_run import Usage

    contract = parse_contract(contract_rel, text)
    errors = [f.message for f in contract.findings if f.severity == "error"]
    if contract.format == "unknown" or errors:
        return f"{contract_rel}: not a valid contract ({'; '.join(errors[:3]) or 'not a contract'}): fix it first"
    try:
        chosen, picked = select(contract, endpoints, models)
    except Usage as exc:
        return str(exc)
    return None if chosen or picked else f"{contract_rel}: the contract declares no endpoint and no model"


def _sliced(ls: SpecwardServer, session: Session, loop: asyncio.AbstractEventLoop):
    """``propose`` for ``_run_stage``: the slice stage on the worker thread, its proposal
    offered in the editor from there (the loop's ``_offer``), then scored."""
    from ...slice_cli import slice_run

    return editor_offer(ls, session, loop, slice_run)


async def _start_slice(ls: SpecwardServer, session: Session, title: str, args: dict) -> dict:
    from ...stage_run import valid_run_id

    if not valid_run_id(args["slug"]):
        return _said(ls, lsp.MessageType.Error,
                     f"{args['contract_rel']}: its name gives no usable slug ({args['slug']!r}): nothing was generated")
    loop = asyncio.get_running_loop()
    problem = await loop.run_in_executor(ls.thread_pool, _checked, args["contract_rel"], args["contract_text"],
                                         args["endpoints"], args["models"])
    if problem is not None:
        return _said(ls, lsp.MessageType.Error, f"{problem}: nothing was generated")
    return await _run_stage(ls, "slice", title, _sliced(ls, session, loop), args=args)


# ------------------------------------------------------------------ the commands
async def generate_slice(ls: SpecwardServer, arg: Any) -> dict:
    """``arg``: ``{contract, endpoints?, models?}`` (or the contract's path itself)."""
    arg = {"contract": arg} if isinstance(arg, str) else arg
    if not isinstance(arg, dict) or not isinstance(arg.get("contract"), str) or not arg["contract"]:
        raise ValueError(f"{GENERATE_SLICE} expects {{contract, endpoints?, models?}}")
    endpoints, models = _strings(arg.get("endpoints"), "endpoints"), _strings(arg.get("models"), "models")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was generated")
    rel = _rel(session, arg["contract"])
    slug, spec_text = _slug_and_spec(session, rel)
    args = {"contract_rel": rel, "contract_text": _text(session, rel), "endpoints": endpoints, "models": models,
            "slug": slug, "spec_text": spec_text, "build": None}
    what = ", ".join([*endpoints, *(f"model {m}" for m in models)]) or "every endpoint"
    return await _start_slice(ls, session, f"specward: generating a slice of {rel} ({what})", args)


async def implement_endpoint(ls: SpecwardServer, arg: Any) -> dict:
    """``arg``: ``{file, method, path, contract?}``: the call's file, its method and path."""
    from specward.analyzers.stages.contract_add import ContractAddError, add_endpoint

    if not isinstance(arg, dict) or not all(isinstance(arg.get(k), str) and arg[k] for k in ("file", "method", "path")) \
            or not isinstance(arg.get("contract", ""), str):
        raise ValueError(f"{IMPLEMENT_ENDPOINT} expects {{file, method, path, contract?}}")
    session = ls.session
    if session is None:
        return _said(ls, lsp.MessageType.Warning, "the workspace is not open yet: nothing was generated")
    file, method, path = _rel(session, arg["file"]), arg["method"].upper(), arg["path"]
    contract = _rel(session, arg["contract"]) if arg.get("contract") else await session.request(
        contract_for_call, session, file, method, path)
    if not contract:
        return _said(ls, lsp.MessageType.Error, "the workspace has no contract to add the endpoint to: "
                     "nothing was generated (write one first: specward.generateContract)")
    try:
        added = add_endpoint(contract, _text(session, contract), method, path, file)
    except ContractAddError as exc:
        return _said(ls, lsp.MessageType.Error, f"{exc}: nothing was generated")
    slug, spec_text = _slug_and_spec(session, contract)
    args = {"contract_rel": contract, "contract_text": added.text, "endpoints": [added.endpoint], "models": [],
            "slug": slug, "spec_text": spec_text, "build": None, "with_contract": True, "call_file": file}
    return await _start_slice(ls, session, f"specward: implementing {added.endpoint} ({contract})", args)


def contract_for_call(session: Session, file: str, method: str, path: str) -> str | None:
    """The contract a call's missing endpoint belongs in (on the index thread): the one
    its nearest declared endpoints are in, else the one whose entries (with their base
    path) share most leading segments with the path, else the only SpecDSL contract, else
    the first one by name; None without any contract."""
    from specward.analyzers.route_contract import contract_for

    index = session.index
    if not index.contracts:
        return None
    for st in index.statuses.get(file, ()):
        call = st.call
        if call.template == path and call.method == method:
            near = [ep for ep in index.table.nearest(call) if ep.file in index.contracts]
            if near:
                return near[0].file
            break
    got = contract_for(index.contract_table.endpoints, path)
    if got is not None and got[0] in index.contracts:
        return got[0]
    dsl = [rel for rel in index.contracts if rel.lower().endswith(".dsl.json")]
    return dsl[0] if len(dsl) == 1 else sorted(index.contracts)[0]


# ------------------------------------------------------------------ code actions (code_action.py)
def implement_action(session: Session, rel: str, call: Call, diag: lsp.Diagnostic) -> lsp.CodeAction | None:
    """On a ``phantom-api`` call: "Implement this endpoint" (the contract it goes to named)."""
    if not session.index.contracts or call.template is None or call.method in ("UNKNOWN", "ANY", None):
        return None
    contract = contract_for_call(session, rel, call.method, call.template)
    if contract is None or not contract.lower().endswith((".json", ".yaml", ".yml")):
        return None
    title = f"{IMPLEMENT_TITLE}: {call.method} {call.template} (a slice, and the endpoint added to {contract})"
    return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag],
                          command=lsp.Command(title=IMPLEMENT_TITLE, command=IMPLEMENT_ENDPOINT, arguments=[
                              {"file": rel, "method": call.method, "path": call.template, "contract": contract}]))


def slice_actions(session: Session, rel: str, lines: LineIndex, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """On a contract the index knows: a slice of the endpoint or model declared on the
    requested lines (``refactor``), and of the whole contract (``source``)."""
    contract = session.index.contracts.get(rel)
    if contract is None or contract.format == "unknown" or not (contract.endpoints or contract.models):
        return []
    only = params.context.only
    out: list[lsp.CodeAction] = []

    def action(title: str, kind: lsp.CodeActionKind, payload: dict) -> lsp.CodeAction:
        return lsp.CodeAction(title=title, kind=kind, command=lsp.Command(
            title=title, command=GENERATE_SLICE, arguments=[{"contract": rel, **payload}]))

    if _wants(only, lsp.CodeActionKind.Refactor):
        first = max(params.range.start.line, 0)
        last = min(params.range.end.line, first + MAX_ACTION_LINES)
        for ep in contract.endpoints:
            if first <= lines.line_of(ep.span.start) <= last:
                shown = f"{ep.method} {full_path(ep)}"
                out.append(action(f"specward: generate a slice for {shown}", lsp.CodeActionKind.Refactor,
                                  {"endpoints": [shown]}))
        for m in contract.models:
            if first <= lines.line_of(m.span.start) <= last:
                out.append(action(f"specward: generate a slice for model {m.name}", lsp.CodeActionKind.Refactor,
                                  {"models": [m.name]}))
    if _wants(only, lsp.CodeActionKind.Source):
        out.append(action("specward: generate a slice for every endpoint", lsp.CodeActionKind.Source, {}))
    return out
