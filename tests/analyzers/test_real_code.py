"""Shapes of real applications' API code: one general rule per test, each with a small
fixture written in the style of the code it comes from (Angular services, SvelteKit and
Nuxt apps, React hooks, generated SDKs, Python API clients)."""

from __future__ import annotations

from fixtures import analyze

SHOP = """
//- api/openapi.yaml
openapi: 3.0.3
info: {title: shop, version: "1"}
servers:
  - url: https://shop.example.com/api
paths:
  /session/start:
    post: {responses: {"200": {description: ok}}}
  /session/end:
    post: {responses: {"200": {description: ok}}}
  /products:
    get: {responses: {"200": {description: ok}}}
  /products/{id}:
    get: {responses: {"200": {description: ok}}}
    put: {responses: {"200": {description: ok}}}
  /items/{id}/notes:
    get: {responses: {"200": {description: ok}}}
    post: {responses: {"201": {description: ok}}}
  /posts:
    get: {responses: {"200": {description: ok}}}
  /posts/mine:
    get: {responses: {"200": {description: ok}}}
  /users/me:
    get: {responses: {"200": {description: ok}}}
  /users/{id}:
    delete: {responses: {"204": {description: ok}}}
  /v2/catalog/export:
    get: {responses: {"200": {description: ok}}}
"""


def test_a_client_whose_base_an_interceptor_adds_is_judged_in_the_frame_its_calls_match():
    got = analyze(SHOP + """
//- web/src/app/core/api-prefix.interceptor.ts
import { HttpInterceptorFn } from '@angular/common/http';
import { environment } from '../../environments/environment';

export const apiPrefixInterceptor: HttpInterceptorFn = (req, next) =>
  next(req.clone({ url: environment.apiUrl + req.url }));
//- web/src/app/session/session.service.ts
import { Injectable } from '@angular/core';
import { HttpClient } from '@angular/common/http';

@Injectable({ providedIn: 'root' })
export class SessionService {
  constructor(private readonly http: HttpClient) {}

  start(code: string) {
    return this.http.post<{ token: string }>('/session/start', { code });
  }

  stop() {
    return this.http.post<void>('/session/end', {});
  }

  resume() {
    return this.http.post<void>('/session/begin', {});
  }
}
""")
    assert got == [
        "web/src/app/session/session.service.ts:9 POST /session/start matched",
        "web/src/app/session/session.service.ts:13 POST /session/end matched",
        "web/src/app/session/session.service.ts:17 POST /session/begin phantom",
    ]


def test_a_generated_client_with_its_base_url_as_a_constructor_option():
    got = analyze(SHOP + """
//- sdk/src/client.ts
export interface ClientOptions { baseUrl: string; token?: string }

export class ShopClient {
  constructor(private readonly options: ClientOptions) {}

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.options.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json() as Promise<T>;
  }

  listProducts() { return this.request('GET', '/products'); }
  getProduct(id: string) { return this.request('GET', `/products/${id}`); }
  startSession() { return this.request('POST', '/session/start'); }
  beginSession() { return this.request('POST', '/session/begin'); }
}
""")
    assert got == [
        "sdk/src/client.ts:15 GET /products matched",
        "sdk/src/client.ts:16 GET /products/{id} matched",
        "sdk/src/client.ts:17 POST /session/start matched",
        "sdk/src/client.ts:18 POST /session/begin phantom",
    ]


def test_the_method_through_a_destructured_options_object():
    got = analyze(SHOP + """
//- web/src/lib/http.js
const base = 'https://shop.example.com/api';

async function send({ method, path, data, token }) {
  const opts = { method, headers: {} };
  if (data) opts.body = JSON.stringify(data);
  const res = await fetch(`${base}/${path}`, { method, headers: token ? { authorization: token } : {} });
  return res.json();
}

export const get = (path, token) => send({ method: 'GET', path, token });
export const post = (path, data, token) => send({ method: 'POST', path, data, token });
export const put = (path, data, token) => send({ path, data, token, method: 'PUT' });
//- web/src/routes/items.js
import * as api from '../lib/http.js';

export const notes = (id) => api.get(`items/${id}/notes`);
export const addNote = (id, text) => api.post(`items/${id}/notes`, { text });
export const rename = (id, name) => api.put(`products/${id}`, { name });
export const drop = (id) => api.put(`items/${id}/notes`, {});
""")
    assert got == [
        "web/src/routes/items.js:3 GET /api/items/{id}/notes matched",
        "web/src/routes/items.js:4 POST /api/items/{id}/notes matched",
        "web/src/routes/items.js:5 PUT /api/products/{id} matched",
        "web/src/routes/items.js:6 PUT /api/items/{id}/notes method-mismatch",
    ]


def test_a_method_from_an_options_rest_defaults_to_get():
    got = analyze(SHOP + """
//- src/api/fetchJson.ts
export interface FetchOptions extends RequestInit { path: string; body?: unknown }

export default async function fetchJson<T>({ path, body, ...options }: FetchOptions): Promise<T> {
  const res = await fetch(path, { ...options, body: body ? JSON.stringify(body) : undefined });
  return (await res.json()) as T;
}
//- src/api/products.ts
import fetchJson from './fetchJson';

export const products = () => fetchJson({ path: '/api/products' });
export const save = (id: string, body: unknown) => fetchJson({ path: `/api/products/${id}`, method: 'PUT', body });
export const remove = (id: string) => fetchJson({ path: `/api/products/${id}`, method: 'DELETE' });
""")
    assert got == [
        "src/api/products.ts:3 GET /api/products matched",
        "src/api/products.ts:4 PUT /api/products/{id} matched",
        "src/api/products.ts:5 DELETE /api/products/{id} method-mismatch",
    ]


