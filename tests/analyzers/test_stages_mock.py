"""The pure part of `specward mock` (analyzers/stages/mock.py): examples, routes, answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specward.analyzers.stages.export_openapi import parse_type
from specward.analyzers.stages.mock import example, from_openapi, load_mock

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "examples" / "fullstack" / "contracts" / "articles.dsl.json"
USERS = ROOT / "examples" / "fullstack" / "contracts" / "openapi.yaml"


def hdr(headers, name):
    found = [v for k, v in headers if k.lower() == name.lower()]
    return found[0] if found else None


# ------------------------------------------------------------------ examples


@pytest.mark.parametrize("schema, expected", [
    ({"type": "string"}, "string"),
    ({"type": "string", "format": "email"}, "user@example.com"),
    ({"type": "string", "format": "uuid"}, "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
    ({"type": "string", "format": "date-time"}, "2024-01-01T00:00:00Z"),
    ({"type": "string", "format": "uri"}, "https://example.com/"),
    ({"type": "string", "format": "date"}, "2024-01-01"),
    ({"type": "string", "maxLength": 3}, "str"),
    ({"type": "integer"}, 0),
    ({"type": "integer", "minimum": 5}, 5),
    ({"type": "integer", "exclusiveMinimum": 5}, 6),
    ({"type": "number", "maximum": -2.5}, -2.5),
    ({"type": "boolean"}, True),
    ({"type": "null"}, None),
    ({"type": "string", "enum": ["draft", "published"]}, "draft"),
    ({"enum": [None, "x"]}, "x"),
    ({"type": "string", "example": "hello"}, "hello"),
    ({"type": "integer", "default": 20}, 20),
    ({"type": "string", "examples": ["first", "second"]}, "first"),
    ({"const": "fixed"}, "fixed"),
    ({"type": ["string", "null"]}, "string"),  # 3.1 nullable: the non-null value
    ({"type": "string", "nullable": True}, "string"),  # 3.0 nullable
    ({"anyOf": [{"type": "null"}, {"type": "integer"}]}, 0),
    ({"type": "array", "items": {"type": "integer"}}, [0]),
    ({"type": "object", "additionalProperties": {"type": "boolean"}}, {"key": True}),
    ({"allOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {"type": "string"}}}]},
     {"a": 0, "b": "string"}),
    ({"properties": {"secret": {"type": "string", "writeOnly": True}, "id": {"type": "integer"}}}, {"id": 0}),
    ({}, None),
])
def test_example_by_type_and_format(schema, expected):
    assert example(schema) == expected


def test_example_of_an_object_with_an_example_uses_it_whole():
    assert example({"type": "object", "properties": {"a": {"type": "string"}}, "example": {"a": "given"}}) == {"a": "given"}


def test_refs_are_followed_and_cycles_cut():
    doc = {"components": {"schemas": {
        "User": {"type": "object", "required": ["id", "boss"], "properties": {
            "id": {"type": "string", "format": "uuid"},
            "email": {"type": "string", "format": "email"},
            "boss": {"$ref": "#/components/schemas/User"},  # required: null where the cycle closes
            "friends": {"type": "array", "items": {"$ref": "#/components/schemas/User"}},
            "mentor": {"$ref": "#/components/schemas/User"},  # optional: left out
        }},
        "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}},
    }}}
    got = example({"$ref": "#/components/schemas/User"}, doc)
    assert got == {"id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "email": "user@example.com", "boss": None,
                   "friends": []}
    assert example({"$ref": "#/components/schemas/Node"}, doc) == {}
    assert example({"$ref": "#/components/schemas/Missing"}, doc) is None
    assert example({"$ref": "other.yaml#/User"}, doc) is None  # never another file


def test_example_of_a_specdsl_type():
    names = {"Article": "Article"}
    assert example(parse_type("string[]")) == ["string"]
    assert example(parse_type("'draft' | 'published'")) == "draft"
    assert example(parse_type("Int?")) == 0
    spec_doc = {"components": {"schemas": {"Article": {"type": "object", "properties": {"slug": {"type": "string"}}}}}}
    assert example(parse_type("Article[]", names), spec_doc) == [{"slug": "string"}]


def test_examples_are_deterministic():
    text = ARTICLES.read_text("utf-8")
    a = load_mock(ARTICLES.name, text).mock
    b = load_mock(ARTICLES.name, text).mock
    assert [r.success.body for r in a.routes] == [r.success.body for r in b.routes]


# ------------------------------------------------------------------ SpecDSL and OpenAPI contracts


def test_specdsl_contract_routes_and_answers():
    loaded = load_mock(ARTICLES.name, ARTICLES.read_text("utf-8"))
    assert loaded.mock is not None, loaded.error
    mock = loaded.mock
    assert len(mock.routes) == 7
    status, headers, body = mock.respond("GET", "/api/articles")
    assert status == 200 and hdr(headers, "Content-Type") == "application/json"
    assert hdr(headers, "Access-Control-Allow-Origin") == "*"
    assert json.loads(body) == [{"slug": "string", "title": "string", "body": "string", "tags": ["string"]}]
    status, _, body = mock.respond("GET", "/api/articles/hello-world")
    assert status == 200 and json.loads(body)["slug"] == "hello-world"  # the path parameter's value
    status, _, body = mock.respond("POST", "/api/articles", "", {"Content-Type": "application/json"})
    assert status == 201 and json.loads(body)["title"] == "string"


def test_openapi_contract_with_base_path():
    mock = load_mock(USERS.name, USERS.read_text("utf-8")).mock
    assert mock is not None
    assert [f"{r.method} {r.template}" for r in mock.routes][:3] == ["GET /api/users", "POST /api/users", "GET /api/users/{id}"]
    status, _, body = mock.respond("GET", "/api/users")
    assert status == 200 and json.loads(body) == [{"id": "string", "name": "string", "email": "string"}]
    status, headers, body = mock.respond("DELETE", "/api/users/1")
    assert status == 204 and body == b"" and hdr(headers, "Content-Type") is None
    status, _, body = mock.respond("GET", "/api/users/1")  # a response without content
    assert status == 200 and body == b""
    assert mock.respond("GET", "/users")[0] == 404  # served under the servers' base path


def doc_with(paths: dict, **extra) -> dict:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}


def test_literal_segments_win_and_trailing_slash():
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "string", "example": "me"}}}}}
    by_id = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "string", "example": "id"}}}}}
    mock = from_openapi(doc_with({"/users/{id}": {"get": {"responses": by_id}}, "/users/me": {"get": {"responses": ok}}}))
    assert json.loads(mock.respond("GET", "/users/me")[2]) == "me"
    assert json.loads(mock.respond("GET", "/users/42/")[2]) == "id"
    assert mock.respond("GET", "/users/42/extra")[0] == 404


def test_unknown_path_is_404_json_and_wrong_method_405_with_allow():
    mock = load_mock(ARTICLES.name, ARTICLES.read_text("utf-8")).mock
    status, headers, body = mock.respond("GET", "/api/nothing")
    assert status == 404 and hdr(headers, "Content-Type") == "application/json"
    assert json.loads(body)["error"] == "not found"
    status, headers, body = mock.respond("DELETE", "/api/articles/x")
    assert status == 405
    assert hdr(headers, "Allow") == "GET, HEAD, PUT, OPTIONS"
    assert json.loads(body)["allowed"] == ["GET", "HEAD", "PUT"]
    status, _, body = mock.respond("HEAD", "/api/tags")  # HEAD answers as GET (the server drops the body)
    assert status == 200


def test_declared_error_on_request_by_header_or_query():
    mock = load_mock(ARTICLES.name, ARTICLES.read_text("utf-8")).mock
    status, _, body = mock.respond("GET", "/api/articles/x", "", {"Prefer": "code=404"})
    assert status == 404 and body == b""  # declared without content
    status, _, _ = mock.respond("POST", "/api/articles", "__code=422")
    assert status == 422
    status, _, _ = mock.respond("GET", "/api/articles/x", {"__code": "200"})
    assert status == 200
    status, _, body = mock.respond("GET", "/api/articles/x", "__code=500")
    assert status == 400
    assert json.loads(body)["declared"] == ["200", "404"]
    assert mock.respond("GET", "/api/articles/x", "__code=teapot")[0] == 400


def test_error_example_ranges_default_and_headers():
    responses = {
        "200": {"description": "ok", "headers": {"X-Total-Count": {"schema": {"type": "integer", "example": 3}}},
                "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}},
        "404": {"$ref": "#/components/responses/NotFound"},
        "5XX": {"description": "server", "content": {"application/problem+json": {"schema": {"type": "object", "properties": {"title": {"type": "string", "default": "boom"}}}}}},
        "default": {"description": "other", "content": {"text/plain": {"example": "nope"}}},
    }
    components = {"responses": {"NotFound": {"description": "missing", "content": {"application/json": {
        "examples": {"first": {"value": {"code": "NOT_FOUND"}}}}}}}}
    mock = from_openapi(doc_with({"/things": {"get": {"responses": responses}}}, components=components))
    status, headers, body = mock.respond("GET", "/things")
    assert status == 200 and hdr(headers, "X-Total-Count") == "3" and json.loads(body) == ["string"]
    status, _, body = mock.respond("GET", "/things", "__code=404")
    assert status == 404 and json.loads(body) == {"code": "NOT_FOUND"}
    status, headers, body = mock.respond("GET", "/things", "__code=503")
    assert status == 503 and hdr(headers, "Content-Type") == "application/problem+json"
    assert json.loads(body) == {"title": "boom"}
    status, headers, body = mock.respond("GET", "/things", "", {"prefer": "code=418"})
    assert status == 418 and body == b"nope" and hdr(headers, "Content-Type") == "text/plain; charset=utf-8"


def test_operation_without_success_response_answers_204():
    mock = from_openapi(doc_with({"/x": {"post": {"responses": {"400": {"description": "bad"}}}}}))
    assert mock.respond("POST", "/x")[0] == 204


def test_preflight():
    mock = load_mock(ARTICLES.name, ARTICLES.read_text("utf-8")).mock
    status, headers, body = mock.respond("OPTIONS", "/api/articles", "", {
        "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert status == 204 and body == b""
    assert hdr(headers, "Access-Control-Allow-Origin") == "*"
    assert "POST" in hdr(headers, "Access-Control-Allow-Methods")
    assert hdr(headers, "Access-Control-Allow-Headers") == "authorization, content-type"


def test_broken_and_unsupported_contracts():
    bad = load_mock("api.dsl.json", '{"version": "1.0"}')
    assert bad.mock is None and bad.findings and "not valid" in bad.error
    assert load_mock("api.yaml", "openapi: [\n").mock is None
    swagger = load_mock("api.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n")
    assert swagger.mock is None and "Swagger 2.0" in swagger.error
    assert load_mock("notes.yaml", "hello: world\n").mock is None


def test_openapi_json_contract():
    text = json.dumps(doc_with({"/ping": {"get": {"responses": {"200": {"description": "pong", "content": {
        "application/json": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}}}}))
    mock = load_mock("api.json", text).mock
    assert mock is not None and json.loads(mock.respond("GET", "/ping")[2]) == {"ok": True}
