#!/usr/bin/env python
"""specward benchmark: index, warm start, edit latency, contract re-check, memory.

    python bench/run.py [--files N] [--edits E] [--requests R] [--workdir DIR] [--json FILE]

Generates (or reuses) a synthetic workspace of N files (``bench/generate.py``), measures,
and prints one table: figure | value | target | ok?. Missing a target is not an error
(the table says MISSED and the exit status is 0); the exit status is non-zero only when
the benchmark itself breaks: the index finds no HTTP call, diagnostics never arrive, a
subprocess fails. See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (bench/generate.py)
from rules import run_rules_phase  # noqa: E402  (bench/rules.py)

PY = sys.executable
SERVER_CMD = (PY, "-m", "specward.server", "serve")


class BenchError(Exception):
    """The benchmark itself broke (not: a target was missed)."""


# =========================================================================== results


@dataclass
class Row:
    figure: str
    value: float | int | str | None
    unit: str = ""  # s, ms, MB, or "" for counts
    target: float | None = None  # the value must be <= target
    target_text: str = ""  # extra wording for the target column
    ok: bool | None = None  # None: informational row
    note: str = ""

    def show_value(self) -> str:
        if self.value is None:
            return "n/a"
        if isinstance(self.value, str):
            return self.value
        if self.unit == "s":
            return f"{self.value:.2f} s"
        if self.unit == "ms":
            return f"{self.value:.1f} ms"
        if self.unit == "MB":
            return f"{self.value:.0f} MB"
        if isinstance(self.value, float):
            return f"{self.value:,.1f}"
        return f"{self.value:,}"

    def show_target(self) -> str:
        parts = []
        if self.target is not None:
            parts.append(f"≤ {self.target:g} {self.unit}".rstrip())
        if self.target_text:
            parts.append(self.target_text)
        return " and ".join(parts) if parts else "—"

    def show_ok(self) -> str:
        return "" if self.ok is None else ("ok" if self.ok else "MISSED")


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def add(self, figure: str, value, unit: str = "", target: float | None = None, *, also: bool | None = None,
            target_text: str = "", note: str = "") -> Row:
        ok = None
        if target is not None or also is not None:
            ok = (value is not None and (target is None or value <= target)) and (also is None or also)
        row = Row(figure, value, unit, target, target_text, ok, note)
        self.rows.append(row)
        return row

    def table(self) -> str:
        head = ("figure", "value", "target", "ok?")
        cells = [(r.figure + (f" ({r.note})" if r.note else ""), r.show_value(), r.show_target(), r.show_ok())
                 for r in self.rows]
        widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
        line = lambda c: "| " + " | ".join(x.ljust(w) for x, w in zip(c, widths)) + " |"  # noqa: E731
        sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        return "\n".join([line(head), sep, *(line(c) for c in cells)])


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        raise BenchError("no samples")
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def vmhwm_kb(pid: int | str = "self") -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# =========================================================================== pure parse


def source_files(ws: Path) -> list[str]:
    """The files specward would parse: every file with an analyzed extension."""
    from specward.analyzers.languages import language_of

    out = []
    for dirpath, dirnames, filenames in os.walk(ws):
        dirnames[:] = sorted(d for d in dirnames if d not in (".specward", "node_modules"))  # as the walk
        rel_dir = os.path.relpath(dirpath, ws)
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            if language_of(rel) is not None:
                out.append(rel)
    return out


def pure_parse_seconds(ws: Path, sources: list[str]) -> float:
    """read + tree-sitter parse of every source file, one process, no queries."""
    from specward.analyzers.languages import language_of, parser

    langs = {rel: language_of(rel) for rel in sources}
    for name in set(langs.values()):
        parser(name)  # grammar loading is not parsing
    t0 = time.perf_counter()
    for rel in sources:
        data = (ws / rel).read_bytes()
        parser(langs[rel]).parse(data)
    return time.perf_counter() - t0


# =========================================================================== index subprocesses

CHILD = r"""
import json, resource, sys, time
from collections import Counter
from pathlib import Path

from specward.server.engine.index import WorkspaceIndex


def hwm():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])


def counts(idx):
    sts = idx.all_statuses()
    return len(sts), dict(Counter(s.status for s in sts))


ws = Path(sys.argv[1])
idx = WorkspaceIndex(ws)
idx.build()
t_built = time.perf_counter()
idx.facts.wait_stored()  # a cold start's parser processes write the facts after the build
t_cached = time.perf_counter()
_self, _children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu_s = _self.ru_utime + _self.ru_stime + _children.ru_utime + _children.ru_stime
calls, status = counts(idx)
out = {
    "t_built": t_built, "t_cached": t_cached, "cpu_s": cpu_s, "stats": idx.stats, "files": len(idx.facts), "skipped": len(idx.skipped),
    "calls": calls, "status": status, "endpoints": len(idx.table.endpoints), "contracts": len(idx.contracts),
    "contract_findings": [f.message for c in idx.contracts.values() for f in c.findings][:5],
    "unused": len(idx.unused),
}
# the import checks' verdicts and the field findings, as (file, 1-based line, code, message)
from specward.analyzers.fields import FIELD_CODES
IMPORT_CODES = ("phantom-import", "missing-export", "undeclared-dependency")
verdicts, field_findings, texts = [], [], {}
for f in idx.all_findings():
    if f.code in IMPORT_CODES or f.code in FIELD_CODES:
        data = texts.get(f.file) or texts.setdefault(f.file, (ws / f.file).read_bytes())
        item = (f.file, data.count(b"\n", 0, f.span.start) + 1, f.code, f.message)
        (verdicts if f.code in IMPORT_CODES else field_findings).append(item)
out["import_verdicts"] = sorted(verdicts)
out["field_findings"] = sorted(field_findings)
# the backends' routes composed across files, and the drift between them and the contracts
composed = idx.composed_routes()
out["routes"] = sorted({(c.method, c.path) for c in composed if c.unresolved is None})
out["routes_unresolved"] = sum(c.unresolved is not None for c in composed)
out["drift"] = sorted(f.code for f in idx.all_findings() if f.code in ("unimplemented-endpoint", "undeclared-route",
                                                                     "route-method-mismatch"))
