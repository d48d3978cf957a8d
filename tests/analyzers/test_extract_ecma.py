"""Extraction of per-file facts from JavaScript / TypeScript / TSX and Vue / Svelte components,
with the real tree-sitter grammars and inline fixtures."""

from __future__ import annotations

import pytest

from specward.analyzers.extract.components import extract_component
from specward.analyzers.extract.ecma import extract_ecma
from specward.analyzers.model import (
    Alt,
    Arg,
    CallSite,
    ClientDef,
    Definition,
    Env,
    Export,
    FnVal,
    FunctionDef,
    Import,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Ref,
    Route,
    StrVal,
    Unknown,
)


def ts(src: str, grammar: str = "typescript"):
    return extract_ecma("src/app.ts", src, grammar)


def calls(facts, callee: str | None = None) -> list[CallSite]:
    return [c for c in facts.calls if callee is None or c.callee == callee]


def one(facts, callee: str) -> CallSite:
    found = calls(facts, callee)
    assert len(found) == 1, [c.callee for c in facts.calls]
    return found[0]


def url(call: CallSite, index: int = 0):
    arg = call.args[index]
    assert isinstance(arg, StrVal), arg
    return arg.expr


def spanned(src: str, span) -> str:
    return src.encode("utf-8")[span.start : span.end].decode("utf-8")


# --------------------------------------------------------------------------- fetch & friends


def test_fetch_literal_template_and_method_object():
    src = (
        "async function load(id: number) {\n"
        "  await fetch('/api/users');\n"
        "  await fetch(`/api/users/${user.id}`, { method: 'POST', headers: { 'X-A': 'b' }, body });\n"
        "}\n"
    )
    f = ts(src)
    first, second = calls(f, "fetch")
    assert url(first) == (Lit("/api/users"),)
    assert spanned(src, first.args[0].span) == "'/api/users'"
    assert spanned(src, first.span) == "fetch('/api/users')"
    assert first.scope == "load"
    assert url(second) == (Lit("/api/users/"), Ref("user.id"))
    opts = second.args[1]
    assert isinstance(opts, ObjVal)
    assert opts.get("method") == StrVal((Lit("POST"),), opts.get("method").span)
    assert spanned(src, opts.get("method").span) == "'POST'"
    headers = opts.get("headers")
    assert isinstance(headers, ObjVal) and headers.get("X-A").expr == (Lit("b"),)
    # `body` is a shorthand field referring to an unknown name: kept as a Ref
    assert opts.get("body").expr == (Ref("body"),)


def test_template_substitutions_become_params_and_args():
    src = (
        "function show(id) {\n"
        "  return fetch(`/api/items/${encodeURIComponent(slug)}/${id}/x/${page + 1}`);\n"
        "}\n"
    )
    call = one(ts(src), "fetch")
    assert url(call) == (
        Lit("/api/items/"),
        Param("slug"),
        Lit("/"),
        Arg(0),
        Lit("/x/"),
        Param("page"),
    )


def test_axios_verbs_config_call_and_request():
    src = (
        "import axios from 'axios';\n"
        "axios.get('/api/a');\n"
        "axios.post('/api/b', { name });\n"
        "axios.delete(`/api/c/${id}`);\n"
        "axios({ url: '/api/d', method: 'put' });\n"
        "axios.request({ url: '/api/e', method: 'PATCH' });\n"
    )
    f = ts(src)
    assert [c.callee for c in f.calls] == ["axios.get", "axios.post", "axios.delete", "axios", "axios.request"]
    assert url(f.calls[0]) == (Lit("/api/a"),)
    assert url(f.calls[2]) == (Lit("/api/c/"), Ref("id"))
    cfg = f.calls[3].args[0]
    assert isinstance(cfg, ObjVal)
    assert cfg.get("url").expr == (Lit("/api/d"),) and cfg.get("method").expr == (Lit("put"),)
    req = f.calls[4].args[0]
    assert req.get("method").expr == (Lit("PATCH"),)
    assert f.imports == (Import("axios", "default", "axios", f.imports[0].span, module_span=f.imports[0].module_span),)


