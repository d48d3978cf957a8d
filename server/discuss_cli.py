"""``specward generate discuss (SPEC.md | "REQUEST") [--slug S] [--answers FILE.json]
[--recommended] [--yes]``: the Discuss stage of issue 15 (``docs/stages.md``, "Discuss").

The model lists the gray areas of a request or a spec as questions with options
(``analyzers/stages/discuss.py``); each question is answered, and the decisions are
proposed as ``specs/<slug>.context.md``, shown with a diff and written with ``--yes`` or a
yes at the terminal, like the other stages. A second run passes the decisions already
made to the model, drops any question that repeats one, and keeps every earlier decision
it does not re-answer.

Where answers come from, in this order, per question: ``--answers FILE.json`` (a JSON
object, question id -> the answer: an option's text, the user's own text, or an option's
number from 1), ``--recommended`` (the recommended option, else the first), then the UI's
``choose`` (at a terminal: the numbered options, or an answer typed in). A question left
without an answer stays open and is not written. Without a terminal and without either
option the command exits 1 before asking the model.

For the editor and the later stages: :func:`propose_discuss` takes any answer source (the
language server's own, over ``window/showMessageRequest``), and :func:`decisions_section`
is the part of a later prompt that carries a feature's decisions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from specward.analyzers.stages import answers
from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.discuss import (Decision, Question, context_markdown, decide, discuss_messages,
                                               merge, parse_questions, prompt_section, question_key,
                                               read_decisions, undecided)

from . import generate_cli as gen
from .engine.reading import shown
from .stage_context import gather, with_sections
from .stage_run import (
    JSON_ANSWER_FORMAT,
    NotWritten,
    Proposal,
    Run,
    StageUI,
    Usage,
    current_text,
    model_config,
    target,
)
from .stages_paths import resolve_inside

MAX_CONTEXT_BYTES = 200_000
AnswerSource = Callable[[Question], "str | None"]


def context_path(slug: str) -> str:
    return f"specs/{slug}.context.md"


# ------------------------------------------------------------------------------ answer sources
def ui_source(ui: StageUI) -> AnswerSource:
    """Each question asked through ``ui.choose`` (the recommended option named in the question)."""
    def ask(q: Question) -> str | None:
        return ui.choose(q.question + (f" (recommended: {q.recommended})" if q.recommended else ""), list(q.options))
    return ask


def recommended_source(q: Question) -> str:
    return q.recommended or q.options[0]


def file_source(given: dict[str, object]) -> AnswerSource:
    """Answers from ``--answers``: by question id, else by the question's text."""
    by_text = {question_key(k): v for k, v in given.items()}

    def ask(q: Question) -> str | None:
        value = given.get(q.id, by_text.get(question_key(q.question)))
        if isinstance(value, int) and not isinstance(value, bool):
            return q.options[value - 1] if 1 <= value <= len(q.options) else None
        return value if isinstance(value, str) and value.strip() else None
    return ask


def chain(*sources: AnswerSource) -> AnswerSource:
    """The first source's answer that is not None."""
    def ask(q: Question) -> str | None:
        return next((a for a in (s(q) for s in sources) if a is not None and a.strip()), None)
    return ask


# ------------------------------------------------------------------------------ the stage
def propose_discuss(run: Run, subject_text: str, slug: str, existing_decisions: list[Decision],
                    answer_source: AnswerSource | None = None, *, spec_name: str | None = None) -> Proposal:
    """Ask for the open questions of ``subject_text`` (a request, or the spec ``spec_name``),
    answer each through ``answer_source`` (default: ``run.ui.choose``) and propose
    ``specs/<slug>.context.md`` with the decisions merged over ``existing_decisions``; no
    file when nothing new was decided. Raises ``NotWritten`` when the answer does not fit
    (its raw text kept in the run log) or no question was answered."""
    rel = context_path(slug)
    target(run.root, rel)
    what = f"The specification (`{spec_name}`)" if spec_name else "The feature request"
    answer = run.ask(with_sections(discuss_messages(subject_text, what, existing_decisions, JSON_ANSWER_FORMAT),
                                   gather(run.root, slug=slug, include=("invariants", "ledger", "files"))))
    try:
        questions = parse_questions(answer)
    except answers.AnswerError as exc:
        raise run.gave_up(str(exc)) from None
    asked = undecided(questions, existing_decisions)
    notes = [f"{len(questions) - len(asked)} question(s) already decided in {rel} were not asked again"] \
        if len(asked) < len(questions) else []
    source = answer_source or ui_source(run.ui)
    new: list[Decision] = []
    left_open: list[Question] = []
    for q in asked:
        reply = source(q)
        if reply is not None and reply.strip():
            new.append(decide(q, reply))
        else:
            left_open.append(q)
    notes += [f"left open: {shown(q.id)}: {shown(q.question)} (options: {'; '.join(map(shown, q.options))})"
              for q in left_open]
    if left_open and not new:
        run.record([])
        raise NotWritten(f"none of the {len(left_open)} question(s) was answered; nothing written", notes)
    if not new:
        notes.append(f"nothing left to discuss; the {len(existing_decisions)} decision(s) in {rel} stand"
                     if existing_decisions else "the model found nothing left open; nothing to write")
        return Proposal("discuss", [], notes)
    text = context_markdown(slug, spec_name or subject_text, merge(existing_decisions, new))
    return Proposal("discuss", [(rel, text)], notes)


