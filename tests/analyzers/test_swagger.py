"""Swagger 2.0 contracts: what is read from them, and problems on the exact key or value."""

from __future__ import annotations

import json
import textwrap

from fixtures import analyze

from specward.analyzers.contracts import parse_contract
from specward.analyzers.contracts.edit import add_endpoint
from specward.analyzers.ide import endpoint_card
from specward.analyzers.lines import LineIndex
from specward.analyzers.model import ContractFacts


def spanned(text: str, span) -> str:
    return text.encode("utf-8")[span.start : span.end].decode("utf-8")


def where(text: str, span) -> tuple[int, int]:
    """1-based line and column (code points) of a span's start, as the CLI prints them."""
    line, col = LineIndex.of_text(text).position(span.start)
    return line + 1, col + 1


def found(facts: ContractFacts, text: str) -> list[tuple[str, tuple[int, int], str]]:
    return [(f.message, where(text, f.span), spanned(text, f.span)) for f in facts.findings]


# A go-swagger style contract of an inventory backend.
INVENTORY = """\
swagger: "2.0"
info:
  title: Inventory Service
  description: Stock and warehouse API of the inventory backend.
  version: 1.8.2
host: inventory.internal:8080
basePath: /api/v1
schemes:
  - http
  - https
consumes:
  - application/json
produces:
  - application/json
securityDefinitions:
  bearer:
    type: apiKey
    name: Authorization
    in: header
security:
  - bearer: []
paths:
  /items:
    get:
      tags: [items]
      summary: List items
      operationId: listItems
      parameters:
        - $ref: "#/parameters/pageSize"
        - name: warehouse
          in: query
          type: array
          items:
            type: string
          collectionFormat: csv
      responses:
        200:
          description: A page of items
          schema:
            type: array
            items:
              $ref: "#/definitions/Item"
        default:
          $ref: "#/responses/ErrorResponse"
    post:
      tags: [items]
      operationId: createItem
      parameters:
        - name: body
          in: body
          required: true
          schema:
            $ref: "#/definitions/NewItem"
      responses:
        201:
          description: Created
  /items/{sku}:
    parameters:
      - name: sku
        in: path
        required: true
        type: string
      - name: X-Request-ID
        in: header
        type: string
    get:
      operationId: getItem
      description: One item, with its stock in every warehouse.
      parameters:
        - name: X-Request-ID
          in: header
          required: true
          type: string
      responses:
        200:
          description: One item
          schema:
            $ref: "#/definitions/Item"
        404:
          $ref: "#/responses/ErrorResponse"
    delete:
      operationId: deleteItem
      deprecated: true
      security: []
      responses:
        204:
          description: Deleted
  /items/{sku}/image:
    parameters:
      - name: sku
        in: path
        required: true
        type: string
    put:
      operationId: uploadItemImage
      consumes:
        - multipart/form-data
      parameters:
        - name: image
          in: formData
          type: file
          required: true
        - name: caption
          in: formData
          type: string
      responses:
        204:
          description: Stored
parameters:
  pageSize:
    name: page_size
    in: query
    type: integer
    format: int32
    default: 50
responses:
  ErrorResponse:
    description: An error
    schema:
      $ref: "#/definitions/Error"
definitions:
  Item:
    type: object
    required: [sku, name]
    properties:
      sku:
        type: string
      name:
        type: string
      quantity:
        type: integer
        format: int64
      tags:
        type: array
        items:
          type: string
  NewItem:
    allOf:
      - $ref: "#/definitions/Item"
      - type: object
        properties:
          warehouse:
            type: string
  Error:
    type: object
    properties:
      code:
        type: integer
      message:
        type: string
"""


