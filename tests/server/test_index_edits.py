"""Edits of an open document through the incremental path (``update(..., incremental=True)``)
leave the index exactly as a from-scratch index of the same texts: same findings, calls and
statuses in every file, same used and unused endpoints."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

CONTRACT = """openapi: 3.0.3
info: {title: Shop, version: '1'}
servers:
  - url: https://shop.example.com/api
paths:
  /orders:
    get: {responses: {'200': {description: ok}}}
    post: {responses: {'201': {description: ok}}}
  /orders/{orderId}:
    get: {responses: {'200': {description: ok}}}
    delete: {responses: {'204': {description: ok}}}
  /orders/{orderId}/lines:
    get: {responses: {'200': {description: ok}}}
  /customers/{customerId}:
    get: {responses: {'200': {description: ok}}}
"""

HTTP_TS = """import axios from 'axios';

export const API = '/api';
export const http = axios.create({ baseURL: API });
"""

REQUEST_TS = """import { API } from './http';

export function getJson(path: string) {
  return fetch(`${API}${path}`).then((r) => r.json());
}
"""

ORDERS_TS = """// Orders screen: the calls it makes, through every route the project has.
import { http, API } from '../api/http';
import { getJson } from '../api/request';

export const LINES = '/lines';

export async function listOrders(page: number) {
  const res = await http.get(`/orders?page=${page}`);
  return res.data;
}

export function loadOrder(orderId: string) {
  return getJson(`/orders/${orderId}`);
}

/* Lines are loaded lazily, one order at a time. */
export async function loadLines(orderId: string) {
  return fetch(`${API}/orders/${orderId}${LINES}`).then((r) => r.json());
}

export function removeOrder(orderId: string) {
  return http.delete(`/orders/${orderId}`);
}

export function loadCustomer(customerId: string) {
  return getJson(`/customers/${customerId}/profile`);
}

const send = (path: string, body: object) => http.post(path, { ...body, client: 'web' });

export function archiveOrder(orderId: string) {
  return send(`/orders/${orderId}`, { reason: 'done', notify: true });
}

export async function placeOrder(note: string, lines: string[]) {
  const { data } = await http.post('/orders', { note, lines, source: 'web' });
  console.info(`placed ${data.id} with ${lines.length} lines`);
  return data.id;
}

export class OrderStore {
  private cache = new Map<string, unknown>();

  async refresh(orderId: string) {
    const res = await http.post(`/orders/${orderId}/refresh`, {});
    this.cache.set(orderId, res.data);
  }
}
"""

SCREEN_TS = """import { loadOrder, loadLines } from './orders';

