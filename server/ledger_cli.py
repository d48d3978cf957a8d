"""``specward ledger``: the fix-history ledger on the command line (``docs/ledger.md``).

- ``list``: the patterns, most frequent first (``--format json`` for tools);
- ``stats``: totals by ledger, stage, reason;
- ``add``: append one record to the workspace's ledger (``--user``: the user's);
- ``prune --older-than DAYS``: drop older records (the only command that drops any);
- ``prompt``: the "DO NOT REPEAT" section code generation injects (byte-identical for the
  same records).

The project is the one of ``--project`` (default: the current folder), found as ``check``
finds it. Ledger lines that cannot be read are reported on standard error as findings and
do not change the exit status: 0, or 2 for a usage error or a ledger that cannot be written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from specward.analyzers import ledger as core
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Finding

from .arg_types import finite_number, int_at_least
from .engine import ledger as store
from .engine.reading import shown
from .engine.workspace import find_project_root

EXIT_OK, EXIT_USAGE = 0, 2


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Register ``specward ledger ...`` on the ``specward`` parser's subparsers."""
    p = subparsers.add_parser("ledger", help="the fix-history ledger: list, stats, add, prune, prompt")
    sub = p.add_subparsers(dest="ledger_command", required=True)

    def common(c: argparse.ArgumentParser) -> None:
        c.add_argument("--project", default=".", metavar="PATH",
                       help="a file or folder of the project (default: .); its root is found as `check` finds it")
        c.add_argument("--user", action="store_true",
                       help="also read the user's ledger (add, prune: write the user's ledger instead)")

    for name, helptext in (("list", "the patterns, most frequent first"), ("stats", "totals of the ledgers")):
        c = sub.add_parser(name, help=helptext)
        common(c)
        c.add_argument("--format", choices=("text", "json"), default="text")
    c = sub.add_parser("add", help="append one record to the ledger")
    common(c)
    c.add_argument("--source", required=True, help="the module as the broken import wrote it")
    c.add_argument("--names", default="", help="the names it imported, comma-separated (none: '')")
    c.add_argument("--reason", default="file_not_found", help="file_not_found (default) or missing_export")
    c.add_argument("--file", required=True, help="the file of the broken import (workspace-relative)")
    c.add_argument("--line", type=int_at_least(0, "a line number"), default=0, help="its line (1-based)")
    c.add_argument("--fix-kind", required=True, help=f"how it was fixed: {', '.join(core.FIX_KINDS)}")
    c.add_argument("--fix-target", default="", help="the new module (rewrite_import), old=new (rename), "
                                                     "the file (create_file, append_to_file)")
    c.add_argument("--stage", default="manual", help=f"who fixed it: {', '.join(core.STAGES)} (default: manual)")
    c.add_argument("--run-id", help="the run that made the mistake (default: one made up from the time)")
    c = sub.add_parser("prune", help="drop the records older than DAYS days (rewrites the ledger)")
    common(c)
    c.add_argument("--older-than", type=finite_number(True, "a number of days, 0 or more"), required=True, metavar="DAYS")
    c = sub.add_parser("prompt", help='print the "DO NOT REPEAT" section for code generation prompts')
    common(c)
    c.add_argument("--limit", type=int, default=core.PROMPT_ITEMS, metavar="N",
                   help=f"patterns to include (default: {core.PROMPT_ITEMS})")
    return p


def _root(project: str) -> Path:
    path = Path(project)
    if not path.exists():
        raise _Usage(f"{project}: no such file or folder")
    path = path.resolve()
    hit = find_project_root(path)
    if hit is not None:
        return hit[0]
    return path if path.is_dir() else path.parent


class _Usage(Exception):
    pass


def _report(root: Path, findings: tuple[Finding, ...]) -> None:
    """ledger-invalid findings on stderr, as `check` prints findings."""
    cwd = Path.cwd()
    lines: dict[str, LineIndex] = {}
    for f in findings:
        path = Path(f.file) if os.path.isabs(f.file) else root / f.file
        key = str(path)
        if key not in lines:
            try:
                lines[key] = LineIndex(path.read_bytes())
            except OSError:
                lines[key] = LineIndex(b"")
        line, col = lines[key].position(f.span.start) if f.span.start else (0, 0)
        name = shown(os.path.relpath(path, cwd))
        print(f"{name}:{line + 1}:{col + 1}: {f.severity}[{f.code}] {shown(f.message)}", file=sys.stderr)


def _load(args: argparse.Namespace) -> tuple[Path, core.Patterns]:
    root = _root(args.project)
    patterns, findings = store.load(root, user=args.user)
    _report(root, findings)
    if args.user:
        upath = store.user_ledger_path()
        if upath is not None:
            _report(root, store.read_ledger(upath, str(upath))[1])
    return root, patterns


