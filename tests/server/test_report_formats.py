"""The CI report formats (server/report_formats.py): SARIF validated against the official
OASIS SARIF 2.1.0 schema (tests/fixtures/sarif/), GitHub workflow commands, GitLab Code
Quality and JUnit XML."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import jsonschema
import pytest

from specward.analyzers.codes import CODES, DOCS_URL
from specward.server.report_formats import Row, github, gitlab, junit, rule_name, sarif

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text("utf-8"))

# RFC 3986 URI-reference: only unreserved, sub-delims, ":", "@", "/", "?", "#" and %XX.
# (jsonschema checks "uri" and "uri-reference" only with optional packages that are not
# dependencies of specward, so the format checker gets these two here.)
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uri-reference")
def _uri_reference(value: object) -> bool:
    if not isinstance(value, str) or not _URI_CHARS.fullmatch(value):
        return False
    first = value.split("/", 1)[0]
    # a relative reference whose first segment has a ":" would read as a scheme
    return ":" not in first or bool(_SCHEME.fullmatch(first.split(":", 1)[0]))


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    return isinstance(value, str) and _uri_reference(value) and bool(urlsplit(value).scheme)


def validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(SCHEMA)  # Draft 4, as the schema's $schema says
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=FORMATS)


def errors(log: dict) -> list[str]:
    # through JSON text, as a reader gets it: what json cannot encode would fail here
    text = json.dumps(log, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate survives
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(json.loads(text))]


def row(file="web/src/api.ts", line=3, column=5, end_line=3, end_column=12, code="phantom-api",
        severity="error", message="GET /users/{id}/avatar is not declared", fingerprint="ab12cd34") -> Row:
    return Row(file, line, column, end_line, end_column, code, severity, message, fingerprint)


ALL_SEVERITIES = [
    row(),
    row(code="undeclared-dependency", severity="warning", message="lodash is not declared", line=1, column=1,
        end_column=30, fingerprint="01"),
    row(file="web/src/b.ts", code="case-mismatch", severity="information", message="/Users matches /users",
        fingerprint="02"),
    row(file="web/src/b.ts", code="file-skipped", severity="hint", message="skipped", fingerprint="03"),
]


def test_the_schema_is_the_official_oasis_one():
    assert SCHEMA["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]


def test_sarif_with_every_severity_is_valid():
    log = sarif(ALL_SEVERITIES, version="0.1.0", checked_files=["web/src/api.ts", "web/src/b.ts", "web/src/c.ts"])
    assert errors(log) == []
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and log["version"] == "2.1.0"
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "specward" and driver["version"] == "0.1.0" and driver["informationUri"]
    assert [r["id"] for r in driver["rules"]] == sorted(CODES)
    assert run["invocations"] == [{"executionSuccessful": True}]
    assert run["columnKind"] == "unicodeCodePoints"
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["web/src/api.ts", "web/src/b.ts", "web/src/c.ts"]

    assert [r["level"] for r in run["results"]] == ["error", "warning", "note", "note"]
    first = run["results"][0]
    assert first["ruleId"] == "phantom-api"
    assert driver["rules"][first["ruleIndex"]]["id"] == "phantom-api"
    assert first["message"]["text"] == "GET /users/{id}/avatar is not declared"
    assert first["partialFingerprints"] == {"specwardFindingHash/v1": "ab12cd34"}
    physical = first["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "web/src/api.ts", "uriBaseId": "%SRCROOT%", "index": 0}
    assert physical["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 12}


def test_sarif_rules_describe_the_codes():
    rules = sarif([], version="1", checked_files=[])["runs"][0]["tool"]["driver"]["rules"]
    by_id = {r["id"]: r for r in rules}
    phantom = by_id["phantom-api"]
    assert phantom["name"] == "PhantomApi"
    assert phantom["shortDescription"]["text"] == CODES["phantom-api"].title
    assert phantom["helpUri"] == DOCS_URL.format(code="phantom-api")
    assert phantom["defaultConfiguration"] == {"level": "error"}
    assert by_id["case-mismatch"]["defaultConfiguration"] == {"level": "note"}
    assert by_id["undeclared-dependency"]["defaultConfiguration"] == {"level": "warning"}
    assert rule_name("unknown-response-field") == "UnknownResponseField"


def test_sarif_of_nothing_is_valid():
    log = sarif([], version="0.1.0", checked_files=[])
    assert errors(log) == []
    assert log["runs"][0]["results"] == []


def test_sarif_paths_are_percent_encoded_uris():
    odd = row(file="my docs/ünïcode – café.ts")
    latin1 = row(file="bad/caf\udce9.py", message="import of caf\udce9", fingerprint="ff")
    colon = row(file="a:b/c.ts")
    absolute = row(file="/elsewhere/x.ts")
    log = sarif([odd, latin1, colon, absolute], version="0.1.0", checked_files=[])
    assert errors(log) == []
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert uris[0]["uri"] == "my%20docs/%C3%BCn%C3%AFcode%20%E2%80%93%20caf%C3%A9.ts"
    assert unquote_to_bytes(uris[0]["uri"]).decode("utf-8") == "my docs/ünïcode – café.ts"
    assert uris[1]["uri"] == "bad/caf%E9.py"  # the file name's own byte, not U+FFFD
    assert unquote_to_bytes(uris[1]["uri"]) == b"bad/caf\xe9.py"
    assert uris[2]["uri"] == "a%3Ab/c.ts"
    assert uris[3] == {"uri": "file:///elsewhere/x.ts", "index": 3}
    assert log["runs"][0]["results"][1]["message"]["text"] == "import of caf\ufffd"


def test_sarif_message_with_newlines_is_valid():
    log = sarif([row(message="first line\nsecond line\r\n\tthird")], version="0.1.0", checked_files=[])
    assert errors(log) == []
    assert log["runs"][0]["results"][0]["message"]["text"] == "first line\nsecond line\r\n\tthird"


def test_sarif_regions_always_satisfy_the_schema():
    log = sarif([row(line=0, column=0, end_line=0, end_column=0), row(line=4, column=9, end_line=4, end_column=2)],
                version="0.1.0", checked_files=[])
    assert errors(log) == []
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]]
    assert regions == [{"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1},
                       {"startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 9}]


@pytest.mark.parametrize("breakage", ["level", "uri", "version", "missing-message", "column"])
def test_a_broken_log_fails_validation(breakage):
    log = copy.deepcopy(sarif(ALL_SEVERITIES, version="0.1.0", checked_files=[]))
    result = log["runs"][0]["results"][0]
    if breakage == "level":
        result["level"] = "fatal"
    elif breakage == "uri":
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "my docs/a b.ts"
    elif breakage == "version":
        log["version"] = "2.0.0"
    elif breakage == "missing-message":
        del result["message"]
    else:
        result["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    assert errors(log) != []


def test_unknown_severity_is_refused():
    with pytest.raises(ValueError, match="fatal"):
        sarif([row(severity="fatal")], version="0.1.0", checked_files=[])


# ------------------------------------------------------------------------------------- GitHub


def test_github_lines():
    out = github(ALL_SEVERITIES)
    assert out.splitlines() == [
        ("::error file=web/src/api.ts,line=3,col=5,endLine=3,endColumn=12,title=specward(phantom-api)::"
         "GET /users/{id}/avatar is not declared"),
        ("::warning file=web/src/api.ts,line=1,col=1,endLine=3,endColumn=30,title=specward(undeclared-dependency)::"
         "lodash is not declared"),
        ("::notice file=web/src/b.ts,line=3,col=5,endLine=3,endColumn=12,title=specward(case-mismatch)::"
         "/Users matches /users"),
        "::notice file=web/src/b.ts,line=3,col=5,endLine=3,endColumn=12,title=specward(file-skipped)::skipped",
    ]
    assert out.endswith("\n")
    assert github([]) == ""


def test_github_escaping():
    out = github([row(file="dir,one/a:b%c.ts", message="100% sure: a, b\nnext\r\nlast")])
    assert out == ("::error file=dir%2Cone/a%3Ab%25c.ts,line=3,col=5,endLine=3,endColumn=12,"
                   "title=specward(phantom-api)::100%25 sure: a, b%0Anext%0D%0Alast\n")


def test_github_output_is_always_utf8():
    out = github([row(file="caf\udce9.py", message="caf\udce9")])
    assert out.encode("utf-8") and "caf\ufffd.py" in out


# ------------------------------------------------------------------------------------- GitLab


def test_gitlab_issues():
    issues = gitlab(ALL_SEVERITIES)
    assert [i["severity"] for i in issues] == ["major", "minor", "info", "info"]
    first = issues[0]
    assert first["type"] == "issue"
    assert first["check_name"] == "phantom-api"
    assert first["description"] == "GET /users/{id}/avatar is not declared"
    assert first["location"] == {"path": "web/src/api.ts", "lines": {"begin": 3}}
    assert re.fullmatch(r"[0-9a-f]{32}", first["fingerprint"])
    json.dumps(issues, ensure_ascii=False).encode("utf-8")
    assert gitlab([]) == []


def test_gitlab_fingerprints_are_unique_and_stable():
    same = [row(), row(line=9), row(file="web/src/other.ts")]  # one fingerprint, three findings
    fingerprints = [i["fingerprint"] for i in gitlab(same)]
    assert len(set(fingerprints)) == 3
    assert [i["fingerprint"] for i in gitlab(same)] == fingerprints
    # a finding keeps its fingerprint when lines move (it does not depend on the line)
    assert gitlab([row(line=40)])[0]["fingerprint"] == fingerprints[0]
    assert gitlab([row(file="web/src/other.ts")])[0]["fingerprint"] == fingerprints[2]


# -------------------------------------------------------------------------------------- JUnit


def parse(xml: str) -> ET.Element:
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    return ET.fromstring(xml.encode("utf-8"))


def test_junit_counts_and_cases():
    root = parse(junit(ALL_SEVERITIES, checked_files=["web/src/api.ts", "web/src/b.ts", "web/src/clean.ts"]))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "0")
    [suite] = root
    assert suite.get("name") == "specward"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("3", "1", "0", "0")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == ["web/src/api.ts", "web/src/b.ts", "web/src/clean.ts"]

    [failure] = cases["web/src/api.ts"].findall("failure")
    assert failure.get("message") == "phantom-api: GET /users/{id}/avatar is not declared (+1 more)"
    assert failure.get("type") == "error"
    assert failure.text.splitlines() == [
        "web/src/api.ts:3:5: error[phantom-api] GET /users/{id}/avatar is not declared",
        "web/src/api.ts:1:1: warning[undeclared-dependency] lodash is not declared",
    ]
    # information and hint fail nothing: they are printed
    assert cases["web/src/b.ts"].find("failure") is None
    assert cases["web/src/b.ts"].find("system-out").text.splitlines() == [
        "web/src/b.ts:3:5: information[case-mismatch] /Users matches /users",
        "web/src/b.ts:3:5: hint[file-skipped] skipped",
    ]
    # a file without findings is a passing test case
    assert list(cases["web/src/clean.ts"]) == []


def test_junit_single_warning_and_unlisted_file():
    root = parse(junit([row(file="extra.ts", severity="warning", code="unknown-field", message="x")], checked_files=[]))
    assert (root.get("tests"), root.get("failures")) == ("1", "1")
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message") == "unknown-field: x" and failure.get("type") == "warning"


def test_junit_replaces_what_xml_cannot_hold():
    bad = row(file="caf\udce9\x01.ts", message="bell\x07 nul\x00 esc\x1b tab\t ok\nline two & <tag> \"q\"")
    root = parse(junit([bad], checked_files=[]))
    case = root.find("testsuite/testcase")
    assert case.get("name") == "caf\ufffd\ufffd.ts"
    failure = case.find("failure")
    assert failure.get("message") == "phantom-api: bell\ufffd nul\ufffd esc\ufffd tab\t ok\nline two & <tag> \"q\""
    assert failure.text == ("caf\ufffd\ufffd.ts:3:5: error[phantom-api] bell\ufffd nul\ufffd esc\ufffd tab\t ok\n"
                            "line two & <tag> \"q\"")


def test_junit_of_nothing():
    root = parse(junit([], checked_files=[]))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("0", "0", "0")
    assert root.find("testsuite").get("name") == "specward"