def test_conditional_urls_are_each_candidate_path():
    got = analyze(SHOP + """
//- web/src/posts.ts
export function posts(scope: 'all' | 'mine') {
  return fetch('/api/posts' + (scope === 'mine' ? '/mine' : ''));
}
export function feed(cond: boolean) {
  return fetch(cond ? '/api/posts' : '/api/postz');
}
export function notes(id?: string) {
  return fetch(`/api/items/${id ?? ''}/notes`);
}
export function me() {
  return fetch(localStorage.getItem('profileUrl') ?? '/api/users/me');
}
export function nested(a: boolean, b: boolean) {
  return fetch(a ? (b ? '/api/posts' : '/api/posts/mine') : '/api/postx');
}
""")
    assert got == [
        "web/src/posts.ts:2 GET /api/posts/mine matched",
        "web/src/posts.ts:5 GET /api/postz phantom",
        "web/src/posts.ts:8 GET /api/items/{id}/notes matched",
        "web/src/posts.ts:11 GET /api/users/me unresolved (one branch of the conditional URL cannot be "
        "resolved (computed by localStorage.getItem()))",
        # a conditional inside a branch: its candidates join the others (this raised before)
        "web/src/posts.ts:14 GET /api/postx phantom",
    ]


def test_type_arguments_never_hide_a_call():
    got = analyze(SHOP + """
//- web/src/products.ts
import axios from 'axios';

const client = axios.create({ baseURL: '/api' });

export async function load(id: string) {
  const one = await client.get<{ id: string; name: string }>(`/products/${id}`);
  const all = client.get<Array<{ id: string }>>('/products');
  const started = await axios.post<SessionStart>('/api/session/start');
  const nested = await client.get<Map<string, Array<Record<string, number>>>>(`/products/${id}/nope`);
  return [one, all, started, nested];
}
""")
    assert got == [
        "web/src/products.ts:6 GET /api/products/{id} matched",
        "web/src/products.ts:7 GET /api/products matched",
        "web/src/products.ts:8 POST /api/session/start matched",
        "web/src/products.ts:9 GET /api/products/{id}/nope phantom",
    ]


def test_absolute_urls_to_the_apis_own_host_are_checked():
    got = analyze(SHOP + """
//- scripts/export_catalog.py
import requests

BASE_URL = "https://shop.example.com/api"


def export():
    requests.get("https://shop.example.com/api/v2/catalog/export", timeout=30)
    requests.get("https://shop.example.com/api/v2/catalog/exports", timeout=30)
    requests.get("https://status.othervendor.io/v2/summary.json")
""")
    assert got == [
        "scripts/export_catalog.py:7 GET /api/v2/catalog/export matched",
        "scripts/export_catalog.py:8 GET /api/v2/catalog/exports phantom",
        "scripts/export_catalog.py:9 GET ? unresolved (external host status.othervendor.io)",
    ]


ASPNET = """
//- src/Api/openapi.json
{"openapi": "3.0.1", "info": {"title": "Library", "version": "1"},
 "paths": {
  "/api/Series": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/api/Series/{seriesId}": {"get": {"responses": {"200": {"description": "ok"}}},
                              "delete": {"responses": {"200": {"description": "ok"}}}},
  "/api/Episode/{id}": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/api/Calendar": {"get": {"responses": {"200": {"description": "ok"}}}}
 }}
"""


def test_case_of_aspnet_routes_and_a_base_that_cannot_be_seen():
    got = analyze(ASPNET + """
//- client/src/app/series/series.service.ts
import { HttpClient } from '@angular/common/http';
import { environment } from '../../environments/environment';

export class SeriesService {
  private baseUrl = environment.apiUrl;

  constructor(private http: HttpClient) {}

  all() { return this.http.get(this.baseUrl + 'series'); }
  one(id: number) { return this.http.get(this.baseUrl + 'series/' + id); }
  remove(id: number) { return this.http.delete(this.baseUrl + 'series/' + id); }
  episode(id: number) { return this.http.get(this.baseUrl + 'episode/' + id); }
  calendar() { return this.http.get(this.baseUrl + 'calendar'); }
  wanted() { return this.http.get(this.baseUrl + 'wanted/missing'); }
}
""")
    assert got == [
        "client/src/app/series/series.service.ts:9 GET /series matched",
        "client/src/app/series/series.service.ts:10 GET /series/{id} matched",
        "client/src/app/series/series.service.ts:11 DELETE /series/{id} matched",
        "client/src/app/series/series.service.ts:12 GET /episode/{id} matched",
        "client/src/app/series/series.service.ts:13 GET /calendar matched",
        "client/src/app/series/series.service.ts:14 GET /wanted/missing phantom",
    ]


def test_case_sensitive_backends_make_a_case_only_match_a_phantom():
    fixture = ASPNET + """
//- web/series.ts
export const all = () => fetch('/api/series');
export const one = (id: number) => fetch(`/api/Series/${id}`);
"""
    assert analyze(fixture) == ["web/series.ts:1 GET /api/series matched", "web/series.ts:2 GET /api/Series/{id} matched"]
    assert analyze(fixture, case_sensitive=True) == [
        "web/series.ts:1 GET /api/series phantom", "web/series.ts:2 GET /api/Series/{id} matched"]