def test_go_style_swagger_yaml():
    text = INVENTORY
    facts = parse_contract("inventory/swagger.yaml", text)
    assert facts.format == "swagger"
    assert facts.findings == ()
    assert [(e.method, e.path, e.base_path, e.id) for e in facts.endpoints] == [
        ("GET", "/items", "/api/v1", "listItems"),
        ("POST", "/items", "/api/v1", "createItem"),
        ("GET", "/items/{sku}", "/api/v1", "getItem"),
        ("DELETE", "/items/{sku}", "/api/v1", "deleteItem"),
        ("PUT", "/items/{sku}/image", "/api/v1", "uploadItemImage"),
    ]
    # endpoints sit on their method key
    assert [(where(text, e.span), spanned(text, e.span)) for e in facts.endpoints] == [
        ((24, 5), "get"), ((45, 5), "post"), ((66, 5), "get"), ((81, 5), "delete"), ((94, 5), "put"),
    ]
    listing, create, one, delete, upload = (dict(e.details) for e in facts.endpoints)
    assert facts.endpoints[0].summary == "List items"
    assert listing["parameters"] == (
        (("name", "page_size"), ("in", "query"), ("required", False), ("type", "integer")),  # via #/parameters
        (("name", "warehouse"), ("in", "query"), ("required", False), ("type", "array<string>")),
    )
    assert listing["responses"] == (("200", "A page of items"), ("default", "An error"))  # via #/responses
    assert listing["security"] == ((("bearer", ()),),)
    assert listing["tags"] == ("items",)
    assert listing["consumes"] == listing["produces"] == ("application/json",)
    assert listing["host"] == "inventory.internal:8080"
    assert listing["schemes"] == ("http", "https")
    # the body parameter is the request body, in OpenAPI 3's shape, one entry per media type
    assert "parameters" not in create
    assert create["requestBody"] == (("required", True), ("content", (("application/json", "NewItem"),)))
    assert create["responses"] == (("201", "Created"),)
    # path-level parameters first; the operation's own override them by (name, in)
    assert one["parameters"] == (
        (("name", "sku"), ("in", "path"), ("required", True), ("type", "string")),
        (("name", "X-Request-ID"), ("in", "header"), ("required", True), ("type", "string")),
    )
    assert one["description"] == "One item, with its stock in every warehouse."
    assert one["responses"] == (("200", "One item"), ("404", "An error"))
    assert delete["deprecated"] is True
    assert delete["security"] == ()  # `security: []` lifts the document's requirement
    assert upload["parameters"] == (
        (("name", "sku"), ("in", "path"), ("required", True), ("type", "string")),
        (("name", "image"), ("in", "formData"), ("required", True), ("type", "file")),
        (("name", "caption"), ("in", "formData"), ("required", False), ("type", "string")),
    )
    assert upload["consumes"] == ("multipart/form-data",)
    assert "requestBody" not in upload
    hash(facts)  # details are frozen

    models = {m.name: m.fields for m in facts.models}
    assert models == {
        "Item": (("sku", "string"), ("name", "string"), ("quantity", "integer"), ("tags", "array<string>")),
        "NewItem": (("sku", "string"), ("name", "string"), ("quantity", "integer"), ("tags", "array<string>"),
                    ("warehouse", "string")),
        "Error": (("code", "integer"), ("message", "string")),
    }
    assert [(where(text, m.span), spanned(text, m.span)) for m in facts.models] == [
        ((122, 3), "Item"), ((137, 3), "NewItem"), ((144, 3), "Error"),
    ]


def test_hover_card_of_a_swagger_endpoint():
    facts = parse_contract("swagger.yaml", INVENTORY)
    models = {m.name: m for m in facts.models}
    listing = endpoint_card(facts.endpoints[0], models, "swagger.yaml:24")
    assert listing.splitlines()[0] == "**GET /api/v1/items** — `listItems`"
    assert "- query: `page_size: integer`" in listing
    assert "- query: `warehouse: array<string>`" in listing
    assert "- 200: A page of items" in listing and "- default: An error" in listing
    create = endpoint_card(facts.endpoints[1], models, "swagger.yaml:45")
    assert "- body: required: True, content: application/json: NewItem" in create
    upload = endpoint_card(facts.endpoints[4], models, "swagger.yaml:94")
    assert "- formData: `image: file` (required)" in upload
    assert "- path: `sku: string` (required)" in upload


# A springfox (Spring Boot) style contract of the pet clinic, as JSON.
PETCLINIC = {
    "swagger": "2.0",
    "info": {"description": "Pet Clinic REST API", "version": "2.4.1", "title": "Spring PetClinic",
             "license": {"name": "Apache 2.0", "url": "http://www.apache.org/licenses/LICENSE-2.0"}},
    "host": "localhost:9966",
    "basePath": "/",
    "tags": [{"name": "owner-rest-controller", "description": "Owner Rest Controller"}],
    "paths": {
        "/petclinic/api/owners": {
            "get": {
                "tags": ["owner-rest-controller"],
                "summary": "getOwners",
                "operationId": "getOwnersUsingGET",
                "produces": ["application/json;charset=UTF-8"],
                "responses": {
                    "200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": "#/definitions/Owner"}}},
                    "401": {"description": "Unauthorized"},
                    "404": {"description": "Not Found"},
                },
                "deprecated": False,
            },
            "post": {
                "tags": ["owner-rest-controller"],
                "operationId": "addOwnerUsingPOST",
                "consumes": ["application/json;charset=UTF-8"],
                "parameters": [{"in": "body", "name": "owner", "description": "owner", "required": True,
                                "schema": {"$ref": "#/definitions/Owner"}}],
                "responses": {"201": {"description": "Created"}, "400": {"description": "Bad Request"}},
            },
        },
        "/petclinic/api/owners/{ownerId}": {
            "get": {
                "operationId": "getOwnerUsingGET",
                "parameters": [{"name": "ownerId", "in": "path", "description": "ownerId", "required": True,
                                "type": "integer", "format": "int32"}],
                "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/Owner"}}},
            },
        },
    },
    "definitions": {
        "Owner": {"type": "object", "title": "Owner", "properties": {
            "id": {"type": "integer", "format": "int32"},
            "lastName": {"type": "string"},
            "pets": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
        }},
        "Pet": {"type": "object", "properties": {"name": {"type": "string"}, "birthDate": {"type": "string", "format": "date"}}},
    },
}


