"""The ``specward`` command: ``serve`` (the language server), ``check`` and ``calls`` (the
same engine once, for CI and audits).

``check`` and ``calls`` take files and folders (default: the current folder). Each path
belongs to a project: the nearest folder at or above it with a ``specward.toml``, a
``pyproject.toml`` with ``[tool.specward]``, or a ``.git`` (``workspace.find_project_root``);
with none of them, the folder given (or the common folder of the paths given) is the
project. The whole project is indexed with its contracts and configuration; only the
paths given are reported. Paths in several projects: each project is checked in turn.
Every path printed is relative to the current folder.

A project without any contract is checked all the same: every check that needs none runs
(imports, exports, dependencies, the ledger), its HTTP calls are all ``unresolved``, and
standard error says once, as a note, that the phantom-API checks were skipped
(``--allow-no-contract`` silences the note; ``--require-contract`` makes it an error, exit
2). A project whose configuration names contracts of which none exists is still an error
(exit 2; ``--allow-no-contract`` makes it a warning). A contract that exists but is not
valid is a ``contract-invalid`` finding, whatever the options.

Exit codes of ``check`` (the table: ``docs/ci.md``): 0 when no finding fails the run, 1 when
one does (an error, unless its code is a soft gate; a hard gate's finding; more warnings than
``--max-warnings``; findings a baseline records never fail it), 2 for usage errors, an
invalid configuration (reported after checking with the defaults), a baseline that cannot
be used, no contract where one is required (above) and an internal error (one line on
standard error: a crash never looks like findings). ``calls`` exits 0 or 2.
Lines and columns printed are 1-based; columns count Unicode code points. File names are
kept as the bytes they are: JSON output carries a name that is not UTF-8 with its
surrogate escapes (``\udcff``, ``os.fsencode`` gives the bytes back), text output prints
such bytes as ``\xff``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections import Counter
from pathlib import Path

from specward.analyzers.matching import full_path

# (mcp_server imports the MCP SDK, and generate_cli litellm, only when their command runs)
from . import (context_cli, export_cli, generate_cli, impact_cli, ledger_cli, mcp_server, mock_cli, restore_cli,
               routes_cli, runs_cli, score_cli)
from . import terminal
from .arg_types import finite_number, int_at_least
from .check_report import Options, Output, Project, ReportError, Run, check, config_rel, in_selection, show_path
from .engine.index import WorkspaceIndex
from .engine.reading import shown
from .engine.workspace import find_project_root

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_ERROR = 2  # an internal error: never 1, which means findings

log = logging.getLogger(__name__)


class UsageError(Exception):
    pass


def version() -> str:
    """The installed distribution's version (a checkout that was never installed: ``unknown``)."""
    from importlib.metadata import PackageNotFoundError, version as dist_version

    try:
        return dist_version("specward")
    except PackageNotFoundError:
        return "unknown"


