"""Baselines, SARIF and ``--changed-since`` on real code: the development corpus
(``../shared/corpus``), each application checked as a CI job would check it.

For each corpus (its contracts and roots from ``tests/corpus/<name>.json``), in a git copy:

1. ``specward check --write-baseline``, then ``--baseline``: nothing may be new;
2. unrelated edits in every file that has findings (seeded: comment and blank lines inserted
   above and between the findings, trailing blanks): no finding may turn new;
3. an edit of each finding's own line (a comment appended to it): every finding must turn
   new (the identity is the offending text and its line; a file-level finding, on no text,
   is its file's and stays baselined);
4. the SARIF of the whole check validates against the official 2.1.0 schema shipped in the
   tests (``tests/fixtures/sarif``);
5. ``--changed-since HEAD`` after one file with findings was touched: that file's findings
   are reported (and the table says how many of the files with findings are).

Prints a table; exits 1 when a figure misses its target, 2 when the benchmark cannot run.
Skipped (exit 0) when the corpus is absent. Figures: ``docs/ci.md``.

    python bench/baseline_corpus.py [--corpus DIR] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "corpus"
SCHEMA = ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"


class BenchError(Exception):
    pass


def specward(ws: Path, *args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=ws, capture_output=True, text=True,
                         timeout=900)
    if out.returncode not in (0, 1):
        raise BenchError(f"specward {' '.join(args)} failed in {ws} (exit {out.returncode}): {out.stderr[-1500:]}")
    return out


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=ws, check=True,
                   capture_output=True)


def diagnostics(out: subprocess.CompletedProcess) -> list[dict]:
    try:
        return json.loads(out.stdout)["diagnostics"]
    except (ValueError, KeyError) as exc:
        raise BenchError(f"specward check printed no JSON report: {exc}") from None


def unrelated_edits(path: Path, finding_lines: set[int], rng: random.Random) -> int:
    """Comment and blank lines inserted above and between the findings, trailing blanks on
    other lines; never the findings' own lines. Returns the number of edits."""
    lines = path.read_text("utf-8").split("\n")
    comment = "#" if path.suffix in (".py", ".pyi") else "//"
    out: list[str] = []
    edits = 0
    for n, line in enumerate(lines, 1):
        if n in finding_lines:
            out.append(line)
            continue
        roll = rng.random()
        # a comment line inserted before a line that opens no multi-line construct of its own
        if roll < 0.08 and not line.rstrip().endswith(("`", "\\")) and (not out or not out[-1].rstrip().endswith(("`", "\\"))):
            out.append(f"{comment} note {edits}")
            edits += 1
        elif roll < 0.12:
            out.append("")
            edits += 1
        out.append(line)
    out = [f"{comment} reviewed", "", *out]
    path.write_text("\n".join(out), "utf-8")
    return edits + 2


def own_line_edits(path: Path, finding_lines: set[int]) -> None:
    """A trailing comment on each finding's own line (the line's text changes, not the finding)."""
    lines = path.read_text("utf-8").split("\n")
    comment = " # changed" if path.suffix in (".py", ".pyi") else " /* changed */"
    for n in finding_lines:
        lines[n - 1] = lines[n - 1] + comment
    path.write_text("\n".join(lines), "utf-8")


def file_level(d: dict) -> bool:
    """A finding on no text (a file skipped): its identity is its code, whatever the lines say."""
    return (d["line"], d["column"], d["end_line"], d["end_column"]) == (1, 1, 1, 1)


