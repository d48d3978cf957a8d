"""The contract diff: element ids, canonical views and their hashes, and what changed field
by field, in SpecDSL, OpenAPI 3 and Swagger 2 (``analyzers/contract_diff.py``)."""

from __future__ import annotations

import copy
import json

from specward.analyzers.contract_diff import (MAX_SUMMARY_ITEMS, diff_contracts, element_hash, element_ids,
                                              element_view, hash_matches, impact_card, summarize)
from specward.analyzers.contracts import parse_contract
from specward.analyzers.model import Finding, Span

DSL = {
    "version": "1.0",
    "feature": {"id": "auth", "title": "Auth", "description": "Signing in"},
    "models": [
        {"name": "LoginResponse", "fields": [{"name": "token", "type": "string", "required": True},
                                             {"name": "user", "type": "User", "required": True}]},
        {"name": "User", "fields": [{"name": "id", "type": "string", "required": True},
                                    {"name": "email", "type": "string", "required": True}]},
        {"name": "Credentials", "fields": [{"name": "email", "type": "string", "required": True}]},
    ],
    "endpoints": [
        {"id": "EP-1", "method": "POST", "path": "/auth/login", "description": "Sign in", "auth": False,
         "request": {"body": {"credentials": "Credentials"}}, "successStatus": 200,
         "successDescription": "The LoginResponse", "errors": [{"status": 401, "code": "BAD_LOGIN",
                                                                 "description": "Wrong password"}]},
        {"id": "EP-2", "method": "GET", "path": "/users/:id", "description": "One user", "auth": True,
         "request": {"params": {"id": "string"}, "query": {"expand": "string"}}, "successStatus": 200,
         "successDescription": "The User"},
    ],
}

OAS = """\
openapi: 3.0.3
info: {title: Accounts, version: "1"}
servers: [{url: /api}]
paths:
  /auth/login:
    post:
      security: [{bearer: []}]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Credentials'}
      responses:
        '200':
          description: Logged in
          content:
            application/json:
              schema: {$ref: '#/components/schemas/LoginResponse'}
        '401': {description: No}
  /users/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: fields, in: query, schema: {type: array, items: {type: string}}}
      responses:
        '200':
          description: One user
          content:
            application/json:
              schema: {type: object, properties: {name: {type: string}, age: {type: integer}}}
components:
  schemas:
    Credentials: {type: object, properties: {email: {type: string}, password: {type: string}}}
    LoginResponse:
      type: object
      properties:
        token: {type: string}
        user: {$ref: '#/components/schemas/User'}
    User: {type: object, properties: {id: {type: integer}, email: {type: string}}}
"""

SWAGGER = """\
swagger: "2.0"
info: {title: Pets, version: "1"}
basePath: /v2
paths:
  /pets/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, type: integer}
      responses:
        '200': {description: A pet, schema: {$ref: '#/definitions/Pet'}}
definitions:
  Pet: {type: object, properties: {name: {type: string}, tag: {type: string}}}
"""


def dsl(doc: dict, indent: int | None = 2):
    return parse_contract("specs/auth.dsl.json", json.dumps(doc, indent=indent))


def oas(text: str):
    facts = parse_contract("specs/openapi.yaml", text)
    assert [f for f in facts.findings if f.severity == "error"] == []
    return facts


def summaries(old, new) -> list[str]:
    return [c.summary for c in diff_contracts(old, new).changes]


# ------------------------------------------------------------------------ ids, views, hashes


def test_element_ids_are_method_and_full_path_and_model_names():
    assert element_ids(dsl(DSL)) == ["POST /auth/login", "GET /users/{id}", "model LoginResponse", "model User",
                                     "model Credentials"]
    assert element_ids(oas(OAS))[:2] == ["POST /api/auth/login", "GET /api/users/{id}"]  # the servers' base
    assert element_ids(parse_contract("swagger.yaml", SWAGGER)) == ["GET /v2/pets/{id}", "model Pet"]


