"""The Discuss stage's pure parts (issue 15, ``docs/stages.md``, "Discuss"): before a
contract or a slice, the model lists the gray areas of a request or a spec (session
handling, error format, pagination, validation, limits...) as concrete questions with
options; the user's answers become ``specs/<slug>.context.md``, which every later prompt
of the feature includes, so a decision is never argued again.

- :func:`discuss_messages`: the prompt, with the decisions already made (the model is told
  not to ask them again) and the JSON answer format the caller states.
- :func:`parse_questions`: the model's questions, read tolerantly but bounded.
- :func:`undecided`: the questions whose text matches no decision (asked; the rest dropped).
- :func:`context_markdown` / :func:`read_decisions`: the context file, written and read
  back (hand edits tolerated).
- :func:`merge`: a later run's decisions over the earlier ones.
- :func:`prompt_section`: the decisions as a section of a later stage's prompt.

Decisions:

- The answer is one JSON object ``{"questions": [...]}`` (``answers.first_json_object``);
  an entry's options may be strings or objects with a ``label`` (or ``text``, ``value``,
  ``option``, ``title``); ``question`` may also be spelled ``text`` or ``title``. Options
  are stripped, empty ones dropped, duplicates (case-insensitively) dropped, at most
  ``MAX_OPTIONS`` kept; an entry with fewer than two options is dropped; at most
  ``MAX_QUESTIONS`` are kept. ``{"questions": []}`` means nothing is open; entries of
  which none is usable, or no ``questions`` list, are an :class:`AnswerError`.
- A question's id is the one the model gives (made safe: letters, digits, ``-_.``), else
  one made from the question; ids are unique in a run (``-2``, ``-3`` added).
- Questions and decisions are matched by their question text (case, spaces and
  punctuation ignored), never by id alone: a model's ``q1`` in one run is not the ``q1``
  of another.
- The context file is Markdown for people: one ``## <question>`` section per decision
  with an ``<!-- id: ... -->`` line, a ``**Decision:**`` line and the options not chosen
  as a list. Reading it back tolerates edited prose, missing ids, ``Decision:`` or
  ``Answer:`` without bold, a multi-line answer, and skips a section without a decision
  (its question will be asked again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .answers import AnswerError, first_json_object

MAX_QUESTIONS = 8
MIN_OPTIONS, MAX_OPTIONS = 2, 5
MAX_TEXT = 300  # longest question or option kept, in characters

EXPECTED = 'a JSON object {"questions": [{"id", "question", "options": [2-5 strings], "recommended"?}]}'

DISCUSS_SYSTEM = (
    "You are a senior engineer reviewing a feature before it is designed. You find the decisions "
    "the request leaves open and ask them as short, concrete multiple-choice questions.")

_OPTION_KEYS = ("label", "text", "value", "option", "title", "name")
_QUESTION_KEYS = ("question", "text", "title", "prompt")


@dataclass(frozen=True)
class Question:
    """One open question: ``options`` (2 to 5, distinct), ``recommended`` one of them or None."""

    id: str
    question: str
    options: tuple[str, ...]
    recommended: str | None = None


@dataclass(frozen=True)
class Decision:
    """A question answered: ``answer`` (an option or the user's own text) and ``others``,
    the options not chosen."""

    id: str
    question: str
    answer: str
    others: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ matching
def question_key(text: str) -> str:
    """What two spellings of one question share: case, spaces and punctuation ignored."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def _safe_id(raw: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw).strip("-.")[:60].strip("-.")


def _id_from(question: str) -> str:
    words = re.findall(r"[a-z0-9]+", question.lower())
    return "-".join(words[:5]) or "question"


def _unique(ident: str, taken: set[str]) -> str:
    out, n = ident, 1
    while out in taken:
        n += 1
        out = f"{ident}-{n}"
    taken.add(out)
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------------ the prompt
def prompt_section(decisions: list[Decision], heading: str = "Decisions already made for this feature") -> str:
    """The decisions as a prompt section (empty when there are none): one line per
    decision, question and answer."""
    if not decisions:
        return ""
    lines = [f"- {_one_line(d.question)} -> {_one_line(d.answer)}" for d in decisions]
    return f"{heading}:\n" + "\n".join(lines)


def discuss_messages(subject: str, subject_name: str, decisions: list[Decision],
                     answer_format: str) -> list[dict[str, str]]:
    """The Discuss prompt: the request or spec (``subject_name`` says which), the
    decisions already made, what to ask and in which shape, ``answer_format`` verbatim."""
    decided = prompt_section(decisions, "Already decided (do not ask these again, nor anything they settle)")
    user = (
        f"{subject_name}:\n\n<<<SUBJECT\n{subject.strip()}\nSUBJECT>>>\n\n"
        "List the gray areas of this feature: the decisions it leaves open that change the API or the "
        "code, such as session handling, the error format, pagination, validation rules, limits, "
        "ordering, identifiers, concurrency, deletion. Ask each as one concrete question with 2 to 5 "
        f"short options, at most {MAX_QUESTIONS} questions, the most consequential first. Mark the "
        "option you recommend, when you have a reason to. Do not ask what the text already answers.\n\n"
        + (f"{decided}\n\n" if decided else "")
        + 'The shape: {"questions": [{"id": "kebab-case-id", "question": "...?", '
          '"options": ["...", "..."], "recommended": "one of the options (optional)"}]}. '
          'When nothing is left open, answer {"questions": []}.\n\n'
        + answer_format)
    return [{"role": "system", "content": DISCUSS_SYSTEM}, {"role": "user", "content": user}]


# ------------------------------------------------------------------------------ the answer
def _text(value: Any, keys: tuple[str, ...]) -> str:
    if isinstance(value, dict):
        value = next((value[k] for k in keys if isinstance(value.get(k), (str, int, float))), "")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return _one_line(str(value))[:MAX_TEXT]


def _options(raw: Any) -> tuple[list[str], str | None]:
    """The options, cleaned, and the one an option object marks as recommended."""
    out: list[str] = []
    seen: set[str] = set()
    marked = None
    for entry in raw if isinstance(raw, list) else ():
        label = _text(entry, _OPTION_KEYS)
        if not label or label.casefold() in seen:
            continue
        seen.add(label.casefold())
        out.append(label)
        if isinstance(entry, dict) and entry.get("recommended") is True and marked is None:
            marked = label
    return out[:MAX_OPTIONS], marked


def _recommended(raw: Any, options: list[str]) -> str | None:
    if isinstance(raw, int) and not isinstance(raw, bool):  # an index, 0- or 1-based is unknowable:
        return None                                          # only a label is taken
    label = _text(raw, _OPTION_KEYS).casefold()
    return next((o for o in options if o.casefold() == label), None) if label else None


def parse_questions(answer_text: str) -> list[Question]:
    """The questions of a model's answer (see the module's docstring), or :class:`AnswerError`."""
    try:
        obj = first_json_object(answer_text)
    except AnswerError as exc:
        raise AnswerError(EXPECTED, exc.found) from None
    raw = obj.get("questions")
    if not isinstance(raw, list):
        keys = ", ".join(repr(k[:40]) for k in list(obj)[:8]) or "none"
        raise AnswerError(EXPECTED, f'a JSON object without a "questions" list (keys: {keys})')
    out: list[Question] = []
    taken: set[str] = set()
    keys_seen: set[str] = set()
    for entry in raw:
        if len(out) == MAX_QUESTIONS:
            break
        if not isinstance(entry, dict):
            continue
        text = _text(entry, _QUESTION_KEYS)
        options, marked = _options(entry.get("options", entry.get("choices")))
        key = question_key(text)
        if not key or len(options) < MIN_OPTIONS or key in keys_seen:
            continue
        keys_seen.add(key)
        rec = _recommended(entry.get("recommended"), options) or (marked if marked in options else None)
        ident = _safe_id(_text(entry.get("id"), ())) or _id_from(text)
        out.append(Question(_unique(ident, taken), text, tuple(options), rec))
    if raw and not out:
        raise AnswerError(EXPECTED, f"{len(raw)} question entr{'y' if len(raw) == 1 else 'ies'}, none with a "
                                    f"question and at least {MIN_OPTIONS} distinct options")
    return out


def undecided(questions: list[Question], decisions: list[Decision]) -> list[Question]:
    """The questions whose text matches no decision's, in order."""
    done = {question_key(d.question) for d in decisions}
    return [q for q in questions if question_key(q.question) not in done]


def decide(question: Question, answer: str) -> Decision:
    """``question`` answered with ``answer``: an option (matched case-insensitively, kept in
    the option's spelling) or the user's own text."""
    answer = _one_line(answer)
    chosen = next((o for o in question.options if o.casefold() == answer.casefold()), answer)
    return Decision(question.id, question.question, chosen, tuple(o for o in question.options if o != chosen))


def merge(old: list[Decision], new: list[Decision]) -> list[Decision]:
    """The earlier decisions, each replaced in place by a new one with the same question,
    then the other new ones; ids made unique (an earlier decision keeps its id)."""
    fresh = {question_key(d.question): d for d in new}
    out: list[Decision] = []
    for d in old:
        out.append(fresh.pop(question_key(d.question), d))
    out.extend(d for d in new if question_key(d.question) in fresh)
    taken: set[str] = set()
    unique = []
    for d in out:
        ident = _unique(d.id, taken)
        unique.append(d if ident == d.id else Decision(ident, d.question, d.answer, d.others))
    return unique


# ------------------------------------------------------------------------------ the file
def context_markdown(slug: str, subject: str, decisions: list[Decision]) -> str:
    """``specs/<slug>.context.md``: a heading, what the file is for, one section per decision."""
    parts = [
        f"# Decisions: {slug}\n",
        ("The open questions of this feature, answered with `specward generate discuss`. Every later "
         "stage of the feature (contract, slice, update) includes these decisions in its prompt: they "
         "are settled and not argued again. Edit a decision to change it; delete its section to have "
         "the question asked again.\n"),
        f"Subject: {_one_line(subject)[:MAX_TEXT]}\n",
    ]
    for d in decisions:
        section = f"## {_one_line(d.question)}\n\n<!-- id: {d.id} -->\n\n**Decision:** {_one_line(d.answer)}\n"
        if d.others:
            section += "\nOptions not chosen:\n\n" + "".join(f"- {_one_line(o)}\n" for o in d.others)
        parts.append(section)
    return "\n".join(parts)


_HEADING = re.compile(r"^#{2,3}[ \t]+(.+?)[ \t]*#*[ \t]*$")
_ID = re.compile(r"<!--\s*id\s*:\s*(\S+?)\s*-->", re.IGNORECASE)
_LABEL = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(decision|answer|chosen)(?:\*\*|__)?[ \t]*:[ \t]*"
                    r"(?:\*\*|__)?[ \t]*(.*)$", re.IGNORECASE)
