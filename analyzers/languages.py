"""Grammars, parsers and query files, loaded once per process.

The grammar is chosen by file extension: the TypeScript grammar misparses TSX, so
``.tsx`` uses the TSX grammar, ``.ts``/``.mts``/``.cts`` the TypeScript one, and plain
JavaScript (with JSX) the JavaScript grammar. Vue and Svelte components have no grammar
on PyPI: their ``<script>`` blocks are parsed with the TS/JS grammar (see
``extract/components.py``).
"""

from __future__ import annotations

import threading
from functools import cache
from importlib import resources

from tree_sitter import Language, Parser, Query

EXTENSIONS: dict[str, str] = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".vue": "vue",
    ".svelte": "svelte",
    ".py": "python",
    ".pyi": "python",
}


def language_of(path: str) -> str | None:
    """The language name for a path, or None when specward does not analyze it."""
    name = path.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    if dot <= 0:  # no suffix, or a dotfile such as `.ts` (PurePosixPath agrees)
        return None
    return EXTENSIONS.get(name[dot:].lower())


@cache
def grammar(name: str) -> Language:
    if name == "typescript":
        import tree_sitter_typescript as m

        return Language(m.language_typescript())
    if name == "tsx":
        import tree_sitter_typescript as m

        return Language(m.language_tsx())
    if name == "javascript":
        import tree_sitter_javascript as m

        return Language(m.language())
    if name == "python":
        import tree_sitter_python as m

        return Language(m.language())
    if name == "json":
        import tree_sitter_json as m

        return Language(m.language())
    raise KeyError(f"no grammar for {name!r}")


_local = threading.local()


def parser(name: str) -> Parser:
    """A parser for the grammar, one per thread (parsers are not thread-safe)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    p = parsers.get(name)
    if p is None:
        p = parsers[name] = Parser(grammar(name))
    return p


_RECENT = 8  # documents per thread whose last tree is kept for incremental re-parsing


def parse(grammar_name: str, src: bytes, key: str | None = None):
    """Parse ``src``; when ``key`` (a path) was parsed recently on this thread, re-parse
    incrementally from its previous tree. The result is the same tree a fresh parse
    gives (tree-sitter's guarantee); only the work is smaller, which matters on the edit
    path where a file is re-parsed on every keystroke. A returned tree is never edited
    afterwards (re-parsing edits a copy), so callers may keep it."""
    p = parser(grammar_name)
    if key is None:
        return p.parse(src)
    recent = getattr(_local, "recent", None)
    if recent is None:
        recent = _local.recent = {}
    prev = recent.pop((grammar_name, key), None)
    tree = None
    if prev is not None:
        tree = reparse(grammar_name, prev[0], prev[1], src, changed=False)[0]
    if tree is None:
        tree = p.parse(src)
    recent[(grammar_name, key)] = (src, tree)
    while len(recent) > _RECENT:
        recent.pop(next(iter(recent)))
    return tree


def reparse(grammar_name: str, old_src: bytes, old_tree, src: bytes, changed: bool = True):
    """Re-parse ``src`` incrementally from ``old_tree`` (the tree of ``old_src``), which is
    left as it was. Returns ``(tree, edit, changed)``: ``edit`` is ``(start, old_end,
    new_end)``, the one byte range the texts differ in (common prefix and suffix
    excluded), and ``changed`` the byte ranges of the new tree whose syntax differs from
    the old one's (``Tree.changed_ranges``; ``[]`` without ``changed``), both in the new
    text's offsets. The same tree as a fresh parse."""
    if old_src == src:
        return old_tree, (0, 0, 0), []
    start = _common_prefix(old_src, src)
    suffix = _common_suffix(old_src, src, start)
    old_end, new_end = len(old_src) - suffix, len(src) - suffix
    p = parser(grammar_name)
    edited = _edited(old_tree, old_src, src, start, old_end, new_end)
    tree = p.parse(src, edited)
    if tree.root_node.has_error:
        # Around a syntax error, an incremental parse can recover differently from a fresh
        # one (it reuses the subtrees next to an error, and re-parses the statements that
        # hold errors, even far from the edit). Parsing again the top-level statements the
        # edit touched and those with errors, each with one neighbour on each side, gives
        # the fresh parse's tree (tests/analyzers/test_incremental_extract.py checks it on
        # thousands of random edits): facts stay a function of the text, not its history.
        delta = new_end - old_end
        lo, hi = start, new_end
        for r in edited.changed_ranges(tree):
            lo, hi = min(lo, r.start_byte), max(hi, r.end_byte)
        windows = _windows(tree.root_node.children, lo, hi, len(src))
        edited = old_tree.copy()
        ranges = []
        for w0, w1 in reversed(windows):  # right to left: what is left of an edit keeps its offsets
            if w1 < start:
                edited.edit(start_byte=w0, old_end_byte=w1, new_end_byte=w1, start_point=_point(src, w0),
                            old_end_point=_point(src, w1), new_end_point=_point(src, w1))
            elif w0 > new_end:
                o0, o1 = w0 - delta, w1 - delta
                edited.edit(start_byte=o0, old_end_byte=o1, new_end_byte=o1, start_point=_point(old_src, o0),
                            old_end_point=_point(old_src, o1), new_end_point=_point(old_src, o1))
            else:
                w0, w1 = min(w0, start), max(w1, new_end)
                edited.edit(start_byte=w0, old_end_byte=w1 - delta, new_end_byte=w1, start_point=_point(src, w0),
                            old_end_point=_point(old_src, w1 - delta), new_end_point=_point(src, w1))
            ranges.append((w0, w1))
        tree = p.parse(src, edited)
        if changed:
            ranges += [(r.start_byte, r.end_byte) for r in edited.changed_ranges(tree)]
        return tree, (start, old_end, new_end), ranges if changed else []
    ranges = [(r.start_byte, r.end_byte) for r in edited.changed_ranges(tree)] if changed else []
    return tree, (start, old_end, new_end), ranges


def _edited(old_tree, old_src: bytes, src: bytes, start: int, old_end: int, new_end: int):
    """A copy of ``old_tree`` told that ``old_src[start:old_end]`` became ``src[start:new_end]``."""
    edited = old_tree.copy()
    edited.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                start_point=_point(src, start), old_end_point=_point(old_src, old_end),
                new_end_point=_point(src, new_end))
    return edited


