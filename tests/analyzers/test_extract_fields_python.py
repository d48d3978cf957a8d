"""extract_python: the facts the field checks read — dict keys, reads of a call's value, data
classes and the request model of a route's handler (issue 14)."""

from __future__ import annotations

import textwrap

from specward.analyzers.extract.python import extract_python
from specward.analyzers.extract.python_reads import MAX_READS
from specward.analyzers.model import SPREAD, Arg, CallSite, FileFacts, Lit, ObjVal, OtherVal, StrVal


def facts(src: str) -> FileFacts:
    return extract_python("svc/api.py", textwrap.dedent(src))


def at(src: str, span) -> str:
    return textwrap.dedent(src).encode("utf-8")[span.start:span.end].decode("utf-8")


def call(f: FileFacts, callee: str) -> CallSite:
    found = [c for c in f.calls if c.callee == callee]
    assert len(found) == 1, (callee, [c.callee for c in f.calls])
    return found[0]


def reads(src: str, callee: str) -> list[tuple]:
    """Each read of the call's value as (steps, the text at each span, returned)."""
    c = call(facts(src), callee)
    out = []
    for r in c.reads:
        assert len(r.steps) == len(r.spans), r
        out.append((r.steps, tuple(at(src, s) for s in r.spans), r.returned))
    return out


def keys(src: str, obj: ObjVal) -> list[tuple[str, str]]:
    return [(k.name, at(src, k.span)) for k in obj.keys]


# --------------------------------------------------------------------------- dict keys


def test_dict_literal_keys_include_values_the_fields_drop():
    src = """
        import requests

        def add_ticket(base):
            requests.post(base + "/tickets", json={"subject": "hi", 'priority': 3, "urgent": False,
                                                   "assignee": None, "meta": {"source": "web"}})
    """
    body = dict(call(facts(src), "requests.post").kwargs)["json"]
    assert type(body) is ObjVal and not body.computed
    assert keys(src, body) == [("subject", "subject"), ("priority", "priority"), ("urgent", "urgent"),
                               ("assignee", "assignee"), ("meta", "meta")]
    assert [k for k, _ in body.fields] == ["subject", "meta"]  # string-like and object values only
    meta = body.get("meta")
    assert type(meta) is ObjVal and keys(src, meta) == [("source", "source")]
    assert at(src, body.span).startswith('{"subject"')


def test_string_key_span_is_its_content_whatever_the_quotes():
    src = '''
        import httpx

        def send(client):
            client.put("/cfg", json={r"raw\\key": "a", """long""": "b", "": "c"})
    '''
    body = dict(call(facts(src), "client.put").kwargs)["json"]
    assert [k.name for k in body.keys] == ["raw\\key", "long", ""]
    assert [at(src, k.span) for k in body.keys] == ["raw\\key", "long", ""]


def test_spread_is_a_spread_field_and_a_non_literal_key_makes_the_keys_incomplete():
    src = """
        import requests

        def update(item_id, changes):
            defaults = {"kind": "task", "owner": "me"}
            field = "title"
            requests.patch(f"/items/{item_id}", json={**defaults, field: "x", "state": "open", **changes})
    """
    body = dict(call(facts(src), "requests.patch").kwargs)["json"]
    assert body.computed
    assert keys(src, body) == [("state", "state")]
    spreads = [v for k, v in body.fields if k == SPREAD]
    assert len(spreads) == 2
    assert type(spreads[0]) is ObjVal and keys(src, spreads[0]) == [("kind", "kind"), ("owner", "owner")]
    assert spreads[1] == StrVal((Arg(1),), spreads[1].span)  # the parameter `changes`


def test_spread_of_something_unseen_is_other():
    src = """
        import requests

        def push(u):
            requests.post(u, json={"a": "1", **load_defaults()})
    """
    body = dict(call(facts(src), "requests.post").kwargs)["json"]
    assert type(body.fields[-1][1]) is OtherVal and body.fields[-1][0] == SPREAD
    assert not body.computed and [k.name for k in body.keys] == ["a"]


