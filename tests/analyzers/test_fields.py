"""The field checks on hand-made calls and schemas (``analyzers/fields.py``, ``payload.py``)."""

from __future__ import annotations

from specward.analyzers.fields import check, nearest, sent_keys
from specward.analyzers.http import HttpCall
from specward.analyzers.model import (
    SPREAD, Arg, CallSite, Endpoint, Key, Lit, ObjVal, OtherVal, ParamSpec, Prop, Read, Schemas, Shape, Span,
    StrVal,
)
from specward.analyzers.payload import FOREIGN, bind, body_reads, payload, query_names, returns, settled

S = Span(0, 0)
STR = Shape("string", text="string")


def obj(*names: str, at: int = 100, spreads: tuple = (), computed: bool = False) -> ObjVal:
    keys = tuple(Key(n, Span(at + 10 * i, at + 10 * i + len(n))) for i, n in enumerate(names))
    return ObjVal(tuple((SPREAD, s) for s in spreads), Span(at - 2, at + 10 * len(names)), keys, computed)


def note_shape(closed: bool = False) -> Shape:
    return Shape("object", (Prop("title", STR, required=True), Prop("body", STR),
                            Prop("id", STR, read_only=True, required=True)), closed=closed, text="NoteIn")


def endpoint(schemas: Schemas, method: str = "POST", path: str = "/notes") -> Endpoint:
    return Endpoint(method, path, "contracts/api.yaml", S, schemas=schemas)


def call(**kw) -> HttpCall:
    return HttpCall("web/notes.ts", Span(10, 18), Span(0, 40), kw.pop("method", "POST"), "/notes", **kw)


def codes(findings) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity, f.message) for f in findings]


def test_an_unknown_body_field_names_the_nearest_declared_one_and_renames_it():
    got = check(call(body=obj("title", "content")), endpoint(Schemas(body=note_shape())))
    # `body` is the one declared field not sent: the likely meaning, however far the spelling
    assert codes(got) == [("unknown-field", "warning",
                           "`content` is not a field of the request body of POST /notes; did you mean `body`?")]
    two = check(call(body=obj("title", "content", "extra")), endpoint(Schemas(body=note_shape())))
    assert [f.message for f in two] == [
        "`content` is not a field of the request body of POST /notes",
        "`extra` is not a field of the request body of POST /notes"]
    got = check(call(body=obj("title", "bdoy")), endpoint(Schemas(body=note_shape(closed=True))))
    assert codes(got) == [("unknown-field", "error",
                           "`bdoy` is not a field of the request body of POST /notes; did you mean `body`?")]
    assert dict(got[0].data)["fixes"] == (("Rename to `body`", "web/notes.ts", 110, 114, "body"),)


def test_a_shorthand_key_is_renamed_with_its_value_kept():
    body = ObjVal((), Span(98, 120), (Key("title", Span(100, 105)), Key("bdy", Span(107, 110), shorthand=True)))
    got = check(call(body=body), endpoint(Schemas(body=note_shape())))
    assert dict(got[0].data)["fixes"] == (("Rename to `body`", "web/notes.ts", 107, 110, "body: bdy"),)


def test_a_required_field_left_out_is_missing_only_when_every_key_is_visible():
    got = check(call(body=obj("body")), endpoint(Schemas(body=note_shape())))
    assert codes(got) == [("missing-field", "error", "The request body of POST /notes requires field `title`")]
    assert got[0].span == Span(98, 99)
    # read-only `id` is never required in a request; a spread of something unseen hides the rest
    assert check(call(body=obj("body", spreads=(OtherVal(S),))), endpoint(Schemas(body=note_shape()))) == []
    assert check(call(body=obj("body", computed=True)), endpoint(Schemas(body=note_shape()))) == []
    # a spread of a visible literal counts
    assert check(call(body=obj("body", spreads=(obj("title", at=300),))), endpoint(Schemas(body=note_shape()))) == []


def test_nothing_is_judged_where_the_schema_does_not_say():
    for shape in (Shape(), Shape("object"), Shape("object", (Prop("a", STR),), open=True)):
        assert check(call(body=obj("zzz")), endpoint(Schemas(body=shape))) == []
    # a GET's body is not the operation's
    assert check(call(body=obj("zzz"), method="GET"), endpoint(Schemas(body=note_shape()), method="GET")) == []


def test_a_one_of_is_judged_only_as_far_as_the_branch_is_decided():
    a = Shape("object", (Prop("kind", STR, required=True), Prop("url", STR, required=True)))
    b = Shape("object", (Prop("kind", STR, required=True), Prop("text", STR, required=True)))
    ep = endpoint(Schemas(body=Shape("union", branches=(a, b))))
    assert check(call(body=obj("kind", "url")), ep) == []
    assert codes(check(call(body=obj("kind")), ep)) == []  # either branch: nothing surely missing
    assert [f.code for f in check(call(body=obj("kind", "text", "txt")), ep)] == ["unknown-field"]
    assert codes(check(call(body=obj("url", "kind", "x")), ep))[0][2].startswith("`x` is not a field")
    # decided: `text` only fits b, whose `kind` is missing
    assert [f.message for f in check(call(body=obj("text")), ep)] == [
        "The request body of POST /notes requires field `kind`"]


