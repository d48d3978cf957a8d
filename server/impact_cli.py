"""``specward impact OLD [NEW]``: what changed between two versions of a contract, and what
that change affects in the workspace (``docs/impact.md``).

OLD and NEW are contract files or git revisions of one, ``REV:path`` (``HEAD~1:specs/api.yaml``;
``:path`` is the staged version), the path relative to the current folder as for files; NEW
defaults to the working-tree file of OLD's ``REV:path``. A revision is read with ``git show``
(a subprocess, with a timeout, never a textconv driver), and only for a path inside the
project. The output is the structured diff (endpoints and models added, removed, changed,
field by field) and the blast radius, from an index of the project built as ``check``
builds it: the call sites matched to a changed or removed endpoint (judged against OLD and
against NEW), the generated files whose provenance names a changed element, and the files
importing those.

Exit codes: 0 when the two versions declare the same elements, 1 when they differ, 2 for a
usage error (a missing file or revision, no git, a version that is not a readable contract)
or an internal error.

``check --impact-since`` (registered here, run by ``cli.py``) gives the same blast radius
as ``contract-change-impact`` findings on the changed entries of the contracts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from specward.analyzers.contract_diff import ContractDiff, diff_contracts
from specward.analyzers.contracts import parse_contract
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import ContractFacts

from .engine.config import load_config
from .engine.generated import Radius
from .engine.git import Git, GitError
from .engine.reading import read_data, read_file, shown
from .engine.workspace import find_project_root

EXIT_OK, EXIT_CHANGES, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


@dataclass(frozen=True)
class Version:
    """One version of a contract: as given, the working-tree file it names, its text."""

    label: str
    path: Path  # absolute, resolved
    text: str
    rev: str | None = None  # None: the file itself


# ====================================================================== reading versions
def _split(arg: str, cwd: Path) -> tuple[str | None, Path]:
    """(revision or None, the absolute path) of ``FILE`` or ``REV:path``."""
    if (cwd / arg).is_file() or ":" not in arg:
        return None, (cwd / arg).resolve()
    rev, _, path = arg.partition(":")
    if rev.startswith("-"):
        raise UsageError(f"{arg}: a revision cannot start with '-'")
    if not path:
        raise UsageError(f"{arg}: no path after the revision (write REV:path)")
    return rev, (cwd / path).resolve()


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        return Git(cwd).checked(*args)
    except GitError as exc:
        raise UsageError(f"{exc} (a REV:path version needs it)" if "not installed" in str(exc) else str(exc)) from None


def read_version(arg: str, cwd: Path, root: Path, limit: int) -> Version:
    """Read ``FILE`` or ``REV:path``; a revision only for a path inside ``root``."""
    rev, path = _split(arg, cwd)
    if rev is None:
        if not path.is_file():
            raise UsageError(f"{arg}: no such file")
        ft = read_file(str(path.parent), path.name, limit, outside_ok=True)  # named by the user
        if ft.text is None:
            raise UsageError(f"{arg}: {ft.reason}")
        return Version(arg, path, ft.text)
    try:
        path.relative_to(root)
    except ValueError:
        raise UsageError(f"{arg}: {shown(str(path))} is outside the project ({shown(str(root))})") from None
    top = Path(_git(["rev-parse", "--show-toplevel"], root).decode("utf-8", "surrogateescape").strip()).resolve()
    try:
        inside = path.relative_to(top).as_posix()
    except ValueError:
        raise UsageError(f"{arg}: {shown(str(path))} is not in the git repository at {shown(str(top))}") from None
    data = _git(["show", "--no-textconv", f"{rev}:{inside}"], top)
    if len(data) > limit:
        raise UsageError(f"{arg}: larger than the {limit:,}-byte limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{arg}: not UTF-8 (byte {exc.start})") from None
    return Version(arg, path, text.removeprefix("\ufeff"), rev)


def old_name(old: Path, rel: str) -> str:
    """The name a version of contract ``rel`` is parsed under: ``rel`` for its own file and
    its revisions; for another file its own name, except that a version of a SpecDSL
    contract is read as SpecDSL whatever its name (``v1.json`` for ``api.dsl.json``)."""
    own = old.name
    if rel.endswith("/" + own) or rel == own or (rel.lower().endswith(".dsl.json")
                                                 and not own.lower().endswith(".dsl.json")):
        return rel
    return own


def parsed(version: Version, rel: str, strict: bool = True) -> ContractFacts:
    """``version`` read as a version of contract ``rel`` (format from ``old_name``), its
    endpoints and models keyed by ``rel``. Not a readable contract: a usage error, or
    (``strict=False``) a contract without any element."""
    facts = parse_contract(old_name(version.path, rel), version.text)
    if facts.format == "unknown" or not facts.readable:
        if not strict:
            return ContractFacts(rel, "unknown")
        why = next((f.message for f in facts.findings if f.severity == "error"), "not readable")
        raise UsageError(f"{version.label}: not a readable contract: {shown(why)}")
    if facts.path == rel:
        return facts
    return replace(facts, path=rel, endpoints=tuple(replace(ep, file=rel) for ep in facts.endpoints),
                   models=tuple(replace(m, file=rel) for m in facts.models), findings=())


# ====================================================================== specward impact
def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("impact", help="what changed between two versions of a contract, and what it affects")
    p.add_argument("old", metavar="OLD", help="a contract file, or REV:path (a git revision of one)")
    p.add_argument("new", metavar="NEW", nargs="?",
                   help="a contract file or REV:path (default: the working-tree file of OLD's REV:path)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        return _impact(args)
    except UsageError as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _project(path: Path) -> Path:
    hit = find_project_root(path)
    return hit[0] if hit is not None else path.parent


def _impact(args: argparse.Namespace) -> int:
    cwd = Path.cwd().resolve()
    old_rev, old_path = _split(args.old, cwd)
    if args.new is None and old_rev is None:
        raise UsageError("NEW is needed when OLD is a file (it defaults to the working tree of a REV:path)")
    new_arg = args.new if args.new is not None else os.path.relpath(old_path, cwd)
    _, new_path = _split(new_arg, cwd)
    root = _project(new_path)
    limit = load_config(root).settings.max_file_size
    new = read_version(new_arg, cwd, root, limit)
    old = read_version(args.old, cwd, root, limit)
    try:
        rel = new.path.relative_to(root).as_posix()
    except ValueError:
        rel = str(new.path)
    new_facts = parsed(new, rel)
    old_facts = parsed(old, rel)
    diff = diff_contracts(old_facts, new_facts)
    if diff.empty:
        if args.format == "json":
            _dump({"version": 1, "contract": _shown_path(cwd, new.path), "old": old.label, "new": new.label,
                   "diff": diff.plain(), "blast_radius": {"files": [], "calls": [], "generated": [], "importers": []}})
        else:
            print(f"{_shown_path(cwd, new.path)}: {old.label} -> {new.label}: no endpoint or model changed")
        return EXIT_OK

    from .engine.index import WorkspaceIndex  # (the index only when there is a change to trace)

    index = WorkspaceIndex(root, use_cache=not args.no_cache)
    index.build()
    # the calls judged against each version in place of the contract (the index's other
    # contracts as they are); the endpoints of each carry the name it was parsed under
    old_callers = index.generated.judge_with(rel, old_facts)
    new_callers = index.generated.judge_with(rel, new_facts)
    radius = index.generated.radius(rel, diff, old_facts, new_facts, old_callers, new_callers)
    report = _report(cwd, root, index, diff, radius)
    if args.format == "json":
        _dump({"version": 1, "contract": _shown_path(cwd, new.path), "old": old.label, "new": new.label,
               "diff": diff.plain(), "blast_radius": report})
    else:
        _print_text(cwd, new, old, diff, report)
    return EXIT_CHANGES


def _shown_path(cwd: Path, path: Path) -> str:
    return Path(os.path.relpath(path, cwd)).as_posix()


def _dump(data: dict) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _report(cwd: Path, root: Path, index, diff: ContractDiff, radius: dict[str, Radius]) -> dict:
    lines: dict[str, LineIndex] = {}

    def position(rel: str, offset: int) -> tuple[int, int]:
        idx = lines.get(rel)
        if idx is None:
            data, _ = read_data(str(root), rel, index.settings.max_file_size)
            idx = lines[rel] = LineIndex(data or b"")
        line, col = idx.position(offset)
        return line + 1, col + 1

    def show(rel: str) -> str:
        return _shown_path(cwd, root / rel)

    calls: dict[tuple, dict] = {}
    generated: dict[str, dict] = {}
    importers: dict[str, dict] = {}
    for change in diff.changes:
        r = radius.get(change.element) or Radius()
        for st in r.calls:
            c = st.call
            key = (c.file, c.span.start, c.span.end)
            if key not in calls:
                line, col = position(c.file, c.span.start)
                calls[key] = {"file": show(c.file), "line": line, "column": col, "method": c.method,
                              "url": c.template, "via": c.via, "elements": []}
            if change.element not in calls[key]["elements"]:
                calls[key]["elements"].append(change.element)
        for g in r.generated:
            generated.setdefault(g, {"file": show(g), "elements": []})["elements"].append(change.element)
        for imp, g in r.importers.items():
            entry = importers.setdefault(imp, {"file": show(imp), "imports": []})
            if show(g) not in entry["imports"]:
                entry["imports"].append(show(g))
    files = sorted({*(c["file"] for c in calls.values()), *(g["file"] for g in generated.values()),
                    *(i["file"] for i in importers.values())})
    return {"files": files, "calls": [calls[k] for k in sorted(calls)],
            "generated": [generated[k] for k in sorted(generated)],
            "importers": [importers[k] for k in sorted(importers)]}


def _print_text(cwd: Path, new: Version, old: Version, diff: ContractDiff, report: dict) -> None:
    print(f"{shown(_shown_path(cwd, new.path))}: {shown(old.label)} -> {shown(new.label)}")
    counts = []
    for kind in ("endpoint", "model"):
        parts = [f"{len(diff.of(kind, s))} {s}" for s in ("added", "removed", "changed") if diff.of(kind, s)]
        if parts:
            counts.append(f"{kind}s: {', '.join(parts)}")
    print("; ".join(counts))
    for change in diff.changes:
        print(f"  {change.status:<8} {change.element}")
        for f in change.fields:
            print(f"             {f.text}")
    print(f"blast radius: {len(report['files'])} file(s)")
    if report["calls"]:
        print("  call sites:")
        for c in report["calls"]:
            print(f"    {shown(c['file'])}:{c['line']}:{c['column']}  {c['method']} {shown(c['url'] or '?')}"
                  f"  ({', '.join(c['elements'])})")
    if report["generated"]:
        print("  generated files:")
        for g in report["generated"]:
            print(f"    {shown(g['file'])}  ({', '.join(g['elements'])})")
    if report["importers"]:
        print("  importers of generated files:")
        for i in report["importers"]:
            print(f"    {shown(i['file'])}  (imports {', '.join(shown(x) for x in i['imports'])})")
    sys.stdout.flush()


# ====================================================================== check --impact-since
def add_since_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impact-since", action="append", metavar="VERSION", default=None,
                        help="report the change of a contract since VERSION as contract-change-impact findings: "
                             "REV (every contract, at that git revision), REV:path (that contract), or "
                             "CONTRACT=OLD (OLD a file or REV:path); repeatable")


def apply_since(index, values: list[str], cwd: Path | None = None) -> str | None:
    """Give each contract ``values`` name its baseline in ``index``; an error message, or None."""
    cwd = cwd or Path.cwd().resolve()
    root = index.root
    limit = index.settings.max_file_size
    try:
        for value in values:
            for rel, old in _baselines(value, cwd, root, index, limit):
                # not a readable contract (or not there at REV): every element is new
                index.generated.set_baseline(rel, parsed(old, rel, strict=False))
    except UsageError as exc:
        return f"--impact-since: {exc}"
    return None


def _baselines(value: str, cwd: Path, root: Path, index, limit: int) -> list[tuple[str, Version]]:
    if "=" in value:
        contract, _, old = value.partition("=")
        return [(_contract_key(contract, cwd, root, index), read_version(old, cwd, root, limit))]
    rev, path = _split(value, cwd)
    if rev is not None and ":" in value:
        return [(_contract_key(os.path.relpath(path, cwd), cwd, root, index), read_version(value, cwd, root, limit))]
    out = []
    for rel in sorted(index.contracts):  # REV alone: every contract inside the project
        if os.path.isabs(rel):
            continue  # (named explicitly, outside the project: not in its repository)
        p = root / rel
        try:
            out.append((rel, read_version(f"{value}:{os.path.relpath(p, cwd)}", cwd, root, limit)))
        except UsageError as exc:
            if "exists on disk, but not in" not in str(exc) and "does not exist in" not in str(exc):
                raise
            out.append((rel, Version(value, p, "")))  # not there at REV: every element is new
    return out


def _contract_key(arg: str, cwd: Path, root: Path, index) -> str:
    path = (cwd / arg).resolve()
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = str(path)
    if rel not in index.contracts:
        raise UsageError(f"{arg}: not one of the project's contracts")
    return rel
