"""The run log of the stages (issue 15, ``docs/runs.md``): one JSON line per run in
``.specward/runs.jsonl``, and its two views, a text chart for the terminal and a
self-contained HTML dashboard. Pure: records and text in, text out (the file itself is
read and appended by ``server/runs_cli.py``).

A line of the log is a JSON object (``"v": 1``) with the run's id, time (ISO 8601), stage,
model, the sha256 of the full prompt text, the files written, the findings counted by
code, the score's dimensions, the total (0–10) and the verdict. Reading is tolerant, as
the fix-history ledger's is: a last line cut short by an interrupted write, a line that is
not JSON, a line that is not a run record and a record written by a newer specward are
each reported with their line number and skipped; the other lines are still read.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..ledger import parse_ts
from .score import DIMENSIONS, HarnessScore, Verdict

VERSION = 1
VERDICTS = ("PASS", "FAIL")
_HASH = re.compile(r"sha256:[0-9a-f]{64}")
NOT_JSON = "not JSON"


def prompt_hash(prompt: str) -> str:
    """``sha256:`` and the hex digest of the full prompt text (UTF-8; a lone surrogate is
    kept as its code point so that any text hashes)."""
    return "sha256:" + hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class RunRecord:
    """One run of a stage. ``findings`` is (code, count) sorted by code; ``dimensions`` is
    (name, value or None) in :data:`score.DIMENSIONS` order for the dimensions recorded
    (empty when the stage was not scored); ``score`` the 0–10 total or None; ``verdict``
    ``PASS``, ``FAIL`` or None."""

    run_id: str
    time: str
    stage: str
    model: str
    prompt_hash: str
    files: tuple[str, ...] = ()
    findings: tuple[tuple[str, int], ...] = ()
    dimensions: tuple[tuple[str, float | None], ...] = ()
    score: float | None = None
    verdict: str | None = None


@dataclass(frozen=True)
class RunProblem:
    """A line of the log that was skipped (``line`` is 1-based) and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def make_record(run_id: str, time: str, stage: str, model: str, prompt: str, files: Iterable[str] = (),
                finding_codes: Iterable[str] = (), score: HarnessScore | None = None,
                verdict: Verdict | None = None) -> RunRecord:
    """A record from what a stage has at hand: the prompt text (hashed here), the codes of
    the findings in the generated files (counted), the harness score and the verdict."""
    dims: tuple[tuple[str, float | None], ...] = ()
    total = None
    if score is not None:
        dims = tuple((name, getattr(score.dimensions, name)) for name in DIMENSIONS)
        total = score.score
    return RunRecord(run_id, time, stage, model, prompt_hash(prompt), tuple(files),
                     tuple(sorted(Counter(finding_codes).items())), dims, total,
                     None if verdict is None else ("PASS" if verdict.passed else "FAIL"))


# ------------------------------------------------------------------------ encoding
def _to_json(record: RunRecord) -> dict:
    return {"v": VERSION, "run_id": record.run_id, "time": record.time, "stage": record.stage,
            "model": record.model, "prompt_hash": record.prompt_hash, "files": list(record.files),
            "findings": dict(record.findings), "dimensions": dict(record.dimensions),
            "score": record.score, "verdict": record.verdict}


