"""Position conversion at the LSP edge: UTF-16 by default, UTF-8 and UTF-32 when negotiated."""

from __future__ import annotations

from lsprotocol import types as lsp

from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Finding, Span
from specward.server.lsp import convert

TEXT = "const s = '😀é';\nfetch('/api/x');\n"


def _span_of(needle: str, text: str = TEXT) -> Span:
    data = text.encode()
    start = data.index(needle.encode())
    return Span(start, start + len(needle.encode()))


def test_utf16_columns_count_surrogate_pairs():
    idx = LineIndex.of_text(TEXT)
    span = _span_of("';")
    pos = convert.position(idx, span.start, "utf-16")
    # "const s = '" is 11 units, 😀 is 2 UTF-16 units, é is 1
    assert (pos.line, pos.character) == (0, 14)
    assert convert.position(idx, span.start, "utf-8").character == 11 + 4 + 2
    assert convert.position(idx, span.start, "utf-32").character == 13


def test_offsets_round_trip_in_every_encoding():
    idx = LineIndex.of_text(TEXT)
    for enc in ("utf-8", "utf-16", "utf-32"):
        for offset in (0, 11, 15, 17, 20, len(TEXT.encode()) - 1):
            if TEXT.encode()[offset] & 0xC0 == 0x80:
                continue  # inside a multi-byte character
            pos = convert.position(idx, offset, enc)
            assert convert.offset_of(idx, pos, enc) == offset, (enc, offset)


def test_diagnostic_carries_code_docs_link_and_range():
    idx = LineIndex.of_text(TEXT)
    f = Finding("phantom-api", "error", "GET /api/x is not in the contract", "a.ts", _span_of("'/api/x'"),
                data=(("nearest", ("GET /api/y",)),))
    d = convert.diagnostic(f, idx, "utf-16")
    assert d.range == lsp.Range(start=lsp.Position(line=1, character=6), end=lsp.Position(line=1, character=14))
    assert d.code == "phantom-api" and d.source == "specward"
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert d.code_description.href.endswith("/docs/diagnostics/phantom-api.md")
    assert d.data == {"nearest": ["GET /api/y"]}
