"""Inline suppression comments: ``specward: ignore[code-a, code-b]`` (``docs/suppression.md``).

``parse(text)`` finds the comments of one file; ``apply(path, findings, suppressions,
known_codes)`` drops the findings they cover and reports the comments that name no code
specward knows (``unknown-suppression``) or that suppress nothing (``unused-suppression``).

A suppression is a comment whose text starts with ``specward:`` right after its marker
(``#``, ``//``, ``/*``, ``<!--``; JSX's ``{/*`` is a ``/*``). A comment after code on its line
(a *trailing* one) covers that line; a comment alone on its line covers the next line that
is not itself a line holding only a suppression comment, so that stacked comments all cover
the same line of code. A finding is covered when it *starts* on a covered line.

Positions are byte offsets into the UTF-8 text, like every ``Span``. Pure: text in, plain
data out; a text without ``specward:`` costs one substring test.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Collection, Iterable

from .codes import CODES
from .model import Finding, Span

UNUSED = "unused-suppression"
UNKNOWN = "unknown-suppression"
# findings of these codes are never suppressed (a comment cannot silence what judges comments)
OWN_CODES = frozenset((UNUSED, UNKNOWN))

_MARK = "specward:"
_BMARK = b"specward:"
# the comment marker right before ``specward:`` (with blanks between), at the end of the
# text before it on its line
_OPENER = re.compile(rb"(<!--|/\*+|//+|#+)[ \t]*\Z")
# what follows ``specward:``: ``ignore``, then a list in brackets or nothing that continues
# the word (``ignored``, ``ignore-all`` are not suppressions)
_DIRECTIVE = re.compile(rb"specward:[ \t]*(ignore)(?:[ \t]*\[([^\]\r\n]*)\]|(?![\w-]))")
_CLOSERS = {b"<!--": b"-->", b"/*": b"*/"}


@dataclass(frozen=True)
class Suppression:
    """One ``specward: ignore[...]`` comment. ``covers``: the line it covers, from its first
    byte up to the first byte of the next line (its line break included; empty at the end of
    a file with nothing left to cover); ``codes``: each code listed, with its span in the
    comment; ``listed``: the comment has a ``[...]`` list (even an empty one); ``directive``:
    the span of ``ignore`` and its list; ``comment``: the whole comment, from its marker;
    ``trailing``: it follows code on its line (and covers that line)."""

    covers: Span
    codes: tuple[tuple[str, Span], ...]
    comment: Span
    directive: Span
    listed: bool = True
    trailing: bool = False


def _line_end(data: bytes, pos: int) -> int:
    """Where the line holding ``pos`` ends: its ``\\n``, or the end of the data."""
    end = data.find(b"\n", pos)
    return len(data) if end < 0 else end


def _content_end(data: bytes, start: int, end: int) -> int:
    """``end`` without the ``\\r`` of a CRLF line break."""
    return end - 1 if end > start and data[end - 1:end] == b"\r" else end


def parse(text: str) -> tuple[Suppression, ...]:
    """Every suppression comment of ``text``, in the order they are written."""
    if _MARK not in text:
        return ()
    data = text.encode("utf-8", "surrogatepass")
    # (line start, line end, comment span, directive span, codes, listed, alone) per comment
    found: list[tuple[int, int, Span, Span, tuple[tuple[str, Span], ...], bool, bool]] = []
    alone_lines: set[int] = set()  # the starts of lines holding only a suppression comment
    pos = data.find(_BMARK)
    while pos >= 0:
        line_start = data.rfind(b"\n", 0, pos) + 1
        line_end = _line_end(data, pos)
        opener = _OPENER.search(data, line_start, pos)
        m = _DIRECTIVE.match(data, pos) if opener is not None else None
        if m is None:
            pos = data.find(_BMARK, pos + len(_BMARK))
            continue
        content_end = _content_end(data, line_start, line_end)
        marker = opener.group(1)
        closer = _CLOSERS.get(b"/*" if marker.startswith(b"/*") else marker)
        after = b""
        comment_end = content_end
        if closer is not None:
            close = data.find(closer, m.end(), content_end)
            if close >= 0:
                comment_end = close + len(closer)
                after = data[comment_end:content_end]
        before = data[line_start:opener.start()]
        alone = before.strip() in (b"", b"{") and after.strip() in (b"", b"}")
        codes: list[tuple[str, Span]] = []
        listed = m.group(2) is not None
        if listed:
            at = m.start(2)
            for piece in m.group(2).split(b","):
                name = piece.strip()
                if name:
                    start = at + piece.index(name)
                    codes.append((name.decode("utf-8", "replace"), Span(start, start + len(name))))
                at += len(piece) + 1
        found.append((line_start, line_end, Span(opener.start(), comment_end), Span(m.start(1), m.end()),
                      tuple(codes), listed, alone))
        if alone:
            alone_lines.add(line_start)
        pos = data.find(_BMARK, m.end())
    out = []
    for line_start, line_end, comment, directive, codes, listed, alone in found:
        if alone:
            # the next line that does not hold only a suppression comment
            start = line_end + 1
            while start < len(data) and start in alone_lines:
                start = _line_end(data, start) + 1
            start = min(start, len(data))
            end = min(_line_end(data, start) + 1, len(data)) if start < len(data) else start
        else:
            start, end = line_start, min(line_end + 1, len(data))
        out.append(Suppression(Span(start, end), codes, comment, directive, listed, not alone))
    return tuple(out)


def _nearest(code: str, known: Collection[str]) -> str | None:
    close = difflib.get_close_matches(code, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def apply(path: str, findings: Iterable[Finding], suppressions: tuple[Suppression, ...],
          known_codes: Collection[str]) -> list[Finding]:
    """``findings`` of ``path`` without those a suppression covers, plus the problems of the
    suppressions themselves: ``unknown-suppression`` (a code that is not in ``known_codes``,
    a code of this module's, a bare ``ignore`` or an empty list) and ``unused-suppression``
    (a listed code no finding of its line had). A finding counts when it starts on the
    covered line and has one of the listed codes; findings of another file, and of
    ``OWN_CODES``, are kept as they are. The new findings have their codes' default
    severities and are placed on the code in the comment (on ``ignore[...]`` when there is
    no code)."""
    findings = list(findings)
    if not suppressions:
        return findings
    # covered lines do not overlap: one sorted list of their starts, and who covers each
    by_line: dict[int, list[int]] = {}
    ends: dict[int, int] = {}
    for i, s in enumerate(suppressions):
        if s.covers.end > s.covers.start:
            by_line.setdefault(s.covers.start, []).append(i)
            ends[s.covers.start] = s.covers.end
    starts = sorted(by_line)
    used: set[tuple[int, str]] = set()
    out: list[Finding] = []
    for f in findings:
        if f.file != path or f.code in OWN_CODES or not starts:
            out.append(f)
            continue
        pos = f.span.start
        k = bisect_right(starts, pos) - 1
        hit = False
        if k >= 0 and pos < ends[starts[k]]:
            for i in by_line[starts[k]]:
                if any(code == f.code for code, _ in suppressions[i].codes):
                    used.add((i, f.code))
                    hit = True
        if not hit:
            out.append(f)
    unknown, unused = CODES[UNKNOWN].severity, CODES[UNUSED].severity
    for i, s in enumerate(suppressions):
        if not s.codes:
            what = "specward: ignore[]" if s.listed else "specward: ignore"
            out.append(Finding(UNKNOWN, unknown, f"'{what}' names no code: list the codes it suppresses, as in "
                               "'specward: ignore[phantom-api]'", path, s.directive))
            continue
        for code, span in s.codes:
            if code in OWN_CODES:
                out.append(Finding(UNKNOWN, unknown, f"'{code}' cannot be suppressed by a comment: set its severity "
                                   "in the configuration instead", path, span))
            elif code not in known_codes:
                near = _nearest(code, known_codes)
                if near is None:
                    out.append(Finding(UNKNOWN, unknown, f"'{code}' is not a specward diagnostic code", path, span))
                else:
                    fix = (f"Change to '{near}'", path, span.start, span.end, near)
                    out.append(Finding(UNKNOWN, unknown,
                                       f"'{code}' is not a specward diagnostic code; did you mean '{near}'?", path,
                                       span, (("suggestion", near), ("fixes", (fix,)))))
            elif (i, code) not in used:
                where = "this line" if s.trailing else "the line below"
                out.append(Finding(UNUSED, unused, f"unused suppression: no {code} finding on {where}", path, span))
    return out
