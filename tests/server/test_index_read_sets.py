"""An edit of an open document that changes facts other than call sites (a function renamed,
an ``export`` broken, an interface field added, a constant changed) classifies again only the
call sites whose read set meets a name the edit changed (``updates._link_watched``); the
others keep their calls. The results are exactly a full link's: after every edit the index
equals one that linked the same text in full."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

CONTRACT = """openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /orders/{orderId}:
    get: {responses: {'200': {description: ok}}}
  /svc0/items/{id}:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              properties: {name: {type: string}, size0: {type: number}}
      responses: {'200': {description: ok}}
  /svc1/things/{id}:
    get: {responses: {'200': {description: ok}}}
"""

HTTP_TS = """import axios from 'axios';

export const API = '/api';
export const http = axios.create({ baseURL: API });
"""

BIG = "src/big/service.ts"
N = 24


def _big_ts(n: int = N) -> str:
    """A service module in the shape of the benchmark's ``calls10k.ts``: wrappers, functions
    calling them (and each other's), classes, interfaces sent as bodies, base constants."""
    out = ["import { http } from '../api/http';", "import { HttpClient } from '@angular/common/http';",
           "import { logger } from '../core/log';", ""]
    for i in range(n):
        j = (i + 1) % n
        out += [
            f"export const BASE_{i} = '/svc{i % 3}';",
            f"export interface Body{i} {{ name: string; size{i}: number }}",
            f"export function wrap{i}(path: string, body: Body{i}) {{",
            f"  return http.post(`${{BASE_{i}}}${{path}}`, body);",
            "}",
            f"export async function load{i}(id: string) {{",
            f"  const body: Body{i} = {{ name: 'x', size{i}: 1 }};",
            f"  const r = await wrap{i}(`/items/${{id}}`, body);",
            f"  await wrap{j}(`/items/${{id}}`, {{ name: 'y', size{j}: 2 }});",
            f"  logger.info('loaded {i}', {{ id }});",
            f"  await http.get(`${{BASE_{j}}}/things/${{id}}`);",
            "  return fetch(`/api/orders/${id}`).then((res) => res.json());",
            "}",
            f"export class Service{i} {{",
            "  constructor(private http: HttpClient) {}",
            "  one(id: string) { return this.http.get(`/orders/${id}`); }",
            f"  many() {{ return this.http.get<Body{i}[]>(BASE_{i}); }}",
            "}",
            "",
        ]
    return "\n".join(out)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _state(idx: WorkspaceIndex, files) -> dict:
    return {
        "findings": {rel: sorted(idx.findings(rel), key=repr) for rel in files},
        "calls": {rel: list(idx.calls.get(rel, ())) for rel in files},
        "statuses": {rel: [(st.call, st.status, st.endpoint, st.finding, st.field_findings)
                           for st in idx.statuses.get(rel, ())] for rel in files},
        "used": dict(idx.used),
    }


# where a keystroke changes a fact other than a call site (and, now and then, anything)
TARGETS = ("export function wrap", "export async function load", "export interface Body", "export const BASE_",
           "name: string;", "export class Service", "size", "wrap", "BASE_", "many()")
PIECES = ("q", "q", "_", " ", "x2", "}", "{", "'", ";\n", "export ", "\n")


def _edit(rng: random.Random, text: str) -> tuple[str, int | None]:
    if rng.random() < 0.8:
        target = rng.choice(TARGETS)
        hits = [i for i in range(len(text)) if text.startswith(target, i)]
        i = rng.choice(hits) + rng.randint(0, len(target))
        piece = "q"
    else:
        i = rng.randrange(len(text) + 1)
        piece = rng.choice(PIECES)
    return text[:i] + piece + text[i:], i


@pytest.mark.parametrize("seed", range(int(os.environ.get("SPECWARD_INCREMENTAL_SEEDS", "3"))))
def test_an_edit_of_other_facts_reclassifies_only_the_sites_that_read_them(tmp_path: Path, seed: int):
    files = {"openapi.yaml": CONTRACT, "src/api/http.ts": HTTP_TS, BIG: _big_ts()}
    live, ref_root = tmp_path / "live", tmp_path / "ref"
    _write(live, files)
    _write(ref_root, files)
    idx = WorkspaceIndex(live, use_cache=False)
    idx.build()
    ref = WorkspaceIndex(ref_root, use_cache=False)  # every edit linked in full
    ref.build()
    idx.update(BIG, files[BIG], incremental=True)
    idx.prepare_edits(BIG, files[BIG])
    rng = random.Random(seed)
    texts = dict(files)
    undo: tuple[str, int] | None = None
    partial = kept = 0
    for step in range(40):
        if undo is not None and rng.random() < 0.5:
            texts[BIG] = undo[0]  # the keystroke taken back, as the benchmark does
            undo = None
        else:
            before = texts[BIG]
            texts[BIG], _ = _edit(rng, before)
            undo = (before, step)
        runs, sites = idx.stats.get("read_links", 0), idx.stats.get("read_kept_sites", 0)
        idx.update(BIG, texts[BIG], incremental=True)
        partial += idx.stats.get("read_links", 0) > runs
        kept += idx.stats.get("read_kept_sites", 0) - sites
        ref.update(BIG, texts[BIG])
        assert _state(idx, files) == _state(ref, files), f"seed {seed}, edit {step}: {texts[BIG]!r}"
    assert partial >= 5 and kept > 0  # the read-set path was taken, and kept calls
    # and the end state is a fresh index's too
    _write(ref_root, texts)
    fresh = WorkspaceIndex(ref_root, use_cache=False)
    fresh.build()
    assert _state(idx, files) == _state(fresh, files)


def test_a_renamed_wrapper_reclassifies_its_callers_and_keeps_the_rest(tmp_path: Path):
    files = {"openapi.yaml": CONTRACT, "src/api/http.ts": HTTP_TS, BIG: _big_ts()}
    live, ref_root = tmp_path / "live", tmp_path / "ref"
    _write(live, files)
    idx = WorkspaceIndex(live, use_cache=False)
    idx.build()
    text = files[BIG]
    idx.update(BIG, text, incremental=True)
    idx.prepare_edits(BIG, text)
    calls = len(idx.calls[BIG])
    sites = len(idx.facts.get(BIG).calls)
    renamed = text.replace("function wrap3(", "function wrap3q(")
    # (``prepare_edits`` recorded the read sets: the first such edit needs no full link)
    for step, edited in enumerate((renamed, text, renamed)):
        before = dict(idx.stats)
        idx.update(BIG, edited, incremental=True)
        assert idx.stats.get("read_links", 0) == before.get("read_links", 0) + 1
        # load2's and load3's calls through wrap3 go with the name, and come back with it
        assert len(idx.calls[BIG]) == (calls - 2 if edited is renamed else calls)
        _write(ref_root, {**files, BIG: edited})
        ref = WorkspaceIndex(ref_root, use_cache=False)
        ref.build()
        assert _state(idx, files) == _state(ref, files), step
    kept = idx.stats["read_kept_sites"] - before.get("read_kept_sites", 0)
    # only the callers of wrap3 (in load2, load3) and the site in wrap3q are classified again
    assert kept == sites - 3
