"""extract_python: per-file facts from Python source, with the real tree-sitter grammar."""

from __future__ import annotations

import textwrap

from specward.analyzers.extract.python import extract_python
from specward.analyzers.model import (
    Alt,
    Arg,
    CallSite,
    ClientDef,
    Definition,
    Env,
    FileFacts,
    FunctionDef,
    Import,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Read,
    Ref,
    Route,
    StrVal,
    Unknown,
)


def facts(src: str) -> FileFacts:
    return extract_python("app/client.py", textwrap.dedent(src))


def calls_by(f: FileFacts, callee: str) -> list[CallSite]:
    return [c for c in f.calls if c.callee == callee]


def call(f: FileFacts, callee: str) -> CallSite:
    found = calls_by(f, callee)
    assert len(found) == 1, (callee, [c.callee for c in f.calls])
    return found[0]


def expr(v) -> tuple:
    assert isinstance(v, StrVal), v
    return v.expr


def kw(c: CallSite, name: str):
    return dict(c.kwargs)[name]


def text_at(src: str, span) -> str:
    return textwrap.dedent(src).encode("utf-8")[span.start:span.end].decode("utf-8")


# --------------------------------------------------------------------------- calls


def test_plain_get_with_literal_path():
    src = """
        import requests

        resp = requests.get("/api/users")
    """
    f = facts(src)
    assert f.path == "app/client.py" and f.language == "python"
    c = call(f, "requests.get")
    assert expr(c.args[0]) == (Lit("/api/users"),)
    assert c.scope is None and c.kwargs == ()
    assert text_at(src, c.span) == 'requests.get("/api/users")'
    assert text_at(src, c.args[0].span) == '"/api/users"'


def test_request_with_method_and_parameter_url():
    f = facts("""
        import requests

        def send(url, body=None):
            return requests.request("POST", url, json=body, timeout=5)
    """)
    c = call(f, "requests.request")
    assert [expr(a) for a in c.args] == [(Lit("POST"),), (Arg(0),)]
    assert expr(kw(c, "json")) == (Arg(1),)
    assert isinstance(kw(c, "timeout"), OtherVal)
    assert c.scope == "send"
    assert f.functions[0] == FunctionDef("send", ("url", "body"), f.functions[0].span, f.functions[0].name_span)


def test_keyword_url_fstring_with_constant_and_parameter():
    f = facts("""
        import requests
        BASE = "https://api.example.com"

        def create(user_id, payload):
            requests.post(url=f"{BASE}/users/{user_id}", json=payload)

        def other():
            requests.post(url=f"{BASE}/users/{current.id}/{n + 1}")
    """)
    first, second = calls_by(f, "requests.post")
    assert first.args == ()
    assert expr(kw(first, "url")) == (Ref("BASE"), Lit("/users/"), Arg(0))
    assert expr(kw(first, "json")) == (Arg(1),)
    assert expr(kw(second, "url")) == (Ref("BASE"), Lit("/users/"), Ref("current.id"), Lit("/"), Param("n"))
    assert f.constants == (("BASE", (Lit("https://api.example.com"),)),)


def test_module_client_with_base_url_and_call():
    src = """
        import httpx
        from app.config import API

        client = httpx.Client(base_url=f"{API}/v1", timeout=10)

        def users():
            return client.get("/x")
    """
    f = facts(src)
    assert len(f.clients) == 1
    c = f.clients[0]
    assert (c.name, c.kind, c.base, c.scope) == ("client", "httpx", (Ref("API"), Lit("/v1")), None)
    assert text_at(src, c.span) == "client"
    get = call(f, "client.get")
    assert expr(get.args[0]) == (Lit("/x"),) and get.scope == "users"


def test_with_client_inside_function_has_function_scope():
    f = facts("""
        import httpx
        B = "https://api.example.com"

        def load(item_id):
            with httpx.Client(base_url=B) as c:
                return c.get(f"/items/{item_id}").json()
    """)
    assert f.clients == (ClientDef("c", "httpx", (Ref("B"),), f.clients[0].span, "load"),)
    get = call(f, "c.get")
    assert expr(get.args[0]) == (Lit("/items/"), Arg(0))
    assert get.scope == "load"


