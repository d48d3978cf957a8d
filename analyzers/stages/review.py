"""The review dimension of the harness score (issue 15, ``docs/stages.md``, ``docs/score.md``):
three fixed passes, the prompt of each, and the reading of an answer. Pure: text in, a
:class:`score.ReviewPass` out (the model is asked by ``server/score_cli.py``).

Each pass judges one criterion (``architecture``: architecture and contract compliance;
``correctness``: correctness and edge cases; ``impact``: impact and breaking changes) and
answers with one JSON object ``{"criterion": ..., "score": ..., "reason": ...}`` whose score
is one of the anchors 0.25, 0.5, 0.75, 1.0. :func:`parse_review` is strict: a missing or
other criterion, a score that is not exactly an anchor (a string, 0.8, true) or an empty
reason is a :class:`ReviewError` that says what was expected and what was found, never
quoting more than 40 characters of the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from .answers import AnswerError, first_json_object
from .score import REVIEW_ANCHORS, REVIEW_CRITERIA, ReviewPass, ScoreError

CRITERIA: tuple[str, ...] = ("architecture", "correctness", "impact")
assert set(CRITERIA) == set(REVIEW_CRITERIA)

# What each pass looks at, written out in its prompt.
CHECKS: dict[str, tuple[str, ...]] = {
    "architecture": (
        "Every endpoint the code implements or calls is declared in the contract, with the same method and path.",
        "Request and response bodies use the contract's models and field names; no field is invented or dropped.",
        "The code follows the project's structure: files in the layer they belong to, no module reaching "
        "around a boundary (a component talking to the database, a route handler holding view code).",
        "Imports name modules and packages that exist; nothing is duplicated that the project already has.",
    ),
    "correctness": (
        "The code does what the contract and the spec say, on the normal path.",
        "Edge cases are handled: empty input and empty lists, missing or invalid fields, not found, "
        "duplicates, limits, concurrent requests where they matter.",
        "Errors are handled and reported with the status codes the contract declares; no error is swallowed.",
        "Asynchronous code awaits what it must; resources are released; no obvious injection or leak of data.",
    ),
    "impact": (
        "Existing callers keep working: no endpoint, field, export or function signature others use is "
        "removed or changed incompatibly without the contract saying so.",
        "Changes of the contract (a new required field, a renamed path) come with the changes of every "
        "caller and implementation they reach.",
        "Stored data, configuration and migrations stay compatible, or the change says how to migrate.",
        "Nothing outside the slice is changed without a reason.",
    ),
}

# What each anchored score means, the same for every pass.
ANCHORS: tuple[tuple[float, str], ...] = (
    (1.0, "meets the criterion fully: nothing to change"),
    (0.75, "meets it with minor problems: small fixes, none that a user or a caller would notice"),
    (0.5, "significant problems: at least one thing must be fixed before this is merged"),
    (0.25, "fails the criterion: wrong or broken in a way that matters"),
)
assert tuple(sorted(a for a, _ in ANCHORS)) == REVIEW_ANCHORS

# The JSON answer format of docs/stages.md, word for word (as server/stage_run.py states it).
JSON_ANSWER_FORMAT = (
    "Answer with one JSON object. You may put it in a fenced block that starts with ```json.\n"
    "Anything before or after the object is ignored; if you write more than one object, only\n"
    "the first is read.")

CHARS_PER_TOKEN = 4  # a rough, conservative estimate for code
DEFAULT_TOKEN_BUDGET = 24_000  # for the files and the contract of one pass


class ReviewError(ScoreError):
    """A review answer that does not fit: what was expected, what was found."""


def system_prompt(criterion: str) -> str:
    """The instructions of one pass: the criterion, what to check, the anchors and the
    answer format."""
    if criterion not in REVIEW_CRITERIA:
        raise ReviewError(f"unknown review criterion {criterion!r} (known: {', '.join(CRITERIA)})")
    checks = "\n".join(f"- {c}" for c in CHECKS[criterion])
    anchors = "\n".join(f"- {a:g}: {meaning}" for a, meaning in ANCHORS)
    example = json.dumps({"criterion": criterion, "score": 0.75, "reason": "..."})
    return (
        f"You review generated code for one criterion only: {REVIEW_CRITERIA[criterion]}.\n"
        f"Judge only this criterion; other reviews cover the others.\n\nCheck:\n{checks}\n\n"
        f"Choose exactly one of these scores:\n{anchors}\n\n"
        "No other value is accepted (not 0, not 0.8, not a string). Give the reason in one to five "
        "sentences, naming the files and lines that decided the score.\n\n"
        f"{JSON_ANSWER_FORMAT}\n"
        f'The object has exactly the keys "criterion" (the string "{criterion}"), "score" (a number) and '
        f'"reason" (a non-empty string), for example:\n{example}')


@dataclass(frozen=True)
class Bounded:
    """Files cut to a budget: ``text`` to send, and the paths ``cut`` short or ``left_out``."""

    text: str
    cut: tuple[str, ...]
    left_out: tuple[str, ...]


def bound_files(files: Sequence[tuple[str, str]], max_tokens: int) -> Bounded:
    """``files`` (path, text), in order, each as a fenced block headed by its path, within
    ``max_tokens`` (estimated at :data:`CHARS_PER_TOKEN` characters a token). A file that
    does not fit whole is cut at a line end, with a note; once the budget is spent the
    remaining files are listed as left out."""
    budget = max(0, max_tokens) * CHARS_PER_TOKEN
    parts: list[str] = []
    cut: list[str] = []
    left: list[str] = []
    for path, text in files:
        fence = "````" if "```" in text else "```"
        head, tail = f"{fence} path={path}\n", ("" if text.endswith("\n") or not text else "\n") + f"{fence}\n"
        cost = len(head) + len(text) + len(tail)
        if cost <= budget:
            parts.append(head + text + tail)
            budget -= cost
            continue
        room = budget - len(head) - len(tail) - 80
        if room < 200:
            left.append(path)
            budget = 0
            continue
        piece = text[:room]
        piece = piece[:piece.rfind("\n") + 1] or piece
        parts.append(head + piece + f"{fence}\n(cut: {len(text) - len(piece)} more characters not shown)\n")
        cut.append(path)
        budget = 0
    if left:
        parts.append("(left out, over the size limit: " + ", ".join(left) + ")\n")
    return Bounded("\n".join(parts), tuple(cut), tuple(left))


def review_messages(criterion: str, files: Sequence[tuple[str, str]], contract: Sequence[tuple[str, str]],
                    max_tokens: int = DEFAULT_TOKEN_BUDGET) -> list[dict[str, str]]:
    """The messages of one pass: its instructions, then the contract and the run's files
    (the contract first; it takes at most a third of the budget)."""
    contract_part = bound_files(contract, max_tokens // 3)
    spent = len(contract_part.text) // CHARS_PER_TOKEN
    files_part = bound_files(files, max_tokens - spent)
    user = ("The contract:\n\n" + (contract_part.text or "(no contract)\n")
            + "\nThe generated files:\n\n" + (files_part.text or "(no file)\n")
            + f"\nReview them for {REVIEW_CRITERIA[criterion]}.")
    return [{"role": "system", "content": system_prompt(criterion)}, {"role": "user", "content": user}]


def _label(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_review(criterion: str, answer_text: str) -> ReviewPass:
    """The pass an answer gives: its first JSON object, with ``criterion`` equal to the
    pass's, ``score`` exactly one of the anchors and a non-empty ``reason``;
    :class:`ReviewError` otherwise."""
    if criterion not in REVIEW_CRITERIA:
        raise ReviewError(f"unknown review criterion {criterion!r} (known: {', '.join(CRITERIA)})")
    anchors = ", ".join(f"{a:g}" for a in REVIEW_ANCHORS)
    expected = (f'expected one JSON object {{"criterion": "{criterion}", "score": one of {anchors}, '
                '"reason": "..."}')
    try:
        obj = first_json_object(answer_text)
    except AnswerError as exc:
        raise ReviewError(f"the {criterion} review does not fit: {expected}; found {exc.found}") from None
    problems = []
    missing = [k for k in ("criterion", "score", "reason") if k not in obj]
    if missing:
        keys = ", ".join(_label(k) for k in list(obj)[:8]) or "none"
        problems.append(f"no {', '.join(repr(k) for k in missing)} key (keys: {keys})")
    got = obj.get("criterion", criterion)
    if got != criterion:
        problems.append(f"criterion {_label(got)} instead of {criterion!r}")
    score = obj.get("score")
    if "score" in obj and (isinstance(score, bool) or not isinstance(score, (int, float))
                           or float(score) not in REVIEW_ANCHORS):
        problems.append(f"score {_label(score)} is not one of the anchors {anchors}")
    reason = obj.get("reason")
    if "reason" in obj and (not isinstance(reason, str) or not reason.strip()):
        problems.append("an empty reason" if isinstance(reason, str) else f"reason {_label(reason)} is not text")
    if problems:
        raise ReviewError(f"the {criterion} review does not fit: {expected}; found " + "; ".join(problems))
    return ReviewPass(criterion, float(score), reason.strip())
