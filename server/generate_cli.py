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
import os
import re
import secrets
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from specward.analyzers.contracts import parse_contract
from specward.analyzers.stages import answers
from specward.analyzers.stages.confine import PathRefused
from specward.analyzers.stages.runs import make_record

from . import llm, runs_cli
from .approval import approved, replace_file
from .engine.reading import shown
from .engine.workspace import find_project_root
from .stages_paths import resolve_inside

EXIT_OK, EXIT_NOT_WRITTEN, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
MAX_REPAIRS = 3
MAX_SPEC_BYTES = 1_000_000
SLUG_WORDS = 6
SPEC_SECTIONS = ("Background", "User stories", "Acceptance criteria", "Edge cases")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_STOP_WORDS = frozenset(
    "a an the to of for and or with in on at by as from into where which that this these those so "
    "can could should would will must be is are was it its their our my your i we you they he she "
    "please let lets want need".split())

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


class _Usage(Exception):
    pass


class _NotWritten(Exception):
    pass


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


def contract_messages(spec_text: str, spec_name: str) -> list[dict[str, str]]:
    """The contract stage's first prompt: the spec, the SpecDSL shape, the JSON format."""
    user = (f"The specification (`{spec_name}`):\n\n<<<SPEC\n{spec_text.rstrip()}\nSPEC>>>\n\n"
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
    kinds = p.add_subparsers(dest="generate_kind", required=True)
    s = kinds.add_parser("spec", help="write specs/<slug>.md from a one-line feature request")
    s.add_argument("request", metavar="REQUEST", help="the feature request, in quotes")
    s.add_argument("--slug", help="the spec's name (kebab-case; default: from the request)")
    c = kinds.add_parser("contract", help="write specs/<slug>.dsl.json (SpecDSL 1.0) from a spec")
    c.add_argument("spec", metavar="SPEC.md", help="the spec file")
    for sub in (s, c):
        sub.add_argument("--yes", action="store_true", help="write without asking")
    return p


@dataclass
class _Run:
    root: Path
    stage: str
    config: llm.LLMConfig
    run_id: str = field(default_factory=lambda: time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
                        + "-" + secrets.token_hex(3))
    prompt: str = ""
    answers: list[str] = field(default_factory=list)

    def ask(self, messages: list[dict[str, str]]) -> str:
        if not self.prompt:
            self.prompt = json.dumps(messages, ensure_ascii=False, sort_keys=True)
        rounds = f" (repair round {len(self.answers)})" if self.answers else ""
        print(f"asking {self.config.model}{rounds}...", file=sys.stderr, flush=True)
        tty = sys.stderr.isatty()

        def progress(chars: int) -> None:
            if tty:
                print(f"\r  {chars:,} characters received", end="", file=sys.stderr, flush=True)

        cancel = threading.Event()
        try:
            text = llm.complete(messages, config=self.config, cancel=cancel, on_progress=progress)
        except KeyboardInterrupt:
            cancel.set()
            raise
        finally:
            if tty:
                print(file=sys.stderr)
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

    def record(self, files: list[str]) -> None:
        if not self.answers:
            return  # the model was never asked
        rec = make_record(self.run_id, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), self.stage,
                          self.config.model, self.prompt, files)
        try:
            runs_cli.append_run(self.root, rec)
        except (runs_cli.RunLogError, ValueError) as exc:
            print(f"specward: warning: the run was not logged: {exc}", file=sys.stderr)


def _root() -> Path:
    cwd = Path.cwd().resolve()
    hit = find_project_root(cwd)
    return hit[0] if hit is not None else cwd


