"""The field benchmark: specward's field findings on real client code, against hand-made labels.

    bench/fields_corpus.py [CORPUS_DIR] [--no-mutations] [--json [FILE]] [--keep]

For each labels file in ``tests/corpus/fields/*.json`` whose corpus folder exists under
CORPUS_DIR (default: as ``bench/corpus.py``), the corpus is copied to a temporary folder and
``python -m specward.server check --format json --contract C ... ROOT ...`` runs there (the
contracts and roots are those of the call labels, ``tests/corpus/<corpus>.json``). Every field
finding (unknown-field, missing-field, unknown-parameter, missing-parameter,
unknown-response-field) in the roots is compared with the labels:

* ``findings``: findings judged by hand, true or false, by (file, line within 2, code, name);
  a finding no label accounts for is *unjudged*, and counts against the run like a false one
  until someone reads it and labels it;
* ``correct``: calls whose body, parameters and reads were read against the contract and are
  right; any field finding between a call's first line and its ``end_line`` is a false alarm;
* ``mutations``: one edit of one line each (a body key renamed, a required key dropped, a bogus
  query parameter), applied one at a time to the copy; caught when a finding with the expected
  code appears on the mutated call; a new finding anywhere else is a false alarm. The line is
  restored byte for byte after each.

Prints a table per corpus. Exit status: 0 when no false or unjudged finding and no false
alarm appears (or no corpus is present), 1 otherwise, 2 when the benchmark itself breaks.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as calls_bench  # noqa: E402  (bench/corpus.py: copying, anchors, engine state)

REPO = calls_bench.REPO
FIELD_LABELS = REPO / "tests" / "corpus" / "fields"
FIELD_CODES = ("unknown-field", "missing-field", "unknown-parameter", "missing-parameter", "unknown-response-field")
WINDOW = 2
_NAME = re.compile(r"^`([^`]+)`")
_NAMES = re.compile(r"`([^`]+)`")


class BenchError(Exception):
    pass


def finding_names(code: str, message: str) -> set[str]:
    """The field or parameter names a finding's message is about (``missing-*`` may name several)."""
    if code.startswith("missing-"):
        names = _NAMES.findall(message.split("requires", 1)[-1])
        return {n.rsplit(".", 1)[-1] for n in names}
    m = _NAME.match(message)
    return {m.group(1).rsplit(".", 1)[-1]} if m else set()


@dataclass
class Result:
    corpus: str
    findings: list[dict] = field(default_factory=list)  # each with "verdict": true/false/unjudged
    correct: int = 0
    alarms: list[dict] = field(default_factory=list)  # findings on calls judged correct
    mutations: list[dict] = field(default_factory=list)
    missed: list[dict] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, verdict: str) -> int:
        return sum(1 for f in self.findings if f["verdict"] == verdict)

    @property
    def caught(self) -> int:
        return sum(1 for m in self.mutations if m["caught"])

    @property
    def ok(self) -> bool:
        return not (self.count("false") or self.count("unjudged") or self.alarms
                    or any(m["elsewhere"] for m in self.mutations) or self.stale)


