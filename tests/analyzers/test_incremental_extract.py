"""Incremental extraction (``extract_edited``) gives exactly the facts of a full extraction.

The random edits insert, delete and replace text inside and across top-level
declarations, in strings, comments, imports and class bodies, and move code between
statements; after each one the incremental facts (chained from the previous state) are
compared with a from-scratch extraction. ``SPECWARD_INCREMENTAL_SEEDS`` runs more seeds.
"""

from __future__ import annotations

import os
import random

import pytest

from specward.analyzers import languages
from specward.analyzers.extract import extract, extract_edited, incremental
from specward.analyzers.model import Span

SERVICE_TS = """// Orders service: every request goes through the shared client.
import axios from 'axios';
import { API_BASE, ROUTES } from './config';
import * as telemetry from '../core/telemetry';
import type { Order, OrderLine } from './types';

const TIMEOUT_MS = 8_000;
export const ORDERS = `${API_BASE}/orders`;

export const http = axios.create({ baseURL: API_BASE, timeout: TIMEOUT_MS });
const admin = http.create({ baseURL: '/admin' });

export enum OrderState {
  Open = 'open',
  Closed = 'closed',
}

export const endpoints = {
  list: '/orders',
  detail: (id: string) => `/orders/${id}`,
  nested: { lines: '/orders/lines', audit: '/orders/audit' },
};

let region = 'eu';
region = 'us';

/** Loads one order with its lines; the caller handles retries. */
export async function loadOrder(orderId: string, expand = false): Promise<Order> {
  const started = Date.now();
  let path = `/orders/${orderId}`;
  const res = await http.get(path, { params: { expand } });
  telemetry.timing('orders.load', Date.now() - started, { orderId, region });
  return res.data;
}

export async function saveLine(orderId: string, line: OrderLine) {
  const url = ORDERS + '/' + orderId + '/lines';
  return fetch(url, { method: 'POST', body: JSON.stringify(line) }).then((r) => r.json());
}

function send({ method, path }: { method: string; path: string }) {
  return fetch(`${API_BASE}${path}`, { method });
}

export const cancel = (orderId: string) => send({ method: 'DELETE', path: `/orders/${orderId}` });

export class OrderRepository {
  private readonly cache = new Map<string, Order>();

  constructor(private readonly tenant: string) {
    this.api = axios.create({ baseURL: `${API_BASE}/tenants/${tenant}` });
  }

  async find(orderId: string) {
    if (this.cache.has(orderId)) {
      return this.cache.get(orderId);
    }
    const res = await this.api.get(`/orders/${orderId}`);
    this.cache.set(orderId, res.data);
    return res.data;
  }

  archive(orderId: string) {
    return admin.post(`/orders/${orderId}/archive`, { reason: 'stale' });
  }
}

export class AuditService {
  constructor(private http: HttpClient, private readonly store: Store) {}

  trail(orderId: string) {
    return this.http.get(`/orders/${orderId}/audit`);
  }
}

export default {
  refresh: (id: string) => http.put(`/orders/${id}/refresh`),
  base: ROUTES.orders,
};
"""

PANEL_TSX = """import { useEffect, useState } from 'react';
import { API_BASE } from '../api/config';
import { get } from '../api/request';

type Props = { teamId: string; limit?: number };

export function TeamPanel({ teamId, limit = 20 }: Props) {
  const [rows, setRows] = useState<Array<{ id: string; name: string }>>([]);
  useEffect(() => {
    let cancelled = false;
    fetch(`${API_BASE}/teams/${teamId}/members?limit=${limit}`)
      .then((r) => r.json())
      .then((body) => {
        if (!cancelled) setRows(body.items ?? []);
      });
    return () => {
      cancelled = true;
    };
  }, [teamId, limit]);
  return (
    <ul className="team-panel">
      {rows.map((row) => (
        <li key={row.id}>{row.name}</li>
      ))}
    </ul>
  );
}

export const loadProjects = (teamId: string) => get(`/teams/${teamId}/projects`);

export default function Empty() {
  return <p>{'Nothing to show: /teams is empty'}</p>;
}
"""

