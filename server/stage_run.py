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

import hashlib
import json
import os
import re
import secrets
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.runs import make_record

from . import llm, runs_cli
from .approval import approved, replace_file
from .engine.reading import read_data
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
    depth: Any = None  # the verification depth of a slice (score.DepthChoice)
    score: Any = None  # the slice's harness score before approval (score_cli.ScoreReport)


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


_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
STATE_VERSION = 1


def valid_run_id(run_id: str) -> bool:
    """A run id names files under ``.specward/``: letters, digits, ``_ . -``, no ``..``."""
    return bool(_RUN_ID.fullmatch(run_id)) and ".." not in run_id


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def specward_dir(root: Path, *parts: str) -> Path:
    """``root/.specward/<parts...>`` as a real folder of the workspace, created when
    missing: ``.specward`` itself as the run log creates it (with the facts cache's
    ``.gitignore``, never through a link), the folders below it through ``resolve_inside``.
    Raises ``runs_cli.RunLogError``, ``PathRefused`` or ``OSError``."""
    fd = runs_cli._open_folder(Path(root), create=True)
    try:
        runs_cli._write_ignore(fd)
    finally:
        os.close(fd)
    rel = "/".join((runs_cli.FOLDER, *parts))
    found = resolve_inside(root, rel)
    found.real.mkdir(parents=True, exist_ok=True)
    again = resolve_inside(root, rel)  # again, now that the folders exist
    if again.real != found.real or not again.real.is_dir():
        raise PathRefused(rel, "it changed while its folder was created")
    return again.real


class StateError(Exception):
    """A run state file that cannot be read back (missing, corrupt, of another version)."""


@dataclass
class RunState:
    """What a run has done, saved in ``.specward/runs/<run_id>.state.json`` after each
    completed step so that ``specward generate --resume RUN_ID`` continues it: the stage
    and its arguments, the first prompt (the run's prompt hash), the answers received (in
    order: a resumed run gives them again without asking) with the sha256 of the question
    each one answered (``asked``: an answer is given again only to the same question; a
    state saved before ``asked`` existed has none, and its answers are given by position),
    the steps completed (name -> JSON data, the stage's own) and the files written or found
    up to date (path -> sha256 of the text)."""

    run_id: str
    stage: str
    args: dict[str, Any] = field(default_factory=dict)
    prompt: str = ""
    answers: list[str] = field(default_factory=list)
    steps: dict[str, Any] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    done: bool = False
    asked: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"v": STATE_VERSION, "run_id": self.run_id, "stage": self.stage, "args": self.args,
                           "prompt": self.prompt, "answers": self.answers, "steps": self.steps,
                           "written": self.written, "done": self.done, "asked": self.asked},
                          ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> RunState:
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise StateError(f"not JSON ({exc}): a damaged or half-written file") from None
        if not isinstance(obj, dict) or obj.get("v") != STATE_VERSION:
            raise StateError(f"not a version-{STATE_VERSION} run state")
        kinds = {"run_id": str, "stage": str, "args": dict, "prompt": str, "answers": list, "steps": dict,
                 "written": dict, "done": bool}
        for key, kind in kinds.items():
            if not isinstance(obj.get(key), kind):
                raise StateError(f"`{key}` is missing or not a {kind.__name__}")
        if not valid_run_id(obj["run_id"]) or not all(isinstance(a, str) for a in obj["answers"]) \
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in obj["written"].items()):
            raise StateError("a field holds a value of the wrong kind")
        asked = obj.get("asked", [])
        if not isinstance(asked, list) or not all(isinstance(a, str) for a in asked) or len(asked) > len(obj["answers"]):
            raise StateError("`asked` must be a list of question hashes, no longer than `answers`")
        return cls(**{k: obj[k] for k in kinds}, asked=asked)


def state_rel(run_id: str) -> str:
    return f"{runs_cli.FOLDER}/runs/{run_id}.state.json"


