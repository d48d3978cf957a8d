"""Tests for analyzers.contracts: SpecDSL and OpenAPI reading, with positions."""

from __future__ import annotations

import json
import textwrap

import pytest

from specward.analyzers.contracts import normalize_path, parse_contract, path_shape
from specward.analyzers.contracts.common import Sink
from specward.analyzers.contracts.oas import Resolver, walk_paths
from specward.analyzers.contracts.positions import parse_yaml
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import ContractFacts, Endpoint, Finding


def spanned(text: str, span) -> str:
    return text.encode("utf-8")[span.start : span.end].decode("utf-8")


def where(text: str, span) -> tuple[int, int]:
    """1-based line and column (code points) of a span's start, as the CLI prints them."""
    line, col = LineIndex.of_text(text).position(span.start)
    return line + 1, col + 1


def messages(facts: ContractFacts) -> list[str]:
    return [f.message for f in facts.findings]


def only(facts: ContractFacts, needle: str) -> Finding:
    hits = [f for f in facts.findings if needle in f.message]
    assert len(hits) == 1, (needle, messages(facts))
    return hits[0]


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("/users/:id", "/users/{id}"),
        ("/users/:userId/posts/", "/users/{userId}/posts"),
        ("//a///b//", "/a/b"),
        ("/", "/"),
        ("/files/{name}.{ext}", "/files/{name}.{ext}"),
        ("/files/:name.:ext", "/files/{name}.{ext}"),
        ("users", "/users"),
        ("/time/12:30", "/time/12:30"),
    ],
)
def test_normalize_path(raw, expected):
    assert normalize_path(raw) == expected


def test_path_shape():
    assert path_shape("/users/:id/posts/{postId}/") == "/users/{}/posts/{}"
    assert path_shape("/users/{userId}") == path_shape("/users/:id")
    assert path_shape("/") == "/"


# --------------------------------------------------------------------------- SpecDSL


def dsl_doc(**overrides) -> dict:
    doc = {
        "version": "1.0",
        "feature": {"id": "users", "title": "Users", "description": "User management"},
        "models": [
            {
                "name": "User",
                "fields": [
                    {"name": "id", "type": "Int", "required": True, "unique": True},
                    {"name": "email", "type": "String", "required": True},
                ],
                "relations": ["hasMany Post"],
            },
            {"name": "Post", "fields": [{"name": "id", "type": "Int", "required": True}]},
        ],
        "endpoints": [
            {
                "id": "EP-001",
                "method": "GET",
                "path": "/users/:id",
                "description": "Get one user",
                "auth": True,
                "request": {"params": {"id": "Int"}},
                "successStatus": 200,
                "successDescription": "The User object",
                "errors": [{"status": 404, "code": "NOT_FOUND", "description": "No such user"}],
            },
            {
                "id": "EP-002",
                "method": "POST",
                "path": "/users/",
                "description": "Create a user",
                "auth": False,
                "request": {"body": {"email": "String", "author": "Post[]"}},
                "successStatus": 201,
                "successDescription": "Created",
            },
        ],
        "behaviors": [{"id": "BHV-001", "description": "Send a welcome mail", "constraints": ["once"]}],
        "components": [
            {
                "id": "CMP-001",
                "name": "UserCard",
                "description": "Shows a user",
                "props": [{"name": "userId", "type": "number", "required": True}],
                "events": [{"name": "onOpen"}],
                "state": {"loading": "boolean"},
                "apiCalls": ["EP-001"],
            }
        ],
    }
    doc.update(overrides)
    return doc


def dump(doc) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


def test_valid_specdsl():
    text = dump(dsl_doc())
    facts = parse_contract("specs/users.dsl.json", text)
    assert facts.format == "specdsl"
    assert facts.findings == ()
    assert [(e.method, e.path, e.id) for e in facts.endpoints] == [
        ("GET", "/users/{id}", "EP-001"),
        ("POST", "/users", "EP-002"),
    ]
    first, second = facts.endpoints
    assert spanned(text, first.span) == '"/users/:id"'
    assert spanned(text, second.span) == '"/users/"'
    assert first.file == "specs/users.dsl.json"
    assert first.base_path == ""
    assert first.summary == "Get one user"
    details = dict(first.details)
    assert details["auth"] is True
    assert details["successStatus"] == 200
    assert details["request"] == (("params", (("id", "Int"),)),)
    assert details["errors"] == ((("status", 404), ("code", "NOT_FOUND"), ("description", "No such user")),)
    assert details["models"] == ("User",)
    assert dict(second.details)["models"] == ("Post",)
    hash(first)  # details are frozen
    assert [(m.name, m.fields) for m in facts.models] == [
        ("User", (("id", "Int"), ("email", "String"))),
        ("Post", (("id", "Int"),)),
    ]
    assert spanned(text, facts.models[0].span) == '"User"'


