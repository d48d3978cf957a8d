"""Request and response schemas of contract operations (``Endpoint.schemas``): OpenAPI 3.0
and 3.1, Swagger 2.0 and SpecDSL, each construct of ``analyzers/contracts/schemas.py`` with
the exact shape it gives."""

from __future__ import annotations

import json
import textwrap

from specward.analyzers import serial
from specward.analyzers.contracts import parse_contract
from specward.analyzers.contracts.schemas import dsl_required, type_shape
from specward.analyzers.model import ParamSpec, Prop, Schemas, Shape

S = Shape("string", text="string")
I = Shape("integer", text="integer")
B = Shape("boolean", text="boolean")


def schemas_of(name: str, text: str) -> dict[str, Schemas]:
    """``METHOD /path`` -> schemas of every endpoint of a contract."""
    facts = parse_contract(name, textwrap.dedent(text))
    assert [f.message for f in facts.findings if f.severity == "error"] == []
    return {f"{ep.method} {ep.path}": ep.schemas for ep in facts.endpoints}


def oas(paths: dict, schemas: dict | None = None, version: str = "3.0.3") -> dict[str, Schemas]:
    doc = {"openapi": version, "info": {"title": "t", "version": "1"}, "paths": paths}
    if schemas is not None:
        doc["components"] = {"schemas": schemas}
    return schemas_of("openapi.json", json.dumps(doc))


def body_op(schema: dict, media: str = "application/json") -> dict:
    return {"post": {"requestBody": {"content": {media: {"schema": schema}}},
                     "responses": {"204": {"description": "done"}}}}


def body(schema: dict, components: dict | None = None, version: str = "3.0.3") -> Shape | None:
    return oas({"/x": body_op(schema)}, components, version)["POST /x"].body


# --------------------------------------------------------------------------- OpenAPI 3


LIBRARY = """\
openapi: 3.0.3
info: {title: Library, version: "2"}
paths:
  /shelves/{shelf}/books:
    parameters:
      - {name: shelf, in: path, required: true, schema: {type: string}}
      - {name: lang, in: query, schema: {type: string}}
    post:
      parameters:
        - {name: lang, in: query, required: true, schema: {type: string}}
        - {$ref: '#/components/parameters/Dry'}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/BookDraft'}
      responses:
        '201':
          description: stored
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Book'}
        default:
          description: failure
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Failure'}
components:
  parameters:
    Dry: {name: dryRun, in: header, schema: {type: boolean}}
  schemas:
    BookDraft:
      type: object
      required: [heading]
      additionalProperties: false
      properties:
        heading: {type: string}
        pages: {type: integer}
        isbn: {type: string, readOnly: true}
    Book:
      type: object
      properties:
        isbn: {type: string}
        heading: {type: string}
        secret: {type: string, writeOnly: true}
        tags: {type: array, items: {type: string}}
    Failure:
      type: object
      properties:
        reason: {type: string}
"""


def test_openapi_body_parameters_and_success_response():
    got = schemas_of("openapi.yaml", LIBRARY)["POST /shelves/{shelf}/books"]
    assert got == Schemas(
        body=Shape("object", props=(
            Prop("heading", S, required=True),
            Prop("pages", I),
            Prop("isbn", S, read_only=True),
        ), closed=True, text="BookDraft"),
        body_media="application/json",
        body_required=True,
        params=(
            ParamSpec("shelf", "path", True, "string"),
            ParamSpec("lang", "query", True, "string"),  # the operation's overrides the path item's
            ParamSpec("dryRun", "header", False, "boolean"),
        ),
        params_complete=True,
        response=Shape("object", props=(
            Prop("isbn", S),
            Prop("heading", S),
            Prop("secret", S, write_only=True),
            Prop("tags", Shape("array", items=S, text="array<string>")),
        ), text="Book"),
        response_status="201",
        source="openapi",
    )


def test_a_parameter_ref_not_followed_makes_the_list_incomplete():
    text = LIBRARY.replace("'#/components/parameters/Dry'", "'#/components/parameters/Missing'")
    facts = parse_contract("openapi.yaml", text)
    got = facts.endpoints[0].schemas
    assert got.params_complete is False
    assert [p.name for p in got.params] == ["shelf", "lang"]


def test_operation_without_body_or_parameters():
    got = oas({"/ping": {"get": {"responses": {"204": {"description": "pong"}}}}})["GET /ping"]
    assert got == Schemas(source="openapi")