export async function openOrder(id: string) {
  const [order, lines] = await Promise.all([loadOrder(id), loadLines(id)]);
  return { order, lines };
}
"""

FILES = {
    "contracts/openapi.yaml": CONTRACT,
    "src/api/http.ts": HTTP_TS,
    "src/api/request.ts": REQUEST_TS,
    "src/features/orders.ts": ORDERS_TS,
    "src/features/screen.ts": SCREEN_TS,
}

EDITED = "src/features/orders.ts"

PIECES = ["x", " ", "\n", "/", "'", "`", "(", ")", "{", "}", ";", "s", "/items", "${id}", "// ", "/*", "*/",
          "export function extra(p: string) { return getJson(p); }\n", "import { other } from './other';\n",
          "page = 2;\n", "http.get('/orders');\n", "const api2 = http.create({ baseURL: '/v2' });\n"]


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _state(idx: WorkspaceIndex) -> dict:
    files = sorted(set(FILES) | set(idx.calls) | set(idx.statuses))
    return {
        "findings": {rel: idx.findings(rel) for rel in files},
        "calls": {rel: list(idx.calls.get(rel, ())) for rel in files},
        "statuses": {rel: [(st.call, st.status, st.endpoint) for st in idx.statuses.get(rel, ())] for rel in files},
        "used": dict(idx.used),
        "unused": [f.span for f in idx.unused],
    }


def _edit(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    op = rng.random()
    if op < 0.55:
        return text[:i] + rng.choice(PIECES) + text[i:]
    if op < 0.8:
        return text[:i] + text[i + rng.choice((1, 1, 3, 12, 50)):]
    if op < 0.9:
        return text[:i] + "z" + text[i + rng.randrange(1, 8):]
    return text[:i] + text[i:i + 40] + text[i:]  # a piece repeated


def _seeds() -> int:
    return int(os.environ.get("SPECWARD_INCREMENTAL_SEEDS", "3"))


@pytest.mark.parametrize("seed", range(_seeds()))
def test_random_edits_of_open_documents_match_a_fresh_index(tmp_path: Path, seed: int):
    """Mostly the orders module (its importers re-linked when its wrappers change), now and
    then the client and the wrapper module it imports."""
    live_root, fresh_root = tmp_path / "live", tmp_path / "fresh"
    _write(live_root, FILES)
    idx = WorkspaceIndex(live_root, use_cache=False)
    idx.build()
    texts = dict(FILES)
    for rel in ("src/features/orders.ts", "src/api/http.ts", "src/api/request.ts"):
        idx.update(rel, texts[rel], incremental=True)
        idx.prepare_edits(rel, texts[rel])
    rng = random.Random(seed)
    moved = 0
    for step in range(40):
        rel = rng.choices(("src/features/orders.ts", "src/api/http.ts", "src/api/request.ts"), (8, 1, 1))[0]
        texts[rel] = FILES[rel] if rng.random() < 0.05 else _edit(rng, texts[rel])
        before = idx.stats.get("moved_links", 0)
        idx.update(rel, texts[rel], incremental=True)
        moved += idx.stats.get("moved_links", 0) > before
        _write(fresh_root, texts)
        fresh = WorkspaceIndex(fresh_root, use_cache=False)
        fresh.build()
        assert _state(idx) == _state(fresh), f"seed {seed}, edit {step} of {rel}: {texts[rel]!r}"
    assert moved > 0  # some edits only moved facts, and the links were moved, not made again


def test_an_edit_that_moves_facts_moves_the_findings_without_linking(tmp_path: Path, monkeypatch):
    _write(tmp_path, FILES)
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    idx.update(EDITED, ORDERS_TS, incremental=True)
    idx.prepare_edits(EDITED, ORDERS_TS)
    phantom = [f for f in idx.findings(EDITED) if f.code == "phantom-api"]
    assert phantom  # /customers/{customerId}/profile and /orders/{orderId}/refresh
    linked = []
    monkeypatch.setattr(idx, "_link", lambda paths: linked.append(set(paths)))
    edited = ORDERS_TS.replace("// Orders screen", "// The orders screen")
    assert idx.update(EDITED, edited, incremental=True) == {EDITED}
    assert linked == []
    shift = len("The o") - len("O")
    assert [f.span.start for f in idx.findings(EDITED) if f.code == "phantom-api"] == [
        f.span.start + shift for f in phantom]
    monkeypatch.undo()
    # a URL changed: linked again (the file and its importers)
    idx.update(EDITED, edited.replace("/profile", ""), incremental=True)
    assert len([f for f in idx.findings(EDITED) if f.code == "phantom-api"]) == len(phantom) - 1


def test_an_edit_of_call_sites_alone_links_them_alone(tmp_path: Path, monkeypatch):
    """A keystroke in a call's arguments: that call is linked again against the facts the
    file had (no build of the new ones, no other call, no importer); the rest is moved."""
    live, fresh_root = tmp_path / "live", tmp_path / "fresh"
    _write(live, FILES)
    idx = WorkspaceIndex(live, use_cache=False)
    idx.build()
    idx.update(EDITED, ORDERS_TS, incremental=True)
    idx.prepare_edits(EDITED, ORDERS_TS)
    linked = []
    monkeypatch.setattr(idx, "_link", lambda paths: linked.append(set(paths)))
    texts = dict(FILES)
    steps = [("source: 'web'", "sourc: 'web'"),  # a body key: unknown-field now
             ("/customers/${customerId}/profile", "/customers/${customerId}"),  # a phantom fixed
             ("/orders?page=${page}", "/orders?page=${page}&size=20"),  # a query parameter
             ("{ reason: 'done', notify: true }", "{ reason: 'done' }")]  # through the local wrapper
    for old, new in steps:
        before = idx.stats.get("spliced_links", 0)
        texts[EDITED] = texts[EDITED].replace(old, new)
        idx.update(EDITED, texts[EDITED], incremental=True)
        assert idx.stats.get("spliced_links", 0) == before + 1, new
        _write(fresh_root, texts)
        fresh = WorkspaceIndex(fresh_root, use_cache=False)
        fresh.build()
        assert _state(idx) == _state(fresh), new
    assert linked == []
    monkeypatch.undo()
    # a wrapper's own request changed: every call through it (and its importers) linked again
    texts[EDITED] = texts[EDITED].replace("http.post(path, { ...body", "http.put(path, { ...body")
    idx.update(EDITED, texts[EDITED], incremental=True)
    _write(fresh_root, texts)
    fresh = WorkspaceIndex(fresh_root, use_cache=False)
    fresh.build()
    assert _state(idx) == _state(fresh)


SERVICE_TS = """import { http } from '../api/http';

