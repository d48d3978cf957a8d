"""``specward routes [PATH ...] [--format text|json]``: every backend route the project
declares, with its full path composed across the files that mount its router
(``analyzers/routes.py``, ``docs/routes.md``), the handler, the framework, and how the path
was composed. Routes whose full path is not known (a prefix that is not a literal) are
listed as unresolved, with the reason. Exit 0, or 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from specward.analyzers.lines import LineIndex

from .engine.index import WorkspaceIndex
from .engine.reading import read_data, shown
from .engine.workspace import find_project_root

EXIT_OK, EXIT_USAGE = 0, 2


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("routes", help="list the backend's routes with their full paths")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files and folders whose routes to list (default: .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
    return p


class _Positions:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.lines: dict[str, LineIndex | None] = {}

    def of(self, rel: str, offset: int) -> tuple[int, int]:
        if rel not in self.lines:
            data, _ = read_data(str(self.root), rel, 50_000_000)
            self.lines[rel] = LineIndex(data) if data is not None else None
        li = self.lines[rel]
        if li is None:
            return 1, 1
        line, col = li.position(offset)  # code points, as `check` prints them
        return line + 1, col + 1


def run(args: argparse.Namespace) -> int:
    cwd = Path.cwd().resolve()
    paths = [Path(p).resolve() for p in (args.paths or ["."])]
    for given, p in zip(args.paths or ["."], paths):
        if not p.exists():
            print(f"specward: error: {given}: no such file or folder", file=sys.stderr)
            return EXIT_USAGE
    hit = find_project_root(paths[0])
    root = hit[0] if hit else (paths[0] if paths[0].is_dir() else paths[0].parent)
    selected = []
    for p in paths:
        try:
            rel = p.relative_to(root).as_posix()
        except ValueError:
            print(f"specward: error: {shown(str(p))} is outside the project {shown(str(root))}", file=sys.stderr)
            return EXIT_USAGE
        selected.append("" if rel == "." else rel)
    index = WorkspaceIndex(root, use_cache=not args.no_cache)
    index.build()
    pos = _Positions(root)

    def shown_file(rel: str) -> str:
        return shown(os.path.relpath(root / rel, cwd))

    def where(rel: str, offset: int) -> str:
        line, col = pos.of(rel, offset)
        return f"{shown_file(rel)}:{line}:{col}"

    items = []
    for c in index.composed_routes():
        if not any(s == "" or c.file == s or c.file.startswith(s + "/") for s in selected):
            continue
        steps = [{"text": s.text, "kind": s.kind, "at": where(s.file, s.span.start)} for s in c.steps]
        items.append({
            "method": c.method, "path": c.path, "framework": c.route.framework, "at": where(c.file, c.route.span.start),
            "handler": c.route.handler,
            "handler_at": where(c.file, c.route.handler_span.start) if c.route.handler_span else None,
            "composed": steps, "unresolved": c.unresolved,
        })
    if args.format == "json":
        json.dump({"routes": items}, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return EXIT_OK
    for it in items:
        parts = []
        for s in it["composed"]:
            place = "here" if s["kind"] == "route" else f"from {s['at'].rsplit(':', 1)[0]}"
            parts.append(f"{s['text'] or '/'} {place}")
        how = " + ".join(parts)
        handler = f" {it['handler']}" if it["handler"] else ""
        line = f"{it['method']} {it['path']}  {it['at']}  {it['framework']}{handler}  ({how})"
        if it["unresolved"]:
            line += f"  unresolved: {it['unresolved']}"
        print(line)
    unresolved = sum(1 for it in items if it["unresolved"])
    print(f"{len(items)} route(s), {unresolved} unresolved", file=sys.stderr)
    return EXIT_OK