def test_specdsl_missing_key_sits_on_parent_key():
    doc = dsl_doc()
    del doc["feature"]["title"]
    text = dump(doc)
    f = only(parse_contract("a.dsl.json", text), "feature.title")
    assert "missing required key `title`" in f.message
    assert spanned(text, f.span) == '"feature"'
    assert f.code == "contract-invalid" and f.severity == "error" and f.file == "a.dsl.json"


def test_specdsl_missing_key_in_array_item_sits_on_its_brace():
    doc = dsl_doc()
    del doc["endpoints"][1]["auth"]
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    f = only(facts, "endpoints[1].auth")
    assert spanned(text, f.span) == "{"
    # the second endpoint object starts on the line after the first one ends
    assert text.encode()[: f.span.start].count(b'"EP-001"') == 1
    assert len(facts.endpoints) == 2  # still usable


def test_specdsl_top_level_missing_key():
    doc = dsl_doc()
    del doc["endpoints"]
    text = dump(doc)
    f = only(parse_contract("a.dsl.json", text), "missing required key `endpoints`")
    assert f.span.start == 0 and spanned(text, f.span) == "{"


def test_specdsl_bad_method():
    doc = dsl_doc()
    doc["endpoints"][0]["method"] = "FETCH"
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    f = only(facts, "endpoints[0].method")
    assert "GET|POST|PUT|PATCH|DELETE" in f.message
    assert spanned(text, f.span) == '"FETCH"'
    assert [e.id for e in facts.endpoints] == ["EP-002"]  # no usable method


def test_specdsl_lower_case_method_is_reported_but_kept():
    doc = dsl_doc()
    doc["endpoints"][0]["method"] = "get"
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    f = only(facts, "endpoints[0].method")
    assert "upper-case" in f.message
    assert spanned(text, f.span) == '"get"'
    assert facts.endpoints[0].method == "GET"


def test_specdsl_path_without_slash():
    doc = dsl_doc()
    doc["endpoints"][1]["path"] = "users"
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    f = only(facts, "endpoints[1].path")
    assert 'must start with "/"' in f.message
    assert spanned(text, f.span) == '"users"'
    assert facts.endpoints[1].path == "/users"


def test_specdsl_status_codes():
    doc = dsl_doc()
    doc["endpoints"][0]["successStatus"] = 700
    doc["endpoints"][0]["errors"][0]["status"] = 99
    doc["endpoints"][1]["successStatus"] = "201"
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    assert spanned(text, only(facts, "endpoints[0].successStatus").span) == "700"
    assert "100-599" in only(facts, "endpoints[0].successStatus").message
    assert spanned(text, only(facts, "endpoints[0].errors[0].status").span) == "99"
    wrong_type = only(facts, "endpoints[1].successStatus")
    assert spanned(text, wrong_type.span) == '"201"'
    assert "must be an integer, got a string" in wrong_type.message


def test_specdsl_type_errors_on_values():
    doc = dsl_doc(version="2.0")
    doc["endpoints"][0]["auth"] = "yes"
    doc["endpoints"][1]["request"]["body"]["email"] = 5
    doc["models"][0]["fields"][1]["required"] = "true"
    doc["feature"]["id"] = "  "
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    assert spanned(text, only(facts, "version:").span) == '"2.0"'
    assert spanned(text, only(facts, "endpoints[0].auth").span) == '"yes"'
    assert spanned(text, only(facts, "endpoints[1].request.body.email").span) == "5"
    assert spanned(text, only(facts, "models[0].fields[1].required").span) == '"true"'
    f = only(facts, "feature.id")
    assert "non-empty" in f.message and spanned(text, f.span) == '"  "'
    assert len(facts.findings) == 5