def test_axios_create_client_and_calls_through_it():
    src = (
        "import axios from 'axios';\n"
        "import http from 'axios';\n"
        "export const api = axios.create({ baseURL: '/api/v2', timeout: 1000 });\n"
        "const other = http.create({ baseURL: `${import.meta.env.VITE_API}/v1` });\n"
        "const notAClient = Object.create(null);\n"
        "export function users() {\n"
        "  const scoped = axios.create({ baseURL: process.env.API_URL });\n"
        "  return api.get('/users');\n"
        "}\n"
    )
    f = ts(src)
    names = [(c.name, c.kind, c.base, c.scope) for c in f.clients]
    assert names == [
        ("api", "axios", (Lit("/api/v2"),), None),
        ("other", "axios", (Env("VITE_API"), Lit("/v1")), None),
        ("scoped", "axios", (Env("API_URL"),), "users"),
    ]
    assert spanned(src, f.clients[0].span) == "api"
    call = one(f, "api.get")
    assert url(call) == (Lit("/users"),) and call.scope == "users"


def test_angular_http_client():
    src = (
        "import { HttpClient } from '@angular/common/http';\n"
        "@Injectable({ providedIn: 'root' })\n"
        "export class UserService {\n"
        "  private base = '/api';\n"
        "  private other = inject(HttpClient);\n"
        "  constructor(private readonly http: HttpClient, private store: Store<State>) {}\n"
        "  list(): Observable<User[]> {\n"
        "    return this.http.get<User[]>(`${this.base}/users`);\n"
        "  }\n"
        "  remove(id: string) {\n"
        "    return this.http.delete<void>(`/api/users/${id}`).pipe(map(() => id));\n"
        "  }\n"
        "}\n"
    )
    f = ts(src)
    assert [(c.name, c.kind, c.base, c.scope) for c in f.clients] == [
        ("this.other", "angular", None, "UserService"),
        ("this.http", "angular", None, "UserService"),
    ]
    get = one(f, "this.http.get")
    assert url(get) == (Ref("this.base"), Lit("/users"))
    assert get.scope == "UserService.list"
    delete = one(f, "this.http.delete")
    assert url(delete) == (Lit("/api/users/"), Arg(0))
    assert delete.scope == "UserService.remove"
    assert FunctionDef("UserService.remove", ("id",), delete_span(f, "UserService.remove"), name_span(f, "UserService.remove")) in f.functions
    assert Definition("UserService.list", "method", name_span(f, "UserService.list")) in f.definitions


def delete_span(f, name):
    return next(fn.span for fn in f.functions if fn.name == name)


def name_span(f, name):
    return next(fn.name_span for fn in f.functions if fn.name == name)


def test_superagent_ky_ofetch_swr():
    src = (
        "import superagent from 'superagent';\n"
        "import ky from 'ky';\n"
        "import { ofetch } from 'ofetch';\n"
        "const kapi = ky.create({ prefixUrl: 'https://api.example.com/v1' });\n"
        "const kext = kapi.extend({ headers: {} });\n"
        "const oapi = ofetch.create({ baseURL: '/api' });\n"
        "superagent.post('/api/login').send({ user });\n"
        "ky.get('api/items').json();\n"
        "kapi.post('items', { json: data });\n"
        "$fetch('/api/nuxt', { method: 'POST' });\n"
        "const { data } = useSWR('/api/user', fetcher);\n"
    )
    f = ts(src)
    assert [(c.name, c.kind, c.base) for c in f.clients] == [
        ("kapi", "ky", (Lit("https://api.example.com/v1"),)),
        ("kext", "ky", (Lit("https://api.example.com/v1"),)),
        ("oapi", "ofetch", (Lit("/api"),)),
    ]
    assert url(one(f, "superagent.post")) == (Lit("/api/login"),)
    assert url(one(f, "ky.get")) == (Lit("api/items"),)
    assert url(one(f, "kapi.post")) == (Lit("items"),)
    nuxt = one(f, "$fetch")
    assert url(nuxt) == (Lit("/api/nuxt"),) and nuxt.args[1].get("method").expr == (Lit("POST"),)
    swr = one(f, "useSWR")
    assert url(swr) == (Lit("/api/user"),)
    assert isinstance(swr.args[1], StrVal) and swr.args[1].expr == (Ref("fetcher"),)