def test_dict_whose_keys_are_all_computed_stays_other():
    src = """
        import requests

        def post(u, name):
            requests.post(u, json={name: "v"})
    """
    assert type(dict(call(facts(src), "requests.post").kwargs)["json"]) is OtherVal


def test_dict_call_is_an_object_with_its_keyword_names_as_keys():
    src = """
        import requests

        def search(term, extra):
            requests.get("/search", params=dict(q=term, limit=10, **extra), json=dict({"x": "1"}, y="2"))
    """
    c = call(facts(src), "requests.get")
    params = dict(c.kwargs)["params"]
    assert type(params) is ObjVal and keys(src, params) == [("q", "q"), ("limit", "limit")]
    assert params.fields == (("q", StrVal((Arg(0),), params.fields[0][1].span)),
                             (SPREAD, StrVal((Arg(1),), params.fields[1][1].span)))
    body = dict(c.kwargs)["json"]
    assert keys(src, body) == [("y", "y")]
    assert body.fields[0][0] == SPREAD and keys(src, body.fields[0][1]) == [("x", "x")]


def test_rebound_dict_is_not_the_builtin():
    src = """
        import requests
        from frozendict import frozendict as dict

        def search(term):
            requests.get("/search", params=dict(q=term))
    """
    assert type(dict(call(facts(src), "requests.get").kwargs).get("params")) is StrVal


def test_local_bound_once_to_a_dict_gives_the_literal():
    src = """
        import requests

        def create(title):
            payload = {"title": title, "done": False}
            return requests.post("/todos", json=payload)
    """
    body = dict(call(facts(src), "requests.post").kwargs)["json"]
    assert type(body) is ObjVal and not body.computed
    assert keys(src, body) == [("title", "title"), ("done", "done")]
    assert at(src, body.span) == '{"title": title, "done": False}'
    assert body.fields == (("title", StrVal((Arg(0),), body.fields[0][1].span)),)


def test_local_dict_changed_or_used_elsewhere_has_incomplete_keys():
    src = """
        import requests

        def create(title, tags):
            payload = {"title": title}
            if tags:
                payload["tags"] = tags
            requests.post("/todos", json=payload)
    """
    body = dict(call(facts(src), "requests.post").kwargs)["json"]
    assert type(body) is ObjVal and body.computed and [k.name for k in body.keys] == ["title"]


def test_local_dict_bound_twice_is_not_followed():
    src = """
        import requests

        def create(fast):
            payload = {"a": "1"}
            if fast:
                payload = {"b": "2"}
            requests.post("/x", json=payload)
    """
    body = dict(call(facts(src), "requests.post").kwargs)["json"]
    assert type(body) is StrVal  # a name, as before


def test_module_level_dict_for_a_module_level_call():
    src = """
        import requests

        HEADERS = {"accept": "json"}
        requests.get("/ping", params=HEADERS)
    """
    params = dict(call(facts(src), "requests.get").kwargs)["params"]
    assert type(params) is ObjVal and keys(src, params) == [("accept", "accept")] and not params.computed


# --------------------------------------------------------------------------- reads


def test_subscripts_of_json_and_an_element():
    src = """
        import requests

        def first_title(u):
            r = requests.get(u)
            return r.json()["entries"][0]["title"]
    """
    assert reads(src, "requests.get") == [
        (("json()", "entries", "[]", "title"), ("json", "entries", "0", "title"), True)]


def test_dict_get_with_and_without_default_is_a_key():
    src = """
        import requests

        def meta(u):
            r = requests.get(u)
            a = r.json().get("owner")
            b = r.json().get("stats", {}).get("views")
            return a, b
    """
    assert reads(src, "requests.get") == [
        (("json()", "owner"), ("json", "owner"), False),
        (("json()", "stats", "views"), ("json", "stats", "views"), False),
    ]