def test_specdsl_duplicate_routes():
    doc = dsl_doc()
    extra = dict(doc["endpoints"][0], id="EP-003")
    renamed = dict(doc["endpoints"][0], id="EP-004", path="/users/:userId")
    doc["endpoints"] += [extra, renamed]
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    exact = only(facts, "duplicate route `GET /users/:id`")
    assert "also declared at line" in exact.message
    assert spanned(text, exact.span) == '"/users/:id"'
    assert exact.span != facts.endpoints[0].span  # on the second declaration
    renamed_f = only(facts, "/users/:userId")
    assert "`GET /users/:id`" in renamed_f.message and "parameter names" in renamed_f.message
    line = text.encode()[: facts.endpoints[0].span.start].count(b"\n") + 1
    assert f"(line {line})" in renamed_f.message
    assert spanned(text, renamed_f.span) == '"/users/:userId"'
    assert dict(renamed_f.data)["related"] == (("a.dsl.json", facts.endpoints[0].span.start, facts.endpoints[0].span.end),)
    assert len(facts.endpoints) == 4


def test_specdsl_duplicate_endpoint_id_and_field():
    doc = dsl_doc()
    doc["endpoints"][1]["id"] = "EP-001"
    doc["models"][1]["fields"].append({"name": "id", "type": "String", "required": False})
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    dup = only(facts, "duplicate endpoint id `EP-001`")
    assert dup.span.start > text.index('"EP-001"') and spanned(text, dup.span) == '"EP-001"'
    field = only(facts, "duplicate field name `id` in model `Post`")
    assert spanned(text, field.span) == '"id"'
    assert field.span.start > text.index('"Post"')


def test_specdsl_relation_and_api_calls():
    doc = dsl_doc()
    doc["models"][1]["relations"] = ["belongs to Author via authorId", "hasOne User"]
    doc["components"][0]["apiCalls"] = ["EP-001", "EP-999"]
    text = dump(doc)
    facts = parse_contract("a.dsl.json", text)
    rel = only(facts, "`Author`")
    assert spanned(text, rel.span) == '"belongs to Author via authorId"'
    call = only(facts, "EP-999")
    assert spanned(text, call.span) == '"EP-999"'
    assert len(facts.findings) == 2


def test_specdsl_top_level_array():
    text = "[1, 2]"
    facts = parse_contract("a.dsl.json", text)
    assert facts.format == "specdsl"
    assert messages(facts) == ["a SpecDSL file must hold a JSON object, got an array"]
    assert spanned(text, facts.findings[0].span) == "["


# --------------------------------------------------------------------------- broken input


def test_broken_json_trailing_comma():
    text = '{\n  "openapi": "3.1.0",\n  "info": {"title": "t", "version": "1"},\n  "paths": {},\n}\n'
    facts = parse_contract("api.json", text)
    assert len(facts.findings) == 1
    f = facts.findings[0]
    assert f.message == "invalid JSON: trailing comma before `}`"
    assert spanned(text, f.span) == ","
    assert f.span.start == text.index("{},") + 2


def test_broken_json_missing_bracket_keeps_recovered_endpoints():
    doc = dsl_doc()
    text = dump(doc)
    broken = text.replace('"NOT_FOUND",', '"NOT_FOUND"', 1)  # missing comma
    facts = parse_contract("a.dsl.json", broken)
    assert facts.findings, "syntax error expected"
    assert all(f.message.startswith("invalid JSON") for f in facts.findings)
    assert len(facts.findings) == 1
    first = facts.findings[0]
    assert first.message == "invalid JSON: unexpected `\"description\"` (expecting ',' delimiter)"
    assert first.span.start == broken.index('"description": "No such user"')
    assert spanned(broken, first.span) == '"description"'
    assert [e.path for e in facts.endpoints] == ["/users/{id}", "/users"]


def test_broken_json_after_non_ascii_text():
    text = '{"info": {"title": "Café ☕ 日本"}, "openapi": "3.0.0" "paths": {}}'
    facts = parse_contract("api.json", text)
    assert len(facts.findings) == 1
    f = facts.findings[0]
    assert f.message == "invalid JSON: unexpected `\"paths\"` (expecting ',' delimiter)"
    assert f.span.start == text.encode().index(b'"paths"')  # bytes, not code points
    assert spanned(text, f.span) == '"paths"'


def test_broken_json_unclosed():
    text = '{"openapi": "3.0.0", "paths": {"/a": {"get": {}}'
    facts = parse_contract("api.json", text)
    assert messages(facts) == ["invalid JSON: unexpected end of input (expecting ',' delimiter)"]
    assert facts.findings[0].span.start == len(text.encode())
    assert [(e.method, e.path) for e in facts.endpoints] == [("GET", "/a")]  # recovered