def test_async_with_async_client_and_awaited_call():
    f = facts("""
        import httpx

        class Repo:
            async def fetch(self, slug):
                async with httpx.AsyncClient() as client:
                    r = await client.get("/repos/" + slug)
                return r
    """)
    assert f.clients == (ClientDef("client", "httpx", None, f.clients[0].span, "Repo.fetch"),)
    get = call(f, "client.get")
    assert expr(get.args[0]) == (Lit("/repos/"), Arg(0))
    assert get.scope == "Repo.fetch"


def test_aiohttp_session():
    f = facts("""
        import aiohttp

        async def main(token):
            async with aiohttp.ClientSession("https://svc.local") as session:
                async with session.post("/login", json={"token": token, "n": 1, "meta": {"v": "x"}}) as resp:
                    return await resp.json()
    """)
    assert f.clients == (ClientDef("session", "aiohttp", (Lit("https://svc.local"),), f.clients[0].span, "main"),)
    post = call(f, "session.post")
    assert expr(post.args[0]) == (Lit("/login"),)
    body = kw(post, "json")
    assert isinstance(body, ObjVal)
    assert [k for k, _ in body.fields] == ["token", "meta"]
    assert expr(body.get("token")) == (Arg(0),)
    assert isinstance(body.get("meta"), ObjVal) and expr(body.get("meta").get("v")) == (Lit("x"),)


def test_self_session_and_method_wrapper():
    f = facts("""
        import requests

        class Api:
            def __init__(self, base):
                self.base = base
                self.session = requests.Session()
                self.client = httpx.Client(base_url=self.base_url)

            def _get(self, path):
                return self.session.get(self.base + path)

            @classmethod
            def make(cls, name, *args, key=None, **kwargs):
                return cls(name)
    """)
    assert [(c.name, c.kind, c.base, c.scope) for c in f.clients] == [
        ("self.session", "requests", None, "Api"),
        ("self.client", "httpx", (Ref("self.base_url"),), "Api"),
    ]
    get = call(f, "self.session.get")
    assert expr(get.args[0]) == (Ref("self.base"), Arg(0))
    assert get.scope == "Api._get"
    by_name = {fn.name: fn.params for fn in f.functions}
    assert by_name == {"Api.__init__": ("base",), "Api._get": ("path",), "Api.make": ("name",)}


def test_wrapper_calling_wrapper():
    f = facts("""
        import requests
        BASE = "https://api.example.com"

        def _get(path, params=None):
            return requests.get(BASE + path, params=params)

        def get_user(user_id):
            return _get(f"/users/{user_id}")

        def get_orders(user_id):
            return _get(path=f"/users/{user_id}/orders")
    """)
    assert expr(call(f, "requests.get").args[0]) == (Ref("BASE"), Arg(0))
    first, second = calls_by(f, "_get")
    assert expr(first.args[0]) == (Lit("/users/"), Arg(0)) and first.scope == "get_user"
    assert expr(kw(second, "path")) == (Lit("/users/"), Arg(0), Lit("/orders")) and second.scope == "get_orders"
    assert [fn.name for fn in f.functions] == ["_get", "get_user", "get_orders"]


def test_local_variable_inlining():
    f = facts("""
        import requests
        BASE = "https://api.example.com"

        def one(item_id):
            url = f"{BASE}/items/{item_id}"
            return requests.get(url)

        def twice(flag):
            url = "/a"
            if flag:
                url = "/b"
            return requests.get(url)

        def chained(item_id):
            root = BASE + "/v2"
            url = root + "/items/" + item_id
            return send(url)

        def loop(items):
            url: str = "/x"
            url += "/y"
            return requests.get(url)
    """)
    one, twice, loop = calls_by(f, "requests.get")
    assert expr(one.args[0]) == (Ref("BASE"), Lit("/items/"), Arg(0))
    assert expr(twice.args[0]) == (Ref("url"),)
    assert expr(loop.args[0]) == (Ref("url"),)
    assert expr(call(f, "send").args[0]) == (Ref("BASE"), Lit("/v2/items/"), Arg(0))


