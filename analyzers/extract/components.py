"""Per-file facts from Vue and Svelte single-file components.

Neither format has a grammar on PyPI, so the ``<script>`` blocks are found with a byte-level
scan and each block is parsed with the TypeScript grammar (``lang="ts"`` /
``lang="typescript"``), the TSX grammar (``lang="tsx"``) or the JavaScript grammar
(default, ``lang="js"`` / ``lang="jsx"``). Spans are shifted by the block's byte offset so
they index the whole file's UTF-8 bytes. Template expressions are not analyzed.
"""

from __future__ import annotations

import re

from ..model import FileFacts
from .ecma import EcmaCollector

__all__ = ["extract_component", "script_blocks"]

# <script ...> ... </script>, attributes in group 1, body in group 2 (bytes, so offsets are
# UTF-8 byte offsets). HTML comments are matched first so commented-out blocks are skipped.
_BLOCK = re.compile(
    rb"<!--.*?-->|<script\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(.*?)</script\s*>",
    re.S | re.I,
)
_ATTR = re.compile(rb"""\b(lang|type)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)

_LANGS = {
    b"ts": "typescript",
    b"typescript": "typescript",
    b"tsx": "tsx",
    b"js": "javascript",
    b"javascript": "javascript",
    b"jsx": "javascript",
}
_SCRIPT_TYPES = (b"", b"module", b"text/javascript", b"application/javascript", b"text/typescript")


def script_blocks(src: bytes) -> list[tuple[int, bytes, str]]:
    """``[(byte offset of the block body, body bytes, grammar)]`` for each script block."""
    blocks = []
    for m in _BLOCK.finditer(src):
        if m.group(2) is None:  # an HTML comment
            continue
        lang = b""
        kind = b""
        for a in _ATTR.finditer(m.group(1) or b""):
            value = (a.group(2) or a.group(3) or a.group(4) or b"").strip().lower()
            if a.group(1).lower() == b"lang":
                lang = value
            else:
                kind = value
        if kind not in _SCRIPT_TYPES:  # JSON, templates, ...
            continue
        grammar = _LANGS.get(lang, "typescript" if kind == b"text/typescript" else "javascript")
        if lang and lang not in _LANGS:  # coffee, ...
            continue
        blocks.append((m.start(2), m.group(2), grammar))
    return blocks


def extract_component(path: str, text: str, kind: str) -> FileFacts:
    """Facts of a ``.vue`` / ``.svelte`` file (``kind`` is ``vue`` or ``svelte``): the union
    of its script blocks' facts, spans indexing the whole file. An internal error in a
    block keeps the other blocks and gives a ``file-skipped`` finding."""
    out = EcmaCollector()
    try:
        src = text.encode("utf-8")
        for offset, body, grammar in script_blocks(src):
            try:
                out.add(body, grammar, offset)
            except Exception as exc:  # noqa: BLE001 - keep the other blocks
                out.failed(exc)
    except Exception as exc:  # noqa: BLE001
        out.failed(exc)
    return out.facts(path, kind)