def test_a_weak_match_never_hides_a_method_mismatch():
    got = analyze(SHOP + """
//- web/users.ts
export const me = () => fetch('/api/users/me');
export const byId = (id: string) => fetch(`/api/users/${id}`);
export const drop = (id: string) => fetch(`/api/users/${id}`, { method: 'DELETE' });
""")
    assert got == [
        "web/users.ts:1 GET /api/users/me matched",
        "web/users.ts:2 GET /api/users/{id} method-mismatch",
        "web/users.ts:3 DELETE /api/users/{id} matched",
    ]


TASKS = """
//- api/openapi.yaml
openapi: 3.0.3
info: {title: tasks, version: "1"}
servers:
  - url: https://tasks.example.com/api/v1
paths:
  /projects:
    get: {responses: {"200": {description: ok}}}
  /projects/{projectId}:
    get: {responses: {"200": {description: ok}}}
  /projects/{projectId}/tasks:
    get: {responses: {"200": {description: ok}}}
    post: {responses: {"201": {description: ok}}}
  /tasks/{id}:
    get: {responses: {"200": {description: ok}}}
    patch: {responses: {"200": {description: ok}}}
  /reports/list:
    get: {responses: {"200": {description: ok}}}
"""


def test_a_python_sdk_client_passed_in_with_paths_relative_to_its_base():
    got = analyze(TASKS + """
//- sdk/tasks_sdk/client.py
from __future__ import annotations

import httpx


class TasksClient:
    def __init__(self, client: httpx.Client | None = None, *, token: str = "") -> None:
        self._client = client or httpx.Client(base_url="https://tasks.example.com/api/v1/")
        self._token = token

    def projects(self) -> list[dict]:
        return self._client.get("projects").json()

    def project_tasks(self, project_id: str) -> list[dict]:
        return self._client.get(f"projects/{project_id}/tasks").json()

    def archive(self, project_id: str) -> None:
        self._client.post(f"projects/{project_id}/archive")
""")
    assert got == [
        "sdk/tasks_sdk/client.py:12 GET /api/v1/projects matched",
        "sdk/tasks_sdk/client.py:15 GET /api/v1/projects/{project_id}/tasks matched",
        "sdk/tasks_sdk/client.py:18 POST /api/v1/projects/{project_id}/archive phantom",
    ]


def test_a_client_typed_as_a_parameter_has_an_unknown_base():
    got = analyze(TASKS + """
//- web/src/api/tasks.ts
import type { AxiosInstance } from 'axios';

export async function loadTasks(api: AxiosInstance, projectId: string) {
  const { data } = await api.get(`/projects/${projectId}/tasks`);
  return data;
}

export const loadProject = (api: AxiosInstance, id: string) => api.get(`/projects/${id}`);
export const loadReport = (api: AxiosInstance) => api.get('/reports/weekly');
""")
    assert got == [
        "web/src/api/tasks.ts:4 GET /projects/{projectId}/tasks matched",
        "web/src/api/tasks.ts:8 GET /projects/{id} matched",
        "web/src/api/tasks.ts:9 GET /reports/weekly phantom",
    ]


def test_a_client_built_by_a_factory_function_in_another_module():
    got = analyze(TASKS + """
//- web/src/http/factory.ts
import axios from 'axios';

export function httpFactory(token?: string) {
  return axios.create({
    baseURL: 'https://tasks.example.com/api/v1',
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

export const makeClient = () => axios.create({ baseURL: '/api/v1' });
//- web/src/projects.ts
import { httpFactory, makeClient } from './http/factory';

const http = httpFactory();
const apiClient = makeClient();

export const projects = () => http.get('/projects');
export const project = (id: string) => apiClient.get(`/projects/${id}`);
export const members = (id: string) => http.get(`/projects/${id}/members`);
""")
    assert got == [
        "web/src/projects.ts:6 GET /api/v1/projects matched",
        "web/src/projects.ts:7 GET /api/v1/projects/{id} matched",
        "web/src/projects.ts:8 GET /api/v1/projects/{id}/members phantom",
    ]


def test_methods_inherited_from_a_base_service_in_another_file():
    got = analyze(TASKS + """
//- web/src/services/base.service.ts
import axios, { AxiosInstance } from 'axios';

export abstract class BaseService {
  protected http: AxiosInstance = axios.create({ baseURL: '/api/v1' });

  protected get<T>(path: string) {
    return this.http.get<T>(path);
  }

  protected post<T>(path: string, body: unknown) {
    return this.http.post<T>(path, body);
  }
}
//- web/src/services/tasks.service.ts
import { BaseService } from './base.service';

export class TaskService extends BaseService {
  task(id: string) { return this.get(`/tasks/${id}`); }
  create(projectId: string, title: string) { return this.post(`/projects/${projectId}/tasks`, { title }); }
  comment(id: string, text: string) { return this.post(`/tasks/${id}/comments`, { text }); }
}
""")
    assert got == [
        "web/src/services/tasks.service.ts:4 GET /api/v1/tasks/{id} matched",
        "web/src/services/tasks.service.ts:5 POST /api/v1/projects/{projectId}/tasks matched",
        "web/src/services/tasks.service.ts:6 POST /api/v1/tasks/{id}/comments phantom",
    ]


