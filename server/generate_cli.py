"""``specward generate spec "REQUEST" [--slug S] [--yes]`` and ``specward generate contract
SPEC.md [--yes]``: the first two LLM stages of issue 15 on the command line
(``docs/stages.md``, "Generating a spec and a contract").

- ``spec`` asks the model for a Markdown spec (background, user stories, acceptance
  criteria, edge cases) as one fenced file block, and proposes ``specs/<slug>.md``; the
  slug is ``--slug`` or made from the request (kebab-case, at most six words).
- ``contract`` gives the model the spec and asks for a SpecDSL 1.0 contract as one JSON
  object; the answer's first JSON object is validated with ``parse_contract``. When it is
  not valid (or holds no JSON object) the problems go back to the model in a follow-up
  message, at most 3 repair rounds; after that the problems still there are printed and
  nothing is written. The target is ``specs/<slug>.dsl.json``, the slug being the spec's
  name without ``.md``.

Both print what they will write with a unified diff and write only with ``--yes`` or when
the user answers yes at a terminal. The workspace is the project of the current folder
(``workspace.find_project_root``; the current folder when there is no marker); the target
is confined to it (``confine``, ``resolve_inside``: no symlink out, and a target that is
protected is refused) and written through a temporary file and a rename.

Every run that reached the model appends one record to ``.specward/runs.jsonl`` (stage,
model, hash of the first request's messages, the files written). When the answer fits no
format, or the contract never validated, the raw answers of the run are kept in
``.specward/runs/<run_id>.answer.txt`` and the message names that file.

Exit codes: 0 written or already up to date; 1 not written (declined, no terminal and no
``--yes``, an answer that does not fit, a contract still invalid); 2 usage error, no model
configured, litellm missing, the request failed; 130 interrupted (nothing written).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

from specward.analyzers.contracts import parse_contract
from specward.analyzers.stages import answers

from . import discuss_cli, llm, slice_cli, snapshots, update_cli
from .stage_context import gather as gather_context
from .stage_context import with_sections
from .engine.reading import shown
from .stage_run import (EXIT_INTERRUPTED, EXIT_NOT_WRITTEN, EXIT_OK, EXIT_USAGE, FILES_ANSWER_FORMAT,
                        JSON_ANSWER_FORMAT, NotWritten, Proposal, Run, Usage, load_state, model_config, offer, project_root,
                        target)

MAX_REPAIRS = 3
MAX_SPEC_BYTES = 1_000_000
SLUG_WORDS = 6
SPEC_SECTIONS = ("Background", "User stories", "Acceptance criteria", "Edge cases")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_STOP_WORDS = frozenset(
    "a an the to of for and or with in on at by as from into where which that this these those so "
    "can could should would will must be is are was it its their our my your i we you they he she "
    "please let lets want need".split())

SPEC_SYSTEM = (
    "You write feature specifications for a software project. A specification is a Markdown "
    "document for people: clear, concrete, testable, with no code.")
CONTRACT_SYSTEM = (
    "You turn a feature specification into an API contract in SpecDSL 1.0, a JSON format that "
    "tools validate strictly. Declare exactly the endpoints and data models the specification needs.")

SPECDSL_SHAPE = """\
SpecDSL 1.0 has this shape (every key shown is required unless marked optional):
{
  "version": "1.0",
  "feature": {"id": "kebab-case-id", "title": "...", "description": "..."},
  "models": [
    {"name": "Note", "description": "...",
     "fields": [{"name": "id", "type": "Int", "required": true, "unique": true},
                {"name": "title", "type": "String", "required": true}],
     "relations": ["OtherModel"]  (optional: names of models declared here)}
  ],
  "endpoints": [
    {"id": "EP-001", "method": "GET|POST|PUT|PATCH|DELETE", "path": "/api/notes/:id",
     "description": "...", "auth": true,
     "request": {"params": {"id": "string"}, "query": {"q": "string"}, "body": {"title": "string, required"}}
       (optional; each map is name -> type description),
     "successStatus": 200, "successDescription": "...",
     "errors": [{"status": 404, "code": "NOT_FOUND", "description": "..."}]}
  ]
}
Endpoint ids and model names are unique; status codes are between 100 and 599."""


# ------------------------------------------------------------------------------ pure parts
def slug_from_request(request: str, words: int = SLUG_WORDS) -> str:
    """A kebab-case slug of at most ``words`` words of the request (accents folded, filler
    words left out; ``feature`` when nothing is left)."""
    folded = unicodedata.normalize("NFKD", request).encode("ascii", "ignore").decode("ascii").lower()
    tokens = re.findall(r"[a-z0-9]+", folded)
    kept = [t for t in tokens if t not in _STOP_WORDS and (len(t) > 1 or t.isdigit())] or tokens
    return "-".join(kept[:words]) or "feature"


def valid_slug(slug: str) -> bool:
    return bool(_SLUG.fullmatch(slug)) and len(slug) <= 80


def spec_messages(request: str, slug: str) -> list[dict[str, str]]:
    """The spec stage's prompt: the request, the four sections, the files format."""
    sections = "\n".join(f"## {name}" for name in SPEC_SECTIONS)
    user = (
        f"Feature request:\n\n{request.strip()}\n\n"
        f"Write the specification of this feature as one Markdown file, `specs/{slug}.md`. It starts with a "
        f"`# ` title and has these sections, in this order:\n\n{sections}\n\n"
        "Background: the problem and the context. User stories: \"As a ..., I want ..., so that ...\". "
        "Acceptance criteria: numbered, each one observable and testable. Edge cases: inputs, states and "
        "failures the implementation must handle, with the expected behaviour.\n\n"
        f"{FILES_ANSWER_FORMAT}\n\nGive exactly one file: specs/{slug}.md.")
    return [{"role": "system", "content": SPEC_SYSTEM}, {"role": "user", "content": user}]


