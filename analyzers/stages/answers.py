"""Reading a model's answer tolerantly (issue 15, ``docs/stages.md``): models wrap the same
content in different envelopes, so the envelope is found, not assumed. Pure: text in,
plain data out, or an :class:`AnswerError`.

- :func:`first_json_object`: the first JSON object in the reply, whether it sits in a
  fenced block (```` ```json ```` or a bare fence) or bare in prose. Every ``{`` is a
  candidate, in text order; the JSON decoder parses from it (strings and escapes honoured,
  so a ``}`` inside a string does not end the object); a ``{`` that does not start valid
  JSON is skipped. Two objects: the first wins.
- :func:`generated_files`: the files of a slice, either fenced blocks whose info string
  carries ``path=FILE`` (```` ```ts path=src/api/notes.ts ````), or a JSON ``files`` list of
  ``{"path": ..., "content": ...}`` objects, top level or inside a larger object, fenced
  or bare. When the answer has at least one ``path=`` block, the blocks are the files and
  JSON is not looked at (a plan object listing paths without content is common next to
  them); otherwise the first JSON object holding a list of objects under ``files`` is.

Decisions (documented in ``docs/stages.md``):

- JSON is read as JSON (``NaN``/``Infinity`` refused) except that raw control characters
  (a literal newline or tab) inside strings are accepted, the commonest slip of a model
  writing code into ``content``.
- A ``files`` entry without a string ``path`` or ``content`` is an error, as is an empty
  ``files`` list: a partial list would silently drop what the model meant to write.
- The same path twice (after ``./`` and ``\\`` are normalised) is an error, not "last
  wins": which of the two the model meant is not knowable, and the error goes back to it.
- A ``path=`` block that is never closed is an error (a truncated answer would otherwise
  write a truncated file). Inside such a block a fence line with an info string opens a
  nested block that the next bare fence closes, so a Markdown file with its own examples
  survives even when the model did not lengthen the outer fence.
- A fenced block's lines end in ``\\n`` (``\\r\\n`` in an answer is transport, not
  content); a JSON ``content`` string is taken exactly as decoded.
- An :class:`AnswerError`'s message says which formats were expected and what was found
  (counts, positions, short labels), never the answer itself: the raw answer belongs in
  the run log.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

JSON_FORMAT = "one JSON object, fenced (```json) or bare"
FILES_FORMATS = ("fenced blocks with path=FILE in the info string (```ts path=src/a.ts)",
                 'a JSON object with a "files" list of {"path": ..., "content": ...}')

# parsing from every "{" is quadratic on pathological input (thousands of unclosed nested
# objects); past this many characters examined in failed attempts the scan gives up
_SCAN_BUDGET_FACTOR = 20
_SCAN_BUDGET_MIN = 2_000_000
_LABEL = 40  # longest piece of the answer (an info string, a key) an error message quotes


class AnswerError(ValueError):
    """A model answer that fits none of the expected formats. ``expected`` and ``found``
    are short descriptions; the message never contains the answer itself."""

    def __init__(self, expected: str, found: str):
        self.expected = expected
        self.found = found
        super().__init__(f"the model's answer does not fit: expected {expected}; found {found}")


@dataclass(frozen=True)
class JsonObject:
    """A JSON object found in an answer: its value and where it was, [start, end) in
    characters of the answer."""

    value: dict[str, Any]
    start: int
    end: int


@dataclass(frozen=True)
class GeneratedFile:
    """One file a model proposes: the path as written (not yet confined: see
    ``confine.py``) and the full content."""

    path: str
    content: str


# ----------------------------------------------------------------------------- JSON objects
def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(strict=False, parse_constant=_refuse_constant)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


@dataclass(frozen=True)
class _Scan:
    objects: tuple[JsonObject, ...]
    candidates: int  # "{" tried
    first_error: str | None  # the decoder's message for the first failed candidate
    gave_up: bool


def _scan(text: str, limit: int | None) -> _Scan:
    """Top-level JSON objects of ``text`` in order (an object found is not searched for
    objects inside it), at most ``limit``."""
    found: list[JsonObject] = []
    budget = max(_SCAN_BUDGET_MIN, _SCAN_BUDGET_FACTOR * len(text))
    spent = candidates = 0
    first_error: str | None = None
    pos = 0
    while limit is None or len(found) < limit:
        i = text.find("{", pos)
        if i < 0:
            break
        candidates += 1
        try:
            value, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            spent += exc.pos - i + 1
            if first_error is None:
                first_error = f"line {_line_of(text, i)}: {exc.msg}"
        except (ValueError, RecursionError) as exc:
            spent += len(text) - i  # position unknown: count the worst
            if first_error is None:
                first_error = f"line {_line_of(text, i)}: {type(exc).__name__}"
        else:
            found.append(JsonObject(value, i, end))
            pos = end
            continue
        if spent > budget:
            return _Scan(tuple(found), candidates, first_error, True)
        pos = i + 1
    return _Scan(tuple(found), candidates, first_error, False)


def find_json_object(text: str) -> JsonObject | None:
    """The first JSON object of ``text`` with its position, or None."""
    scan = _scan(text, 1)
    return scan.objects[0] if scan.objects else None


def _no_json(text: str, scan: _Scan) -> str:
    if scan.candidates == 0:
        return f"no '{{' in {len(text):,} characters"
    what = f"{scan.candidates:,} '{{' but none starts a JSON object"
    if scan.gave_up:
        what += " (gave up: too much unclosed nesting)"
    return what + (f"; the first fails at {scan.first_error}" if scan.first_error else "")


def first_json_object(text: str) -> dict[str, Any]:
    """The first JSON object of a model's answer (fenced or bare), or :class:`AnswerError`."""
    scan = _scan(text, 1)
    if not scan.objects:
        raise AnswerError(JSON_FORMAT, _no_json(text, scan))
    return scan.objects[0].value