def test_springfox_style_swagger_json():
    text = json.dumps(PETCLINIC, indent=2)
    facts = parse_contract("backend/swagger.json", text)
    assert facts.format == "swagger"
    assert facts.findings == ()
    assert [(e.method, e.path, e.base_path, e.id) for e in facts.endpoints] == [
        ("GET", "/petclinic/api/owners", "", "getOwnersUsingGET"),  # basePath "/" is no base
        ("POST", "/petclinic/api/owners", "", "addOwnerUsingPOST"),
        ("GET", "/petclinic/api/owners/{ownerId}", "", "getOwnerUsingGET"),
    ]
    assert [spanned(text, e.span) for e in facts.endpoints] == ['"get"', '"post"', '"get"']
    assert where(text, facts.endpoints[2].span) == (80, 7)
    get, post, one = (dict(e.details) for e in facts.endpoints)
    assert get["produces"] == ("application/json;charset=UTF-8",)
    assert "consumes" not in get and "deprecated" not in get
    assert post["requestBody"] == (("required", True), ("content", (("application/json;charset=UTF-8", "Owner"),)))
    assert one["parameters"] == ((("name", "ownerId"), ("in", "path"), ("required", True), ("type", "integer")),)
    assert {m.name: m.fields for m in facts.models}["Owner"] == (
        ("id", "integer"), ("lastName", "string"), ("pets", "array<Pet>"),
    )


def test_a_body_without_consumes_is_json():
    text = textwrap.dedent(
        """\
        swagger: "2.0"
        info: {title: Orders, version: "1"}
        paths:
          /orders:
            post:
              parameters:
                - {name: order, in: body, schema: {type: object}}
              responses: {201: {description: Created}}
        """
    )
    facts = parse_contract("swagger.yaml", text)
    assert facts.findings == ()
    assert dict(facts.endpoints[0].details)["requestBody"] == (
        ("required", False), ("content", (("application/json", "object"),)),
    )


# --------------------------------------------------------------------------- problems

BROKEN = """\
swagger: "3.0"
info:
  version: "1"
basePath: api
paths:
  pets:
    get:
      responses:
        200: {description: ok}
  /pets/{petId}:
    summary: One pet
    GET:
      responses:
        200: {description: ok}
    trace:
      responses:
        200: {description: ok}
    patch:
      parameters:
        - {name: petId, in: cookie, type: string}
        - {name: tag, type: string}
        - $ref: '#/parameters/Nope'
      responses:
        2XX: {description: ok}
        default: {$ref: '#/responses/Missing'}
    put:
      description: no responses
      security:
        - oauth: [write:pets]
      parameters:
        - in: body
          name: pet
          schema: {$ref: '#/definitions/Pet'}
definitions: {}
"""