def test_url_builders_and_route_helpers():
    got = analyze(TASKS + """
//- web/src/lib/routes.ts
import { config } from './config';

const API = '/api/v1';

export function route(path: string, query?: Record<string, string>) {
  return `${API}${path}${query ? '?' + new URLSearchParams(query) : ''}`;
}

export const apiUrl = (path: string) => config.get('apiUrl') + path;
//- web/src/lib/config.ts
export const config = new Map<string, string>();
//- web/src/tasks.ts
import { route, apiUrl } from './lib/routes';

export class Reports {
  urlPrefix = '/api/v1';

  list(query: string) { return fetch(this.urlPrefix + '/reports/list' + query); }
  weekly() { return fetch(this.urlPrefix + '/reports/weekly'); }
}

export const task = (id: string) => fetch(route(`/tasks/${id}`, { expand: 'owner' }));
export const nope = () => fetch(route('/tasks'));
export const projects = () => fetch(apiUrl('/projects'));
""")
    assert got == [
        "web/src/tasks.ts:6 GET /api/v1/reports/list matched",
        "web/src/tasks.ts:7 GET /api/v1/reports/weekly phantom",
        "web/src/tasks.ts:10 GET /api/v1/tasks/{id} matched",
        "web/src/tasks.ts:11 GET /api/v1/tasks phantom",
        "web/src/tasks.ts:12 GET /projects matched",
    ]


def test_a_contract_that_cannot_be_read_judges_no_call():
    got = analyze(SHOP + """
//- billing/openapi.yaml
openapi: 3.0.3
info: {title: billing, version: "1"
paths:
  /invoices:
    get: {responses: {"200": {description: ok}}}
//- web/billing.ts
export const products = () => fetch('/api/products');
export const invoices = () => fetch('/api/invoices');
export const wrong = (id: string) => fetch(`/api/products/${id}`, { method: 'DELETE' });
""")
    assert got == [
        "web/billing.ts:1 GET /api/products matched",
        "web/billing.ts:2 GET /api/invoices unresolved (contract billing/openapi.yaml could not be read)",
        "web/billing.ts:3 DELETE /api/products/{id} unresolved (contract billing/openapi.yaml could not be read)",
    ]


BOOKMARKS = """
//- packages/api/openapi.json
{"openapi": "3.0.0", "info": {"title": "bookmarks", "version": "1"},
 "servers": [{"url": "{address}/api/v1", "variables": {"address": {"default": "https://bm.example.org"}}}],
 "paths": {
  "/bookmarks": {"get": {"responses": {"200": {"description": "ok"}}}, "post": {"responses": {"201": {"description": "ok"}}}},
  "/bookmarks/{bookmarkId}": {"get": {"responses": {"200": {"description": "ok"}}},
                              "patch": {"responses": {"200": {"description": "ok"}}},
                              "delete": {"responses": {"204": {"description": "ok"}}}},
  "/bookmarks/{bookmarkId}/tags": {"post": {"responses": {"200": {"description": "ok"}}}},
  "/tags": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/users/me": {"get": {"responses": {"200": {"description": "ok"}}}}
 }}
"""


def test_openapi_fetch_clients_made_through_an_alias_in_a_workspace_package():
    got = analyze(BOOKMARKS + """
//- packages/sdk/src/index.ts
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export const createBookmarksClient = createClient<paths>;
//- apps/cli/src/client.ts
import { createBookmarksClient } from '../../../packages/sdk/src/index';

export const client = createBookmarksClient({ baseUrl: `${process.env.BM_ADDRESS}/api/v1` });
//- apps/cli/src/commands.ts
import { client } from './client';

export async function show(id: string) {
  const { data } = await client.GET('/bookmarks/{bookmarkId}', { params: { path: { bookmarkId: id } } });
  return data;
}
export const tag = (id: string) => client.POST(`/bookmarks/{bookmarkId}/tags`, { params: { path: { bookmarkId: id } } });
export const untag = (id: string) => client.DELETE('/bookmarks/{bookmarkId}/tags', {});
export const archive = (id: string) => client.POST('/bookmarks/{bookmarkId}/archive', {});
""")
    assert got == [
        "apps/cli/src/commands.ts:4 GET /api/v1/bookmarks/{bookmarkId} matched",
        "apps/cli/src/commands.ts:7 POST /api/v1/bookmarks/{bookmarkId}/tags matched",
        "apps/cli/src/commands.ts:8 DELETE /api/v1/bookmarks/{bookmarkId}/tags method-mismatch",
        "apps/cli/src/commands.ts:9 POST /api/v1/bookmarks/{bookmarkId}/archive phantom",
    ]


def test_openapi_fetch_style_calls_on_a_client_made_elsewhere():
    got = analyze(BOOKMARKS + """
//- e2e/tests/tags.test.ts
import { createBookmarksClient } from '@bm/sdk';

describe('tags', () => {
  let client: ReturnType<typeof createBookmarksClient>;
  beforeEach(() => {
    client = createBookmarksClient({ baseUrl: 'http://localhost:3000/api/v1/' });
  });
  it('lists tags', async () => {
    const { data } = await client.GET('/tags');
    const { data: me } = await client.GET('/users/me');
    const { error } = await client.GET('/tags/{tagId}/bookmarks', { params: { path: { tagId: 'x' } } });
  });
});
""")
    assert got == [
        "e2e/tests/tags.test.ts:9 GET /tags matched",
        "e2e/tests/tags.test.ts:10 GET /users/me matched",
        "e2e/tests/tags.test.ts:11 GET /tags/{tagId}/bookmarks phantom",
    ]