def test_json_comments_and_extra_values_are_errors():
    text = '// note\n{"openapi": "3.0.0"}'
    f = parse_contract("api.json", text).findings[0]
    assert f.message == "invalid JSON: unexpected `/` (expecting value)" and f.span.start == 0
    text = '{"openapi": "3.0.0"} {}'
    f = parse_contract("api.json", text).findings[0]
    assert "after the end of the document" in f.message and f.span.start == text.rindex("{")


def test_json_with_bom():
    text = '\ufeff{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {}}}}}'
    facts = parse_contract("api.json", text)
    assert facts.findings == ()
    assert spanned(text, facts.endpoints[0].span) == '"get"'


def test_broken_yaml_after_non_ascii_text():
    text = textwrap.dedent(
        """\
        openapi: 3.0.3
        info:
          title: "Ünïcødé — 日本語 😀"
          version: '1'
        paths:
          /users: [a, b
        """
    )
    facts = parse_contract("api.yaml", text)
    assert facts.endpoints == ()
    assert len(facts.findings) == 1
    f = facts.findings[0]
    assert f.message.startswith("invalid YAML:")
    # the scanner gives up at the end of the flow sequence: the end of the document
    assert f.span.start == len(text.encode())


def test_broken_yaml_position_is_in_bytes():
    text = "title: 'Ünïcødé 日本語'\nopenapi: 3.0.3\n  oops: 1\n"
    facts = parse_contract("api.yaml", text)
    f = facts.findings[0]
    assert "mapping values are not allowed" in f.message
    assert spanned(text, f.span).startswith(":") or spanned(text, f.span).startswith("oops")
    line3 = text.encode().index(b"  oops")
    assert line3 <= f.span.start < line3 + len(b"  oops: 1")


def test_yaml_control_character():
    text = "openapi: 3.0.0\ninfo: 'é\x07'\n"
    facts = parse_contract("api.yaml", text)
    assert len(facts.findings) == 1
    assert facts.findings[0].span.start == text.encode().index(b"\x07")


def test_empty_file():
    for name in ("api.yaml", "api.json", "x.dsl.json"):
        facts = parse_contract(name, "  \n")
        assert messages(facts) == ["the contract file is empty"]
        assert facts.endpoints == ()
    assert parse_contract("x.dsl.json", "").format == "specdsl"
    assert parse_contract("api.yaml", "").format == "unknown"


def test_json_array_at_top_level():
    text = '[{"openapi": "3.0.0"}]'
    facts = parse_contract("api.json", text)
    assert facts.format == "unknown"
    assert messages(facts) == ["not an API contract: the document must be an object, got an array"]
    assert spanned(text, facts.findings[0].span) == "["


def test_unknown_document():
    text = "name: my-app\nversion: 2\n"
    facts = parse_contract("config.yaml", text)
    assert facts.format == "unknown"
    assert len(facts.findings) == 1
    assert "top-level `openapi` key" in facts.findings[0].message
    assert spanned(text, facts.findings[0].span) == "name"


def test_swagger_2_is_read_as_a_contract():
    text = 'info:\n  title: old\n  version: "1"\nswagger: "2.0"\npaths:\n  /pets:\n    get: {responses: {200: {description: ok}}}\n'
    facts = parse_contract("api.yaml", text)
    assert facts.format == "swagger"
    assert facts.findings == ()
    assert [(e.method, e.path) for e in facts.endpoints] == [("GET", "/pets")]


def test_duplicate_yaml_key():
    text = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {responses: {}}\n  /a:\n    post: {responses: {}}\n"
    facts = parse_contract("api.yaml", text)
    f = only(facts, "duplicate key `/a`")
    assert f.span.start == text.rindex("/a")
    assert [(e.method, e.path) for e in facts.endpoints] == [("POST", "/a")]


# --------------------------------------------------------------------------- OpenAPI

OPENAPI_30 = """\
openapi: 3.0.3
info:
  title: Café API
  version: "1.0"
servers:
  - url: https://api.example.com/{version}
    variables:
      version:
        default: v2
paths:
  /users/{id}:
    summary: One user
    parameters:
      - $ref: '#/components/parameters/Id'
      - name: trace
        in: header
        schema: {type: string}
    get:
      operationId: getUser
      summary: Get a user
      parameters:
        - name: expand
          in: query
          schema:
            type: array
            items: {type: string}
        - name: trace
          in: header
          required: true
          schema: {type: boolean}
      responses:
        '200':
          $ref: '#/components/responses/UserResponse'
        '404':
          description: Not found
      security:
        - bearer: []
    delete:
      responses:
        '204': {description: Deleted}
  /users/:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/NewUser'}
      responses:
        2XX: {description: Created}
        default: {description: Error}
  /me:
    $ref: '#/paths/~1users~1%7Bid%7D'
components:
  parameters:
    Id: {name: id, in: path, required: true, schema: {type: integer}}
  responses:
    UserResponse:
      description: The user
      content:
        application/json:
          schema: {$ref: '#/components/schemas/User'}
  schemas:
    User:
      type: object
      properties:
        id: {type: integer}
        name: {type: string}
        friends: {type: array, items: {$ref: '#/components/schemas/User'}}
    NewUser:
      allOf:
        - $ref: '#/components/schemas/User'
        - type: object
          properties:
            password: {type: string}
"""


