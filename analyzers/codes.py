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
        Code("phantom-import", "error", "Import of a module that cannot be resolved"),
        Code("missing-export", "error", "Import of a name the module does not export"),
        Code("undeclared-dependency", "warning", "Import of a third-party package the project does not declare"),
        Code("hallucinated-package", "error", "Import of a package that no registry knows"),
        Code("repeated-hallucination", "warning", "Import that repeats a mistake recorded in the fix-history ledger"),
        Code("ledger-invalid", "warning", "Fix-history ledger line that cannot be read"),
        Code("invariant-violation", "error", "Import that crosses an architecture rule (layers, forbidden, independence)"),
        Code("stale-context", "warning", "File that changed since an AI task's context manifest read it"),
        Code("low-confidence-context", "information", "Context manifest entry that needs review"),
        Code("incomplete-context", "warning", "Active context manifest that lacks what the task requires"),
        Code("out-of-context-edit", "warning", "Edit to a file that is not in the active task's context"),
        Code("forbidden-symbol", "error", "Use of a symbol that configuration forbids to the active task"),
        Code("context-invalid", "error", "Context manifest that cannot be read"),
        Code("stale-generated", "warning", "Generated file whose contract elements changed since it was generated"),
        Code("contract-change-impact", "information", "Contract entry whose last change affects files of the workspace"),
        Code("unimplemented-endpoint", "warning", "Contract endpoint that no route of the backend implements"),
        Code("undeclared-route", "information", "Backend route that no contract declares"),
        Code("route-method-mismatch", "warning", "Contract endpoint whose path the backend routes with other methods"),
        Code("unknown-field", "warning", "Request body field that the endpoint's schema does not declare"),
        Code("missing-field", "error", "Request body that leaves out a field the endpoint's schema requires"),
        Code("unknown-parameter", "warning", "Query parameter that the endpoint does not declare"),
        Code("missing-parameter", "error", "Call that leaves out a query parameter the endpoint requires"),
        Code("unknown-response-field", "warning", "Read of a response field that the endpoint's schema does not have"),
        Code("unknown-suppression", "warning", "Suppression comment that names no code it can suppress"),
        Code("unused-suppression", "warning", "Suppression comment that suppresses no finding"),
    )
}

DOCS_URL = "https://github.com/specward/specward/blob/main/docs/diagnostics/{code}.md"

# What the TypeScript compiler calls the same mistakes (the reference test and the benchmarks
# compare verdicts through this table: docs/imports.md, "Compared with the compilers")
TSC_EQUIVALENTS: dict[str, str] = {
    "TS2307": "phantom-import",  # cannot find module
    "TS2305": "missing-export",  # has no exported member
    "TS2724": "missing-export",  # has no exported member named ...; did you mean
    "TS2614": "missing-export",  # has no exported member; did you mean a default import
    "TS1192": "missing-export",  # has no default export
    "TS2613": "missing-export",  # has no default export; did you mean a named import
    "TS2459": "missing-export",  # declares ... locally, but it is not exported
    "TS2460": "missing-export",  # declares ... locally, but it is exported as ...
}