# --------------------------------------------------------------------------- fenced blocks
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\r\n]*?)[ \t]*$")
_PATH_ATTR = re.compile(r"""(?:^|[\s{,;])path\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s}"',;]+))""")


@dataclass(frozen=True)
class _Block:
    info: str
    path: str | None
    content: str
    start: int  # character offsets of the whole block, fences included
    end: int
    line: int
    closed: bool


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line without its line ending) for every line of ``text``."""
    out = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        out.append((pos, raw.rstrip("\r\n")))
        pos += len(raw)
    return out


def _path_of(info: str) -> str | None:
    m = _PATH_ATTR.search(info)
    if m is None:
        return None
    return next(g for g in (m.group("dq"), m.group("sq"), m.group("bare")) if g is not None)


def _blocks(text: str) -> list[_Block]:
    """Fenced blocks, CommonMark-like (a closing fence is the opening character repeated
    at least as often, nothing after it) with nesting inside ``path=`` blocks."""
    lines = _lines(text)
    out: list[_Block] = []
    i = 0
    while i < len(lines):
        start, line = lines[i]
        m = _FENCE.match(line)
        if m is None or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        fence, info, indent = m.group("fence"), m.group("info"), len(m.group("indent"))
        path = _path_of(info)
        body: list[str] = []
        depth = 0
        j = i + 1
        closed = False
        while j < len(lines):
            inner = lines[j][1]
            n = _FENCE.match(inner)
            if n is not None and n.group("fence")[0] == fence[0]:
                if n.group("info"):
                    if path is not None:
                        depth += 1
                elif depth:
                    depth -= 1
                elif len(n.group("fence")) >= len(fence):
                    closed = True
                    break
            body.append(inner[min(indent, len(inner) - len(inner.lstrip(" "))):])
            j += 1
        end = lines[j][0] + len(lines[j][1]) if closed else len(text)
        content = "".join(b + "\n" for b in body)
        out.append(_Block(info, path, content, start, end, _line_of(text, start), closed))
        i = j + 1
    return out


# ------------------------------------------------------------------------------ files
def _dup_key(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _label(s: str) -> str:
    s = s if len(s) <= _LABEL else s[:_LABEL] + "..."
    return repr(s)


def _check_unique(files: list[GeneratedFile], where: str) -> tuple[GeneratedFile, ...]:
    seen: dict[str, str] = {}
    for f in files:
        key = _dup_key(f.path)
        if key in seen:
            raise AnswerError(", or ".join(FILES_FORMATS) + ", each path once",
                              f"{where} names {_label(f.path)} twice"
                              + ("" if seen[key] == f.path else f" (also as {_label(seen[key])})"))
        seen[key] = f.path
    return tuple(files)


def _files_list(value: Any) -> list[Any] | None:
    """The first list of objects under a ``files`` key, breadth first through nested
    objects (not through lists: a list of files inside a list is not this format)."""
    queue = [value]
    while queue:
        obj = queue.pop(0)
        if not isinstance(obj, dict):
            continue
        files = obj.get("files")
        if isinstance(files, list) and (not files or any(isinstance(e, dict) for e in files)):
            return files
        queue.extend(v for v in obj.values() if isinstance(v, dict))
    return None


def _from_json(files: list[Any]) -> tuple[GeneratedFile, ...]:
    expected = FILES_FORMATS[1]
    if not files:
        raise AnswerError(expected, 'an empty "files" list')
    out = []
    for n, entry in enumerate(files):
        if not isinstance(entry, dict):
            raise AnswerError(expected, f'"files" entry {n} is a {type(entry).__name__}, not an object')
        path, content = entry.get("path"), entry.get("content")
        if not isinstance(path, str) or not path:
            raise AnswerError(expected, f'"files" entry {n} has no "path" string')
        if "content" not in entry:
            raise AnswerError(expected, f'"files" entry {n} ({_label(path)}) has no "content"')
        if not isinstance(content, str):
            raise AnswerError(expected, f'"files" entry {n} ({_label(path)}) has a {type(content).__name__} '
                                        'as "content", not a string')
        out.append(GeneratedFile(path, content))
    return _check_unique(out, 'the "files" list')


def generated_files(text: str) -> tuple[GeneratedFile, ...]:
    """The files a model's answer proposes, in the answer's order, or :class:`AnswerError`
    (see the module's docstring for the formats and the precedence)."""
    blocks = _blocks(text)
    with_path = [b for b in blocks if b.path is not None]
    if with_path:
        for b in with_path:
            if not b.path or not b.path.strip():
                raise AnswerError(FILES_FORMATS[0], f"an empty path= in the fence at line {b.line}")
            if not b.closed:
                raise AnswerError(FILES_FORMATS[0], f"the fenced block for {_label(b.path)} at line {b.line} "
                                                    "is never closed (a truncated answer?)")
        return _check_unique([GeneratedFile(b.path, b.content) for b in with_path], "the answer")
    scan = _scan(text, None)
    for obj in scan.objects:
        files = _files_list(obj.value)
        if files is not None:
            return _from_json(files)
    raise AnswerError(" or ".join(FILES_FORMATS), _no_files(text, blocks, scan))


def _no_files(text: str, blocks: list[_Block], scan: _Scan) -> str:
    parts = []
    if blocks:
        infos = sorted({_label(b.info) if b.info else "(no info string)" for b in blocks})
        shown = ", ".join(infos[:5]) + (", ..." if len(infos) > 5 else "")
        parts.append(f"{len(blocks)} fenced block(s) without path= ({shown})")
    else:
        parts.append("no fenced block")
    if scan.objects:
        keys = sorted({k for o in scan.objects for k in o.value})
        shown = ", ".join(_label(k) for k in keys[:8]) + (", ..." if len(keys) > 8 else "")
        parts.append(f'{len(scan.objects)} JSON object(s) without a "files" list (keys: {shown or "none"})')
    else:
        parts.append("no JSON object (" + _no_json(text, scan) + ")")
    return ", and ".join(parts)