def test_openapi_30_yaml():
    text = OPENAPI_30
    facts = parse_contract("api/openapi.yaml", text)
    assert facts.format == "openapi"
    assert facts.findings == (), messages(facts)
    got = [(e.method, e.path, e.base_path, e.id) for e in facts.endpoints]
    assert got == [
        ("GET", "/users/{id}", "/v2", "getUser"),
        ("DELETE", "/users/{id}", "/v2", None),
        ("POST", "/users", "/v2", None),
        ("GET", "/me", "/v2", "getUser"),
        ("DELETE", "/me", "/v2", None),
    ]
    get = facts.endpoints[0]
    assert spanned(text, get.span) == "get"
    assert get.span.start == text.encode().index(b"    get:") + 4  # bytes: "Café" comes first
    assert get.summary == "Get a user"
    assert facts.endpoints[1].summary == "One user"  # from the path item
    d = dict(get.details)
    assert d["parameters"] == (
        (("name", "id"), ("in", "path"), ("required", True), ("type", "integer")),
        (("name", "trace"), ("in", "header"), ("required", True), ("type", "boolean")),  # operation wins
        (("name", "expand"), ("in", "query"), ("required", False), ("type", "array<string>")),
    )
    assert d["responses"] == (("200", "The user"), ("404", "Not found"))
    assert d["security"] == ((("bearer", ()),),)
    post = dict(facts.endpoints[2].details)
    assert post["requestBody"] == (("required", True), ("content", (("application/json", "NewUser"),)))
    assert post["responses"] == (("2XX", "Created"), ("default", "Error"))
    # a path item reached through $ref: the endpoint sits on the referring path key
    assert spanned(text, facts.endpoints[3].span) == "/me"
    models = {m.name: m.fields for m in facts.models}
    assert models["User"] == (("id", "integer"), ("name", "string"), ("friends", "array<User>"))
    assert models["NewUser"] == (("id", "integer"), ("name", "string"), ("friends", "array<User>"), ("password", "string"))
    assert spanned(text, facts.models[0].span) == "User"


OPENAPI_31 = {
    "openapi": "3.1.0",
    "info": {"title": "Shop — ショップ", "version": "1"},
    "servers": [{"url": "/api/"}],
    "paths": {
        "/orders/{orderId}": {
            "parameters": [{"$ref": "#/components/parameters/OrderId"}],
            "get": {"operationId": "getOrder", "responses": {"200": {"$ref": "#/components/responses/Order"}}},
            "patch": {
                "requestBody": {"$ref": "#/components/requestBodies/OrderPatch"},
            },
        }
    },
    "components": {
        "parameters": {"OrderId": {"name": "orderId", "in": "path", "required": True, "schema": {"type": "string"}}},
        "responses": {"Order": {"description": "An order"}},
        "requestBodies": {
            "OrderPatch": {"content": {"application/json": {"schema": {"type": ["object", "null"]}}}}
        },
        "schemas": {"Order": {"type": "object", "properties": {"total": {"type": ["number", "null"]}}}},
    },
}


def test_openapi_31_json():
    text = dump(OPENAPI_31)
    facts = parse_contract("shop.json", text)
    assert facts.format == "openapi"
    assert facts.findings == (), messages(facts)  # 3.1: responses are optional
    assert [(e.method, e.path, e.base_path) for e in facts.endpoints] == [
        ("GET", "/orders/{orderId}", "/api"),
        ("PATCH", "/orders/{orderId}", "/api"),
    ]
    get, patch = facts.endpoints
    assert spanned(text, get.span) == '"get"'
    assert spanned(text, patch.span) == '"patch"'
    assert dict(get.details)["responses"] == (("200", "An order"),)
    assert dict(get.details)["parameters"][0][:2] == (("name", "orderId"), ("in", "path"))
    assert dict(patch.details)["requestBody"] == (
        ("required", False),
        ("content", (("application/json", "object | null"),)),
    )
    assert facts.models[0].fields == (("total", "number | null"),)