def test_format_and_percent():
    f = facts("""
        import requests

        def a(uid, kind):
            requests.get("/users/{}/x/{}".format(uid, kind.upper()))
            requests.get("/users/{id}/posts/{0}".format(7, id=uid))
            requests.get("/users/%s/items/%d" % (uid, 3))
            requests.get("%(base)s/users" % {"base": BASE})
    """)
    exprs = [expr(c.args[0]) for c in calls_by(f, "requests.get")]
    assert exprs == [
        (Lit("/users/"), Arg(0), Lit("/x/"), Param("upper")),
        (Lit("/users/"), Arg(0), Lit("/posts/"), Param("param")),
        (Lit("/users/"), Arg(0), Lit("/items/"), Param("param")),
        (Ref("BASE"), Lit("/users")),
    ]


def test_environment_values():
    f = facts("""
        import os
        from os import environ, getenv as ge
        import requests

        A = os.getenv("API_URL")
        B = os.environ["B_URL"] + "/v1"
        C = os.environ.get("C_URL", "http://localhost")
        D = environ["D_URL"]
        E = ge("E_URL")

        def go():
            requests.get(f"{os.getenv('API')}/users")
    """)
    assert dict(f.constants) == {
        "A": (Env("API_URL"),),
        "B": (Env("B_URL"), Lit("/v1")),
        "C": (Env("C_URL"),),
        "D": (Env("D_URL"),),
        "E": (Env("E_URL"),),
    }
    assert expr(call(f, "requests.get").args[0]) == (Env("API"), Lit("/users"))


def test_argument_fields_of_parameters():
    f = facts("""
        def send(opts, extra):
            return http_call(opts.path, opts["method"], extra.a.b)
    """)
    c = call(f, "http_call")
    assert [expr(a) for a in c.args] == [(Arg(0, "path"),), (Arg(0, "method"),), (Ref("extra.a.b"),)]


def test_argument_value_kinds():
    f = facts("""
        import requests

        def go(p):
            requests.get(build(p), b"/raw", 3, None, [p], p if p else "/x", {1: "a"}, r"/r\\d", "/t\\u00e9")
    """)
    args = call(f, "requests.get").args
    assert expr(args[0]) == (Unknown("call"),)
    assert all(isinstance(a, OtherVal) for a in args[1:5])
    assert expr(args[5]) == (Alt(((Arg(0),), (Lit("/x"),))),)  # either branch
    assert isinstance(args[6], OtherVal)
    assert expr(args[7]) == (Lit("/r\\d"),)
    assert expr(args[8]) == (Lit("/t\u00e9"),)


def test_calls_are_filtered():
    f = facts("""
        import requests

        def helper(x):
            print(len(x))
            log("plain message")
            show(x)
            open("data/file.txt")
            compute(other)
            return d.get("key")
    """)
    # len(x)/show(x): a parameter argument; open(...): a literal with '/'; d.get: a verb.
    assert [c.callee for c in f.calls] == ["len", "show", "open", "d.get"]


def test_constructor_alias_through_imports():
    f = facts("""
        from httpx import AsyncClient as AC
        import requests as rq

        api = AC(base_url="https://x/api")
        s = rq.Session()
        other = Client()
    """)
    assert [(c.name, c.kind, c.base) for c in f.clients] == [
        ("api", "httpx", (Lit("https://x/api"),)),
        ("s", "requests", None),
    ]


# --------------------------------------------------------------------------- imports, definitions


def test_imports_of_every_form():
    src = """
        from __future__ import annotations
        import requests
        import httpx as hx
        import a.b, c.d as cd
        from app.config import API_BASE
        from . import config
        from .config import BASE as B, OTHER
        from ..x import y
        from m import *
        from pkg import (one,
                         two as deux)
    """
    f = facts(src)
    assert [(i.module, i.name, i.local) for i in f.imports] == [
        ("requests", "*", "requests"),
        ("httpx", "*", "hx"),
        ("a.b", "*", "a.b"),
        ("c.d", "*", "cd"),
        ("app.config", "API_BASE", "API_BASE"),
        (".", "config", "config"),
        (".config", "BASE", "B"),
        (".config", "OTHER", "OTHER"),
        ("..x", "y", "y"),
        ("m", "*", "*"),
        ("pkg", "one", "one"),
        ("pkg", "two", "deux"),
    ]
    assert text_at(src, f.imports[1].span) == "httpx as hx"
    assert f.exports == ()


