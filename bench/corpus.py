"""The corpus benchmark: specward on real client code, against hand-made labels.

    bench/corpus.py [CORPUS_DIR] [--min-verdict 0.95] [--min-precision 0.98]
                    [--mutations N] [--seed S] [--json [FILE]] [--keep]

For each labels file in ``tests/corpus/*.json`` whose corpus folder exists under CORPUS_DIR
(default: ``../shared/corpus`` next to the repository, then ``/work/shared/corpus``), the corpus
is copied to a temporary folder (the corpus itself is never written to) and specward runs there
the way a user runs it::

    python -m specward.server calls --format json --contract C ... ROOT ...
    python -m specward.server check --format json --contract C ... ROOT ...   (for the messages)

Every reported call is compared with the labels by (file, line); see bench/README.md for what
each figure means. Then N labelled ``matched`` calls per corpus (a seeded sample, spread over
files and call styles) are broken one at a time in the copy (a wrong last path segment, or a
method the endpoint does not declare), specward runs again, and the mutation counts as caught
when a phantom-api / method-mismatch finding appears at that line; new findings anywhere else
are false alarms. The copy is restored byte for byte after each mutation.

Exit status: 0 when every corpus meets both thresholds (or no corpus is present), 1 when one
does not, 2 when the benchmark itself breaks (specward fails, a labels file is invalid).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABELS_DIR = REPO / "tests" / "corpus"
DEFAULT_CORPORA = (REPO.parent / "shared" / "corpus", Path("/work/shared/corpus"))

VERDICTS = ("matched", "phantom", "method-mismatch", "dynamic", "external", "wrapper-body")
FINDING_STATUSES = ("phantom", "method-mismatch")
# a label's verdict -> the `calls` status that agrees with it
STATUS_OF = {"matched": "matched", "phantom": "phantom", "method-mismatch": "method-mismatch",
             "dynamic": "unresolved", "external": "unresolved"}
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
WINDOW = 2  # a reported call within this many lines of a label (or inside its call..path span) is that call


class BenchError(Exception):
    """The benchmark itself cannot run (exit 2)."""


# ---------------------------------------------------------------------------------------------
# labels and contracts


def load_labels(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(f"{path}: {exc}") from None
    problems = validate_labels(data)
    if problems:
        raise BenchError(f"{path}: " + "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return data


def validate_labels(data: object) -> list[str]:
    """Schema problems of a labels document (empty when it is valid)."""
    if not isinstance(data, dict):
        return ["the top level is not an object"]
    out = []
    for key, typ in (("corpus", str), ("contracts", list), ("roots", list), ("notes", list), ("calls", list)):
        if not isinstance(data.get(key), typ):
            out.append(f"`{key}` missing or not a {typ.__name__}")
    for i, c in enumerate(data.get("calls") or []):
        where = f"calls[{i}]"
        if not isinstance(c, dict):
            out.append(f"{where} is not an object")
            continue
        for key, typ in (("file", str), ("line", int), ("code", str), ("method", str), ("verdict", str)):
            if not isinstance(c.get(key), typ):
                out.append(f"{where}: `{key}` missing or not a {typ.__name__}")
        v = c.get("verdict")
        if v not in VERDICTS:
            out.append(f"{where}: unknown verdict {v!r}")
        if v == "matched" and not (isinstance(c.get("endpoint"), str) and " /" in c["endpoint"]):
            out.append(f"{where}: a matched call needs `endpoint` as 'METHOD /path'")
        if v == "method-mismatch" and not c.get("declared"):
            out.append(f"{where}: a method-mismatch needs `declared`")
        if v in ("phantom", "dynamic") and not c.get("note"):
            out.append(f"{where}: a {v} call needs a `note` saying why")
        for key in ("call_line", "defined_line"):
            if key in c and not (isinstance(c[key], int) and c[key] <= c.get("line", 0)):
                out.append(f"{where}: `{key}` must be a line at or above `line`")
        for a in c.get("also", []):
            if a not in STATUS_OF:
                out.append(f"{where}: unknown verdict {a!r} in `also`")
    return out


@dataclass
class Contract:
    """The declared endpoints, read with the standard library only (not with specward: the
    mutations' expected outcome must not depend on the engine under test)."""

    endpoints: list[tuple[str, list[str]]]  # (METHOD, segments of the full path)
    case_insensitive: bool

    @classmethod
    def load(cls, files: list[Path], case_insensitive: bool) -> "Contract":
        eps = []
        for f in files:
            text = f.read_text(encoding="utf-8")
            if f.suffix.lower() in (".yaml", ".yml"):
                import yaml

                doc = yaml.safe_load(text)
            else:
                doc = json.loads(text)
            base = _server_base(doc)
            for p, ops in (doc.get("paths") or {}).items():
                for m in ops or {}:
                    if m.upper() in HTTP_METHODS + ("HEAD", "OPTIONS"):
                        eps.append((m.upper(), _segs(base + p)))
        return cls(eps, case_insensitive)

    def _seg_eq(self, call: str, ep: str) -> int | None:
        """How well one call segment matches one endpoint segment (None: not at all)."""
        cp, ep_ = _is_param(call), _is_param(ep)
        if cp and ep_:
            return 1
        if ep_:
            return 0
        if cp:
            return -1
        if (call.lower() == ep.lower()) if self.case_insensitive else (call == ep):
            return 2
        return None

    def lookup(self, path: str) -> list[tuple[int, str]]:
        """(score, METHOD) of every endpoint whose path matches; higher score = more literal."""
        segs = _segs(path.split("?")[0])
        out = []
        for method, es in self.endpoints:
            if len(es) != len(segs):
                continue
            score = 0
            for a, b in zip(segs, es):
                s = self._seg_eq(a, b)
                if s is None:
                    break
                score += s
            else:
                out.append((score, method))
        return out

    def verdict(self, method: str, path: str) -> str:
        found = self.lookup(path)
        if not found:
            return "phantom"
        return "matched" if any(m == method for _, m in found) else "method-mismatch"

    def methods(self, path: str) -> set[str]:
        return {m for _, m in self.lookup(path)}


def _server_base(doc: dict) -> str:
    servers = doc.get("servers") or []
    if not servers or not isinstance(servers[0], dict):
        return ""
    url = str(servers[0].get("url", ""))
    url = re.sub(r"^[a-zA-Z][\w+.-]*://[^/]*", "", url)  # scheme://host
    url = re.sub(r"^\{[^}/]*\}(://\{[^}/]*\})?", "", url)  # {address} or {protocol}://{host}
    return "/" + url.strip("/") if url.strip("/") else ""


def _segs(path: str) -> list[str]:
    return [s for s in path.strip("/").split("/") if s]


def _is_param(seg: str) -> bool:
    return seg.startswith("{") and seg.endswith("}")


def norm_endpoint(ep: str | None, case_insensitive: bool) -> str | None:
    if not ep or " " not in ep:
        return None
    method, _, path = ep.partition(" ")
    path = "/" + "/".join("{}" if _is_param(s) else s for s in _segs(path))
    return f"{method.upper()} {path.lower() if case_insensitive else path}"


# ---------------------------------------------------------------------------------------------
# running specward


@dataclass
class Run:
    rows: list[dict]
    messages: dict[tuple[str, int], list[tuple[str, str]]]  # (file, line) -> [(code, message)]
    seconds: float
    note: str | None = None


def run_specward(ws: Path, contracts: list[str], roots: list[str], messages: bool = True) -> Run:
    """`specward calls` (and, for the findings' messages, `specward check`) in the copy."""
    base = [sys.executable, "-m", "specward.server"]
    ctr = [a for c in contracts for a in ("--contract", c)]
    t0 = time.perf_counter()
    note = None
    calls = _run(base + ["calls", "--format", "json", *ctr, *roots], ws)
    if calls.returncode == 2 and "outside the workspace" in calls.stderr:
        # The CLI takes a single folder as the workspace root: run on the whole copy instead and keep
        # the roots' calls (what a user does from the project root).
        note = f"specward refused the roots ({calls.stderr.strip().splitlines()[-1]}); ran on the whole copy, kept the roots' calls"
        roots = []
        calls = _run(base + ["calls", "--format", "json", *ctr], ws)
    if calls.returncode != 0:
        raise BenchError(f"specward calls failed in {ws} (exit {calls.returncode}): {calls.stderr.strip()[-2000:]}")
    try:
        rows = json.loads(calls.stdout)
    except ValueError as exc:
        raise BenchError(f"specward calls printed no JSON: {exc}: {calls.stdout[:300]!r}") from None
    if not messages:
        return Run(rows, {}, time.perf_counter() - t0, note)
    check = _run(base + ["check", "--format", "json", *ctr, *roots], ws)
    if check.returncode not in (0, 1):
        raise BenchError(f"specward check failed in {ws} (exit {check.returncode}): {check.stderr.strip()[-2000:]}")
    messages: dict[tuple[str, int], list[tuple[str, str]]] = {}
    try:
        for d in json.loads(check.stdout).get("diagnostics", []):
            messages.setdefault((d["file"], d["line"]), []).append((d["code"], d["message"]))
    except (ValueError, KeyError, AttributeError) as exc:
        raise BenchError(f"specward check printed unexpected JSON: {exc}") from None
    return Run(rows, messages, time.perf_counter() - t0, note)


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise BenchError(f"specward did not finish within 900 s: {' '.join(cmd)}") from None


def in_roots(rel: str, roots: list[str]) -> bool:
    return not roots or any(rel == r.rstrip("/") or rel.startswith(r.rstrip("/") + "/") for r in roots)


# ---------------------------------------------------------------------------------------------
# comparing


@dataclass
class Label:
    i: int
    file: str
    line: int
    first: int  # first line of the call (call_line or defined_line when above line, else line)
    code: str
    method: str
    verdict: str
    endpoint: str | None
    accept: set[str]  # statuses that count as right
    raw: dict


@dataclass
class Score:
    corpus: str
    labelled: int = 0
    found: int = 0
    right: int = 0
    wrong: list[dict] = field(default_factory=list)
    missed: list[dict] = field(default_factory=list)
    findings: int = 0
    true_findings: int = 0
    false_alarms: list[dict] = field(default_factory=list)
    extras: list[dict] = field(default_factory=list)
    reanchored: int = 0
    stale: list[dict] = field(default_factory=list)
    mutations: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def verdict_rate(self) -> float:
        return self.right / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float | None:
        return self.true_findings / self.findings if self.findings else None

    @property
    def caught(self) -> int:
        return sum(1 for m in self.mutations if m["caught"])

    def as_json(self) -> dict:
        return {
            "corpus": self.corpus, "labelled": self.labelled, "found": self.found, "right": self.right,
            "wrong": self.wrong, "missed": self.missed, "findings": self.findings,
            "true_findings": self.true_findings, "false_alarms": self.false_alarms, "extras": self.extras,
            "right_verdict_rate": round(self.verdict_rate, 4),
            "finding_precision": None if self.precision is None else round(self.precision, 4),
            "mutations": self.mutations, "mutations_caught": self.caught,
            "mutation_recall": round(self.caught / len(self.mutations), 4) if self.mutations else None,
            "reanchored_labels": self.reanchored, "stale_labels": self.stale, "seconds": round(self.seconds, 1),
            "notes": self.notes,
        }


def make_labels(data: dict, ws: Path, score: Score) -> list[Label]:
    """Labels with their anchors checked against the copy: a label whose code is no longer on its
    line is moved to the nearest line (within 10) that has it."""
    out = []
    texts: dict[str, list[str]] = {}
    for i, c in enumerate(data["calls"]):
        lines = texts.get(c["file"])
        if lines is None:
            try:
                lines = (ws / c["file"]).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                lines = []
            texts[c["file"]] = lines
        line = c["line"]
        if not _has_code(lines, line, c["code"]):
            moved = next((line + d * s for d in range(1, 11) for s in (-1, 1)
                          if _has_code(lines, line + d * s, c["code"])), None)
            if moved is None:
                score.stale.append({"file": c["file"], "line": line, "code": c["code"]})
            else:
                score.reanchored += 1
                line = moved
        shift = line - c["line"]
        first = min(c.get("call_line", c["line"]), c.get("defined_line", c["line"])) + shift
        accept = {STATUS_OF[c["verdict"]]} if c["verdict"] in STATUS_OF else set()
        accept |= {STATUS_OF[a] for a in c.get("also", [])}
        out.append(Label(i, c["file"], line, min(first, line), c["code"], c["method"].upper(), c["verdict"],
                         c.get("endpoint"), accept, c))
    return out


def _has_code(lines: list[str], line: int, code: str) -> bool:
    if not 1 <= line <= len(lines):
        return False
    squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731
    return squash(code) in squash(lines[line - 1]) or (
        # a code spanning lines: compare with this line and the next ones
        squash(code) in squash("".join(lines[line - 1:line + 3])) and squash(lines[line - 1]) != "")


def pair(labels: list[Label], rows: list[dict], ci: bool) -> tuple[dict[int, Label], dict[int, int]]:
    """Which label each reported row is: (row index -> label, label index -> row index). A
    wrapper-body label absorbs every row at its line; other labels take one row each, nearest
    line first, then same method, then same endpoint."""
    by_file: dict[str, list[Label]] = {}
    for lab in labels:
        by_file.setdefault(lab.file, []).append(lab)
    cand = []
    for ri, r in enumerate(rows):
        for lab in by_file.get(r["file"], []):
            d = _distance(lab, r["line"])
            if d is None:
                continue
            method_differs = (r.get("method") or "").upper() != lab.method
            ep_differs = norm_endpoint(r.get("endpoint"), ci) != norm_endpoint(lab.endpoint, ci)
            cand.append(((d, lab.verdict == "wrapper-body", method_differs, ep_differs, lab.i), ri, lab))
    cand.sort(key=lambda t: t[0])
    row_label: dict[int, Label] = {}
    label_row: dict[int, int] = {}
    for _, ri, lab in cand:
        if ri in row_label:
            continue
        if lab.verdict == "wrapper-body":
            row_label[ri] = lab
        elif lab.i not in label_row:
            row_label[ri] = lab
            label_row[lab.i] = ri
    return row_label, label_row


def _distance(lab: Label, line: int) -> int | None:
    if lab.first <= line <= lab.line:
        return 0 if line == lab.line else 1
    d = min(abs(line - lab.line), abs(line - lab.first))
    return d if d <= WINDOW else None


def right_verdict(lab: Label, row: dict | None, ci: bool) -> bool:
    if row is None:
        return lab.verdict == "external"  # a call to another host that is not listed is not wrong
    status = row.get("status")
    if status not in lab.accept:
        return False
    if status == "matched" and lab.verdict == "matched":
        return norm_endpoint(row.get("endpoint"), ci) == norm_endpoint(lab.endpoint, ci)
    if status == "method-mismatch" and lab.verdict == "method-mismatch":
        return (row.get("method") or "").upper() == lab.method
    return True


def is_true_finding(lab: Label | None) -> bool:
    return lab is not None and bool(lab.accept & set(FINDING_STATUSES))


def describe(row: dict, run: Run) -> dict:
    msgs = [m for code, m in run.messages.get((row["file"], row["line"]), []) if code in ("phantom-api", "method-mismatch")]
    msg = msgs[0] if msgs else f"{row.get('method')} {row.get('url')}: {row.get('status')}"
    return {"file": row["file"], "line": row["line"], "status": row.get("status"), "message": msg}


def score_run(score: Score, labels: list[Label], run: Run, ci: bool) -> None:
    row_label, label_row = pair(labels, run.rows, ci)
    for lab in labels:
        if lab.verdict == "wrapper-body":
            continue
        score.labelled += 1
        ri = label_row.get(lab.i)
        row = run.rows[ri] if ri is not None else None
        if row is not None:
            score.found += 1
        if right_verdict(lab, row, ci):
            score.right += 1
        elif row is None:
            score.missed.append({"file": lab.file, "line": lab.line, "code": lab.code, "verdict": lab.verdict})
        else:
            score.wrong.append({"file": lab.file, "line": lab.line, "code": lab.code, "label": lab.verdict,
                                "expected": lab.endpoint or lab.raw.get("path"), "reported": row.get("status"),
                                "reported_endpoint": row.get("endpoint"), "url": row.get("url"),
                                "reason": row.get("reason")})
    for ri, row in enumerate(run.rows):
        lab = row_label.get(ri)
        if lab is not None and lab.verdict == "wrapper-body":
            continue
        if lab is None:
            score.extras.append({"file": row["file"], "line": row["line"], "method": row.get("method"),
                                 "url": row.get("url"), "status": row.get("status")})
        if row.get("status") in FINDING_STATUSES:
            score.findings += 1
            if is_true_finding(lab):
                score.true_findings += 1
            else:
                score.false_alarms.append(describe(row, run))


# ---------------------------------------------------------------------------------------------
# mutations

_STYLE = re.compile(r"\b(useApiQuery|usePagedApiQuery|useApiMutation|fetchJson|createAjaxRequest|getQueryPath|"
                    r"downloadAsync|fetch)\s*[<(]|\.(GET|POST|PUT|PATCH|DELETE)\s*\(|\.open\s*\(")
_WRONG = ("{w}s", "{w}-list", "{w}-details", "all-{w}", "{w}-v2")


@dataclass
class Mutation:
    label: Label
    kind: str  # "rename" | "method"
    line: int  # 1-based line changed
    old: str
    new: str
    expect: str  # phantom | method-mismatch
    style: str
    detail: str


def call_style(lines: list[str], lab: Label) -> str:
    for ln in range(lab.line, max(0, lab.first - 4), -1):
        text = lines[ln - 1] if 0 < ln <= len(lines) else ""
        hits = list(_STYLE.finditer(text))
        if hits:
            m = hits[-1]
            return m.group(1) or (f".{m.group(2)}" if m.group(2) else ".open")
    return "other"


def plan_mutation(lab: Label, lines: list[str], contract: Contract, kind: str, rng: random.Random) -> Mutation | None:
    """One mutation of this call that keeps the file valid code and that the contract judges
    undeclared (computed here, independently of specward), or None."""
    path = lab.endpoint.partition(" ")[2] if lab.endpoint else None
    if not path:
        return None
    style = call_style(lines, lab)
    text = lines[lab.line - 1]
    if kind == "method":
        return _plan_method(lab, lines, contract, path, style)
    # rename the last literal segment of the path literal on the labelled line
    lit = _path_literal(text)
    if lit is None:
        return None
    start, end = lit
    body = text[start:end]
    seg = _last_literal_segment(body)
    if seg is None:
        return None
    s, e = seg
    word = body[s:e]
    choices = list(_WRONG)
    rng.shuffle(choices)
    for pattern in choices:
        if pattern == "{w}s" and word.lower().endswith("s"):
            continue  # no `bookmarkss`
        new_word = pattern.format(w=word)
        new_path = _replace_last_literal(path, word, new_word, contract.case_insensitive)
        if new_path is None:
            return None
        expect = contract.verdict(lab.method, new_path)
        if expect == "matched":
            continue
        new_text = text[:start + s] + new_word + text[start + e:]
        return Mutation(lab, "rename", lab.line, text, new_text, expect, style,
                        f"{word} -> {new_word} ({lab.method} {new_path})")
    return None


def _plan_method(lab: Label, lines: list[str], contract: Contract, path: str, style: str) -> Mutation | None:
    """Change the method where the call writes it: `client.PUT(` (on the path's line or the one
    before), or `method: 'PUT'` in the call's argument object."""
    declared = contract.methods(path)
    options = [x for x in _method_options(style, lab.method) if x not in declared]
    if not options:
        return None
    member = re.compile(r"\.(%s)\s*[(<]" % lab.method)
    prop = re.compile(r"""\bmethod\s*:\s*(['"])(%s)\1""" % lab.method)
    spots = [(ln, member) for ln in (lab.line, lab.line - 1)]
    # the argument object: from the call's first line down to its end (a line that closes it or
    # starts another call), at most 8 lines past the path
    ln = lab.first
    while ln <= min(len(lines), lab.line + 8):
        if ln > lab.line and (re.match(r"\s*\}\s*\)", lines[ln - 1]) or re.search(r"\b(path|url)\s*:", lines[ln - 1])
                              or _STYLE.search(lines[ln - 1])):
            break
        spots.append((ln, prop))
        ln += 1
    for ln, rx in spots:
        if not 1 <= ln <= len(lines):
            continue
        text = lines[ln - 1]
        m = rx.search(text)
        if not m:
            continue
        group = m.lastindex
        new_text = text[:m.start(group)] + options[0] + text[m.end(group):]
        return Mutation(lab, "method", ln, text, new_text, "method-mismatch", style,
                        f"{lab.method} -> {options[0]} ({path} declares {', '.join(sorted(declared))})")
    return None


def _method_options(style: str, current: str) -> list[str]:
    # useApiMutation's type allows POST | PUT | DELETE only; keep mutated code type-correct there
    pool = ["POST", "PUT", "DELETE"] if style == "useApiMutation" else ["PATCH", "PUT", "DELETE", "POST"]
    return [m for m in pool if m != current]


_LITERAL = re.compile(r"""(['"`])((?:\\.|(?!\1).)*)\1""")


def _path_literal(text: str) -> tuple[int, int] | None:
    """Span of the body of the first string/template literal on the line that holds a path."""
    for m in _LITERAL.finditer(text):
        body = m.group(2)
        if "/" in body and not body.startswith("//"):
            return m.start(2), m.end(2)
    return None


def _last_literal_segment(body: str) -> tuple[int, int] | None:
    """The last path segment of a literal's body that is a plain word (not `${...}`, `{param}`,
    a query string or a host)."""
    cut = len(body)
    for sep in ("?", "#"):
        k = body.find(sep)
        if k >= 0:
            cut = min(cut, k)
    best = None
    depth = 0
    i = 0
    while i < cut:
        ch = body[i]
        if body.startswith("${", i):
            depth += 1
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "/" and depth == 0:
            m = re.match(r"[A-Za-z][A-Za-z0-9_-]*", body[i + 1:cut])
            if m:
                end = i + 1 + m.end()
                nxt = body[end] if end < cut else "/"
                if nxt in "/?#" or end == cut:
                    best = (i + 1, end)
        i += 1
    return best


def _replace_last_literal(path: str, word: str, new_word: str, ci: bool) -> str | None:
    segs = path.split("/")
    for k in range(len(segs) - 1, -1, -1):
        if (segs[k].lower() == word.lower()) if ci else (segs[k] == word):
            segs[k] = new_word
            return "/".join(segs)
    return None


def sample_mutations(labels: list[Label], ws: Path, contract: Contract, n: int, seed: int) -> list[Mutation]:
    """A seeded sample of matched calls, one mutation each, round-robin over call styles and files,
    about one in three changing the method where the call style shows it."""
    rng = random.Random(seed)
    per_line: dict[tuple[str, int], int] = {}
    for lab in labels:
        per_line[(lab.file, lab.line)] = per_line.get((lab.file, lab.line), 0) + 1
    texts: dict[str, list[str]] = {}
    pool: dict[str, dict[str, list[Label]]] = {}
    for lab in labels:
        if lab.verdict != "matched" or per_line[(lab.file, lab.line)] != 1 or lab.raw.get("also"):
            continue
        lines = texts.setdefault(lab.file, (ws / lab.file).read_text(encoding="utf-8").split("\n"))
        pool.setdefault(call_style(lines, lab), {}).setdefault(lab.file, []).append(lab)
    styles = sorted(pool)
    rng.shuffle(styles)
    for s in styles:
        for f in pool[s]:
            rng.shuffle(pool[s][f])
    order = {s: sorted(pool[s]) for s in styles}
    for s in styles:
        rng.shuffle(order[s])
    out: list[Mutation] = []
    used: set[int] = set()
    rounds = 0
    while len(out) < n and rounds < 1000:
        progressed = False
        for s in styles:
            files = order[s]
            if not files:
                continue
            f = files.pop(0)
            labs = pool[s][f]
            lab = labs.pop(0) if labs else None
            if labs:
                files.append(f)  # this file still has calls: back of the queue
            if lab is None or lab.i in used:
                continue
            want = "method" if len(out) % 3 == 2 else "rename"
            mut = plan_mutation(lab, texts[lab.file], contract, want, rng) or \
                plan_mutation(lab, texts[lab.file], contract, "rename" if want == "method" else "method", rng)
            if mut is not None:
                out.append(mut)
                used.add(lab.i)
                progressed = True
                if len(out) >= n:
                    break
        rounds += 1
        if not progressed and not any(order.values()):
            break
    return out


def syntax_errors(rel: str, data: bytes) -> int:
    """ERROR/MISSING nodes in the file's syntax tree (specward's own grammars), to check that a
    mutated copy is still valid code."""
    from specward.analyzers.languages import language_of, parser

    lang = language_of(rel)
    if lang is None:
        return 0
    tree = parser(lang).parse(data)
    count = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


def run_mutations(score: Score, labels: list[Label], ws: Path, data: dict, contract: Contract, base: Run,
                  n: int, seed: int, roots: list[str]) -> None:
    base_findings = {(r["file"], r["line"], r.get("status"), r.get("url")) for r in base.rows
                     if r.get("status") in FINDING_STATUSES}
    base_flagged = {lab.i for lab in labels for r in base.rows if r["file"] == lab.file
                    and r.get("status") in FINDING_STATUSES and _distance(lab, r["line"]) is not None}
    plans = sample_mutations(labels, ws, contract, n, seed)
    if len(plans) < n:
        score.notes.append(f"only {len(plans)} of {n} mutations could be planned")
    for k, mut in enumerate(plans, 1):
        lab = mut.label
        target = ws / lab.file
        original = target.read_bytes()
        lines = original.decode("utf-8").split("\n")
        assert lines[mut.line - 1] == mut.old
        lines[mut.line - 1] = mut.new
        mutated = "\n".join(lines).encode("utf-8")
        if syntax_errors(lab.file, mutated) > syntax_errors(lab.file, original):
            raise BenchError(f"mutation {mut.detail} at {lab.file}:{mut.line} broke the syntax")
        print(f"  mutation {k}/{len(plans)}: {lab.file}:{mut.line} {mut.detail}", file=sys.stderr)
        try:
            target.write_bytes(mutated)
            run = run_specward(ws, data["contracts"], roots, messages=False)
            run.rows = [r for r in run.rows if in_roots(r["file"], data["roots"])]
            at_line = [r for r in run.rows if r["file"] == lab.file and _distance(lab, r["line"]) is not None
                       and r.get("status") in FINDING_STATUSES]
            elsewhere = [r for r in run.rows if r.get("status") in FINDING_STATUSES and r not in at_line
                         and (r["file"], r["line"], r.get("status"), r.get("url")) not in base_findings]
            if elsewhere:
                run.messages = run_specward(ws, data["contracts"], roots).messages  # for the false alarms' messages
        finally:
            target.write_bytes(original)
        if target.read_bytes() != original:
            raise BenchError(f"could not restore {target}")
        flagged_before = lab.i in base_flagged
        caught = bool(at_line) and not flagged_before
        # a call the baseline already flagged: its finding is the baseline's false alarm, not a catch,
        # and is not counted twice
        if caught:
            score.findings += len(at_line)
            score.true_findings += len(at_line)
        score.findings += len(elsewhere)
        score.false_alarms.extend(dict(describe(r, run), mutation=f"{lab.file}:{mut.line} {mut.detail}") for r in elsewhere)
        score.mutations.append({
            "file": lab.file, "line": mut.line, "kind": mut.kind, "style": mut.style, "detail": mut.detail,
            "expect": mut.expect, "caught": caught, "flagged_before": flagged_before,
            "reported": sorted({r.get("status") for r in at_line}) or None,
            "as_expected": caught and any(r.get("status") == mut.expect for r in at_line),
            "findings_elsewhere": len(elsewhere),
        })


# ---------------------------------------------------------------------------------------------
# the whole run


def copy_corpus(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True)
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR | stat.S_IRUSR | (stat.S_IXUSR if name in dirnames else 0))
        os.chmod(dirpath, os.stat(dirpath).st_mode | stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
    # the applications are git repositories as published: the repository root is the project
    # root specward finds from the folders it is given (the corpus keeps no .git of its own)
    (dest / ".git").mkdir(exist_ok=True)


def bench_corpus(data: dict, corpus_dir: Path, tmp: Path, mutations: int, seed: int) -> Score:
    name = data["corpus"]
    score = Score(name)
    ws = tmp / name
    t0 = time.perf_counter()
    print(f"{name}: copying {corpus_dir / name} to {ws}", file=sys.stderr)
    copy_corpus(corpus_dir / name, ws)
    roots = [r for r in data["roots"] if (ws / r).exists()]
    missing = sorted(set(data["roots"]) - set(roots))
    if missing:
        score.notes.append(f"roots not in the corpus: {', '.join(missing)}")
    ci = bool(data.get("case_insensitive"))
    contract = Contract.load([ws / c for c in data["contracts"]], ci)
    labels = make_labels(data, ws, score)
    print(f"{name}: specward calls/check on {len(roots)} root(s)", file=sys.stderr)
    base = run_specward(ws, data["contracts"], roots)
    if base.note:
        score.notes.append(base.note)
    base.rows = [r for r in base.rows if in_roots(r["file"], data["roots"])]
    score_run(score, labels, base, ci)
    if mutations:
        run_mutations(score, labels, ws, data, contract, base, mutations, seed, roots)
    score.seconds = time.perf_counter() - t0
    return score


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def print_report(scores: list[Score], min_verdict: float, min_precision: float, out=sys.stdout) -> None:
    total = Score("total")
    for s in scores:
        for f in ("labelled", "found", "right", "findings", "true_findings"):
            setattr(total, f, getattr(total, f) + getattr(s, f))
        total.mutations += s.mutations
        total.wrong += s.wrong
        total.missed += s.missed
        total.false_alarms += s.false_alarms
        total.extras += s.extras
    cols = scores + ([total] if len(scores) > 1 else [])
    rows = [
        ("labelled calls (wrapper bodies excluded)", [str(s.labelled) for s in cols]),
        ("found (a call reported at that line)", [str(s.found) for s in cols]),
        ("right verdict", [f"{s.right} ({pct(s.verdict_rate)})" for s in cols]),
        ("wrong verdict", [str(len(s.wrong)) for s in cols]),
        ("missed", [str(len(s.missed)) for s in cols]),
        ("extra calls (not labelled)", [str(len(s.extras)) for s in cols]),
        ("findings reported (phantom-api, method-mismatch)", [str(s.findings) for s in cols]),
        ("true findings", [str(s.true_findings) for s in cols]),
        ("false alarms", [str(len(s.false_alarms)) for s in cols]),
        ("finding precision", [pct(s.precision) for s in cols]),
        ("mutations caught (recall)", [f"{s.caught}/{len(s.mutations)} ({pct(s.caught / len(s.mutations) if s.mutations else None)})" for s in cols]),
        ("mutations caught with the expected code", [str(sum(1 for m in s.mutations if m["as_expected"])) for s in cols]),
        (f"meets right verdict >= {pct(min_verdict)}", ["yes" if s.verdict_rate >= min_verdict else "NO" for s in cols]),
        (f"meets precision >= {pct(min_precision)}", ["yes" if (s.precision or 1.0) >= min_precision else "NO" for s in cols]),
    ]
    headers = ["figure"] + [s.corpus for s in cols]
    widths = [max(len(headers[0]), *(len(r[0]) for r in rows))] + \
        [max(len(h), *(len(r[1][k]) for r in rows)) for k, h in enumerate(headers[1:])]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    print(line(headers), file=out)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=out)
    for name, vals in rows:
        print(line([name] + vals), file=out)
    for s in scores:
        print(f"\n## {s.corpus} ({s.seconds:.0f} s)", file=out)
        for n in s.notes:
            print(f"note: {n}", file=out)
        if s.reanchored or s.stale:
            print(f"labels re-anchored: {s.reanchored}; stale (code not found near its line): {len(s.stale)}", file=out)
            for x in s.stale:
                print(f"  stale {x['file']}:{x['line']} {x['code']}", file=out)
        _section(out, "false alarms", [f"{x['file']}:{x['line']}: {x['message']}" + (f"  [mutation {x['mutation']}]" if x.get("mutation") else "")
                                       for x in s.false_alarms])
        _section(out, "wrong verdicts", [f"{x['file']}:{x['line']}: labelled {x['label']} {x['expected'] or ''}, reported "
                                         f"{x['reported']} {x['reported_endpoint'] or x['url'] or ''}"
                                         + (f" ({x['reason']})" if x.get("reason") else "") for x in s.wrong])
        _section(out, "missed", [f"{x['file']}:{x['line']}: {x['verdict']} {x['code']}" for x in s.missed])
        _section(out, "extra calls", [f"{x['file']}:{x['line']}: {x['method']} {x['url']} {x['status']}" for x in s.extras])
        _section(out, "mutations", [f"{m['file']}:{m['line']} [{m['style']}] {m['detail']}: expect {m['expect']}, "
                                    f"{'caught' if m['caught'] else 'MISSED (the call was already flagged)' if m['flagged_before'] else 'MISSED'}"
                                    + (f" as {', '.join(m['reported'])}" if m["reported"] else "")
                                    + (f", {m['findings_elsewhere']} new finding(s) elsewhere" if m["findings_elsewhere"] else "")
                                    for m in s.mutations])


