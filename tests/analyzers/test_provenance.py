"""Provenance of generated files: the header comment, ``.specward/generated.json``, and
``stale_generated`` against the current contract (``analyzers/provenance.py``)."""

from __future__ import annotations

import json

import pytest

from specward.analyzers.contract_diff import element_view
from specward.analyzers.contracts import parse_contract
from specward.analyzers.model import ContractFacts, Span
from specward.analyzers.provenance import (MANIFEST, Element, Provenance, elements_of, find_header, parse_manifest,
                                           render_header, render_manifest, stale_generated)

OAS = """\
openapi: 3.0.3
info: {title: Auth, version: "1"}
paths:
  /auth/login:
    post:
      responses:
        '200':
          description: Logged in
          content:
            application/json:
              schema: {$ref: '#/components/schemas/LoginResponse'}
components:
  schemas:
    LoginResponse: {type: object, properties: {token: {type: string}, expires: {type: integer}}}
"""
NO_TOKEN = OAS.replace("token: {type: string}, ", "")
CONTRACT = "specs/openapi.yaml"


def facts(text: str = OAS) -> ContractFacts:
    return parse_contract(CONTRACT, text)


def header(comment: str = "//") -> str:
    els = elements_of(facts(), ["POST /auth/login", "model LoginResponse"])
    return render_header(CONTRACT, [(e.id, e.hash) for e in els], comment)


# ------------------------------------------------------------------------ the header


@pytest.mark.parametrize("comment,closer", [("//", ""), ("#", ""), ("--", ""), ("/*", " */"), ("<!--", " -->")])
def test_a_rendered_header_reads_back_in_every_comment_style(comment: str, closer: str):
    line = header(comment)
    assert line.startswith(f"{comment} specward-generated: contract={CONTRACT} elements=\"POST /auth/login=sha256:")
    assert line.endswith(closer)
    prov = find_header("gen/auth.ts", line + "\nexport {};\n")
    assert isinstance(prov, Provenance)
    assert prov.contract == CONTRACT and prov.source == "header"
    assert [e.id for e in prov.elements] == ["POST /auth/login", "model LoginResponse"]
    full = elements_of(facts(), ["POST /auth/login"])[0].hash
    assert full.startswith(prov.elements[0].hash) and len(prov.elements[0].hash) == len("sha256:") + 16
    assert prov.span == Span(0, len(line.encode()))


def test_the_header_may_follow_a_shebang_and_is_placed_in_bytes():
    text = "#!/usr/bin/env node\n// Café\n  " + header() + "\nrun();\n"
    prov = find_header("gen/cli.js", text)
    assert isinstance(prov, Provenance)
    start = text.encode().index(b"// specward-generated")
    assert prov.span.start == start and text.encode()[prov.span.start:prov.span.end].decode() == header()


def test_a_header_too_far_down_or_not_in_a_comment_is_none():
    assert find_header("a.ts", "\n" * 5 + header() + "\n") is None
    assert find_header("a.ts", "const s = 'specward-generated: contract=x elements=\"model A=sha256:12345678\"';\n") is None
    assert find_header("a.ts", "export const x = 1;\n") is None


@pytest.mark.parametrize("text,why", [
    ('// specward-generated: elements="model A=sha256:12345678"', "has no contract"),
    ("# specward-generated: contract=specs/a.yaml", "has no elements"),
    ('// specward-generated: contract=a.yaml elements="model A"', "expected ID=sha256:HASH"),
    ('// specward-generated: contract=a.yaml elements="GET users=sha256:12345678"', "is not an element id"),
    ('// specward-generated: contract=a.yaml elements="FETCH /users=sha256:12345678"', "unknown HTTP method"),
    ('// specward-generated: contract=a.yaml elements="model A=md5:12"', "is not a hash"),
    ('// specward-generated: contract=a.yaml elements="model A=sha256:12345678" "stray', "expected key=value"),
])
def test_a_header_that_cannot_be_read_is_a_warning_on_it(text: str, why: str):
    found = find_header("gen/a.ts", text + "\n")
    assert found is not None and not isinstance(found, Provenance)
    assert found.code == "stale-generated" and found.severity == "warning" and why in found.message
    assert found.span == Span(0, len(text))


def test_render_header_refuses_what_it_cannot_write():
    with pytest.raises(ValueError):
        render_header("my specs/a.yaml", [("model A", "sha256:12345678")])
    with pytest.raises(ValueError):
        render_header("a.yaml", [("model A;B", "sha256:12345678")])
    with pytest.raises(ValueError):
        render_header("a.yaml", [("model A", "12345678")])
    with pytest.raises(ValueError):
        render_header("a.yaml", [("model A", "sha256:12345678")], comment=";")
    with pytest.raises(KeyError):
        elements_of(facts(), ["GET /nope"])


# ------------------------------------------------------------------------ stale_generated


