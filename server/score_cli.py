"""``specward score [RUN_ID]``: the harness score of a run of the log (issue 15,
``docs/score.md``), and :func:`score_run`, the same for the editor.

The run comes from ``.specward/runs.jsonl`` (by default the last run, other than a score,
that wrote files); its files are judged with the workspace index built from disk:

- **compliance**: per scored file ``1 / (1 + errors + warnings / 4)`` of specward's own
  findings on it, the mean over the run's files the index holds (None when it holds none);
- **coverage**: ``score.contract_coverage`` of the run's contract (its ``*.dsl.json``, or
  every contract of the index) against the composed routes, the matched calls and the data
  models of the index;
- **compile**: the ``--build`` command's exit status (0 → 1.0, else 0.0). Only a command the
  user gives is run: the configuration has no build key, and a command a workspace file
  suggests (``package.json`` scripts, ``node_modules/.bin/tsc``) is never run, only named in
  the note that compile was not measured;
- **review**: with a model configuration, the three passes of ``analyzers/stages/review.py``.

The depth comes from ``score.select_depth``, the profile from ``score.profile_for`` and the
verdict from ``score.verdict``. Without coverage or compile there is no score: the verdict
is FAIL when a must-pass finding is there, else there is none. Exit codes: 0 PASS, 1 FAIL,
2 usage or configuration error (no such run, no score possible, a review answer that does
not fit, no model), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from specward.analyzers.lines import LineIndex
from specward.analyzers.matching import EndpointTable, full_path
from specward.analyzers.model import Endpoint, Finding
from specward.analyzers.stages import review as review_core
from specward.analyzers.stages import score as core
from specward.analyzers.stages.runs import RunRecord, make_record, printable

from . import llm, runs_cli
from .engine.index import WorkspaceIndex
from .engine.reading import read_data, shown

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
STAGE = "score"
BUILD_TIMEOUT = 900.0  # seconds
TAIL_LINES = 20
WARNING_WEIGHT = 0.25  # a warning costs a quarter of an error in compliance


class ScoreUsage(Exception):
    """No run to score, or a set-up problem: exit 2, the message printed as it is."""


# ---------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class FileCompliance:
    path: str
    errors: int
    warnings: int
    value: float


@dataclass(frozen=True)
class CompileResult:
    """The build: ``value`` 1.0 (exit 0), 0.0 (any other exit, a timeout) or None (not
    measured: ``note`` says why and how to give a command)."""

    value: float | None
    command: str | None = None
    exit_code: int | None = None
    tail: tuple[str, ...] = ()
    note: str = ""


@dataclass
class ScoreReport:
    run: RunRecord
    root: Path
    files: tuple[str, ...]  # the run's files that exist and were judged
    missing: tuple[str, ...]  # the run's files that no longer exist
    findings: tuple[Finding, ...]  # specward's findings on them
    per_file: tuple[FileCompliance, ...]
    compliance: float | None
    contracts: tuple[str, ...]  # the contracts coverage was measured against
    coverage: core.Coverage | None
    compile: CompileResult
    review: tuple[core.ReviewPass, ...]
    depth: core.DepthChoice
    configured_profile: str
    profile: str
    harness: core.HarnessScore | None
    verdict: core.Verdict | None
    notes: list[str] = field(default_factory=list)

    @property
    def dimensions(self) -> core.Dimensions:
        review = core.review_dimension(self.review) if self.review else None
        return core.Dimensions(self.compliance, None if self.coverage is None else self.coverage.fraction,
                               self.compile.value, review)

    @property
    def must_pass(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.code in core.MUST_PASS_CODES)

    @property
    def verdict_text(self) -> str | None:
        """PASS, FAIL, or None when there is no score and no must-pass finding."""
        if self.verdict is not None:
            return "PASS" if self.verdict.passed else "FAIL"
        return "FAIL" if self.must_pass else None

    @property
    def reasons(self) -> tuple[str, ...]:
        if self.verdict is not None:
            return self.verdict.reasons
        counts: dict[str, int] = {}
        for f in self.must_pass:
            counts[f.code] = counts.get(f.code, 0) + 1
        return tuple(f"must-pass: {n} {code} finding(s) in the generated code" for code, n in sorted(counts.items()))

    def exit_code(self) -> int:
        return {"PASS": EXIT_PASS, "FAIL": EXIT_FAIL}.get(self.verdict_text or "", EXIT_USAGE)


# ---------------------------------------------------------------------------- the run
def pick_run(records: tuple[RunRecord, ...], run_id: str | None) -> RunRecord:
    """The run to score: the last record of ``run_id`` that is not a score, or the last
    run (not a score) that wrote files. Raises ScoreUsage."""
    if run_id is not None:
        own = [r for r in records if r.run_id == run_id]
        if not own:
            raise ScoreUsage(f"no run {printable(run_id)} in the run log")
        made = [r for r in own if r.stage != STAGE]
        return (made or own)[-1]
    for r in reversed(records):
        if r.stage != STAGE and r.files:
            return r
    raise ScoreUsage("no run in the run log wrote files: name one (specward score RUN_ID)")


def _ep_key(ep: Endpoint) -> str:
    return f"{ep.method} {full_path(ep)}"


def measure_compliance(index: WorkspaceIndex, files: tuple[str, ...]) -> tuple[tuple[FileCompliance, ...],
                                                                               float | None, tuple[Finding, ...]]:
    """Per file of the run the index holds: its errors and warnings and ``1 / (1 + errors +
    warnings / 4)``; the mean of those (None without any such file); every finding."""
    per: list[FileCompliance] = []
    found: list[Finding] = []
    for rel in files:
        if rel not in index.facts and rel not in index.contracts:
            continue
        fs = index.findings(rel, suppress=False)  # a generated file's own comments hide nothing
        found.extend(fs)
        errors = sum(1 for f in fs if f.severity == "error")
        warnings = sum(1 for f in fs if f.severity == "warning")
        per.append(FileCompliance(rel, errors, warnings, 1.0 / (1.0 + errors + WARNING_WEIGHT * warnings)))
    value = sum(p.value for p in per) / len(per) if per else None
    return tuple(per), value, tuple(found)


def measure_coverage(index: WorkspaceIndex, files: tuple[str, ...], scope: tuple[set[str], set[str]] | None = None
                     ) -> tuple[tuple[str, ...], core.Coverage | None]:
    """The run's contracts (those among its files, else every contract of the index) and
    their coverage: implemented by a composed route (same path, same method or ``ANY``),
    called by a matched call site, models defined by a data model of that name. ``scope``:
    (endpoint keys ``METHOD /full/path``, model names) a slice is scored on, not the whole
    contract's."""
    own = [rel for rel in files if rel in index.contracts]
    used = tuple(own or sorted(index.contracts))
    endpoints = [ep for rel in used for ep in index.contracts[rel].endpoints]
    models = {m.name for rel in used for m in index.contracts[rel].models}
    if scope is not None:
        endpoints = [ep for ep in endpoints if _ep_key(ep) in scope[0]]
        models &= scope[1]
    if not endpoints and not models:
        return used, None
    routes = [c for c in index.composed_routes() if c.unresolved is None]
    table = EndpointTable([Endpoint(c.method, c.path, c.file, c.route.span) for c in routes])
    implemented = set()
    for ep in endpoints:
        found = table.lookup(full_path(ep)) or table.lookup(ep.path)
        if any(r.method in (ep.method, "ANY") for r in found):
            implemented.add(_ep_key(ep))
    called = {_ep_key(st.endpoint) for st in index.all_statuses() if st.status == "matched" and st.endpoint}
    defined = {m.name for rel in index.facts for m in (getattr(index.facts.get(rel), "data_models", ()) or ())}
    return used, core.contract_coverage({_ep_key(ep) for ep in endpoints}, implemented, called, models, defined)