def load(path: Path) -> tuple[dict, dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        calls = json.loads((path.parent / data["calls_labels"]).resolve().read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError) as exc:
        raise BenchError(f"{path}: {exc}") from None
    for key in ("corpus", "notes", "findings", "correct", "mutations"):
        if key not in data:
            raise BenchError(f"{path}: `{key}` missing")
    return data, calls


def check(ws: Path, calls: dict) -> list[dict]:
    """The field findings specward reports in the roots of the copy."""
    ctr = [a for c in calls["contracts"] for a in ("--contract", c)]
    roots = [r for r in calls["roots"] if (ws / r).exists()]
    proc = subprocess.run([sys.executable, "-m", "specward.server", "check", "--format", "json", *ctr, *roots],
                          cwd=ws, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    if proc.returncode not in (0, 1):
        raise BenchError(f"specward check failed in {ws} (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    try:
        diags = json.loads(proc.stdout)["diagnostics"]
    except (ValueError, KeyError) as exc:
        raise BenchError(f"specward check printed unexpected JSON: {exc}") from None
    return [{"file": d["file"], "line": d["line"], "code": d["code"], "message": d["message"],
             "names": sorted(finding_names(d["code"], d["message"]))}
            for d in diags if d["code"] in FIELD_CODES and calls_bench.in_roots(d["file"], calls["roots"])]


def _lines(ws: Path, rel: str, cache: dict[str, list[str]]) -> list[str]:
    if rel not in cache:
        try:
            cache[rel] = (ws / rel).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            cache[rel] = []
    return cache[rel]


def anchor(ws: Path, entry: dict, texts: dict, stale: list[str]) -> int:
    """The entry's line shift in the copy: 0 when its `code` is on its line, else the offset to the
    nearest line (within 10) that has it; a stale entry is listed."""
    lines = _lines(ws, entry["file"], texts)
    if calls_bench._has_code(lines, entry["line"], entry["code"]):
        return 0
    for d in range(1, 11):
        for s in (-1, 1):
            if calls_bench._has_code(lines, entry["line"] + d * s, entry["code"]):
                return d * s
    stale.append(f"{entry['file']}:{entry['line']} {entry['code']}")
    return 0


def judge(res: Result, found: list[dict], data: dict) -> None:
    for f in found:
        lab = next((x for x in data["findings"] if x["file"] == f["file"] and abs(x["line"] - f["line"]) <= WINDOW
                    and x["code"] == f["code"] and x["name"] in f["names"]), None)
        res.findings.append(dict(f, verdict=lab["verdict"] if lab else "unjudged", note=lab and lab.get("note")))


def on_call(f: dict, c: dict, shift: int) -> bool:
    first = c.get("first_line", c["line"]) + shift
    return f["file"] == c["file"] and first - WINDOW <= f["line"] <= c["end_line"] + shift


def run_corpus(data: dict, calls: dict, corpus_dir: Path, tmp: Path, mutations: bool) -> Result:
    name = data["corpus"]
    res = Result(name)
    t0 = time.perf_counter()
    ws = tmp / name
    print(f"{name}: copying {corpus_dir / name} to {ws}", file=sys.stderr)
    calls_bench.copy_corpus(corpus_dir / name, ws)
    texts: dict[str, list[str]] = {}
    correct = [(c, anchor(ws, c, texts, res.stale)) for c in data["correct"]]
    res.correct = len(correct)
    print(f"{name}: specward check", file=sys.stderr)
    base = check(ws, calls)
    judge(res, base, data)
    for f in base:
        for c, shift in correct:
            if on_call(f, c, shift):
                res.alarms.append(dict(f, call=f"{c['file']}:{c['line']} {c['endpoint']}"))
                break
    res.missed = list(data.get("missed", []))
    if mutations:
        seen = {(f["file"], f["line"], f["code"], f["message"]) for f in base}
        for k, m in enumerate(data["mutations"], 1):
            res.mutations.append(mutate(ws, calls, m, seen, k, len(data["mutations"]), res.stale))
    res.seconds = time.perf_counter() - t0
    return res


def mutate(ws: Path, calls: dict, m: dict, seen: set, k: int, n: int, stale: list[str]) -> dict:
    target = ws / m["file"]
    original = target.read_bytes()
    lines = original.decode("utf-8").split("\n")
    line = m["line"]
    if not (1 <= line <= len(lines) and m["find"] in lines[line - 1]):
        stale.append(f"mutation {m['file']}:{line} {m['find']}")
        return dict(m, caught=False, reported=[], elsewhere=[])
    old = lines[line - 1]
    # a dropped key leaves its line empty, so that no other line moves
    lines[line - 1] = "" if m["replace"] is None else old.replace(m["find"], m["replace"], 1)
    mutated = "\n".join(lines).encode("utf-8")
    if calls_bench.syntax_errors(m["file"], mutated) > calls_bench.syntax_errors(m["file"], original):
        raise BenchError(f"mutation at {m['file']}:{line} breaks the syntax")
    print(f"  mutation {k}/{n}: {m['file']}:{line} {m['note']}", file=sys.stderr)
    try:
        target.write_bytes(mutated)
        found = check(ws, calls)
    finally:
        target.write_bytes(original)
    if target.read_bytes() != original:
        raise BenchError(f"could not restore {target}")
    call = _call_of(m, calls)
    here = [f for f in found if f["file"] == m["file"] and (on_call(f, call, 0) if call else abs(f["line"] - line) <= 12)]
    elsewhere = [f for f in found if f not in here and (f["file"], f["line"], f["code"], f["message"]) not in seen]
    return dict(m, caught=any(f["code"] == m["expect"] for f in here),
                reported=sorted({f["code"] for f in here}), elsewhere=elsewhere)


def _call_of(m: dict, calls: dict) -> dict | None:
    """The labelled call the mutated line belongs to: the nearest matched call at or above it in
    the same file (its span ends where the next one starts, or 30 lines below)."""
    same = sorted((c for c in calls["calls"] if c["file"] == m["file"]), key=lambda c: c["line"])
    above = [c for c in same if min(c.get("call_line", c["line"]), c.get("defined_line", c["line"])) - WINDOW <= m["line"]]
    if not above:
        return None
    c = above[-1]
    nxt = [x["line"] for x in same if x["line"] > c["line"]]
    return {"file": c["file"], "line": c["line"], "first_line": min(c.get("call_line", c["line"]), c["line"]),
            "end_line": min(nxt[0] - 1 if nxt else c["line"] + 30, c["line"] + 30)}


# ---------------------------------------------------------------------------------------------


def print_report(results: list[Result], out=sys.stdout) -> None:
    for r in results:
        print(f"\n## {r.corpus} ({r.seconds:.0f} s)\n", file=out)
        rows = [
            ("field findings reported", str(len(r.findings))),
            ("true (labelled)", str(r.count("true"))),
            ("false (labelled)", str(r.count("false"))),
            ("unjudged (no label: read them)", str(r.count("unjudged"))),
            ("calls judged correct", str(r.correct)),
            ("false alarms on them", str(len(r.alarms))),
            ("planted mistakes caught", f"{r.caught}/{len(r.mutations)}"),
            ("new findings elsewhere during mutations", str(sum(len(m["elsewhere"]) for m in r.mutations))),
            ("known mistakes not reported (labels' `missed`)", str(len(r.missed))),
        ]
        w = max(len(a) for a, _ in rows)
        v = max(len(b) for _, b in rows)
        print(f"| {'figure'.ljust(w)} | {'value'.ljust(v)} |", file=out)
        print(f"|{'-' * (w + 2)}|{'-' * (v + 2)}|", file=out)
        for a, b in rows:
            print(f"| {a.ljust(w)} | {b.ljust(v)} |", file=out)
        for f in r.findings:
            print(f"  [{f['verdict']}] {f['file']}:{f['line']} {f['code']}: {f['message']}", file=out)
        for f in r.alarms:
            print(f"  FALSE ALARM {f['file']}:{f['line']} {f['code']}: {f['message']} (on {f['call']})", file=out)
        for m in r.mutations:
            state = "caught" if m["caught"] else "missed"
            got = f" (reported {', '.join(m['reported'])})" if m["reported"] else ""
            print(f"  mutation {m['file']}:{m['line']} {m['note']}: expect {m['expect']}, {state}{got}", file=out)
            for f in m["elsewhere"]:
                print(f"    FALSE ALARM elsewhere {f['file']}:{f['line']} {f['code']}: {f['message']}", file=out)
        for x in r.missed:
            print(f"  not reported: {x['file']}:{x['line']} {x['code']} `{x['name']}`", file=out)
        for s in r.stale:
            print(f"  STALE label: {s}", file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus_dir", nargs="?", metavar="CORPUS_DIR")
    ap.add_argument("--no-mutations", action="store_true", help="only the unmutated run")
    ap.add_argument("--json", nargs="?", const="-", metavar="FILE", help="the results as JSON (stdout without FILE)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copies")
    args = ap.parse_args(argv)
    corpus_dir = calls_bench.find_corpus_dir(args.corpus_dir)
    if corpus_dir is None:
        print("field benchmark: no corpus folder; nothing to measure", file=sys.stderr)
        return 0
    try:
        labelled = [load(p) for p in sorted(FIELD_LABELS.glob("*.json"))]
    except BenchError as exc:
        print(f"field benchmark: invalid labels: {exc}", file=sys.stderr)
        return 2
    present = [(d, c) for d, c in labelled if (corpus_dir / d["corpus"]).is_dir()]
    if not present:
        print(f"field benchmark: none of the labelled corpora is in {corpus_dir}", file=sys.stderr)
        return 0
    engine = calls_bench.engine_state()
    desc = (engine["engine"] or "?") + (f" at {engine['head']}" if engine["head"] else "") + \
        (" + local changes in analyzers/ or server/" if engine["dirty"] else "")
    tmp = Path(tempfile.mkdtemp(prefix="specward-fields-"))
    try:
        results = [run_corpus(d, c, corpus_dir, tmp, not args.no_mutations) for d, c in present]
    except (BenchError, calls_bench.BenchError, subprocess.TimeoutExpired) as exc:
        print(f"field benchmark: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"field benchmark: copies kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    ok = all(r.ok for r in results)
    if args.json == "-":
        json.dump({"engine": engine, "ok": ok, "corpora": [r.__dict__ for r in results]}, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(f"specward measured: {desc}; corpus {corpus_dir}")
        print_report(results)
        if args.json:
            Path(args.json).write_text(json.dumps({"engine": engine, "ok": ok, "corpora": [r.__dict__ for r in results]},
                                                  indent=2, default=str) + "\n", encoding="utf-8")
    if not ok:
        print("field benchmark: false or unjudged findings, or false alarms (listed above)", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
