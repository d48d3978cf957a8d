"""Which endpoints a cursor in a contract designates (analyzers.ide.endpoints_at): an
operation key, a SpecDSL ``path`` value, or a path key standing for all its operations.

Cursors are ``$0`` markers in the fixture text; offsets are UTF-8 bytes."""

from __future__ import annotations

import json
import textwrap

import pytest

from specward.analyzers import ide
from specward.analyzers.contracts import parse_contract
from specward.analyzers.model import ContractFacts, Endpoint, Span

SHOP_YAML = textwrap.dedent("""\
    openapi: 3.1.0
    info:
      title: Boutique – commandes
      version: "2"
    servers:
      - url: https://shop.example.net/v2
    paths:
      /orders:
        get:
          summary: List the customer's orders
          responses:
            "200":
              description: A page of orders
        post:
          summary: Place an order
          responses:
            "201":
              description: Placed
      /orders/{orderId}:
        parameters:
          - name: orderId
            in: path
            required: true
            schema:
              type: string
        get:
          summary: One order
          responses:
            "200":
              description: The order
      /health:
        description: Nothing but parameters here
      /carts/{cartId}:
        $ref: "#/components/pathItems/Cart"
    components:
      pathItems:
        Cart:
          get:
            responses:
              "200":
                description: The cart
          delete:
            responses:
              "204":
                description: Emptied
    """)


def cursor(text: str, snippet: str) -> int:
    """The byte offset in ``text`` of the ``$0`` in ``snippet``, which occurs once in
    ``text`` without the marker."""
    before, after = snippet.split("$0")
    assert text.count(before + after) == 1, snippet
    at = text.index(before + after) + len(before)
    return len(text[:at].encode("utf-8"))


def spanned(text: str, span: Span) -> str:
    return text.encode("utf-8")[span.start:span.end].decode("utf-8")


def designate(path: str, text: str, snippet: str) -> ide.Designated | None:
    contract = parse_contract(path, text)
    assert contract.endpoints, contract.findings
    at = cursor(text, snippet)
    keys = ide.path_keys(path, text) if ide.has_path_keys(contract) else ()
    return ide.endpoints_at(contract, at, keys)


def methods(d: ide.Designated) -> list[str]:
    return [ep.method for ep in d.endpoints]


def test_a_path_key_designates_every_operation_of_its_path():
    d = designate("api/shop.yaml", SHOP_YAML, "  /ord$0ers:\n    get:")
    assert d is not None and d.kind == "path"
    assert methods(d) == ["GET", "POST"]
    assert {ep.path for ep in d.endpoints} == {"/orders"}
    assert d.path == "/v2/orders"
    assert spanned(SHOP_YAML, d.span) == "/orders"


@pytest.mark.parametrize("snippet", ["  $0/orders:\n    get:", "  /orders$0:\n    get:"])
def test_both_ends_of_a_path_key_count(snippet):
    d = designate("api/shop.yaml", SHOP_YAML, snippet)
    assert d is not None and d.kind == "path" and methods(d) == ["GET", "POST"]


def test_a_path_key_does_not_take_the_operations_of_a_longer_path():
    d = designate("api/shop.yaml", SHOP_YAML, "  /orders/{order$0Id}:")
    assert d is not None and d.kind == "path"
    assert methods(d) == ["GET"] and d.endpoints[0].summary == "One order"
    assert d.path == "/v2/orders/{orderId}"


def test_an_operation_key_designates_that_operation_only():
    d = designate("api/shop.yaml", SHOP_YAML, "        description: A page of orders\n    po$0st:")
    assert d is not None and d.kind == "operation"
    assert methods(d) == ["POST"] and d.endpoints[0].summary == "Place an order"
    assert spanned(SHOP_YAML, d.span) == "post"


def test_a_path_without_operations_designates_none():
    d = designate("api/shop.yaml", SHOP_YAML, "  /heal$0th:")
    assert d is not None and d.kind == "path" and d.endpoints == () and d.path == "/health"


def test_a_path_item_reached_through_ref_gives_all_its_operations():
    # the endpoints of a $ref path item sit on the path key itself
    d = designate("api/shop.yaml", SHOP_YAML, "  /carts/{cart$0Id}:")
    assert d is not None and d.kind == "path"
    assert methods(d) == ["GET", "DELETE"] and d.path == "/v2/carts/{cartId}"


@pytest.mark.parametrize("snippet", ["summary: List the$0 customer's orders", "  title: Bout$0ique", "paths$0:"])
def test_elsewhere_in_the_contract_nothing_is_designated(snippet):
    assert designate("api/shop.yaml", SHOP_YAML, snippet) is None


def test_a_yaml_alias_path_item_keeps_its_own_path():
    text = textwrap.dedent("""\
        openapi: 3.0.3
        info: {title: Legacy, version: "1"}
        paths:
          /invoices: &invoices
            get:
              responses:
                "200": {description: ok}
          /billing/invoices: *invoices
        """)
    d = designate("openapi.yaml", text, "  /billing/inv$0oices: *invoices")
    assert d is not None and [(ep.method, ep.path) for ep in d.endpoints] == [("GET", "/billing/invoices")]
    d = designate("openapi.yaml", text, "  /invo$0ices: &invoices")
    assert d is not None and [(ep.method, ep.path) for ep in d.endpoints] == [("GET", "/invoices")]