def test_one_more_assignment_and_a_loop_are_followed():
    src = """
        import requests

        def names(u):
            resp = requests.get(u)
            resp.raise_for_status()
            data = resp.json()
            total = data["count"]
            for row in data["rows"]:
                print(row["label"])
            return total
    """
    assert reads(src, "requests.get") == [
        (("raise_for_status()",), ("raise_for_status",), False),
        (("json()", "count"), ("json", "count"), False),
        (("json()", "rows", "[]", "label"), ("json", "rows", "row", "label"), False),
    ]


def test_only_one_assignment_beyond_the_calls_own_binding():
    src = """
        import requests

        def deep(u):
            r = requests.get(u)
            body = r.json()
            inner = body["wrapper"]
            return inner["value"]
    """
    # `inner` is a third binding: the chain stops at it
    assert reads(src, "requests.get") == [(("json()", "wrapper"), ("json", "wrapper"), False)]


def test_comprehension_over_a_response_field():
    src = """
        import requests

        def ids(u):
            data = requests.get(u).json()
            return [x["id"] for x in data["results"]]
    """
    assert reads(src, "requests.get") == [
        (("json()", "results", "[]", "id"), ("json", "results", "x", "id"), False)]


def test_await_comes_first_and_attributes_are_steps():
    src = """
        import httpx

        async def status(client: httpx.AsyncClient, u):
            resp = await client.get(u)
            if resp.status_code != 200:
                return None
            return resp.json()["data"]
    """
    assert reads(src, "client.get") == [
        (("await", "status_code"), ("await", "status_code"), False),
        (("await", "json()", "data"), ("await", "json", "data"), True),
    ]


def test_aiohttp_with_as_is_the_response_and_json_is_awaited():
    src = """
        import aiohttp

        async def fetch_user(session: aiohttp.ClientSession, uid):
            async with session.get(f"/users/{uid}") as resp:
                body = await resp.json()
                return body["email"]
    """
    assert reads(src, "session.get") == [
        (("json()", "await", "email"), ("json", "await", "email"), True)]


def test_parenthesized_await_and_or_default():
    src = """
        import httpx

        async def tags(client, u):
            items = (await client.get(u)).json().get("tags") or []
            return items[0]["name"]
    """
    assert reads(src, "client.get") == [
        (("await", "json()", "tags", "[]", "name"), ("await", "json", "tags", "0", "name"), True)]


def test_returned_call_has_an_empty_returned_read():
    src = """
        import requests

        class Api:
            def __init__(self):
                self.session = requests.Session()

            def raw(self, path):
                return self.session.get(path)

            def body(self, path):
                return self.session.post(path).json()
    """
    f = facts(src)
    assert call(f, "self.session.get").reads[0].steps == () and call(f, "self.session.get").reads[0].returned
    assert reads(src, "self.session.post") == [(("json()",), ("json",), True)]


def test_unused_values_give_no_reads():
    src = """
        import requests

        def fire(u, payload):
            requests.post(u, json=payload)
            log(requests.get(u))
            r = requests.delete(u)
    """
    f = facts(src)
    assert call(f, "requests.post").reads == ()
    assert call(f, "requests.get").reads == ()  # an argument: not judged
    assert call(f, "requests.delete").reads == ()  # bound, never used


def test_name_bound_twice_is_not_followed():
    src = """
        import requests

        def retry(u):
            r = requests.get(u)
            if not r.ok:
                r = requests.get(u)
            return r.json()
    """
    f = facts(src)
    assert all(c.reads == () for c in f.calls)


def test_keyword_names_and_attributes_of_the_same_name_are_no_uses():
    src = """
        import requests

        def go(u, other):
            r = requests.get(u)
            other.r = 1
            send(r=2)
            return r.json()["ok"]
    """
    assert reads(src, "requests.get") == [(("json()", "ok"), ("json", "ok"), True)]


def test_module_level_script():
    src = """
        import requests

        resp = requests.get("https://api.example.com/v1/me")
        print(resp.json()["login"])
    """
    assert reads(src, "requests.get") == [(("json()", "login"), ("json", "login"), False)]