def _pattern_json(p: core.Pattern) -> dict:
    return {"patternKey": p.key, "source": p.source, "names": list(p.names), "reason": p.reason, "count": p.count,
            "firstSeen": p.first_seen, "lastSeen": p.last_seen, "runs": p.runs,
            "fix": {"kind": p.fix.kind, "target": p.fix.target, "stage": p.fix.stage},
            "ledgers": sorted({r.ledger for r in p.records})}


def _list(args: argparse.Namespace) -> int:
    _, patterns = _load(args)
    if args.format == "json":
        json.dump([_pattern_json(p) for p in patterns], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    headers = ("PATTERN", "COUNT", "LAST SEEN", "REASON", "IMPORT", "LAST FIX")
    rows = [(p.key, str(p.count), p.last_seen[:10], p.reason, core.import_text(p.source, p.names),
             f"{p.fix.kind} {p.fix.target}".strip() + f" ({p.fix.stage})") for p in patterns]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    for row in (headers, *rows):
        print(shown("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()))
    print(f"{len(rows)} pattern(s), {len(patterns.records)} record(s)")
    return EXIT_OK


def _stats(args: argparse.Namespace) -> int:
    root, patterns = _load(args)
    records = patterns.records
    by_ledger = Counter(r.ledger for r in records)
    stats = {
        "records": len(records), "patterns": len(patterns), "runs": len({r.run_id for r in records}),
        "lastEntry": max((r.ts for r in records), key=lambda t: (core.parse_ts(t) or 0.0, t), default=None),
        "byLedger": dict(sorted(by_ledger.items())),
        "byStage": dict(sorted(Counter(r.fix.stage for r in records).items())),
        "byReason": dict(sorted(Counter(r.broken.reason for r in records).items())),
        "byFix": dict(sorted(Counter(r.fix.kind for r in records).items())),
    }
    if args.format == "json":
        json.dump(stats, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    print(f"{stats['records']} record(s) in {stats['patterns']} pattern(s) from {stats['runs']} run(s); "
          f"last entry {stats['lastEntry'] or 'none'}")
    for title, key in (("ledger", "byLedger"), ("stage", "byStage"), ("reason", "byReason"), ("fix", "byFix")):
        if stats[key]:
            print(f"by {title}: " + ", ".join(f"{shown(k)} {v}" for k, v in stats[key].items()))
    return EXIT_OK


def _add(args: argparse.Namespace) -> int:
    root = _root(args.project)
    names = tuple(n.strip() for n in args.names.split(",") if n.strip())
    if not args.source.strip():
        raise _Usage("--source must name a module")
    file = args.file
    if os.path.isabs(file):  # kept workspace-relative, as every record names files
        try:
            file = Path(file).resolve().relative_to(root).as_posix()
        except ValueError:
            raise _Usage(f"--file {args.file} is not inside the project {root}") from None
    now = time.time()
    record = core.make_record(args.source, names, args.reason, file, args.line, args.fix_kind, args.fix_target,
                              args.stage, core.format_ts(now), args.run_id or store.new_run_id("cli", now))
    if args.user:
        path = store.user_ledger_path()
        if path is None:
            raise _Usage("no user data folder (set XDG_DATA_HOME or HOME)")
        store.append(path, record)
    else:
        path = store.ledger_path(root)
        store.append(path, record, root=root)
    print(f"recorded pattern {record.pattern_key} in {shown(os.path.relpath(path, Path.cwd()))}")
    return EXIT_OK


def _prune(args: argparse.Namespace) -> int:
    root = _root(args.project)
    if args.user:
        path = store.user_ledger_path()
        if path is None:
            raise _Usage("no user data folder (set XDG_DATA_HOME or HOME)")
        removed, kept = store.prune(path, args.older_than)
    else:
        path = store.ledger_path(root)
        removed, kept = store.prune(path, args.older_than, root=root)
    print(f"{shown(os.path.relpath(path, Path.cwd()))}: removed {removed} record(s) older than "
          f"{args.older_than:g} day(s), kept {kept}")
    return EXIT_OK


def _prompt(args: argparse.Namespace) -> int:
    if args.limit <= 0:
        raise _Usage("--limit must be positive")
    _, patterns = _load(args)
    sys.stdout.write(core.prompt(patterns, args.limit))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run ``specward ledger <command>``; the exit status."""
    commands = {"list": _list, "stats": _stats, "add": _add, "prune": _prune, "prompt": _prompt}
    try:
        status = commands[args.ledger_command](args)
    except _Usage as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except store.LedgerError as exc:
        print(f"specward: error: {shown(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.flush()
    return status
