"""The tools for coding agents, as plain Python over one ``WorkspaceIndex``: what
``specward mcp`` serves (``mcp_server.py``, ``docs/agents.md``) and what the stage commands
use to check the files they propose (``slice_cli``, ``update_cli``, ``stage_files``).

- ``check_text(path, content)``: the findings of ``path`` if it held ``content``;
- ``endpoints(prefix, tag)``: the contract's endpoints;
- ``resolve_import(from_path, module, name)``: whether an import would resolve, and what is
  nearest when it would not;
- ``ledger_prompt()``: the "DO NOT REPEAT" section of the fix-history ledger;
- ``project_map()``: where routes, data models, API clients, contracts and configuration live;
- ``context_capture(paths)`` / ``context_check(manifest)``: a context manifest, computed
  and returned (never written), and what a manifest lacks.

Read-only: no tool writes to the workspace. The only files written are the index's own
cache under ``.specward/`` (as for ``specward check``). ``check_text`` runs the index's
in-memory update path with the proposed text and then updates the file back from the disk
(``update_from_disk``), under one lock, so the index is the disk's again after each call
and a file that does not exist is not left in it.

Every path an agent gives is confined to the workspace: a relative path is checked
lexically (``analyzers/stages/confine.py``: no ``..`` escape, no drive, no NUL) and on the
disk (``stages_paths.resolve_inside``: no symlink out); an absolute path is accepted only
inside the workspace root, and used relative to it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from specward.analyzers.lines import LineIndex
from specward.analyzers.matching import full_path
from specward.analyzers.model import Finding
from specward.analyzers.stages.confine import PathRefused

from .engine.index import WorkspaceIndex
from .engine.workspace import find_project_root
from .stages_paths import resolve_inside

log = logging.getLogger(__name__)

_TOP_CONFIG = ("specward.toml", "pyproject.toml")  # an update of one rebuilds the index from the disk
_CONFIG_NAMES = {"package.json", "tsconfig.json", "jsconfig.json", "pyproject.toml", "setup.cfg", "setup.py",
                 "specward.toml", ".importlinter", "pnpm-workspace.yaml", "angular.json", "nuxt.config.ts",
                 "nuxt.config.js", "svelte.config.js", "vite.config.ts", "vite.config.js", "next.config.js",
                 "next.config.mjs", "next.config.ts", "webpack.config.js", "manage.py", "settings.py"}
_PY_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class ToolError(ValueError):
    """A request the tools refuse (a path outside the workspace, a bad argument): its
    message goes back to the agent as the tool's error."""


def workspace_root(start: Path) -> Path:
    """The project ``start`` belongs to, found as ``specward check`` finds it (the nearest
    ``specward.toml``, ``pyproject.toml`` with ``[tool.specward]`` or ``.git``); ``start``
    itself when there is none."""
    start = start.resolve()
    hit = find_project_root(start)
    return hit[0] if hit is not None else start