@pytest.mark.parametrize(
    "url, base",
    [
        ("https://api.example.com/v1", "/v1"),
        ("https://api.example.com", ""),
        ("https://api.example.com/", ""),
        ("/api", "/api"),
        ("http://localhost:{port}/{base}", "/{base}"),
        ("//cdn.example.com/x/y/", "/x/y"),
    ],
)
def test_openapi_base_path(url, base):
    text = dump({"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": url}],
                 "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}})
    facts = parse_contract("a.json", text)
    assert facts.findings == ()
    assert facts.endpoints[0].base_path == base


def test_openapi_unresolvable_ref():
    text = textwrap.dedent(
        """\
        openapi: 3.0.0
        info: {title: t, version: '1'}
        paths:
          /a:
            get:
              parameters:
                - $ref: '#/components/parameters/Nope'
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: {$ref: 'other.yaml#/Thing'}
        components:
          parameters: {}
        """
    )
    facts = parse_contract("api.yaml", text)
    f = only(facts, "unresolvable $ref")
    assert "`#/components/parameters/Nope`" in f.message and "no `Nope`" in f.message
    assert spanned(text, f.span) == "'#/components/parameters/Nope'"
    # the external ref is not followed, and says so (a warning)
    assert len(facts.findings) == 2
    assert [f.severity for f in facts.findings if "external $ref `other.yaml#/Thing`" in f.message] == ["warning"]
    assert [e.path for e in facts.endpoints] == ["/a"]


def test_openapi_ref_cycle_does_not_hang():
    text = textwrap.dedent(
        """\
        openapi: 3.1.0
        info: {title: t, version: '1'}
        paths:
          /loop:
            $ref: '#/components/pathItems/A'
          /tree:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Node'}
        components:
          pathItems:
            A: {$ref: '#/components/pathItems/B'}
            B: {$ref: '#/components/pathItems/A'}
          schemas:
            Node:
              type: object
              properties:
                children: {type: array, items: {$ref: '#/components/schemas/Node'}}
            Self: {$ref: '#/components/schemas/Self'}
        """
    )
    facts = parse_contract("api.yaml", text)  # returns (circular references are cut, not followed)
    circular = [f for f in facts.findings if f.message.startswith("circular $ref")]
    assert sorted(spanned(text, f.span) for f in circular) == [
        "'#/components/pathItems/A'",
        "'#/components/pathItems/A'",
        "'#/components/pathItems/B'",
        "'#/components/schemas/Self'",
    ]
    assert len(facts.findings) == 4  # the recursive Node schema is legal
    assert [e.path for e in facts.endpoints] == ["/tree"]
    assert dict((m.name, m.fields) for m in facts.models)["Node"] == (("children", "array<Node>"),)


def test_openapi_yaml_alias_cycle():
    text = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\nx-loop: &a [*a]\ncomponents: {schemas: {A: &s {properties: {me: *s}}}}\n"
    facts = parse_contract("api.yaml", text)
    assert facts.format == "openapi"
    assert facts.findings == ()


def test_openapi_validation_rules():
    text = textwrap.dedent(
        """\
        openapi: 3.0.1
        info:
          version: '1'
        paths:
          users:
            get:
              responses:
                '200': {description: ok}
          /users/{id}:
            GET:
              responses: {'200': {description: ok}}
            fetch: {}
            post:
              responses:
                '600': {description: bad}
                '2XY': {description: bad}
                x-note: fine
            put:
              description: no responses
          /users/{userId}:
            get:
              responses: {'200': {description: ok}}
        """
    )
    facts = parse_contract("api.yaml", text)
    assert spanned(text, only(facts, "missing required key `title`").span) == "info"
    assert spanned(text, only(facts, "path `users` must start with `/`").span) == "users"
    assert spanned(text, only(facts, "must be lower-case: `get`").span) == "GET"
    assert spanned(text, only(facts, "unknown key `fetch`").span) == "fetch"
    assert spanned(text, only(facts, "`600`").span) == "'600'"
    assert spanned(text, only(facts, "`2XY`").span) == "'2XY'"
    assert spanned(text, only(facts, "has no `responses`").span) == "put"
    dup = only(facts, "duplicate route `GET /users/{userId}`")
    assert "`GET /users/{id}`" in dup.message and "parameter names" in dup.message
    assert dup.span.start == text.rindex("get:")
    assert len(facts.findings) == 8, messages(facts)
    assert ("GET", "/users") in [(e.method, e.path) for e in facts.endpoints]
    assert [e.method for e in facts.endpoints if e.path == "/users/{id}"] == ["GET", "POST", "PUT"]