SERVER_JS = """const express = require('express');
const { Router } = require('express');
const axios = require('axios');
const { BASE: API, TIMEOUT } = require('./config');

const app = express();
const router = Router();
var client = axios.create({ baseURL: API, timeout: TIMEOUT });

app.get('/health', (req, res) => res.send('ok'));
router.post('/users/:userId/avatar', upload, (req, res) => res.json({ ok: true }));

function fetchUser(userId) {
  var url = '/users/' + userId;
  if (userId === 'me') {
    url = '/me';
  }
  return client.get(url);
}

exports.fetchUser = fetchUser;
module.exports.listUsers = function (page) {
  return client.get(`/users?page=${page}`);
};
module.exports = { fetchUser, remove: (id) => client.delete('/users/' + id) };
"""

CLIENT_PY = '''"""Billing client."""
import httpx
import requests
from .config import BASE

TIMEOUT = 5.0
INVOICES = f"{BASE}/invoices"


class Ledger:
    session = requests.Session()

    def entries(self, ledger_id: str):
        return self.session.get(f"{BASE}/ledgers/{ledger_id}/entries", timeout=TIMEOUT)


def pay(invoice_id: str, amount: int):
    with httpx.Client(base_url=BASE) as client:
        return client.post(f"/invoices/{invoice_id}/pay", json={"amount": amount})


def invoices(page: int = 1):
    url = INVOICES
    return requests.get(url, params={"page": page})
'''

FIXTURES = {
    "src/orders/service.ts": SERVICE_TS,
    "src/teams/Panel.tsx": PANEL_TSX,
    "server/users.js": SERVER_JS,
    "billing/client.py": CLIENT_PY,
}

SNIPPETS = [
    "x", "/", "'", '"', "`", "\n", " ", "(", ")", "{", "}", ";", ".", "$", "${id}", "/*", "*/", "// ",
    "import { extra } from './extra';\n", "import axios from 'redaxios';\n", "let ", "const ", "var ",
    "path = '/other';\n", "region = 'ap';\n", "cancelled = false;", "url = `/u/${id}`;",
    "const api = axios.create({ baseURL: '/v9' });\n", "this.api = axios.create({ baseURL: '/t' });",
    "app.delete('/users/:id', (req, res) => res.end());\n", "const server = express();\n",
    "await fetch(`/orders/${orderId}/notes`);\n", "export * from './more';\n", "class Extra {\n",
    "  constructor(private http: HttpClient) {}\n", "export default ", "module.exports = ", "async ",
    "function helper(path) { return fetch(path); }\n", "requests.get(f\"{BASE}/x\")\n",
]


def _fresh(path: str, text: str):
    languages._local.__dict__.pop("recent", None)  # no tree of an earlier text: a real fresh parse
    return extract(path, text)


def _edit(rng: random.Random, text: str, original: str) -> str:
    op = rng.choice(("insert", "insert", "snippet", "delete", "delete", "replace", "move", "line", "reset"))
    i = rng.randrange(len(text) + 1)
    if op == "insert":
        return text[:i] + rng.choice("abz09_ ./'\"`(){}[];,=+-*\n$") + text[i:]
    if op == "snippet":
        return text[:i] + rng.choice(SNIPPETS) + text[i:]
    if op == "delete":
        n = rng.choice((1, 1, 2, 5, 20, 60, 200))
        return text[:i] + text[i + n:]
    if op == "replace":
        n = rng.randrange(1, 30)
        return text[:i] + rng.choice(("z", "0", "q.w", "'/a'", "`")) + text[i + n:]
    if op == "move":  # a piece of the original text somewhere else (across declarations)
        a = rng.randrange(len(original))
        piece = original[a:a + rng.randrange(1, 120)]
        n = rng.choice((0, 0, 10))
        return text[:i] + piece + text[i + n:]
    if op == "line":  # duplicate or drop a whole line
        lines = text.split("\n")
        k = rng.randrange(len(lines))
        if rng.random() < 0.5:
            lines.insert(k, lines[k])
        else:
            del lines[k]
        return "\n".join(lines)
    return original  # back to a clean file, itself a large edit


def _seeds() -> int:
    return int(os.environ.get("SPECWARD_INCREMENTAL_SEEDS", "6"))


