"""The loop every stage that generates code shares (``generate slice``, ``generate update``):
ask the model for files, confine every path it proposes, judge all the files together with
specward's own checks (``Tools.check_files``: the index as it would be if they were
written, nothing written), add the stage's own verification (the plan's promises, stubs),
and send the problems back, grouped by file, for at most ``MAX_REPAIRS`` repair cycles.

What comes out is a :class:`Generated`: the files to propose, the ones that reach a
protected path (written only when the user confirms each), the findings of the last round
and the problems still there. Nothing here writes a file or asks the user anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from specward.analyzers.stages import answers
from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.score import MUST_PASS_CODES

from .agent_tools import ToolError, Tools
from .stage_run import FILES_ANSWER_FORMAT, Run
from .stages_paths import resolve_inside

MAX_REPAIRS = 3
MAX_PROBLEMS_SENT = 60  # per repair message: the first ones, then a count

# (files as rel -> text, their facts) -> problems as (rel or "", message)
Verify = Callable[[dict[str, str], dict], list[tuple[str, str]]]


@dataclass
class Generated:
    files: dict[str, str] = field(default_factory=dict)  # confined path -> full text, in the answer's order
    protected: dict[str, str] = field(default_factory=dict)  # path -> why it is protected
    results: list[dict] = field(default_factory=list)  # Tools.check_files, one per judged file
    facts: dict = field(default_factory=dict)  # path -> FileFacts (None: not a source file)
    problems: list[tuple[str, str]] = field(default_factory=list)  # still there after the last round
    rounds: int = 0  # repair rounds used

    @property
    def finding_codes(self) -> list[str]:
        return [f["code"] for r in self.results for f in r["findings"]]


class WithContract:
    """``Tools`` whose ``check_files`` judges the files with ``extra`` (a new contract's
    text, by path) in place too, its own results left out unless it is one of the files;
    everything else goes to ``tools`` (the slice's plan and project map, on the index as it
    is). For a stage whose files must be judged against the contract it is about to write
    (``update``, "Implement this endpoint")."""

    def __init__(self, tools, extra: dict[str, str]) -> None:
        self._tools = tools
        self._extra = extra

    def check_files(self, files: dict[str, str], facts: dict | None = None) -> list[dict]:
        results = self._tools.check_files({**self._extra, **files}, facts=facts)
        return [r for r in results if r["path"] not in self._extra or r["path"] in files]

    def overlay(self, files: dict[str, str]):
        return self._tools.overlay({**self._extra, **files})

    def __getattr__(self, name: str):
        return getattr(self._tools, name)


def read_files(root, text: str) -> tuple[dict[str, str], dict[str, str], list[tuple[str, str]]]:
    """The answer's files confined to the workspace: (accepted path -> text, protected
    path -> reason, refused as (path as written, why)). :class:`answers.AnswerError`
    when the answer fits no files format."""
    files: dict[str, str] = {}
    protected: dict[str, str] = {}
    refused: list[tuple[str, str]] = []
    for f in answers.generated_files(text):
        try:
            found = resolve_inside(root, f.path)
        except PathRefused as exc:
            refused.append((f.path[:200], exc.reason))
            continue
        if found.real.is_dir():
            refused.append((found.path, "is a folder"))
            continue
        files[found.path] = f.content
        if found.protected:
            protected[found.path] = found.protected
    return files, protected, refused


def _problems(results: list[dict]) -> list[tuple[str, str]]:
    """The findings the model must fix: errors, and every must-pass code whatever its
    severity."""
    out = []
    for r in results:
        for f in r["findings"]:
            if f["severity"] == "error" or f["code"] in MUST_PASS_CODES:
                out.append((r["path"], f"line {f['line']}: {f['severity']}[{f['code']}] {f['message']}"))
    return out


def repair_message(problems: list[tuple[str, str]]) -> dict[str, str]:
    """The follow-up that sends the problems back, grouped by file."""
    by_file: dict[str, list[str]] = {}
    for rel, msg in problems:
        by_file.setdefault(rel or "(the answer)", []).append(msg)
    lines, sent = [], 0
    for rel, msgs in by_file.items():
        lines.append(f"{rel}:")
        for m in msgs:
            if sent < MAX_PROBLEMS_SENT:
                lines.append(f"  - {m}")
            sent += 1
    if sent > MAX_PROBLEMS_SENT:
        lines.append(f"... and {sent - MAX_PROBLEMS_SENT} more")
    listed = "\n".join(lines)
    return {"role": "user", "content": (
        f"specward checked the files and found these problems:\n{listed}\n\n"
        "Fix every problem and give ALL the files again, each complete (not only the changed ones).\n\n"
        f"{FILES_ANSWER_FORMAT}")}


def generate_files(run: Run, messages: list[dict[str, str]], tools: Tools, verify: Verify | None = None,
                   max_repairs: int = MAX_REPAIRS, allowed: Callable[[str], str | None] | None = None,
                   on_problems: Callable[[list[tuple[str, str]]], None] | None = None) -> Generated:
    """Ask, check, repair: the last round's files with what is still wrong. ``allowed``
    (path -> why it may not be written, or None) lets a stage narrow where files may go
    (``update`` writes only the affected files). Raises ``llm.LLMError`` (a cancelled or
    failed request) and ``answers.AnswerError`` when even the last answer holds no files.
    ``on_problems`` hears of every round that had problems (the slice raises its depth)."""
    out = Generated()
    for round_ in range(1 + max_repairs):
        answer = run.ask(messages)
        problems: list[tuple[str, str]] = []
        try:
            files, protected, refused = read_files(run.root, answer)
        except answers.AnswerError as exc:
            if round_ == max_repairs:
                raise
            files, protected, refused = {}, {}, []
            problems.append(("", str(exc)))
        problems += [(path, f"refused: {why}; give paths relative to the project root, inside it")
                     for path, why in refused]
        if allowed is not None:
            for rel in list(files):
                why = allowed(rel)
                if why is not None:
                    problems.append((rel, f"not written: {why}"))
                    del files[rel]
                    protected.pop(rel, None)
        if files:
            facts: dict = {}
            try:
                results = tools.check_files(files, facts=facts)
            except ToolError as exc:
                results = []
                problems.append(("", str(exc)))
            problems += _problems(results)
            if verify is not None:
                problems += verify(files, facts)
            out = Generated(files, protected, results, facts, [], round_)
        elif not problems:
            problems.append(("", "the answer holds no file"))
        out.problems = problems
        out.rounds = round_
        if not problems:
            break
        if on_problems is not None:
            on_problems(problems)
        if round_ < max_repairs:
            messages = [*messages, {"role": "assistant", "content": answer}, repair_message(problems)]
    return out
