"""The fix-history ledger: records of imports that were hallucinated and how they were fixed.

Pure: text in, plain data out (the engine's ``server/engine/ledger.py`` reads and appends).
Two formats are read (``docs/ledger.md`` has the details):

- ai-spec's ``.ai-spec-fix-history.json``, as ai-spec writes it:
  ``{"version": "1.0", "entries": [{ts, runId, patternKey, brokenImport: {source, names,
  reason, file, line}, fix: {kind, target, stage}}]}``;
- specward's own append-only ``.specward/fix-history.jsonl``: one record a line, the same
  fields plus ``checksum`` (of the record's canonical JSON without it), so a line cut short
  by a crash, a line edited by hand or a merge gone wrong is told from a record.

A record's ``patternKey`` is the first 12 hex digits of sha256 over ``source + "\\0" +
sorted names joined by ","``: the same mistake in any file collapses into one pattern.
Nothing here drops a record: a line that is not a record is a ``ledger-invalid`` finding and
the lines around it are still read.

``match_imports`` finds the imports of one file that repeat a pattern (the same module,
or the same target reached through another spelling, with one of the names), with quick
fixes that replay the last fix and the history for the hover, as plain data on the finding.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Iterable, Iterator

from .codes import CODES
from .model import FileFacts, Finding, Import, Span
from .resolve_configs import norm

AI_SPEC_LEDGER = ".ai-spec-fix-history.json"
LEDGER = ".specward/fix-history.jsonl"

# what a record's fields hold (other values are read all the same: they come from other tools)
REASONS = {"file_not_found": "the module did not exist", "missing_export": "the module had no such export"}
FIX_KINDS = ("rewrite_import", "rename", "create_file", "append_to_file")
STAGES = ("deterministic", "ai", "editor", "manual")

AI_SPEC = "ai-spec"  # Record.origin of an entry of .ai-spec-fix-history.json
SPECWARD = "specward"  # a line of a specward ledger (the project's or the user's)

NOT_JSON = "not JSON (the remains of an interrupted write?)"
CONFLICT_MARKERS = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")
PROMPT_ITEMS = 10

_LEDGER_INVALID = CODES["ledger-invalid"].severity
_REPEATED = CODES["repeated-hallucination"].severity


def pattern_key(source: str, names: Iterable[str]) -> str:
    """ai-spec's identity of a broken import: sha256(source + "\\0" + sorted names joined by
    ","), first 12 hex digits."""
    text = source + "\0" + ",".join(sorted(names))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class BrokenImport:
    """The import that was wrong: ``source`` the module as written, ``names`` the names it
    imported, ``reason`` (``file_not_found``, ``missing_export``), where it was (``file``
    workspace-relative, ``line`` 1-based)."""

    source: str
    names: tuple[str, ...]
    reason: str
    file: str
    line: int


@dataclass(frozen=True)
class Fix:
    """How it was fixed. ``kind``:

    - ``rewrite_import``: the import was pointed at another module. In specward's ledgers
      ``target`` is the new specifier as written in ``BrokenImport.file`` (replayable); in
      ai-spec's, it is the file whose import was rewritten (not replayable).
    - ``rename``: names were replaced by the ones the module exports; ``target`` is
      ``old=new`` pairs joined by ``,`` (or just ``new`` when one name was imported).
    - ``create_file`` / ``append_to_file``: ``target`` is the file created or appended to.

    ``stage``: ``deterministic`` or ``ai`` (ai-spec), ``editor`` (a specward quick fix),
    ``manual`` (``specward ledger add``)."""

    kind: str
    target: str
    stage: str


@dataclass(frozen=True)
class Record:
    """One ledger entry. ``origin`` (``ai-spec`` or ``specward``), ``ledger`` (the file it
    was read from) and ``line`` (1-based, in that file) say where it was read and take no
    part in equality: the same record in two ledgers is one record."""

    ts: str
    run_id: str
    pattern_key: str
    broken: BrokenImport
    fix: Fix
    origin: str = field(default=SPECWARD, compare=False)
    ledger: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)


def format_ts(epoch: float) -> str:
    """A timestamp as ai-spec writes them (``Date.toISOString``): ``2026-04-07T19:42:30.000Z``."""
    dt = datetime.fromtimestamp(epoch, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_ts(ts: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 timestamp (``Z`` or an offset; none: UTC), or
    None when it is not one."""
    if not isinstance(ts, str) or len(ts) < 10 or len(ts) > 40:
        return None
    try:
        dt = datetime.fromisoformat(ts[:-1] + "+00:00" if ts.endswith(("Z", "z")) else ts)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def make_record(source: str, names: Iterable[str], reason: str, file: str, line: int, fix_kind: str,
                fix_target: str, stage: str, ts: str, run_id: str) -> Record:
    """A new record (its pattern key computed)."""
    names = tuple(names)
    return Record(ts, run_id, pattern_key(source, names), BrokenImport(source, names, reason, file, line),
                  Fix(fix_kind, fix_target, stage))


