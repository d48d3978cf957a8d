"""Linking and matching of HTTP calls across files, on fixtures through the real pipeline."""

from __future__ import annotations

from fixtures import analyze

CONTRACT = """
//- api/openapi.yaml
openapi: 3.0.3
info: {title: t, version: "1"}
servers:
  - url: https://example.com/api
paths:
  /users:
    get: {responses: {"200": {description: ok}}}
    post: {responses: {"201": {description: ok}}}
  /users/{id}:
    get: {responses: {"200": {description: ok}}}
    delete: {responses: {"204": {description: ok}}}
  /articles/{slug}/comments:
    get: {responses: {"200": {description: ok}}}
"""


def test_fetch_literals_templates_and_query_strings():
    got = analyze(CONTRACT + """
//- web/a.ts
fetch('/api/users?limit=10');
fetch(`/api/users/${user.id}`, { method: 'DELETE' });
fetch('/users', { method: 'POST', body: '{}' });
fetch('/api/user');
fetch('/api/users/1', { method: 'PATCH' });
""")
    assert got == [
        "web/a.ts:1 GET /api/users matched",
        "web/a.ts:2 DELETE /api/users/{id} matched",
        "web/a.ts:3 POST /users matched",
        "web/a.ts:4 GET /api/user phantom",
        "web/a.ts:5 PATCH /api/users/1 method-mismatch",
    ]


def test_axios_instance_imported_from_another_file():
    got = analyze(CONTRACT + """
//- web/http.ts
import axios from 'axios';
export const api = axios.create({ baseURL: '/api' });
//- web/users.ts
import { api } from './http';
export const all = () => api.get('/users');
export const one = (id: string) => api.get(`/users/${id}/avatar`);
""")
    assert got == [
        "web/users.ts:2 GET /api/users matched",
        "web/users.ts:3 GET /api/users/{id}/avatar phantom",
    ]


def test_constants_from_another_module_and_environment_bases():
    got = analyze(CONTRACT + """
//- web/config.ts
export const API = '/api';
export const ROUTES = { users: '/users' };
//- web/b.ts
import { API, ROUTES } from './config';
fetch(API + ROUTES.users);
fetch(`${process.env.API_URL}/users/${id}`);
fetch(`${import.meta.env.VITE_API}/nope`);
""")
    assert got == [
        "web/b.ts:2 GET /api/users matched",
        "web/b.ts:3 GET /users/{id} matched",
        "web/b.ts:4 GET /nope phantom",
    ]


def test_two_level_wrappers_across_files():
    got = analyze(CONTRACT + """
//- web/request.ts
const ROOT = 'https://example.com/api';
async function send({ method, path }) {
  return fetch(ROOT + path, { method });
}
export function get(path) { return send({ method: 'GET', path }); }
export function remove(path) { return send({ method: 'DELETE', path }); }
//- web/users.ts
import { get, remove } from './request';
export const list = () => get('/users');
export const drop = (id) => remove(`/users/${id}`);
export const bad = (slug) => remove(`/articles/${slug}/comments`);
get(pathFromSomewhere);
""")
    assert got == [
        "web/users.ts:2 GET /api/users matched",
        "web/users.ts:3 DELETE /api/users/{id} matched",
        "web/users.ts:4 DELETE /api/articles/{slug}/comments method-mismatch",
        "web/users.ts:5 GET ? unresolved (the path after the base is `pathFromSomewhere`, which specward cannot resolve)",
    ]


def test_realworld_superagent_requests_object():
    got = analyze(CONTRACT + """
//- src/agent.js
import superagentPromise from 'superagent-promise';
import _superagent from 'superagent';
const superagent = superagentPromise(_superagent, global.Promise);
const API_ROOT = 'https://conduit.example.com/api';
const requests = {
  del: url => superagent.del(`${API_ROOT}${url}`),
  get: url => superagent.get(`${API_ROOT}${url}`),
};
const Users = {
  all: () => requests.get('/users'),
  del: id => requests.del(`/users/${id}`),
  nope: () => requests.get('/profiles'),
};
export default { Users };
""")
    assert got == [
        "src/agent.js:10 GET /api/users matched",
        "src/agent.js:11 DELETE /api/users/{id} matched",
        "src/agent.js:12 GET /api/profiles phantom",
    ]


def test_unresolvable_urls_are_never_guessed():
    got = analyze(CONTRACT + """
//- web/c.ts
fetch(buildUrl('users'));
fetch(someUrl);
fetch('https://api.github.com/repos');
fetch('data.json');
fetch(`${process.env.API_URL}${endpoint}`);
app.get('/not-a-call', (req, res) => res.send('express route, not a client call'));
""")
    assert [g.split(" (")[0] for g in got] == [
        "web/c.ts:1 GET ? unresolved",
        "web/c.ts:2 GET ? unresolved",
        "web/c.ts:3 GET ? unresolved",
        "web/c.ts:4 GET ? unresolved",
        "web/c.ts:5 GET ? unresolved",
    ]
    assert "external host api.github.com" in got[2]
    assert "the path after the base is `endpoint`" in got[4]