def contract_messages(spec_text: str, spec_name: str, context: str = "") -> list[dict[str, str]]:
    """The contract stage's first prompt: the spec, the shared sections (``context``:
    decisions, rules, ledger, context files), the SpecDSL shape, the JSON format."""
    shared = f"{context.rstrip()}\n\n" if context.strip() else ""
    user = (f"The specification (`{spec_name}`):\n\n<<<SPEC\n{spec_text.rstrip()}\nSPEC>>>\n\n{shared}"
            f"Write its API contract in SpecDSL 1.0.\n\n{SPECDSL_SHAPE}\n\n{JSON_ANSWER_FORMAT}")
    return [{"role": "system", "content": CONTRACT_SYSTEM}, {"role": "user", "content": user}]


def repair_message(problems: list[str]) -> dict[str, str]:
    """The follow-up that sends a contract's problems back to the model."""
    listed = "\n".join(f"- {p}" for p in problems)
    return {"role": "user", "content": (
        f"The contract is not valid SpecDSL 1.0. The validator reports:\n{listed}\n\n"
        f"Fix every problem and give the whole corrected contract again.\n\n{JSON_ANSWER_FORMAT}")}


def spec_from_answer(text: str) -> str:
    """The spec's Markdown from the model's answer: the one file it gives (the path it
    names is not used: the target is ours). :class:`answers.AnswerError` otherwise."""
    files = answers.generated_files(text)
    if len(files) != 1:
        raise answers.AnswerError("exactly one file, the spec", f"{len(files)} files")
    content = files[0].content
    if not content.strip():
        raise answers.AnswerError("the spec's Markdown", "an empty file")
    return content if content.endswith("\n") else content + "\n"