def record_json(record: Record) -> dict:
    """The record as both ledgers spell it (without the checksum)."""
    b, f = record.broken, record.fix
    return {"ts": record.ts, "runId": record.run_id, "patternKey": record.pattern_key,
            "brokenImport": {"source": b.source, "names": list(b.names), "reason": b.reason, "file": b.file,
                             "line": b.line},
            "fix": {"kind": f.kind, "target": f.target, "stage": f.stage}}


def _canonical(obj: dict) -> str:
    # ASCII only: a file name that is not UTF-8 (surrogate escapes) still encodes
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _checksum(obj: dict) -> str:
    return "sha256:" + hashlib.sha256(_canonical(obj).encode("ascii")).hexdigest()[:16]


def record_line(record: Record) -> str:
    """The record as one line of a specward ledger, newline included: canonical JSON (sorted
    keys, no spaces, ASCII) with a ``checksum`` field over the rest."""
    obj = record_json(record)
    obj["checksum"] = _checksum(obj)
    return _canonical(obj) + "\n"


def _record_from(obj: object, origin: str, ledger: str, line: int) -> Record | str:
    """A record from parsed JSON, or what is wrong with it."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    ts, run_id = obj.get("ts"), obj.get("runId")
    if not isinstance(ts, str) or parse_ts(ts) is None:
        return "`ts` is not an ISO 8601 timestamp"
    if not isinstance(run_id, str):
        return "`runId` is not a string"
    bi, fx = obj.get("brokenImport"), obj.get("fix")
    if not isinstance(bi, dict):
        return "`brokenImport` is not an object"
    if not isinstance(fx, dict):
        return "`fix` is not an object"
    source, names, reason, file, ln = (bi.get(k) for k in ("source", "names", "reason", "file", "line"))
    if not isinstance(source, str) or not source:
        return "`brokenImport.source` is not a module name"
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return "`brokenImport.names` is not a list of strings"
    if not isinstance(reason, str):
        return "`brokenImport.reason` is not a string"
    if not isinstance(file, str):
        return "`brokenImport.file` is not a string"
    if isinstance(ln, bool) or not isinstance(ln, int) or ln < 0:
        return "`brokenImport.line` is not a line number"
    kind, target, stage = fx.get("kind"), fx.get("target"), fx.get("stage")
    if not isinstance(kind, str) or not kind:
        return "`fix.kind` is not a string"
    if not isinstance(target, str):
        return "`fix.target` is not a string"
    if not isinstance(stage, str):
        return "`fix.stage` is not a string"
    key = pattern_key(source, names)
    recorded = obj.get("patternKey")
    if origin == SPECWARD and recorded != key:
        return f"`patternKey` is {recorded!r}, not the key of its import ({key})"
    # ai-spec's file is read as it is: the key is recomputed (the same formula)
    return Record(ts, run_id, key, BrokenImport(source, tuple(names), reason, file, ln), Fix(kind, target, stage),
                  origin, ledger, line)


def _invalid(path: str, span: Span, message: str) -> Finding:
    return Finding("ledger-invalid", _LEDGER_INVALID, message, path, span)


def _lines(data: bytes) -> Iterator[tuple[int, int, bytes, bool]]:
    """(line number, start byte, line without its newline, ended by a newline)."""
    start, number, n = 0, 1, len(data)
    while start < n:
        end = data.find(b"\n", start)
        if end < 0:
            yield number, start, data[start:], False
            return
        yield number, start, data[start:end], True
        start, number = end + 1, number + 1


def _marker(raw: bytes) -> str | None:
    for m in CONFLICT_MARKERS:
        if raw.startswith(m.encode()) and (len(raw) == 7 or raw[7:8] in (b" ", b"\t", b"\r")):
            return m
    return None


def _conflict(path: str, start: int, raw: bytes, marker: str) -> Finding:
    what = {"<<<<<<<": "start", "|||||||": "base", "=======": "middle", ">>>>>>>": "end"}[marker]
    return _invalid(path, Span(start, start + len(raw.rstrip(b"\r"))),
                    f"merge conflict marker ({what} of a conflict): delete the marker lines and keep the records of "
                    "both sides (a union merge avoids the conflict: docs/ledger.md)")


def parse_jsonl(data: str | bytes, path: str) -> tuple[tuple[Record, ...], tuple[Finding, ...]]:
    """The records of a specward ledger (``path`` names it in findings and records), and a
    ``ledger-invalid`` finding on each line that is not one: a conflict marker (once each;
    the lines between are read), a line that is not JSON or not a record, a checksum that
    does not match. A last line without its newline that is not a whole record is the
    remains of an interrupted write: ignored, with a finding. Blank lines are skipped.

    Text is encoded back with ``surrogateescape`` (read it with ``errors="surrogateescape"``
    to keep byte offsets exact); bytes are taken as they are."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    records: list[Record] = []
    problems: list[Finding] = []
    for number, start, raw, ended in _lines(data):
        if not raw.strip():
            continue
        marker = _marker(raw)
        if marker is not None:
            problems.append(_conflict(path, start, raw, marker))
            continue
        span = Span(start, start + len(raw.rstrip(b"\r")))
        got: Record | str
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            got = NOT_JSON
        else:
            if isinstance(obj, dict) and "checksum" in obj:
                recorded = obj.pop("checksum")
                got = _record_from(obj, SPECWARD, path, number)
                if isinstance(got, Record) and recorded != _checksum(obj):
                    got = "its checksum does not match its content (edited by hand?)"
            elif isinstance(obj, dict):
                got = "no `checksum` field (add records with `specward ledger add`)"
            else:
                got = "not a JSON object"
        if isinstance(got, Record):
            records.append(got)
        elif not ended:
            why = "" if got == NOT_JSON else f" ({got})"
            problems.append(_invalid(path, span, f"incomplete last line (a write was interrupted): ignored{why}"))
        else:
            problems.append(_invalid(path, span, f"line {number} is not a ledger record: {got}; it is ignored"))
    return tuple(records), tuple(problems)