def test_swagger_problems_sit_on_the_exact_key_or_value():
    text = BROKEN
    facts = parse_contract("api/swagger.yaml", text)
    assert found(facts, text) == [
        ("swagger: unsupported Swagger version `3.0`: specward reads Swagger 2.0 and OpenAPI 3.0.x/3.1.x",
         (1, 10), '"3.0"'),
        ("info.title: missing required key `title`", (2, 1), "info"),
        ("basePath `api` must start with `/`", (4, 11), "api"),
        ("path `pets` must start with `/`", (6, 3), "pets"),
        ("unknown key `summary` under path `/pets/{petId}`: expected an HTTP method "
         "(get, put, post, delete, options, head, patch) or one of parameters, $ref", (11, 5), "summary"),
        ("operation key `GET` under `/pets/{petId}` must be lower-case: `get`", (12, 5), "GET"),
        ("operation key `trace` under `/pets/{petId}`: `trace` is not an operation in Swagger 2.0 "
         "(OpenAPI 3.0 added it)", (15, 5), "trace"),
        ("parameter `petId`: `in` must be one of query, header, path, formData, body, got `cookie`", (20, 29), "cookie"),
        ("parameter `tag`: missing required key `in` (query, header, path, formData, body)", (21, 11), "{"),
        ("unresolvable $ref `#/parameters/Nope`: no `parameters` in `#`", (22, 17), "'#/parameters/Nope'"),
        ("response status `2XX` in `patch /pets/{petId}` is not valid: use 100-599 or `default`", (24, 9), "2XX"),
        ("unresolvable $ref `#/responses/Missing`: no `responses` in `#`", (25, 25), "'#/responses/Missing'"),
        ("operation `put /pets/{petId}` has no `responses` (required in Swagger 2.0)", (26, 5), "put"),
        ("security scheme `oauth` is not defined in `securityDefinitions`", (29, 11), "oauth"),
        ("unresolvable $ref `#/definitions/Pet`: no `Pet` in `#/definitions`", (33, 26), "'#/definitions/Pet'"),
    ]
    assert {f.code for f in facts.findings} == {"contract-invalid"}
    assert {f.severity for f in facts.findings} == {"error"}
    # every operation is still declared (a typo must not turn calls into phantoms)
    assert [(e.method, e.path, e.base_path) for e in facts.endpoints] == [
        ("GET", "/pets", "/api"),
        ("GET", "/pets/{petId}", "/api"),
        ("TRACE", "/pets/{petId}", "/api"),
        ("PATCH", "/pets/{petId}", "/api"),
        ("PUT", "/pets/{petId}", "/api"),
    ]