export class OrderService {
  constructor(private cache: Map<string, unknown>) {}

  async refresh(orderId: string) {
    this.cache.delete(orderId);
    return http.get(`/orders/${orderId}`);
  }
}
"""

BASE_TS = """import { http } from '../api/http';

export class Resource {
  constructor(private routes: { one: string }) {}

  one(id: string) {
    return http.get(this.routes.one.replace('{id}', id));
  }
}
"""

CUSTOMERS_TS = """import { Resource } from './base';

export class Customers extends Resource {
  constructor() {
    super({ one: '/customers/{id}' });
  }
}
"""


def test_a_method_site_is_linked_alone_unless_a_subclass_elsewhere_may_bind_it(tmp_path: Path):
    """A site in a method: a subclass's ``super`` table could bind it, but only a class that
    reads the file; in a file no other one reads, it is linked alone like any site."""
    live, fresh_root = tmp_path / "live", tmp_path / "fresh"
    texts = {**FILES, "src/features/service.ts": SERVICE_TS, "src/api/base.ts": BASE_TS,
             "src/api/customers.ts": CUSTOMERS_TS}
    _write(live, texts)
    idx = WorkspaceIndex(live, use_cache=False)
    idx.build()
    for rel, old, new, alone in [
            ("src/features/service.ts", "/orders/${orderId}`", "/orders/${orderId}/lines`", True),
            ("src/features/service.ts", "/lines`", "/refresh`", True),  # a phantom now
            ("src/api/base.ts", "http.get(this.routes", "http.delete(this.routes", False)]:
        idx.update(rel, texts[rel], incremental=True)
        idx.prepare_edits(rel, texts[rel])
        before = idx.stats.get("spliced_links", 0)
        texts[rel] = texts[rel].replace(old, new)
        idx.update(rel, texts[rel], incremental=True)
        assert idx.stats.get("spliced_links", 0) == before + alone, new
        _write(fresh_root, texts)
        fresh = WorkspaceIndex(fresh_root, use_cache=False)
        fresh.build()
        assert _state(idx) == _state(fresh), new
    assert any(f.code == "phantom-api" for f in idx.findings("src/features/service.ts"))
    # the subclass's call went from GET to DELETE /customers/{id}: a method mismatch
    assert any(f.code == "method-mismatch" for f in idx.findings("src/api/customers.ts"))


def test_reopening_after_a_disk_update_starts_from_the_disk_text(tmp_path: Path):
    _write(tmp_path, FILES)
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    idx.update(EDITED, ORDERS_TS, incremental=True)
    idx.prepare_edits(EDITED, ORDERS_TS)
    assert not idx.needs_edit_state(EDITED)
    on_disk = ORDERS_TS.replace("/profile", "/card")
    (tmp_path / EDITED).write_text(on_disk)
    idx.update_from_disk(EDITED)  # closed, then changed on disk: its edit state is gone
    assert idx.needs_edit_state(EDITED)
    edited = on_disk.replace("/lines", "/items")
    idx.update(EDITED, edited, incremental=True)
    fresh_root = tmp_path / "fresh"
    _write(fresh_root, {**FILES, EDITED: edited})
    fresh = WorkspaceIndex(fresh_root, use_cache=False)
    fresh.build()
    assert _state(idx) == _state(fresh)


def test_python_documents_are_extracted_in_full_and_get_no_edit_state(tmp_path: Path):
    client = ('import requests\n\nBASE = "https://shop.example.com/api"\n\n\n'
              'def order(order_id: str):\n    return requests.get(f"{BASE}/orders/{order_id}/notes")\n')
    files = {"contracts/openapi.yaml": CONTRACT, "py/client.py": client}
    _write(tmp_path / "live", files)
    idx = WorkspaceIndex(tmp_path / "live", use_cache=False)
    idx.build()
    assert not idx.needs_edit_state("py/client.py")  # nothing to prepare: no extra work per keystroke
    assert [f.code for f in idx.findings("py/client.py")] == ["phantom-api"]
    rng = random.Random(5)
    text = client
    for step in range(15):
        text = _edit(rng, text)
        idx.update("py/client.py", text, incremental=True)
        _write(tmp_path / "fresh", {**files, "py/client.py": text})
        fresh = WorkspaceIndex(tmp_path / "fresh", use_cache=False)
        fresh.build()
        assert ([f for f in idx.findings("py/client.py")] == [f for f in fresh.findings("py/client.py")]), text


def test_only_the_last_edited_documents_keep_their_trees(tmp_path: Path, monkeypatch):
    from specward.server.engine import updates as updates_mod

    monkeypatch.setattr(updates_mod, "EDIT_STATES", 2)
    files = dict(FILES)
    for i in range(4):
        files[f"src/extra/e{i}.ts"] = f"export const get{i} = (id: string) => fetch(`/api/orders/${{id}}/e{i}`);\n"
    _write(tmp_path, files)
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    for i in range(4):
        rel = f"src/extra/e{i}.ts"
        idx.update(rel, files[rel], incremental=True)
        idx.prepare_edits(rel, files[rel])
        idx.update(rel, "// edited\n" + files[rel], incremental=True)  # moved only: the state stays live
    kept = [rel for rel in files if not idx.needs_edit_state(rel) and rel.endswith(".ts")]
    assert kept == ["src/extra/e2.ts", "src/extra/e3.ts"]
    for i in range(4):  # the others hold plain facts again (no tree), the same ones
        rel = f"src/extra/e{i}.ts"
        assert (type(idx.facts._live[rel]).__name__ == "FileFacts") == (i < 2)
        assert [f.code for f in idx.findings(rel)] == ["phantom-api"]


def test_an_update_can_hold_the_collector_paused_until_the_caller_resumes_it(tmp_path: Path):
    """The server publishes an edit's diagnostics before the collector's pass over what the
    edit built (session._after); nothing else changes, and the collector does run again."""
    import gc

    _write(tmp_path, FILES)
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    assert gc.isenabled()
    try:
        idx.update(EDITED, ORDERS_TS + "\n// held\n", incremental=True, hold_collector=True)
        assert not gc.isenabled()
        idx.update(EDITED, ORDERS_TS, incremental=True, hold_collector=True)  # still paused: held once
        idx.resume_collector()
        assert gc.isenabled()
        idx.resume_collector()  # nothing held: no change
        assert gc.isenabled()
        idx.update(EDITED, ORDERS_TS + "\n", incremental=True)
        assert gc.isenabled()
    finally:
        gc.enable()