t0 = time.perf_counter()
idx._composed = None  # composed again from the facts in memory: what a route edit costs
idx.composed_routes()
idx.drift_findings()
out["compose_s"] = time.perf_counter() - t0
if len(sys.argv) > 3:  # contract re-check: replace the contract's text, then restore it
    rel = sys.argv[2]
    original = (ws / rel).read_text("utf-8")
    edited = Path(sys.argv[3]).read_text("utf-8")
    t0 = time.perf_counter()
    changed = idx.update(rel, edited)
    t1 = time.perf_counter()
    _, status_edited = counts(idx)
    t2 = time.perf_counter()
    idx.update(rel, original)
    t3 = time.perf_counter()
    _, status_restored = counts(idx)
    out["recheck"] = {"remove_s": t1 - t0, "restore_s": t3 - t2, "changed_files": len(changed),
                      "status_edited": status_edited, "status_restored": status_restored}
out["vmhwm_kb"] = hwm()
out["children_maxrss_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
# (after the peak RSS is read) the registered analyses again, on every file's thin facts already in memory: their cost
# at any size (a cold build of fewer than 400 files runs them while linking, no analyze_s)
if len(sys.argv) <= 3:  # the cold child only
    from specward.analyzers.analyses import Context, analyze, thin
    thins = {rel: thin(f) for rel in sorted(idx.digests) if (f := idx.facts.get(rel)) is not None}
    t0 = time.perf_counter()
    ctx = Context(idx.analysis_input, thins.get, idx.resolver_config, idx.installed)
    for rel, facts in thins.items():
        analyze(facts, ctx)
    out["reanalyze_s"] = time.perf_counter() - t0
    out["reanalyzed_files"] = len(thins)
print("BENCH-RESULT " + json.dumps(out), flush=True)
"""


def run_index_child(ws: Path, timeout: float, recheck: tuple[str, Path] | None = None) -> dict:
    """A fresh interpreter that builds the index; wall time counts from before the spawn
    to the end of ``build()`` (perf_counter is CLOCK_MONOTONIC, shared by processes)."""
    args = [PY, "-c", CHILD, str(ws)]
    if recheck:
        args += [recheck[0], str(recheck[1])]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ws)
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"index subprocess did not finish within {timeout:.0f} s") from exc
    wall = time.perf_counter() - t0
    line = next((x for x in proc.stdout.splitlines() if x.startswith("BENCH-RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise BenchError(f"index subprocess failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    out = json.loads(line[len("BENCH-RESULT "):])
    out["ready_s"] = out["t_built"] - t0
    out["cached_s"] = out["t_cached"] - t0
    out["process_wall_s"] = wall
    if not 0 < out["ready_s"] <= out["cached_s"] <= wall:
        out["ready_s"] = out["cached_s"] = wall  # clocks not comparable: fall back to the (larger) process wall time
    return out


# =========================================================================== import checks

TSC = HERE.parent / "tests" / "imports" / "tools" / "node_modules" / ".bin" / "tsc"
# tsc's codes for what specward calls phantom-import / missing-export (docs/imports.md)
from specward.analyzers.codes import TSC_EQUIVALENTS as TSC_CODES  # noqa: E402


def check_field_findings(manifest: generate.Manifest, findings: list) -> tuple[dict, list]:
    """Per code, (planted found, planted); and the field findings that were not planted
    (each a false alarm: the generator writes every other body, parameter set and read to
    match the schemas). A finding is (file, 1-based line, code)."""
    planted = {(p["file"], p["line"], p["code"]) for p in manifest.field_phantoms}
    found = {(f, ln, c) for f, ln, c, _ in findings}
    per_code = {c: (len({p for p in planted if p[2] == c} & found), sum(p[2] == c for p in planted))
                for c in generate.FIELD_CODES}
    extra = sorted(v for v in findings if (v[0], v[1], v[2]) not in planted)
    return per_code, extra


def check_import_verdicts(manifest: generate.Manifest, verdicts: list) -> tuple[list, list]:
    """(planted verdicts not found, verdicts found that were not planted): both must be
    empty. A verdict is (file, 1-based line, code)."""
    planted = {(p["file"], p["line"], p["code"]) for p in manifest.import_phantoms}
    found = {(f, ln, c) for f, ln, c, _ in verdicts}
    missing = sorted(planted - found)
    extra = sorted(v for v in verdicts if (v[0], v[1], v[2]) not in planted)
    return missing, extra


def run_tsc(ws: Path, timeout: float) -> dict | None:
    """``tsc --noEmit -p tsconfig.json`` in the workspace (the generated tsconfig covers the
    .ts/.tsx files only, ``noEmit``, ``skipLibCheck``): its wall clock, cold (tsc keeps no
    state between runs without ``incremental``), and its import verdicts. None when tsc is
    not installed."""
    import re

    if not TSC.is_file():
        return None
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(TSC), "--noEmit", "-p", "tsconfig.json"], cwd=ws, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"tsc did not finish within {timeout:.0f} s") from exc
    wall = time.perf_counter() - t0
    pat = re.compile(r"^(.+?)\((\d+),(\d+)\): error (TS\d+): ")
    verdicts, codes = set(), collections.Counter()
    for line in proc.stdout.splitlines():
        m = pat.match(line)
        if m:
            codes[m.group(4)] += 1
            if m.group(4) in TSC_CODES:
                verdicts.add((m.group(1), int(m.group(2)), TSC_CODES[m.group(4)]))
    if proc.returncode not in (0, 1, 2) or (proc.returncode and not codes):
        raise BenchError(f"tsc failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    return {"wall_s": wall, "exit": proc.returncode, "verdicts": sorted(verdicts), "codes": dict(codes.most_common())}


# =========================================================================== LSP session


class Lsp:
    """The real server over stdio, driven by pygls' LanguageClient."""

    def __init__(self, ws: Path) -> None:
        from lsprotocol import types as lsp
        from pygls.lsp.client import LanguageClient

        self.lsp = lsp
        self.ws = ws
        self.client = LanguageClient("specward-bench", "1.0")
        self.loop = asyncio.get_running_loop()
        self.indexed = asyncio.Event()
        self.published = asyncio.Event()  # the server's startup diagnostics are all out
        self.index_end: float | None = None
        self.progress_end_message: str | None = None
        self.diags: dict[str, tuple[int | None, list, float]] = {}
        self.waiters: dict[tuple[str, int | None], asyncio.Future] = {}
        self.publishes = 0
        self.any_publish = asyncio.Event()  # set on every publish (waits on other files' diagnostics)
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=200)
        self._stderr_task: asyncio.Task | None = None
        self._exit_task: asyncio.Task | None = None
        self.server_error = asyncio.Event()  # the server logged an ERROR or a traceback
        self.pid: int | None = None
        c = self.client

        @c.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.publishes += 1
            self.diags[params.uri] = (params.version, params.diagnostics, now)
            self.any_publish.set()
            if not self.indexed.is_set():
                self._indexing_done(now)
            fut = self.waiters.pop((params.uri, params.version), None)
            if fut is not None and not fut.done():
                fut.set_result((now, params.diagnostics))

        @c.feature("specward/status")
        def on_status(params) -> None:
            if (params.get("published") if isinstance(params, dict) else getattr(params, "published", False)):
                self.published.set()

        @c.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def on_progress_create(params: lsp.WorkDoneProgressCreateParams) -> None:
            return None

        @c.feature(lsp.PROGRESS)
        def on_progress(params: lsp.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            if kind == "end":
                self.progress_end_message = value.get("message") if isinstance(value, dict) else None
                self._indexing_done(time.perf_counter())

        # what a real editor answers, so the server never waits on the benchmark
        @c.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def on_register(params) -> None:
            return None

        @c.feature(lsp.CLIENT_UNREGISTER_CAPABILITY)
        def on_unregister(params) -> None:
            return None

        @c.feature(lsp.WORKSPACE_CONFIGURATION)
        def on_configuration(params: lsp.ConfigurationParams) -> list:
            return [None for _ in params.items]

        @c.feature(lsp.WINDOW_LOG_MESSAGE)
        def on_log(params) -> None:
            self.stderr_tail.append(f"logMessage: {params.message}")

        @c.feature(lsp.WINDOW_SHOW_MESSAGE)
        def on_show(params) -> None:
            self.stderr_tail.append(f"showMessage: {params.message}")

    def _indexing_done(self, now: float) -> None:
        if not self.indexed.is_set():
            self.index_end = now
            self.indexed.set()

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        # the client pipes the server's stderr: read it so a chatty server never blocks
        while True:
            line = await stream.readline()
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()
            self.stderr_tail.append(text)
            if " ERROR " in text or text.startswith("Traceback"):
                self.server_error.set()

    def tail(self) -> str:
        return "\n".join(list(self.stderr_tail)[-40:])

    async def start(self) -> float:
        lsp = self.lsp
        t0 = time.perf_counter()
        await self.client.start_io(*SERVER_CMD, cwd=str(self.ws))
        server = self.client._server  # the asyncio subprocess pygls started
        self.pid = server.pid
        self._stderr_task = asyncio.create_task(self._drain_stderr(server.stderr))
        self._exit_task = asyncio.create_task(server.wait())
        caps = lsp.ClientCapabilities(
            window=lsp.WindowClientCapabilities(work_done_progress=True),
            text_document=lsp.TextDocumentClientCapabilities(
                synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=True),
                publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True)),
            workspace=lsp.WorkspaceClientCapabilities(workspace_folders=True),
            general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
        )
        uri = self.ws.as_uri()
        await self.wait(asyncio.ensure_future(self.client.initialize_async(lsp.InitializeParams(
            capabilities=caps, process_id=os.getpid(), root_uri=uri,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.ws.name)]))), 60, "the initialize reply")
        self.client.initialized(lsp.InitializedParams())
        return t0

    def expect(self, uri: str, version: int | None) -> asyncio.Future:
        fut = self.loop.create_future()
        self.waiters[(uri, version)] = fut
        return fut

    async def wait(self, fut: asyncio.Future, timeout: float, what: str, grace: float = 10.0):
        """``fut``'s result; fails when the server exits, after ``timeout``, or ``grace``
        seconds after the server logs an error (a failed index job never publishes)."""
        loop = self.loop
        deadline = loop.time() + timeout
        error_seen = False
        error_wait = asyncio.ensure_future(self.server_error.wait())
        try:
            while True:
                if error_seen:
                    deadline = min(deadline, loop.time() + grace)
                remaining = deadline - loop.time()
                waits = {fut, self._exit_task} | ({error_wait} if not error_seen else set())
                done, _ = await asyncio.wait(waits, timeout=max(remaining, 0), return_when=asyncio.FIRST_COMPLETED)
                if fut in done:
                    if fut.exception() is not None:
                        raise BenchError(f"{what} failed: {fut.exception()!r}\n"
                                         f"--- server stderr (tail) ---\n{self.tail()}")
                    return fut.result()
                if self._exit_task in done:
                    raise BenchError(f"the server exited (code {self._exit_task.result()}) while waiting for {what}\n"
                                     f"--- server stderr (tail) ---\n{self.tail()}")
                if error_wait in done and not error_seen:
                    error_seen = True
                    continue
                why = " (the server logged an error)" if error_seen else ""
                raise BenchError(f"timed out after {timeout if not error_seen else grace:.0f} s waiting for {what}{why}\n"
                                 f"--- server stderr (tail) ---\n{self.tail()}")
        finally:
            error_wait.cancel()
            if not fut.done():
                fut.cancel()

    async def shutdown(self) -> dict:
        """Clean shutdown; never leaves a request pending. Returns how it went."""
        out: dict[str, Any] = {}
        pending = [f for f in self.client.protocol._request_futures.values() if not f.done()]
        if pending:
            await asyncio.wait(pending, timeout=30)
        out["pending_at_shutdown"] = sum(1 for f in self.client.protocol._request_futures.values() if not f.done())
        server = self.client._server
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), 30)
            out["clean"] = True
        except (asyncio.TimeoutError, Exception) as exc:  # noqa: BLE001
            out["clean"] = False
            out["error"] = f"{type(exc).__name__}: {exc}"
            if server is not None and server.returncode is None:
                server.kill()  # only the server process this benchmark started
                await server.wait()
        out["exit_code"] = server.returncode if server is not None else None
        if self._stderr_task is not None:
            try:
                await asyncio.wait_for(self._stderr_task, 10)
            except asyncio.TimeoutError:
                self._stderr_task.cancel()
        return out