_OTHERS = re.compile(r"^[ \t]*(?:\*\*|__)?(?:options not chosen|not chosen|other options|alternatives)"
                     r"(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*$", re.IGNORECASE)
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+(.+?)[ \t]*$")


def _section(lines: list[str]) -> tuple[str | None, str, list[str]]:
    """(id, answer, options not chosen) of one section's body lines."""
    ident = None
    answer: list[str] = []
    others: list[str] = []
    mode = ""
    for line in lines:
        if ident is None and (m := _ID.search(line)):
            ident = m.group(1)
            continue
        if m := _LABEL.match(line):
            mode, answer = "answer", [m.group(2).strip()] if m.group(2).strip() else []
        elif _OTHERS.match(line):
            mode = "others"
        elif not line.strip():
            mode = "" if mode == "answer" and answer else mode
        elif mode == "answer":
            answer.append(line.strip())
        elif mode == "others" and (b := _BULLET.match(line)):
            others.append(b.group(1))
    return ident, _one_line(" ".join(answer)), others


def read_decisions(markdown: str) -> list[Decision]:
    """The decisions of a context file (see the module's docstring for what is tolerated)."""
    out: list[Decision] = []
    taken: set[str] = set()
    sections: list[tuple[str, list[str]]] = []
    fence = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:  # an example in a fence is neither a heading nor a decision
            continue
        if m := _HEADING.match(line):
            sections.append((m.group(1), []))
        elif sections:
            sections[-1][1].append(line)
    for heading, body in sections:
        question = _one_line(re.sub(r"^(?:Q?\d+[.)]|Q:)\s*", "", heading))
        ident, answer, others = _section(body)
        if not answer or not question_key(question):
            continue
        ident = _safe_id(ident or "") or _id_from(question)
        out.append(Decision(_unique(ident, taken), question, answer, tuple(others)))
    return out