def test_definitions_and_functions():
    f = facts("""
        X = 1
        X = 2
        def top(a, b: int, c=3, d: str = "x", /, e=None, *rest, f, **kw):
            def inner(q):
                pass
            return inner
        class Api:
            def m(self, z):
                pass
            class Nested:
                def n(self):
                    pass
        async def later(*, only):
            pass
    """)
    assert [(d.name, d.kind) for d in f.definitions] == [
        ("X", "variable"),
        ("top", "function"),
        ("Api", "class"),
        ("Api.m", "method"),
        ("later", "function"),
    ]
    assert [(fn.name, fn.params) for fn in f.functions] == [
        ("top", ("a", "b", "c", "d", "e")),
        ("top.inner", ("q",)),
        ("Api.m", ("z",)),
        ("Api.Nested.n", ()),
        ("later", ()),
    ]
    top = f.functions[0]
    assert top.span.start < top.name_span.start < top.name_span.end < top.span.end


def test_constants_including_class_attributes():
    f = facts("""
        BASE = "https://api.example.com"
        API: str = BASE + "/v1"
        DUP = "/a"
        DUP = "/b"
        COUNT = 3
        PARTS = ("/a" "/b")
        RAW = b"/bytes"
        ALIAS = API

        class Api:
            BASE = "/api"
            USERS = BASE + "/users"
            timeout = 5

        def f():
            LOCAL = "/not-a-constant"
    """)
    assert f.constants == (
        ("BASE", (Lit("https://api.example.com"),)),
        ("API", (Ref("BASE"), Lit("/v1"))),
        ("PARTS", (Lit("/a/b"),)),
        ("ALIAS", (Ref("API"),)),
        ("Api.BASE", (Lit("/api"),)),
        ("Api.USERS", (Ref("Api.BASE"), Lit("/users"))),
    )


# --------------------------------------------------------------------------- routes


def test_fastapi_and_flask_routes():
    src = """
        from fastapi import APIRouter, FastAPI

        app = FastAPI()
        router = APIRouter(prefix="/api")

        @app.get("/users/{id}")
        def get_user(id: int): ...

        @router.post("/items/{item_id:path}")
        async def create(item_id: str): ...
    """
    f = facts(src)
    assert [(r.method, r.path, r.framework) for r in f.routes] == [
        ("GET", "/users/{id}", "fastapi"),
        ("POST", "/api/items/{item_id}", "fastapi"),
    ]
    assert text_at(src, f.routes[0].span) == '"/users/{id}"'
    # Route decorators are not call sites (APIRouter(prefix="/api") is: a '/' literal).
    assert [c.callee for c in f.calls] == ["APIRouter"]

    flask = facts("""
        from flask import Flask, Blueprint
        app = Flask(__name__)
        bp = Blueprint("users", __name__, url_prefix="/v1")

        @app.route("/users/<int:user_id>", methods=["GET", "POST"])
        def user(user_id): ...

        @bp.route("/ping")
        def ping(): ...
    """)
    assert [(r.method, r.path, r.framework) for r in flask.routes] == [
        ("GET", "/users/{user_id}", "flask"),
        ("POST", "/users/{user_id}", "flask"),
        ("GET", "/v1/ping", "flask"),
    ]


# --------------------------------------------------------------------------- robustness


def test_syntax_error_still_yields_calls():
    f = facts("""
        import requests

        def broken(:
            pass

        def good(uid):
            return requests.get(f"/users/{uid}")

        x = = 3
        requests.delete("/api/items/1")
    """)
    assert [c.callee for c in f.calls] == ["requests.get", "requests.delete"]
    get = call(f, "requests.get")
    assert expr(get.args[0]) == (Lit("/users/"), Arg(0)) and get.scope == "good"
    assert expr(call(f, "requests.delete").args[0]) == (Lit("/api/items/1"),)