def test_nested_objects_are_judged_against_the_nested_schema():
    author = Shape("object", (Prop("name", STR, required=True),))
    shape = Shape("object", (Prop("title", STR), Prop("author", author)))
    inner = obj("nmae", at=300)
    body = ObjVal((("author", inner),), Span(98, 130), (Key("title", Span(100, 105)), Key("author", Span(110, 116))))
    got = check(call(body=body), endpoint(Schemas(body=shape)))
    assert codes(got) == [
        ("unknown-field", "warning",
         "`author.nmae` is not a field of `author` in the request body of POST /notes; did you mean `name`?")]


def test_query_parameters_unknown_and_missing():
    params = (ParamSpec("page", "query", required=True), ParamSpec("limit", "query"), ParamSpec("id", "path", True))
    ep = endpoint(Schemas(params=params), method="GET")
    got = check(call(method="GET", params=obj("page", "pageSize")), ep)
    assert codes(got) == [("unknown-parameter", "warning",
                           "`pageSize` is not a query parameter of GET /notes")]
    got = check(call(method="GET", params=obj("limit")), ep)
    assert codes(got) == [("missing-parameter", "error", "GET /notes requires the query parameter `page`")]
    got = check(call(method="GET", query=("page", "id")), ep)
    assert codes(got) == [("unknown-parameter", "warning",
                           "`id` is a path parameter of GET /notes, not a query parameter")]
    got = check(call(method="GET", params=obj("pgae")), endpoint(Schemas(params=params[2:]), method="GET"))
    assert codes(got) == [("unknown-parameter", "warning", "`pgae` is not a query parameter of GET /notes "
                           "(it declares none)")]
    got = check(call(method="GET", params=obj("pgae", "page")), ep)
    assert got[0].message == "`pgae` is not a query parameter of GET /notes; did you mean `page`?"
    two = check(call(method="GET", query=("sort", "order", "page")), ep)
    assert [f.message for f in two] == ["`sort` is not a query parameter of GET /notes",
                                        "`order` is not a query parameter of GET /notes"]
    # an incomplete list of declared parameters judges no name unknown
    assert check(call(method="GET", params=obj("x", "page")), endpoint(Schemas(params=params, params_complete=False),
                                                                        method="GET")) == []
    # no parameters sent at all: not a literal set, nothing missing
    assert check(call(method="GET"), ep) == []


def test_response_reads_follow_objects_and_array_items():
    item = Shape("object", (Prop("id", STR), Prop("title", STR)))
    page = Shape("object", (Prop("items", Shape("array", items=item)), Prop("total", Shape("integer"))))
    ep = endpoint(Schemas(response=page, response_status="200"), method="GET")

    def read(*steps: str) -> Read:
        return Read(steps, tuple(Span(200 + i * 10, 200 + i * 10 + len(s)) for i, s in enumerate(steps)))

    reads = (read("items", "[]", "titel"), read("total"), read("items", "length"), read("items", "map()"),
             read("count"), read("total", "toFixed()"))
    got = check(call(method="GET", reads=reads), ep)
    assert codes(got) == [
        ("unknown-response-field", "warning",
         "`titel` is not a field of `items[]` in the response of GET /notes (200); did you mean `title`?"),
        ("unknown-response-field", "warning", "`count` is not a field of the response of GET /notes (200)"),
    ]
    assert got[0].span == Span(220, 225)


def test_nearest_prefers_the_same_name_in_another_spelling():
    assert nearest("authorName", ["author_name", "author"]) == "author_name"
    assert nearest("content", ["body", "title"]) is None
    assert nearest("titel", ["title", "tags"]) == "title"
    assert nearest("pageSize", ["page", "limit"]) is None


def test_sent_keys_a_later_key_wins_and_spreads_of_literals_count():
    keys = sent_keys(obj("a", "b", spreads=(obj("c", "a", at=400),)))
    assert [k.name for k, _ in keys.written] == ["c", "a", "b"] and keys.complete
    assert [k.span.start for k, _ in keys.written if k.name == "a"] == [100]


# --------------------------------------------------------------------------- payload


def site(callee: str, *args, kwargs=()) -> CallSite:
    return CallSite(callee, Span(0, 50), tuple(args), tuple(kwargs))


def url(text: str) -> StrVal:
    return StrVal((Lit(text),), Span(1, 2))