# the subcommands that live in their own module (the others, `check` and `calls`: _run)
_RUNNERS = {"ledger": ledger_cli.run, "context": context_cli.run, "impact": impact_cli.run, "routes": routes_cli.run,
            "export": export_cli.run, "trend": runs_cli.run, "dashboard": runs_cli.run, "mock": mock_cli.run,
            "generate": generate_cli.run, "mcp": mcp_server.run, "score": score_cli.run,
            "restore": restore_cli.run}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="specward", description="Keeps AI-written code honest: "
                                "phantom API calls and more, in the editor and in CI.")
    p.add_argument("--version", action="version", version=f"specward {version()}")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the language server over stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default and only transport)")
    serve.add_argument("--log-file", help="also write the server log to this file")
    serve.add_argument("--max-message-bytes", type=int_at_least(1), default=256 * 1024 * 1024, metavar="N",
                       help="refuse a message whose Content-Length exceeds N bytes (default: 256 MiB)")
    serve.add_argument("--body-timeout", type=finite_number(False, "a positive number"), default=30.0, metavar="SECONDS",
                       help="drop a message whose body stops arriving for SECONDS (default: 30)")
    for name, helptext, default in (("check", "report diagnostics like a compiler", "text"),
                                    ("calls", "list every HTTP call found and its status", "text")):
        c = sub.add_parser(name, help=helptext)
        c.add_argument("paths", nargs="*", metavar="PATH",
                       help="files and folders to report on (default: .); their project (the nearest "
                            "folder above them with specward.toml, pyproject.toml with [tool.specward], "
                            "or .git) is indexed with its contracts and configuration")
        c.add_argument("--contract", action="append", metavar="FILE",
                       help="contract file to use instead of discovery (repeatable; may be outside the project)")
        strict = c.add_mutually_exclusive_group()
        strict.add_argument("--allow-no-contract", action="store_true",
                            help="do not print the note that no contract was found (a project without one is "
                                 "checked anyway, without the phantom-API checks); contracts the configuration "
                                 "names and that are all missing are then a warning, not an error")
        strict.add_argument("--require-contract", action="store_true",
                            help="fail (exit 2) when a project has no contract, e.g. in CI")
        formats = ("text", "json", "sarif", "github", "gitlab", "junit") if name == "check" else ("text", "json")
        c.add_argument("--format", choices=formats, default=default,
                       help="text for people; json; sarif (SARIF 2.1.0: code scanning), github (Actions "
                            "annotations), gitlab (Code Quality), junit (test reports); docs/output-formats.md"
                       if name == "check" else None)
        c.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
        c.add_argument("--user-ledger", action="store_true",
                       help="also read your own fix-history ledger (docs/ledger.md), shared across projects")
        c.add_argument("--registry-check", action="store_true",
                       help="ask the npm registry / PyPI whether packages that are neither declared nor installed "
                            "exist at all (sends only their names; docs/registry-check.md)")
        if name == "check":
            impact_cli.add_since_option(c)  # contract-change-impact since a version (docs/impact.md)
            _add_ci_options(c)
    ledger_cli.add_subparser(sub)
    context_cli.add_subparser(sub)
    impact_cli.add_subparser(sub)
    routes_cli.add_subparser(sub)
    export_cli.add_subparser(sub)
    runs_cli.add_subparser(sub)
    mock_cli.add_subparser(sub)
    generate_cli.add_subparser(sub)
    restore_cli.add_subparser(sub)
    mcp_server.add_subparser(sub)
    score_cli.add_subparser(sub)
    return p


def _add_ci_options(c: argparse.ArgumentParser) -> None:
    """``check`` in CI (docs/ci.md)."""
    base = c.add_mutually_exclusive_group()
    base.add_argument("--baseline", metavar="FILE",
                      help="report and fail only on findings that FILE does not record (default: the "
                           "configuration's `baseline`)")
    base.add_argument("--write-baseline", metavar="FILE",
                      help="record today's findings in FILE (those of files not reported on this time are kept)")
    base.add_argument("--no-baseline", action="store_true", help="ignore the configuration's `baseline`")
    c.add_argument("--changed-since", metavar="REV",
                   help="report only on files changed since the git revision REV (its merge base with HEAD, "
                        "plus uncommitted and untracked files) and the files whose findings depend on them")
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings fail the run")
    c.add_argument("--statistics", action="store_true", help="print how many findings each code has")
    c.add_argument("--max-warnings", type=int_at_least(0), metavar="N", help="fail when there are more than N warnings")
    c.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text output (auto: when standard output is a terminal and NO_COLOR is unset)")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from .lsp.server import run_stdio

        # never returns: the server exits with the protocol's code (0 after shutdown, else 1)
        run_stdio(args.log_file, max_message_bytes=args.max_message_bytes, body_timeout=args.body_timeout)
        return EXIT_OK
    for stream in (sys.stdout, sys.stderr):  # whatever still holds a non-UTF-8 name prints, escaped
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    logging.basicConfig(level=logging.WARNING, format="specward: %(message)s", stream=sys.stderr)
    try:
        return _RUNNERS.get(args.command, _run)(args)
    except BrokenPipeError:  # `specward routes | head`: the reader left, as with any Unix tool
        try:
            sys.stdout = open(os.devnull, "w")  # nothing more to flush at exit
        except OSError:
            pass
        return 141 - 128  # (the shell shows 141 for a SIGPIPE; a status of 13 says the same)
    except Exception as exc:  # noqa: BLE001 - one line and exit 2, never a traceback and 1
        log.debug("internal error", exc_info=True)
        _remove_walk_files()
        message = shown(f"{type(exc).__name__}: {exc}").replace("\n", " ")
        print(f"specward: internal error: {message} (set SPECWARD_DEBUG=1 for the traceback)", file=sys.stderr)
        if os.environ.get("SPECWARD_DEBUG"):
            import traceback

            traceback.print_exc()
        return EXIT_ERROR


_started: list[WorkspaceIndex] = []  # the indexes of this run, for clean-up after a crash


def _remove_walk_files() -> None:
    """The walk file a crashed build leaves (``index._parsers``: one per process)."""
    for index in _started:
        cache = index.cache
        if cache is not None:
            try:
                (cache.path.parent / f"walk-{os.getpid()}.txt").unlink(missing_ok=True)
            except OSError:
                pass