def sarif_errors(log: dict) -> list[str]:
    import jsonschema

    schema = json.loads(SCHEMA.read_text("utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in cls(schema).iter_errors(log)][:5]


def bench_one(name: str, source: Path, rng: random.Random) -> dict:
    labels = json.loads((LABELS / f"{name}.json").read_text("utf-8"))
    contracts = [a for c in labels["contracts"] for a in ("--contract", c)]
    roots = labels["roots"]
    row: dict = {"corpus": name}
    with tempfile.TemporaryDirectory(prefix=f"baseline-{name}-") as tmp:
        ws = Path(tmp) / name
        shutil.copytree(source, ws, symlinks=True)
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", "corpus")
        t0 = time.perf_counter()
        found = diagnostics(specward(ws, "check", "--format", "json", "--no-baseline", *contracts, *roots))
        row["check_s"] = time.perf_counter() - t0
        row["findings"] = len(found)
        # 1. recorded, then nothing new
        specward(ws, "check", "--write-baseline", "ci/baseline.json", *contracts, *roots)
        again = diagnostics(specward(ws, "check", "--format", "json", "--baseline", "ci/baseline.json",
                                     *contracts, *roots))
        row["new_right_after"] = len(again)
        # 4. SARIF of everything
        sarif = specward(ws, "check", "--format", "sarif", "--no-baseline", *contracts, *roots)
        log = json.loads(sarif.stdout)
        row["sarif_results"] = len(log["runs"][0]["results"])
        row["sarif_errors"] = sarif_errors(log)
        # 5. --changed-since: one file with findings touched
        by_file: dict[str, set[int]] = {}
        for d in found:
            by_file.setdefault(d["file"], set()).add(d["line"])
        if by_file:
            touched = sorted(by_file)[0]
            p = ws / touched
            p.write_text(p.read_text("utf-8") + "\n", "utf-8")
            since = diagnostics(specward(ws, "check", "--format", "json", "--no-baseline", "--changed-since", "HEAD",
                                         *contracts, *roots))
            files = {d["file"] for d in since}
            row["changed_since_has_touched"] = touched in files
            row["changed_since_files"] = len(files)
            row["all_files_with_findings"] = len(by_file)
            git(ws, "checkout", "-q", "--", touched)
        # 2. unrelated edits: nothing turns new
        edits = 0
        for rel, lines in sorted(by_file.items()):
            if (ws / rel).suffix in (".json", ".yaml", ".yml"):
                continue  # contract findings: their files are data, edited by hand rarely
            edits += unrelated_edits(ws / rel, lines, rng)
        row["unrelated_edits"] = edits
        moved = diagnostics(specward(ws, "check", "--format", "json", "--baseline", "ci/baseline.json",
                                     *contracts, *roots))
        row["new_after_unrelated"] = len(moved)
        row["new_after_unrelated_list"] = [f"{d['file']}:{d['line']} {d['code']}" for d in moved][:5]
        # 3. each finding's own line edited: every finding in a source file turns new
        git(ws, "checkout", "-q", "--", ".")
        judged = 0
        for rel, lines in sorted(by_file.items()):
            if (ws / rel).suffix in (".json", ".yaml", ".yml"):
                continue
            own_line_edits(ws / rel, lines)
            judged += sum(1 for d in found if d["file"] == rel and not file_level(d))
        turned = diagnostics(specward(ws, "check", "--format", "json", "--baseline", "ci/baseline.json",
                                      *contracts, *roots))
        row["own_line_findings"] = judged
        row["new_after_own_line"] = sum(1 for d in turned if (ws / d["file"]).suffix not in (".json", ".yaml", ".yml")
                                        and not file_level(d))
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", help="the corpus folder (default: ../shared/corpus next to the repository, "
                    "then /work/shared/corpus)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    candidates = [Path(args.corpus)] if args.corpus else [ROOT.parent / "shared" / "corpus",
                                                          Path("/work/shared/corpus")]
    corpus = next((c for c in candidates if c.is_dir()), candidates[0])
    if not corpus.is_dir():
        print(f"baseline corpus: {corpus} is absent: skipped")
        return 0
    rng = random.Random(args.seed)
    rows = []
    try:
        for name in ("karakeep", "sonarr"):
            if (corpus / name).is_dir():
                rows.append(bench_one(name, corpus / name, rng))
    except BenchError as exc:
        print(f"baseline corpus: {exc}", file=sys.stderr)
        return 2
    failed = []
    print("| corpus | findings | new right after writing (0) | unrelated edits | new after them (0) "
          "| own-line edits: new / findings (all) | SARIF results, schema errors (0) | --changed-since |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        since = (f"{r.get('changed_since_files', 0)} of {r.get('all_files_with_findings', 0)} files, touched one "
                 f"{'in' if r.get('changed_since_has_touched') else 'MISSING'}")
        print(f"| {r['corpus']} | {r['findings']} | {r['new_right_after']} | {r['unrelated_edits']} | "
              f"{r['new_after_unrelated']} | {r['new_after_own_line']} / {r['own_line_findings']} | "
              f"{r['sarif_results']}, {len(r['sarif_errors'])} | {since} |")
        if r["new_right_after"]:
            failed.append(f"{r['corpus']}: {r['new_right_after']} new right after writing the baseline")
        if r["new_after_unrelated"]:
            failed.append(f"{r['corpus']}: unrelated edits turned findings new: {r['new_after_unrelated_list']}")
        if r["new_after_own_line"] != r["own_line_findings"]:
            failed.append(f"{r['corpus']}: {r['new_after_own_line']} of {r['own_line_findings']} findings turned new "
                          "after their own line changed")
        if r["sarif_errors"] or r["sarif_results"] != r["findings"]:
            failed.append(f"{r['corpus']}: SARIF {r['sarif_results']} results, errors {r['sarif_errors']}")
        if r.get("all_files_with_findings") and not r.get("changed_since_has_touched"):
            failed.append(f"{r['corpus']}: --changed-since left out the touched file")
    for f in failed:
        print(f"MISSED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