def test_json_media_type_comes_first_then_forms():
    form = {"type": "object", "properties": {"f": {"type": "string"}}}
    js = {"type": "object", "properties": {"j": {"type": "string"}}}

    def pick(content: dict) -> tuple[str, str]:
        op = {"post": {"requestBody": {"content": content}, "responses": {"204": {"description": "x"}}}}
        got = oas({"/x": op})["POST /x"]
        return got.body_media, got.body.props[0].name if got.body.props else ""

    assert pick({"multipart/form-data": {"schema": form}, "application/x-www-form-urlencoded": {"schema": form},
                 "application/vnd.shop+json; charset=utf-8": {"schema": js}}) == \
        ("application/vnd.shop+json; charset=utf-8", "j")
    assert pick({"text/json": {"schema": js}, "*/*": {"schema": form}}) == ("*/*", "f")
    assert pick({"application/*+json": {"schema": js}, "text/json": {"schema": form}}) == ("application/*+json", "j")
    assert pick({"multipart/form-data": {"schema": js}, "application/x-www-form-urlencoded": {"schema": form}}) == \
        ("application/x-www-form-urlencoded", "f")
    assert pick({"multipart/form-data": {"schema": js}}) == ("multipart/form-data", "j")
    # nothing JSON or form: a body is declared, nothing is known of it
    op = {"post": {"requestBody": {"content": {"application/octet-stream": {"schema": {"type": "string"}}}},
                   "responses": {"204": {"description": "x"}}}}
    got = oas({"/x": op})["POST /x"]
    assert (got.body, got.body_media) == (Shape(), "application/octet-stream")


def test_request_body_through_a_ref_and_a_dangling_one():
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"post": {"requestBody": {"$ref": "#/components/requestBodies/Pet"},
                                     "responses": {"204": {"description": "x"}}}}},
           "components": {"requestBodies": {"Pet": {"required": True, "content": {
               "application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}}}
    got = parse_contract("openapi.json", json.dumps(doc)).endpoints[0].schemas
    assert (got.body, got.body_required) == (Shape("object", props=(Prop("name", S),), text="object"), True)
    doc["paths"]["/a"]["post"]["requestBody"]["$ref"] = "#/components/requestBodies/Gone"
    got = parse_contract("openapi.json", json.dumps(doc)).endpoints[0].schemas
    assert (got.body, got.body_required) == (Shape(), False)


def test_closed_open_and_free_form_objects():
    assert body({"type": "object", "properties": {"a": {"type": "string"}}}) == \
        Shape("object", props=(Prop("a", S),), text="object")
    assert body({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}).closed
    assert body({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}).open
    assert body({"type": "object", "properties": {"a": {"type": "string"}},
                 "additionalProperties": {"type": "integer"}}).open
    assert body({"type": "object", "properties": {"a": {"type": "string"}},
                 "patternProperties": {"^x-": {}}}).open
    assert body({"type": "object"}) == Shape("object", open=True, text="object")
    assert body({"type": "object", "additionalProperties": False}) == Shape("object", closed=True, text="object")
    assert body({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False},
                version="3.1.0").closed
    # required but not declared: still required, shape unknown; an object with no declared
    # property stays free-form
    assert body({"type": "object", "required": ["k"]}) == \
        Shape("object", props=(Prop("k", Shape(), required=True),), open=True, text="object")


def test_all_of_merges_properties_and_required():
    components = {
        "Stamp": {"type": "object", "required": ["id"],
                  "properties": {"id": {"type": "integer", "readOnly": True}, "at": {"type": "string"}}},
        "Loose": {"type": "object", "properties": {"extra": {"type": "string"}}, "additionalProperties": True},
    }
    merged = body({"allOf": [{"$ref": "#/components/schemas/Stamp"},
                             {"type": "object", "required": ["at", "title"],
                              "properties": {"title": {"type": "string"}}}]}, components)
    assert merged == Shape("object", props=(
        Prop("id", I, required=True, read_only=True),
        Prop("at", S, required=True),
        Prop("title", S, required=True),
    ), text="Stamp & object")
    # open if any part is open; closed only when the composite says so
    assert body({"allOf": [{"$ref": "#/components/schemas/Stamp"}, {"$ref": "#/components/schemas/Loose"}]},
                components).open
    closed = body({"allOf": [{"$ref": "#/components/schemas/Stamp"}], "additionalProperties": False,
                   "properties": {"note": {"type": "string"}}}, components)
    assert (closed.closed, [p.name for p in closed.props]) == (True, ["id", "at", "note"])
    part_closed = body({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}},
                                   "additionalProperties": False},
                                  {"type": "object", "properties": {"b": {"type": "string"}}}]})
    assert (part_closed.closed, part_closed.open) == (False, False)