def test_generated_client_request_with_path_object():
    src = (
        "export class PetsApi extends BaseAPI {\n"
        "  async getPet(id: number, init?: RequestInit): Promise<Pet> {\n"
        "    const response = await this.request({ path: `/pets/${id}`, method: 'GET', query: q }, init);\n"
        "    return response.json();\n"
        "  }\n"
        "}\n"
    )
    call = one(ts(src), "this.request")
    cfg = call.args[0]
    assert isinstance(cfg, ObjVal)
    assert cfg.get("path").expr == (Lit("/pets/"), Arg(0))
    assert cfg.get("method").expr == (Lit("GET"),)
    assert call.scope == "PetsApi.getPet"
    assert isinstance(call.args[1], StrVal) and call.args[1].expr == (Arg(1),)


# --------------------------------------------------------------------------- wrappers


REALWORLD = """\
import superagent from 'superagent';
const API_ROOT = 'https://conduit.productionready.io/api';
const requests = {
  del: url => superagent.del(`${API_ROOT}${url}`),
  get: url => superagent.get(`${API_ROOT}${url}`),
  post: (url, body) => superagent.post(`${API_ROOT}${url}`, body),
};
const Articles = {
  del: slug => requests.del(`/articles/${slug}`),
  byAuthor: (author, page) => requests.get(`/articles?author=${encodeURIComponent(author)}&${limit(5, page)}`),
  nested: { favorite(slug) { return requests.post(`/articles/${slug}/favorite`); } },
};
export default { Articles };
"""


def test_realworld_wrapper_objects():
    f = extract_ecma("agent.js", REALWORLD, "javascript")
    fns = {fn.name: fn.params for fn in f.functions}
    assert fns == {
        "requests.del": ("url",),
        "requests.get": ("url",),
        "requests.post": ("url", "body"),
        "Articles.del": ("slug",),
        "Articles.byAuthor": ("author", "page"),
        "Articles.nested.favorite": ("slug",),
    }
    inner = one(f, "superagent.del")
    assert url(inner) == (Ref("API_ROOT"), Arg(0))
    assert inner.scope == "requests.del"
    outer = one(f, "requests.del")
    assert url(outer) == (Lit("/articles/"), Arg(0)) and outer.scope == "Articles.del"
    # query strings are kept as literal text (the linker drops them); a call the linker may
    # follow stays a call (it becomes a parameter named after its argument when it is not a
    # URL builder)
    got = url(one(f, "requests.get"))
    assert got[:3] == (Lit("/articles?author="), Param("author"), Lit("&"))
    assert (got[3].callee, got[3].name) == ("limit", "page")
    fav = one(f, "requests.post")
    assert url(fav) == (Lit("/articles/"), Arg(0), Lit("/favorite")) and fav.scope == "Articles.nested.favorite"
    assert ("API_ROOT", (Lit("https://conduit.productionready.io/api"),)) in f.constants
    req_del = next(fn for fn in f.functions if fn.name == "requests.del")
    assert spanned(REALWORLD, req_del.name_span) == "del"
    assert spanned(REALWORLD, req_del.span) == "url => superagent.del(`${API_ROOT}${url}`)"


