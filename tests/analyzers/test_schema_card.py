"""The schemas part of the hover card (``schema_card.schema_lines``): exact lines for a body
with nested fields, query parameters and a response, unions, arrays, and the bounds."""

from __future__ import annotations

from specward.analyzers.contracts import parse_contract
from specward.analyzers.model import ParamSpec, Prop, Schemas, Shape
from specward.analyzers.schema_card import MAX_FIELDS, schema_lines

S = Shape("string", text="string")
I = Shape("integer", text="integer")

AUTHOR = Shape("object", props=(Prop("handle", S, required=True), Prop("bio", S)), text="Author")
DRAFT = Shape("object", props=(
    Prop("title", S, required=True),
    Prop("slug", S, read_only=True),
    Prop("author", AUTHOR),
    Prop("tags", Shape("array", items=S, text="array<string>")),
), closed=True, text="Draft")
POST = Shape("object", props=(
    Prop("id", I),
    Prop("title", S),
    Prop("password", S, write_only=True),
    Prop("authors", Shape("array", items=AUTHOR, text="array<Author>")),
), text="Post")


def test_body_query_parameters_and_response():
    schemas = Schemas(body=DRAFT, body_media="application/json", body_required=True,
                      params=(ParamSpec("id", "path", True, "integer"), ParamSpec("lang", "query", True, "string"),
                              ParamSpec("page", "query", False, "integer"), ParamSpec("X-Trace", "header")),
                      response=POST, response_status="201", source="openapi")
    assert schema_lines(schemas) == [
        "**Request body** (application/json, required) · `Draft` · no other field allowed",
        "- `title` string, required",
        "- `author` Author",
        "  - `handle` string, required",
        "  - `bio` string",
        "- `tags` array<string>",
        "",
        "**Query parameters**",
        "- `lang` string, required",
        "- `page` integer",
        "",
        "**Response 201** · `Post`",
        "- `id` integer",
        "- `title` string",
        "- `authors` array<Author>",
        "  - `handle` string",
        "  - `bio` string",
    ]


def test_nothing_declared_gives_nothing():
    assert schema_lines(Schemas()) == []
    assert schema_lines(Schemas(params=(ParamSpec("id", "path", True, "string"),))) == []


def test_an_array_response_lists_its_items_fields_and_a_union_its_branches():
    cat = Shape("object", props=(Prop("purrs", Shape("boolean", text="boolean")),), text="Cat")
    dog = Shape("object", props=(Prop("barks", Shape("boolean", text="boolean")),), text="Dog")
    schemas = Schemas(body=Shape("union", branches=(cat, dog), text="Cat | Dog"), body_media="application/json",
                      response=Shape("array", items=AUTHOR, text="array<Author>"), response_status="200")
    assert schema_lines(schemas) == [
        "**Request body** (application/json) · `Cat | Dog`",
        "- one of `Cat`",
        "  - `purrs` boolean",
        "- one of `Dog`",
        "  - `barks` boolean",
        "",
        "**Response 200** · `array<Author>`",
        "- `handle` string",
        "- `bio` string",
    ]


def test_a_route_model_says_where_it_comes_from():
    schemas = Schemas(body=Shape("object", props=(Prop("q", S, required=True),), open=True, text="SearchIn"),
                      body_media="application/json", params_complete=False, source="pydantic")
    assert schema_lines(schemas) == [
        "**Request body** (application/json, pydantic) · `SearchIn` · other fields allowed",
        "- `q` string, required",
    ]


def test_sections_are_bounded():
    many = Shape("object", props=tuple(Prop(f"f{i}", S) for i in range(30)), text="Wide")
    params = tuple(ParamSpec(f"q{i}", "query") for i in range(25))
    wide_nested = Shape("object", props=tuple(Prop(f"n{i}", S) for i in range(10)), text="Deep")
    lines = schema_lines(Schemas(body=many, params=params,
                                 response=Shape("object", props=(Prop("deep", wide_nested),), text="R"),
                                 response_status="200"))
    body_end = lines.index("")
    assert body_end == 1 + MAX_FIELDS + 1 and lines[body_end - 1] == "- … and 10 more"
    query_end = lines.index("", body_end + 1)
    assert lines[query_end - 1] == "- … and 5 more" and query_end - body_end - 2 == MAX_FIELDS + 1
    assert lines[query_end + 1:] == ["**Response 200** · `R`", "- `deep` Deep",
                                     *[f"  - `n{i}` string" for i in range(6)], "  - … and 4 more"]


def test_card_of_a_parsed_contract():
    text = """\
openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /notes:
    post:
      parameters:
        - {name: dry, in: query, schema: {type: boolean}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [body]
              properties:
                body: {type: string}
                pinned: {type: boolean}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: integer}
"""
    ep = parse_contract("openapi.yaml", text).endpoints[0]
    assert schema_lines(ep.schemas) == [
        "**Request body** (application/json)",
        "- `body` string, required",
        "- `pinned` boolean",
        "",
        "**Query parameters**",
        "- `dry` boolean",
        "",
        "**Response 200**",
        "- `id` integer",
    ]
