"""Choosing the grammar by file extension."""

from __future__ import annotations

import pytest

from specward.analyzers.languages import language_of


@pytest.mark.parametrize("path, lang", [
    ("web/src/a.ts", "typescript"), ("a.d.ts", "typescript"), ("x/App.TSX", "tsx"), ("a.mjs", "javascript"),
    ("c/Comp.vue", "vue"), ("s.svelte", "svelte"), ("pkg/mod.pyi", "python"), ("a.b.py", "python"),
    ("a..ts", "typescript"), ("a.ts/", "typescript"),
    (".ts", None), ("dir/.py", None), ("Makefile", None), ("dir.ts/readme", None), ("a.", None), ("notes.md", None),
])
def test_language_by_extension(path: str, lang: str | None):
    assert language_of(path) == lang