def test_an_endpoint_view_holds_what_generated_code_depends_on():
    view = element_view(oas(OAS), "POST /api/auth/login")
    assert view == {
        "endpoint": "POST /api/auth/login", "method": "POST", "path": "/auth/login", "base": "/api",
        "parameters": {}, "body": {"content": {"application/json": "Credentials"}, "required": True},
        "responses": {"200": {"application/json": "LoginResponse"}, "401": {}}, "auth": "bearer",
        # the models it references, and the models those reach
        "models": {"Credentials": {"email": "string", "password": "string"},
                   "LoginResponse": {"token": "string", "user": "User"},
                   "User": {"id": "integer", "email": "string"}},
    }
    assert element_view(oas(OAS), "DELETE /api/auth/login") is None
    assert element_hash(oas(OAS), "model Nope") is None


def test_openapi_and_swagger_details_hold_the_response_types():
    get = oas(OAS).endpoints[1]
    assert dict(get.details)["responseTypes"] == (("200", (("application/json", "{age: integer, name: string}"),)),)
    pet = parse_contract("swagger.yaml", SWAGGER).endpoints[0]
    assert dict(pet.details)["responseTypes"] == (("200", (("*", "Pet"),)),)


def test_hashes_ignore_whitespace_order_and_descriptions():
    base = dsl(DSL)
    shuffled = copy.deepcopy(DSL)
    shuffled["endpoints"].reverse()
    shuffled["models"].reverse()
    for m in shuffled["models"]:
        m["fields"].reverse()
    shuffled["endpoints"][1] = dict(reversed(list(shuffled["endpoints"][1].items())))  # key order
    shuffled["endpoints"][1]["description"] = "Signing in, described otherwise"
    other = dsl(shuffled, indent=None)
    for element in element_ids(base):
        assert element_hash(base, element) == element_hash(other, element), element
    assert diff_contracts(base, other).empty

    yaml_reordered = OAS.replace(
        "        - {name: id, in: path, required: true, schema: {type: integer}}\n"
        "        - {name: fields, in: query, schema: {type: array, items: {type: string}}}\n",
        "        - {in: query, schema: {items: {type: string}, type: array}, name: fields}\n"
        "        -   {name: id,   in: path, required: true, schema: {type: integer}}\n",
    ).replace("description: One user", "description: Someone")
    assert yaml_reordered != OAS
    assert diff_contracts(oas(OAS), oas(yaml_reordered)).empty
    assert element_hash(oas(OAS), "GET /api/users/{id}") == element_hash(oas(yaml_reordered), "GET /api/users/{id}")


def test_a_hash_changes_with_the_element_and_a_short_hash_matches():
    before = element_hash(oas(OAS), "model User")
    after = element_hash(oas(OAS.replace("id: {type: integer}, email", "id: {type: string}, email")), "model User")
    assert before and after and before != after
    assert before.startswith("sha256:") and len(before) == len("sha256:") + 64
    assert hash_matches(before, before[:len("sha256:") + 16])
    assert not hash_matches(before, after[:len("sha256:") + 16])
    assert not hash_matches(before, "sha256:")  # too short to say anything


# ------------------------------------------------------------------------ what changed


def test_specdsl_field_level_changes():
    new = copy.deepcopy(DSL)
    login, user = new["endpoints"]
    login["request"]["body"]["remember"] = "boolean"
    login["errors"].append({"status": 429, "code": "SLOW_DOWN", "description": "Too many tries"})
    login["auth"] = True
    user["request"]["query"] = {"expand": "string[]", "page": "number"}
    user["successStatus"] = 203
    assert summaries(dsl(DSL), dsl(new)) == [
        "POST /auth/login: request body field remember added; response 429 added; auth changed: none → required",
        "GET /users/{id}: query parameter expand type changed: string → string[]; query parameter page added; "
        "response 200 removed; and 1 more",
    ]
    changed = diff_contracts(dsl(DSL), dsl(new)).endpoints[1]
    assert [f.text for f in changed.fields][-1] == "response 203 added"
    assert changed.fields[0].old == "string" and changed.fields[0].new == "string[]"


def test_a_model_change_is_said_on_the_endpoints_that_use_it():
    new = copy.deepcopy(DSL)
    new["models"][0]["fields"] = [f for f in new["models"][0]["fields"] if f["name"] != "token"]  # LoginResponse
    new["models"][1]["fields"].append({"name": "name", "type": "string", "required": False})  # User
    new["models"][2]["fields"][0]["type"] = "Email"  # Credentials, the request body
    assert summaries(dsl(DSL), dsl(new)) == [
        "POST /auth/login: response field token removed; request body field email type changed: string → Email; "
        "model User field name added",
        "GET /users/{id}: response field name added",
        "model LoginResponse: field token removed",
        "model User: field name added",
        "model Credentials: field email type changed: string → Email",
    ]


