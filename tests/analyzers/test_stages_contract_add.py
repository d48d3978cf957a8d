"""The endpoint a phantom call needs, added to the contract's text (analyzers/stages/contract_add.py):
the result parses with ``parse_contract``, declares the endpoint, and keeps the rest byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from specward.analyzers.contracts import parse_contract
from specward.analyzers.stages.contract_add import (
    ContractAddError,
    add_endpoint,
    call_path,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack" / "contracts"


def declared(rel: str, text: str) -> list[tuple[str, str]]:
    facts = parse_contract(rel, text)
    assert [f.message for f in facts.findings if f.severity == "error"] == []
    return [(e.method, e.path) for e in facts.endpoints]


def test_call_path_forms():
    assert call_path("/api/notes/:id?x=1") == "/api/notes/{id}"
    assert call_path("/api/notes/{}/tags/{}", "/api") == "/notes/{param}/tags/{param2}"
    assert call_path("api/items") == "/api/items"


def test_specdsl_gets_the_next_id_in_its_own_indentation():
    rel, text = "contracts/articles.dsl.json", (EXAMPLE / "articles.dsl.json").read_text()
    before = declared(rel, text)
    added = add_endpoint(rel, text, "POST", "/api/articles/{slug}/likes", "web/src/api/articles.ts")
    assert added.endpoint == "POST /api/articles/{slug}/likes"
    assert declared(rel, added.text) == before + [("POST", "/api/articles/{slug}/likes")]
    doc = json.loads(added.text)
    new = doc["endpoints"][-1]
    ids = [e["id"] for e in json.loads(text)["endpoints"]]
    assert new["id"] == "EP-%03d" % (max(int(i[3:]) for i in ids) + 1)
    assert new["path"] == "/api/articles/:slug/likes" and new["request"] == {"params": {"slug": "string"}}
    assert new["successStatus"] == 201 and new["errors"] == []
    assert "web/src/api/articles.ts" in new["description"]
    assert json.loads(text)["endpoints"] == doc["endpoints"][:-1]
    assert '\n    {\n      "id": "' + new["id"] in added.text  # the file's two-space step, at its depth
    get = add_endpoint(rel, text, "GET", "/api/articles/{slug}/likes", "a.ts")
    assert json.loads(get.text)["endpoints"][-1]["successStatus"] == 200


def test_specdsl_empty_list_tabs_and_one_line():
    text = '{\n\t"version": "1.0",\n\t"feature": {"id": "f", "title": "t", "description": "d"},\n\t"models": [],\n\t"endpoints": []\n}\n'
    added = add_endpoint("a.dsl.json", text, "GET", "/api/items/:id", "src/a.ts")
    assert declared("a.dsl.json", added.text) == [("GET", "/api/items/{id}")]
    assert '\t"endpoints": [\n\t\t{\n\t\t\t"id": "EP-001"' in added.text
    one = json.dumps({"version": "1.0", "feature": {"id": "f", "title": "t", "description": "d"}, "models": [],
                      "endpoints": [
        {"id": "EP-7", "method": "GET", "path": "/a", "description": "d", "auth": False, "successStatus": 200,
         "successDescription": "ok"}]})
    again = add_endpoint("a.dsl.json", one, "DELETE", "/a/{id}", "src/a.ts")
    assert "\n" not in again.text and json.loads(again.text)["endpoints"][-1]["id"] == "EP-008"
    assert declared("a.dsl.json", again.text) == [("GET", "/a"), ("DELETE", "/a/{id}")]


def test_openapi_yaml_base_path_taken_off_and_merged_into_the_path_item():
    rel, text = "contracts/openapi.yaml", (EXAMPLE / "openapi.yaml").read_text()
    before = declared(rel, text)
    assert parse_contract(rel, text).endpoints[0].base_path == "/api"
    new = add_endpoint(rel, text, "GET", "/api/users/{id}/avatar", "web/src/users.ts")
    assert new.endpoint == "GET /users/{id}/avatar"
    assert declared(rel, new.text) == before + [("GET", "/users/{id}/avatar")]
    ep = parse_contract(rel, new.text).endpoints[-1]
    assert "web/src/users.ts" in (ep.summary or "")
    assert "\n  /users/{id}/avatar:\n    get:\n" in new.text and "        - name: id\n          in: path\n" in new.text
    # a path the contract has with another method (another parameter name): merged into it
    existing = {p for m, p in before if p.startswith("/users/{")}
    [item] = existing
    methods = {m for m, p in before if p == item}
    method = next(m for m in ("PATCH", "PUT", "DELETE", "GET") if m not in methods)
    merged = add_endpoint(rel, text, method, "/api/users/{}", "web/src/users.ts")
    assert merged.path == item
    after = declared(rel, merged.text)
    assert sorted(after) == sorted(before + [(method, item)])
    assert merged.text.count(f"\n  {item}:") == 1
    with pytest.raises(ContractAddError, match="already declares"):
        add_endpoint(rel, text, before[0][0], "/api" + before[0][1], "a.ts")


OPENAPI_JSON = {
    "openapi": "3.1.0", "info": {"title": "Notes", "version": "1"}, "servers": [{"url": "https://x.example/v1"}],
    "paths": {"/notes": {"get": {"summary": "List", "responses": {"200": {"description": "The notes"}}}}},
}


@pytest.mark.parametrize("indent", [2, 4])
def test_openapi_json_in_its_own_indentation(indent):
    text = json.dumps(OPENAPI_JSON, indent=indent) + "\n"
    new = add_endpoint("api/openapi.json", text, "GET", "/v1/notes/{id}", "src/notes.ts")
    assert declared("api/openapi.json", new.text) == [("GET", "/notes"), ("GET", "/notes/{id}")]
    doc = json.loads(new.text)
    op = doc["paths"]["/notes/{id}"]["get"]
    assert op["parameters"] == [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
    assert op["responses"] == {"200": {"description": "OK"}}
    pad = " " * indent
    assert f'\n{pad * 2}"/notes/{{id}}": {{\n{pad * 3}"get": {{' in new.text
    post = add_endpoint("api/openapi.json", text, "POST", "/v1/notes", "src/notes.ts")
    assert set(json.loads(post.text)["paths"]["/notes"]) == {"get", "post"}
    assert json.loads(post.text)["paths"]["/notes"]["post"]["responses"] == {"201": {"description": "Created"}}


def test_swagger_json_types_its_parameters_and_empty_yaml_paths_become_a_block():
    swagger = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "basePath": "/api",
               "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}}
    new = add_endpoint("s.json", json.dumps(swagger, indent=2), "DELETE", "/api/a/{id}", "x.ts")
    assert json.loads(new.text)["paths"]["/a/{id}"]["delete"]["parameters"][0]["type"] == "string"
    assert declared("s.json", new.text)[-1] == ("DELETE", "/a/{id}")
    empty = "openapi: 3.0.3\ninfo:\n  title: t\n  version: '1'\npaths: {}\n"
    got = add_endpoint("o.yaml", empty, "GET", "/things", "x.ts")
    assert declared("o.yaml", got.text) == [("GET", "/things")]


def test_what_cannot_take_an_endpoint():
    with pytest.raises(ContractAddError):
        add_endpoint("x.json", '{"name": "not a contract"}', "GET", "/a", "x.ts")
    with pytest.raises(ContractAddError):
        add_endpoint("a.dsl.json", '{"version": "1.0", "feature": {"id": "f", "title": "t", "description": "d"}',
                     "GET", "/a", "x.ts")
    with pytest.raises(ContractAddError):
        add_endpoint("a.dsl.json", "{}", "FETCH", "/a", "x.ts")