def encode(record: RunRecord) -> str:
    """The record as one line of the log, newline included (sorted keys, ASCII only).
    Raises ValueError for a record that :func:`decode_lines` would not read back."""
    obj = _to_json(record)
    back = _from_json(obj)
    if isinstance(back, str):
        raise ValueError(f"not a valid run record: {back}")
    if back != record:
        raise ValueError("not a valid run record: findings must be sorted by code, dimensions in score order")
    return json.dumps(obj, sort_keys=True, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n"


def _number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _from_json(obj: object) -> RunRecord | str:
    """The record an object holds, or what is wrong with it."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    v = obj.get("v")
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        return "no record version (`v`)"
    if v > VERSION:
        return f"written by a newer specward (record version {v}; this one reads version {VERSION})"
    for key in ("run_id", "stage", "prompt_hash"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            return f"`{key}` is not a non-empty string"
    if not isinstance(obj.get("model"), str):
        return "`model` is not a string"
    if not isinstance(obj.get("time"), str) or parse_ts(obj["time"]) is None:
        return "`time` is not an ISO 8601 timestamp"
    if not _HASH.fullmatch(obj["prompt_hash"]):
        return "`prompt_hash` is not `sha256:` and 64 hex digits"
    files = obj.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return "`files` is not a list of strings"
    findings = obj.get("findings", {})
    if not isinstance(findings, dict) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in findings.values()):
        return "`findings` is not an object of counts by code"
    dims = obj.get("dimensions", {})
    if not isinstance(dims, dict) or not set(dims) <= set(DIMENSIONS):
        return f"`dimensions` is not an object with keys among {', '.join(DIMENSIONS)}"
    for name, value in dims.items():
        if value is not None and not (_number(value) and 0 <= value <= 1):
            return f"dimension `{name}` is not a number in [0, 1] or null"
    score = obj.get("score")
    if score is not None and not (_number(score) and 0 <= score <= 10):
        return "`score` is not a number in [0, 10] or null"
    verdict = obj.get("verdict")
    if verdict is not None and verdict not in VERDICTS:
        return "`verdict` is not PASS, FAIL or null"
    return RunRecord(obj["run_id"], obj["time"], obj["stage"], obj["model"], obj["prompt_hash"], tuple(files),
                     tuple(sorted(findings.items())),
                     tuple((name, None if dims[name] is None else float(dims[name]))
                           for name in DIMENSIONS if name in dims),
                     None if score is None else float(score), verdict)


def decode_lines(text: str) -> tuple[tuple[RunRecord, ...], tuple[RunProblem, ...]]:
    """The records of a log, in file order, and a problem for each line skipped. Blank
    lines are skipped silently. A last line without its newline that is not a whole record
    is the remains of an interrupted write; one that is a whole record is read."""
    records: list[RunRecord] = []
    problems: list[RunProblem] = []
    lines = text.split("\n")
    last_ended = text.endswith("\n")
    if last_ended or not text:
        lines.pop()  # what follows the last newline: nothing
    for number, raw in enumerate(lines, 1):
        raw = raw.rstrip("\r")
        if not raw.strip():
            continue
        try:
            got: RunRecord | str = _from_json(json.loads(raw))
        except (ValueError, RecursionError):
            got = NOT_JSON
        if isinstance(got, RunRecord):
            records.append(got)
        elif number == len(lines) and not last_ended:
            why = "" if got == NOT_JSON else f" ({got})"
            problems.append(RunProblem(number, f"incomplete last line (a write was interrupted): skipped{why}"))
        elif got == NOT_JSON:
            problems.append(RunProblem(number, "not JSON: skipped"))
        else:
            problems.append(RunProblem(number, f"not a run record: {got}: skipped"))
    return tuple(records), tuple(problems)


# ------------------------------------------------------------------------- helpers
def changed_prompts(records: Sequence[RunRecord]) -> list[bool]:
    """For each run, whether its prompt hash differs from the previous run's (the first
    run has no previous one: False)."""
    return [i > 0 and r.prompt_hash != records[i - 1].prompt_hash for i, r in enumerate(records)]


def printable(text: str) -> str:
    """Text for a terminal: control characters (an escape sequence planted in a run id)
    and lone surrogates shown as escapes, never sent as they are."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch.isprintable():  # (a lone surrogate is not)
            out.append(ch)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def _score_text(score: float | None) -> str:
    return "-" if score is None else f"{score:.1f}"


# --------------------------------------------------------------------- text chart
_EIGHTHS = "▁▂▃▄▅▆▇"
_COLORS = {"PASS": "\x1b[32m", "FAIL": "\x1b[31m", None: ""}
_MARK_COLOR, _RESET = "\x1b[33m", "\x1b[0m"