async def request_latencies(lsp_: Lsp, method: str, params: Callable[[int], Any], n: int,
                            accept_error: bool = False, timeout: float = 30.0) -> list[float]:
    """Send ``n`` requests one after another; the latency of each, in ms. With
    ``accept_error`` an error reply still counts as a round trip. Add a table row for any
    request with ``REQUEST_ROWS`` below."""
    from pygls.exceptions import JsonRpcException

    out = []
    for i in range(n):
        p = params(i)
        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(lsp_.client.protocol.send_request_async(method, p), timeout)
        except JsonRpcException:
            if not accept_error:
                raise
        except asyncio.TimeoutError:
            raise BenchError(f"{method}: no reply within {timeout:.0f} s") from None
        out.append((time.perf_counter() - t0) * 1000)
    return out


@dataclass
class RequestRow:
    """One request-latency row: ``params(ctx, i)`` builds the i-th request's params, where
    ctx has ``uri`` (big.ts, open), ``lsp`` (the lsprotocol types module) and
    ``target_line``/``target_char`` (the position of the edit target's URL)."""

    figure: str
    method: str
    params: Callable[[Any, int], Any]
    target_ms: float | None = None
    accept_error: bool = False


def _at(c, col: int):
    return c.lsp.TextDocumentIdentifier(c.uri), c.lsp.Position(c.target_line, col)


