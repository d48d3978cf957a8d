"""The one place where analyzer data becomes LSP data (and back).

Analyzers speak in byte offsets into UTF-8 text; LSP speaks in lines and columns counted
in the negotiated position encoding (UTF-16 unless the client offered UTF-8 or UTF-32).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlparse

from lsprotocol import types as lsp

from specward.analyzers.codes import DOCS_URL
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import Finding, Span

_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}


def encoding_name(kind: object) -> str:
    value = getattr(kind, "value", kind) or "utf-16"
    return str(value)


def position(index: LineIndex, offset: int, encoding: str) -> lsp.Position:
    if encoding == "utf-8":
        line, col = index.position_utf8(offset)
    elif encoding == "utf-32":
        line, col = index.position(offset)
    else:
        line, col = index.position_utf16(offset)
    return lsp.Position(line=line, character=col)


def range_of(index: LineIndex, span: Span, encoding: str) -> lsp.Range:
    return lsp.Range(start=position(index, span.start, encoding), end=position(index, span.end, encoding))


def start_of_file() -> lsp.Range:
    """The empty range at the start of a file (where a new file's text is inserted)."""
    return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))


def offset_of(index: LineIndex, pos: lsp.Position, encoding: str) -> int:
    return index.offset(pos.line, pos.character, encoding)


def diagnostic(f: Finding, index: LineIndex, encoding: str) -> lsp.Diagnostic:
    data = {k: list(v) if isinstance(v, tuple) else v for k, v in f.data} if f.data else None
    return lsp.Diagnostic(
        range=range_of(index, f.span, encoding),
        message=f.message,
        severity=_SEVERITY.get(f.severity, lsp.DiagnosticSeverity.Error),
        code=f.code,
        code_description=lsp.CodeDescription(href=DOCS_URL.format(code=f.code)),
        source="specward",
        data=data,
    )


def uri_to_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    # a file name is bytes: %FF must come back as that byte (``unquote`` would make it U+FFFD)
    return Path(os.fsdecode(unquote_to_bytes(parsed.path)))


def path_to_uri(path: Path) -> str:
    return path.resolve().as_uri() if not path.is_absolute() else path.as_uri()