def parse_ai_spec(text: str, path: str) -> tuple[tuple[Record, ...], tuple[Finding, ...]]:
    """The entries of ai-spec's ``.ai-spec-fix-history.json`` as records (``origin`` ai-spec),
    and ``ledger-invalid`` findings: conflict markers (once each), a syntax error (what can be
    recovered is still read), a document that is not a ledger, each entry that is not one."""
    from .contracts.positions import MapNode, SeqNode, kind, parse_json, to_plain

    data = text.encode("utf-8", "surrogateescape")
    problems: list[Finding] = []
    markers = 0
    for _, start, raw, _ in _lines(data):
        marker = _marker(raw)
        if marker is not None:
            markers += 1
            problems.append(_conflict(path, start, raw, marker))
    parsed = parse_json(data.decode("utf-8", "replace"))
    if parsed.problems and not markers:  # with markers, the syntax error is theirs
        p = parsed.problems[0]
        problems.append(_invalid(path, p.span, f"{p.message}: the entries that can be recovered are read"))
    root = parsed.root
    entries = root.get("entries") if isinstance(root, MapNode) else None
    if not isinstance(entries, SeqNode):
        if root is not None or not problems:
            where = root.span if root is not None else Span(0, 0)
            what = ("`entries` is " + kind(entries)) if isinstance(root, MapNode) else f"the document is {kind(root)}"
            problems.append(_invalid(path, Span(where.start, min(where.end, where.start + 1)),
                                     f"not an ai-spec fix-history ledger: {what}, not an array of entries"))
        return (), tuple(problems)
    lines = _LineStarts(data)
    records: list[Record] = []
    for i, node in enumerate(entries.items):
        line = lines.line_of(node.span.start)
        got = _record_from(to_plain(node), AI_SPEC, path, line)
        if isinstance(got, Record):
            records.append(got)
        else:
            problems.append(_invalid(path, Span(node.span.start, node.span.start + 1),
                                     f"entry {i + 1} of the ledger is not a fix record: {got}; it is ignored"))
    return tuple(records), tuple(problems)