def _section(out, title: str, items: list[str], limit: int = 400) -> None:
    if not items:
        return
    print(f"{title} ({len(items)}):", file=out)
    for x in items[:limit]:
        print(f"  {x}", file=out)
    if len(items) > limit:
        print(f"  ... and {len(items) - limit} more", file=out)


def engine_state() -> dict:
    """Which specward the subprocesses import, and its commit (with local changes or not)."""
    probe = subprocess.run([sys.executable, "-c", "import specward.server, os; print(os.path.dirname(specward.server.__file__))"],
                           capture_output=True, text=True, timeout=60)
    where = Path(probe.stdout.strip()).parent if probe.returncode == 0 and probe.stdout.strip() else None
    state: dict = {"engine": str(where) if where else None, "head": None, "dirty": None}
    if where is not None:
        try:
            top = subprocess.run(["git", "-C", str(where), "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                                 timeout=10).stdout.strip()
            if top:
                state["head"] = subprocess.run(["git", "-C", top, "rev-parse", "--short", "HEAD"], capture_output=True,
                                               text=True, timeout=10).stdout.strip() or None
                dirty = subprocess.run(["git", "-C", top, "status", "--porcelain", "--", "analyzers", "server"],
                                       capture_output=True, text=True, timeout=10).stdout.strip()
                state["dirty"] = bool(dirty)
        except (OSError, subprocess.SubprocessError):
            pass
    return state


def find_corpus_dir(arg: str | None) -> Path | None:
    if arg:
        p = Path(arg)
        return p if p.is_dir() else None
    return next((p for p in DEFAULT_CORPORA if p.is_dir()), None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus_dir", nargs="?", metavar="CORPUS_DIR",
                    help="folder holding the corpora (default: ../shared/corpus next to the repository, then /work/shared/corpus)")
    ap.add_argument("--min-verdict", type=float, default=0.95, help="fail below this share of right verdicts (per corpus)")
    ap.add_argument("--min-precision", type=float, default=0.98, help="fail below this share of true findings (per corpus)")
    ap.add_argument("--mutations", type=int, default=40, metavar="N", help="mutated calls per corpus (0: none)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the mutation sample")
    ap.add_argument("--json", nargs="?", const="-", metavar="FILE", help="write the results as JSON (to stdout without FILE)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copies (their path is printed)")
    args = ap.parse_args(argv)

    corpus_dir = find_corpus_dir(args.corpus_dir)
    if corpus_dir is None:
        where = args.corpus_dir or " or ".join(str(p) for p in DEFAULT_CORPORA)
        print(f"corpus benchmark: no corpus folder at {where}; nothing to measure", file=sys.stderr)
        return 0
    try:
        labelled = [load_labels(p) for p in sorted(LABELS_DIR.glob("*.json"))]
    except BenchError as exc:
        print(f"corpus benchmark: invalid labels: {exc}", file=sys.stderr)
        return 2
    present = [d for d in labelled if (corpus_dir / d["corpus"]).is_dir()]
    if not present:
        print(f"corpus benchmark: none of the labelled corpora ({', '.join(d['corpus'] for d in labelled)}) is in {corpus_dir}",
              file=sys.stderr)
        return 0
    engine = engine_state()
    desc = engine["engine"] or "?"
    if engine["head"]:
        desc += f" at {engine['head']}" + (" + local changes in analyzers/ or server/" if engine["dirty"] else "")
    print(f"corpus benchmark: specward from {desc}", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix="specward-corpus-"))
    try:
        scores = [bench_corpus(d, corpus_dir, tmp, args.mutations, args.seed) for d in present]
    except BenchError as exc:
        print(f"corpus benchmark: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"corpus benchmark: copies kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    ok = all(s.verdict_rate >= args.min_verdict and (s.precision or 1.0) >= args.min_precision for s in scores)
    result = {"engine": engine, "corpus_dir": str(corpus_dir), "min_verdict": args.min_verdict, "min_precision": args.min_precision,
              "mutations_per_corpus": args.mutations, "seed": args.seed, "ok": ok,
              "corpora": [s.as_json() for s in scores]}
    if args.json == "-":
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"specward measured: {desc}; corpus {corpus_dir}; {args.mutations} mutation(s) per corpus, seed {args.seed}\n")
        print_report(scores, args.min_verdict, args.min_precision)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if not ok:
        print(f"corpus benchmark: below the thresholds (right verdict >= {pct(args.min_verdict)}, "
              f"finding precision >= {pct(args.min_precision)})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
