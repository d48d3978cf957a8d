"""Adding a dependency to a ``package.json`` in the file's own style: the quick fix of an
``undeclared-dependency`` whose package is installed. Pure: the manifest's text in, one
edit (byte span and new text) out, or None when the file gives no safe place for it.

The version is never invented: the caller passes the installed version, and the range
written is ``^<installed version>`` (npm's default for ``npm install``)."""

from __future__ import annotations

import json
import re

from .model import Span



def add_dependency(text: str, name: str, version: str, field: str = "dependencies") -> tuple[Span, str] | None:
    """Insert ``"name": "^version"`` into the manifest's top-level ``field`` object, in
    alphabetical place when its entries are sorted (else last), with the indentation of
    its entries. None when the text is not a JSON object, the field is absent or not an
    object, the name is already there, or the version is not a plain semver version."""
    if not re.fullmatch(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?", version):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    deps = data.get(field) if isinstance(data, dict) else None
    if not isinstance(deps, dict) or name in deps:
        return None
    opening = _top_level_key(text, field)
    if opening is None:
        return None
    close = _matching_brace(text, opening)
    if close is None:
        return None
    inner = text[opening + 1:close]
    entry = f'"{name}": "^{version}"'
    key_line_start = text.rfind("\n", 0, opening) + 1
    outer = re.match(r"[ \t]*", text[key_line_start:]).group(0)
    if not deps:  # an empty object: one entry on its own line
        indent = outer + _unit(text)
        new = "{\n" + indent + entry + "\n" + outer + "}"
        return _span(text, opening, close + 1), new
    entries = [(m.start(), m.group(1)) for m in re.finditer(r'\n([ \t]*)"', inner)]
    if not entries:  # all on one line: `{ "a": "1" }`
        return _span(text, close, close), (", " if inner.strip() else "") + entry + (" " if inner.endswith(" ") else "")
    indent = entries[0][1]
    names = list(deps)
    if names == sorted(names):
        after = [n for n in names if n > name]
        if after:  # before the first entry that sorts after it
            at = inner.index(f'"{after[0]}"')
            line_start = inner.rfind("\n", 0, at) + 1
            pos = opening + 1 + line_start
            return _span(text, pos, pos), f"{indent}{entry},\n"
    # last: after the last entry's value, before the closing brace
    last_end = opening + 1 + len(inner.rstrip())
    return _span(text, last_end, last_end), f",\n{indent}{entry}"


def _unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\"", text)
    return m.group(1) if m else "  "


def _structure(text: str, start: int = 0):
    """``(offset, character, depth before it)`` of every character outside strings from
    ``start``, and of the ``"`` that opens each string (whose content is skipped)."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            yield i, c, depth
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        else:
            yield i, c, depth
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
        i += 1


def _top_level_key(text: str, field: str) -> int | None:
    """The offset of the ``{`` that opens the top-level ``field`` object (depth 1)."""
    opener = re.compile(r'"%s"\s*:\s*\{' % re.escape(field))
    for i, c, depth in _structure(text):
        if c == '"' and depth == 1:
            m = opener.match(text, i)
            if m:
                return m.end() - 1
    return None


def _matching_brace(text: str, opening: int) -> int | None:
    for i, c, depth in _structure(text, opening):
        if c in "}]" and depth == 1:
            return i
    return None


def _span(text: str, start: int, end: int) -> Span:
    """Character offsets to the byte span the edit replaces."""
    return Span(len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8")))
