"""Choosing the grammar by file extension; parsing ahead of extraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from specward.analyzers.extract import extract, parse_source
from specward.analyzers.languages import language_of


@pytest.mark.parametrize("path, lang", [
    ("web/src/a.ts", "typescript"), ("a.d.ts", "typescript"), ("x/App.TSX", "tsx"), ("a.mjs", "javascript"),
    ("c/Comp.vue", "vue"), ("s.svelte", "svelte"), ("pkg/mod.pyi", "python"), ("a.b.py", "python"),
    ("a..ts", "typescript"), ("a.ts/", "typescript"),
    (".ts", None), ("dir/.py", None), ("Makefile", None), ("dir.ts/readme", None), ("a.", None), ("notes.md", None),
])
def test_language_by_extension(path: str, lang: str | None):
    assert language_of(path) == lang


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack"


def test_a_tree_parsed_beforehand_gives_the_same_facts():
    # parser processes parse a batch first and extract after (extract/__init__.parse_source)
    sources = [p for p in sorted(EXAMPLE.rglob("*")) if p.is_file() and language_of(p.name)]
    assert {language_of(p.name) for p in sources} >= {"python", "typescript", "javascript"}
    for p in sources:
        rel, text = str(p.relative_to(EXAMPLE)), p.read_text("utf-8")
        tree = parse_source(rel, text)
        assert (tree is None) == (language_of(rel) in ("vue", "svelte"))
        facts = extract(rel, text, tree)
        assert facts == extract(rel, text), rel
        assert facts.calls or facts.imports or facts.definitions, rel  # not an empty result twice


def test_text_that_does_not_encode_is_parsed_by_the_extractor():
    text = "x = '\udc80'\nimport requests\nrequests.get('/api/x')\n"  # a lone surrogate
    assert parse_source("a.py", text) is None
    assert [c.callee for c in extract("a.py", text).calls] == ["requests.get"]