class _LineStarts:
    def __init__(self, data: bytes) -> None:
        self.starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10]

    def line_of(self, offset: int) -> int:
        import bisect

        return bisect.bisect_right(self.starts, offset)


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True)
class Pattern:
    """The records of one pattern key: how often, first and last seen, the last fix."""

    key: str
    source: str
    names: tuple[str, ...]
    reason: str
    count: int
    first_seen: str
    last_seen: str
    runs: int  # distinct run ids
    fix: Fix  # the most recent record's
    records: tuple[Record, ...]  # oldest first

    @property
    def last(self) -> Record:
        return self.records[-1]


def _when(record: Record) -> tuple[float, str]:
    t = parse_ts(record.ts)
    return (t if t is not None else float("-inf"), record.ts)


@dataclass(frozen=True, init=False)
class Patterns:
    """Records aggregated by pattern key. The same record read twice (from two ledgers, or
    on both sides of a merge) counts once. Iterating gives the patterns ranked: most
    records first, then the most recently seen, then by key (deterministic).

    A dataclass of one field, ``records`` (oldest first, in a canonical order: what equality,
    hashing and a canonical digest see); it pickles as its records alone."""

    records: tuple[Record, ...]

    def __init__(self, records: Iterable[Record] = ()) -> None:
        seen: dict[Record, None] = {}
        for r in records:
            seen.setdefault(r, None)
        # in a canonical order: the same records read in any order make the same Patterns
        unique = tuple(sorted(seen, key=lambda r: (_when(r), r.pattern_key, r.run_id, r.broken.file, r.broken.line,
                                                   r.fix.kind, r.fix.target, r.fix.stage)))
        object.__setattr__(self, "records", unique)
        groups: dict[str, list[Record]] = {}
        for r in unique:
            groups.setdefault(r.pattern_key, []).append(r)
        by_key: dict[str, Pattern] = {}
        for key, rs in groups.items():
            rs.sort(key=_when)
            last = rs[-1]
            by_key[key] = Pattern(key, last.broken.source, last.broken.names, last.broken.reason, len(rs),
                                  rs[0].ts, last.ts, len({r.run_id for r in rs}), last.fix, tuple(rs))
        object.__setattr__(self, "by_key", by_key)
        object.__setattr__(self, "_ranked", sorted(by_key.values(),
                                                   key=lambda p: (-p.count, _neg(_when(p.last)), p.key)))

    def __reduce__(self):
        return (Patterns, (self.records,))

    def __iter__(self) -> Iterator[Pattern]:
        return iter(self._ranked)

    def __len__(self) -> int:
        return len(self._ranked)

    def get(self, key: str) -> Pattern | None:
        return self.by_key.get(key)

    def top(self, n: int = PROMPT_ITEMS) -> list[Pattern]:
        return self._ranked[:n]