def _plain(value: Any) -> Any:
    """``value`` as JSON data: dataclasses as dicts, tuples as lists, the rest as text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return str(value)


class Tools:
    """The tools, over one ``WorkspaceIndex``. Thread-safe: every call takes ``lock``, and
    the index is built once, in the background, before the first call answers."""

    def __init__(self, root: Path, use_cache: bool = True) -> None:
        self.root = Path(root).resolve()
        self.index = WorkspaceIndex(self.root, use_cache=use_cache)
        self.lock = threading.Lock()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Build the index on a thread of its own (the client's handshake is not delayed)."""
        self._thread = threading.Thread(target=self._build, name="specward-mcp-build", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        try:
            self.index.build()
        except BaseException as exc:  # noqa: BLE001 - reported by every tool call
            log.exception("indexing %s failed", self.root)
            self._failed = exc
        finally:
            self._ready.set()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is None:
            self.start()
        if not self._ready.wait(timeout):
            raise ToolError("the workspace is still being indexed; try again in a moment")
        if self._failed is not None:
            raise ToolError(f"indexing the workspace failed: {type(self._failed).__name__}: {self._failed}")

    def close(self) -> None:
        self.index.cancel()

    # ------------------------------------------------------------------ paths
    def rel(self, path: str, what: str = "path") -> str:
        """``path`` (relative to the workspace root, or absolute inside it) as the index's
        workspace-relative posix path; :class:`ToolError` when it leaves the workspace."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError(f"{what}: a file path is required")
        given = path
        if os.path.isabs(path):
            absolute = os.path.normpath(path)
            for root in dict.fromkeys((str(self.root), os.path.normpath(os.path.abspath(self.root)))):
                if absolute != root and os.path.commonpath([absolute, root]) == root:
                    path = os.path.relpath(absolute, root).replace(os.sep, "/")
                    break
            else:
                raise ToolError(f"{what} {given!r} refused: absolute and outside the workspace {self.root}")
        try:
            return resolve_inside(self.root, path).path
        except PathRefused as exc:
            raise ToolError(f"{what}: {exc}") from None

    # ------------------------------------------------------------------ findings
    def _finding_json(self, f: Finding, lines: LineIndex, texts: dict[str, LineIndex]) -> dict:
        line, col = lines.position(f.span.start)
        end_line, end_col = lines.position(f.span.end)
        out: dict[str, Any] = {"code": f.code, "severity": f.severity, "message": f.message,
                               "line": line + 1, "column": col + 1, "end_line": end_line + 1,
                               "end_column": end_col + 1}
        data = dict(f.data)
        fixes = []
        for fix in data.pop("fixes", ()) or ():
            try:
                title, file, start, end, new_text = fix
            except (TypeError, ValueError):
                continue
            fixes.append(self._edit(title, file, start, end, new_text, f.file, lines, texts))
        if fixes:
            out["fixes"] = fixes
        if data:
            out["data"] = _plain(data)
        return out

    def _edit(self, title: str, file: str, start: int, end: int, new_text: str, checked: str,
              lines: LineIndex, texts: dict[str, LineIndex]) -> dict:
        """One fix as a plain edit, its positions 1-based (columns in code points)."""
        if file == checked:
            idx = lines
        else:
            idx = texts.get(file)
            if idx is None:
                ft = self.index.ws.read(file)
                idx = texts[file] = LineIndex.of_text(ft.text or "")
        s_line, s_col = idx.position(start)
        e_line, e_col = idx.position(end)
        return {"title": title, "file": file, "start": {"line": s_line + 1, "column": s_col + 1},
                "end": {"line": e_line + 1, "column": e_col + 1}, "new_text": new_text}

    def _call_fixes(self, rel: str, lines: LineIndex, f: Finding) -> list[dict]:
        """The quick fixes the editor offers on a phantom call: its URL replaced by each of
        the nearest declared endpoints' paths (``ide.rewrite_path``), and on a method
        mismatch, the methods the path declares (as a hint: no edit)."""
        from specward.analyzers import ide

        out: list[dict] = []
        for st in self.index.statuses.get(rel, ()):
            if st.finding is None or st.finding.span != f.span or st.finding.code != f.code:
                continue
            call = st.call
            source = lines.data[call.span.start:call.span.end].decode("utf-8", "replace")
            if f.code == "phantom-api" and st.status == "phantom" and call.template is not None:
                for ep in self.index.table.nearest(call):
                    new = ide.rewrite_path(source, ide.relative_to_call(ep, call))
                    if new is None or new == source:
                        continue
                    out.append(self._edit(f"Replace with {ep.method} {full_path(ep)}", rel, call.span.start,
                                          call.span.end, new, rel, lines, {}))
            elif f.code == "method-mismatch" and st.status == "method-mismatch":
                methods = sorted({ep.method for ep in self.index.table.candidates(call)})
                out.extend({"title": f"Change the method to {m}", "file": rel, "new_method": m} for m in methods)
            break
        return out

    def check_text(self, path: str, content: str) -> dict:
        """The findings specward would publish for ``path`` if it held ``content``; the
        file is not written, and the index is the disk's again afterwards."""
        if not isinstance(content, str):
            raise ToolError("content: the file's full text is required")
        return self.check_files({path: content})[0]

    def check_files(self, files: dict[str, str], facts: dict | None = None) -> list[dict]:
        """``check_text`` for several files at once, each as it would be if all of them
        held their proposed text (a generated slice whose files import each other), in the
        order given. ``facts``, when a dict, receives each file's extracted facts (the
        slice stage verifies what was promised against them). The index is the disk's
        again afterwards."""
        exists = {rel: (self.root / rel).exists() for rel in self._proposed(files)}
        with self.overlay(files) as rels:
            out = [self._checked(rel, content, exists[rel]) for rel, content in rels.items()]
            if facts is not None:
                facts.update({rel: self.index.facts.get(rel) for rel in rels})
        return out

    def _proposed(self, files: dict[str, str]) -> dict[str, str]:
        rels: dict[str, str] = {}
        for path, content in files.items():
            if not isinstance(content, str):
                raise ToolError(f"{path}: the file's full text is required")
            rel = self.rel(path)
            if rel in _TOP_CONFIG:
                raise ToolError(f"{rel} is specward's configuration: a change of it rebuilds the index from the "
                                "disk, so a proposed text of it cannot be checked here")
            rels[rel] = content
        return rels

    @contextmanager
    def overlay(self, files: dict[str, str]):
        """The index as it would be if ``files`` held their proposed text, under the lock,
        for the body of the ``with`` (which gets the files by workspace path); the disk's
        again afterwards (a file that does not exist is gone from it again)."""
        rels = self._proposed(files)
        self.wait()
        with self.lock:
            kept = {rel: self.index.generated.keep(rel) for rel in rels}  # (engine/generated.py)
            try:
                for rel, content in rels.items():
                    self.index.update(rel, content)
                yield rels
            finally:
                for rel in rels:
                    self.index.update_from_disk(rel)
                    self.index.generated.put_back(rel, kept[rel])

    def _checked(self, rel: str, content: str, exists: bool) -> dict:
        index = self.index
        found = index.findings(rel, suppress=False)  # written by a model: its comments hide nothing
        lines = LineIndex.of_text(content)
        texts: dict[str, LineIndex] = {}
        results = []
        for f in found:
            item = self._finding_json(f, lines, texts)
            if f.code in ("phantom-api", "method-mismatch"):
                item.setdefault("fixes", []).extend(self._call_fixes(rel, lines, f))
                if not item["fixes"]:
                    del item["fixes"]
            results.append(item)
        calls = [{"method": st.call.method, "url": st.call.template, "status": st.status,
                  "line": lines.position(st.call.span.start)[0] + 1,
                  "endpoint": f"{st.endpoint.method} {full_path(st.endpoint)}"
                  if st.endpoint is not None and st.status == "matched" else None}
                 for st in index.statuses.get(rel, ())]
        judged = index.ws.is_source(rel) or rel in index.contracts or index.ws.is_contract(rel, content)
        errors = sum(1 for r in results if r["severity"] == "error")
        return {"path": rel, "exists_on_disk": exists, "judged": bool(judged), "errors": errors,
                "findings": results, "http_calls": calls,
                "note": None if judged else "specward judges source files and contracts; this file is neither"}

    # ------------------------------------------------------------------ the contract
    def endpoints(self, prefix: str | None = None, tag: str | None = None) -> dict:
        self.wait()
        with self.lock:
            out = []
            for ep in sorted(self.index.table.endpoints, key=lambda e: (full_path(e), e.method, e.file)):
                path = full_path(ep)
                if prefix and not (path.startswith(prefix) or ep.path.startswith(prefix)):
                    continue
                details = dict(ep.details)
                tags = list(details.get("tags") or ())
                if tag and tag not in tags:
                    continue
                out.append({"method": ep.method, "path": path, "file": ep.file, "summary": ep.summary,
                            "tags": tags, "id": ep.id})
            source = "routes" if self.index.routes_as_contract() else "contracts"
            return {"endpoints": out, "count": len(out), "source": source,
                    "contracts": sorted(self.index.contracts)}

    # ------------------------------------------------------------------ imports
    def resolve_import(self, from_path: str, module: str, name: str | None = None) -> dict:
        """Whether ``module`` (and ``name`` from it) resolves from ``from_path``, by the
        import checks themselves: a one-import file at ``from_path`` is checked as any file
        is, against the index as it is (nothing of it is kept)."""
        from specward.analyzers.analyses import ANALYSES, Context
        from specward.analyzers.extract import extract

        rel = self.rel(from_path, "from_path")
        if not isinstance(module, str) or not module.strip() or any(c in module for c in "'\"`\n\r\\"):
            raise ToolError("module: a module specifier without quotes, backslashes or newlines is required")
        python = rel.endswith((".py", ".pyi"))
        if name is not None and name != "" and not (name == "default" and not python) and not (
                set(name) <= _PY_NAME_CHARS | {"$"} and not name[0].isdigit()):
            raise ToolError(f"name: {name!r} is not an identifier")
        text = self._import_text(rel, module, name or None, python)
        try:
            facts = extract(rel, text)
        except ValueError:
            raise ToolError(f"from_path: {rel} is not a source file specward reads (JavaScript, TypeScript, "
                            "Vue, Svelte or Python)") from None
        self.wait()
        with self.lock:
            index = self.index
            ctx = Context(index.analysis_input, index.facts.get, index.resolver_config, installed=index.installed,
                          text=None)
            analysis = next(a for a in ANALYSES if a.name == "imports")
            found, _ = analysis.run(facts, ctx)
            r = ctx.resolver.resolve(rel, module, "python" if python else None)
        problems = []
        candidates: list[str] = []
        for f in found:
            data = dict(f.data)
            if f.code == "missing-export":  # the nearest names the module exports
                candidates += [n for n in data.get("nearest", ()) or () if isinstance(n, str)]
            else:  # the nearest specifiers naming an existing module
                candidates += [fx[4] for fx in data.get("fixes", ()) or () if len(fx) == 5 and isinstance(fx[4], str)]
            item = {"code": f.code, "severity": f.severity, "message": f.message}
            if "fixes" in data:
                item["fixes"] = [{"title": fx[0], "new_text": fx[4]} for fx in data["fixes"] if len(fx) == 5]
            problems.append(item)
        module_found = not any(p["code"] == "phantom-import" for p in problems)
        name_found = None if not name else module_found and not any(p["code"] == "missing-export" for p in problems)
        return {"from_path": rel, "module": module, "name": name or None,
                "exists": module_found and name_found is not False, "module_exists": module_found,
                "name_exists": name_found, "resolved_kind": r.kind, "resolved_path": r.path,
                "package": r.package, "via": r.via, "problems": problems,
                "candidates": list(dict.fromkeys(candidates))}

    @staticmethod
    def _import_text(rel: str, module: str, name: str | None, python: bool) -> str:
        if python:
            if name:
                return f"from {module} import {name}\n"
            return f"import {module}\n"
        if name == "default":
            line = f"import __specward_default from '{module}';\n"
        elif name:
            line = f"import {{ {name} }} from '{module}';\n"
        else:
            line = f"import '{module}';\n"
        if rel.endswith((".vue", ".svelte")):
            return f'<script lang="ts">\n{line}</script>\n'
        return line

    # ------------------------------------------------------------------ the ledger
    def ledger_prompt(self, limit: int | None = None) -> dict:
        from specward.analyzers import ledger as core

        from .engine import ledger as store

        limit = core.PROMPT_ITEMS if limit is None else limit
        if not isinstance(limit, int) or limit <= 0:
            raise ToolError("limit: a positive number is required")
        patterns, problems = store.load(self.root)
        return {"prompt": core.prompt(patterns, limit), "patterns": len(patterns),
                "records": len(patterns.records), "ledger_problems": [f.message for f in problems]}

    # ------------------------------------------------------------------ the map
    def project_map(self) -> dict:
        self.wait()
        with self.lock:
            index = self.index
            contracts = [{"file": rel, "format": c.format, "endpoints": len(c.endpoints),
                          "models": len(getattr(c, "models", ()) or ())}
                         for rel, c in sorted(index.contracts.items())]
            routes = []
            for rel, items in sorted(index.routes.items()):
                if not items:
                    continue
                routes.append({"file": rel, "framework": sorted({r.framework for r in items}),
                               "routers": sorted({r.router for r in items if r.router}),
                               "routes": [f"{r.method} {r.path}" for r in items]})
            models, clients = [], []
            languages: Counter[str] = Counter()
            by_folder: dict[str, Counter[str]] = {}
            for rel in sorted(index.facts):
                facts = index.facts.get(rel)
                if facts is None:
                    continue
                languages[facts.language] += 1
                top = rel.split("/", 1)[0] if "/" in rel else "."
                by_folder.setdefault(top, Counter())[facts.language] += 1
                if facts.data_models:
                    models.append({"file": rel, "models": [{"name": m.name, "kind": m.kind,
                                                            "bases": list(m.bases)} for m in facts.data_models]})
                if facts.clients:
                    clients.append({"file": rel, "clients": [{"name": c.name, "kind": c.kind,
                                                              "factory": c.factory} for c in facts.clients]})
            callers = []
            for rel, calls in sorted(index.calls.items()):
                if calls:
                    statuses = Counter(st.status for st in index.statuses.get(rel, ()))
                    callers.append({"file": rel, "calls": len(calls), "statuses": dict(sorted(statuses.items()))})
            files = index.analysis_input.all_files
            config = sorted(f for f in files if f.rsplit("/", 1)[-1] in _CONFIG_NAMES
                            or f.rsplit("/", 1)[-1].startswith(("tsconfig.", "requirements")))
            if index.config.source is not None:
                source = index.config.source.relative_to(self.root).as_posix()
                if source not in config:
                    config.insert(0, source)
            frameworks = Counter(r.framework for items in index.routes.values() for r in items)
            client_kinds = Counter(c["kind"] for f in clients for c in f["clients"])
            conventions = {
                "languages": dict(languages.most_common()),
                "languages_by_top_folder": {k: dict(v.most_common()) for k, v in sorted(by_folder.items())},
                "route_frameworks": dict(frameworks.most_common()),
                "http_client_kinds": dict(client_kinds.most_common()),
                "contract_formats": sorted({c["format"] for c in contracts}),
                "endpoint_base_paths": sorted({ep.base_path for ep in index.table.endpoints if ep.base_path}),
                "judged_against": "routes" if index.routes_as_contract() else "contracts",
            }
            return {"root": str(self.root), "contracts": contracts, "routes": routes, "data_models": models,
                    "api_clients": clients, "http_callers": callers, "config_files": config,
                    "conventions": conventions}

    # ------------------------------------------------------------------ context manifests
    def context_capture(self, paths: list[str], depth: int | None = None, includes: list[str] | None = None,
                        task: str = "") -> dict:
        """The manifest ``specward context capture`` would write for ``paths``, computed
        and returned, never written (save it under ``.specward/context/`` to use it)."""
        from datetime import datetime, timezone

        from specward.analyzers.analyses import Context
        from specward.analyzers.context import Entry, Manifest, context_hash, dumps, plan_capture, sha256_text

        from .engine.contexts import check, configs_of, imports_of
        from .engine.reading import read_file

        if not paths or not isinstance(paths, list):
            raise ToolError("paths: a list of the files the task works on is required")
        targets = [self.rel(p, "paths") for p in paths]
        extra = [self.rel(p, "includes") for p in includes or ()]
        for t in targets:
            if (self.root / t).is_dir():
                raise ToolError(f"{t} is a folder: name the files the task works on")
        self.wait()
        with self.lock:
            index = self.index
            depth = index.settings.context.depth if depth is None else depth
            if not isinstance(depth, int) or depth < 0:
                raise ToolError("depth: 0 or more")
            ctx = Context(index.analysis_input, index.facts.get, index.resolver_config, installed=index.installed)
            planned = plan_capture(targets, depth, extra, lambda r: imports_of(index, ctx, r),
                                   lambda r: configs_of(index, r))
            git = index.context.git
            head = git.head()
            blobs = git.blobs("HEAD", [p.path for p in planned]) if head else {}
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            entries = []
            for p in planned:
                ft = read_file(str(self.root), p.path, index.settings.max_file_size)
                if ft.text is None:
                    raise ToolError(f"cannot read {p.path}: {ft.reason}")
                entries.append(Entry(path=p.path, sha256=sha256_text(ft.text), blob=blobs.get(p.path), commit=head,
                                     read_at=now, source=p.source, confidence=p.confidence))
            name = task or targets[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
            manifest = Manifest(task=name, created_at=now, commit=head, targets=targets, depth=depth,
                                includes=extra, entries=entries, context_hash=context_hash(entries))
            missing = check(index, manifest)
        return {"manifest": dumps(manifest), "files": [e.path for e in entries],
                "missing": [{"what": m.what, "remedy": m.remedy} for m in missing], "written": False}

    def context_check(self, manifest: str) -> dict:
        """What ``specward context check`` reports for a manifest: given as its JSON text,
        or as the workspace path of a manifest file."""
        from specward.analyzers.context import parse_manifest

        from .engine.contexts import MANIFEST_BYTES, check
        from .engine.reading import read_file

        if not isinstance(manifest, str) or not manifest.strip():
            raise ToolError("manifest: a manifest's JSON text or its path is required")
        if manifest.lstrip().startswith("{"):
            rel, text = "<manifest>", manifest
        else:
            rel = self.rel(manifest, "manifest")
            ft = read_file(str(self.root), rel, MANIFEST_BYTES)
            if ft.text is None:
                raise ToolError(f"cannot read {rel}: {ft.reason}")
            text = ft.text
        parsed, problems = parse_manifest(rel, text)
        if parsed is None or problems:
            return {"valid": False, "problems": [f.message for f in problems], "missing": [], "complete": False}
        self.wait()
        with self.lock:
            missing = check(self.index, parsed)
        return {"valid": True, "problems": [], "task": parsed.task, "complete": not missing,
                "missing": [{"what": m.what, "remedy": m.remedy} for m in missing]}