def test_all_of_with_an_unknown_part_is_open():
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/x": body_op({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                                             {"$ref": "other.yaml#/Thing"}]})}}
    got = parse_contract("openapi.json", json.dumps(doc)).endpoints[0].schemas.body
    assert (got.type, got.open, [p.name for p in got.props]) == ("object", True, ["a"])


def test_one_of_and_any_of_are_unions_without_null():
    components = {
        "Cat": {"type": "object", "properties": {"purrs": {"type": "boolean"}}},
        "Dog": {"type": "object", "properties": {"barks": {"type": "boolean"}}},
    }
    cat = Shape("object", props=(Prop("purrs", B),), text="Cat")
    dog = Shape("object", props=(Prop("barks", B),), text="Dog")
    assert body({"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}]},
                components) == Shape("union", branches=(cat, dog), text="Cat | Dog")
    assert body({"anyOf": [{"$ref": "#/components/schemas/Cat"}, {"type": "null"}]}, components) == cat
    assert body({"oneOf": [{"type": "null"}]}) == Shape("null", text="null")
    assert body({"type": "string", "oneOf": [{"format": "email"}, {"format": "uri"}]}) == Shape("string", text="any | any")
    # properties around a oneOf go into each object branch
    got = body({"type": "object", "properties": {"kind": {"type": "string"}},
                "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}]}, components)
    assert [[p.name for p in b.props] for b in got.branches] == [["kind", "purrs"], ["kind", "barks"]]


def test_nullable_and_type_lists():
    assert body({"type": "object", "nullable": True, "properties": {"a": {"type": "string"}}}) == \
        Shape("object", props=(Prop("a", S),), text="object")
    got = body({"type": ["object", "null"], "properties": {"a": {"type": ["string", "null"]}}}, version="3.1.0")
    assert got == Shape("object", props=(Prop("a", Shape("string", text="string | null")),),
                        text="object | null")
    two = body({"type": ["string", "integer"]}, version="3.1.0")
    assert two == Shape("union", branches=(S, I), text="string | integer")
    # the 3.0 idiom for a nullable reference
    components = {"Tag": {"type": "object", "properties": {"label": {"type": "string"}}}}
    assert body({"allOf": [{"$ref": "#/components/schemas/Tag"}], "nullable": True}, components) == \
        Shape("object", props=(Prop("label", S),), text="Tag")
    assert body({"enum": ["a", "b"]}) == Shape("string", text="enum")


def test_recursive_types_are_cut_where_they_come_back():
    components = {
        "Folder": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Folder"}},
        }},
    }
    got = body({"$ref": "#/components/schemas/Folder"}, components)
    assert got == Shape("object", props=(
        Prop("name", S),
        Prop("children", Shape("array", items=Shape("any", text="Folder"), text="array<Folder>")),
    ), text="Folder")


def test_mutually_recursive_types():
    components = {
        "Author": {"type": "object", "properties": {"posts": {"type": "array",
                                                              "items": {"$ref": "#/components/schemas/Post"}}}},
        "Post": {"type": "object", "properties": {"author": {"$ref": "#/components/schemas/Author"},
                                                  "title": {"type": "string"}}},
    }
    paths = {"/a": body_op({"$ref": "#/components/schemas/Author"}),
             "/p": body_op({"$ref": "#/components/schemas/Post"})}
    got = oas(paths, components)
    author, post = got["POST /a"].body, got["POST /p"].body
    assert author.prop("posts").shape.items.prop("author").shape == Shape("any", text="Author")
    assert author.prop("posts").shape.items.prop("title").shape == S
    assert post.prop("author").shape.prop("posts").shape.items.prop("title").shape == S


def test_depth_is_bounded():
    schema: dict = {"type": "string"}
    for _ in range(12):
        schema = {"type": "object", "properties": {"in": schema}}
    got = body(schema)
    depth = 0
    while got.type == "object":
        got = got.prop("in").shape
        depth += 1
    assert (depth, got.type, got.text) == (9, "any", "object")


def test_each_schema_is_built_once_and_shared():
    components = {"Item": {"type": "object", "properties": {"sku": {"type": "string"}}}}
    paths = {
        "/a": body_op({"$ref": "#/components/schemas/Item"}),
        "/b": body_op({"$ref": "#/components/schemas/Item"}),
        "/c": body_op({"type": "array", "items": {"$ref": "#/components/schemas/Item"}}),
    }
    got = oas(paths, components)
    a, b, c = got["POST /a"].body, got["POST /b"].body, got["POST /c"].body
    assert a is b and c.items is a
    assert c == Shape("array", items=a, text="array<Item>")


def test_the_success_response():
    def response(responses: dict) -> tuple[Shape | None, str]:
        got = oas({"/r": {"get": {"responses": responses}}})["GET /r"]
        return got.response, got.response_status

    obj = {"type": "object", "properties": {"n": {"type": "integer"}}}
    js = {"application/json": {"schema": obj}}
    shape = Shape("object", props=(Prop("n", I),), text="object")
    assert response({"204": {"description": "x"}, "202": {"description": "x", "content": js},
                     "200": {"description": "x", "content": js}}) == (shape, "200")
    assert response({"200": {"description": "x"}, "201": {"description": "x", "content": js}}) == (shape, "201")
    assert response({"2XX": {"description": "x", "content": js}, "400": {"description": "x", "content": js}}) == \
        (shape, "2XX")
    assert response({"default": {"description": "x", "content": js}}) == (shape, "default")
    # a declared success without a body: the default (the errors') is not it
    assert response({"200": {"description": "x"}, "default": {"description": "x", "content": js}}) == (None, "")
    # only JSON bodies count
    assert response({"200": {"description": "x", "content": {"text/plain": {"schema": {"type": "string"}}}}}) == \
        (None, "")


def test_response_through_a_ref():
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/r": {"get": {"responses": {"200": {"$ref": "#/components/responses/Ok"}}}}},
           "components": {"responses": {"Ok": {"description": "x", "content": {"*/*": {"schema": {
               "type": "array", "items": {"type": "integer"}}}}}}}}
    got = parse_contract("openapi.json", json.dumps(doc)).endpoints[0].schemas
    assert (got.response, got.response_status) == (Shape("array", items=I, text="array<integer>"), "200")


