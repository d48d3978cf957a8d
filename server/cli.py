"""The ``specward`` command: ``serve`` (the language server), ``check`` and ``calls`` (the
same engine once, for CI and audits).

Exit codes of ``check``: 0 when no error-severity finding, 1 when there is one, 2 for
usage or configuration errors. Lines and columns printed are 1-based; columns count
Unicode code points.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from pathlib import Path

from specward.analyzers.lines import LineIndex
from specward.analyzers.matching import full_path
from specward.analyzers.model import Finding

from .index import WorkspaceIndex

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="specward", description="Keeps AI-written code honest: "
                                "phantom API calls and more, in the editor and in CI.")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the language server over stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default and only transport)")
    serve.add_argument("--log-file", help="also write the server log to this file")
    for name, helptext, default in (("check", "report diagnostics like a compiler", "text"),
                                    ("calls", "list every HTTP call found and its status", "text")):
        c = sub.add_parser(name, help=helptext)
        c.add_argument("paths", nargs="*", metavar="PATH",
                       help="a workspace folder, or files and folders inside the current workspace (default: .)")
        c.add_argument("--contract", action="append", metavar="FILE",
                       help="contract file to use instead of discovery (repeatable)")
        c.add_argument("--format", choices=("text", "json"), default=default)
        c.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from .lsp.server import run_stdio

        run_stdio(args.log_file)
        return EXIT_OK
    logging.basicConfig(level=logging.WARNING, format="specward: %(message)s", stream=sys.stderr)
    try:
        root, selected = _workspace(args.paths)
        contracts = _contracts(root, args.contract)
    except UsageError as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    index = WorkspaceIndex(root, contract_globs=contracts, use_cache=not args.no_cache)
    index.build()
    if index.config.problems:
        for f in index.config.problems:
            print(_text_line(root, f), file=sys.stderr)
        src = index.config.source.name if index.config.source else "configuration"
        print(f"specward: error: invalid configuration in {src}", file=sys.stderr)
        return EXIT_USAGE
    if index.skipped:
        items = sorted(index.skipped.items())
        shown = ", ".join(f"{p} ({why})" for p, why in items[:5])
        more = f" and {len(items) - 5} more" if len(items) > 5 else ""
        print(f"specward: skipped {len(items)} file(s): {shown}{more}", file=sys.stderr)
    if args.command == "calls":
        return _calls(index, root, selected, args.format)
    return _check(index, root, selected, args.format)


def _workspace(paths: list[str]) -> tuple[Path, list[str] | None]:
    cwd = Path.cwd()
    if not paths:
        return cwd.resolve(), None
    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"{p}: no such file or folder")
    if len(paths) == 1 and Path(paths[0]).is_dir():
        return Path(paths[0]).resolve(), None
    root = cwd.resolve()
    selected = []
    for p in paths:
        try:
            rel = Path(p).resolve().relative_to(root).as_posix()
        except ValueError:
            raise UsageError(f"{p} is outside the workspace {root}; run specward from a folder that contains it") from None
        selected.append("" if rel == "." else rel)
    return root, selected


def _contracts(root: Path, files: list[str] | None) -> list[str] | None:
    if not files:
        return None
    out = []
    for f in files:
        path = Path(f)
        if not path.is_file():
            raise UsageError(f"--contract {f}: no such file")
        try:
            out.append(path.resolve().relative_to(root).as_posix())
        except ValueError:
            raise UsageError(f"--contract {f} is outside the workspace {root}") from None
    return out


def _in_selection(rel: str, selected: list[str] | None) -> bool:
    if not selected:
        return True
    return any(s == "" or rel == s or rel.startswith(s.rstrip("/") + "/") for s in selected)


class _Positions:
    """Line indexes of files, read once each."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, LineIndex] = {}

    def __call__(self, rel: str, offset: int) -> tuple[int, int]:
        idx = self._cache.get(rel)
        if idx is None:
            try:
                idx = LineIndex((self.root / rel).read_bytes())
            except OSError:
                idx = LineIndex(b"")
            self._cache[rel] = idx
        line, col = idx.position(offset)
        return line + 1, col + 1


def _text_line(root: Path, f: Finding, pos: _Positions | None = None) -> str:
    pos = pos or _Positions(root)
    line, col = pos(f.file, f.span.start)
    return f"{f.file}:{line}:{col}: {f.severity}[{f.code}] {f.message}"


def _check(index: WorkspaceIndex, root: Path, selected: list[str] | None, fmt: str) -> int:
    findings = [f for f in index.all_findings() if _in_selection(f.file, selected)]
    statuses = [s for s in index.all_statuses() if _in_selection(s.call.file, selected)]
    pos = _Positions(root)
    sev = Counter(f.severity for f in findings)
    calls = Counter(s.status for s in statuses)
    files = len({f.file for f in findings})
    summary = {
        "errors": sev["error"], "warnings": sev["warning"], "information": sev["information"], "hints": sev["hint"],
        "files_with_findings": files, "files_indexed": len(index.facts), "contracts": len(index.contracts),
        "endpoints": len(index.table.endpoints), "calls": len(statuses),
        "matched": calls["matched"], "phantom": calls["phantom"], "method_mismatch": calls["method-mismatch"],
        "unresolved": calls["unresolved"], "skipped_files": len(index.skipped),
    }
    if fmt == "json":
        diags = []
        for f in findings:
            line, col = pos(f.file, f.span.start)
            end_line, end_col = pos(f.file, f.span.end)
            diags.append({"file": f.file, "line": line, "column": col, "end_line": end_line, "end_column": end_col,
                          "code": f.code, "severity": f.severity, "message": f.message})
        json.dump({"version": 1, "diagnostics": diags, "summary": summary}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for f in findings:
            print(_text_line(root, f, pos))
        parts = [f"{summary['errors']} error(s)", f"{summary['warnings']} warning(s)",
                 f"{summary['information']} information"]
        print(f"{', '.join(parts)} in {files} file(s); {len(statuses)} HTTP call(s): {calls['matched']} matched, "
              f"{calls['phantom']} phantom, {calls['method-mismatch']} method mismatch, {calls['unresolved']} unresolved; "
              f"{len(index.table.endpoints)} endpoint(s) in {len(index.contracts)} contract(s)")
    return EXIT_FINDINGS if sev["error"] else EXIT_OK


def _calls(index: WorkspaceIndex, root: Path, selected: list[str] | None, fmt: str) -> int:
    pos = _Positions(root)
    rows = []
    for st in index.all_statuses():
        c = st.call
        if not _in_selection(c.file, selected):
            continue
        line, col = pos(c.file, c.span.start)
        rows.append({"file": c.file, "line": line, "column": col, "method": c.method, "url": c.template,
                     "status": st.status,
                     "endpoint": f"{st.endpoint.method} {full_path(st.endpoint)}" if st.endpoint and st.status == "matched" else None,
                     "via": c.via, "reason": c.reason})
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    headers = ("LOCATION", "METHOD", "URL", "STATUS", "ENDPOINT")
    table = [(f"{r['file']}:{r['line']}:{r['column']}", r["method"], r["url"] or "?", r["status"],
              r["endpoint"] or (r["reason"] or "")) for r in rows]
    widths = [max([len(h)] + [len(t[i]) for t in table]) for i, h in enumerate(headers)]
    for row in (headers, *table):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    counts = Counter(r["status"] for r in rows)
    print(f"{len(rows)} call(s): " + ", ".join(f"{counts[k]} {k}" for k in ("matched", "phantom", "method-mismatch", "unresolved")))
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