def test_the_same_contract_in_json():
    import yaml

    text = json.dumps(yaml.safe_load(SHOP_YAML), indent=2, ensure_ascii=False) + "\n"
    d = designate("api/shop.json", text, '    "/ord$0ers": {')
    assert d is not None and d.kind == "path" and methods(d) == ["GET", "POST"]
    assert spanned(text, d.span) == '"/orders"'
    d = designate("api/shop.json", text, '    "/carts/{car$0tId}": {')
    assert d is not None and methods(d) == ["GET", "DELETE"]
    d = designate("api/shop.json", text, '      "po$0st": {')
    assert d is not None and d.kind == "operation" and methods(d) == ["POST"]


SWAGGER_YAML = textwrap.dedent("""\
    swagger: "2.0"
    info: {title: Pets, version: "1"}
    basePath: /api
    paths:
      /pets:
        get:
          responses:
            200: {description: ok}
        post:
          responses:
            201: {description: created}
      /pets/{id}:
        delete:
          responses:
            204: {description: gone}
      x-internal-note: not a path
    """)


def _hand_parsed(path: str, text: str, ops: list[tuple[str, str, str]]) -> ContractFacts:
    """Swagger 2.0 facts as a parser would produce them (its parser is being written):
    each endpoint on its method key, found after its path key."""
    data = text.encode("utf-8")
    endpoints = []
    for method, route, key in ops:
        start = data.index(key.encode(), data.index(route.encode() + (b'"' if path.endswith(".json") else b":")))
        endpoints.append(Endpoint(method, route, path, Span(start, start + len(key)), base_path="/api"))
    return ContractFacts(path, "openapi", tuple(endpoints))


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_path_keys_are_format_agnostic_over_swagger_2(fmt):
    import yaml

    text = SWAGGER_YAML if fmt == "yaml" else json.dumps(yaml.safe_load(SWAGGER_YAML), indent=2) + "\n"
    path = f"swagger.{fmt}"
    q = '"' if fmt == "json" else ""
    keys = ide.path_keys(path, text)
    assert [k.key for k in keys] == ["/pets", "/pets/{id}"]  # the x- extension is no path
    assert [spanned(text, k.span) for k in keys] == [f"{q}/pets{q}", f"{q}/pets/{{id}}{q}"]
    contract = _hand_parsed(path, text, [("GET", "/pets", f"{q}get{q}"), ("POST", "/pets", f"{q}post{q}"),
                                         ("DELETE", "/pets/{id}", f"{q}delete{q}")])
    at = cursor(text, f"{q}/p$0ets{q}:")
    d = ide.endpoints_at(contract, at, keys)
    assert d is not None and d.kind == "path" and methods(d) == ["GET", "POST"] and d.path == "/api/pets"
    at = cursor(text, f"{q}/pets/{{i$0d}}{q}:")
    d = ide.endpoints_at(contract, at, keys)
    assert d is not None and methods(d) == ["DELETE"]


def test_a_specdsl_path_value_designates_its_endpoint():
    text = json.dumps({
        "version": "1.0",
        "feature": "catalog",
        "endpoints": [
            {"id": "EP-1", "method": "GET", "path": "/api/products", "description": "Products", "successStatus": 200},
            {"id": "EP-2", "method": "POST", "path": "/api/products", "description": "Add one", "successStatus": 201},
        ],
    }, indent=2) + "\n"
    contract = parse_contract("contracts/catalog.dsl.json", text)
    assert not ide.has_path_keys(contract) and ide.path_keys(contract.path, text) == ()
    data = text.encode()
    second = data.index(b'"/api/products"', data.index(b'"EP-2"'))
    d = ide.endpoints_at(contract, second + 3)
    assert d is not None and d.kind == "operation" and [ep.id for ep in d.endpoints] == ["EP-2"]
    assert d.path == "/api/products"
    assert ide.endpoints_at(contract, data.index(b'"catalog"')) is None


def test_text_that_is_no_document_has_no_path_keys():
    assert ide.path_keys("openapi.yaml", "paths: [unclosed\n") == ()
    assert ide.path_keys("openapi.yaml", "") == ()
    assert ide.path_keys("openapi.json", '{"paths": ["/a"]}') == ()


def test_hover_on_a_path_lists_its_operations_and_their_callers():
    get = Endpoint("GET", "/orders", "shop.yaml", Span(0, 3), summary="List orders")
    post = Endpoint("POST", "/orders", "shop.yaml", Span(4, 8))
    callers = [("web/a.ts", n) for n in range(1, 6)]
    text = ide.hover_path("/v2/orders", [(get, callers), (post, [])])
    assert text.splitlines() == [
        "**/v2/orders**", "",
        "- `GET` List orders — 5 calls", "  - `web/a.ts:1`", "  - `web/a.ts:2`", "  - `web/a.ts:3`",
        "  - … and 2 more",
        "- `POST` — no call",
    ]
    assert "No operation" in ide.hover_path("/health", [])
