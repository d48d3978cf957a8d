"""Baselines: today's findings recorded, so a check fails only on the new ones.

A finding's identity is its code, its file and a hash of the normalised offending text and
its context (the whole line it starts on), never its line number: lines added or removed
elsewhere in the file leave it alone, an edit of the offending line itself makes it new.
Several findings with the same identity (the same mistake written twice on identical
lines) are counted: the baseline holds how many there were, and only the ones beyond that
count are new (the last ones in the file).

The baseline file is JSON (``render`` / ``parse``): sorted, one entry per identity, with the
first occurrence's message and line for people reading a diff of it. Paths in it are
relative to the folder of the baseline file, so it reads the same from any working folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass

from .model import Finding

FORMAT_VERSION = 1
_SPACE = re.compile(rb"\s+")
_MAX_OFFENDING = 2000  # bytes of offending text hashed (a contract-wide finding spans a whole file)


class BaselineError(ValueError):
    """A baseline file that cannot be used (the message says why, in one line)."""


def fingerprint(code: str, data: bytes, start: int, end: int) -> str:
    """The identity of a finding ``code`` at bytes ``[start, end)`` of a file whose bytes are
    ``data`` (positions beyond them are clamped). The file is not in it: every use keys it
    with its own path (the baseline's entries, a SARIF result's location). A finding on no
    text at all (the empty span at the file's start: a file skipped, a configuration
    problem without a position) is the file's: its identity is the code alone, and ``data``
    is not read (the file may be one that must not be read)."""
    if start == end == 0:
        data = b""
    start = max(0, min(start, len(data)))
    end = max(start, min(end, len(data)))
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", start)
    line_end = len(data) if line_end < 0 else line_end
    offending = _SPACE.sub(b" ", data[start:min(end, start + _MAX_OFFENDING)]).strip()
    context = _SPACE.sub(b" ", data[line_start:line_end]).strip()
    h = hashlib.blake2b(digest_size=12)
    for part in (code.encode(), offending, context):
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    """One identity of the baseline: ``count`` findings had it when it was written."""

    code: str
    file: str  # relative to the baseline file's folder, posix
    fingerprint: str
    count: int = 1
    message: str = ""  # the first one's, for people
    line: int = 0  # the first one's (1-based), for people; never compared


@dataclass(frozen=True)
class Keyed:
    """A finding to split, with its baseline path and fingerprint."""

    finding: Finding
    file: str  # relative to the baseline file's folder, posix
    fingerprint: str
    line: int = 0


def entries(found: list[Keyed]) -> list[Entry]:
    """What ``--write-baseline`` records for ``found`` (in any order)."""
    first: dict[tuple[str, str, str], Keyed] = {}
    counts: Counter[tuple[str, str, str]] = Counter()
    for k in found:
        key = (k.file, k.finding.code, k.fingerprint)
        counts[key] += 1
        first.setdefault(key, k)
    return [Entry(code, file, fp, counts[(file, code, fp)], first[(file, code, fp)].finding.message,
                  first[(file, code, fp)].line) for file, code, fp in sorted(counts)]


def split(found: list[Keyed], baseline: list[Entry]) -> tuple[list[Keyed], list[Keyed]]:
    """``(new, baselined)``: the findings beyond their identity's count are new. ``found``
    keeps its order in both lists; within a file the first ones are the baselined ones."""
    left: Counter[tuple[str, str, str]] = Counter()
    for e in baseline:
        left[(e.file, e.code, e.fingerprint)] += e.count
    new: list[Keyed] = []
    old: list[Keyed] = []
    for k in found:
        key = (k.file, k.finding.code, k.fingerprint)
        if left[key] > 0:
            left[key] -= 1
            old.append(k)
        else:
            new.append(k)
    return new, old


def render(items: list[Entry]) -> str:
    body = [{"file": e.file, "code": e.code, "fingerprint": e.fingerprint, "count": e.count, "line": e.line,
             "message": e.message} for e in items]
    return json.dumps({"specward_baseline": FORMAT_VERSION, "findings": body}, indent=2, ensure_ascii=False) + "\n"


def parse(text: str) -> list[Entry]:
    """The entries of a baseline file; ``BaselineError`` for anything else (a half-written
    file, another tool's JSON, a newer format)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise BaselineError(f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or "specward_baseline" not in doc:
        raise BaselineError("not a specward baseline (no `specward_baseline` key)")
    if doc["specward_baseline"] != FORMAT_VERSION:
        raise BaselineError(f"baseline format {doc['specward_baseline']!r}; this specward reads format "
                            f"{FORMAT_VERSION} (write it again with --write-baseline)")
    items = doc.get("findings")
    if not isinstance(items, list):
        raise BaselineError("`findings` must be a list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BaselineError(f"findings[{i}] is not an object")
        file, code, fp, count = item.get("file"), item.get("code"), item.get("fingerprint"), item.get("count", 1)
        if not (isinstance(file, str) and isinstance(code, str) and isinstance(fp, str)):
            raise BaselineError(f"findings[{i}] needs string `file`, `code` and `fingerprint`")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"findings[{i}]: `count` must be a positive integer")
        message, line = item.get("message", ""), item.get("line", 0)
        out.append(Entry(code, file, fp, count, message if isinstance(message, str) else "",
                         line if isinstance(line, int) and not isinstance(line, bool) else 0))
    return out