def test_fresh_stale_and_what_changed():
    prov = find_header("gen/auth.ts", header() + "\n")
    assert isinstance(prov, Provenance)
    assert stale_generated(prov, facts()) == ()
    assert stale_generated(prov, facts(OAS.replace("description: Logged in", "description: In"))) == ()
    # changed, and nothing says what it was: which element, no more
    found = stale_generated(prov, facts(NO_TOKEN))
    assert [f.message for f in found] == [
        "POST /auth/login changed in specs/openapi.yaml since this file was generated",
        "model LoginResponse changed in specs/openapi.yaml since this file was generated",
    ]
    assert all(f.span == prov.span and f.file == "gen/auth.ts" for f in found)
    # an earlier version's views, by hash: the summary says what changed
    old = {e.hash: element_view(facts(), e.id) for e in elements_of(facts(), ["POST /auth/login", "model LoginResponse"])}
    recall = lambda h: next((v for k, v in old.items() if k.startswith(h)), None)  # noqa: E731
    found = stale_generated(prov, facts(NO_TOKEN), recall=recall)
    assert [f.message for f in found] == [
        "POST /auth/login: response field token removed (specs/openapi.yaml changed since this file was generated)",
        "model LoginResponse: field token removed (specs/openapi.yaml changed since this file was generated)",
    ]
    assert dict(found[0].data)["summary"] == "POST /auth/login: response field token removed"


def test_a_removed_element_a_missing_contract_and_one_that_does_not_parse():
    prov = Provenance("gen/auth.ts", CONTRACT, elements_of(facts(), ["POST /auth/login"]), Span(0, 10))
    gone = facts(OAS.replace("    post:", "    put:"))
    assert [f.message for f in stale_generated(prov, gone)] == [
        "POST /auth/login was removed from specs/openapi.yaml since this file was generated"]
    assert [f.message for f in stale_generated(prov, None)] == [
        "generated from specs/openapi.yaml, which does not exist: this file cannot be checked against its contract"]
    broken = facts("openapi: [unclosed\n")
    assert not broken.readable
    assert [dict(f.data)["change"] for f in stale_generated(prov, broken)] == ["unreadable"]


# ------------------------------------------------------------------------ generated.json


def test_manifest_round_trip_with_snapshots():
    entry = Provenance("web/src/gen/auth.ts", CONTRACT, elements_of(facts(), ["POST /auth/login"], snapshot=True),
                       Span(0, 0), "manifest")
    text = render_manifest([entry])
    assert json.loads(text)["files"]["web/src/gen/auth.ts"]["elements"][0]["snapshot"]["endpoint"] == "POST /auth/login"
    manifest = parse_manifest(text)
    assert manifest.problems == ()
    assert manifest.entries == {"web/src/gen/auth.ts": entry}
    # the snapshot says what the element was, with no other help
    assert [f.message for f in stale_generated(manifest.entries["web/src/gen/auth.ts"], facts(NO_TOKEN))] == [
        "POST /auth/login: response field token removed (specs/openapi.yaml changed since this file was generated)"]


def test_a_broken_manifest_gives_problems_on_the_spot_and_never_raises():
    text = json.dumps({
        "version": 1,
        "files": {
            "web/ok.ts": {"contract": CONTRACT, "elements": [{"id": "model LoginResponse", "hash": "sha256:12345678"}]},
            "../outside.ts": {"contract": CONTRACT, "elements": []},
            "web/bad.ts": {"contract": CONTRACT, "elements": [{"id": "GET users", "hash": "sha256:zz"}], "x": 1},
        },
    }, indent=2)
    manifest = parse_manifest(text)
    assert list(manifest.entries) == ["web/ok.ts"]  # a broken entry costs only that entry
    problems = {p.message: text.encode()[p.span.start:p.span.end].decode() for p in manifest.problems}
    assert problems == {
        f"{MANIFEST}: files.../outside.ts: a file must be a workspace-relative posix path without `.` or `..` parts":
            '"../outside.ts"',
        f"{MANIFEST}: files.web/bad.ts.elements[0].id: `GET users` is not an element id (`METHOD /path` or "
        "`model Name`)": '"GET users"',
        f"{MANIFEST}: files.web/bad.ts.elements[0].hash: `sha256:zz` is not a hash (sha256: and at least 8 hex "
        "digits)": '"sha256:zz"',
        f"{MANIFEST}: files.web/bad.ts.x: unknown key": "1",
    }
    assert all(p.code == "stale-generated" and p.file == MANIFEST for p in manifest.problems)
    for weird in ('{"version": 2, "files": {}}', "[1, 2]", '{"version": 1, "files": ', "{" * 100_000, "\x00", "",
                  '{"version": 1, "files": []}', '{"files": {}}'):
        got = parse_manifest(weird)
        assert got.entries == {}
        assert (got.problems == ()) == (weird == "")
    assert parse_manifest('{"version": 2, "files": {}}').problems[0].message == f"{MANIFEST}: version: must be 1"


def test_an_element_record_is_plain_data():
    e = Element("model A", "sha256:12345678")
    assert hash(e) and e.snapshot is None
