"""What every LLM stage shares (``generate spec|contract|discuss|slice|update``, the editor's
stage commands): one :class:`Run` that asks the model, keeps its raw answers and logs the
run; the answer formats the prompts state; and the confined, approved, atomic write of a
proposed file (``target``, ``offer``, ``write``).

A stage is written against :class:`Run` and :class:`StageUI`, never against a terminal or
an editor: the command line passes :class:`TerminalUI` (progress on stderr, questions
typed at the terminal) and the language server its own (``$/progress``,
``window/showMessageRequest``). Cancelling is the ``cancel`` event of the UI: the request
in flight is aborted and nothing is written.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.runs import make_record

from . import llm, runs_cli
from .approval import approved, replace_file
from .engine.workspace import find_project_root
from .stages_paths import ResolvedPath as Resolved, resolve_inside

EXIT_OK, EXIT_NOT_WRITTEN, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

# the answer formats, in the words of docs/stages.md
JSON_ANSWER_FORMAT = (
    "Answer with one JSON object. You may put it in a fenced block that starts with ```json.\n"
    "Anything before or after the object is ignored; if you write more than one object, only\n"
    "the first is read.")
FILES_ANSWER_FORMAT = (
    "Give every file as a fenced code block whose info string names its path relative to the\n"
    "project root, for example ```ts path=src/api/notes.ts, with the file's complete content\n"
    "inside. Give each path once. If a file itself contains ``` fences, open and close its\n"
    "block with ```` (four backticks). Alternatively, answer with one JSON object\n"
    '{"files": [{"path": "...", "content": "..."}]}, every entry with both keys.')


class Usage(Exception):
    """A usage or set-up error: exit 2, the message printed as it is."""


class NotWritten(Exception):
    """The stage ended without writing (declined, an answer that does not fit): exit 1.
    ``details``: lines to show before the message (the problems still there)."""

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.details = list(details or ())


@dataclass
class Proposal:
    """What a stage proposes to write: ``files`` as (workspace-relative path, full text),
    in order, each already confined; ``notes`` to show the user (never errors)."""

    stage: str
    files: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)


class StageUI(Protocol):
    """How a stage talks to the person running it."""

    cancel: threading.Event

    def status(self, message: str) -> None:
        """A line of progress ("asking openai/gpt-4o-mini...")."""

    def received(self, chars: int) -> None:
        """The answer streaming in: characters received so far."""

    def choose(self, question: str, options: list[str]) -> str | None:
        """One of ``options`` (or free text where the UI allows it); None: no answer."""


class TerminalUI:
    """The command line's UI: progress on stderr (the character count only at a terminal)
    and questions asked at the terminal."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self._tty = sys.stderr.isatty()
        self._counting = False

    def status(self, message: str) -> None:
        self._end_count()
        print(message, file=sys.stderr, flush=True)

    def received(self, chars: int) -> None:
        if self._tty:
            self._counting = True
            print(f"\r  {chars:,} characters received", end="", file=sys.stderr, flush=True)

    def _end_count(self) -> None:
        if self._counting:
            print(file=sys.stderr)
            self._counting = False

    def choose(self, question: str, options: list[str]) -> str | None:
        self._end_count()
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return None
        print(question)
        for i, option in enumerate(options, 1):
            print(f"  {i}. {option}")
        try:
            reply = input(f"Choose 1-{len(options)}, or type your own answer: ").strip()
        except EOFError:
            return None
        if reply.isdigit() and 1 <= int(reply) <= len(options):
            return options[int(reply) - 1]
        return reply or None


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