def decisions_section(root: Path, slug: str) -> str:
    """The decisions of feature ``slug`` as a section of a later stage's prompt (contract,
    slice, update): read from ``specs/<slug>.context.md`` in workspace ``root``. Empty when
    there is no such file, it cannot be read, or it holds no decision; never raises."""
    rel = context_path(slug)
    try:
        found = resolve_inside(root, rel) if gen.valid_slug(slug) else None
        if found is None or not found.real.is_file() or found.real.stat().st_size > MAX_CONTEXT_BYTES:
            return ""
        text = found.real.read_text("utf-8")
    except (OSError, UnicodeDecodeError, PathRefused):
        return ""
    return prompt_section(read_decisions(text), f"Decisions already made for this feature (`{rel}`): "
                                                "follow them, do not argue them again")


# ------------------------------------------------------------------------------ the command
def add_parser(kinds) -> argparse.ArgumentParser:
    d = kinds.add_parser("discuss", help="ask the open questions of a request or spec; write specs/<slug>.context.md")
    d.add_argument("subject", metavar="SPEC.md|REQUEST", help="a spec file, or the feature request in quotes")
    d.add_argument("--slug", help="the feature's name (kebab-case; default: the spec's name, or from the request)")
    d.add_argument("--answers", metavar="FILE.json", help="answers without a terminal: a JSON object, question id -> answer")
    d.add_argument("--recommended", action="store_true",
                   help="answer what is not otherwise answered with the recommended (else first) option")
    d.add_argument("--yes", action="store_true", help="write without asking")
    return d


def _answers_file(arg: str) -> dict[str, object]:
    name = shown(arg)
    try:
        given = json.loads(Path(arg).read_bytes().decode("utf-8"))
    except OSError as exc:
        raise Usage(f"--answers {name}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise Usage(f"--answers {name}: not a JSON file: {exc}") from None
    if not isinstance(given, dict) or not all(isinstance(v, (str, int)) and not isinstance(v, bool)
                                              for v in given.values()):
        raise Usage(f"--answers {name}: expected a JSON object of question id -> answer (a string, or an "
                    "option's number from 1)")
    return given


def run_discuss(root: Path, args: argparse.Namespace) -> int:
    spec_name = None
    if args.subject.lower().endswith(".md"):
        subject, name = gen.read_spec(args.subject)
        slug = args.slug if args.slug is not None else name[:-3]
        spec_name = shown(args.subject)
    else:
        subject = args.subject.strip()
        if not subject:
            raise Usage("the feature request is empty")
        slug = args.slug if args.slug is not None else gen.slug_from_request(subject)
    if not gen.valid_slug(slug):
        raise Usage(f"--slug {shown(slug)}: use kebab-case (lower-case letters, digits and dashes)")
    given = _answers_file(args.answers) if args.answers else None
    if given is None and not args.recommended and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise NotWritten("no terminal to ask the questions: pass --answers FILE.json (a JSON object, question id "
                         "-> answer) or --recommended (each question's recommended option, else its first)")
    rel = context_path(slug)
    old = current_text(rel, target(root, rel))
    run = Run(root, "discuss", model_config(root))
    sources = [file_source(given)] if given is not None else []
    sources += [recommended_source] if args.recommended else []
    proposal = propose_discuss(run, subject, slug, read_decisions(old) if old else [],
                               chain(*sources, ui_source(run.ui)), spec_name=spec_name)
    return gen._offer_all(run, proposal, args.yes)