def _run(args: argparse.Namespace) -> int:
    cwd = Path.cwd().resolve()
    try:
        projects = _projects(args.paths or ["."])
        contracts = _contracts(args.contract)
    except UsageError as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if len(projects) > 1:
        names = ", ".join(show_path(cwd, p.root) for p in projects)
        print(f"specward: the paths belong to {len(projects)} projects ({names}); each is checked with its own "
              "contracts and configuration", file=sys.stderr)
    runs: list[Run] = []
    for project in projects:
        named = [c.as_posix() for c in contracts] if contracts else None
        index = WorkspaceIndex(project.root, contract_globs=named, use_cache=not args.no_cache)
        _started.append(index)
        index.user_ledger = bool(getattr(args, "user_ledger", False))
        if getattr(args, "registry_check", False):
            from .engine.registry import RegistryCheck

            index.registry = RegistryCheck.from_environment(project.root, persist=not args.no_cache)
        bar = terminal.ProgressBar(sys.stderr, f"indexing {show_path(cwd, project.root)}")
        try:
            index.build(bar)
        finally:
            bar.close()
        if index.registry is not None:
            index.all_findings()  # which names the findings wait for
            index.ask_registry()
        if getattr(args, "impact_since", None):
            error = impact_cli.apply_since(index, args.impact_since, cwd)
            if error is not None:
                print(f"specward: error: {error}", file=sys.stderr)
                return EXIT_USAGE
        run = Run(project, index, set(index.ws.contract_files) if contracts else set())
        if getattr(args, "changed_since", None):
            from . import changed_since

            try:
                run.only = changed_since.dependents(index, changed_since.changed_files(project.root,
                                                                                       args.changed_since))
            except changed_since.ChangedSinceError as exc:
                print(f"specward: error: {exc}", file=sys.stderr)
                return EXIT_USAGE
        runs.append(run)
    out = Output(cwd)
    _report_skipped(runs, out)
    if args.command == "calls":
        status = _calls(runs, out, args.format)
    else:
        opts = Options(format=args.format, statistics=args.statistics, baseline=args.baseline,
                       no_baseline=args.no_baseline, write_baseline=args.write_baseline,
                       max_warnings=args.max_warnings, exit_zero=args.exit_zero,
                       color=terminal.color_on(args.color, sys.stdout), version=version())
        try:
            status = check(runs, out, opts)
        except ReportError as exc:
            print(f"specward: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    for run in runs:
        status = max(status, _problems(run, out, args.allow_no_contract, args.require_contract))
    return status


# ====================================================================== projects and paths
def _projects(paths: list[str]) -> list[Project]:
    """Group the paths given by project (those without a marker last)."""
    resolved: list[Path] = []
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise UsageError(f"{p}: no such file or folder")
        resolved.append(path.resolve())
    found: dict[Path, tuple[str | None, list[Path]]] = {}
    loose: list[Path] = []
    for path in resolved:
        hit = find_project_root(path)
        if hit is None:
            loose.append(path)
        else:
            found.setdefault(hit[0], (hit[1], []))[1].append(path)
    if loose:
        # no marker above these paths: their common folder is the project, unless that is
        # the filesystem root or the home folder (then each path's own folder is one)
        folders = [p if p.is_dir() else p.parent for p in loose]
        common = Path(os.path.commonpath(folders))
        too_wide = common == Path(common.anchor) or common == Path.home().resolve()
        for path, folder in zip(loose, folders):
            found.setdefault(folder if too_wide and len(loose) > 1 else common, (None, []))[1].append(path)
    out = []
    for root, (marker, members) in found.items():
        selected = []
        for path in members:
            rel = path.relative_to(root).as_posix()
            selected.append("" if rel == "." else rel)
        out.append(Project(root, selected, marker))
    return out


def _contracts(files: list[str] | None) -> list[Path]:
    out = []
    for f in files or ():
        path = Path(f)
        if not path.is_file():
            raise UsageError(f"--contract {f}: no such file")
        out.append(Path(os.path.abspath(path)))
    return out


# ====================================================================== messages on stderr
def _report_skipped(runs: list[Run], out: Output) -> None:
    items = sorted((out.shown(r.project.root, rel), shown(why)) for r in runs
                   for rel, why in r.index.skipped.items() if in_selection(rel, r.project.selected))
    if items:
        listed = ", ".join(f"{p} ({why})" for p, why in items[:5])
        more = f" and {len(items) - 5} more" if len(items) > 5 else ""
        print(f"specward: skipped {len(items)} file(s): {listed}{more}", file=sys.stderr)


def _problems(run: Run, out: Output, allow_no_contract: bool, require_contract: bool) -> int:
    """After the report: an invalid configuration, missing contracts. The exit status they call for.

    No contract at all: a note (the phantom-API checks were skipped), nothing with
    ``allow_no_contract``, an error with ``require_contract``. Contracts named in the
    configuration of which none exists: an error, a warning with ``allow_no_contract``."""
    index, root, status = run.index, run.project.root, EXIT_OK
    for key in index.ws.missing_contracts:  # named in the configuration (--contract files were checked)
        print(f"specward: warning: contract {out.shown(root, key)}, named in "
              f"{out.shown(root, config_rel(index) or '.')}, does not exist", file=sys.stderr)
    if not index.contracts:
        if run.project.marker:
            where = f"{root} (the project root: the nearest folder with {run.project.marker})"
        else:
            where = (f"{root} (no specward.toml, pyproject.toml with [tool.specward] or .git at or above the "
                     "paths given, so their folder is the project)")
        message = shown(f"no contract found in {where}; looked for {index.ws.describe_contracts()}")
        ws = index.ws
        # the configuration names contracts and none is there: a mistake, not a project without one
        named_missing = ws.explicit_contracts and bool(ws.contract_files or ws.contract_globs or ws.refused_contracts)
        if require_contract:
            print(f"specward: error: {message}. Name one with --contract FILE or the `contracts` setting, "
                  "or drop --require-contract to check without one", file=sys.stderr)
            status = EXIT_USAGE
        elif named_missing and not allow_no_contract:
            print(f"specward: error: {message}. Name one with --contract FILE or the `contracts` setting, "
                  "or pass --allow-no-contract to check without one", file=sys.stderr)
            status = EXIT_USAGE
        elif named_missing:
            print(f"specward: warning: {message}; every HTTP call is unresolved", file=sys.stderr)
        elif not allow_no_contract and not ws.explicit_contracts:  # `contracts = []` says so on purpose
            print(f"specward: note: {message}. The phantom-API checks were skipped (every HTTP call is "
                  "unresolved); name a contract with --contract FILE or the `contracts` setting to run them",
                  file=sys.stderr)
    if index.config.problems:
        print(f"specward: error: invalid configuration in {out.shown(root, config_rel(index) or '.')}: "
              "checked with the defaults", file=sys.stderr)
        status = EXIT_USAGE
    return status


# ====================================================================== calls
def _calls(runs: list[Run], out: Output, fmt: str) -> int:
    rows = []
    for run in runs:
        root = run.project.root
        for st in run.index.all_statuses():
            c = st.call
            if not in_selection(c.file, run.project.selected):
                continue
            line, col = out.position(run, c.file, c.span.start)
            matched = st.status == "matched"
            rows.append({"file": out.path(root, c.file), "line": line, "column": col, "method": c.method,
                         "url": st.call.template, "status": st.status,
                         "endpoint": f"{st.endpoint.method} {full_path(st.endpoint)}"
                         if st.endpoint and matched else None,
                         "via": c.via, "reason": st.call.reason,
                         # the paths of a conditional URL, each checked
                         "candidates": [t for t, _, _ in c.candidates if t is not None],
                         # how it matched: a dynamic segment standing for a literal one is "weak",
                         # a match only when case is ignored is "case-insensitive"
                         "match": ("weak" if st.weak else "case-insensitive" if st.finding is not None
                                   and st.finding.code == "case-mismatch" else "exact") if matched else None})
    notes = sorted({str(n) for run in runs for n in run.index.resolver_config.notes})
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        sys.stdout.flush()
        for n in notes:  # what the module resolver could not follow
            print(f"specward: note: {n}", file=sys.stderr)
        return EXIT_OK
    headers = ("LOCATION", "METHOD", "URL", "STATUS", "ENDPOINT")
    table = [(f"{shown(r['file'])}:{r['line']}:{r['column']}", r["method"], shown(r["url"] or "?"),
              r["status"] + (f" ({r['match']})" if r["match"] not in (None, "exact") else ""),
              (r["endpoint"] or (r["reason"] or "")) + (f" [candidates: {', '.join(r['candidates'])}]"
                                                         if r["candidates"] else "")) for r in rows]
    widths = [max([len(h)] + [len(t[i]) for t in table]) for i, h in enumerate(headers)]
    for row in (headers, *table):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    counts = Counter(r["status"] for r in rows)
    print(f"{len(rows)} call(s): " + ", ".join(f"{counts[k]} {k}" for k in ("matched", "phantom", "method-mismatch", "unresolved")))
    for n in notes:
        print(f"note: {n}")
    sys.stdout.flush()
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
