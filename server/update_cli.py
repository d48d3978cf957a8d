"""``specward generate update OLD NEW [--yes]``: after a contract edit, regenerate only the
code the edit affects (issue 15, "Update"; ``docs/stages.md``, "Updating affected code").

OLD and NEW are versions of one contract as ``specward impact`` reads them (files, or
``REV:path`` git revisions). The contract diff and its blast radius come from the impact
analysis (``engine/generated.py``): the files whose calls are matched to a changed or
removed endpoint (judged against both versions) and the generated files whose provenance
names a changed element. Those files, and only those, are sent to the model with the diff,
the new contract and why each is affected; the files it gives back are judged together
with the new contract in place (``stage_files.generate_files``: phantom calls, imports,
invariants, repaired at most three times) and offered like the other stages' (a diff each,
``--yes`` or an interactive yes). A file the model gives that is not one of the affected
files is refused and the model told so.

Exit codes: 0 written or nothing to update, 1 not written, 2 usage error / no model /
request failed, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from specward.analyzers.contract_diff import diff_contracts

from . import impact_cli, stage_context
from .engine.config import load_config
from .engine.reading import shown
from .stage_run import (EXIT_OK, FILES_ANSWER_FORMAT, Proposal, Run, Usage, model_config,
                        project_root)

MAX_FILE_CHARS = 60_000  # an affected file larger than this is not sent (and not regenerated)

UPDATE_SYSTEM = (
    "You update existing source files of a project after a change of its API contract. Change only what "
    "the contract change requires, keep everything else in each file exactly as it is (names, style, "
    "comments, formatting), and never invent endpoints, fields or modules that do not exist.")


def add_parser(kinds) -> None:
    u = kinds.add_parser("update", help="after a contract edit, regenerate only the code the edit affects")
    u.add_argument("old", metavar="OLD", help="the contract before the edit: a file or REV:path")
    u.add_argument("new", metavar="NEW", help="the contract after the edit: a file or REV:path")
    u.add_argument("--yes", action="store_true", help="write without asking")


def update_messages(contract_rel: str, new_text: str, diff: dict, affected: dict[str, tuple[str, list[str]]],
                    context: str = "") -> list[dict[str, str]]:
    """The prompt: the new contract, the diff, each affected file with why it is affected."""
    parts = [f"The API contract `{contract_rel}` changed. Its new version:\n\n<<<CONTRACT\n{new_text.rstrip()}\n"
             f"CONTRACT>>>\n\nWhat changed (added, removed and changed endpoints and models):\n\n"
             f"```json\n{json.dumps(diff, indent=2, ensure_ascii=False)}\n```"]
    if context:
        parts.append(context)
    for rel, (text, reasons) in affected.items():
        why = "; ".join(reasons)
        parts.append(f"Affected file `{rel}` ({why}):\n\n<<<FILE {rel}\n{text.rstrip()}\nFILE>>>")
    names = ", ".join(affected)
    parts.append(f"Update these files so that they follow the new contract: {names}. Give each of them "
                 f"complete, and no other file.\n\n{FILES_ANSWER_FORMAT}")
    return [{"role": "system", "content": UPDATE_SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def propose_update(run: Run, tools, contract_rel: str, old_text: str, new_text: str, old_label: str,
                   context: str = "") -> Proposal:
    """The affected files regenerated; an empty proposal when the edit affects none.
    ``tools``: a built ``agent_tools.Tools`` on the workspace; the NEW version is in place
    in its index while the files are judged (then the disk's again)."""
    from .stage_files import WithContract, generate_files

    old_facts = impact_cli.parsed(impact_cli.Version(old_label, run.root / contract_rel, old_text), contract_rel)
    new_facts = impact_cli.parsed(impact_cli.Version("NEW", run.root / contract_rel, new_text), contract_rel)
    diff = diff_contracts(old_facts, new_facts)
    if diff.empty:
        return Proposal("update", [], ["the two versions declare the same endpoints and models: nothing to update"])
    tools.wait()
    index = tools.index
    with tools.lock:
        old_callers = index.generated.judge_with(contract_rel, old_facts)
        new_callers = index.generated.judge_with(contract_rel, new_facts)
        radius = index.generated.radius(contract_rel, diff, old_facts, new_facts, old_callers, new_callers)
    reasons: dict[str, list[str]] = {}
    for change in diff.changes:
        r = radius.get(change.element)
        if r is None:
            continue
        for rel, why in r.reasons(change.element):
            if why.startswith("imports "):
                continue  # an importer of a generated file: context, not a file to regenerate
            reasons.setdefault(rel, [])
            if why not in reasons[rel]:
                reasons[rel].append(why)
    notes: list[str] = []
    affected: dict[str, tuple[str, list[str]]] = {}
    for rel in sorted(reasons):
        ft = index.ws.read(rel)
        if ft.text is None:
            notes.append(f"{rel}: not regenerated: {ft.reason}")
        elif len(ft.text) > MAX_FILE_CHARS:
            notes.append(f"{rel}: not regenerated: larger than {MAX_FILE_CHARS:,} characters; update it by hand")
        else:
            affected[rel] = (ft.text, reasons[rel])
    if not affected:
        return Proposal("update", [], notes + ["no file is affected by the change"])

    def allowed(rel: str) -> str | None:
        return None if rel in affected else "only the affected files may be changed: " + ", ".join(affected)

    if not context:
        context = stage_context.gather(run.root, targets=list(affected), include=("invariants", "ledger", "decisions"))
    in_place = {contract_rel: new_text} if (run.root / contract_rel).exists() else {}
    got = generate_files(run, update_messages(contract_rel, new_text, diff.plain(), affected, context),
                         WithContract(tools, in_place), allowed=allowed)
    got.files.pop(contract_rel, None)
    if got.problems:
        raise run.gave_up(f"the updated files still have {len(got.problems)} problem(s) after {got.rounds} repair "
                          "round(s)", [f"{rel or '(answer)'}: {shown(msg)}" for rel, msg in got.problems],
                          finding_codes=got.finding_codes)
    changed = [(rel, text) for rel, text in got.files.items() if text != affected[rel][0]]
    return Proposal("update", changed, notes)


def run_update(args: argparse.Namespace, offer_all, started) -> int:
    root = project_root()
    cwd = Path.cwd().resolve()
    limit = load_config(root).settings.max_file_size
    try:
        new = impact_cli.read_version(args.new, cwd, root, limit)
        old = impact_cli.read_version(args.old, cwd, root, limit)
    except impact_cli.UsageError as exc:
        raise Usage(str(exc)) from None
    try:
        contract_rel = new.path.relative_to(root).as_posix()
    except ValueError:
        raise Usage(f"{shown(args.new)}: the new contract must be a file of the project ({shown(str(root))})") from None
    try:
        impact_cli.parsed(old, contract_rel)
        impact_cli.parsed(new, contract_rel)
    except impact_cli.UsageError as exc:
        raise Usage(str(exc)) from None
    run = started(Run(root, "update", model_config(root), args={
        "contract_rel": contract_rel, "old_text": old.text, "new_text": new.text, "old_label": old.label}))
    return update_run(run, offer_all, args.yes)


def update_proposal(run: Run) -> Proposal:
    """The proposal of update run ``run`` (new or resumed: a saved proposal is not asked for
    again), with a ``Tools`` of its own on the workspace (the cache's index, closed after),
    saved as the run's ``proposal`` step."""
    from .agent_tools import Tools

    a = run.args
    done = run.step("proposal")
    if done is not None:
        return Proposal("update", [tuple(f) for f in done["files"]], list(done["notes"]))
    tools = Tools(run.root)
    try:
        proposal = propose_update(run, tools, a["contract_rel"], a["old_text"], a["new_text"], a["old_label"])
    finally:
        tools.close()
    run.save_step("proposal", {"files": [list(f) for f in proposal.files], "notes": proposal.notes})
    return proposal


def update_run(run: Run, offer_all, yes: bool) -> int:
    """The update stage of a new ``run``, its files offered."""
    proposal = update_proposal(run)
    if not proposal.files:
        for note in proposal.notes:
            print(f"specward: {note}")
        run.record([])
        run.finish()
        return EXIT_OK
    return offer_all(run, proposal, yes)