# --------------------------------------------------------------------------- Swagger 2.0


WAREHOUSE = """\
swagger: "2.0"
info: {title: Warehouse, version: "1"}
consumes: [application/json]
paths:
  /crates/{crate}:
    parameters:
      - {name: crate, in: path, required: true, type: integer}
    put:
      parameters:
        - {name: crateBody, in: body, required: true, schema: {$ref: '#/definitions/Crate'}}
        - {name: force, in: query, type: boolean}
      responses:
        '200': {description: ok, schema: {$ref: '#/definitions/Crate'}}
        '404': {description: gone}
  /crates/{crate}/label:
    post:
      consumes: [multipart/form-data]
      parameters:
        - {name: crate, in: path, required: true, type: integer}
        - {name: caption, in: formData, required: true, type: string}
        - {name: image, in: formData, type: file}
      responses:
        '201': {$ref: '#/responses/Made'}
responses:
  Made:
    description: made
    schema:
      type: array
      items: {type: string}
definitions:
  Crate:
    type: object
    required: [weight]
    properties:
      weight: {type: number}
      code: {type: string, readOnly: true}
"""


def test_swagger_body_parameter_form_data_and_responses():
    got = schemas_of("swagger.yaml", WAREHOUSE)
    crate = Shape("object", props=(
        Prop("weight", Shape("number", text="number"), required=True),
        Prop("code", S, read_only=True),
    ), text="Crate")
    assert got["PUT /crates/{crate}"] == Schemas(
        body=crate, body_media="application/json", body_required=True,
        params=(ParamSpec("crate", "path", True, "integer"), ParamSpec("force", "query", False, "boolean")),
        response=crate, response_status="200", source="swagger")
    assert got["POST /crates/{crate}/label"] == Schemas(
        body=Shape("object", props=(Prop("caption", S, required=True), Prop("image", Shape("any", text="file"))),
                   text="form"),
        body_media="multipart/form-data", body_required=True,
        params=(ParamSpec("crate", "path", True, "integer"),),
        response=Shape("array", items=S, text="array<string>"), response_status="201", source="swagger")


