"""What ``specward check`` reports, in which format, and the exit status it calls for.

The findings of each project's index, narrowed to what was asked for (the paths given,
``--changed-since``), go through the baseline (``analyzers/baseline.py``: the findings it
records are counted, not shown) and the gates (configuration ``[gates]``), then out in
one format: ``text`` (for people, coloured at a terminal), ``json``, ``sarif``,
``github``, ``gitlab`` or ``junit`` (``report_formats.py``). ``docs/ci.md`` has the whole
story and the exit codes.

A finding fails the run when its code is a hard gate, or when it is an error and its code
is not a soft gate. Soft findings are reported and listed in the summary as accepted.
``--max-warnings N`` also fails a run with more than N warnings (soft ones not counted);
``--exit-zero`` turns a failing run into status 0 (usage and internal errors stay 2).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from specward.analyzers import baseline as bl
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Finding

from . import report_formats
from .engine.index import WorkspaceIndex
from .engine.reading import read_data, shown
from .terminal import Style

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class ReportError(Exception):
    """A problem with what the report was asked to use (a baseline file): exit 2."""


@dataclass
class Project:
    root: Path
    selected: list[str]  # root-relative posix paths ("" for the whole project)
    marker: str | None  # what made ``root`` the root: a file name, or None (the paths given)


@dataclass
class Run:
    project: Project
    index: WorkspaceIndex
    contracts: set[str]  # keys of the contracts named on the command line
    only: set[str] | None = None  # ``--changed-since``: the files whose findings are reported


@dataclass
class Options:
    format: str = "text"
    statistics: bool = False
    baseline: str | None = None  # --baseline FILE
    no_baseline: bool = False
    write_baseline: str | None = None
    max_warnings: int | None = None
    exit_zero: bool = False
    color: bool = False
    version: str = "unknown"


def show_path(cwd: Path, path: Path) -> str:
    return Path(os.path.relpath(path, cwd)).as_posix()


def in_selection(rel: str, selected: list[str]) -> bool:
    return any(s == "" or rel == s or rel.startswith(s.rstrip("/") + "/") for s in selected)


def config_rel(index: WorkspaceIndex) -> str | None:
    src = index.config.source
    return src.relative_to(index.root).as_posix() if src is not None else None


def reported(run: Run, rel: str) -> bool:
    """Findings on ``rel`` are printed: a path given (and, with ``--changed-since``, one
    whose findings the changes may touch), a contract named on the command line, or the
    configuration file (its problems concern every path)."""
    if rel in run.contracts or rel == config_rel(run.index):
        return True
    return in_selection(rel, run.project.selected) and (run.only is None or rel in run.only)


class Output:
    """Paths relative to the current folder, and the files' bytes and line indexes, read once each."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._lines: dict[str, LineIndex] = {}
        self._data: dict[str, bytes] = {}

    def path(self, root: Path, rel: str) -> str:
        """For JSON: the name as it is (a non-UTF-8 byte as its surrogate escape)."""
        return show_path(self.cwd, Path(os.path.join(root, rel)))

    def shown(self, root: Path, rel: str) -> str:
        """For people: a non-UTF-8 byte of a name as ``\\xNN``."""
        return shown(self.path(root, rel))

    def data(self, run: Run, rel: str) -> bytes:
        key = os.path.join(run.project.root, rel)
        found = self._data.get(key)
        if found is None:
            # read as the index reads: never a file outside the workspace (but a contract
            # named explicitly), never a named pipe, never more than the size limit
            found, _ = read_data(str(run.project.root), rel, run.index.settings.max_file_size,
                                 outside_ok=rel in run.index.ws.contract_files)
            found = found or b""
            self._data[key] = found
        return found

    def position(self, run: Run, rel: str, offset: int) -> tuple[int, int]:
        if offset == 0:
            return 1, 1
        key = os.path.join(run.project.root, rel)
        idx = self._lines.get(key)
        if idx is None:
            idx = self._lines[key] = LineIndex(self.data(run, rel))
        line, col = idx.position(offset)
        return line + 1, col + 1