def test_openapi_version_checks():
    facts = parse_contract("a.yaml", "openapi: 3.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
    assert facts.format == "openapi"
    assert messages(facts) == ['openapi: the version must be a string (write `"3.0.0"`), got a number']
    text = "openapi: 4.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
    facts = parse_contract("a.yaml", text)
    assert "unsupported OpenAPI version `4.0.0`" in messages(facts)[0]
    assert spanned(text, facts.findings[0].span) == "4.0.0"
    text = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\n"
    facts = parse_contract("a.yaml", text)
    assert messages(facts) == ["missing required key `paths` (required in OpenAPI 3.0)"]
    assert spanned(text, facts.findings[0].span) == "openapi"
    text = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: [1]\n"
    facts = parse_contract("a.yaml", text)
    assert messages(facts) == ["paths: must be an object, got an array"]
    assert spanned(text, facts.findings[0].span) == "[1]"


# --------------------------------------------------------------------------- partial validity
# One invalid operation or endpoint is reported and costs only itself: every valid one of
# the same file is still returned (Swagger 2.0: tests/analyzers/test_swagger.py).

INVENTORY_OPENAPI = """\
openapi: 3.0.3
info:
  title: Inventory
  version: 2.1.0
servers:
  - url: https://inventory.internal/api
paths:
  /items:
    get:
      operationId: listItems
      responses:
        '200': {description: All items}
    post: create an item
  /items/{sku}:
    get:
      operationId: getItem
      parameters:
        - $ref: '#/components/parameters/Sku'
      responses:
        '200': {description: One item}
    fetch:
      responses: {}
    delete:
      responses: [204]
  /warehouses: [north, south]
  /warehouses/{id}:
    $ref: '#/components/pathItems/Warehouse'
  /stock:
    get:
      responses:
        '200': {description: Stock levels}
components:
  parameters:
    Sku: {name: sku, in: path, required: true, schema: {type: string}}
"""


def test_openapi_invalid_operations_keep_the_valid_ones():
    text = INVENTORY_OPENAPI
    facts = parse_contract("inventory/openapi.yaml", text)
    got = [(f.message, where(text, f.span), spanned(text, f.span)) for f in facts.findings]
    assert got == [
        ("operation `post /items` must be an object, got a string", (13, 11), "create an item"),
        ("unknown key `fetch` under path `/items/{sku}`: expected an HTTP method "
         "(get, put, post, delete, options, head, patch, trace) or one of summary, description, servers, parameters, $ref",
         (21, 5), "fetch"),
        ("responses of `delete /items/{sku}` must be an object, got an array", (24, 18), "[204]"),
        ("path `/warehouses`: the path item must be an object, got an array", (25, 16), "[north, south]"),
        ("unresolvable $ref `#/components/pathItems/Warehouse`: no `pathItems` in `#/components`", (27, 11),
         "'#/components/pathItems/Warehouse'"),
    ]
    assert all(f.code == "contract-invalid" and f.file == "inventory/openapi.yaml" for f in facts.findings)
    assert [(e.method, e.path, e.base_path, e.id) for e in facts.endpoints] == [
        ("GET", "/items", "/api", "listItems"),
        ("POST", "/items", "/api", None),  # not an object, but declared: calls to it are not phantoms
        ("GET", "/items/{sku}", "/api", "getItem"),
        ("DELETE", "/items/{sku}", "/api", None),
        ("GET", "/stock", "/api", None),
    ]
    assert dict(facts.endpoints[2].details)["parameters"][0][:2] == (("name", "sku"), ("in", "path"))


def test_openapi_json_invalid_path_item_keeps_the_others():
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Inventory", "version": "2"},
        "paths": {
            "/items": {"get": {"responses": {"200": {"description": "ok"}}}},
            "items/{sku}": {"put": {"responses": {"200": {"description": "ok"}}}},
            "/reports": None,
            "/stock": {"get": {}},
        },
    }
    text = dump(doc)
    facts = parse_contract("openapi.json", text)
    got = [(f.message, where(text, f.span), spanned(text, f.span)) for f in facts.findings]
    assert got == [
        ("path `items/{sku}` must start with `/`", (17, 5), '"items/{sku}"'),
        ("path `/reports`: the path item must be an object, got null", (26, 17), "null"),
    ]
    assert [(e.method, e.path) for e in facts.endpoints] == [("GET", "/items"), ("PUT", "/items/{sku}"), ("GET", "/stock")]