def _neg(when: tuple[float, str]) -> tuple[float, tuple[int, ...]]:
    """A sort key that puts later timestamps first (strings negated code point by code point)."""
    return (-when[0], tuple(-ord(c) for c in when[1]))


# --------------------------------------------------------------------------- matching


def target_key(resolution: object) -> str | None:
    """What ``match_imports``' ``target_of`` should answer for a resolver ``Resolution``: the
    workspace file (``kind == "file"``); for a module that does not exist, ``missing:`` and
    the place it points at (its first candidate without the extension), so two spellings of
    the same missing module meet; None for packages and what cannot be placed (those match
    by spelling only)."""
    kind = getattr(resolution, "kind", None)
    if kind == "file":
        return getattr(resolution, "path", None)
    if kind == "missing":
        probed = getattr(resolution, "probed", ())
        if not probed:
            return None
        first = probed[0]
        for ext in (".d.ts", ".d.mts", ".d.cts", ".tsx", ".ts", ".jsx", ".js", ".mts", ".mjs", ".cts", ".cjs",
                    ".vue", ".svelte", "/__init__.py", ".py"):
            if first.endswith(ext):
                first = first[: -len(ext)]
                break
        if first.endswith("/index"):
            first = first[: -len("/index")]
        return "missing:" + first
    return None


def _dirname(path: str) -> str:
    return path.rpartition("/")[0]


def _relative(target: list[str], folder: list[str]) -> str:
    common = 0
    while common < len(target) and common < len(folder) and target[common] == folder[common]:
        common += 1
    up = [".."] * (len(folder) - common)
    rest = target[common:]
    rel = "/".join(up + rest)
    if not up:
        rel = "./" + rel if rest else "."
    return rel


def respell(spec: str, from_file: str, to_file: str, python: bool = False) -> str:
    """A relative specifier written in ``from_file``, as ``to_file`` would write it for the
    same target (other specifiers, and relative ones that climb out of the workspace, are
    returned as they are)."""
    if from_file == to_file or not from_file:
        return spec
    if python:
        if not spec.startswith("."):
            return spec
        dots = len(spec) - len(spec.lstrip("."))
        pkg = [p for p in _dirname(from_file).split("/") if p]
        if dots - 1 > len(pkg):
            return spec
        pkg = pkg[: len(pkg) - (dots - 1)]
        rest = [p for p in spec[dots:].split(".") if p]
        target = pkg + rest
        here = [p for p in _dirname(to_file).split("/") if p]
        common = 0
        while common < len(target) and common < len(here) and target[common] == here[common]:
            common += 1
        return "." * (len(here) - common + 1) + ".".join(target[common:])
    if not (spec.startswith(("./", "../")) or spec in (".", "..")):
        return spec
    slash = spec.endswith("/")
    joined = norm(_dirname(from_file) + "/" + spec)  # the one resolver's path arithmetic
    if joined is None:
        return spec
    target = [p for p in joined.split("/") if p]
    here = [p for p in _dirname(to_file).split("/") if p]
    out = _relative(target, here)
    return out + "/" if slash and not out.endswith("/") else out


def _names_label(names: Iterable[str]) -> str:
    names = list(names)
    named = [n for n in names if n not in ("default", "*", "")]
    parts = []
    if "default" in names:
        parts.append("default")
    if "*" in names:
        parts.append("* as …")
    if named:
        parts.append("{ " + ", ".join(named) + " }")
    return ", ".join(parts)