def run(args: argparse.Namespace) -> int:
    try:
        root = _root()
        if args.generate_kind == "spec":
            return _spec(root, args)
        return _contract(root, args)
    except _Usage as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except llm.LLMError as exc:  # not configured, failed (the message is redacted)
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except _NotWritten as exc:
        print(f"specward: {exc}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    except KeyboardInterrupt:
        print("specward: interrupted: nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED


def _config() -> llm.LLMConfig:
    # a workspace's configuration may name a model (never an API base or key); the
    # configuration schema has no such key yet, so only the user's settings count here
    return llm.load_config()


def _spec(root: Path, args: argparse.Namespace) -> int:
    request = args.request.strip()
    if not request:
        raise _Usage("the feature request is empty")
    slug = args.slug if args.slug is not None else slug_from_request(request)
    if not valid_slug(slug):
        raise _Usage(f"--slug {shown(slug)}: use kebab-case (lower-case letters, digits and dashes)")
    rel = f"specs/{slug}.md"
    target = _target(root, rel)
    run = _Run(root, "spec", _config())
    answer = run.ask(spec_messages(request, slug))
    try:
        text = spec_from_answer(answer)
    except answers.AnswerError as exc:
        kept = run.keep_answers()
        run.record([])
        raise _NotWritten(f"{exc}; the raw answer is in {kept}; nothing written") from None
    for name in missing_sections(text):
        print(f"specward: note: the spec has no `{name}` section", file=sys.stderr)
    written = _offer(root, rel, target, text, args.yes)
    run.record([rel] if written else [])
    return EXIT_OK if written is not None else EXIT_NOT_WRITTEN


def _contract(root: Path, args: argparse.Namespace) -> int:
    path = Path(args.spec)
    name = shown(args.spec)
    if not path.name.lower().endswith(".md"):
        raise _Usage(f"{name}: not a Markdown spec (expected SPEC.md)")
    try:
        if path.stat().st_size > MAX_SPEC_BYTES:
            raise _Usage(f"{name}: larger than {MAX_SPEC_BYTES} bytes")
        spec_text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise _Usage(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _Usage(f"{name}: not UTF-8 text") from None
    slug = path.name[:-3]
    if not valid_slug(slug):
        raise _Usage(f"{name}: its name is not a kebab-case slug, which the contract's name comes from")
    rel = f"specs/{slug}.dsl.json"
    target = _target(root, rel)
    run = _Run(root, "contract", _config())
    messages = contract_messages(spec_text, path.name)
    problems: list[str] = []
    text = None
    for _round in range(1 + MAX_REPAIRS):
        answer = run.ask(messages)
        text, problems = check_contract(answer, rel)
        if text is not None:
            break
        messages = [*messages, {"role": "assistant", "content": answer}, repair_message(problems)]
    if text is None:
        kept = run.keep_answers()
        run.record([])
        for p in problems:
            print(f"{rel}: error: {shown(p)}", file=sys.stderr)
        raise _NotWritten(f"the contract is still not valid after {MAX_REPAIRS} repair rounds "
                          f"({len(problems)} problem(s) above); the raw answers are in {kept}; nothing written")
    written = _offer(root, rel, target, text, args.yes)
    run.record([rel] if written else [])
    return EXIT_OK if written is not None else EXIT_NOT_WRITTEN


def _target(root: Path, rel: str):
    try:
        target = resolve_inside(root, rel)
    except PathRefused as exc:
        raise _Usage(f"{rel}: {exc.reason}") from None
    if target.protected:
        raise _Usage(f"{rel}: refused: it reaches a protected path ({target.protected})")
    if target.real.is_dir():
        raise _Usage(f"{rel}: is a folder")
    return target


def _offer(root: Path, rel: str, target, text: str, yes: bool) -> bool | None:
    """Show the diff and write when approved: True written, False already up to date,
    None not written."""
    try:
        old = target.real.read_text("utf-8") if target.real.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise _Usage(f"{rel}: cannot read the existing file: {exc}") from None
    if old == text:
        print(f"{rel}: already up to date", file=sys.stderr)
        return False
    if not approved(rel, old, text, yes):
        return None
    _write(root, rel, text)
    print(f"wrote {rel}", file=sys.stderr)
    return True


def _write(root: Path, rel: str, text: str) -> None:
    """Write through a temporary file in the checked folder and a rename (which replaces a
    link rather than following it), the target checked again once its folder exists."""
    first = _target(root, rel)
    try:
        first.real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _Usage(f"{rel}: cannot create its folder: {exc.strerror or exc}") from None
    target = _target(root, rel)
    try:
        replace_file(target.real, text)
    except OSError as exc:
        raise _Usage(f"{rel}: cannot write: {exc.strerror or exc}") from None
