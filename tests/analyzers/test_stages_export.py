"""The LLM-free exporters of a SpecDSL contract (analyzers/stages/export_openapi.py,
export_ts.py): OpenAPI 3.1 read back by specward's own contract reader and by the OpenAPI
3.1 schema (openapi-spec-validator, a test extra), TypeScript compiled by the pinned tsc
(tests/imports/tools; skipped when missing unless SPECWARD_REQUIRE_REFERENCE=1), and a
file using the generated client checked by `specward check` for phantom calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from specward.analyzers.contracts import parse_contract
from specward.analyzers.stages.export_openapi import dump, load_spec, parse_type, plan, to_openapi
from specward.analyzers.stages.export_ts import to_typescript

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "examples" / "fullstack" / "contracts" / "articles.dsl.json"
SHOP = Path(__file__).resolve().parent / "export_fixtures" / "shop.dsl.json"
TSC = ROOT / "tests" / "imports" / "tools" / "node_modules" / ".bin" / "tsc"
REQUIRED = os.environ.get("SPECWARD_REQUIRE_REFERENCE") == "1"
CONTRACTS = [ARTICLES, SHOP]


def _spec(path: Path):
    spec, findings = load_spec(path.name, path.read_text("utf-8"))
    assert spec is not None, findings
    return spec


def _need_tsc() -> str:
    if not TSC.exists():
        why = "tsc is not installed: npm ci --ignore-scripts --no-audit --no-fund in tests/imports/tools"
        if REQUIRED:
            pytest.fail(why + " (SPECWARD_REQUIRE_REFERENCE=1)")
        pytest.skip(why)
    return str(TSC)


# --------------------------------------------------------------------------- types


@pytest.mark.parametrize("text, kind, extra", [
    ("String", "string", {}),
    ("string, required, max 200 chars", "string", {}),
    ("Int", "integer", {}),
    ("DateTime", "string", {"format": "date-time"}),
    ("Article", "model", {"name": "Article"}),
    ("article", "model", {"name": "Article"}),
    ("'draft' | 'published'", "enum", {"values": ("draft", "published")}),
    ("draft | published", "enum", {"values": ("draft", "published")}),
    ("enum(a, b, a)", "enum", {"values": ("a", "b")}),
    ("Money", "any", {"text": "Money"}),
    ("Json", "any", {}),
])
def test_parse_type(text, kind, extra):
    t = parse_type(text, {"Article": "Article", "article": "Article"})
    assert t.kind == kind
    for key, value in extra.items():
        assert getattr(t, key) == value


def test_parse_type_composites():
    models = {"Article": "Article"}
    arr = parse_type("Article[]", models)
    assert arr.kind == "array" and arr.items.kind == "model"
    assert parse_type("Array<Int>").items.kind == "integer"
    assert parse_type("Record<string, Article>", models).items.name == "Article"
    nullable = parse_type("String?")
    assert nullable.kind == "union" and {o.kind for o in nullable.options} == {"string", "null"}
    assert parse_type("string[][]").items.kind == "array"


# --------------------------------------------------------------------------- OpenAPI


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_openapi_round_trips_through_specwards_reader(contract: Path, fmt: str):
    spec = _spec(contract)
    text = dump(to_openapi(spec), fmt)
    assert text == dump(to_openapi(_spec(contract)), fmt)  # deterministic
    back = parse_contract(f"exported.{fmt}", text)
    assert back.format == "openapi"
    assert back.findings == ()
    assert back.readable
    original = parse_contract(contract.name, contract.read_text("utf-8"))
    assert sorted((e.method, e.path) for e in back.endpoints) == sorted((e.method, e.path) for e in original.endpoints)
    assert {m.name for m in back.models} == {m.name for m in spec.models}


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda p: p.name)
def test_openapi_is_valid_against_the_3_1_schema(contract: Path):
    validator = pytest.importorskip("openapi_spec_validator", reason="openapi-spec-validator (test extra) is not installed")
    doc = yaml.safe_load(dump(to_openapi(_spec(contract)), "yaml"))
    validator.validate(doc)  # raises on any error
    assert doc["openapi"].startswith("3.1")


def test_openapi_shapes():
    doc = to_openapi(_spec(ARTICLES))
    text = dump(doc, "yaml")
    assert "'200':" in text and "'404':" in text  # status codes are strings
    one = doc["paths"]["/api/articles/{slug}"]["get"]
    assert one["parameters"] == [{"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}}]
    assert one["responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Article"}
    assert one["responses"]["404"]["x-error-codes"] == ["NOT_FOUND"]
    listing = doc["paths"]["/api/articles"]["get"]
    assert [p["in"] for p in listing["parameters"]] == ["query"] * 3
    assert listing["responses"]["200"]["content"]["application/json"]["schema"] == {
        "type": "array", "items": {"$ref": "#/components/schemas/Article"}}
    post = doc["paths"]["/api/articles"]["post"]
    assert set(post["requestBody"]["content"]["application/json"]["schema"]["properties"]) == {"title", "body", "tags"}
    assert post["security"] == [{"bearerAuth": []}]
    assert doc["components"]["schemas"]["Article"]["required"] == ["slug", "title", "body"]
    assert all(isinstance(k, str) for item in doc["paths"].values() for op in item.values() for k in op["responses"])


def test_openapi_of_the_richer_fixture():
    doc = to_openapi(_spec(SHOP))
    schemas = doc["components"]["schemas"]
    order = schemas["Order"]["properties"]
    assert order["customer"] == {"$ref": "#/components/schemas/Customer"}
    assert order["lines"] == {"type": "array", "items": {"$ref": "#/components/schemas/OrderLine"}}
    assert order["status"] == {"type": "string", "enum": ["draft", "placed", "shipped"]}
    assert schemas["Customer"]["properties"]["orders"]["items"] == {"$ref": "#/components/schemas/Order"}
    listing = doc["paths"]["/api/customers/{customerId}/orders"]["get"]
    by_name = {p["name"]: p for p in listing["parameters"]}
    assert by_name["customerId"]["in"] == "path" and by_name["customerId"]["schema"]["format"] == "uuid"
    assert by_name["page"]["required"] is True and by_name["sort"]["required"] is False
    assert listing["responses"]["404"]["x-error-codes"] == ["NO_CUSTOMER", "GONE"]
    delete = doc["paths"]["/api/customers/{customerId}/orders/{orderId}"]["delete"]
    assert "content" not in delete["responses"]["204"]
    # a path parameter the DSL does not declare is still declared (as a string)
    assert {p["name"] for p in delete["parameters"]} == {"customerId", "orderId"}
    assert doc["paths"]["/api/order-lines"]["get"]["operationId"] == "listAllLines"
    patch = doc["paths"]["/api/customers/{customerId}/orders/{orderId}"]["patch"]
    assert patch["responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Order"}


def test_function_names_are_unique_and_stable():
    names = [op.name for op in plan(_spec(ARTICLES)).operations]
    assert names == ["getArticles", "postArticles", "getArticlesBySlug", "putArticlesBySlug",
                     "getArticlesBySlugComments", "postArticlesBySlugComments", "getTags"]


def test_load_spec_refuses_an_invalid_contract():
    spec, findings = load_spec("x.dsl.json", json.dumps({"version": "1.0"}))
    assert spec is None and findings and all(f.code == "contract-invalid" for f in findings)


# --------------------------------------------------------------------------- TypeScript


def test_typescript_shapes():
    ts = to_typescript(_spec(SHOP))
    assert "export interface Customer {" in ts
    assert '  tier: "free" | "pro" | "team";' in ts
    assert '  "first-name"?: string;' in ts
    assert "  lines: OrderLine[];" in ts and "  customer: Customer;" in ts
    assert "  note?: string | null;" in ts
    assert "export interface RecordModel {" in ts  # a model named like a TS global is renamed
    assert "as typed *\\/ by the customer" in ts  # a comment cannot be closed by a description
    assert "export function createClient(baseUrl: string, init: RequestInit = {})" in ts
    assert "async deleteCustomersByCustomerIdOrdersByOrderId(customerId: string, orderId: string, " \
           "options?: RequestInit): Promise<void>" in ts
    assert "query: GetCustomersByCustomerIdOrdersQuery," in ts  # a required query parameter: query required
    assert ts == to_typescript(_spec(SHOP))


def test_typescript_of_an_empty_contract(tmp_path: Path):
    spec, _ = load_spec("e.dsl.json", json.dumps({
        "version": "1.0", "feature": {"id": "e", "title": "E", "description": "nothing"}, "models": [], "endpoints": []}))
    assert spec is not None
    _compile(tmp_path, {"empty.ts": to_typescript(spec)})


def _compile(tmp_path: Path, files: dict[str, str]) -> None:
    tsc = _need_tsc()
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    run = subprocess.run([tsc, "--noEmit", "--pretty", "false", "--strict", "--target", "ES2020", "--lib", "ES2020,DOM",
                          "--noUnusedLocals", "--noUnusedParameters", "--exactOptionalPropertyTypes",
                          "--noUncheckedIndexedAccess", "--noImplicitReturns", *files],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


USE_ARTICLES = """\
import { ApiError, createClient, type Article } from "./api";