def import_text(source: str, names: Iterable[str]) -> str:
    label = _names_label(names)
    return f"import {label} from '{source}'" if label else f"import '{source}'"


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def _renames(fix: Fix, names: tuple[str, ...]) -> dict[str, str]:
    """The ``old=new`` pairs of a ``rename`` fix (a bare ``new`` for a one-name import)."""
    out: dict[str, str] = {}
    target = fix.target.strip()
    if "=" not in target and "," not in target:
        named = [n for n in names if n not in ("default", "*", "")]
        if len(named) == 1 and target and target.isidentifier():
            out[named[0]] = target
        return out
    for pair in target.split(","):
        old, eq, new = pair.partition("=")
        old, new = old.strip(), new.strip().lstrip(">").strip()  # `old=>new` is read as well
        if eq and old and new and new.isidentifier():
            out[old] = new
    return out


def _fix_words(fix: Fix, origin: str, names: tuple[str, ...] = ()) -> str:
    if fix.kind == "rewrite_import":
        if origin == AI_SPEC:
            return f"rewriting the import (in {fix.target})" if fix.target else "rewriting the import"
        return f"rewriting the import to '{fix.target}'"
    if fix.kind == "rename":
        pairs = _renames(fix, names)
        if pairs:
            return "renaming " + ", ".join(f"{old} to {new}" for old, new in sorted(pairs.items()))
        return f"renaming ({fix.target})" if fix.target else "renaming"
    if fix.kind == "create_file":
        return f"creating {fix.target}"
    if fix.kind == "append_to_file":
        return f"adding the export to {fix.target}"
    return f"{fix.kind} {fix.target}".strip()


@dataclass
class _Statement:
    module: str
    kind: str
    imports: list[Import]
    span: Span


def _statements(facts: FileFacts) -> list[_Statement]:
    """The file's imports, one entry per statement (per specifier, when the extractor gives
    it; else per module and kind)."""
    out: dict[tuple, _Statement] = {}
    for imp in facts.imports:
        if imp.kind == "glob":
            continue
        key = (imp.module, imp.kind, imp.module_span) if imp.module_span is not None else (imp.module, imp.kind)
        st = out.get(key)
        if st is None:
            out[key] = _Statement(imp.module, imp.kind, [imp], imp.module_span or imp.span)
        else:
            st.imports.append(imp)
    return list(out.values())


def _names_of(imp: Import) -> set[str]:
    names = {imp.name}
    if imp.name in ("default", "*") and imp.local:
        names.add(imp.local)  # another tool may have recorded the binding a default import made
    return names


def match_imports(facts: FileFacts, patterns: Patterns, target_of: Callable[[str], str | None], *,
                  error_from: int = 0) -> tuple[Finding, ...]:
    """``repeated-hallucination`` findings on the imports of ``facts`` that repeat a pattern:
    the pattern's module (a relative one as this file would write it) or the same target
    (``target_of(specifier)``: what an import of this file reaches, see ``target_key``), and
    one of its names (any import, for a pattern without names). A pattern last fixed by
    creating or appending to the very file the import now reaches is not a repeat any
    more. One finding per import statement, with every pattern it matches; ``error`` once
    the records number ``error_from`` or more (0: never).

    ``Finding.data``: ``("fixes", ((title, file, start, end, new_text), ...))``, edits that
    replay the last replayable fix (point the specifier at the recorded module, or rename
    the recorded names); ``("history", ((key, source, names, reason, count, first, last,
    ((ts, run_id, origin, ledger, file, line, fix kind, fix target, stage), ...)), ...))``
    for the hover (``hover_text``); ``("patterns", (key, ...))``."""
    if not len(patterns):
        return ()
    python = facts.language == "python"
    memo: dict[str, str | None] = {}

    def target(spec: str) -> str | None:
        if spec not in memo:
            memo[spec] = target_of(spec)
        return memo[spec]

    out: list[Finding] = []
    for st in _statements(facts):
        here = target(st.module)
        hits: list[tuple[Pattern, list[Import], str]] = []
        for p in patterns:
            spelled = respell(p.source, p.last.broken.file, facts.path, python)
            if spelled != st.module:
                there = target(spelled)
                if here is None or there != here:
                    continue
            names = set(p.names)
            matched = [imp for imp in st.imports if not names or _names_of(imp) & names]
            if not matched:
                continue
            if p.fix.kind in ("create_file", "append_to_file") and here is not None and here == p.fix.target:
                continue  # that fix made this import valid
            hits.append((p, matched, spelled))
        if hits:
            out.append(_finding(facts, st, hits, error_from, python))
    return tuple(out)


