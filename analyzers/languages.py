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
    path where a file is re-parsed on every keystroke."""
    p = parser(grammar_name)
    if key is None:
        return p.parse(src)
    recent = getattr(_local, "recent", None)
    if recent is None:
        recent = _local.recent = {}
    prev = recent.pop((grammar_name, key), None)
    tree = None
    if prev is not None:
        old_src, old_tree = prev
        if old_src == src:
            tree = old_tree
        else:
            start = _common_prefix(old_src, src)
            suffix = _common_suffix(old_src, src, start)
            old_end, new_end = len(old_src) - suffix, len(src) - suffix
            old_tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                          start_point=_point(src, start), old_end_point=_point(old_src, old_end),
                          new_end_point=_point(src, new_end))
            tree = p.parse(src, old_tree)
    if tree is None:
        tree = p.parse(src)
    recent[(grammar_name, key)] = (src, tree)
    while len(recent) > _RECENT:
        recent.pop(next(iter(recent)))
    return tree


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