def test_get_send_wrappers_with_destructured_parameter():
    src = (
        "const BASE = '/api';\n"
        "function get(path) { return send({ method: 'GET', path }) }\n"
        "function send({ method, path: p, headers = {} }, ...rest) {\n"
        "  const full = BASE + p;\n"
        "  return fetch(full, { method });\n"
        "}\n"
        "export const del = (path: string, opts: Opts = {}) => request(path, { ...opts, method: 'DELETE' });\n"
        "function patch(opts) { return fetch(opts.path, { method: 'PATCH' }) }\n"
    )
    f = ts(src)
    fns = {fn.name: fn.params for fn in f.functions}
    assert fns["get"] == ("path",)
    assert fns["send"] == ("{method,path,headers}", "...rest")
    assert fns["del"] == ("path", "opts")
    send = one(f, "send")
    assert send.scope == "get"
    obj = send.args[0]
    assert obj.get("method").expr == (Lit("GET"),)
    assert obj.get("path").expr == (Arg(0),)
    fetches = calls(f, "fetch")
    assert url(fetches[0]) == (Ref("BASE"), Arg(0, "path"))
    assert fetches[0].args[1].get("method").expr == (Arg(0, "method"),)
    assert fetches[0].scope == "send"
    assert url(fetches[1]) == (Arg(0, "path"),) and fetches[1].scope == "patch"
    req = one(f, "request")
    assert url(req) == (Arg(0),) and req.args[1].get("method").expr == (Lit("DELETE"),)
    # the call rule (c): an argument that is a parameter of the enclosing function
    assert ("BASE", (Lit("/api"),)) in f.constants


def test_concatenation_and_local_constants():
    src = (
        "import { API_URL } from './config';\n"
        "export async function load(id, kind) {\n"
        "  const path = '/items/' + id + '/detail';\n"
        "  let later = buildUrl(id);\n"
        "  const res = await fetch(API_URL + path + '?full=1');\n"
        "  await fetch(later);\n"
        "  await fetch(cond ? '/a' : '/b');\n"
        "  return fetch(getUrl(kind));\n"
        "}\n"
    )
    f = ts(src)
    a, b, c, d = calls(f, "fetch")
    assert url(a) == (Ref("API_URL"), Lit("/items/"), Arg(0), Lit("/detail?full=1"))
    # calls stay calls the linker may follow (URL builders); a conditional is its options
    assert [(p.callee, p.name) for p in url(b)] == [("buildUrl", "id")]
    assert url(c) == (Alt(((Lit("/a"),), (Lit("/b"),))),)
    assert [(p.callee, p.args[0].expr) for p in url(d)] == [("getUrl", (Arg(1),))]
    assert Import("./config", "API_URL", "API_URL", f.imports[0].span, module_span=f.imports[0].module_span) == f.imports[0]


def test_calls_without_url_evidence_are_skipped():
    src = (
        "function total(values, factor) {\n"
        "  console.log('total', values.length);\n"
        "  return values.map(v => v * factor).reduce((a, b) => a + b, 0);\n"
        "}\n"
        "const parts = date.split('/');\n"
        "const mod = require('./local');\n"
        "track('clicked', { label: 'x' });\n"
    )
    f = extract_ecma("a.js", src, "javascript")
    callees = [c.callee for c in f.calls]
    # `values.map(...)` has no URL evidence; `values.length` refers to a parameter of the
    # enclosing function (rule c) and split('/') has a '/' literal: the linker filters both
    assert callees == ["console.log", "date.split"]


# --------------------------------------------------------------------------- module facts


def test_imports_and_requires():
    src = (
        "import def, { a as b, c } from './m';\n"
        "import * as ns from '../ns';\n"
        "import './side-effect';\n"
        "const lib = require('lib');\n"
        "const { x, y: z } = require('pkg/sub');\n"
    )
    f = extract_ecma("a.js", src, "javascript")
    assert [(i.module, i.name, i.local) for i in f.imports] == [
        ("./m", "default", "def"),
        ("./m", "a", "b"),
        ("./m", "c", "c"),
        ("../ns", "*", "ns"),
        ("./side-effect", "", ""),
        ("lib", "default", "lib"),
        ("pkg/sub", "x", "x"),
        ("pkg/sub", "y", "z"),
    ]
    assert spanned(src, f.imports[1].span) == "a as b"