def test_swagger_version_and_required_keys():
    facts = parse_contract("a.yaml", "swagger: 2.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
    assert facts.format == "swagger"
    assert [f.message for f in facts.findings] == ['swagger: the version must be a string (write `"2.0"`), got a number']
    text = "swagger: [2]\ninfo: {title: t, version: '1'}\npaths: {}\n"
    facts = parse_contract("a.yaml", text)
    assert [(f.message, spanned(text, f.span)) for f in facts.findings] == [
        ('swagger: must be the version string `"2.0"`, got an array', "[2]"),
    ]
    text = 'swagger: "2.0"\ninfo: {title: t, version: 1}\n'
    facts = parse_contract("a.yaml", text)
    assert found(facts, text) == [
        ("missing required key `paths` (required in Swagger 2.0)", (1, 1), "swagger"),
        ("info.version: must be a string, got a number", (2, 27), "1"),
    ]
    text = 'swagger: "2.0"\ninfo: {title: t, version: "1"}\nbasePath: 1\npaths: null\n'
    facts = parse_contract("a.yaml", text)
    assert found(facts, text) == [
        ("basePath: must be a string, got a number", (3, 11), "1"),
        ("paths: must be an object, got null", (4, 8), "null"),
    ]


def test_security_names_are_checked_against_security_definitions():
    text = textwrap.dedent(
        """\
        swagger: "2.0"
        info: {title: t, version: "1"}
        securityDefinitions:
          petstore_auth: {type: oauth2, flow: implicit, authorizationUrl: /oauth, scopes: {write: w}}
        security:
          - petstore_auth: [write]
          - api_key: []
        paths:
          /pets:
            get:
              security: [{petstore_auth: []}, {basic: []}]
              responses: {200: {description: ok}}
        """
    )
    facts = parse_contract("swagger.yaml", text)
    assert found(facts, text) == [
        ("security scheme `api_key` is not defined in `securityDefinitions`", (7, 5), "api_key"),
        ("security scheme `basic` is not defined in `securityDefinitions`", (11, 40), "basic"),
    ]
    assert dict(facts.endpoints[0].details)["security"] == ((("petstore_auth", ()),), (("basic", ()),))


# --------------------------------------------------------------------------- partial validity


CLINIC = """\
swagger: "2.0"
info:
  title: Clinic
  version: "3"
basePath: /api
paths:
  /owners:
    get:
      responses:
        200: {description: Owners}
    post: [addOwner]
  /owners/{ownerId}:
    get:
      parameters:
        - $ref: '#/parameters/ownerId'
      responses:
        200: {description: One owner}
    put:
      parameters:
        - $ref: '#/parameters/owner_id'
      responses: ok
  /vets: all the vets
  /vets/{vetId}:
    $ref: '#/paths/~1vets~1{id}'
  /visits:
    get:
      responses:
        200: {description: Visits}
parameters:
  ownerId: {name: ownerId, in: path, required: true, type: integer}
"""


def test_swagger_invalid_entries_keep_the_valid_ones():
    text = CLINIC
    facts = parse_contract("clinic/swagger.yaml", text)
    assert found(facts, text) == [
        ("operation `post /owners` must be an object, got an array", (11, 11), "[addOwner]"),
        ("unresolvable $ref `#/parameters/owner_id`: no `owner_id` in `#/parameters`", (20, 17),
         "'#/parameters/owner_id'"),
        ("responses of `put /owners/{ownerId}` must be an object, got a string", (21, 18), "ok"),
        ("path `/vets`: the path item must be an object, got a string", (22, 10), "all the vets"),
        ("unresolvable $ref `#/paths/~1vets~1{id}`: no `/vets/{id}` in `#/paths`", (24, 11), "'#/paths/~1vets~1{id}'"),
    ]
    assert [(e.method, e.path, e.base_path) for e in facts.endpoints] == [
        ("GET", "/owners", "/api"),
        ("POST", "/owners", "/api"),
        ("GET", "/owners/{ownerId}", "/api"),
        ("PUT", "/owners/{ownerId}", "/api"),
        ("GET", "/visits", "/api"),
    ]
    assert dict(facts.endpoints[2].details)["parameters"][0][:2] == (("name", "ownerId"), ("in", "path"))


def test_swagger_yaml_syntax_error_yields_no_endpoints():
    broken = CLINIC.replace("    post: [addOwner]\n", "    post: [addOwner\n")
    facts = parse_contract("swagger.yaml", broken)
    assert facts.endpoints == ()
    assert len(facts.findings) == 1 and facts.findings[0].message.startswith("invalid YAML:")


def test_swagger_json_syntax_error_keeps_what_was_recovered():
    text = json.dumps(PETCLINIC, indent=2)
    broken = text.replace('"OK",', '"OK"', 1)  # a missing comma
    facts = parse_contract("swagger.json", broken)
    assert [f.message for f in facts.findings] == ["invalid JSON: unexpected `\"schema\"` (expecting ',' delimiter)"]
    assert where(broken, facts.findings[0].span) == (34, 13)
    assert len(facts.endpoints) == 3


def test_truncated_swagger_never_raises():
    for name, text in (("swagger.yaml", INVENTORY), ("swagger.json", json.dumps(PETCLINIC, indent=2))):
        size = len(text.encode())
        for cut in range(0, len(text), 11):
            facts = parse_contract(name, text[:cut])
            assert isinstance(facts, ContractFacts)
            for f in facts.findings:
                assert 0 <= f.span.start <= f.span.end <= size


# --------------------------------------------------------------------------- through the pipeline


def test_calls_are_matched_against_the_base_path():
    got = analyze("//- backend/swagger.yaml\n" + INVENTORY + """
//- web/inventory.ts
import axios from 'axios';
const api = axios.create({ baseURL: '/api/v1' });
export const items = () => api.get('/items');
export const item = (sku: string) => fetch(`/api/v1/items/${sku}`, { method: 'DELETE' });
export const image = (sku: string) => api.put(`/items/${sku}/image`, new FormData());
export const stock = () => api.get('/stock');
export const rename = (sku: string) => api.patch(`/items/${sku}`, {});
""")
    assert got == [
        "web/inventory.ts:3 GET /api/v1/items matched",
        "web/inventory.ts:4 DELETE /api/v1/items/{sku} matched",
        "web/inventory.ts:5 PUT /api/v1/items/{sku}/image matched",
        "web/inventory.ts:6 GET /api/v1/stock phantom",
        "web/inventory.ts:7 PATCH /api/v1/items/{sku} method-mismatch",
    ]


def test_quick_fix_adds_a_swagger_style_operation():
    span, new = add_endpoint("swagger.yaml", CLINIC, "GET", "/api/visits/{visitId}", "/api")
    data = CLINIC.encode()
    out = (data[: span.start] + new.encode() + data[span.end :]).decode()
    assert "type: string" in new and "schema" not in new  # Swagger 2.0 parameters carry their type
    before = parse_contract("swagger.yaml", CLINIC)
    after = parse_contract("swagger.yaml", out)
    assert after.findings == before.findings
    assert [(e.method, e.path) for e in after.endpoints][-1] == ("GET", "/visits/{visitId}")
    assert dict(after.endpoints[-1].details)["parameters"] == (
        (("name", "visitId"), ("in", "path"), ("required", True), ("type", "string")),
    )
