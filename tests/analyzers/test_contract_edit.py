"""Adding an endpoint to a contract keeps the file valid and in its own style."""

from __future__ import annotations

from pathlib import Path

import pytest

from specward.analyzers.contracts import parse_contract
from specward.analyzers.contracts.edit import add_endpoint

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack" / "contracts"


def _apply(text: str, edit) -> str:
    span, new = edit
    data = text.encode()
    return (data[:span.start] + new.encode() + data[span.end:]).decode()


@pytest.mark.parametrize("name,base,expected_path", [
    ("openapi.yaml", "/api", "/user/profile/{id}/avatar"),
    ("articles.dsl.json", "", "/api/user/profile/{id}/avatar"),
])
def test_added_endpoint_is_declared_and_the_file_stays_valid(name, base, expected_path):
    text = (EXAMPLE / name).read_text()
    before = parse_contract(f"contracts/{name}", text)
    out = _apply(text, add_endpoint(f"contracts/{name}", text, "GET", "/api/user/profile/{id}/avatar", base))
    after = parse_contract(f"contracts/{name}", out)
    assert after.findings == before.findings
    assert [(e.method, e.path) for e in after.endpoints] == \
        [(e.method, e.path) for e in before.endpoints] + [("GET", expected_path)]
    assert len(after.models) == len(before.models)


def test_dsl_ids_continue_and_empty_lists_are_filled():
    text = '{\n  "version": "1.0",\n  "feature": {"id": "f", "title": "t", "description": "d"},\n  "models": [],\n  "endpoints": []\n}\n'
    out = _apply(text, add_endpoint("a.dsl.json", text, "POST", "/api/items", ""))
    facts = parse_contract("a.dsl.json", out)
    assert [(e.method, e.path, e.id) for e in facts.endpoints] == [("POST", "/api/items", "EP-001")]
    again = _apply(out, add_endpoint("a.dsl.json", out, "GET", "/api/items/{id}", ""))
    assert [e.id for e in parse_contract("a.dsl.json", again).endpoints] == ["EP-001", "EP-002"]