def save_state(root: Path, state: RunState) -> None:
    """The state written atomically (a temporary file and a rename)."""
    folder = specward_dir(root, "runs")
    target = resolve_inside(root, state_rel(state.run_id))
    if target.real.parent != folder:
        raise PathRefused(state_rel(state.run_id), "not in the runs folder")
    replace_file(target.real, state.to_json())


def load_state(root: Path, run_id: str) -> RunState:
    """The saved state of run ``run_id``; ``Usage`` when there is none or it is damaged."""
    if not valid_run_id(run_id):
        raise Usage(f"{run_id!r}: not a run id")
    rel = state_rel(run_id)
    try:
        found = resolve_inside(root, rel)
    except PathRefused as exc:
        raise Usage(f"{rel}: {exc.reason}") from None
    data, why = read_data(str(root), found.real_rel, MAX_STATE_BYTES)
    if data is None:
        if not found.real.exists():
            raise Usage(f"no run {run_id} to resume: {rel} does not exist")
        raise Usage(f"{rel}: {why}")
    try:
        state = RunState.from_json(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Usage(f"{rel}: not UTF-8: a damaged file; the run cannot be resumed") from None
    except StateError as exc:
        raise Usage(f"{rel}: {exc}; the run cannot be resumed") from None
    if state.run_id != run_id:
        raise Usage(f"{rel}: it names another run ({state.run_id})")
    return state


MAX_STATE_BYTES = 64 * 1024 * 1024


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
    args: dict[str, Any] = field(default_factory=dict)
    state: RunState | None = None
    asked: list[str] = field(default_factory=list)  # the sha256 of each question, beside ``answers``

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = RunState(self.run_id, self.stage, dict(self.args))
        else:  # resumed: the run keeps its id, arguments and first prompt
            self.run_id, self.args = self.state.run_id, dict(self.state.args)
            self.prompt = self.prompt or self.state.prompt

    # -- the run's state, saved after each completed step (``--resume``)
    @property
    def resumed(self) -> bool:
        return bool(self.state and (self.state.answers or self.state.steps or self.state.written))

    def step(self, name: str) -> Any:
        """What step ``name`` saved in this run (or the run it resumes); None when it has
        not completed."""
        return self.state.steps.get(name) if self.state else None

    def save_step(self, name: str, data: Any) -> None:
        """Step ``name`` completed with ``data`` (JSON values): saved at once."""
        self.state.steps[name] = data
        self.save_state()

    def was_written(self, rel: str) -> str | None:
        """The sha256 of what this run wrote (or found up to date) at ``rel``, if it did."""
        return self.state.written.get(rel) if self.state else None

    def mark_written(self, rel: str, text: str) -> None:
        self.state.written[rel] = sha256_text(text)
        self.save_state()

    def finish(self) -> None:
        """The run is complete: nothing is left to resume."""
        self.state.done = True
        self.save_state()

    def save_state(self) -> None:
        if len(self.answers) > len(self.state.answers):  # a resumed run replays its answers first
            self.state.answers = list(self.answers)
            self.state.asked = list(self.asked)
        self.state.prompt = self.prompt or self.state.prompt
        try:
            save_state(self.root, self.state)
        except (OSError, PathRefused, runs_cli.RunLogError) as exc:
            print(f"specward: warning: the run's state was not saved (it cannot be resumed): {exc}",
                  file=sys.stderr)

    def ask(self, messages: list[dict[str, str]]) -> str:
        """The model's answer to ``messages``. Raises ``llm.LLMError`` (``LLMCancelled``
        when the UI's cancel event is set) and ``KeyboardInterrupt``. In a resumed run,
        the answers already received are given again in order, without asking, each only
        to the question it answered: from the first question that differs (the prompt's
        context changed since), the saved answers are dropped and the model is asked."""
        question = json.dumps(messages, ensure_ascii=False, sort_keys=True)
        if not self.prompt:
            self.prompt = question
        asked = hashlib.sha256(question.encode("utf-8", "surrogatepass")).hexdigest()
        i = len(self.answers)
        if self.state and i < len(self.state.answers):
            saved = self.state.asked[i] if i < len(self.state.asked) else None  # None: saved before `asked`
            if saved is None or saved == asked:
                text = self.state.answers[i]
                self.ui.status(f"answer {i + 1} already received (run {self.run_id}): not asked again")
                self.answers.append(text)
                self.asked.append(asked)
                return text
            self.ui.status(f"question {i + 1} differs from the one answered in run {self.run_id} (the workspace "
                           f"changed since?): its saved answer{'s' if len(self.state.answers) - i > 1 else ''} "
                           f"dropped, asking again")
            del self.state.answers[i:], self.state.asked[i:]
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
        self.asked.append(asked)
        self.save_state()
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

    def gave_up(self, message: str, details: list[str] | None = None, **extra) -> NotWritten:
        """The stage ends without writing: the raw answers kept, the run logged with no
        file (``extra``: the findings' codes), and the error to raise, which names where
        the answers are."""
        kept = self.keep_answers()
        self.record([], **extra)
        return NotWritten(f"{message}; the raw answers are in {kept}; nothing written", details)

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


def workspace_trusted(root: Path, env: dict[str, str] | None = None) -> bool:
    """Whether the user trusts the workspace ``root``: its folder (or one above it) is
    listed in ``trusted_workspaces`` of the user settings (``settings.toml``; ``~``
    expanded). Never something the workspace itself can say."""
    path = llm.settings_path(env)
    try:
        table = tomllib.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    listed = table.get("trusted_workspaces")
    if not isinstance(listed, list):
        return False
    real = os.path.realpath(root)
    for entry in listed:
        if isinstance(entry, str) and entry.strip():
            folder = os.path.realpath(os.path.expanduser(entry.strip()))
            if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
                return True
    return False


def model_config(root: Path | None = None, env: dict[str, str] | None = None) -> llm.LLMConfig:
    """The model: the environment, then the user settings, then (only in a workspace the
    user trusts, ``workspace_trusted``) the ``model`` of the workspace's configuration. A
    workspace never gives an API base or a key (the configuration schema rejects them)."""
    workspace_model = None
    if root is not None and workspace_trusted(root, env):
        from .engine.config import load_config

        workspace_model = load_config(Path(root)).settings.model
    return llm.load_config(env, workspace_model=workspace_model)


def target(root: Path, rel: str, allow_protected: bool = False) -> Resolved:
    """``rel`` confined to the workspace, not a folder, and not protected unless
    ``allow_protected`` (the caller then asks for the file's own confirmation); ``Usage``
    else."""
    try:
        found = resolve_inside(root, rel)
    except PathRefused as exc:
        raise Usage(f"{rel}: {exc.reason}") from None
    if found.protected and not allow_protected:
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


def offer(root: Path, rel: str, found: Resolved, text: str, yes: bool,
          before_write: Callable[[], None] | None = None) -> bool | None:
    """Show the diff and write when approved: True written, False already up to date,
    None not written. ``before_write``: called once approved, before the write (the
    snapshot of the files a run overwrites)."""
    old = current_text(rel, found)
    if old == text:
        print(f"{rel}: already up to date", file=sys.stderr)
        return False
    if not approved(rel, old, text, yes, protected=found.protected):
        return None
    if before_write is not None:
        before_write()
    write(root, rel, text, allow_protected=found.protected is not None)
    print(f"wrote {rel}", file=sys.stderr)
    return True


def write(root: Path, rel: str, text: str, allow_protected: bool = False) -> None:
    """Write through a temporary file in the checked folder and a rename (which replaces a
    link rather than following it), the target checked again once its folder exists."""
    first = target(root, rel, allow_protected)
    try:
        first.real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Usage(f"{rel}: cannot create its folder: {exc.strerror or exc}") from None
    again = target(root, rel, allow_protected)
    try:
        replace_file(again.real, text)
    except OSError as exc:
        raise Usage(f"{rel}: cannot write: {exc.strerror or exc}") from None