def findings_of(run: Run) -> list[Finding]:
    """The findings to report: the index's, and one ``file-skipped`` per path the walk
    refused (a link out of the workspace, a folder too deep), once each."""
    found = run.index.all_findings()
    have = set(found)
    sev = {**run.index.settings.severity}
    extra = []
    for f in run.index.ws.skipped_findings():
        if f in have or sev.get(f.code) == "off":
            continue
        extra.append(replace(f, severity=sev[f.code]) if f.code in sev else f)
    # the index's are in path order already: a stable sort by path keeps each file's order
    return sorted((f for f in [*found, *extra] if reported(run, f.file)), key=lambda f: f.file)


# ====================================================================== the baseline
@dataclass
class _Item:
    run: Run
    finding: Finding
    row: report_formats.Row
    keyed: bl.Keyed


@dataclass
class _Baseline:
    path: Path | None  # the file read (or to be written); None: no baseline
    entries: list[bl.Entry] = field(default_factory=list)

    def rel(self, abs_path: str) -> str:
        folder = self.path.parent if self.path is not None else Path.cwd()
        return Path(os.path.relpath(abs_path, folder)).as_posix()


def _baseline_file(runs: list[Run], opts: Options, cwd: Path) -> tuple[Path | None, bool]:
    """The baseline to use and whether it was asked for explicitly (``--baseline``); the
    configuration's ``baseline`` (the first project's that names one) otherwise."""
    if opts.no_baseline:
        return None, False
    if opts.baseline:
        return Path(os.path.abspath(cwd / opts.baseline)), True
    for run in runs:
        name = run.index.settings.baseline
        if name:
            return Path(os.path.abspath(run.project.root / name)), False
    return None, False


def _read_baseline(path: Path, explicit: bool, out: Output) -> list[bl.Entry]:
    where = show_path(out.cwd, path)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        if explicit:
            raise ReportError(f"baseline {shown(where)}: no such file (record one with --write-baseline "
                              f"{shown(where)})") from None
        print(f"specward: warning: baseline {shown(where)}, named in the configuration, does not exist: every "
              "finding is new", file=sys.stderr)
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"baseline {shown(where)}: cannot read it ({exc})") from None
    try:
        return bl.parse(text)
    except bl.BaselineError as exc:
        raise ReportError(f"baseline {shown(where)}: {exc}; nothing was changed") from None