const api = createClient("https://example.test/", { credentials: "include" });

export async function show(slug: string): Promise<Article[]> {
  const one: Article = await api.getArticlesBySlug(slug);
  await api.postArticlesBySlugComments(one.slug, { body: "hi" });
  await api.putArticlesBySlug(one.slug, { title: "t" }, { headers: { "X-Trace": "1" } });
  try {
    await api.postArticles({ title: "t", body: "b", tags: ["x"] });
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) return [];
  }
  return api.getArticles({ limit: 5, tag: "news" });
}
"""


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda p: p.name)
def test_typescript_compiles_strict(contract: Path, tmp_path: Path):
    files = {"api.ts": to_typescript(_spec(contract))}
    if contract == ARTICLES:
        files["app.ts"] = USE_ARTICLES
    _compile(tmp_path, files)


def test_typescript_type_errors_are_caught(tmp_path: Path):
    """The client is really typed: a wrong argument does not compile."""
    tsc = _need_tsc()
    (tmp_path / "api.ts").write_text(to_typescript(_spec(ARTICLES)), "utf-8")
    (tmp_path / "bad.ts").write_text('import { createClient } from "./api";\n'
                                     'void createClient("").getArticlesBySlug(42);\n', "utf-8")
    run = subprocess.run([tsc, "--noEmit", "--pretty", "false", "--strict", "--target", "ES2020", "--lib", "ES2020,DOM",
                          "api.ts", "bad.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "TS2345" in run.stdout


def test_code_using_the_client_makes_no_phantom_call(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "articles.dsl.json").write_text(ARTICLES.read_text("utf-8"), "utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "api.ts").write_text(to_typescript(_spec(ARTICLES)), "utf-8")
    (tmp_path / "src" / "app.ts").write_text(USE_ARTICLES, "utf-8")
    run = subprocess.run([sys.executable, "-m", "specward.server", "check", "--no-cache", "--format", "json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    calls = subprocess.run([sys.executable, "-m", "specward.server", "calls", "--no-cache", "--format", "json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert calls.returncode == 0, calls.stderr
    assert "phantom" not in {c.get("status") for c in _calls(calls.stdout)}
    assert sum(1 for c in _calls(calls.stdout) if c.get("status") == "matched") == 7


def _calls(text: str) -> list[dict]:
    data = json.loads(text)
    return data["calls"] if isinstance(data, dict) else data