def test_es_exports():
    src = (
        "export const X = '/x', Y = 2;\n"
        "export function f() {}\n"
        "export class C {}\n"
        "const a = 1;\n"
        "export { a as b, a };\n"
        "export { r } from './r';\n"
        "export * from './all';\n"
        "export * as ns from './ns';\n"
        "export default api;\n"
    )
    f = ts(src)
    got = [(e.name, e.local, e.module) for e in f.exports]
    assert got == [
        ("X", "X", None),
        ("Y", "Y", None),
        ("f", "f", None),
        ("C", "C", None),
        ("b", "a", None),
        ("a", "a", None),
        ("r", "r", "./r"),
        ("*", "*", "./all"),
        ("ns", "*", "./ns"),
        ("default", "api", None),
    ]


def test_default_exports_of_functions_clients_and_objects():
    f1 = ts("export default function handler(req) { return fetch('/api/h') }\n")
    assert [(e.name, e.local) for e in f1.exports] == [("default", "handler")]
    assert one(f1, "fetch").scope == "handler"
    f2 = ts("export default async (url: string) => fetch(url);\n")
    assert [(e.name, e.local) for e in f2.exports] == [("default", "default")]
    assert f2.functions[0].name == "default" and f2.functions[0].params == ("url",)
    assert url(one(f2, "fetch")) == (Arg(0),)
    f3 = ts("import axios from 'axios';\nexport default axios.create({ baseURL: '/api' });\n")
    assert [(e.name, e.local) for e in f3.exports] == [("default", "default")]
    assert [(c.name, c.kind, c.base) for c in f3.clients] == [("default", "axios", (Lit("/api"),))]
    f4 = ts("export default { BASE: '/api', users: { list: '/users' } };\n")
    assert f4.constants == (("default.BASE", (Lit("/api"),)), ("default.users.list", (Lit("/users"),)))


def test_commonjs_exports():
    src = (
        "const getUser = id => fetch(`/api/users/${id}`);\n"
        "module.exports = { getUser, list: listUsers, BASE: '/api' };\n"
        "module.exports.one = one;\n"
        "exports.two = function (id) { return fetch('/api/two/' + id) };\n"
    )
    f = extract_ecma("a.cjs", src, "javascript")
    assert [(e.name, e.local) for e in f.exports] == [
        ("default", "default"),
        ("getUser", "getUser"),
        ("list", "listUsers"),
        ("BASE", "default.BASE"),
        ("one", "one"),
        ("two", "exports.two"),
    ]
    assert ("default.BASE", (Lit("/api"),)) in f.constants
    two = [c for c in f.calls if c.scope == "exports.two"]
    assert len(two) == 1 and url(two[0]) == (Lit("/api/two/"), Arg(0))
    assert {fn.name for fn in f.functions} == {"getUser", "exports.two"}
    single = extract_ecma("b.js", "module.exports = router;\n", "javascript")
    assert [(e.name, e.local) for e in single.exports] == [("default", "router")]


def test_definitions_and_constants():
    src = (
        "export const API = { BASE: '/api', users: { list: '/users', byId: (id) => `/users/${id}` } } as const;\n"
        "export enum Paths { Users = '/users', Count = 3, Items = `/items` }\n"
        "const ROOT = process.env.API_ROOT || 'http://localhost:3000';\n"
        "const LIMIT = 10;\n"
        "let mutable = '/m';\n"
        "function helper() { const inner = '/inner'; }\n"
        "class Service { run() {} }\n"
    )
    f = ts(src)
    assert f.constants == (
        ("API.BASE", (Lit("/api"),)),
        ("API.users.list", (Lit("/users"),)),
        ("Paths.Users", (Lit("/users"),)),
        ("Paths.Items", (Lit("/items"),)),
        ("ROOT", (Env("API_ROOT"),)),
    )
    assert [(d.name, d.kind) for d in f.definitions] == [
        ("API", "variable"),
        ("Paths", "variable"),
        ("ROOT", "variable"),
        ("LIMIT", "variable"),
        ("mutable", "variable"),
        ("helper", "function"),
        ("Service", "class"),
        ("Service.run", "method"),
    ]
    assert [fn.name for fn in f.functions] == ["API.users.byId", "helper", "Service.run"]
    assert f.language == "typescript"


