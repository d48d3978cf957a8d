"""``specward restore RUN_ID [--yes]``: undo what a stage run wrote, from its snapshot
(``server/snapshots.py``; ``docs/stages.md``, "Undoing a run").

A file the run overwrote gets its old bytes back; a file the run created is removed; but
only where the file is still exactly what the run wrote. A file changed since (edited,
removed, regenerated) is left alone and said so: restoring never loses later work. The
plan is shown first, each change with its diff, and made only with ``--yes`` or a yes at a
terminal (``approval.approved``). A damaged snapshot is an error and nothing is changed.

Exit codes: 0 restored (or nothing left to restore), 1 something left alone or not
approved, 2 usage error (no such run, a damaged snapshot, a path out of the workspace).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from specward.analyzers.stages.confine import PathRefused

from . import snapshots
from .approval import approved, confirmed, replace_file
from .engine.reading import shown
from .stage_run import EXIT_NOT_WRITTEN, EXIT_OK, EXIT_USAGE, project_root
from .stages_paths import resolve_inside


@dataclass
class Step:
    path: str
    action: str  # "restore", "remove", "changed", "done", "unwritten"
    old: bytes | None = None  # what to put back ("restore")
    now: bytes | None = None  # what is there now


def plan(root, run_id: str) -> list[Step]:
    """What restoring run ``run_id`` would do, file by file; SnapshotError when the
    snapshot is damaged (before anything is changed)."""
    steps = []
    for e in snapshots.load(root, run_id):
        if e.written is None:
            steps.append(Step(e.path, "unwritten"))
            continue
        now = snapshots._read(root, e.path)
        now_hash = None if now is None else snapshots.sha256_bytes(now)
        if now_hash == e.before:
            steps.append(Step(e.path, "done", now=now))
        elif now_hash != e.written:
            steps.append(Step(e.path, "changed", now=now))
        elif e.existed:
            steps.append(Step(e.path, "restore", old=snapshots.kept_bytes(root, run_id, e), now=now))
        else:
            steps.append(Step(e.path, "remove", now=now))
    return steps


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def add_subparser(subparsers) -> None:
    p = subparsers.add_parser("restore", help="undo the files a stage run wrote (from .specward/snapshots/RUN_ID)")
    p.add_argument("run_id", metavar="RUN_ID", help="the run's id (specward trend, .specward/runs.jsonl)")
    p.add_argument("--yes", action="store_true", help="restore without asking")


def run(args: argparse.Namespace) -> int:
    root = project_root()
    try:
        steps = plan(root, args.run_id)
    except (snapshots.SnapshotError, PathRefused) as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    left, declined = False, False
    for s in steps:
        rel = shown(s.path)
        if s.action == "unwritten":
            print(f"{rel}: not written by run {args.run_id}: nothing to restore", file=sys.stderr)
        elif s.action == "done":
            print(f"{rel}: already as it was before run {args.run_id}", file=sys.stderr)
        elif s.action == "changed":
            left = True
            print(f"specward: {rel}: changed since run {args.run_id} wrote it: left alone "
                  "(restore it by hand if you want to)", file=sys.stderr)
    for s in steps:
        if s.action not in ("restore", "remove"):
            continue
        rel = shown(s.path)
        try:
            if s.action == "restore":
                try:
                    old_text = s.old.decode("utf-8")
                except UnicodeDecodeError:
                    print(f"specward: {rel}: its kept copy is not UTF-8 text: left alone", file=sys.stderr)
                    left = True
                    continue
                if not approved(s.path, _text(s.now), old_text, args.yes):
                    declined = True
                    continue
                found = _still_as_written(root, s, rel)
                if found is None:
                    left = True
                    continue
                replace_file(found.real, old_text)
                print(f"restored {rel}", file=sys.stderr)
            else:
                print(f"specward will remove {rel} (run {args.run_id} created it)")
                if not _confirm(rel, args.yes):
                    declined = True
                    continue
                found = _still_as_written(root, s, rel)
                if found is None:
                    left = True
                    continue
                os.unlink(found.real)
                print(f"removed {rel}", file=sys.stderr)
        except (OSError, PathRefused, snapshots.SnapshotError) as exc:
            print(f"specward: {rel}: not restored: {exc}", file=sys.stderr)
            left = True
    return EXIT_NOT_WRITTEN if left or declined else EXIT_OK


def _still_as_written(root, s, rel: str):
    """The file of step ``s`` resolved, checked again just before it is changed: None (and
    a message) when it changed since the user was asked."""
    found = resolve_inside(root, s.path)
    if snapshots.current_hash(root, s.path) != snapshots.sha256_bytes(s.now or b""):
        print(f"specward: {rel}: changed meanwhile: left alone", file=sys.stderr)
        return None
    return found


def _confirm(rel: str, yes: bool) -> bool:
    """The yes of ``approval.approved`` for a removal (no diff to show but the file's end)."""
    return yes or confirmed(rel, f"Remove {rel}? [y/N] ", "remove", "removed")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f"specward: {rel} not removed: no terminal to ask; pass --yes to remove it", file=sys.stderr)
        return False
    try:
        reply = input(f"Remove {rel}? [y/N] ")
    except EOFError:
        reply = ""
    if reply.strip().lower() not in ("y", "yes"):
        print(f"specward: {rel} not removed", file=sys.stderr)
        return False
    return True