def test_openapi_changes_field_by_field():
    new = (OAS.replace("        token: {type: string}\n", "")
           .replace("schema: {type: integer}}", "schema: {type: string}}")
           .replace("{name: fields, in: query,", "{name: fields, in: query, required: true,")
           .replace("        '401': {description: No}\n", "        '429': {description: Slow}\n")
           .replace("properties: {name: {type: string}, age: {type: integer}}",
                    "properties: {name: {type: string}}")
           .replace("$ref: '#/components/schemas/Credentials'}", "$ref: '#/components/schemas/User'}"))
    d = diff_contracts(oas(OAS), oas(new))
    assert [c.summary for c in d.changes] == [
        "POST /api/auth/login: request body type changed: Credentials → User; response 401 removed; "
        "response 429 added; and 1 more",
        "GET /api/users/{id}: path parameter id type changed: integer → string; query parameter fields now required; "
        "response 200 type changed: {age: integer, name: string} → {name: string}",
        "model LoginResponse: field token removed",
    ]
    assert [f.text for f in d.endpoints[0].fields][-1] == "response field token removed"
    assert d.of("model", "changed")[0].fields[0].change == "removed"


def test_added_and_removed_elements():
    new = copy.deepcopy(DSL)
    new["endpoints"].pop()
    new["endpoints"].append({"id": "EP-3", "method": "DELETE", "path": "/auth/login", "description": "Sign out",
                             "auth": True, "successStatus": 204, "successDescription": "Gone"})
    new["models"].append({"name": "Session", "fields": [{"name": "id", "type": "string", "required": True}]})
    d = diff_contracts(dsl(DSL), dsl(new))
    assert [c.summary for c in d.of("endpoint", "added")] == ["DELETE /auth/login added"]
    assert [c.summary for c in d.of("endpoint", "removed")] == ["GET /users/{id} removed"]
    assert [c.summary for c in d.of("model", "added")] == ["model Session added"]
    assert d.plain()["endpoints"]["removed"] == [{"id": "GET /users/{id}", "kind": "endpoint", "status": "removed",
                                                  "summary": "GET /users/{id} removed", "changes": []}]


def test_a_base_path_change_is_every_endpoint_removed_and_added():
    d = diff_contracts(oas(OAS), oas(OAS.replace("servers: [{url: /api}]", "servers: [{url: /v2}]")))
    assert [c.element for c in d.of("endpoint", "removed")] == ["POST /api/auth/login", "GET /api/users/{id}"]
    assert [c.element for c in d.of("endpoint", "added")] == ["POST /v2/auth/login", "GET /v2/users/{id}"]
    assert d.models == ()


def test_swagger_changes():
    new = SWAGGER.replace("tag: {type: string}", "tag: {type: integer}")
    assert summaries(parse_contract("swagger.yaml", SWAGGER), parse_contract("swagger.yaml", new)) == [
        "GET /v2/pets/{id}: response field tag type changed: string → integer",
        "model Pet: field tag type changed: string → integer",
    ]


def test_summaries_are_one_line_and_capped():
    assert summarize("model X", "removed") == "model X removed"
    new = copy.deepcopy(DSL)
    new["models"][2]["fields"] = [{"name": f"f{i}", "type": "string", "required": True} for i in range(6)]
    summary = summaries(dsl(DSL), dsl(new))[-1]
    assert "\n" not in summary
    assert summary.count(";") == MAX_SUMMARY_ITEMS and summary.endswith("; and 4 more")


def test_impact_card_lists_the_files_with_why():
    f = Finding("contract-change-impact", "information", "x", "specs/a.yaml", Span(0, 0), (
        ("summary", "model User: field email removed"), ("changes", ("field email removed",)),
        ("files", ("web/a.ts", "web/b.ts")), ("reasons", (("web/a.ts", "calls GET /users"), ("web/b.ts", "imports x")))))
    assert impact_card(f) == ("**model User: field email removed**\n\n- field email removed\n\n"
                              "This change affects 2 files:\n- `web/a.ts` — calls GET /users\n- `web/b.ts` — imports x")
    assert impact_card(Finding("phantom-api", "error", "x", "a.ts", Span(0, 0))) is None
