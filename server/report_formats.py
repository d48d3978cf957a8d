"""The reports ``specward check`` writes for CI systems: SARIF 2.1.0 (GitHub code scanning
and other SARIF readers), GitHub Actions workflow commands (annotations), a GitLab Code
Quality report and JUnit XML (test-report views of GitLab, Jenkins and GitHub actions).

Every function here is pure: it takes the findings as :class:`Row` values and returns a
string or a JSON-ready object; writing it is the caller's job. docs/output-formats.md tells
which CI system reads which format and how.

Text that a format cannot carry is replaced, never a reason to fail: lone surrogates (the
surrogate escapes of a file name that is not UTF-8) become U+FFFD in every text output, and
JUnit also replaces the characters XML 1.0 forbids. Only SARIF URIs keep the original bytes
of such a name, percent-encoded.
"""

from __future__ import annotations

import hashlib
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from urllib.parse import quote

from specward.analyzers.codes import CODES, DOCS_URL


@dataclass(frozen=True)
class Row:
    file: str          # path as printed: relative to the current folder, posix separators
    line: int          # 1-based
    column: int        # 1-based, Unicode code points
    end_line: int
    end_column: int    # 1-based, the column just after the finding (exclusive, as LSP ranges)
    code: str          # kebab-case diagnostic code, e.g. "phantom-api"
    severity: str      # "error" | "warning" | "information" | "hint"
    message: str
    fingerprint: str   # a stable identity of the finding (hex string), given by the caller


SEVERITIES = ("error", "warning", "information", "hint")

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_FINGERPRINT_KEY = "specwardFindingHash/v1"
INFORMATION_URI = DOCS_URL.split("/blob/", 1)[0]
SRCROOT = "%SRCROOT%"

SARIF_LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}
# GitLab's scale is info < minor < major < critical < blocker; specward's errors are "major"
# (not "critical"/"blocker": those are kept for security findings in GitLab's widget).
GITLAB_SEVERITIES = {"error": "major", "warning": "minor", "information": "info", "hint": "info"}
# Only these make a JUnit test case fail; information and hint go to <system-out>.
JUNIT_FAILING = ("error", "warning")

_SURROGATE = re.compile("[\ud800-\udfff]")
# what XML 1.0 cannot hold: C0 controls but tab/LF/CR, surrogates, U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _severity(row: Row) -> str:
    if row.severity not in SEVERITIES:
        raise ValueError(f"{row.file}:{row.line}: unknown severity {row.severity!r}")
    return row.severity


def _text(value: str) -> str:
    """``value`` with every lone surrogate replaced: encodable as UTF-8, valid in JSON."""
    return _SURROGATE.sub("\ufffd", value)


# ---------------------------------------------------------------------------------------- SARIF


def rule_name(code: str) -> str:
    """The CamelCase name of a kebab-case code: ``phantom-api`` -> ``PhantomApi``."""
    return "".join(part[:1].upper() + part[1:] for part in code.split("-"))


def file_uri(path: str) -> tuple[str, str | None]:
    """The SARIF ``uri`` of a printed path and its ``uriBaseId``: a relative reference
    against ``%SRCROOT%`` (percent-encoded from the file name's bytes, ``/`` kept), or a
    ``file:`` URI without base for an absolute path."""
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a surrogate that is no surrogate escape
        raw = path.encode("utf-8", "surrogatepass")
    encoded = quote(raw, safe="/")
    if encoded.startswith("/"):
        return "file://" + encoded, None
    return encoded, SRCROOT


def _location(path: str, artifact_index: int | None = None) -> dict:
    uri, base = file_uri(path)
    location: dict = {"uri": uri}
    if base is not None:
        location["uriBaseId"] = base
    if artifact_index is not None:
        location["index"] = artifact_index
    return location


def _region(row: Row) -> dict:
    """Lines and columns are at least 1 and the end never before the start (SARIF's
    constraints), whatever the row says."""
    line = max(1, row.line)
    column = max(1, row.column)
    end_line = max(line, row.end_line)
    end_column = max(1, row.end_column)
    if end_line == line:
        end_column = max(column, end_column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _rule(code: str) -> dict:
    known = CODES.get(code)
    title = known.title if known else code
    level = SARIF_LEVELS[known.severity] if known else "warning"
    return {
        "id": code,
        "name": rule_name(code),
        "shortDescription": {"text": title},
        "helpUri": DOCS_URL.format(code=code),
        "defaultConfiguration": {"level": level},
    }


def sarif(rows: list[Row], *, version: str, checked_files: list[str]) -> dict:
    """A SARIF 2.1.0 log of one run.

    ``rules`` lists every registered code, sorted, so a code's ``ruleIndex`` is the same in
    every log of a version (a code not registered, which should not happen, is appended).
    Columns count Unicode code points (``columnKind``). ``artifacts`` lists the checked
    files (and any other file a row names), and each result's location points at its entry.
    ``partialFingerprints`` carries the caller's fingerprint under
    ``specwardFindingHash/v1``."""
    codes = sorted(CODES)
    extra = sorted({r.code for r in rows} - set(codes))
    rule_index = {code: i for i, code in enumerate(codes + extra)}

    files = list(dict.fromkeys([*checked_files, *(r.file for r in rows)]))
    artifact_index = {path: i for i, path in enumerate(files)}

    results = []
    for row in rows:
        results.append({
            "ruleId": row.code,
            "ruleIndex": rule_index[row.code],
            "level": SARIF_LEVELS[_severity(row)],
            "message": {"text": _text(row.message)},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _location(row.file, artifact_index[row.file]),
                    "region": _region(row),
                },
            }],
            "partialFingerprints": {SARIF_FINGERPRINT_KEY: _text(row.fingerprint)},
        })

    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "specward",
                "version": version,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(code) for code in codes + extra],
            }},
            "invocations": [{"executionSuccessful": True}],
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": _location(path)} for path in files],
            "results": results,
        }],
    }