def test_python_requests_httpx_and_session_wrappers():
    got = analyze(CONTRACT + """
//- client/config.py
BASE = "http://localhost:8000/api"
//- client/api.py
import requests
import httpx
from .config import BASE


def users():
    return requests.get(f"{BASE}/users")


def one(user_id):
    with httpx.Client(base_url=BASE) as client:
        return client.get(f"/users/{user_id}")


class Api:
    def __init__(self, base):
        self.base = base
        self.session = requests.Session()

    def _get(self, path):
        return self.session.get(self.base + path)

    def orders(self):
        return self._get("/orders")
""")
    assert got == [
        "client/api.py:7 GET /api/users matched",
        "client/api.py:12 GET /api/users/{user_id} matched",
        "client/api.py:24 GET /orders phantom",
    ]


DSL = """
//- api/shop.dsl.json
{"version": "1.0", "feature": {"id": "shop", "title": "Shop", "description": "d"}, "models": [],
 "endpoints": [
  {"id": "EP-1", "method": "GET", "path": "/api/items", "description": "d", "auth": false, "successStatus": 200, "successDescription": "ok", "errors": []},
  {"id": "EP-2", "method": "GET", "path": "/api/items/:id", "description": "d", "auth": false, "successStatus": 200, "successDescription": "ok", "errors": []}
 ]}
"""


def test_static_files_and_paths_outside_the_api_namespace_are_not_phantoms():
    got = analyze(DSL + """
//- web/app.ts
fetch('/locales/en.json');
fetch('/health');
fetch('/api/items/7');
fetch('/api/itemz');
fetch(`/api/items/${id}/manual.pdf`);
""")
    assert [g.split(" (")[0] for g in got] == [
        "web/app.ts:1 GET /locales/en.json unresolved",
        "web/app.ts:2 GET /health unresolved",
        "web/app.ts:3 GET /api/items/7 matched",
        "web/app.ts:4 GET /api/itemz phantom",
        "web/app.ts:5 GET /api/items/{id}/manual.pdf unresolved",
    ]
    assert "outside the API: every declared endpoint is under /api" in got[1]


def test_hooks_and_generated_clients():
    got = analyze(CONTRACT + """
//- web/hooks.tsx
import useSWR from 'swr';
import { useRequest } from 'ahooks';
export function Users() {
  const { data } = useSWR('/api/users');
  const one = useSWR(`/api/users/${id}/avatar`);
  const svc = useRequest(loadUsers);
  return null;
}
//- web/gen.ts
export class Api {
  request({ path, method }) { return fetch(path, { method }); }
  deleteUser(id) { return this.request({ path: `/api/users/${id}`, method: 'DELETE' }); }
  patchUser(id) { return this.request({ path: `/api/users/${id}`, method: 'PATCH' }); }
}
""")
    assert got == [
        "web/gen.ts:3 DELETE /api/users/{id} matched",
        "web/gen.ts:4 PATCH /api/users/{id} method-mismatch",
        "web/hooks.tsx:4 GET /api/users matched",
        "web/hooks.tsx:5 GET /api/users/{id}/avatar phantom",
    ]


def test_parameters_in_query_strings_and_segments_are_not_wrappers():
    got = analyze(CONTRACT + """
//- web/orders.ts
export async function listUsers(limit: number) { return fetch(`/api/users?limit=${limit}`); }
export async function fileOf(name: string) { return fetch(`/api/users/x-${name}`); }
//- client/orders.py
import requests
BASE = "http://localhost/api"
def list_orders(page):
    return requests.get(f"{BASE}/orders?page={page}")
""")
    assert got == [
        "client/orders.py:4 GET /api/orders phantom",
        "web/orders.ts:1 GET /api/users matched",
        "web/orders.ts:2 GET /api/users/x-{name} matched",
    ]


def test_namespace_imports_of_constants_clients_and_wrappers():
    got = analyze(CONTRACT + """
//- web/lib.ts
import axios from 'axios';
export const API = '/api';
export const http = axios.create({ baseURL: '/api' });
export function get(path) { return fetch(API + path); }
//- web/use.ts
import * as lib from './lib';
fetch(lib.API + '/users');
lib.http.delete(`/users/${id}`);
lib.get('/userz');
""")
    assert got == [
        "web/use.ts:2 GET /api/users matched",
        "web/use.ts:3 DELETE /api/users/{id} matched",
        "web/use.ts:4 GET /api/userz phantom",
    ]