def test_express_routes_are_routes_not_calls():
    src = (
        "const express = require('express');\n"
        "const app = express();\n"
        "const api = express.Router();\n"
        "app.get('/users/:id', (req, res) => res.json({}));\n"
        "api.post('/items/:itemId(\\\\d+)/tags', auth, createTag);\n"
        "app.listen(3000);\n"
    )
    f = extract_ecma("server.js", src, "javascript")
    assert [(r.method, r.path, r.framework) for r in f.routes] == [
        ("GET", "/users/{id}", "express"),
        ("POST", "/items/{itemId}/tags", "express"),
    ]
    assert spanned(src, f.routes[0].span) == "'/users/:id'"
    assert f.calls == ()


# --------------------------------------------------------------------------- grammars, components, robustness


def test_tsx_component_with_jsx_around_fetch():
    src = (
        "import React, { useEffect } from 'react';\n"
        "export function UserList({ teamId }: Props) {\n"
        "  useEffect(() => {\n"
        "    fetch(`/api/teams/${teamId}/users`).then(r => r.json()).then(setUsers);\n"
        "  }, [teamId]);\n"
        "  return <ul className=\"list\">{users.map(u => <li key={u.id}>{u.name}</li>)}</ul>;\n"
        "}\n"
    )
    f = extract_ecma("UserList.tsx", src, "tsx")
    call = one(f, "fetch")
    assert url(call) == (Lit("/api/teams/"), Arg(0, "teamId"), Lit("/users"))
    assert call.scope == "UserList"
    assert f.functions[0].params == ("{teamId}",)
    assert f.language == "tsx"


def test_vue_script_setup_spans_index_the_whole_file():
    src = (
        "<template>\n"
        "  <button @click=\"fetch('/ignored')\">Héllo wörld</button>\n"
        "</template>\n"
        "<!-- <script>fetch('/commented-out')</script> -->\n"
        "<script setup lang=\"ts\">\n"
        "import { ref } from 'vue'\n"
        "const users = ref<User[]>([])\n"
        "const res = await fetch(`/api/users/${id}`, { method: 'GET' })\n"
        "</script>\n"
        "<style>.a { color: red }</style>\n"
    )
    f = extract_component("Users.vue", src, "vue")
    assert f.language == "vue"
    call = one(f, "fetch")
    assert spanned(src, call.args[0].span) == "`/api/users/${id}`"
    assert spanned(src, call.span).startswith("fetch(`/api/users/")
    assert f.imports[0].module == "vue" and spanned(src, f.imports[0].span) == "ref"


def test_vue_options_api_and_svelte():
    vue = (
        "<script>\n"
        "export default {\n"
        "  methods: {\n"
        "    load(id) { return this.$http.get('/api/x/' + id) },\n"
        "  },\n"
        "}\n"
        "</script>\n"
    )
    f = extract_component("X.vue", vue, "vue")
    call = one(f, "this.$http.get")
    assert url(call) == (Lit("/api/x/"), Arg(0)) and call.scope == "default.methods.load"
    svelte = (
        "<script context=\"module\" lang=\"ts\">\n"
        "export const prerender = true;\n"
        "</script>\n"
        "<script>\n"
        "  let items = [];\n"
        "  onMount(async () => { items = await (await fetch('/api/ítems')).json(); });\n"
        "</script>\n"
        "<h1>{items.length}</h1>\n"
    )
    s = extract_component("Page.svelte", svelte, "svelte")
    assert [e.name for e in s.exports] == ["prerender"]
    call = one(s, "fetch")
    assert url(call) == (Lit("/api/ítems"),)
    assert spanned(svelte, call.args[0].span) == "'/api/ítems'"