@pytest.mark.parametrize("path", sorted(FIXTURES))
def test_random_edits_give_the_facts_of_a_full_extraction(path):
    original = FIXTURES[path]
    for seed in range(_seeds()):
        rng = random.Random(f"{path}:{seed}")
        text = original
        facts, state, _ = extract_edited(path, text, None)
        assert facts == _fresh(path, text)
        for step in range(30):
            text = _edit(rng, text, original)
            facts, state, change = extract_edited(path, text, state)
            expected = _fresh(path, text)
            assert facts == expected, f"seed {seed}, edit {step}: {text!r}"


@pytest.mark.parametrize("path", sorted(FIXTURES))
def test_reparsing_gives_the_tree_of_a_fresh_parse_also_around_syntax_errors(path):
    """tree-sitter alone recovers from some errors differently when it re-parses
    incrementally (about one edit in a hundred here); ``languages.reparse`` must not."""
    original = FIXTURES[path]
    grammar = languages.language_of(path)
    fresh = languages.parser(grammar).parse
    with_errors = 0
    for seed in range(8 * _seeds()):
        rng = random.Random(f"tree:{path}:{seed}")
        text = original
        src = text.encode()
        tree = fresh(src)
        for _ in range(30):
            text = _edit(rng, text, original)
            new = text.encode()
            tree, _, _ = languages.reparse(grammar, src, tree, new)
            expected = fresh(new)
            with_errors += expected.root_node.has_error
            assert str(tree.root_node) == str(expected.root_node), text
            src = new
    assert with_errors > 100


@pytest.mark.parametrize("path", [p for p in sorted(FIXTURES) if not p.endswith(".py")])
def test_moved_only_maps_every_span_of_the_previous_facts(path):
    """When an edit only moves facts, ``change.span`` says where each previous span went."""
    original = FIXTURES[path]
    rng = random.Random(path)
    moved = 0
    text = original
    old, state, _ = extract_edited(path, text, None)
    for _ in range(120):
        text = text[:(i := rng.randrange(len(text) + 1))] + rng.choice(" \n/x") + text[i:]
        new, state, change = extract_edited(path, text, state)
        pairs: dict = {}
        # (None: extracted in full, a client creation or an import was edited; False may
        # also be an over-cautious answer, e.g. after an assignment was edited)
        if change is not None and change.moved_only:
            moved += 1
            assert incremental.same(old, new, pairs)
            for a, b in pairs.items():
                assert change.span(a) == b
        old = new
        if rng.random() < 0.1:
            text = original
            old, state, _ = extract_edited(path, text, state)
    assert moved > 10


def test_an_edit_extracts_only_the_statements_it_touches(monkeypatch):
    path, text = "src/orders/service.ts", SERVICE_TS
    facts, state, _ = extract_edited(path, text, None)
    dispatched = []
    real = incremental._extract_units

    def spy(src, lang, tree, nodes, tables):
        dispatched.append([n.type for n in nodes])
        return real(src, lang, tree, nodes, tables)

    monkeypatch.setattr(incremental, "_extract_units", spy)
    # inside a URL of a function: only that function's declaration is extracted again
    edited = text.replace("'/lines'", "'/items'")
    facts, state2, change = extract_edited(path, edited, state)
    assert dispatched == [["export_statement"]]
    assert not change.moved_only
    assert facts == _fresh(path, edited)
    first_before, first_after = state.units[0], state2.units[0]
    assert first_after is first_before  # untouched statements before the edit are reused as they are
    # a comment: the facts of the statements after it are moved, not extracted
    dispatched.clear()
    edited2 = edited.replace("// Orders service", "// The orders service")
    facts, state3, change = extract_edited(path, edited2, state2)
    assert dispatched == [["comment"]]
    assert change.moved_only
    assert facts == _fresh(path, edited2)
    loader = next(f for f in facts.functions if f.name == "loadOrder")
    assert change.span(next(f.span for f in state2.facts.functions if f.name == "loadOrder")) == loader.span


def test_an_import_whose_client_others_extend_extracts_the_whole_file_again():
    path, text = "src/orders/service.ts", SERVICE_TS
    _, state, _ = extract_edited(path, text, None)
    # `http` becomes a ky client, and `admin` is made from it by name
    edited = text.replace("import axios from 'axios';", "import axios from 'ky';")
    facts, _, change = extract_edited(path, edited, state)
    assert change is None  # the module-level context changed: not known which facts moved
    assert facts == _fresh(path, edited)
    assert not any(c.kind == "axios" and c.name == "http" for c in facts.clients)