def missing_sections(markdown: str) -> list[str]:
    heads = {m.group(1).strip().lower() for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", markdown, re.M)}
    return [s for s in SPEC_SECTIONS if not any(h == s.lower() or h.startswith(s.lower()) for h in heads)]


def check_contract(answer: str, target: str) -> tuple[str | None, list[str]]:
    """(the contract's text to write, []) when the answer's first JSON object is a valid
    SpecDSL contract, else (None, the problems, as sent back to the model)."""
    try:
        obj = answers.first_json_object(answer)
    except answers.AnswerError as exc:
        return None, [str(exc)]
    text = json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    facts = parse_contract(target, text)
    problems = [f.message for f in facts.findings if f.severity == "error"]
    if not problems and not facts.endpoints and not facts.models:
        problems = ["the contract declares no endpoint and no model"]
    return (None, problems) if problems else (text, [])


# ------------------------------------------------------------------------------ the command
def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("generate", help="LLM stages: a spec from a request, a SpecDSL contract from a spec")
    p.add_argument("--resume", metavar="RUN_ID", help="continue an interrupted run: the answers already received "
                   "are not asked again, the files already written not regenerated")
    p.add_argument("--yes", action="store_true", help="with --resume: write without asking")
    kinds = p.add_subparsers(dest="generate_kind", required=False)
    s = kinds.add_parser("spec", help="write specs/<slug>.md from a one-line feature request")
    s.add_argument("request", metavar="REQUEST", help="the feature request, in quotes")
    s.add_argument("--slug", help="the spec's name (kebab-case; default: from the request)")
    c = kinds.add_parser("contract", help="write specs/<slug>.dsl.json (SpecDSL 1.0) from a spec")
    c.add_argument("spec", metavar="SPEC.md", help="the spec file")
    for sub in (s, c):
        sub.add_argument("--yes", action="store_true", help="write without asking")
    update_cli.add_parser(kinds)
    slice_cli.add_parser(kinds)
    discuss_cli.add_parser(kinds)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        root = project_root()
        if getattr(args, "resume", None):
            if args.generate_kind is not None:
                raise Usage("--resume RUN_ID continues a run: name no stage with it")
            return _resume(root, args)
        if args.generate_kind is None:
            raise Usage("name a stage (spec, contract, ...) or --resume RUN_ID")
        if args.generate_kind == "discuss":
            return discuss_cli.run_discuss(root, args)
        if args.generate_kind == "spec":
            return _spec(root, args)
        if args.generate_kind == "slice":
            return slice_cli.run_slice(args, _offer_all, _started)
        if args.generate_kind == "update":
            return update_cli.run_update(args, _offer_all, _started)
        return _contract(root, args)
    except Usage as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except llm.LLMError as exc:  # not configured, failed (the message is redacted)
        print(f"specward: error: {exc}{_resume_hint()}", file=sys.stderr)
        return EXIT_USAGE
    except NotWritten as exc:
        for line in exc.details:
            print(line, file=sys.stderr)
        print(f"specward: {exc}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    except KeyboardInterrupt:
        print(f"specward: interrupted: nothing written{_resume_hint()}", file=sys.stderr)
        return EXIT_INTERRUPTED


_CURRENT: list[Run] = []  # the run this command started (for the resume hint)


def _resume_hint() -> str:
    run = _CURRENT[-1] if _CURRENT else None
    if run is None or not run.resumed and not run.answers:
        return ""
    return f"; continue it with: specward generate --resume {run.run_id}"


def _started(run: Run) -> Run:
    _CURRENT.append(run)
    run.save_state()  # resumable from the start: its stage and arguments
    return run


def _resume(root: Path, args: argparse.Namespace) -> int:
    """``generate --resume RUN_ID``: the stage run again from its saved state."""
    state = load_state(root, args.resume)
    if state.done:
        print(f"specward: run {state.run_id} is complete: nothing to resume", file=sys.stderr)
        return EXIT_OK
    if state.stage not in RESUMABLE:
        raise Usage(f"run {state.run_id} is a {state.stage} run, which --resume does not continue yet")
    return resume_stage(_started(Run(root, state.stage, model_config(root), state=state)), _offer_all, args.yes)


RESUMABLE = ("spec", "contract", "slice", "update")


def resume_stage(run: Run, offer_all, yes: bool):
    """The per-stage dispatch of a resumed run (``run`` built with ``state=``), shared by
    ``generate --resume`` and the editor's ``specward.resumeRun``: the stage continued from
    its saved state (answers replayed, a saved proposal not asked for again), its proposal
    handed to ``offer_all(run, proposal, yes)``, whose result is returned. ``Usage`` for a
    stage that cannot be resumed (``RESUMABLE``)."""
    a = run.args
    if run.stage == "spec":
        return offer_all(run, propose_spec(run, a["request"], a["slug"]), yes)
    if run.stage == "contract":
        return offer_all(run, propose_contract(run, a["spec_text"], a["spec_name"]), yes)
    if run.stage == "slice":
        return slice_cli.slice_run(run, offer_all, yes)
    if run.stage == "update":
        return offer_all(run, update_cli.update_proposal(run), yes)
    raise Usage(f"run {run.run_id} is a {run.stage} run, which --resume does not continue yet")


def propose_spec(run: Run, request: str, slug: str) -> Proposal:
    """Ask for the spec of ``request``; the proposal is ``specs/<slug>.md``. Raises
    ``NotWritten`` when the answer does not fit (its raw text kept in the run log)."""
    rel = f"specs/{slug}.md"
    target(run.root, rel)
    done = run.step("proposal")
    if done is not None:
        return Proposal("spec", [tuple(f) for f in done["files"]], list(done["notes"]))
    # every prompt carries the shared sections; a spec has no contract yet
    answer = run.ask(with_sections(spec_messages(request, slug), gather_context(
        run.root, slug=slug, include=("decisions", "invariants", "ledger", "files"))))
    try:
        text = spec_from_answer(answer)
    except answers.AnswerError as exc:
        raise run.gave_up(str(exc)) from None
    notes = [f"the spec has no `{name}` section" for name in missing_sections(text)]
    run.save_step("proposal", {"files": [[rel, text]], "notes": notes})
    return Proposal("spec", [(rel, text)], notes)


def propose_contract(run: Run, spec_text: str, spec_name: str) -> Proposal:
    """Ask for the SpecDSL contract of a spec (``spec_name``: its file name, ``<slug>.md``),
    with at most ``MAX_REPAIRS`` repair rounds; the proposal is ``specs/<slug>.dsl.json``.
    Raises ``NotWritten`` (with the problems still there) when it never validates."""
    rel = f"specs/{spec_name[:-3]}.dsl.json"
    target(run.root, rel)
    done = run.step("proposal")
    if done is not None:
        return Proposal("contract", [tuple(f) for f in done["files"]], [])
    messages = contract_messages(spec_text, spec_name, gather_context(run.root, slug=spec_name[:-3]))
    problems: list[str] = []
    text = None
    for _round in range(1 + MAX_REPAIRS):
        answer = run.ask(messages)
        text, problems = check_contract(answer, rel)
        if text is not None:
            break
        messages = [*messages, {"role": "assistant", "content": answer}, repair_message(problems)]
    if text is None:
        raise run.gave_up(f"the contract is still not valid after {MAX_REPAIRS} repair rounds "
                          f"({len(problems)} problem(s) above)", [f"{rel}: error: {shown(p)}" for p in problems])
    run.save_step("proposal", {"files": [[rel, text]]})
    return Proposal("contract", [(rel, text)], [])


def read_spec(arg: str) -> tuple[str, str]:
    """(the spec's text, its file name) for ``generate contract SPEC.md``; ``Usage`` else."""
    path = Path(arg)
    name = shown(arg)
    if not path.name.lower().endswith(".md"):
        raise Usage(f"{name}: not a Markdown spec (expected SPEC.md)")
    try:
        if path.stat().st_size > MAX_SPEC_BYTES:
            raise Usage(f"{name}: larger than {MAX_SPEC_BYTES} bytes")
        spec_text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise Usage(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise Usage(f"{name}: not UTF-8 text") from None
    if not valid_slug(path.name[:-3]):
        raise Usage(f"{name}: its name is not a kebab-case slug, which the contract's name comes from")
    return spec_text, path.name


def _spec(root: Path, args: argparse.Namespace) -> int:
    request = args.request.strip()
    if not request:
        raise Usage("the feature request is empty")
    slug = args.slug if args.slug is not None else slug_from_request(request)
    if not valid_slug(slug):
        raise Usage(f"--slug {shown(slug)}: use kebab-case (lower-case letters, digits and dashes)")
    run = _started(Run(root, "spec", model_config(root), args={"request": request, "slug": slug}))
    return _offer_all(run, propose_spec(run, request, slug), args.yes)


def _contract(root: Path, args: argparse.Namespace) -> int:
    spec_text, spec_name = read_spec(args.spec)
    run = _started(Run(root, "contract", model_config(root), args={"spec_text": spec_text, "spec_name": spec_name}))
    return _offer_all(run, propose_contract(run, spec_text, spec_name), args.yes)


def _offer_all(run: Run, proposal: Proposal, yes: bool) -> int:
    """Each proposed file shown with its diff and written when approved; the run logged
    with the files written. 0 when every file was written or up to date, 1 otherwise."""
    for note in proposal.notes:
        print(f"specward: note: {note}", file=sys.stderr)
    written, declined = [], False
    snapped: list[bool] = []

    def snap() -> None:  # before the run's first write: what it may overwrite, kept
        if not snapped:
            try:
                snapshots.snapshot(run.root, run.run_id, [rel for rel, _ in proposal.files])
            except snapshots.SnapshotError as exc:
                raise Usage(str(exc)) from None
            snapped.append(True)

    for rel, text in proposal.files:
        if run.was_written(rel) is not None:  # resumed: approved and written before
            print(f"{rel}: already written by run {run.run_id}: not regenerated", file=sys.stderr)
            written.append(rel)
            continue
        done = offer(run.root, rel, target(run.root, rel, allow_protected=True), text, yes, before_write=snap)
        if done:
            written.append(rel)
            try:
                snapshots.record_written(run.root, run.run_id, rel, text)
            except snapshots.SnapshotError as exc:
                print(f"specward: warning: {exc}", file=sys.stderr)
        if done is not None:
            run.mark_written(rel, text)
        declined = declined or done is None
    run.record(written)
    if not declined:
        run.finish()
    return EXIT_NOT_WRITTEN if declined else EXIT_OK