def _finding(facts: FileFacts, st: _Statement, hits: list[tuple[Pattern, list[Import], str]], error_from: int,
             python: bool) -> Finding:
    count = sum(p.count for p, _, _ in hits)
    records = sorted((r for p, _, _ in hits for r in p.records), key=_when)
    first, last = records[0], records[-1]
    main, _, spelled = hits[0]
    names: set[str] = set()
    for p, imps, _ in hits:
        wanted = set(p.names)
        for imp in imps:
            names.update((_names_of(imp) & wanted) if wanted else {imp.name})
    reason = REASONS.get(main.reason, main.reason)
    where = "" if spelled == st.module else f", recorded as '{main.source}'"
    when = (f"on {last.ts[:10]}" if first.ts[:10] == last.ts[:10] else
            f"first {first.ts[:10]}, last {last.ts[:10]}")
    message = (f"{import_text(st.module, sorted(names))} repeats a recorded hallucination ({reason}{where}): seen "
               f"{_times(count)}, {when}; last fixed by {_fix_words(last.fix, last.origin, last.broken.names)}")
    severity = "error" if error_from > 0 and count >= error_from else _REPEATED
    history = tuple((p.key, p.source, p.names, p.reason, p.count, p.first_seen, p.last_seen,
                     tuple((r.ts, r.run_id, r.origin, r.ledger, r.broken.file, r.broken.line, r.fix.kind,
                            r.fix.target, r.fix.stage) for r in p.records)) for p, _, _ in hits)
    fixes, replayed = _replays(facts, st, hits, python)
    data: list[tuple[str, object]] = [
        ("fixes", fixes), ("history", history), ("patterns", tuple(p.key for p, _, _ in hits)),
        ("module", st.module), ("names", tuple(sorted(names))), ("reason", main.reason)]
    if replayed is not None:
        data += [("fix_kind", replayed.kind), ("fix_target", replayed.target)]
    return Finding("repeated-hallucination", severity, message, facts.path, st.span, tuple(data))


def _replays(facts: FileFacts, st: _Statement, hits: list[tuple[Pattern, list[Import], str]],
             python: bool) -> tuple[tuple[tuple[str, str, int, int, str], ...], Fix | None]:
    """Edits replaying the most recent replayable fix among the patterns matched, and that
    fix as this file would record it (the specifier respelled for it)."""
    candidates = sorted(((r, imps) for p, imps, _ in hits for r in p.records), key=lambda x: _when(x[0]),
                        reverse=True)
    for record, imps in candidates:
        fix = record.fix
        if fix.kind == "rewrite_import" and record.origin != AI_SPEC and fix.target:
            span = imps[0].module_span
            if span is None:
                continue
            new = respell(fix.target, record.broken.file, facts.path, python)
            if new == st.module:
                continue
            width = len(st.module.encode("utf-8", "surrogateescape"))
            if span.end - span.start == width + 2:  # the string with its quotes: keep them
                start, end = span.start + 1, span.end - 1
            elif span.end - span.start == width:
                start, end = span.start, span.end
            else:  # escapes in the string: not rewritten blindly
                continue
            return ((f"Replay the last fix: import from '{new}'", facts.path, start, end, new),), Fix(
                "rewrite_import", new, fix.stage)
        if fix.kind == "rename":
            pairs = _renames(fix, record.broken.names)
            edits = []
            for imp in imps:
                new = pairs.get(imp.name)
                if new is None or imp.name in ("default", "*", "") or imp.kind in ("dynamic", "glob"):
                    continue
                local = imp.local or imp.name
                if new == local:
                    text = new
                elif imp.kind == "require":
                    text = f"{new}: {local}"
                else:
                    text = f"{new} as {local}"
                edits.append((f"Replay the last fix: import {new} instead of {imp.name}", facts.path,
                              imp.span.start, imp.span.end, text))
            if edits:
                return tuple(edits), Fix("rename", ",".join(f"{old}={new}" for old, new in sorted(pairs.items())),
                                         fix.stage)
    return (), None