def test_specdsl_invalid_endpoints_keep_the_valid_ones():
    doc = dsl_doc()
    valid_get, valid_post = doc["endpoints"]
    bad_method = dict(valid_get, id="EP-003", method="FETCH", path="/users/:id/avatar")
    no_path = {k: v for k, v in dict(valid_get, id="EP-004").items() if k != "path"}
    doc["endpoints"] = [valid_get, bad_method, 42, no_path, valid_post]
    text = dump(doc)
    facts = parse_contract("specs/users.dsl.json", text)
    got = [(f.message, where(text, f.span), spanned(text, f.span)) for f in facts.findings]
    assert got == [
        ("endpoints[1].method: must be one of GET|POST|PUT|PATCH|DELETE, got `FETCH`", (63, 17), '"FETCH"'),
        ("endpoints[2]: must be an object, got a number", (82, 5), "42"),
        ("endpoints[3].path: missing required key `path`", (83, 5), "{"),
    ]
    assert [(e.method, e.path, e.id) for e in facts.endpoints] == [
        ("GET", "/users/{id}", "EP-001"),
        ("POST", "/users", "EP-002"),
    ]


def test_a_failure_inside_one_operation_costs_only_that_operation():
    text = "paths:\n  /a:\n    get: {}\n  /b:\n    get: {}\n    post: {}\n"
    root = parse_yaml(text).root
    sink = Sink("api.yaml")

    def build(raw, method, span, op, item, out):
        if (method, raw) == ("GET", "/b"):
            raise KeyError("boom")
        return Endpoint(method, raw, "api.yaml", span)

    endpoints = walk_paths(root.get("paths"), Resolver(root), sink, text.encode(), build, methods=("get", "post"),
                           item_keys=("parameters",))
    assert [(e.method, e.path) for e in endpoints] == [("GET", "/a"), ("POST", "/b")]
    (f,) = sink.findings
    assert f.message == "internal error while reading operation `get /b`: KeyError: 'boom'"
    assert where(text, f.span) == (5, 5) and spanned(text, f.span) == "get"


def test_a_syntax_error_is_the_only_way_to_lose_every_endpoint():
    broken = INVENTORY_OPENAPI.replace("    post: create an item\n", "    post: [create\n")
    facts = parse_contract("openapi.yaml", broken)
    assert facts.endpoints == ()
    assert len(facts.findings) == 1 and facts.findings[0].message.startswith("invalid YAML:")


# --------------------------------------------------------------------------- robustness


def test_never_raises_on_truncated_input():
    texts = [OPENAPI_30, dump(OPENAPI_31), dump(dsl_doc())]
    names = ["a.yaml", "a.json", "a.dsl.json"]
    for text, name in zip(texts, names):
        size = len(text.encode())
        for cut in range(0, len(text), 7):
            facts = parse_contract(name, text[:cut])
            assert isinstance(facts, ContractFacts)
            for f in facts.findings:
                assert 0 <= f.span.start <= f.span.end <= size


def test_weird_values_do_not_raise():
    for text in ["null", "42", '"x"', "openapi: [3]\n", "{}", "openapi: 3.0.0\npaths:\n  /a: 5\n", "- a\n- b\n"]:
        facts = parse_contract("a.yaml", text)
        assert facts.findings, text


def test_a_large_openapi_document_is_read_whole():
    """Its speed is measured by bench/ (no timing thresholds in tests)."""
    lines = ["openapi: 3.1.0", "info: {title: t, version: '1'}", "paths:"]
    i = 0
    while len(lines) < 5000:
        lines += [
            f"  /r{i}/{{id}}:",
            "    get:",
            f"      operationId: op{i}",
            "      parameters:",
            "        - {name: id, in: path, required: true, schema: {type: string}}",
            "      responses:",
            "        '200':",
            "          description: ok",
            "          content:",
            "            application/json:",
            "              schema: {$ref: '#/components/schemas/S'}",
        ]
        i += 1
    lines += ["components:", "  schemas:", "    S: {type: object, properties: {a: {type: string}}}"]
    text = "\n".join(lines)
    facts = parse_contract("big.yaml", text)
    assert facts.findings == ()
    assert len(facts.endpoints) == i
