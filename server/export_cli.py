"""``specward export openapi CONTRACT [--format yaml|json] [--output FILE] [--yes]`` and
``specward export client CONTRACT --lang ts [--output FILE] [--yes]``: the LLM-free
generators of a SpecDSL contract (``analyzers/stages/export_openapi.py``,
``analyzers/stages/export_ts.py``, ``docs/export.md``).

Without ``--output`` the text goes to standard output. With it, the target (which must be
inside the current folder's tree) is printed with a unified diff against the file already
there; the file is written only with ``--yes`` or when the user answers yes at the
terminal. Exit codes: 0 printed, written, or already up to date; 1 not written (declined,
or no terminal and no ``--yes``); 2 usage error, unreadable or invalid contract.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from specward.analyzers.lines import LineIndex
from specward.analyzers.stages.export_openapi import dump, load_spec, to_openapi
from specward.analyzers.stages.export_ts import to_typescript

from .approval import approved, replace_file
from .engine.reading import shown

EXIT_OK, EXIT_NOT_WRITTEN, EXIT_USAGE = 0, 1, 2
MAX_CONTRACT_BYTES = 50_000_000


class _Usage(Exception):
    pass


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("export", help="turn a SpecDSL contract into OpenAPI 3.1 or a typed TypeScript client")
    kinds = p.add_subparsers(dest="export_kind", required=True)
    o = kinds.add_parser("openapi", help="the contract as an OpenAPI 3.1 document")
    o.add_argument("contract", metavar="CONTRACT", help="a SpecDSL file (*.dsl.json)")
    o.add_argument("--format", choices=("yaml", "json"), default="yaml")
    c = kinds.add_parser("client", help="TypeScript types and one typed fetch function per endpoint")
    c.add_argument("contract", metavar="CONTRACT", help="a SpecDSL file (*.dsl.json)")
    c.add_argument("--lang", choices=("ts",), required=True, help="the client's language (ts: TypeScript)")
    for sub in (o, c):
        sub.add_argument("--output", metavar="FILE",
                         help="write to FILE (inside the current folder) after showing a diff, instead of printing")
        sub.add_argument("--yes", action="store_true", help="write --output without asking")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        text = _generate(args)
        if args.output is None:
            sys.stdout.write(text)
            return EXIT_OK
        return _write(Path(args.output), text, args.yes)
    except _Usage as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def read_contract(contract: str, usage: type[Exception]) -> str:
    """The text of the contract file named on the command line; ``usage`` raised with a
    message when it is too large, unreadable or not UTF-8."""
    path, name = Path(contract), shown(contract)
    try:
        if path.stat().st_size > MAX_CONTRACT_BYTES:
            raise usage(f"{name}: larger than {MAX_CONTRACT_BYTES} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise usage(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise usage(f"{name}: not UTF-8 text") from None


def _generate(args: argparse.Namespace) -> str:
    path = Path(args.contract)
    name = shown(args.contract)
    if not path.name.lower().endswith(".dsl.json"):
        raise _Usage(f"{name}: not a SpecDSL contract (the exporters read *.dsl.json files)")
    text = read_contract(args.contract, _Usage)
    spec, findings = load_spec(path.name, text)
    if spec is None:
        lines = LineIndex(text.encode("utf-8", "surrogatepass"))
        for f in findings:
            line, col = lines.position(f.span.start)
            print(f"{name}:{line + 1}:{col + 1}: {f.severity}[{f.code}] {shown(f.message)}", file=sys.stderr)
        raise _Usage(f"{name}: the contract is not valid ({len(findings)} problem(s)): nothing exported")
    if args.export_kind == "openapi":
        return dump(to_openapi(spec), args.format, source=path.name)
    return to_typescript(spec)


def _write(target: Path, text: str, yes: bool) -> int:
    cwd = Path.cwd().resolve()
    resolved = (cwd / target).resolve()
    if resolved != cwd and cwd not in resolved.parents:
        raise _Usage(f"{shown(str(target))}: outside the current folder; --output writes only below it")
    if resolved.is_dir():
        raise _Usage(f"{shown(str(target))}: is a folder")
    rel = os.path.relpath(resolved, cwd)
    try:
        old = resolved.read_text("utf-8") if resolved.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise _Usage(f"{shown(rel)}: cannot read the existing file: {exc}") from None
    if old == text:
        print(f"{shown(rel)}: already up to date", file=sys.stderr)
        return EXIT_OK
    if not approved(shown(rel), old, text, yes):
        return EXIT_NOT_WRITTEN
    try:
        resolved.parent.mkdir(parents=True, exist_ok=True)
        replace_file(resolved, text)
    except OSError as exc:
        raise _Usage(f"{shown(rel)}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {shown(rel)}", file=sys.stderr)
    return EXIT_OK