# Request-latency rows (the target: p95 <= 30 ms for hover, completion, definition).
REQUEST_ROWS: list[RequestRow] = [
    # The JSON-RPC floor: a method no server implements, answered with MethodNotFound.
    RequestRow("request round-trip floor (unknown method)", "specward/benchPing", lambda c, i: None, None, True),
    RequestRow("hover on a call", "textDocument/hover",
               lambda c, i: c.lsp.HoverParams(*_at(c, c.target_char + 2)), 30.0),
    RequestRow("completion in a URL string", "textDocument/completion",
               lambda c, i: c.lsp.CompletionParams(*_at(c, c.target_char + 1)), 30.0),
    RequestRow("definition of a call", "textDocument/definition",
               lambda c, i: c.lsp.DefinitionParams(*_at(c, c.target_char + 2)), 30.0),
]


@dataclass
class EditTarget:
    line: int
    start: int  # UTF-16 column of the path text (the file is ASCII)
    text: str


def find_field_target(text: str) -> EditTarget | None:
    """The key of the body-key edit target (``generate.FIELD_EDIT_MARKER``): its line and the
    column of its second letter (the keystroke)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if generate.FIELD_EDIT_MARKER in line:
            for j in range(i + 1, min(i + 6, len(lines))):
                k = lines[j].find("{ " + generate.FIELD_EDIT_KEY + ":")
                if k >= 0:
                    return EditTarget(j, k + 3, generate.FIELD_EDIT_KEY[1])
    return None


def find_edit_target(text: str) -> EditTarget:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if generate.EDIT_MARKER in line:
            for j in range(i + 1, min(i + 6, len(lines))):
                k = lines[j].find("`" + generate.EDIT_DECLARED + "`")
                if k >= 0:
                    return EditTarget(j, k + 1, generate.EDIT_DECLARED)
    raise BenchError(f"edit target ({generate.EDIT_MARKER}) not found in {generate.BIG_REL}")


async def lsp_benchmark(ws: Path, manifest: generate.Manifest, edits: int, requests: int, index_timeout: float,
                        edit_timeout: float) -> dict:
    server = Lsp(ws)
    lsp = server.lsp
    out: dict[str, Any] = {}
    try:
        t0 = await server.start()
        await server.wait(asyncio.ensure_future(server.indexed.wait()), index_timeout, "the end of indexing")
        out["ready_s"] = server.index_end - t0
        out["progress_end"] = server.progress_end_message

        big_path = ws / manifest.big
        text = big_path.read_text("utf-8")
        uri = big_path.as_uri()
        target = find_edit_target(text)
        fut = server.expect(uri, 1)
        t_open = time.perf_counter()
        server.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=text)))
        _, diags = await server.wait(fut, index_timeout, f"publishDiagnostics for {manifest.big} version 1 (didOpen)")
        out["open_ms"] = (time.perf_counter() - t_open) * 1000
        out["open_diagnostics"] = len(diags)
        # the edit figure is the steady state: the edits start once the server has published
        # the whole workspace's diagnostics (specward/status says so)
        t_pub = time.perf_counter()
        await server.wait(asyncio.ensure_future(server.published.wait()), index_timeout,
                          "the status notification that every file's diagnostics were published")
        out["published_after_open_ms"] = (time.perf_counter() - t_open) * 1000
        out["published_wait_ms"] = (time.perf_counter() - t_pub) * 1000

        latencies, wrong = [], []
        current = target.text
        for i in range(edits):
            version = 2 + i
            new = generate.EDIT_UNDECLARED if current == generate.EDIT_DECLARED else generate.EDIT_DECLARED
            rng = lsp.Range(lsp.Position(target.line, target.start),
                            lsp.Position(target.line, target.start + len(current)))
            fut = server.expect(uri, version)
            t_send = time.perf_counter()
            server.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangePartial(range=rng, text=new)]))
            t_recv, diags = await server.wait(fut, edit_timeout, f"publishDiagnostics for edit {i + 1} (version {version})")
            latencies.append((t_recv - t_send) * 1000)
            current = new
            on_line = [d for d in diags if d.range.start.line == target.line and str(d.code) == "phantom-api"]
            if bool(on_line) != (current == generate.EDIT_UNDECLARED):
                wrong.append(version)
        out["edit_ms"] = latencies
        out["edit_wrong_versions"] = wrong

        # the body-key edits (generator version 7): one keystroke deleting the second letter of
        # the key `name` of an object-literal body (`nme`: unknown-field), the next putting it back
        ft = find_field_target(text)
        if ft is not None:
            latencies, wrong, deleted = [], [], False
            base = 2 + edits
            for i in range(edits):
                version = base + i
                start = lsp.Position(ft.line, ft.start)
                change = (lsp.TextDocumentContentChangePartial(range=lsp.Range(start, lsp.Position(ft.line, ft.start + 1)),
                                                               text="")
                          if not deleted else lsp.TextDocumentContentChangePartial(range=lsp.Range(start, start),
                                                                                   text=ft.text))
                fut = server.expect(uri, version)
                t_send = time.perf_counter()
                server.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
                t_recv, diags = await server.wait(fut, edit_timeout, f"publishDiagnostics for body-key edit {i + 1} (version {version})")
                latencies.append((t_recv - t_send) * 1000)
                deleted = not deleted
                on_line = [d for d in diags if d.range.start.line == ft.line and str(d.code) in generate.FIELD_CODES]
                if [str(d.code) for d in on_line] != (["unknown-field"] if deleted else []):
                    wrong.append(version)
            out["field_edit_ms"] = latencies
            out["field_edit_wrong_versions"] = wrong
            out["field_edit_line"] = ft.line + 1

        out["random_edits"] = {}
        for rel in manifest.calls_files:
            out["random_edits"][rel] = await random_edits(server, ws / rel, edits, index_timeout, edit_timeout)

        if manifest.flag_importers:
            out["export_edits"] = await export_edits(server, ws, manifest, max(5, edits // 4), index_timeout,
                                                     edit_timeout)

        class Ctx:
            pass

        ctx = Ctx()
        ctx.uri, ctx.lsp, ctx.target_line, ctx.target_char = uri, lsp, target.line, target.start
        out["requests"] = {}
        for rr in REQUEST_ROWS:
            out["requests"][rr.figure] = await request_latencies(
                server, rr.method, lambda i, rr=rr: rr.params(ctx, i), requests, rr.accept_error)
        out["server_vmhwm_kb"] = vmhwm_kb(server.pid)
    finally:
        out["shutdown"] = await server.shutdown()
    return out


RANDOM_EDIT_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_ ./"


async def random_edits(server: Lsp, path: Path, edits: int, open_timeout: float, edit_timeout: float) -> dict:
    """Open ``path``, then ``edits`` keystrokes at random positions (seeded): each odd edit
    inserts one character at a random line and column, the next one deletes it again.
    Latency as for the edit target: from sending the ``didChange`` to the publish of that
    version. Every undo must bring back the diagnostics of the ``didOpen``."""
    import random

    lsp = server.lsp
    text = path.read_text("utf-8")
    lines = text.split("\n")
    uri = path.as_uri()
    fut = server.expect(uri, 1)
    t_open = time.perf_counter()
    server.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=text)))
    _, diags = await server.wait(fut, open_timeout, f"publishDiagnostics for {path.name} version 1 (didOpen)")
    open_ms = (time.perf_counter() - t_open) * 1000

    def key(ds: list) -> list:
        return sorted((d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
                       str(d.code), d.message) for d in ds)

    expected = key(diags)
    rng = random.Random(f"{path.name}-{edits}")
    latencies, wrong, inserted = [], [], None
    for i in range(edits):
        version = 2 + i
        if inserted is None:
            line = rng.randrange(len(lines))
            col = rng.randint(0, len(lines[line]))
            pos = lsp.Position(line, col)
            change = lsp.TextDocumentContentChangePartial(range=lsp.Range(pos, pos), text=rng.choice(RANDOM_EDIT_CHARS))
            inserted = pos
        else:
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(inserted, lsp.Position(inserted.line, inserted.character + 1)), text="")
            inserted = None
        fut = server.expect(uri, version)
        t_send = time.perf_counter()
        server.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
        t_recv, diags = await server.wait(fut, edit_timeout, f"publishDiagnostics for {path.name} edit {i + 1} (version {version})")
        latencies.append((t_recv - t_send) * 1000)
        if inserted is None and key(diags) != expected:
            wrong.append(version)
    return {"open_ms": open_ms, "open_diagnostics": len(diags), "edit_ms": latencies, "wrong_versions": wrong,
            "lines": len(lines), "bytes": len(text.encode("utf-8"))}


async def export_edits(server: Lsp, ws: Path, manifest: generate.Manifest, pairs: int, open_timeout: float,
                       edit_timeout: float) -> dict:
    """Open the module behind the barrel chain (``manifest.flag_module``); one pair of edits
    at once (``first_ms``: the keystroke right after the open, while the server still gets
    the document's dependents ready); then, once the server is idle (a request answered
    after the jobs the open queued: the steady state, as for the other edit rows), ``pairs``
    times: one keystroke deleting the last letter of the export ``manifest.flag_export``
    (``benchFlags`` -> ``benchFlag``), then one putting it back. Latency: from sending the
    ``didChange`` to the publish after which **every** importer (``manifest.flag_importers``,
    files the editor does not have open, importing the name from ``'@/shared'``) has a
    ``missing-export`` for the name on its import line (after a removal) or none (after a
    restore). An edit whose importers are not all right within ``edit_timeout`` counts as
    wrong (and its latency is not a sample)."""
    lsp = server.lsp
    path = ws / manifest.flag_module
    text = path.read_text("utf-8")
    lines = text.split("\n")
    uri = path.as_uri()
    name = manifest.flag_export
    row = next(i for i, ln in enumerate(lines) if ln.startswith(f"export const {name} "))
    col = lines[row].index(name) + len(name) - 1  # the last letter
    importers = {}
    for rel in manifest.flag_importers:
        ilines = (ws / rel).read_text("utf-8").split("\n")
        importers[(ws / rel).as_uri()] = next(i for i, ln in enumerate(ilines) if f"{{ {name} }}" in ln)
    fut = server.expect(uri, 1)
    server.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=text)))
    await server.wait(fut, open_timeout, f"publishDiagnostics for {manifest.flag_module} version 1 (didOpen)")

    def flagged(iuri: str) -> bool:
        got = server.diags.get(iuri)
        return bool(got) and any(d.range.start.line == importers[iuri] and str(d.code) == "missing-export"
                                 and name in d.message for d in got[1])

    async def until(removed: bool, t_send: float) -> float | None:
        deadline = time.perf_counter() + edit_timeout
        while True:
            server.any_publish.clear()
            if all(flagged(u) == removed for u in importers):
                return max([server.diags[u][2] for u in importers if u in server.diags] or [t_send]) - t_send
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(server.any_publish.wait(), left)
            except asyncio.TimeoutError:
                pass

    removals, restores, wrong, first = [], [], [], []
    for i in range(2 * pairs + 2):
        version = 2 + i
        remove = i % 2 == 0
        if i == 2:  # the steady state from here: the index thread has done what the open queued
            await server.wait(asyncio.ensure_future(server.client.protocol.send_request_async(
                "textDocument/documentSymbol", lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))),
                edit_timeout, "the documentSymbol reply (the server idle after the open)")
        start = lsp.Position(row, col)
        change = (lsp.TextDocumentContentChangePartial(range=lsp.Range(start, lsp.Position(row, col + 1)), text="")
                  if remove else lsp.TextDocumentContentChangePartial(range=lsp.Range(start, start), text=name[-1]))
        t_send = time.perf_counter()
        server.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
        took = await until(remove, t_send)
        if took is None:
            wrong.append(version)
        elif i < 2:
            first.append(took * 1000)
        else:
            (removals if remove else restores).append(took * 1000)
    still = [u for u in importers if flagged(u)]
    return {"removal_ms": removals, "restore_ms": restores, "first_ms": first, "wrong_versions": wrong,
            "importers": len(importers),
            "flagged_at_end": len(still)}


# Targets of the random-position edit rows, by line count of the file (the issue's).
RANDOM_EDIT_TARGETS_MS = {2000: 50.0, 10000: 100.0}


# =========================================================================== main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000, help="workspace size (default 10000)")
    ap.add_argument("--edits", type=int, default=200, help="edits for the edit-latency figure (default 200)")
    ap.add_argument("--requests", type=int, default=200, help="requests per request-latency row (default 200)")
    ap.add_argument("--workdir", type=Path, default=HERE / ".work", help="where workspaces live (default bench/.work)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    args = ap.parse_args(argv)
    if args.files < 10 or args.edits < 1 or args.requests < 1:
        ap.error("--files must be >= 10, --edits and --requests >= 1")
    try:
        report = run(args)
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    for line in report.details.get("notes", []):
        print(f"  {line}")
    if args.json:
        payload = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                   "rows": [asdict(r) for r in report.rows], "details": report.details}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


def git_state() -> dict | None:
    """The specward commit measured (and whether the tree had local changes)."""
    try:
        head = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(HERE.parent), "status", "--porcelain", "--", ".", ":!bench"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"head": head or None, "dirty": bool(dirty)} if head else None


def run(args) -> Report:
    t_start = time.perf_counter()
    workdir: Path = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    ws, manifest = generate.ensure_workspace(workdir, args.files, log=log)
    rep = Report()
    d = rep.details
    d["workspace"] = str(ws)
    d["manifest"] = asdict(manifest)
    d["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
    d["git"] = git_state()
    d["loadavg_start"] = os.getloadavg()
    n = manifest.files
    # generous, size-scaled timeouts: they only catch a hung benchmark
    index_timeout = 120 + n * 0.2
    edit_timeout = 60.0  # only there to catch a hung server

    # 1. the baseline: pure tree-sitter parsing
    sources = source_files(ws)
    total_bytes = sum((ws / r).stat().st_size for r in sources)
    log(f"pure parse of {len(sources):,} files ...")
    parse_before = pure_parse_seconds(ws, sources)

    # 2. cold index in a fresh process
    shutil.rmtree(ws / ".specward", ignore_errors=True)
    log("cold index (fresh process, no cache) ...")
    cold = run_index_child(ws, index_timeout)
    if not (ws / ".specward" / "cache.sqlite").is_file():
        raise BenchError("the cold index wrote no cache (.specward/cache.sqlite)")
    if cold["calls"] <= 0:
        raise BenchError("the index found no HTTP call in the generated workspace")
    # the baseline again, right after: this machine's speed drifts (up to 2x within an hour),
    # and the cold index is compared with the mean of the parse times around it
    log("pure parse again ...")
    parse_after = pure_parse_seconds(ws, sources)
    parse_s = (parse_before + parse_after) / 2

    # the import checks must find what the generator planted, and nothing else
    missing, extra = check_import_verdicts(manifest, cold["import_verdicts"])
    if missing or extra:
        raise BenchError("the import checks' verdicts differ from what the generator planted:\n"
                         + "".join(f"  planted, not found: {m}\n" for m in missing)
                         + "".join(f"  found, not planted: {e}\n" for e in extra))

    # 3. warm start in another fresh process, then the contract re-check in that process
    api = generate.build_api()
    removed = next(ep for ep in api.openapi if ep.method == "GET" and ep.openapi_path() == "/users/{userId}")
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        edited = Path(tmp) / "openapi-edited.yaml"
        edited.write_text(generate.render_openapi(api, skip=removed), "utf-8")
        log("warm start (fresh process, cache present) + contract re-check ...")
        warm = run_index_child(ws, index_timeout, recheck=(manifest.openapi, edited))
    if warm["calls"] != cold["calls"] or warm["status"] != cold["status"]:
        raise BenchError(f"warm start found other calls than the cold index: {warm['status']} vs {cold['status']}")
    field_per_code, field_extra = check_field_findings(manifest, cold["field_findings"])
    if warm["import_verdicts"] != cold["import_verdicts"]:
        raise BenchError(f"warm start gave other import verdicts than the cold index: {warm['import_verdicts']}")
    if warm["stats"].get("parsed_files", 0) > 0:
        d.setdefault("notes", []).append(f"warm start re-parsed {warm['stats']['parsed_files']:.0f} file(s): the cache missed")
    rc = warm["recheck"]
    if rc["status_restored"] != warm["status"]:
        raise BenchError(f"restoring the contract did not restore the statuses: {rc['status_restored']} vs {warm['status']}")
    if rc["status_edited"] == warm["status"]:
        raise BenchError("removing GET /users/{userId} from the contract changed no call's status")

    # 4. the real server over stdio
    log(f"LSP: start the server, open {manifest.big}, {args.edits} edits, {args.requests} requests per row ...")
    # the server's start-up is a warm build like the one just measured: scale its timeout to it
    server_timeout = min(index_timeout, 60 + 4 * warm["ready_s"])
    live = asyncio.run(lsp_benchmark(ws, manifest, args.edits, args.requests, server_timeout, edit_timeout))

    # 5. tsc on the same TypeScript files, once, cold (nothing else runs meanwhile)
    log("tsc --noEmit on the workspace's TypeScript files ..." if TSC.is_file() else "tsc not installed")
    tsc = run_tsc(ws, 1800)

    # 6. architecture rules and an active context manifest (bench/rules.py)
    log(f"rules phase: 4 architecture rules, an active context manifest, {args.edits} edits of {manifest.big} ...")
    rules = run_rules_phase(ws, manifest.big, args.edits, run_index_child, index_timeout)

    # ------------------------------------------------------------------ the table
    st = cold["status"]
    exp = manifest.expected
    rep.add("source files", len(sources))
    rep.add("source bytes", total_bytes, note=f"avg {total_bytes / max(len(sources), 1) / 1024:.1f} KB/file")
    rep.add("HTTP calls found", cold["calls"], note=f"generator planted {exp['calls']:,}")
    rep.add("phantom calls", st.get("phantom", 0), note=f"planted {exp['phantom']:,}")
    rep.add("method-mismatch calls", st.get("method-mismatch", 0), note=f"planted {exp['mismatch']:,}")
    rep.add("unresolved calls", st.get("unresolved", 0), note="planted 0")
    rep.add("pure tree-sitter parse", parse_s, "s",
            note=f"read + parse, 1 process, baseline; mean of {parse_before:.2f} s before and {parse_after:.2f} s after the cold index")
    cs = cold["stats"]
    rep.add("cold index", cold["ready_s"], "s", 15.0, also=cold["ready_s"] <= 2 * parse_s,
            target_text=f"≤ 2× parse ({2 * parse_s:.2f} s)",
            note=(f"fresh process, every file's diagnostics known; extract+link {cs['extract_s']:.2f} s "
                  + (f"in the parser processes ({cs['linked_in_parsers']:.0f} files)" if "linked_in_parsers" in cs
                     else f"(linking here {cs.get('link_during_extract_s', 0):.2f} s)")
                  + f", then link+match {cs['link_s']:.2f} s"))
    rep.add("cold index, facts cached", cold["cached_s"], "s",
            note="the parser processes' facts stored in the cache (after the index is ready)")
    rep.add("cold index CPU time, all processes", cold["cpu_s"], "s",
            note=f"{cold['cpu_s'] / parse_s:.1f}× the parse; start-up, extraction, linking, caching")
    rep.add("warm start", warm["ready_s"], "s", 2.0,
            note=f"fresh process, cache; link+match {warm['stats']['link_s']:.2f} s")
    edit = live["edit_ms"]
    rep.add("edit → diagnostics p50", pct(edit, 50), "ms", note=f"{len(edit)} edits of {manifest.big}")
    rep.add("edit → diagnostics p95", pct(edit, 95), "ms", 50.0)
    rep.add("edits whose diagnostics were right", len(edit) - len(live["edit_wrong_versions"]),
            also=not live["edit_wrong_versions"], target_text=f"= {len(edit)}")
    fe = live.get("field_edit_ms")
    if fe:
        rep.add("body-key edit → diagnostics p50", pct(fe, 50), "ms",
                note=f"{len(fe)} keystrokes in the key `{generate.FIELD_EDIT_KEY}` of an object-literal body, "
                     f"{manifest.big}:{live['field_edit_line']}")
        rep.add("body-key edit → diagnostics p95", pct(fe, 95), "ms", 50.0)
        rep.add("body-key edits whose diagnostics were right", len(fe) - len(live["field_edit_wrong_versions"]),
                also=not live["field_edit_wrong_versions"], target_text=f"= {len(fe)}",
                note="an unknown-field on the line exactly when the key is misspelt")
    for rel in manifest.calls_files:
        r = live["random_edits"][rel]
        lat = r["edit_ms"]
        n_lines = generate.CALLS_FILES.get(rel, r["lines"])
        what = f"{n_lines:,}-line file"
        rep.add(f"random edit → diagnostics p50, {what}", pct(lat, 50), "ms",
                note=f"{len(lat)} keystrokes in {rel}, {r['bytes'] / 1024:.0f} KB")
        rep.add(f"random edit → diagnostics p95, {what}", pct(lat, 95), "ms", RANDOM_EDIT_TARGETS_MS.get(n_lines))
        undos = len(lat) // 2
        rep.add(f"undos that restored the diagnostics, {what}", undos - len(r["wrong_versions"]),
                also=not r["wrong_versions"], target_text=f"= {undos}")
    for rr in REQUEST_ROWS:
        lat = live["requests"][rr.figure]
        rep.add(f"{rr.figure} p50", pct(lat, 50), "ms", note=f"{len(lat)} requests")
        rep.add(f"{rr.figure} p95", pct(lat, 95), "ms", rr.target_ms)
    # the import checks (issue 11)
    planted = manifest.import_phantoms
    by_code = collections.Counter(v[2] for v in cold["import_verdicts"])
    rep.add("import verdicts found = planted", len(cold["import_verdicts"]), also=True,
            target_text=f"= {len(planted)}, no other",
            note=", ".join(f"{c} {by_code.get(c, 0)}" for c in generate.IMPORT_CODES)
            + "; else the run fails")
    # the field checks (issue 14): the planted mistakes found, nothing else, on the cold index
    if manifest.field_phantoms:
        for code, (got, want) in field_per_code.items():
            if want:
                rep.add(f"field findings = planted: {code}", f"{got}/{want}", also=got == want, target_text=f"= {want}/{want}",
                    note="cold index; " + ", ".join(
                        f"{sum(p['code'] == code and p['file'].endswith(ext) for p in manifest.field_phantoms)} {lang}"
                        for lang, ext in (("TS/JS", (".ts", ".tsx", ".js", ".jsx")), ("Python", (".py",)))))
        fs = manifest.field_sites
        rep.add("false field findings", len(field_extra), also=not field_extra, target_text="= 0",
                note=(f"any {'/'.join(generate.FIELD_CODES)} not planted, of {fs.get('bodies', 0)} literal bodies, "
                      f"{fs.get('params', 0)} params objects, {fs.get('reads', 0)} response reads; "
                      + ("; ".join(f"{f}:{ln} {c}: {m}" for f, ln, c, m in field_extra[:3]) or "none")
                      + (f"; +{len(field_extra) - 3} more (--json: details.cold.field_findings)" if len(field_extra) > 3 else "")))
        same = warm["field_findings"] == cold["field_findings"]
        rep.add("field findings, warm start = cold index", "yes" if same else "no", also=same, target_text="yes",
                note=f"{len(cold['field_findings'])} findings" + ("" if same else f" cold, {len(warm['field_findings'])} warm"))
    # the backends (issue 13): every contract entry's route found with its full path, no drift
    declared = {(ep.method, (generate.API_PREFIX + ep.openapi_path()) if ep.kind == "openapi" else ep.dsl_path())
                for ep in generate.build_api().all}
    found = {(m, re.sub(r"\{[^}]*\}", "{}", p)) for m, p in cold["routes"]}
    want = {(m, re.sub(r"\{[^}]*\}|:\w+", "{}", p)) for m, p in declared}
    rep.add("backend routes composed across files = planted", len(found & want), also=found == want,
            target_text=f"= {manifest.routes}, no other",
            note=f"FastAPI and Express, prefixes from 3 files; {cold['routes_unresolved']} unresolved")
    rep.add("drift findings (contracts vs routes)", len(cold["drift"]), also=not cold["drift"], target_text="= 0",
            note="every contract entry is implemented once")
    rep.add("route composition and drift, all routes", cold["compose_s"] * 1000, "ms",
            note="composed again from the facts in memory (what a route or mount edit costs)")
    an = cs.get("analyze_s")
    rep.add("import analysis in the cold build (analyze_s)", an, "s",
            note=("the registered analyses on the parser processes' thin facts" if an is not None
                  else "n/a: below 400 files the analyses run while linking, inside extract+link"))
    rep.add("import analysis re-run, every file", cold["reanalyze_s"], "s",
            note=f"{cold['reanalyzed_files']:,} files' thin facts in memory, a fresh resolver")
    ex = live.get("export_edits")
    if ex:
        lat = ex["removal_ms"]
        what = f"{ex['importers']} importers"
        rep.add(f"export removal → every importer's diagnostic p50, {what}",
                pct(lat, 50) if lat else None, "ms",
                note=f"{len(lat)} one-letter deletions in {manifest.flag_module}, imported through '@/shared' (2 export * levels)")
        rep.add(f"export removal → every importer's diagnostic p95, {what}", pct(lat, 95) if lat else None,
                "ms", 50.0, note=f"restores: p95 {pct(ex['restore_ms'], 95):.1f} ms" if ex["restore_ms"] else "")
        if ex.get("first_ms"):
            rep.add("export removal and restore right after the didOpen", " / ".join(f"{x:.0f} ms" for x in ex["first_ms"]),
                    note="the first keystroke: the server is still loading what the document's importers' "
                         "checks read (not in the p50/p95 above)")
        n_ex = len(ex["removal_ms"]) + len(ex["restore_ms"]) + len(ex["wrong_versions"])
        rep.add("export edits whose importers were all right", n_ex - len(ex["wrong_versions"]),
                also=not ex["wrong_versions"] and ex["flagged_at_end"] == 0, target_text=f"= {n_ex}",
                note=f"within {edit_timeout:.0f} s each")
    specward_s = cold["ready_s"]
    if tsc is None:
        rep.add("tsc --noEmit, cold", "tsc not installed (cd tests/imports/tools && npm ci)")
    else:
        n_ts = sum(v for k, v in manifest.by_language.items() if k in ("ts", "tsx"))
        rep.add("tsc --noEmit, cold", tsc["wall_s"], "s",
                note=f"{n_ts:,} .ts/.tsx files (+ .d.ts of node_modules), wall clock, exit {tsc['exit']}")
        ratio = tsc["wall_s"] / specward_s
        rep.add("tsc cold / specward cold index", f"{ratio:.1f}×", also=ratio >= 10, target_text="≥ 10×",
                note=f"the cold index row, {specward_s:.2f} s: a full cold check of every file, see bench/README.md")
        warm_s = warm["ready_s"]
        rep.add("tsc cold / specward warm start", f"{tsc['wall_s'] / warm_s:.1f}×", also=tsc["wall_s"] / warm_s >= 10,
                target_text="≥ 10×", note=f"the warm start row, {warm_s:.2f} s: every verdict again, from the cache")
        judge_s, judged = (an, "analyze_s") if an else (cold["reanalyze_s"], "the re-run")
        rep.add("tsc cold / specward import analysis alone", f"{tsc['wall_s'] / judge_s:.0f}×",
                note=f"{judged}, {judge_s:.2f} s: facts already extracted")
        ours = {(f, ln, c) for f, ln, c, _ in cold["import_verdicts"]
                if c != "undeclared-dependency" and f.endswith((".ts", ".tsx"))}
        theirs = set(tsc["verdicts"])
        rep.add("import verdicts tsc agrees with", len(ours & theirs), also=ours == theirs,
                target_text=f"= {len(ours)} (specward's in .ts/.tsx, undeclared-dependency aside), and no tsc-only",
                note=f"specward only: {sorted(ours - theirs) or 'none'}; tsc only: {sorted(theirs - ours) or 'none'}")
        d["tsc"] = tsc
    recheck_s = max(rc["remove_s"], rc["restore_s"])
    rep.add("contract re-check (max of remove/restore)", recheck_s, "s", 1.0,
            note=f"remove {rc['remove_s']:.2f} s, restore {rc['restore_s']:.2f} s")
    ran = rules["cold_analyze_s"]
    rep.add("cold index, 4 architecture rules + an active context manifest", rules["cold_s"], "s",
            note=f"{rules['cold_s'] / cold['ready_s']:.2f}× the cold index row"
                 + (f", the analyses {ran:.2f} s (without the rules {an:.2f} s)" if ran is not None and an else "")
                 + f"; {rules['violations']:,} violations "
                 f"(layers over 4 frontend layers with indirect chains, a forbidden package, pure functions, "
                 f"hard-coded config values), "
                 f"{rules['manifest_entries']} manifest entries")
    rep.add("edit → findings p50, rules + active manifest (in process)", rules["edit_p50_ms"], "ms",
            note=f"{len(rules['edit_ms'])} edits of {manifest.big}, a target of the manifest: index.update and the "
                 "affected files' findings")
    rep.add("edit → findings p95, rules + active manifest (in process)", rules["edit_p95_ms"], "ms", 50.0)
    judged = rules["violations"] > 0 and rules["stale_on_edit"] == (len(rules["edit_ms"]) + 1) // 2
    rep.add("rules phase judged something", "yes" if judged else "no", also=judged,
            target_text="violations > 0, stale-context after every changing edit",
            note=f"stale-context after {rules['stale_on_edit']} of {(len(rules['edit_ms']) + 1) // 2} changing edits")
    srv = live.get("server_vmhwm_kb")
    rep.add("server peak RSS (VmHWM)", srv / 1024 if srv else None, "MB", 400.0)
    rep.add("cold-index process peak RSS", cold["vmhwm_kb"] / 1024, "MB",
            note=(f"its parser workers: max {cold['children_maxrss_kb'] / 1024:.0f} MB each"
                  if cold["children_maxrss_kb"] else "no parser workers below 400 files"))
    sd = live["shutdown"]
    rep.add("clean server shutdown", "yes" if sd.get("clean") else "no", also=bool(sd.get("clean")) and
            sd.get("pending_at_shutdown") == 0 and sd.get("exit_code") == 0,
            target_text="exit 0, no pending request",
            note=f"exit {sd.get('exit_code')}, {sd.get('pending_at_shutdown')} pending")

    d["parse_s"] = parse_s
    d["parse_before_s"], d["parse_after_s"] = parse_before, parse_after
    d["cold"] = cold
    d["rules"] = rules
    d["warm"] = warm
    d["lsp"] = {k: v for k, v in live.items()}
    notes = d.setdefault("notes", [])
    g = d["git"]
    notes.insert(0, f"specward {g['head']}{' + local changes' if g['dirty'] else ''}; " if g else "")
    notes[0] += (f"workspace {ws} ({manifest.by_language}); server ready in {live['ready_s']:.2f} s "
                 f"(warm cache), didOpen → diagnostics {live['open_ms']:.0f} ms, every file's diagnostics published {live['published_after_open_ms']:.0f} ms after the didOpen; total bench time "
                 f"{time.perf_counter() - t_start:.0f} s; 1-min load average {d['loadavg_start'][0]:.2f} at the "
                 f"start, {os.getloadavg()[0]:.2f} at the end (other processes skew every timing)")
    found_by_status = {"matched": st.get("matched", 0), "phantom": st.get("phantom", 0),
                       "mismatch": st.get("method-mismatch", 0)}
    missing = {k: exp[k] - v for k, v in found_by_status.items() if exp[k] != v}
    if missing or st.get("unresolved", 0):
        notes.append(f"found ≠ planted (planted minus found, by status: {missing}, unresolved {st.get('unresolved', 0)}): "
                     "calls the extractor/linker dropped or misread; `specward calls` on the workspace lists what it saw")
    if cold["contract_findings"]:
        notes.append(f"contract findings (the generated contracts should be clean): {cold['contract_findings']}")
    return rep


if __name__ == "__main__":
    raise SystemExit(main())