def test_an_import_change_extracts_again_only_the_statements_that_name_it(monkeypatch):
    path, text = "src/orders/service.ts", SERVICE_TS
    _, state, _ = extract_edited(path, text, None)
    dispatched = []
    real = incremental._extract_units

    def spy(src, lang, tree, nodes, tables):
        dispatched.append(len(nodes))
        return real(src, lang, tree, nodes, tables)

    monkeypatch.setattr(incremental, "_extract_units", spy)
    # `telemetry` now comes from another module: the import and loadOrder are extracted again
    edited = text.replace("'../core/telemetry'", "'../core/metrics'")
    facts, state2, change = extract_edited(path, edited, state)
    assert change is not None and not change.moved_only
    assert facts == _fresh(path, edited)
    assert dispatched == [1, 2]
    assert dict(state2.tables[0])["telemetry"] == "../core/metrics"
    # a renamed import: the statements naming the old or the new name
    dispatched.clear()
    edited2 = edited.replace("import { API_BASE, ROUTES }", "import { API_ROOT, ROUTES }")
    facts, state3, change = extract_edited(path, edited2, state2)
    assert change is not None and facts == _fresh(path, edited2)
    assert "API_BASE" not in dict(state3.tables[0]) and "API_ROOT" in dict(state3.tables[0])
    assert dispatched[0] == 1 and 1 < dispatched[1] < len(state3.units) // 2
    # a framework import decides what every statement means: the whole file
    edited3 = edited2.replace("import axios from 'axios';", "import axios from 'axios';\nimport express from 'express';")
    facts, _, change = extract_edited(path, edited3, state3)
    assert change is None and facts == _fresh(path, edited3)


def test_a_new_assignment_re_extracts_the_functions_whose_locals_it_reassigns():
    path = "src/orders/service.ts"
    text = SERVICE_TS
    _, state, _ = extract_edited(path, text, None)
    # `path` is a `let` of loadOrder: assigning it anywhere makes its value unknown there
    edited = text.replace("let region = 'eu';", "let region = 'eu';\npath = '/elsewhere';")
    facts, state, change = extract_edited(path, edited, state)
    assert facts == _fresh(path, edited)
    assert not change.moved_only
    back, _, _ = extract_edited(path, text, state)
    assert back == _fresh(path, text)


def test_lazy_facts_and_older_states_stay_usable():
    path, text = "src/teams/Panel.tsx", PANEL_TSX
    _, state0, _ = extract_edited(path, text, None)
    one = text.replace("members", "members/active")
    two = text.replace("projects", "projects/open")
    facts1, state1, _ = extract_edited(path, one, state0, lazy=True)
    assert facts1 is None and state1.built is None
    assert state1.facts == _fresh(path, one)
    facts2, _, _ = extract_edited(path, two, state0)  # the state before `one` again
    assert facts2 == _fresh(path, two)
    same_text, state_same, change = extract_edited(path, one, state1)
    assert same_text == state1.facts and change.moved_only and state_same is state1


def test_python_and_components_are_extracted_in_full():
    facts, state, change = extract_edited("billing/client.py", CLIENT_PY, None)
    assert state is None and change is None
    assert facts == _fresh("billing/client.py", CLIENT_PY)
    vue = "<template><p/></template>\n<script>\nfetch('/teams/1');\n</script>\n"
    facts, state, _ = extract_edited("src/T.vue", vue, None)
    assert state is None and [c.callee for c in facts.calls] == ["fetch"]


def test_shift_moves_every_span_and_nothing_else():
    facts = _fresh("src/orders/service.ts", SERVICE_TS)
    moved = incremental.shift(facts.calls, 7)
    pairs: dict = {}
    assert incremental.same(facts.calls, moved, pairs)
    assert pairs and all(b == Span(a.start + 7, a.end + 7) for a, b in pairs.items())
    assert moved != facts.calls


def test_incremental_extraction_leaves_no_reference_cycles():
    import gc

    path, text = "src/orders/service.ts", SERVICE_TS
    _, state, _ = extract_edited(path, text, None)  # one-time work out of the way
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        _, state, _ = extract_edited(path, text, None)
        for edited in (text.replace("'/lines'", "'/items'"), text.replace("axios.create", "axios.make"), text):
            _, state, _ = extract_edited(path, edited, state)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