def test_payload_per_library():
    body = obj("title")
    params = ObjVal((), Span(5, 9), (Key("page", Span(6, 10)),))
    config = ObjVal((("params", params),), Span(3, 30), (Key("params", Span(4, 10)),))
    assert payload("axios", "post", site("axios.post", url("/n"), body, config)) == (body, params)
    assert payload("axios", "get", site("axios.get", url("/n"), config)) == (None, params)
    cfg = ObjVal((("data", body), ("params", params)), Span(3, 30), (Key("url", S), Key("data", S), Key("params", S)))
    assert payload("axios", None, site("axios", cfg)) == (body, params)
    init = ObjVal((("body", body),), Span(3, 30), (Key("method", S), Key("body", S)))
    assert payload("fetch", None, site("fetch", url("/n"), init)) == (body, None)
    ky = ObjVal((("json", body), ("searchParams", params)), Span(3, 30), (Key("json", S), Key("searchParams", S)))
    assert payload("ky", "post", site("ky.post", url("/n"), ky)) == (body, params)
    q = ObjVal((("query", params),), S, (Key("query", S),))
    of = ObjVal((("body", body), ("params", q)), S, (Key("body", S), Key("params", S)))
    assert payload("openapi-fetch", "post", site("client.POST", url("/n"), of)) == (body, params)
    assert payload("requests", "post", site("requests.post", url("/n"), kwargs=(("json", body), ("params", params)))
                   ) == (body, params)
    # something that is not an object is not judged
    assert payload("fetch", None, site("fetch", url("/n"), ObjVal((("body", url("x")),), S, (Key("body", S),)))) == (None, None)


def test_a_wrappers_body_is_its_callers_and_its_own_keys_are_not_reported_at_the_call():
    # post(path, data) => send({ ...data, kind: 'note' })
    inner = ObjVal(((SPREAD, StrVal((Arg(1),), S)),), Span(500, 530), (Key("kind", Span(520, 524)),))
    caller_body = obj("title", "bdoy")
    bound = settled(bind(inner, site("post", url("/notes"), caller_body), ("path", "data")))
    assert bound is not None and bound.span == FOREIGN
    shape = Shape("object", (Prop("title", STR, True), Prop("body", STR), Prop("kind", STR, True)), closed=True)
    got = check(call(body=bound), endpoint(Schemas(body=shape)))
    assert [(f.code, f.span) for f in got] == [("unknown-field", Span(110, 114))]
    # the caller's parameter spread (unseen) makes the keys incomplete: no missing-field
    unseen = settled(bind(inner, site("post", url("/notes"), StrVal((Arg(0),), S)), ("path", "data")))
    assert unseen is not None and check(call(body=unseen), endpoint(Schemas(body=shape))) == []


def test_reads_of_the_body_per_library_and_what_a_wrapper_returns():
    def r(*steps: str, returned: bool = False) -> Read:
        return Read(steps, tuple(Span(i, i + 1) for i in range(len(steps))), returned)

    assert body_reads("axios", (r("await", "data", "items"), r("await", "status"))) == (
        Read(("items",), (Span(2, 3),)),)
    assert body_reads("fetch", (r("await", "json()", "await", "user", "name"),)) == (
        Read(("user", "name"), (Span(3, 4), Span(4, 5))),)
    assert body_reads("requests", (r("json()", "id"),)) == (Read(("id",), (Span(1, 2),)),)
    assert body_reads("hook", (r("data", "x"),)) == ()
    assert body_reads("axios", (r("await", "data", "total", returned=True),)) == (Read(("total",), (Span(2, 3),)),)
    assert returns("axios", (r("await", "data", returned=True),)) == ()
    assert returns("axios", (r(returned=True),)) == ("data",)
    assert returns("axios", (r("await", "data", "items", returned=True),)) is None
    # a wrapper returning the body: its callers read the body directly
    assert body_reads("wrapper", (r("await", "title"),), through=()) == (Read(("title",), (Span(1, 2),)),)


def test_query_names_written_into_the_url():
    from specward.analyzers.model import Param

    assert query_names((Lit("/items?page="), Param("p"), Lit("&size=20"))) == ("page", "size")
    assert query_names((Lit("/items"),)) == ()
    assert query_names((Lit("/items?"), Param("q"))) == ()


def test_a_catch_all_route_is_not_judged():
    # `GET /{path}` (a static-file fallback: Sonarr's StaticResource) matches any one-segment path;
    # a cache-buster such as `/config.json?t=${Date.now()}` is not a parameter the code got wrong
    ep = endpoint(Schemas(params=(ParamSpec("path", "path", True),)), method="GET", path="/{path}")
    assert check(call(method="GET", query=("t",)), ep) == []
    assert check(call(method="GET", params=obj("v")), ep) == []
    # a one-segment path with a literal part, or a parameter under a literal segment, is still judged
    for path in ("/{name}.json", "/files/{path}"):
        got = check(call(method="GET", query=("t",)), endpoint(ep.schemas, method="GET", path=path))
        assert [f.code for f in got] == ["unknown-parameter"], path


def test_a_required_field_no_unknown_key_stands_for_is_missing_too():
    shape = Shape("object", (Prop("title", STR, required=True), Prop("body", STR, required=True), Prop("tag", STR)))
    ep = endpoint(Schemas(body=shape))
    # `bdoy` stands for `body`: only `title` is missing
    assert sorted(f.message for f in check(call(body=obj("bdoy", "colour")), ep)) == [
        "The request body of POST /notes requires field `title`",
        "`bdoy` is not a field of the request body of POST /notes; did you mean `body`?",
        "`colour` is not a field of the request body of POST /notes"]