def test_byte_spans_after_non_ascii_text():
    src = 'import requests\n# Grüße, 日本語 🎉\nTITLE = "café"\nrequests.get("/api/naïve")\n'
    f = extract_python("x.py", src)
    c = call(f, "requests.get")
    data = src.encode("utf-8")
    assert data[c.args[0].span.start:c.args[0].span.end].decode() == '"/api/naïve"'
    assert data[c.span.start:c.span.end].decode() == 'requests.get("/api/naïve")'
    assert expr(c.args[0]) == (Lit("/api/naïve"),)
    assert f.constants == (("TITLE", (Lit("café"),)),)


def test_deterministic_source_order():
    src = """
        import requests
        def a():
            requests.get("/1").json()
            requests.post("/2", data=requests.get("/3"))
    """
    f1, f2 = facts(src), facts(src)
    assert f1 == f2
    assert [expr(c.args[0]) for c in f1.calls] == [(Lit("/1"),), (Lit("/2"),), (Lit("/3"),)]


def test_empty_file():
    assert facts("") == FileFacts(path="app/client.py", language="python")


def test_definition_spans_are_names():
    src = "def handler(): pass\n"
    f = extract_python("x.py", src)
    assert f.definitions == (Definition("handler", "function", f.functions[0].name_span),)
    assert f.functions[0].name_span.start == 4 and f.functions[0].name_span.end == 11


def test_candidate_calls_by_callee_and_arguments():
    f = facts(
        """
        import requests
        BASE = "http://api/v1"

        def load(path, n):
            requests. get(x for x in path)
            session = make()
            session . post(timeout=3)
            log.info("loading", n)
            log.info("done", count=n)
            notify(target=f"{BASE}/done")
            sorted(items, key=len)
            render("plain text", 3)
            fetch_it(( "/a/" "b" ))
            delete()
        """
    )
    assert [c.callee for c in f.calls] == [
        "requests.get", "session.post", "log.info", "log.info", "notify", "fetch_it", "delete"]
    assert call(f, "requests.get").args == (OtherVal(call(f, "requests.get").args[0].span),)
    assert call(f, "notify").kwargs[0][1].expr == (Ref("BASE"), Lit("/done"))
    assert [c.kwargs for c in calls_by(f, "log.info")][1][0][0] == "count"


def test_non_ascii_names_and_strings():
    f = facts(
        """
        import requests
        ÜRL = "http://api/ü"

        def hole(ñ):
            requests.get(f"{ÜRL}/ä/{ñ}")
        """
    )
    c = call(f, "requests.get")
    assert c.args[0].expr == (Ref("ÜRL"), Lit("/ä/"), Arg(0))
    src = textwrap.dedent('\nimport requests\nÜRL = "http://api/ü"\n').encode()
    assert f.definitions[0] == Definition("ÜRL", "variable", f.definitions[0].span)
    assert src[f.definitions[0].span.start:f.definitions[0].span.end].decode() == "ÜRL"
    assert f.constants == (("ÜRL", (Lit("http://api/ü"),)),)


def test_facts_pickle_and_compare_like_constructed_ones():
    import pickle

    f = facts(
        """
        import httpx
        client = httpx.Client(base_url="http://x/api")

        def get_user(uid):
            return client.get(f"/users/{uid}", params={"a": "b/c"})
        """
    )
    g = pickle.loads(pickle.dumps(f))
    assert g == f and hash(g.calls) == hash(f.calls)
    c = call(f, "client.get")
    assert c.reads == (Read((), (), True),)  # `return client.get(...)`
    assert c == CallSite(c.callee, c.span, c.args, c.kwargs, c.scope, c.reads)
    assert vars(c) == {"callee": "client.get", "span": c.span, "args": c.args, "kwargs": c.kwargs,
                       "scope": "get_user", "reads": c.reads}
    assert list(vars(f)) == ["path", "language", "imports", "exports", "definitions", "functions",
                             "constants", "clients", "calls", "routes", "problems", "mounts", "classes",
                             "open_exports", "declared_modules", "all_names", "views", "data_models", "augments"]