def _windows(children: list, lo: int, hi: int, size: int) -> list[tuple[int, int]]:
    """Disjoint byte ranges, in order, covering the top-level statements that touch
    ``[lo, hi]`` or hold a syntax error, each with one more statement on each side (the
    edit's own range is always covered)."""
    n = len(children)
    marks = [i for i, c in enumerate(children)
             if c.has_error or (c.start_byte <= hi and c.end_byte >= lo)]
    spans: list[list[int]] = []
    for i in marks:
        a = children[i - 1].start_byte if i > 0 else 0
        b = children[i + 1].end_byte if i + 1 < n else size
        if spans and a <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    edit = [lo, hi]
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if a <= edit[1] and b >= edit[0]:
            edit = [min(a, edit[0]), max(b, edit[1])]
        else:
            out.append((a, b))
    out.append((edit[0], edit[1]))
    out.sort()
    merged: list[tuple[int, int]] = []
    for a, b in out:  # the edit's range may have joined two of them
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _common_prefix(a: bytes, b: bytes) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # bisection on slice equality: memcmp in C, O(n log n) bytes at worst
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, prefix: int) -> int:
    lo, hi = 0, min(len(a), len(b)) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _point(src: bytes, offset: int) -> tuple[int, int]:
    row = src.count(b"\n", 0, offset)
    return row, offset - (src.rfind(b"\n", 0, offset) + 1)


@cache
def query_source(filename: str) -> str:
    return resources.files(__package__).joinpath("queries", filename).read_text("utf-8")


@cache
def query(grammar_name: str, filename: str) -> Query:
    """The compiled query ``queries/<filename>`` for a grammar (compiled once)."""
    return Query(grammar(grammar_name), query_source(filename))