def test_openapi_react_query_and_awaited_axios_with_type_arguments():
    got = analyze(BOOKMARKS + """
//- web/src/api.ts
import createFetchClient from 'openapi-fetch';
import createClient from 'openapi-react-query';
import axios from 'axios';
import type { paths } from './schema';

const fetchClient = createFetchClient<paths>({ baseUrl: '/api/v1' });
export const $api = createClient(fetchClient);

export function useBookmark(id: string) {
  return $api.useQuery('get', '/bookmarks/{bookmarkId}', { params: { path: { bookmarkId: id } } });
}
export function useRemove() {
  return $api.useMutation('delete', '/bookmarks/{bookmarkId}');
}
export function useRename() {
  return $api.useMutation('put', '/bookmarks/{bookmarkId}');
}
export async function me() {
  const { data } = await axios.get<{ name: string }>('/api/v1/users/me');
  return data;
}
""")
    assert got == [
        "web/src/api.ts:10 GET /bookmarks/{bookmarkId} matched",
        "web/src/api.ts:13 DELETE /bookmarks/{bookmarkId} matched",
        "web/src/api.ts:16 PUT /bookmarks/{bookmarkId} method-mismatch",
        "web/src/api.ts:19 GET /api/v1/users/me matched",
    ]


def test_swr_keys_conditional_arrays_and_functions():
    got = analyze(BOOKMARKS + """
//- web/src/hooks.ts
import useSWR from 'swr';

export function useMe(user?: { id: string }) {
  return useSWR(user ? '/api/v1/users/me' : null, fetcher);
}
export function useTags(token: string) {
  return useSWR(['/api/v1/tags', token], ([url, t]) => fetcher(url, t));
}
export function useBookmark(id?: string) {
  return useSWR(() => (id ? `/api/v1/bookmarks/${id}` : null), fetcher);
}
export function useLists() {
  return useSWR('/api/v1/lists', fetcher);
}
""")
    assert got == [
        "web/src/hooks.ts:4 GET /api/v1/users/me matched",
        "web/src/hooks.ts:7 GET /api/v1/tags matched",
        "web/src/hooks.ts:10 GET /api/v1/bookmarks/{id} matched",
        "web/src/hooks.ts:13 GET /api/v1/lists phantom",
    ]


def test_nuxt_fetch_helpers_with_a_base_url_option():
    got = analyze(SHOP + """
//- app/composables/useProducts.ts
export const useProducts = () => useFetch('/products', { baseURL: '/api' });
export const useProduct = (id: string) => useFetch(`/products/${id}`, { baseURL: '/api', method: 'PUT' });
export const startSession = () => $fetch('/session/start', { baseURL: '/api', method: 'POST' });
export const endSession = () => $fetch('/session/stop', { method: 'POST', baseURL: '/api' });
""")
    assert got == [
        "app/composables/useProducts.ts:1 GET /api/products matched",
        "app/composables/useProducts.ts:2 PUT /api/products/{id} matched",
        "app/composables/useProducts.ts:3 POST /api/session/start matched",
        "app/composables/useProducts.ts:4 POST /api/session/stop phantom",
    ]


def test_ky_instances_with_a_prefix_url_and_extended_ones():
    got = analyze(SHOP + """
//- web/src/ky.ts
import ky from 'ky';

export const api = ky.create({ prefixUrl: 'https://shop.example.com/api' });
export const authed = api.extend({ headers: { authorization: 'token' } });
//- web/src/products.ts
import { api, authed } from './ky';

export const products = () => api.get('products').json();
export const product = (id: string) => authed.get(`products/${id}`).json();
export const save = (id: string) => authed.put(`products/${id}`, { json: {} }).json();
export const stock = (id: string) => authed.get(`products/${id}/stock`).json();
""")
    assert got == [
        "web/src/products.ts:3 GET /api/products matched",
        "web/src/products.ts:4 GET /api/products/{id} matched",
        "web/src/products.ts:5 PUT /api/products/{id} matched",
        "web/src/products.ts:6 GET /api/products/{id}/stock phantom",
    ]


def test_axios_defaults_set_in_another_module():
    got = analyze(SHOP + """
//- web/src/main.ts
import axios from 'axios';

axios.defaults.baseURL = import.meta.env.VITE_API_URL;
//- web/src/store/products.ts
import axios from 'axios';

export const products = () => axios.get('/products');
export const product = (id: string) => axios.get(`/products/${id}`);
export const notes = (id: string) => axios.get(`/items/${id}/notes`);
export const stock = (id: string) => axios.get(`/products/${id}/stock`);
""")
    assert got == [
        "web/src/store/products.ts:3 GET /products matched",
        "web/src/store/products.ts:4 GET /products/{id} matched",
        "web/src/store/products.ts:5 GET /items/{id}/notes matched",
        "web/src/store/products.ts:6 GET /products/{id}/stock phantom",
    ]


def test_new_url_and_url_search_params():
    got = analyze(SHOP + """
//- web/src/search.ts
const API_BASE = 'https://shop.example.com/api/';

export async function search(q: string) {
  const url = new URL('products', API_BASE);
  url.searchParams.set('q', q);
  return fetch(url);
}
export async function byTag(tag: string) {
  const params = new URLSearchParams({ tag });
  return fetch('/api/products?' + params.toString());
}
export async function notes(id: string) {
  const params = new URLSearchParams({ limit: '10' });
  return fetch(`/api/items/${id}/notes?${params}`);
}
export const broken = () => fetch(new URL('/api/productz', window.location.origin));
""")
    assert got == [
        "web/src/search.ts:6 GET /api/products matched",
        "web/src/search.ts:10 GET /api/products matched",
        "web/src/search.ts:14 GET /api/items/{id}/notes matched",
        "web/src/search.ts:16 GET /api/productz phantom",
    ]