def test_reads_are_capped():
    uses = "\n".join(f'    print(r.json()["k{i}"])' for i in range(MAX_READS + 10))
    src = "import requests\n\ndef many(u):\n    r = requests.get(u)\n" + uses + "\n"
    c = call(extract_python("svc/api.py", src), "requests.get")
    assert len(c.reads) == MAX_READS and c.reads[0].steps == ("json()", "k0")


# --------------------------------------------------------------------------- data classes


def model(f: FileFacts, name: str):
    found = [m for m in f.data_models if m.name == name]
    assert len(found) == 1, [m.name for m in f.data_models]
    return found[0]


def fields(src: str, f: FileFacts, name: str) -> list[tuple]:
    return [(d.name, d.type, d.required, at(src, d.span)) for d in model(f, name).fields]


def test_pydantic_v2_model_fields_defaults_aliases_and_config():
    src = """
        from typing import Annotated, ClassVar, Optional
        from pydantic import BaseModel, ConfigDict, Field

        class ArticleIn(BaseModel):
            model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
            headline: str
            lead: str = ""
            labels: list[str] = Field(default_factory=list)
            writer: str = Field(..., alias="writerName")
            rank: Annotated[int, Field(alias="position")] = 0
            summary: Optional[str]
            words: int = Field(default=...)
            version: ClassVar[int] = 2
            _cache: dict = {}
    """
    f = facts(src)
    m = model(f, "ArticleIn")
    assert m.bases == ("pydantic.BaseModel",) and m.closed and not m.open and m.kind == "class"
    assert at(src, m.span) == "ArticleIn"
    assert fields(src, f, "ArticleIn") == [
        ("headline", "str", True, "headline"),
        ("lead", "str", False, "lead"),
        ("labels", "list[str]", False, "labels"),
        ("writerName", "str", True, "writerName"),
        ("position", 'Annotated[int, Field(alias="position")]', False, "position"),
        ("summary", "Optional[str]", True, "summary"),  # v2: no default, required
        ("words", "int", True, "words"),
    ]


def test_pydantic_v1_style_config_and_extra_enum():
    src = """
        from typing import Optional
        import pydantic

        class Loose(pydantic.BaseModel):
            note: Optional[str]
            count: int

            class Config:
                extra = pydantic.Extra.allow
    """
    f = facts(src)
    m = model(f, "Loose")
    assert m.bases == ("pydantic.BaseModel",) and m.open and not m.closed
    # with a v1 `class Config`, an Optional field without a default gets None
    assert [(d.name, d.required) for d in m.fields] == [("note", False), ("count", True)]


def test_class_keywords_and_imported_base_names():
    src = """
        from pydantic import BaseModel as Base
        from .shared import AuditedModel

        class Strict(Base, extra="forbid"):
            a: int

        class Derived(AuditedModel):
            pass

        class Listed(AuditedModel):
            def describe(self):
                return "x"
    """
    f = facts(src)
    assert model(f, "Strict").bases == ("pydantic.BaseModel",) and model(f, "Strict").closed
    assert model(f, "Derived").bases == ("AuditedModel",) and model(f, "Derived").fields == ()
    assert [m.name for m in f.data_models] == ["Strict", "Derived"]  # methods only: no data class


def test_enums_exceptions_and_unreadable_names_are_left_out():
    src = """
        from enum import Enum
        from pydantic import BaseModel, ConfigDict, Field
        from pydantic.alias_generators import to_camel

        class Color(str, Enum):
            RED = "red"

        class Boom(Exception):
            pass

        class Camel(BaseModel):
            model_config = ConfigDict(alias_generator=to_camel)
            user_id: int

        class Dual(BaseModel):
            when: str = Field(validation_alias="at")

        class Shared(BaseModel):
            model_config = COMMON
            x: int

        class Kept(BaseModel):
            y: int
    """
    assert [m.name for m in facts(src).data_models] == ["Kept"]


