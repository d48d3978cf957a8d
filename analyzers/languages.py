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
from pathlib import PurePosixPath

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
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


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


@cache
def query_source(filename: str) -> str:
    return resources.files(__package__).joinpath("queries", filename).read_text("utf-8")


@cache
def query(grammar_name: str, filename: str) -> Query:
    """The compiled query ``queries/<filename>`` for a grammar (compiled once)."""
    return Query(grammar(grammar_name), query_source(filename))
