"""The benchmark's rules phase (``bench/run.py`` calls it after the other phases): what
architecture rules and an active context manifest cost.

On the generated workspace, temporarily: a ``specward.toml`` with a ``layers`` rule over
the frontend's folders (indirect imports searched), a ``forbidden`` rule on the Python
client, a ``pure`` rule on every function of the Python client (it makes HTTP calls: the
bodies are read and parsed) and a ``no-hardcoded-config`` rule on the theme's colours
(every TypeScript file's text is read and searched for them), and a context manifest of a task on the big file (``specward context capture``
through the engine, depth 2, marked active). Then:

- a cold index in a fresh process with them (the cache's facts kept, its link results of
  other inputs not reusable: every file is judged again under the rules);
- in this process, edits of the big file (one of the manifest's targets, so every edit
  also judges the manifest's staleness): ``index.update`` → the file's findings, p50/p95;
- the number of violations and context findings, which must not be zero (else the phase
  measured nothing).

Everything it wrote is removed at the end, whatever happens.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

RULES = """\
[[invariants]]
id = "frontend-layers"
type = "layers"
layers = ["src/big", "src/catalog | src/billing | src/support", "src/api", "src/shared"]

[[invariants]]
id = "client-without-frontend"
type = "forbidden"
source = ["pyclient"]
forbidden = ["httpx"]

[[invariants]]
id = "client-functions-pure"
type = "pure"
modules = ["pyclient"]
all_functions = true

[[invariants]]
id = "theme-from-tokens"
type = "no-hardcoded-config"
config = "src/shared/ui/theme.ts"
keys = ["primary", "danger", "muted"]

[context]
confidence_threshold = 0.8
"""


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def run_rules_phase(ws: Path, big: str, edits: int, run_index_child, index_timeout: float) -> dict:
    from specward.server.engine.contexts import capture
    from specward.server.engine.index import WorkspaceIndex

    config = ws / "specward.toml"
    if config.exists():
        raise RuntimeError(f"{config} exists: the generated workspace has no configuration of its own")
    out: dict = {}
    try:
        config.write_text(RULES, "utf-8")
        idx = WorkspaceIndex(ws)
        idx.build()
        rel, manifest = capture(idx, [big], 2, [], "bench task", active=True)
        out["manifest_entries"] = len(manifest.entries)
        for p in ws.glob(".specward/cache.sqlite*"):  # the link results under the old inputs: not reusable anyway
            p.unlink()
        cold = run_index_child(ws, index_timeout)
        out["cold_s"] = cold["ready_s"]
        out["cold_analyze_s"] = cold["stats"].get("analyze_s")

        idx = WorkspaceIndex(ws)
        idx.build()
        found = idx.all_findings()
        out["violations"] = sum(f.code == "invariant-violation" for f in found)
        out["context_findings"] = sum(f.code in ("stale-context", "low-confidence-context", "out-of-context-edit")
                                      for f in found)
        text = (ws / big).read_text("utf-8")
        cut = text.rfind("\n", 0, len(text) // 2)
        latencies = []
        stale_seen = 0
        for i in range(edits):
            edited = text[:cut] + f"\n// edit {i}" + text[cut:] if i % 2 == 0 else text
            t0 = time.perf_counter()
            affected = idx.update(big, edited, incremental=True)
            for r in affected | {big}:
                idx.findings(r)
            latencies.append((time.perf_counter() - t0) * 1000)
            stale_seen += any(f.code == "stale-context" for f in idx.findings(rel))
        out["edit_ms"] = latencies
        out["edit_p50_ms"] = _pct(latencies, 50)
        out["edit_p95_ms"] = _pct(latencies, 95)
        out["stale_on_edit"] = stale_seen
    finally:
        config.unlink(missing_ok=True)
        shutil.rmtree(ws / ".specward" / "context", ignore_errors=True)
        for p in ws.glob(".specward/cache.sqlite*"):  # the next run starts from a cache without the rules
            p.unlink()
    return out