def test_syntax_errors_still_yield_the_calls_that_parse():
    src = (
        "import axios from 'axios';\n"
        "export function a() {\n"
        "  const x = ;\n"
        "  return axios.get('/api/ok');\n"
        "}\n"
        "const broken = { a: , b: [1, 2 };\n"
        "export function b(id) {\n"
        "  axios.post(`/api/half/${id}`, { name: \n"
        "}\n"
        "fetch('/api/last')\n"
    )
    f = ts(src)
    assert [(c.callee, url(c), c.scope) for c in f.calls] == [
        ("axios.get", (Lit("/api/ok"),), "a"),
        ("fetch", (Lit("/api/last"),), None),
    ]
    assert f.imports[0].local == "axios"


def test_non_ascii_text_before_a_call_uses_byte_spans():
    src = "// ünïcödé ✓ 日本語\nconst label = 'café';\nfetch('/api/ça/été');\n"
    call = one(ts(src), "fetch")
    assert spanned(src, call.args[0].span) == "'/api/ça/été'"
    assert call.args[0].span.start == src.encode().index(b"'/api/")
    assert url(call) == (Lit("/api/ça/été"),)


def test_string_escapes_are_decoded():
    src = "fetch('/api/caf\\u00e9\\x2Fx\\'s');\nfetch(\"/a\\\"b\");\n"
    a, b = calls(ts(src), "fetch")
    assert url(a) == (Lit("/api/café/x's"),)
    assert url(b) == (Lit('/a"b'),)


def test_callee_normalization():
    src = (
        "api?.get<Item>('/api/items');\n"
        "this.client\n  .post('/api/p');\n"
        "new Client().get('/api/n');\n"
        "getClient().delete('/api/d');\n"
    )
    f = ts(src)
    assert [c.callee for c in f.calls] == ["api.get", "this.client.post", "new Client().get", "getClient().delete"]


def test_other_argument_values():
    src = "function f(id) { return axios.get('/api/x', 42, () => 1, [id]) }\n"
    call = one(ts(src), "axios.get")
    # an array literal is an object of its items (SWR key arrays), a function a value
    assert [type(a) for a in call.args] == [StrVal, OtherVal, FnVal, ObjVal]
    assert call.args[3].get("0").expr == (Arg(0),)


@pytest.mark.parametrize("grammar", ["typescript", "tsx", "javascript"])
def test_never_raises_on_garbage(grammar):
    for src in ("", "\x00\x01", "(((((", "`${", "fetch(`${`${`${", "'unterminated", "export default", "<script>"):
        f = extract_ecma("x", src, grammar)
        assert f.path == "x" and f.language == grammar
    assert extract_component("x.vue", "<script lang=\"ts\">fetch(", "vue").language == "vue"


def test_output_is_deterministic():
    a = extract_ecma("agent.js", REALWORLD, "javascript")
    b = extract_ecma("agent.js", REALWORLD, "javascript")
    assert a == b
    starts = [c.span.start for c in a.calls]
    assert starts == sorted(starts)


def test_object_literal_roots_nested_members_and_several_roots():
    src = (
        "const helper = { x: '/not-a-root' };\n"
        "function f() { const inner = { path: '/inner' }; return inner; }\n"
        "export const api = { base: '/api', users: { list: '/api/users', get: (id) => fetch(`/u/${id}`) } };\n"
        "export default { health: '/health', ping() { return fetch('/ping'); } };\n"
    )
    f = ts(src)
    consts = dict(f.constants)
    assert consts["helper.x"] == (Lit("/not-a-root"),)
    assert consts["api.base"] == (Lit("/api"),)
    assert consts["api.users.list"] == (Lit("/api/users"),)
    assert consts["default.health"] == (Lit("/health"),)
    assert not any(name.startswith("inner") for name in consts)
    names = {fn.name for fn in f.functions}
    assert {"f", "api.users.get", "default.ping"} <= names
    get = [c for c in f.calls if c.scope == "api.users.get"][0]
    assert url(get) == (Lit("/u/"), Arg(0, None))