def test_swagger_form_data_defaults_to_url_encoded():
    text = WAREHOUSE.replace("consumes: [multipart/form-data]", "consumes: [application/x-www-form-urlencoded, multipart/form-data]")
    assert schemas_of("swagger.yaml", text)["POST /crates/{crate}/label"].body_media == \
        "application/x-www-form-urlencoded"


# --------------------------------------------------------------------------- SpecDSL


def dsl(endpoint_request: dict, models: list | None = None) -> Schemas:
    doc = {"version": "1.0", "feature": {"id": "f", "title": "F", "description": "d"},
           "models": models or [],
           "endpoints": [{"id": "EP-1", "method": "POST", "path": "/tickets/:ticket", "description": "d",
                          "auth": False, "request": endpoint_request, "successStatus": 201,
                          "successDescription": "made"}]}
    return parse_contract("api.dsl.json", json.dumps(doc)).endpoints[0].schemas


def test_specdsl_request_maps():
    models = [{"name": "Owner", "fields": [{"name": "email", "type": "string", "required": True},
                                           {"name": "nick", "type": "string", "required": False}]}]
    got = dsl({"params": {"ticket": "string"},
               "query": {"notify": "boolean", "lang": "string, required"},
               "body": {"subject": "string!", "labels": "string[]", "owner": "Owner (required)",
                        "note": "string, optional", "count": "number — not required"}}, models)
    owner = Shape("object", props=(Prop("email", S, required=True), Prop("nick", S)), text="Owner")
    assert got == Schemas(
        body=Shape("object", props=(
            Prop("subject", S, required=True),
            Prop("labels", Shape("array", items=S, text="string[]")),
            Prop("owner", owner, required=True),
            Prop("note", S),
            Prop("count", Shape("number", text="number")),
        ), text="body"),
        body_media="application/json", body_required=True,
        params=(ParamSpec("ticket", "path", True, "string"), ParamSpec("notify", "query", False, "boolean"),
                ParamSpec("lang", "query", True, "string")),
        params_complete=True, source="specdsl")


def test_specdsl_without_query_map_lists_no_complete_parameters():
    got = dsl({"params": {"ticket": "string"}})
    assert (got.body, got.params_complete, got.response) == (None, False, None)


def test_dsl_required_words():
    assert dsl_required("string, required")
    assert dsl_required("Required: the user's e-mail")
    assert dsl_required("string!")
    assert not dsl_required("string")
    assert not dsl_required("string (optional, required when x is set)")
    assert not dsl_required("not required")
    assert not dsl_required("requiredness unknown")


# --------------------------------------------------------------------------- types as written


def test_type_shape_of_written_types():
    assert type_shape("str") == Shape("string", text="str")
    assert type_shape("int") == Shape("integer", text="int")
    assert type_shape("list[str]") == Shape("array", items=Shape("string", text="str"), text="list[str]")
    assert type_shape("string[]") == Shape("array", items=Shape("string", text="string"), text="string[]")
    assert type_shape("Array<number>") == Shape("array", items=Shape("number", text="number"), text="Array<number>")
    assert type_shape("Optional[int]") == Shape("integer", text="Optional[int]")
    assert type_shape("str | None") == Shape("string", text="str | None")
    assert type_shape("'draft' | 'done'") == Shape("string", text="'draft' | 'done'")
    assert type_shape("dict[str, int]") == Shape("object", open=True, text="dict[str, int]")
    assert type_shape("Union[int, str]") == Shape("union", branches=(Shape("integer", text="int"),
                                                                      Shape("string", text="str")),
                                                  text="Union[int, str]")
    assert type_shape("SomethingElse") == Shape(text="SomethingElse")
    nested = Shape("object", props=(Prop("x", Shape("integer", text="int")),), text="Point")
    assert type_shape("list[Point]", lambda name, level: nested if name == "Point" else None) == \
        Shape("array", items=nested, text="list[Point]")


# --------------------------------------------------------------------------- cost


def test_schemas_pickle_through_the_cache_encoding():
    facts = parse_contract("openapi.yaml", LIBRARY)
    assert serial.loads(serial.dumps(facts)) == facts


def test_a_dense_graph_of_schemas_stays_bounded():
    n = 40
    components = {f"S{i}": {"type": "object", "properties": {f"p{j}": {"$ref": f"#/components/schemas/S{j}"}
                                                             for j in range(n)}} for i in range(n)}
    got = body({"$ref": "#/components/schemas/S0"}, components)
    assert got.type == "object" and len(got.props) == n
    assert got.prop("p0").shape == Shape("any", text="S0")
