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
""")
    assert got == [
        "web/src/posts.ts:2 GET /api/posts/mine matched",
        "web/src/posts.ts:5 GET /api/postz phantom",
        "web/src/posts.ts:8 GET /api/items/{id}/notes matched",
        "web/src/posts.ts:11 GET /api/users/me unresolved (one branch of the conditional URL cannot be "
        "resolved (computed by localStorage.getItem()))",
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