def _suggestion(root: Path) -> str:
    if (root / "tsconfig.json").is_file():
        return "e.g. --build 'npx tsc --noEmit'"
    if (root / "pyproject.toml").is_file() or (root / "setup.py").is_file():
        return "e.g. --build 'python -m compileall -q .'"
    return "e.g. --build 'npm run build'"


def run_build(root: Path, command: str | None, timeout: float = BUILD_TIMEOUT) -> CompileResult:
    """The user's own build command, run by the shell in the workspace root. None: not
    measured (nothing a workspace file names is ever run)."""
    if command is None or not command.strip():
        return CompileResult(None, note="compile was not measured: specward runs only a build or type-check "
                                        f"command you give ({_suggestion(root)}), never one a workspace file names")
    try:
        proc = subprocess.Popen(command, shell=True, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return CompileResult(0.0, command, None, (), f"the build command could not start: {exc.strerror or exc}")
    try:
        out, _ = proc.communicate(timeout=timeout)
        note = ""
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the command's own process group
        except OSError:
            pass
        out, _ = proc.communicate()
        note = f"the build command did not finish within {timeout:g} s"
    except KeyboardInterrupt:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        raise
    lines = out.decode("utf-8", "replace").splitlines()
    code = proc.returncode
    value = 1.0 if code == 0 and not note else 0.0
    return CompileResult(value, command, code, tuple(printable(line) for line in lines[-TAIL_LINES:]), note)


_BACKEND_HINTS = ("server", "backend", "api", "routes", "controllers")


def _domains(index: WorkspaceIndex, files: tuple[str, ...]) -> set[str]:
    """The domains the run's code touches: backend (routes), frontend (HTTP calls, UI
    files), data (data models only), tests. Specs and contracts are not a domain."""
    out = set()
    for rel in files:
        facts = index.facts.get(rel)
        parts = rel.lower().split("/")
        name = parts[-1]
        if facts is None:
            continue
        if "test" in name or "spec." in name or any(p in ("tests", "test", "__tests__") for p in parts[:-1]):
            out.add("tests")
        elif rel in index.routes or rel in index.mounts:
            out.add("backend")
        elif name.endswith((".tsx", ".jsx", ".vue", ".svelte")) or index.calls.get(rel):
            out.add("frontend")
        elif getattr(facts, "data_models", ()):
            out.add("data")
        elif any(p in _BACKEND_HINTS for p in parts[:-1]):
            out.add("backend")
    return out


def _read_text(index: WorkspaceIndex, rel: str, texts: dict[str, str] | None = None) -> str | None:
    if texts and rel in texts:
        return texts[rel]
    data, _ = read_data(str(index.root), rel, index.settings.max_file_size,
                        outside_ok=rel in index.ws.contract_files)
    return None if data is None else data.decode("utf-8", "replace")


def ask_review(root: Path, index: WorkspaceIndex, files: tuple[str, ...], contracts: tuple[str, ...],
               config: llm.LLMConfig, ui=None, texts: dict[str, str] | None = None) -> tuple[core.ReviewPass, ...]:
    """The three review passes asked of the model, each given the contract and the run's
    files (token-bounded). Raises ``review.ReviewError`` (the raw answers kept; the message
    names the file), ``llm.LLMError``."""
    from .stage_context import gather, with_sections
    from .stage_run import Run, TerminalUI

    shown_files = [(rel, t) for rel in files if rel not in contracts and (t := _read_text(index, rel, texts)) is not None]
    contract_texts = [(rel, t) for rel in contracts if (t := _read_text(index, rel, texts)) is not None]
    run = Run(root, "review", config, ui=ui if ui is not None else TerminalUI())
    # the rules the files must keep and the mistakes not to repeat (the contract is above)
    shared = gather(root, targets=list(files), include=("invariants", "ledger"))
    passes = []
    for criterion in review_core.CRITERIA:
        answer = run.ask(with_sections(review_core.review_messages(criterion, shown_files, contract_texts), shared))
        try:
            passes.append(review_core.parse_review(criterion, answer))
        except review_core.ReviewError as exc:
            kept = run.keep_answers()
            raise review_core.ReviewError(f"{exc}; the raw answers are in {kept}") from None
    return tuple(passes)


def score_run(root: Path, index: WorkspaceIndex, run_id: str | None = None, profile: str = "default",
              build: str | None = None, review_config: llm.LLMConfig | None = None, ui=None) -> ScoreReport:
    """The harness score of a run of ``root``'s log, judged with ``index`` (built). ``build``
    is a command the user gave (never one read from the workspace); ``review_config`` asks
    the review passes of that model. Writes nothing but the kept answers of a review that
    does not fit (see :func:`append_score`). Raises ScoreUsage, ``core.ScoreError``
    (``review.ReviewError``), ``llm.LLMError``, ``runs_cli.RunLogError``."""
    root = Path(root)
    if profile not in core.PROFILES:
        raise ScoreUsage(f"unknown profile {profile!r} (known: {', '.join(core.PROFILES)})")
    records, _problems = runs_cli.read_runs(root)
    run = pick_run(records, run_id)
    present = tuple(rel for rel in dict.fromkeys(run.files) if os.path.lexists(root / rel))
    missing = tuple(rel for rel in dict.fromkeys(run.files) if rel not in present)
    return score_files(root, index, run, present, missing, profile, build, review_config, ui)


def score_files(root: Path, index: WorkspaceIndex, run: RunRecord, present: tuple[str, ...],
                missing: tuple[str, ...] = (), profile: str = "default", build: str | None = None,
                review_config: llm.LLMConfig | None = None, ui=None, compile_result: CompileResult | None = None,
                texts: dict[str, str] | None = None, scope: tuple[set[str], set[str]] | None = None) -> ScoreReport:
    """The score of ``present`` (files of ``run``) as ``index`` has them: ``score_run``'s
    work, and the slice's before approval (the index holding the proposed files,
    ``texts`` their text, ``compile_result`` the build already run on them, ``scope`` its
    own endpoints and models)."""
    root = Path(root)
    if profile not in core.PROFILES:
        raise ScoreUsage(f"unknown profile {profile!r} (known: {', '.join(core.PROFILES)})")
    notes = [f"{shown(rel)}: in the run but no longer in the workspace" for rel in missing]
    per_file, compliance, findings = measure_compliance(index, present)
    contracts, coverage = measure_coverage(index, present, scope)
    if coverage is None:
        notes.append("coverage was not measured: the contract declares no endpoint and no model"
                     if contracts else "coverage was not measured: the workspace has no contract")
    if compile_result is None:
        compile_result = run_build(root, build)
    if compile_result.value is None:
        notes.append(compile_result.note)
    review = ask_review(root, index, present, contracts, review_config, ui, texts) \
        if review_config is not None else ()
    spec_texts = [t for rel in present if rel.lower().endswith(".md") and (t := _read_text(index, rel, texts))]
    depth = core.select_depth(len(present), len(_domains(index, present)), *present, *spec_texts)
    chosen = core.profile_for(depth.depth, profile)
    report = ScoreReport(run, root, present, missing, findings, per_file, compliance, contracts, coverage,
                         compile_result, review, depth, profile, chosen, None, None, notes)
    dims = report.dimensions
    if dims.coverage is not None and dims.compile is not None:
        report.harness = core.harness_score(dims)
        report.verdict = core.verdict(report.harness, chosen, (f.code for f in findings))
    return report


def score_record(report: ScoreReport) -> RunRecord:
    """The log's record of a score: stage ``score``, the scored run's id, model and prompt
    hash (so that ``trend`` marks a change of the generation's prompt, not of the review's),
    its files, findings, dimensions, score and verdict."""
    rec = make_record(report.run.run_id, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), STAGE,
                      report.run.model, "", report.run.files, (f.code for f in report.findings),
                      report.harness, report.verdict)
    dims = report.dimensions
    return replace(rec, prompt_hash=report.run.prompt_hash, verdict=report.verdict_text,
                   dimensions=tuple((name, getattr(dims, name)) for name in core.DIMENSIONS))


