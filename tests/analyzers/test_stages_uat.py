"""The acceptance script: criteria from a spec, steps per criterion, cross-checks."""

from __future__ import annotations

from pathlib import Path

from specward.analyzers.contracts import parse_contract
from specward.analyzers.stages.uat import (GeneratedCall, GeneratedRoute, UatEndpoint, acceptance_criteria,
                                           acceptance_script, uat_endpoint)

SPEC = """# Reading list

## Background

People keep links to read later.

## User stories

- As a reader I want to save a link.

## Acceptance criteria

1. A reader can add a bookmark with a URL and a title, and gets its id back.
2. A reader can list their bookmarks,
   newest first.
   - at most 50 at a time
3. [ ] A reader can open one bookmark.
4. Calling DELETE /bookmarks/{id} removes it.
5. The list page works on a phone.

```text
- not a criterion
```

## Edge cases

- An empty title is refused.
"""

ENDPOINTS = [
    UatEndpoint("POST", "/bookmarks", "Save a bookmark", "201", (("url", "string"), ("title", "string")),
                (("id", "integer"), ("url", "string"))),
    UatEndpoint("GET", "/bookmarks", "List bookmarks", "200", (), (("items", "array"),)),
    UatEndpoint("GET", "/bookmarks/{id}", "", "200", (), (("id", "integer"),)),
    UatEndpoint("DELETE", "/bookmarks/{id}", "", "204"),
    UatEndpoint("PATCH", "/bookmarks/{id}", "Rename", "200", (("title", "string"),)),
]


def section(script: str, n: int) -> str:
    start = script.index(f"### {n}. ")
    end = script.find("\n### ", start + 1)
    return script[start:end if end >= 0 else None]


def test_acceptance_criteria_are_the_items_of_the_section():
    assert acceptance_criteria(SPEC) == [
        "A reader can add a bookmark with a URL and a title, and gets its id back.",
        "A reader can list their bookmarks, newest first. at most 50 at a time",
        "A reader can open one bookmark.",
        "Calling DELETE /bookmarks/{id} removes it.",
        "The list page works on a phone."]


def test_acceptance_criteria_other_shapes():
    assert acceptance_criteria("Intro\n\n### Acceptance Criteria:\n* one\n+ two\n1) three\n## Next\n- no\n") == [
        "one", "two", "three"]
    assert acceptance_criteria("# Spec\n\n- a bullet elsewhere\n") == []
    assert acceptance_criteria(None) == []  # type: ignore[arg-type]


def script() -> str:
    routes = [GeneratedRoute("POST", "/bookmarks", "srv/bookmarks.ts"), GeneratedRoute("GET", "/", "srv/bookmarks.ts"),
              GeneratedRoute("GET", "/:id", "srv/bookmarks.ts")]
    calls = [GeneratedCall("POST", "/api/bookmarks", "web/api.ts"), GeneratedCall("GET", "/api/bookmarks", "web/api.ts"),
             GeneratedCall("GET", "/api/bookmarks/{id}", "web/api.ts")]
    return acceptance_script("reading-list", acceptance_criteria(SPEC), ENDPOINTS, routes, calls,
                             ["srv/bookmarks.test.ts"], ["npm install", "npm run dev"])


def test_the_script_has_setup_tests_and_one_section_per_criterion():
    text = script()
    assert text.startswith("# Acceptance script: reading-list\n")
    assert "1. Run `npm install`." in text and "2. Run `npm run dev`." in text
    assert "export BASE_URL=" in text
    assert "- `srv/bookmarks.test.ts`" in text
    assert text.count("\n### ") == 5


def test_a_criterion_gets_a_request_and_what_the_answer_must_contain():
    first = section(script(), 1)
    assert "`POST /bookmarks` (Save a bookmark)" in first
    assert "curl -i -X POST \"$BASE_URL/bookmarks\" -H 'Content-Type: application/json'" in first
    assert '"url": "example"' in first and '"title": "example"' in first
    assert "Expect status 201; the JSON answer contains `id`, `url`." in first
    assert "not generated" not in first and "No generated client" not in first


def test_verbs_and_number_choose_between_endpoints_of_one_resource():
    text = script()
    assert "`GET /bookmarks` (List bookmarks)" in section(text, 2)
    assert "/bookmarks/{id}" not in section(text, 2)
    assert "`GET /bookmarks/{id}`" in section(text, 3) and '"$BASE_URL/bookmarks/<id>"' in section(text, 3)


def test_an_endpoint_no_generated_route_declares_is_marked():
    fourth = section(script(), 4)
    assert "`DELETE /bookmarks/{id}`" in fourth
    assert "**not generated**: no generated route declares DELETE /bookmarks/{id}." in fourth
    assert "No generated client calls it." in fourth
    assert "Expect status 204." in fourth


def test_a_criterion_that_maps_to_no_endpoint_says_so():
    assert "maps to no endpoint of the slice" in section(script(), 5)


def test_endpoints_no_criterion_mentions_are_listed():
    text = script()
    assert "## Endpoints no criterion mentions" in text
    assert "- `PATCH /bookmarks/{id}` — **not generated**" in text


def test_it_never_raises_on_odd_input():
    text = acceptance_script("x", [None, 3, ""], [object()], None, 7, "tests", [None])  # type: ignore[list-item, arg-type]
    assert text.startswith("# Acceptance script: x\n")
    assert "no acceptance criteria" in text
    weird = acceptance_script("y", ["create a thing"], [UatEndpoint("POST", "not a path{{")], [], [], [], [])
    assert weird.startswith("# Acceptance script: y\n")


def test_uat_endpoint_reads_status_and_fields_from_the_contract():
    path = Path(__file__).parent / "export_fixtures" / "shop.dsl.json"
    facts = parse_contract("specs/shop.dsl.json", path.read_text())
    place = next(e for e in facts.endpoints if e.method == "POST")
    ep = uat_endpoint(place)
    assert (ep.method, ep.path, ep.status) == ("POST", "/api/customers/{customerId}/orders", "201")
    assert [n for n, _ in ep.request_fields] == ["lines", "note"]
    text = acceptance_script("shop", ["A customer can place an order"], [ep], [], [], [], [])
    assert '-X POST "$BASE_URL/api/customers/<customerId>/orders"' in text and "Expect status 201" in text