def _write_baseline(path: Path, items: list[_Item], runs: list[Run], out: Output) -> tuple[int, list[bl.Entry]]:
    """Record ``items``; the existing file's entries for files this run did not report on
    (another folder, outside ``--changed-since``) are kept. Written atomically. Returns how
    many findings were recorded, and every entry the file now holds."""
    old: list[bl.Entry] = []
    if path.exists():
        old = _read_baseline(path, True, out)

    def still_outside(entry: bl.Entry) -> bool:
        abs_path = os.path.normpath(os.path.join(path.parent, entry.file))
        for run in runs:
            root = str(run.project.root)
            if abs_path == root or abs_path.startswith(root.rstrip(os.sep) + os.sep):
                return not reported(run, Path(os.path.relpath(abs_path, root)).as_posix())
        return True

    kept = [e for e in old if still_outside(e)]
    new = bl.entries([i.keyed for i in items])
    merged = sorted([*kept, *new], key=lambda e: (e.file, e.code, e.fingerprint))
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(bl.render(merged), "utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"cannot write the baseline {shown(show_path(out.cwd, path))}: {exc}") from None
    return sum(e.count for e in new), merged


# ====================================================================== the report
def check(runs: list[Run], out: Output, opts: Options) -> int:
    path, explicit = _baseline_file(runs, opts, out.cwd)
    if opts.write_baseline:
        path, explicit = Path(os.path.abspath(out.cwd / opts.write_baseline)), True
    base = _Baseline(path)
    items = _items(runs, out, base)
    if opts.write_baseline:
        count, base.entries = _write_baseline(path, items, runs, out)
        print(f"specward: recorded {count} finding(s) in the baseline {shown(show_path(out.cwd, path))}",
              file=sys.stderr)
    elif path is not None:
        base.entries = _read_baseline(path, explicit, out)
    new_keys, old_keys = bl.split([i.keyed for i in items], base.entries)
    by_key = {id(i.keyed): i for i in items}
    new = [by_key[id(k)] for k in new_keys]
    summary = _summary(runs, out, new, len(old_keys), base)
    failing, reasons = _gate(new, opts, summary)
    _write(runs, out, opts, new, summary)
    for reason in reasons:
        print(f"specward: {reason}", file=sys.stderr)
    sys.stdout.flush()
    if failing and not opts.exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK


def _items(runs: list[Run], out: Output, base: _Baseline) -> list[_Item]:
    items = []
    for run in runs:
        root = run.project.root
        for f in findings_of(run):
            line, col = out.position(run, f.file, f.span.start)
            end_line, end_col = out.position(run, f.file, f.span.end)
            data = out.data(run, f.file) if f.span.end > 0 else b""  # (a file-level finding: nothing read)
            fp = bl.fingerprint(f.code, data, f.span.start, f.span.end)
            row = report_formats.Row(out.path(root, f.file), line, col, end_line, end_col, f.code, f.severity,
                                     f.message, fp)
            items.append(_Item(run, f, row, bl.Keyed(f, base.rel(os.path.join(root, f.file)), fp, line)))
    return items


def _soft(item: _Item) -> bool:
    return item.finding.code in item.run.index.settings.gates.soft


def _fails(item: _Item) -> bool:
    gates = item.run.index.settings.gates
    code = item.finding.code
    return code in gates.hard or (item.finding.severity == "error" and code not in gates.soft)


def _gate(new: list[_Item], opts: Options, summary: dict) -> tuple[bool, list[str]]:
    """Whether the run fails, and the lines on standard error that say why beyond the counts."""
    reasons = []
    failing = any(_fails(i) for i in new)
    hard_warnings = Counter(i.finding.code for i in new if _fails(i) and i.finding.severity != "error")
    if hard_warnings:
        listed = ", ".join(f"{n} {code}" for code, n in sorted(hard_warnings.items()))
        reasons.append(f"failing on hard gate(s): {listed}")
    warnings = summary["gated_warnings"]
    if opts.max_warnings is not None and warnings > opts.max_warnings:
        failing = True
        reasons.append(f"{warnings} warning(s), more than --max-warnings {opts.max_warnings}")
    if failing and opts.exit_zero:
        reasons.append("exit status 0 (--exit-zero)")
    return failing, reasons


def _summary(runs: list[Run], out: Output, new: list[_Item], baselined: int, base: _Baseline) -> dict:
    sev = Counter(i.finding.severity for i in new)
    calls: Counter[str] = Counter()
    indexed = contracts = endpoints = skipped = ncalls = 0
    without: list[str] = []  # the roots of the projects without any contract, as printed
    for run in runs:
        index = run.index
        if not index.contracts:
            without.append(out.path(run.project.root, "."))
        statuses = [s for s in index.all_statuses() if reported(run, s.call.file)]
        calls.update(s.status for s in statuses)
        indexed += len(index.facts)
        contracts += len(index.contracts)
        endpoints += len(index.table.endpoints)
        skipped += sum(1 for rel in (*index.skipped, *index.ws.skipped) if reported(run, rel))
        ncalls += len(statuses)
    accepted = Counter(i.finding.code for i in new if _soft(i))
    return {
        "errors": sev["error"], "warnings": sev["warning"], "information": sev["information"], "hints": sev["hint"],
        "files_with_findings": len({os.path.join(i.run.project.root, i.finding.file) for i in new}),
        "files_indexed": indexed, "contracts": contracts,
        "endpoints": endpoints, "calls": ncalls,
        "matched": calls["matched"], "phantom": calls["phantom"], "method_mismatch": calls["method-mismatch"],
        "unresolved": calls["unresolved"], "skipped_files": skipped,
        # a project without any contract: checked without the phantom-API checks
        "api_checks_skipped": bool(without), "projects_without_contract": without,
        "baselined": baselined, "baseline": show_path(out.cwd, base.path) if base.path is not None else None,
        "accepted": dict(sorted(accepted.items())),
        "failing": sum(1 for i in new if _fails(i)),
        "gated_warnings": sum(1 for i in new if i.finding.severity == "warning" and not _soft(i)
                              and not _fails(i)),
    }


def _statistics(new: list[_Item]) -> list[tuple[str, int, str]]:
    counts = Counter((i.finding.code, i.finding.severity) for i in new)
    return sorted(((code, n, sev) for (code, sev), n in counts.items()), key=lambda t: (-t[1], t[0], t[2]))


def _checked_files(runs: list[Run], out: Output) -> list[str]:
    files = set()
    for run in runs:
        for rel in run.index.facts:
            if reported(run, rel):
                files.add(out.path(run.project.root, rel))
        for rel in run.index.contracts:
            if reported(run, rel):
                files.add(out.path(run.project.root, rel))
    return sorted(files)


def _write(runs: list[Run], out: Output, opts: Options, new: list[_Item], summary: dict) -> None:
    rows = [i.row for i in new]
    fmt = opts.format
    stats = _statistics(new)
    public = {k: v for k, v in summary.items() if k != "gated_warnings"}
    if fmt == "json":
        diags = [{"file": r.file, "line": r.line, "column": r.column, "end_line": r.end_line,
                  "end_column": r.end_column, "code": r.code, "severity": r.severity, "message": r.message,
                  "fingerprint": r.fingerprint} for r in rows]
        doc = {"version": 1, "diagnostics": diags, "summary": public}
        if opts.statistics:
            doc["statistics"] = [{"code": c, "count": n, "severity": s} for c, n, s in stats]
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    if fmt == "text":
        style = Style(opts.color)
        if opts.statistics:
            width = max((len(c) for c, _, _ in stats), default=0)
            for code, n, sev in stats:
                print(f"{n:>6}  {code.ljust(width)}  {style(sev, sev)}")
        else:
            for r in rows:
                print(f"{style(shown(r.file), 'path')}:{r.line}:{r.column}: {style(r.severity, r.severity)}"
                      f"{style('[' + r.code + ']', 'code')} {shown(r.message)}")
        print(_summary_line(summary))
        if summary["accepted"]:
            print("accepted (soft gates): " + ", ".join(f"{n} {c}" for c, n in summary["accepted"].items()))
        return
    # the CI formats: the document on standard output, the statistics (if asked) on standard error
    checked = _checked_files(runs, out)
    if fmt == "sarif":
        json.dump(report_formats.sarif(rows, version=opts.version, checked_files=checked), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif fmt == "github":
        text = report_formats.github(rows)
        sys.stdout.write(text if not text or text.endswith("\n") else text + "\n")
    elif fmt == "gitlab":
        json.dump(report_formats.gitlab(rows), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif fmt == "junit":
        text = report_formats.junit(rows, checked_files=checked)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    print(f"specward: {_summary_line(summary)}", file=sys.stderr)
    if opts.statistics:
        for code, n, sev in stats:
            print(f"specward: {n:>6}  {code}  {sev}", file=sys.stderr)


def _summary_line(s: dict) -> str:
    parts = [f"{s['errors']} error(s)", f"{s['warnings']} warning(s)", f"{s['information']} information"]
    line = (f"{', '.join(parts)} in {s['files_with_findings']} file(s); {s['calls']} HTTP call(s): {s['matched']} "
            f"matched, {s['phantom']} phantom, {s['method_mismatch']} method mismatch, {s['unresolved']} unresolved; "
            f"{s['endpoints']} endpoint(s) in {s['contracts']} contract(s)")
    if s["baseline"] is not None:
        line += f"; {s['baselined']} in the baseline {s['baseline']} not shown"
    return line