def append_score(report: ScoreReport) -> None:
    """Append the score's record to the run log (only a report with a verdict)."""
    if report.verdict_text is not None:
        runs_cli.append_run(report.root, score_record(report))


# ---------------------------------------------------------------------------- output
def _position(index: WorkspaceIndex, f: Finding, cache: dict[str, LineIndex]) -> tuple[int, int]:
    lines = cache.get(f.file)
    if lines is None:
        data, _ = read_data(str(index.root), f.file, index.settings.max_file_size,
                            outside_ok=f.file in index.ws.contract_files)
        lines = cache[f.file] = LineIndex(data or b"")
    line, col = lines.position(f.span.start)
    return line + 1, col + 1


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def to_json(report: ScoreReport, index: WorkspaceIndex) -> dict:
    cache: dict[str, LineIndex] = {}
    weights = dict(report.harness.weights) if report.harness else {}
    dims = report.dimensions
    cov = report.coverage
    return {
        "version": 1, "run_id": report.run.run_id, "stage": report.run.stage, "model": report.run.model,
        "files": list(report.files), "missing_files": list(report.missing),
        "dimensions": {name: getattr(dims, name) for name in core.DIMENSIONS},
        "weights": {name: weights.get(name) for name in core.DIMENSIONS},
        "weighting": report.harness.weighting if report.harness else None,
        "score": report.harness.score if report.harness else None,
        "score_shown": f"{report.harness.score:.1f}" if report.harness else None,
        "depth": {"depth": report.depth.depth, "reasons": list(report.depth.reasons)},
        "configured_profile": report.configured_profile, "profile": report.profile,
        "verdict": report.verdict_text, "reasons": list(report.reasons),
        "must_pass": [{"file": f.file, "line": (p := _position(index, f, cache))[0], "column": p[1],
                       "code": f.code, "severity": f.severity, "message": f.message} for f in report.must_pass],
        "compliance": {"formula": "mean over files of 1 / (1 + errors + warnings / 4)",
                       "files": [{"file": c.path, "errors": c.errors, "warnings": c.warnings, "value": c.value}
                                 for c in report.per_file]},
        "coverage": None if cov is None else {
            "contracts": list(report.contracts), "passed": cov.passed, "checks": cov.checks,
            "not_implemented": list(cov.not_implemented), "not_called": list(cov.not_called),
            "not_defined": list(cov.not_defined)},
        "compile": {"command": report.compile.command, "exit_code": report.compile.exit_code,
                    "tail": list(report.compile.tail), "note": report.compile.note},
        "review": [{"criterion": p.criterion, "score": p.score, "reason": p.reason} for p in report.review],
        "notes": list(report.notes),
    }


