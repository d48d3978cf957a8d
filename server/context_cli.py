"""``specward context``: context manifests on the command line (``docs/context.md``).

- ``capture TARGET ... [--depth N] [--include PATH ...]``: write a manifest of what a task
  reads (the targets, what they import up to the depth, the configuration files that
  govern them, the includes) under ``.specward/context/`` and print its path; then check
  it, and while the check asks for includes, capture again with them (at most
  ``--rounds``, default ``[context] max_rounds``, 3);
- ``check MANIFEST``: every import of a target resolves, the files and symbols
  configuration requires for the task are in the context, nothing is stale; each missing
  item is printed with its remedy;
- ``activate MANIFEST`` / ``deactivate MANIFEST``: mark the task as running (edits are
  judged against its context in the editor and by ``check``) or done.

The project is the one the first path belongs to (found as ``check`` finds it). Exit
codes: 0 the context is complete, 1 something is missing or stale (printed), 2 a usage
error or a manifest that cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from specward.analyzers.context import DEFAULT_DEPTH, Missing, parse_manifest

from .engine.contexts import capture, check, write_manifest
from .engine.index import WorkspaceIndex
from .engine.reading import read_file, shown
from .engine.workspace import find_project_root

EXIT_OK, EXIT_MISSING, EXIT_USAGE = 0, 1, 2


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("context", help="context manifests: capture, check, activate, deactivate")
    sub = p.add_subparsers(dest="context_command", required=True)
    c = sub.add_parser("capture", help="record what a task reads, from the import graph")
    c.add_argument("targets", nargs="+", metavar="TARGET", help="the files the task works on")
    c.add_argument("--depth", type=int, default=None, metavar="N",
                   help=f"import hops to follow from the targets (default: [context] depth, {DEFAULT_DEPTH})")
    c.add_argument("--include", action="append", default=[], metavar="PATH", help="also give the task this file")
    c.add_argument("--task", default="", help="the task's name (default: the first target's name)")
    c.add_argument("--forbid", action="append", default=[], metavar="SYMBOL",
                   help="a symbol the task must not use (besides what configuration forbids)")
    c.add_argument("--activate", action="store_true", help="mark the task as running")
    c.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="captures to repeat with the includes the check asks for (default: [context] max_rounds)")
    c.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
    k = sub.add_parser("check", help="say what a task's context lacks, and how to add it")
    k.add_argument("manifest", metavar="MANIFEST")
    k.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
    for name, helptext in (("activate", "mark a task as running"), ("deactivate", "mark a task as done")):
        a = sub.add_parser(name, help=helptext)
        a.add_argument("manifest", metavar="MANIFEST")
    return p


def _root_and_rels(paths: list[str]) -> tuple[Path, list[str]]:
    resolved = []
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise ValueError(f"{p}: no such file")
        resolved.append(path.resolve())
    hit = find_project_root(resolved[0])
    root = hit[0] if hit else (resolved[0] if resolved[0].is_dir() else resolved[0].parent)
    rels = []
    for p, path in zip(paths, resolved):
        try:
            rels.append(path.relative_to(root).as_posix())
        except ValueError:
            raise ValueError(f"{p} is outside the project {root}") from None
    return root, rels


def _index(root: Path, no_cache: bool) -> WorkspaceIndex:
    index = WorkspaceIndex(root, use_cache=not no_cache)
    index.build()
    return index


def _print_missing(missing: list[Missing]) -> None:
    for m in missing:
        print(f"missing: {m.what}")
        if m.remedy:
            print(f"  remedy: {m.remedy}")


def run(args: argparse.Namespace) -> int:
    try:
        if args.context_command == "capture":
            return _capture(args)
        return _manifest_command(args)
    except ValueError as exc:
        print(f"specward: error: {shown(str(exc))}", file=sys.stderr)
        return EXIT_USAGE


def _capture(args: argparse.Namespace) -> int:
    root, targets = _root_and_rels(args.targets)
    includes = _root_and_rels(args.include)[1] if args.include else []
    for t in targets:
        if (root / t).is_dir():
            raise ValueError(f"{t} is a folder: name the files the task works on")
    index = _index(root, args.no_cache)
    settings = index.settings.context
    depth = settings.depth if args.depth is None else args.depth
    if depth < 0:
        raise ValueError("--depth must be 0 or more")
    rounds = settings.max_rounds if args.rounds is None else args.rounds
    if rounds < 1:
        raise ValueError("--rounds must be 1 or more")
    rel, missing = "", []
    for n in range(1, rounds + 1):
        rel, manifest = capture(index, targets, depth, includes, args.task, active=args.activate,
                                forbidden=args.forbid)
        missing = check(index, manifest)
        more = [m.remedy.split(" ", 1)[1] for m in missing if m.remedy and m.remedy.startswith("--include ")]
        more = [p for p in more if p not in includes]
        if not more or n == rounds:
            break
        print(f"round {n}: adding {', '.join(more)}", file=sys.stderr)
        includes = includes + more
    print(rel)
    _print_missing(missing)
    return EXIT_MISSING if missing else EXIT_OK


def _manifest_command(args: argparse.Namespace) -> int:
    root, (rel,) = _root_and_rels([args.manifest])
    ft = read_file(root, rel, 5_000_000)
    if ft.text is None:
        raise ValueError(f"cannot read {args.manifest}: {ft.reason}")
    manifest, problems = parse_manifest(rel, ft.text)
    if manifest is None or problems:
        for f in problems:
            print(f"{args.manifest}: {f.message}", file=sys.stderr)
        return EXIT_USAGE
    if args.context_command in ("activate", "deactivate"):
        manifest.active = args.context_command == "activate"
        write_manifest(root, rel, manifest)
        print(f"{args.manifest}: task {manifest.task!r} is {'active' if manifest.active else 'done'}")
        return EXIT_OK
    index = _index(root, args.no_cache)
    missing = check(index, manifest)
    _print_missing(missing)
    if not missing:
        print(f"{args.manifest}: the context of task {manifest.task!r} is complete")
    return EXIT_MISSING if missing else EXIT_OK
