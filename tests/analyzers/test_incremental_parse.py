"""Incremental re-parsing gives exactly the facts a fresh parse gives."""

from __future__ import annotations

import random

from specward.analyzers import languages
from specward.analyzers.extract import extract

TS = """import { api } from './http';
const ROOT = '/api';
export async function load(id: string) {
  const res = await fetch(`${ROOT}/users/${id}`);
  return api.get('/user/profile');
}
"""

PY = """import requests
BASE = "http://localhost/api"

def users():
    return requests.get(f"{BASE}/users")
"""


def _fresh(path: str, text: str):
    languages._local.__dict__.pop("recent", None)
    return extract(path, text)


def test_edits_reparsed_incrementally_match_fresh_parses():
    rng = random.Random(7)
    for path, text in (("a.ts", TS), ("b.py", PY)):
        current = text
        extract(path, current)
        for _ in range(60):
            i = rng.randrange(len(current) + 1)
            op = rng.choice(("insert", "delete", "replace"))
            if op == "insert":
                current = current[:i] + rng.choice(("x", "/", "'", "\n", "é", "${id}", "(")) + current[i:]
            elif op == "delete":
                current = current[:i] + current[i + rng.randrange(1, 4):]
            else:
                current = current[:i] + "z" + current[i + 1:]
            incremental = extract(path, current)
            assert incremental == _fresh(path, current)
            extract(path, current)  # re-prime the incremental path for the next edit


def test_parse_reuses_the_last_tree_of_a_key():
    src = b"fetch('/a');\n" * 50
    t1 = languages.parse("javascript", src, "k.js")
    edited = src.replace(b"/a", b"/b", 1)
    t2 = languages.parse("javascript", edited, "k.js")
    fresh = languages.parser("javascript").parse(edited)
    assert str(t2.root_node) == str(fresh.root_node)
    assert t2.root_node.child(0).text == b"fetch('/b');"
    assert t1 is not t2