# ------------------------------------------------------------------------------- GitHub Actions


def _escape_data(value: str) -> str:
    return _text(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(rows: list[Row]) -> str:
    """GitHub Actions workflow commands, one line per finding (``::error``, ``::warning``,
    ``::notice`` for information and hint), escaped as the Actions toolkit escapes them.
    GitHub resolves ``file`` against the repository root: the paths should be relative to
    it (they are when ``specward check`` runs at the root)."""
    lines = []
    for row in rows:
        command = GITHUB_COMMANDS[_severity(row)]
        region = _region(row)
        props = [
            ("file", row.file),
            ("line", str(region["startLine"])),
            ("col", str(region["startColumn"])),
            ("endLine", str(region["endLine"])),
            ("endColumn", str(region["endColumn"])),
            ("title", f"specward({row.code})"),
        ]
        rendered = ",".join(f"{key}={_escape_property(value)}" for key, value in props)
        lines.append(f"::{command} {rendered}::{_escape_data(row.message)}")
    return "".join(line + "\n" for line in lines)


# ------------------------------------------------------------------------------- GitLab quality


def gitlab(rows: list[Row]) -> list[dict]:
    """A GitLab Code Quality report (``artifacts:reports:codequality``): a JSON array of
    Code Climate issues.

    The caller's fingerprint does not name the file, so each issue's ``fingerprint`` is a
    hash of the file, the code, that fingerprint and the occurrence (0 for the first row
    with that file and fingerprint, 1 for the next...): unique in the report, and the same
    from one pipeline to the next as long as the finding is, which is how GitLab tells new
    issues from resolved ones."""
    seen: Counter[tuple[str, str]] = Counter()
    issues = []
    for row in rows:
        key = (row.file, row.fingerprint)
        occurrence = seen[key]
        seen[key] += 1
        identity = "\0".join([row.file, row.code, row.fingerprint, str(occurrence)])
        digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        issues.append({
            "type": "issue",
            "check_name": row.code,
            "description": _text(row.message),
            "categories": ["Bug Risk"],
            "severity": GITLAB_SEVERITIES[_severity(row)],
            "fingerprint": digest,
            "location": {"path": _text(row.file), "lines": {"begin": max(1, row.line)}},
        })
    return issues


# -------------------------------------------------------------------------------------- JUnit


def _xml(value: str) -> str:
    """``value`` with what XML 1.0 cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", value)


def _junit_line(row: Row) -> str:
    return f"{row.file}:{row.line}:{row.column}: {row.severity}[{row.code}] {row.message}"


def junit(rows: list[Row], *, checked_files: list[str]) -> str:
    """JUnit XML: ``<testsuites>`` holding one ``<testsuite name="specward">`` with one
    ``<testcase>`` per checked file (``classname="specward"``, ``name`` and ``file`` the
    path), in the order given, then any other file a row names.

    One test case per file, not per finding: the set of tests stays the same from one run
    to the next, so the test history of GitLab and Jenkins follows a file from failing to
    fixed, and a finding's line or message never becomes a test's name. A file with error or
    warning findings has one ``<failure>`` (JUnit allows one per test case; Jenkins and
    GitLab read only one): its ``message`` is ``code: message`` of the first such finding
    (with ``(+N more)`` when there are others), its ``type`` the worst severity, its text one
    line per finding, ``file:line:col: severity[code] message``. Information and hint
    findings fail nothing: they are lines of the test case's ``<system-out>``. ``failures``
    counts the failing test cases; ``errors`` is 0 (the report is only written when the
    check itself ran)."""
    by_file: dict[str, list[Row]] = {path: [] for path in checked_files}
    for row in rows:
        _severity(row)
        by_file.setdefault(row.file, []).append(row)

    suite = ET.Element("testsuite", name="specward")
    failures = 0
    for path, found in by_file.items():
        case = ET.SubElement(suite, "testcase", classname="specward", name=_xml(path), file=_xml(path))
        failing = [r for r in found if r.severity in JUNIT_FAILING]
        quiet = [r for r in found if r.severity not in JUNIT_FAILING]
        if failing:
            failures += 1
            first = failing[0]
            message = f"{first.code}: {first.message}"
            if len(failing) > 1:
                message += f" (+{len(failing) - 1} more)"
            worst = "error" if any(r.severity == "error" for r in failing) else "warning"
            failure = ET.SubElement(case, "failure", message=_xml(message), type=worst)
            failure.text = _xml("\n".join(_junit_line(r) for r in failing))
        if quiet:
            out = ET.SubElement(case, "system-out")
            out.text = _xml("\n".join(_junit_line(r) for r in quiet))

    counts = {"tests": str(len(by_file)), "failures": str(failures), "errors": "0", "skipped": "0"}
    suite.attrib.update(counts)
    root = ET.Element("testsuites", name="specward", **{k: v for k, v in counts.items() if k != "skipped"})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