def trend_chart(records: Sequence[RunRecord], width: int = 60, height: int = 10, unicode: bool = False,
                color: bool = False) -> str:
    """The total score over runs as text: one column per run, oldest left (the last
    ``width`` runs when there are more), ``height`` rows for 0–10 with the y axis
    labelled, a ``^`` under each run whose prompt hash differs from the previous run's and
    a legend. ``unicode`` draws bars in eighth blocks (finer than ASCII's whole ``#``
    cells); ``color`` adds ANSI colors (PASS green, FAIL red, markers yellow). A run
    without a score is a ``?`` on the axis."""
    if width < 1 or height < 2:
        raise ValueError("the chart needs a width of 1 or more and a height of 2 or more")
    records = list(records)
    if not records:
        return "no runs\n"
    start = max(0, len(records) - width)
    shown = records[start:]
    marks = changed_prompts(records)[start:]
    mid = round(height / 2)
    labels = {height: "10", mid: f"{round(mid * 10 / height, 1):g}"}
    full, mark = ("█", "▲") if unicode else ("#", "^")
    vbar, tick, corner, hbar = ("│", "┤", "└", "─") if unicode else ("|", "|", "+", "-")

    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color and code and text.strip() else text

    out = [f"harness score, runs {start + 1}-{len(records)} of {len(records)} (oldest left)"]
    for row in range(height, 0, -1):
        cells = []
        for r in shown:
            if r.score is None:
                cells.append(" ")
                continue
            level = r.score / 10 * height
            if unicode:
                eighths = round(level * 8)
                if eighths >= row * 8:
                    cell = full
                elif eighths > (row - 1) * 8:
                    cell = _EIGHTHS[eighths - (row - 1) * 8 - 1]
                else:
                    cell = " "
            else:
                cell = full if round(level) >= row else " "
            cells.append(paint(cell, _COLORS.get(r.verdict, "")))
        label = labels.get(row, "")
        out.append(f"{label:>3} {tick if label else vbar}{''.join(cells)}".rstrip())
    axis = "".join("?" if r.score is None else hbar for r in shown)
    out.append(f"  0 {corner}{axis}")
    out.append(("     " + "".join(paint(mark, _MARK_COLOR) if m else " " for m in marks)).rstrip())
    legend = f"{mark} prompt changed since the previous run ({sum(marks)} in view)"
    if any(r.score is None for r in shown):
        legend += "; ? no score"
    out.append(legend)
    last = records[-1]
    out.append(f"last: {printable(last.run_id)}  {printable(last.stage)}  score {_score_text(last.score)}"
               + (f"  {last.verdict}" if last.verdict else ""))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------ dashboard
def _e(value: object) -> str:
    return html.escape(printable(str(value)), quote=True)


_CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.meta{color:#59636e;margin:0 0 16px}
svg{max-width:100%;height:auto;border:1px solid #d1d9e0;border-radius:6px;background:#fbfcfd}
.grid{stroke:#e4e8ec}.axis{fill:#59636e;font-size:12px}.trend{fill:none;stroke:#0969da;stroke-width:2}
circle.run{stroke:#fff;stroke-width:1.5;fill:#6e7781}circle.run.pass{fill:#1a7f37}circle.run.fail{fill:#cf222e}
circle.run.no-score{fill:#fff;stroke:#6e7781}
.prompt-change{stroke:#9a6700;stroke-width:1.5;stroke-dasharray:5 4}
.legend{fill:#59636e;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d1d9e0;padding:4px 8px;text-align:left;
vertical-align:top}td:nth-child(-n+4){white-space:nowrap}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.PASS{color:#1a7f37;font-weight:600}.FAIL{color:#cf222e;font-weight:600}code{font-size:12px}
.problems li{color:#9a6700}
"""


def _svg(records: Sequence[RunRecord]) -> str:
    w, h, left, right, top, bottom = 1000, 320, 48, 24, 20, 44
    pw, ph = w - left - right, h - top - bottom
    n = len(records)

    def x(i: int) -> float:
        return left + (pw / 2 if n == 1 else pw * i / (n - 1))

    def y(score: float) -> float:
        return top + ph * (1 - score / 10)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
             'role="img" aria-label="harness score over runs">']
    for v in (0, 2.5, 5, 7.5, 10):
        parts.append(f'<line class="grid" x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        parts.append(f'<text class="axis" x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    for i, changed in enumerate(changed_prompts(records)):
        if changed:
            parts.append(f'<line class="prompt-change" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top}" '
                         f'y2="{top + ph}"><title>prompt changed at {_e(records[i].run_id)}</title></line>')
    points = " ".join(f"{x(i):.1f},{y(r.score):.1f}" for i, r in enumerate(records) if r.score is not None)
    if points:
        parts.append(f'<polyline class="trend" points="{points}"/>')
    for i, r in enumerate(records):
        kind = "no-score" if r.score is None else {"PASS": "pass", "FAIL": "fail"}.get(r.verdict or "", "")
        cls = f"run {kind}".strip()
        tip = f"{r.run_id} ({r.stage}): {_score_text(r.score)}" + (f" {r.verdict}" if r.verdict else "")
        parts.append(f'<circle class="{cls}" data-run-id="{_e(r.run_id)}" cx="{x(i):.1f}" '
                     f'cy="{y(r.score or 0.0):.1f}" r="5"><title>{_e(tip)}</title></circle>')
    parts.append(f'<text class="legend" x="{left}" y="{h - 14}">oldest left, newest right; '
                 'dashed line: the prompt changed since the previous run; hollow point: no score</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _dims_text(dims: tuple[tuple[str, float | None], ...]) -> str:
    return ", ".join(f"{name} {'-' if v is None else f'{v:.2f}'}" for name, v in dims)


def dashboard_html(records: Sequence[RunRecord], problems: Sequence[RunProblem] = (),
                   source: str = ".specward/runs.jsonl") -> str:
    """One self-contained HTML page (no script, no external resource: its Content Security
    Policy forbids both) with the chart of :func:`trend_chart` as inline SVG, a table of
    every run and the problems of the log. Every value from the log is HTML-escaped."""
    records = list(records)
    changed = changed_prompts(records)
    body = ["<h1>specward runs</h1>",
            f'<p class="meta">{len(records)} run(s) from <code>{_e(source)}</code>; '
            f"{sum(changed)} prompt change(s)</p>"]
    if records:
        body.append(_svg(records))
        rows = []
        for r, ch in zip(reversed(records), reversed(changed)):
            findings = ", ".join(f"{_e(code)} {n}" for code, n in r.findings) or "-"
            rows.append(
                "<tr>" f"<td><code>{_e(r.run_id)}</code></td><td>{_e(r.time)}</td><td>{_e(r.stage)}</td>"
                f"<td>{_e(r.model) or '-'}</td><td class=\"num\">{_score_text(r.score)}</td>"
                f"<td class=\"{_e(r.verdict or '')}\">{_e(r.verdict or '-')}</td>"
                f"<td>{_e(_dims_text(r.dimensions)) or '-'}</td><td>{findings}</td>"
                f"<td><code title=\"{_e(r.prompt_hash)}\">{_e(r.prompt_hash[7:19])}</code>"
                f"{' (changed)' if ch else ''}</td><td class=\"num\">{len(r.files)}</td></tr>")
        body.append("<h2>Runs (newest first)</h2>\n<table>\n<thead><tr><th>Run</th><th>Time</th><th>Stage</th>"
                    "<th>Model</th><th>Score</th><th>Verdict</th><th>Dimensions</th><th>Findings</th>"
                    "<th>Prompt</th><th>Files</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>")
    else:
        body.append("<p>No runs yet.</p>")
    if problems:
        items = "\n".join(f"<li>{_e(p)}</li>" for p in problems)
        body.append(f'<h2>Problems of the log</h2>\n<p>These lines were skipped:</p>\n<ul class="problems">\n'
                    f"{items}\n</ul>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>specward runs</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