def test_rtk_query_endpoints_under_a_fetch_base_query():
    got = analyze(SHOP + """
//- web/src/services/shopApi.ts
import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

export const shopApi = createApi({
  reducerPath: 'shopApi',
  baseQuery: fetchBaseQuery({ baseUrl: '/api' }),
  endpoints: (build) => ({
    products: build.query({ query: () => '/products' }),
    product: build.query({ query: (id) => `/products/${id}` }),
    saveProduct: build.mutation({ query: ({ id, ...body }) => ({ url: `/products/${id}`, method: 'PUT', body }) }),
    removeProduct: build.mutation({ query: (id) => ({ url: `/products/${id}`, method: 'DELETE' }) }),
    wishlist: build.query({ query: () => 'wishlist' }),
  }),
});
""")
    assert got == [
        "web/src/services/shopApi.ts:7 GET /api/products matched",
        "web/src/services/shopApi.ts:8 GET /api/products/{id} matched",
        "web/src/services/shopApi.ts:9 PUT /api/products/{id} matched",
        "web/src/services/shopApi.ts:10 DELETE /api/products/{id} method-mismatch",
        "web/src/services/shopApi.ts:11 GET /api/wishlist phantom",
    ]


def test_tanstack_query_functions_calling_a_wrapper():
    got = analyze(SHOP + """
//- web/src/api/client.ts
export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`/api${path}`, { credentials: 'include' });
  if (!res.ok) throw new Error(res.statusText);
  return res.json();
}
//- web/src/queries.ts
import { useQuery, queryOptions } from '@tanstack/react-query';
import { getJson } from './api/client';

export const productsQuery = queryOptions({ queryKey: ['products'], queryFn: () => getJson('/products') });
export const useProduct = (id: string) =>
  useQuery({ queryKey: ['product', id], queryFn: async () => getJson(`/products/${id}`) });
export const useStock = (id: string) => useQuery({ queryKey: ['stock', id], queryFn: () => getJson(`/stock/${id}`) });
""")
    assert got == [
        "web/src/queries.ts:4 GET /api/products matched",
        "web/src/queries.ts:6 GET /api/products/{id} matched",
        "web/src/queries.ts:7 GET /api/stock/{id} phantom",
    ]


PETS = """
//- api/swagger.json
{"swagger": "2.0", "info": {"title": "pets", "version": "1"}, "basePath": "/v2",
 "paths": {
  "/pet": {"post": {"responses": {"200": {"description": "ok"}}}, "put": {"responses": {"200": {"description": "ok"}}}},
  "/pet/{petId}": {"get": {"responses": {"200": {"description": "ok"}}}, "delete": {"responses": {"200": {"description": "ok"}}}},
  "/pet/findByStatus": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/store/order/{orderId}": {"get": {"responses": {"200": {"description": "ok"}}}}
 }}
"""


def test_generated_clients_of_the_usual_openapi_generators():
    got = analyze(PETS + """
//- gen/codegen/services/PetService.ts
import { OpenAPI } from '../core/OpenAPI';
import { request as __request } from '../core/request';

export class PetService {
  public static getPetById(petId: number) {
    return __request(OpenAPI, { method: 'GET', url: '/v2/pet/{petId}', path: { 'petId': petId } });
  }
  public static updatePetWithForm(petId: number) {
    return __request(OpenAPI, { method: 'POST', url: '/v2/pet/{petId}', path: { 'petId': petId } });
  }
}
//- gen/fetch/apis/StoreApi.ts
import * as runtime from '../runtime';

export class StoreApi extends runtime.BaseAPI {
  async getOrderByIdRaw(requestParameters: { orderId: number }) {
    const response = await this.request({
      path: `/store/order/{orderId}`.replace(`{${"orderId"}}`, encodeURIComponent(String(requestParameters['orderId']))),
      method: 'GET',
      headers: {},
    });
    return response;
  }
  async deleteOrderRaw(requestParameters: { orderId: number }) {
    return this.request({ path: `/store/order/{orderId}`, method: 'DELETE', headers: {} });
  }
}
//- gen/orval/mutator.ts
import Axios, { AxiosRequestConfig } from 'axios';

export const AXIOS_INSTANCE = Axios.create({ baseURL: '/v2' });

export const customInstance = <T>(config: AxiosRequestConfig, options?: AxiosRequestConfig): Promise<T> =>
  AXIOS_INSTANCE({ ...config, ...options }).then(({ data }) => data);
//- gen/orval/pets.ts
import { customInstance } from './mutator';

export const findPetsByStatus = (status: string) => customInstance({ url: `/pet/findByStatus`, method: 'GET', params: { status } });
export const addPet = (pet: unknown) => customInstance({ url: `/pet`, method: 'POST', data: pet });
export const patchPet = (pet: unknown) => customInstance({ url: `/pet`, method: 'PATCH', data: pet });
//- gen/heyapi/sdk.gen.ts
import { createClient, createConfig } from '@hey-api/client-fetch';

export const client = createClient(createConfig({ baseUrl: 'https://petstore.example.com/v2' }));

export const getPetById = (options: { client?: typeof client }) =>
  (options.client ?? client).get({ url: '/pet/{petId}', ...options });
export const deletePet = (options: { client?: typeof client }) =>
  (options.client ?? client).delete({ url: '/pet/{petId}', ...options });
export const getInventory = () => client.get({ url: '/store/inventory' });
""")
    assert got == [
        "gen/codegen/services/PetService.ts:6 GET /v2/pet/{petId} matched",
        "gen/codegen/services/PetService.ts:9 POST /v2/pet/{petId} method-mismatch",
        "gen/fetch/apis/StoreApi.ts:6 GET /store/order/{orderId} matched",
        "gen/fetch/apis/StoreApi.ts:13 DELETE /store/order/{orderId} method-mismatch",
        "gen/heyapi/sdk.gen.ts:6 GET /pet/{petId} matched",
        "gen/heyapi/sdk.gen.ts:8 DELETE /pet/{petId} matched",
        "gen/heyapi/sdk.gen.ts:9 GET /v2/store/inventory phantom",
        "gen/orval/pets.ts:3 GET /v2/pet/findByStatus matched",
        "gen/orval/pets.ts:4 POST /v2/pet matched",
        "gen/orval/pets.ts:5 PATCH /v2/pet method-mismatch",
    ]