def test_typed_dict_totality_and_required_marks():
    src = """
        from typing import TypedDict
        from typing_extensions import NotRequired, Required

        class Movie(TypedDict, total=False):
            name: str
            year: Required[int]

        class Book(TypedDict):
            isbn: str
            blurb: NotRequired[str]
    """
    f = facts(src)
    assert model(f, "Movie").bases == ("typing.TypedDict",)
    assert fields(src, f, "Movie") == [("name", "str", False, "name"), ("year", "Required[int]", True, "year")]
    assert fields(src, f, "Book") == [("isbn", "str", True, "isbn"), ("blurb", "NotRequired[str]", False, "blurb")]


def test_dataclass_and_attrs_defaults():
    src = """
        from dataclasses import dataclass, field
        import attr

        @dataclass
        class Point:
            x: int
            y: int = 0
            tags: list = field(default_factory=list)
            label: str = field()

        @attr.s(auto_attribs=True)
        class Box:
            w: int = attr.ib()
            h: int = attr.ib(default=1)
    """
    f = facts(src)
    assert model(f, "Point").bases == ()
    assert [(d.name, d.required) for d in model(f, "Point").fields] == [
        ("x", True), ("y", False), ("tags", False), ("label", True)]
    assert [(d.name, d.required) for d in model(f, "Box").fields] == [("w", True), ("h", False)]


def test_only_module_level_classes():
    src = """
        from pydantic import BaseModel

        def factory():
            class Local(BaseModel):
                a: int
            return Local

        class Outer(BaseModel):
            b: int

            class Inner(BaseModel):
                c: int
    """
    assert [m.name for m in facts(src).data_models] == ["Outer"]
    assert [d.name for d in facts(src).data_models[0].fields] == ["b"]


# --------------------------------------------------------------------------- request models


def routes(src: str) -> dict[str, str | None]:
    return {f"{r.method} {r.path}": r.body_model for r in facts(src).routes}


def test_fastapi_body_model_among_other_parameters():
    src = """
        from typing import Annotated
        from uuid import UUID
        from fastapi import APIRouter, BackgroundTasks, Body, Depends, Query, Request
        from . import schemas

        router = APIRouter(prefix="/boards/{board_id}")

        @router.post("/cards")
        def add_card(board_id: int, card: schemas.CardIn, tasks: BackgroundTasks,
                     db: Session = Depends(get_db), dry: bool = False, q: str | None = Query(None)):
            ...

        @router.put("/cards/{card_id}")
        async def edit(card_id: UUID, patch: Annotated[CardPatch, Body()], request: Request,
                       user: Annotated[User, Depends(current_user)]):
            ...

        @router.patch("/cards/{card_id}/move")
        def move(card_id: int, where: Optional[Position] = None):
            ...

        @router.get("/cards")
        def list_cards(ids: list[int] = Query([]), limit: int = 20):
            ...
    """
    assert routes(src) == {
        "POST /boards/{board_id}/cards": "schemas.CardIn",
        "PUT /boards/{board_id}/cards/{card_id}": "CardPatch",
        "PATCH /boards/{board_id}/cards/{card_id}/move": "Position",
        "GET /boards/{board_id}/cards": None,
    }


def test_fastapi_bodies_that_are_not_judged():
    src = """
        from fastapi import FastAPI, Body, File, UploadFile

        app = FastAPI()

        @app.post("/pair")
        def pair(a: First, b: Second): ...

        @app.post("/embedded")
        def embedded(item: Item = Body(embed=True)): ...

        @app.post("/bulk")
        def bulk(items: list[Item]): ...

        @app.post("/upload")
        def upload(meta: Meta, file: UploadFile = File(...)): ...

        @app.post("/raw")
        def raw(payload: dict): ...
    """
    assert set(routes(src).values()) == {None}


def test_flask_pydantic_validate_body():
    src = """
        from flask import Flask
        from flask_pydantic import validate

        app = Flask(__name__)

        @app.post("/notes")
        @validate()
        def create(body: NoteIn, query: Paging):
            ...

        @app.post("/plain")
        def plain(body: NoteIn):
            ...
    """
    assert routes(src) == {"POST /notes": "NoteIn", "POST /plain": None}
