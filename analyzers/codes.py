"""The closed registry of diagnostic codes. Every code has a page ``docs/diagnostics/<code>.md``
(a test checks it) and a default severity that configuration may override."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Severity


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: Severity
    title: str


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("phantom-api", "error", "HTTP call to a path no contract declares"),
        Code("method-mismatch", "error", "HTTP call with a method the path does not accept"),
        Code("case-mismatch", "information", "HTTP call that matches a declared path only when case is ignored"),
        Code("unused-endpoint", "information", "Contract endpoint that nothing in the workspace calls"),
        Code("contract-invalid", "error", "Contract file that is not valid"),
        Code("config-invalid", "error", "specward configuration that is not valid"),
        Code("file-skipped", "information", "File that specward did not analyze"),
    )
}

DOCS_URL = "https://github.com/specward/specward/blob/main/docs/diagnostics/{code}.md"