def test_framework_aliases_without_a_file_in_the_repository():
    got = analyze(SHOP + """
//- web/jsconfig.json
{
  "extends": "./.svelte-kit/tsconfig.json",
  "compilerOptions": { "checkJs": true }
}
//- web/svelte.config.js
import adapter from '@sveltejs/adapter-node';
export default { kit: { adapter: adapter(), alias: { $api: 'src/api' } } };
//- web/src/lib/http.js
const base = '/api';
async function send(method, path) {
  const res = await fetch(`${base}/${path}`, { method });
  return res.json();
}
export const get = (path) => send('GET', path);
export const post = (path) => send('POST', path);
//- web/src/api/session.js
import * as http from '$lib/http.js';
export const start = () => http.post('session/start');
//- web/src/routes/products/+page.js
import * as http from '$lib/http.js';
import { start } from '$api/session.js';

export async function load({ params }) {
  await start();
  return { product: await http.get(`products/${params.id}`), stock: await http.get(`stock/${params.id}`) };
}
//- shop/nuxt.config.ts
export default defineNuxtConfig({ ssr: false });
//- shop/utils/api.ts
export const apiGet = (path: string) => $fetch(path, { baseURL: '/api' });
//- shop/pages/index.vue
<script setup lang="ts">
import { apiGet } from '~/utils/api';
const products = await apiGet('/products');
const wishlist = await apiGet('/wishlist');
</script>
""")
    assert got == [
        "shop/pages/index.vue:3 GET /api/products matched",
        "shop/pages/index.vue:4 GET /api/wishlist phantom",
        "web/src/api/session.js:2 POST /api/session/start matched",
        "web/src/routes/products/+page.js:6 GET /api/products/{id} matched",
        "web/src/routes/products/+page.js:6 GET /api/stock/{id} phantom",
    ]


SETTINGS = """
//- api/openapi.json
{"openapi": "3.0.1", "info": {"title": "media", "version": "5"},
 "paths": {
  "/api/v5/indexer": {"get": {"responses": {"200": {"description": "ok"}}}, "post": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/indexer/{id}": {"put": {"responses": {"200": {"description": "ok"}}}, "delete": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/indexer/test": {"post": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/notification": {"get": {"responses": {"200": {"description": "ok"}}}, "post": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/notification/{id}": {"put": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/settings/ui": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/api/v5/settings/ui/{id}": {"put": {"responses": {"200": {"description": "ok"}}}}
 }}
"""


def test_a_hook_that_lists_saves_and_tests_sends_each_request_for_its_callers():
    got = analyze(SETTINGS + """
//- src/api/request.ts
export const apiRoot = '/api/v5';
export async function request<T>({ path, ...init }: { path: string } & RequestInit): Promise<T> {
  const res = await fetch(`${apiRoot}${path}`, init);
  return res.json();
}
//- src/settings/useProviders.ts
import { request } from '../api/request';

export function useProviderList(path: string) {
  return request({ path });
}
export function useSaveProvider(path: string, id?: number) {
  return request({ path: id ? `${path}/${id}` : path, method: id ? 'PUT' : 'POST' });
}
export function useTestProvider(path: string) {
  return request({ path: `${path}/test`, method: 'POST' });
}
export function useProviders(path: string, id?: number) {
  const list = useProviderList(path);
  const save = useSaveProvider(path, id);
  const test = useTestProvider(path);
  return { list, save, test };
}
//- src/settings/indexers.ts
import { useProviders } from './useProviders';

const PATH = '/indexer';
export const useIndexers = (id?: number) => useProviders(PATH, id);
//- src/settings/notifications.ts
import { useProviders } from './useProviders';

const NOTIFICATIONS_PATH = '/notification';
export const useNotifications = (id?: number) => useProviders(NOTIFICATIONS_PATH, id);
""")
    assert got == [
        "src/settings/indexers.ts:4 GET /api/v5/indexer matched",
        "src/settings/indexers.ts:4 PUT /api/v5/indexer/{id} matched",
        "src/settings/indexers.ts:4 POST /api/v5/indexer matched",
        "src/settings/indexers.ts:4 POST /api/v5/indexer/test matched",
        "src/settings/notifications.ts:4 GET /api/v5/notification matched",
        "src/settings/notifications.ts:4 PUT /api/v5/notification/{id} matched",
        "src/settings/notifications.ts:4 POST /api/v5/notification matched",
        "src/settings/notifications.ts:4 POST /api/v5/notification/test method-mismatch",  # /notification/{id}
    ]