def hover_text(finding: Finding, limit: int = 5) -> str:
    """Markdown for the hover on an import with a ``repeated-hallucination`` finding: each
    pattern, then its most recent records (``limit``), newest first."""
    data = dict(finding.data)
    lines: list[str] = []
    for key, source, names, reason, count, first, last, records in data.get("history", ()):
        lines.append(f"**Fix history** of `{import_text(source, names)}` (pattern `{key}`): "
                     f"{REASONS.get(reason, reason)}; seen {_times(count)}, first {first[:10]}, last {last[:10]}")
        lines.append("")
        shown = list(reversed(records))[:limit]
        for ts, run_id, origin, ledger, file, line, kind, target, stage in shown:
            fix = _fix_words(Fix(kind, target, stage), origin, names)
            at = f"{file}:{line}" if line else file
            lines.append(f"- {ts[:19].replace('T', ' ')}: {at}, fixed by {fix} ({stage}{', ' + run_id if run_id else ''})")
        if len(records) > limit:
            lines.append(f"- … and {len(records) - limit} earlier (`specward ledger list`)")
        lines.append("")
    return "\n".join(lines).rstrip() + ("\n" if lines else "")


# --------------------------------------------------------------------------- the prompt


def _instead(p: Pattern) -> str:
    f, origin = p.fix, p.last.origin
    if f.kind == "rewrite_import" and origin != AI_SPEC and f.target:
        return f"Instead: import from '{f.target}'"
    if f.kind == "rename":
        pairs = _renames(f, p.names)
        if pairs:
            return "Instead: import " + ", ".join(f"{new} (not {old})" for old, new in sorted(pairs.items()))
        return f"Instead: rename ({f.target})"
    if f.kind == "create_file":
        return f"Fixed last time by creating {f.target}"
    if f.kind == "append_to_file":
        return f"Fixed last time by adding the export to {f.target}"
    if f.kind == "rewrite_import":
        return "Fixed last time by rewriting the import"
    return f"Fixed last time by: {f.kind} {f.target}".rstrip()


def prompt(patterns: Patterns, limit: int = PROMPT_ITEMS) -> str:
    """The "DO NOT REPEAT" section code generation puts in its prompt: the ``limit`` patterns
    seen most often (ties: the most recent, then the key), byte-identical for the same
    records whatever their order. Empty when there is none."""
    ranked = list(patterns)
    if not ranked:
        return ""
    lines = [
        "=== Imports hallucinated before in this project (DO NOT REPEAT) ===",
        "",
        "Each import below was written by code generation, did not work, and had to be fixed.",
        "Do not write it again; use what replaced it.",
        "",
    ]
    for i, p in enumerate(ranked[:limit], 1):
        where = f" (in {p.last.broken.file})" if p.source.startswith(".") and p.last.broken.file else ""
        lines.append(f"{i}. DO NOT: {import_text(p.source, p.names)}{where}")
        lines.append(f"   Why: {REASONS.get(p.reason, p.reason)} (seen {_times(p.count)}, last {p.last_seen[:10]})")
        lines.append(f"   {_instead(p)}")
        lines.append("")
    if len(ranked) > limit:
        lines.append(f"({len(ranked) - limit} more pattern(s) not shown: `specward ledger list` has them all)")
        lines.append("")
    lines.append("=== End of imports hallucinated before ===")
    return "\n".join(lines) + "\n"