def print_text(report: ScoreReport, index: WorkspaceIndex) -> None:
    r = report.run
    out = [f"run {printable(r.run_id)} ({printable(r.stage)}{', ' + printable(r.model) if r.model else ''}): "
           f"{len(report.files)} file(s) scored"]
    weights = dict(report.harness.weights) if report.harness else {}
    dims = report.dimensions
    out.append(f"{'dimension':<12}{'value':>7}{'weight':>8}")
    for name in core.DIMENSIONS:
        w = weights.get(name)
        out.append(f"{name:<12}{_num(getattr(dims, name)):>7}{'-' if w is None else f'{w:.2f}':>8}")
    cov = report.coverage
    if cov is not None:
        out.append(f"coverage: {cov.passed} of {cov.checks} checks ({', '.join(report.contracts)})")
        for label, items in (("not implemented", cov.not_implemented), ("not called", cov.not_called),
                             ("model not defined", cov.not_defined)):
            if items:
                out.append(f"  {label}: {', '.join(printable(str(i)) for i in items)}")
    c = report.compile
    if c.command is not None:
        status = f"exit {c.exit_code}" if c.exit_code is not None else "did not run"
        out.append(f"compile: {printable(c.command)}: {status}" + (f" ({c.note})" if c.note else ""))
        if c.value != 1.0:
            out.extend(f"  | {line}" for line in c.tail)
    for p in report.review:
        out.append(f"review {p.criterion} {p.score:g}: {printable(p.reason)}")
    depth = f"depth {report.depth.depth} ({'; '.join(report.depth.reasons)})"
    prof = report.profile + (f" (configured {report.configured_profile})"
                             if report.profile != report.configured_profile else "")
    total = f"score {report.harness.score:.1f}/10" if report.harness else "no score"
    out.append(f"{total}  profile {prof}  {depth}  {report.verdict_text or 'no verdict'}")
    cache: dict[str, LineIndex] = {}
    if report.must_pass:
        out.append("must-pass findings:")
        for f in report.must_pass:
            line, col = _position(index, f, cache)
            out.append(f"  {shown(f.file)}:{line}:{col}: {f.severity}[{f.code}] {shown(f.message)}")
    for why in report.reasons:
        out.append(f"FAIL: {why}")
    print("\n".join(out))
    for note in report.notes:
        print(f"specward: note: {note}", file=sys.stderr)