@dataclass
class Run:
    """One stage run: its id, the model's answers in order, the hash source of its prompt."""

    root: Path
    stage: str
    config: llm.LLMConfig
    ui: StageUI = field(default_factory=TerminalUI)
    run_id: str = field(default_factory=new_run_id)
    prompt: str = ""
    answers: list[str] = field(default_factory=list)

    def ask(self, messages: list[dict[str, str]]) -> str:
        """The model's answer to ``messages``. Raises ``llm.LLMError`` (``LLMCancelled``
        when the UI's cancel event is set) and ``KeyboardInterrupt``."""
        if not self.prompt:
            self.prompt = json.dumps(messages, ensure_ascii=False, sort_keys=True)
        rounds = f" (repair round {len(self.answers)})" if self.answers else ""
        self.ui.status(f"asking {self.config.model}{rounds}...")
        try:
            text = llm.complete(messages, config=self.config, cancel=self.ui.cancel, on_progress=self.ui.received)
        except KeyboardInterrupt:
            self.ui.cancel.set()
            raise
        finally:
            end = getattr(self.ui, "_end_count", None)
            if end is not None:
                end()
        self.answers.append(text)
        return text

    def keep_answers(self) -> str:
        """The run's raw answers in ``.specward/runs/<run_id>.answer.txt``; the path shown."""
        rel = f"{runs_cli.FOLDER}/runs/{self.run_id}.answer.txt"
        parts = [f"===== answer {i} of {len(self.answers)} =====\n{a}\n" for i, a in enumerate(self.answers, 1)]
        try:
            target = resolve_inside(self.root, rel)
            target.real.parent.mkdir(parents=True, exist_ok=True)
            resolve_inside(self.root, rel)  # again, now that the folders exist
            fd = os.open(target.real, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write("".join(parts))
        except (OSError, PathRefused) as exc:
            return f"(could not keep the raw answer in {rel}: {exc})"
        return rel

    def record(self, files: list[str], **extra) -> None:
        """Append the run to ``.specward/runs.jsonl`` (nothing when the model was never
        asked); ``extra`` goes to ``make_record`` (score, dimensions, verdict, findings)."""
        if not self.answers:
            return
        rec = make_record(self.run_id, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), self.stage,
                          self.config.model, self.prompt, files, **extra)
        try:
            runs_cli.append_run(self.root, rec)
        except (runs_cli.RunLogError, ValueError) as exc:
            print(f"specward: warning: the run was not logged: {exc}", file=sys.stderr)


def project_root() -> Path:
    """The project of the current folder (the current folder when there is no marker)."""
    cwd = Path.cwd().resolve()
    hit = find_project_root(cwd)
    return hit[0] if hit is not None else cwd


def model_config() -> llm.LLMConfig:
    # a workspace's configuration may name a model (never an API base or key); the
    # configuration schema has no such key yet, so only the user's settings count here
    return llm.load_config()


def target(root: Path, rel: str) -> Resolved:
    """``rel`` confined to the workspace, not protected and not a folder; ``Usage`` else."""
    try:
        found = resolve_inside(root, rel)
    except PathRefused as exc:
        raise Usage(f"{rel}: {exc.reason}") from None
    if found.protected:
        raise Usage(f"{rel}: refused: it reaches a protected path ({found.protected})")
    if found.real.is_dir():
        raise Usage(f"{rel}: is a folder")
    return found


def current_text(rel: str, found: Resolved) -> str | None:
    """What the file holds now (None when it does not exist)."""
    try:
        return found.real.read_text("utf-8") if found.real.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise Usage(f"{rel}: cannot read the existing file: {exc}") from None


def offer(root: Path, rel: str, found: Resolved, text: str, yes: bool) -> bool | None:
    """Show the diff and write when approved: True written, False already up to date,
    None not written."""
    old = current_text(rel, found)
    if old == text:
        print(f"{rel}: already up to date", file=sys.stderr)
        return False
    if not approved(rel, old, text, yes):
        return None
    write(root, rel, text)
    print(f"wrote {rel}", file=sys.stderr)
    return True


def write(root: Path, rel: str, text: str) -> None:
    """Write through a temporary file in the checked folder and a rename (which replaces a
    link rather than following it), the target checked again once its folder exists."""
    first = target(root, rel)
    try:
        first.real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Usage(f"{rel}: cannot create its folder: {exc.strerror or exc}") from None
    again = target(root, rel)
    try:
        replace_file(again.real, text)
    except OSError as exc:
        raise Usage(f"{rel}: cannot write: {exc.strerror or exc}") from None