def test_a_wrapper_built_on_react_hooks_memoized_options_and_a_url_builder():
    got = analyze(SETTINGS + """
//- src/lib/getApiPath.ts
import { apiRoot, urlBase } from './fetchJson';
const getApiPath = (path: string) => {
  return urlBase + apiRoot + path;
};
export default getApiPath;
//- src/lib/fetchJson.ts
export const urlBase = window.App.urlBase;
export const apiRoot = '/api/v5';
export default async function fetchJson<T>({ path, body, ...options }: { path: string; body?: unknown } & RequestInit) {
  const response = await fetch(path, { ...options, body: body ? JSON.stringify(body) : undefined });
  return response.json() as Promise<T>;
}
//- src/lib/useApiMutation.ts
import { useMemo } from 'react';
import { useMutation } from '@tanstack/react-query';
import fetchJson from './fetchJson';
import getApiPath from './getApiPath';

export default function useApiMutation(options: { path: string; method: 'POST' | 'PUT' | 'DELETE' }) {
  const requestOptions = useMemo(() => {
    return { ...options, path: getApiPath(options.path), headers: { 'X-Client': 'web' } };
  }, [options]);
  return useMutation({
    mutationFn: async (data: unknown) => {
      const { path, ...rest } = requestOptions;
      return fetchJson({ path, ...rest, body: data });
    },
  });
}
//- src/settings/ui.ts
import useApiMutation from '../lib/useApiMutation';

export const useSaveUi = (id: number) => useApiMutation({ path: `/settings/ui/${id}`, method: 'PUT' });
export const useResetUi = () => useApiMutation({ path: '/settings/ui', method: 'DELETE' });
""")
    assert got == [
        "src/settings/ui.ts:3 PUT /api/v5/settings/ui/{id} matched",
        "src/settings/ui.ts:4 DELETE /api/v5/settings/ui method-mismatch",
    ]


def test_bases_from_options_and_run_time_settings():
    got = analyze(BOOKMARKS + """
//- apps/cli/src/commands/assets.ts
import { fetch } from 'undici';

export async function download(id: string, globals: { serverAddr: string; apiKey: string }) {
  return fetch(`${globals.serverAddr}/api/v1/bookmarks/${id}`, { headers: { authorization: globals.apiKey } });
}
export async function migrate(opts: { srcServer: string }) {
  return fetch(`${opts.srcServer}/api/v1/bookmarkz`);
}
//- apps/mobile/lib/health.ts
import { fetch } from 'expo/fetch';
import { useSettings } from './settings';

export function useHealth() {
  const { settings } = useSettings();
  const check = async () => fetch(`${settings.address}/api/health`);
  const me = async () => fetch(`${settings.address}/api/v1/users/me`);
  const avatar = async () => fetch(`${settings.avatarUrl}/large`);
  return { check, me, avatar };
}
""")
    assert got == [
        "apps/cli/src/commands/assets.ts:4 GET /api/v1/bookmarks/{id} matched",
        "apps/cli/src/commands/assets.ts:7 GET /api/v1/bookmarkz phantom",
        "apps/mobile/lib/health.ts:6 GET /api/health unresolved (outside the API: every declared endpoint is under /api/v1)",
        "apps/mobile/lib/health.ts:7 GET /api/v1/users/me matched",
        "apps/mobile/lib/health.ts:8 GET ? unresolved (the URL starts with a dynamic value (avatarUrl), which specward cannot resolve)",
    ]


def test_route_templates_passed_to_a_base_class_whose_generic_methods_make_the_requests():
    got = analyze(TASKS + """
//- web/src/api/resource.ts
import axios from 'axios';

const http = axios.create({ baseURL: '/api/v1' });

export interface Routes { get: string; create: string }

export abstract class Resource<T> {
  constructor(protected readonly routes: Routes) {}

  get(id: string) {
    return http.get<T>(this.routes.get.replace('{id}', id));
  }

  create(parentId: string, body: Partial<T>) {
    return http.post<T>(this.routes.create.replace('{projectId}', parentId), body);
  }
}
//- web/src/api/tasks.ts
import { Resource } from './resource';

export class TaskResource extends Resource<Task> {
  constructor() {
    super({
      get: '/tasks/{id}',
      create: '/projects/{projectId}/tasks',
    });
  }
}

export class CommentResource extends Resource<Comment> {
  constructor() {
    super({ get: '/comments/{id}', create: '/tasks/{projectId}/comments' });
  }
}
""")
    # each request is reported at the template the subclass writes (none in the base class)
    assert got == [
        "web/src/api/tasks.ts:6 GET /api/v1/tasks/{id} matched",
        "web/src/api/tasks.ts:7 POST /api/v1/projects/{projectId}/tasks matched",
        "web/src/api/tasks.ts:14 GET /api/v1/comments/{id} phantom",
        "web/src/api/tasks.ts:14 POST /api/v1/tasks/{projectId}/comments phantom",
    ]


def test_absolute_urls_to_the_host_a_contracts_servers_name():
    got = analyze(SHOP + """
//- tools/warm_cache.py
import httpx


def warm():
    httpx.get("https://shop.example.com/api/products")
    httpx.get("https://shop.example.com/api/product-list")
    httpx.get("https://cdn.example.net/api/products")
""")
    assert got == [
        "tools/warm_cache.py:5 GET /api/products matched",
        "tools/warm_cache.py:6 GET /api/product-list phantom",
        "tools/warm_cache.py:7 GET ? unresolved (external host cdn.example.net)",
    ]


def test_python_conditional_paths_are_each_checked():
    got = analyze(SHOP + """
//- scripts/posts.py
import requests

API = "https://shop.example.com/api"


def posts(mine: bool):
    return requests.get(API + ("/posts/mine" if mine else "/posts"))


def feed(archived: bool):
    return requests.get(f"{API}/posts" if not archived else f"{API}/posts/archive")
""")
    assert got == [
        "scripts/posts.py:7 GET /api/posts/mine matched",
        "scripts/posts.py:11 GET /api/posts/archive phantom",
    ]