# ---------------------------------------------------------------------------- command
def add_subparser(subparsers) -> None:
    p = subparsers.add_parser("score", help="the harness score of a run of .specward/runs.jsonl "
                                            "(compliance, contract coverage, compile, review) and its verdict")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID",
                   help="the run to score (default: the last run that wrote files)")
    p.add_argument("--profile", choices=tuple(core.PROFILES), default="default",
                   help="the evaluation profile (thorough depth always uses strict; default: default)")
    p.add_argument("--review", action="store_true", help="ask the configured model the three review passes")
    p.add_argument("--build", metavar="CMD",
                   help="the build or type-check command, run by the shell in the workspace (exit 0: compile 1.0)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--workspace", metavar="DIR", help="the workspace (default: the project of the current folder)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")


def run(args: argparse.Namespace) -> int:
    try:
        if args.workspace is not None:
            if not Path(args.workspace).is_dir():
                raise ScoreUsage(f"--workspace {shown(args.workspace)}: no such folder")
            root = Path(args.workspace).resolve()
        else:
            from .stage_run import project_root

            root = project_root()
        if args.review:
            from .stage_run import model_config

            config = model_config(root)  # the workspace's model only when the user trusts it
        else:
            config = None
        index = WorkspaceIndex(root, use_cache=not args.no_cache)
        index.build()
        report = score_run(root, index, args.run_id, args.profile, args.build, config)
        if args.json:
            json.dump(to_json(report, index), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print_text(report, index)
        sys.stdout.flush()
        if report.verdict_text is None:
            print("specward: error: no score and no verdict: the harness score needs coverage and compile "
                  "(see the notes above)", file=sys.stderr)
        try:
            append_score(report)
        except (runs_cli.RunLogError, ValueError) as exc:
            print(f"specward: warning: the score was not logged: {exc}", file=sys.stderr)
        return report.exit_code()
    except (ScoreUsage, core.ScoreError, llm.LLMError, runs_cli.RunLogError) as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("specward: interrupted: nothing logged", file=sys.stderr)
        return EXIT_INTERRUPTED
