"""The workspace index: per-file facts, contracts, linked calls and their findings.

Per-file facts come from the pure ``analyzers.extract.extract(path, text)``; cross-file
results (linked HTTP calls, their match against the merged contracts, unused endpoints)
are recomputed incrementally:

- a source file changes -> re-extract it, re-link it and every file that read it while
  being linked (``rdeps``: importers, callers of its wrappers, files that probed its path
  before it existed), re-match those files' calls;
- a contract changes -> rebuild the endpoint table, re-match every call (no re-linking).

All mutation happens under ``self.lock``; readers take it too. The index never raises for
one bad file: the file is recorded as skipped or gets a finding.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import Counter, OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from specward.analyzers.analyses import AnalysisInput, Context, analyze
from specward.analyzers.codes import CODES
from specward.analyzers.registry_rule import (hallucinated_package_findings, missing_from_findings, names_to_ask,
                                              replace_import_findings)
from specward.analyzers.contracts import parse_contract
from specward.analyzers.http import LINKER_VERSION, HttpCall, Linker
from specward.analyzers.matching import CallStatus, EndpointTable, Matcher, endpoint_id, unused_endpoint_findings
from specward.analyzers.model import ContractFacts, Endpoint, FileFacts, Finding, Route, RouteMount, Span
from specward.analyzers.resolve import ResolverConfig, is_resolver_config
from specward.analyzers.suppression import Suppression, apply as apply_suppressions, parse as parse_suppressions

from .cache import FactsCache
from .config import LoadedConfig, Settings, load_config
from .facts_store import FactsStore
from .parser_pool import BuildCancelled, ParserPool
from .build import BuildSteps, _Building, _collector_paused, _NotYetExtracted
from .inputs import (GENERATED_MAX_FILES, GENERATED_TYPES, analysis_input, generated_declaration, inputs_key,
                     is_input_file)
from .contexts import ContextState, is_manifest
from .generated import GeneratedState
from .invariants_config import config_schema_globs, governed
from .installed import InstalledFiles
from .reading import is_within, real_root
from .updates import CONFIG_FILES, UpdateSteps
from .workspace import FileText, Workspace, digest_of

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]



class WorkspaceIndex(BuildSteps, UpdateSteps):
    def __init__(self, root: Path, contract_globs: list[str] | None = None, use_cache: bool = True,
                 workers: int | None = None, severity: dict[str, str] | None = None) -> None:
        self.root = Path(root).resolve()
        self.lock = threading.RLock()
        self._contract_globs = contract_globs
        self._severity = dict(severity or {})  # editor settings: override the file's
        self._use_cache = use_cache
        self.workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
        self.config: LoadedConfig = load_config(self.root)
        self.ws = Workspace(self.root, self.config.settings, contract_globs)
        self.cache: FactsCache | None = None
        self.digests: dict[str, str] = {}
        self.facts = FactsStore(None, self.digests)
        self.problems: dict[str, tuple[Finding, ...]] = {}
        self.routes: dict[str, tuple[Route, ...]] = {}  # backend route declarations per file
        # the inline `specward: ignore[...]` comments of the indexed files (sources and
        # contracts) that have any (analyzers/suppression.py), read where their text is
        self.suppressions: dict[str, tuple[Suppression, ...]] = {}
        self.mounts: dict[str, tuple[RouteMount, ...]] = {}  # routers mounted under others, per file
        self._composed: list | None = None  # routes.compose() of routes and mounts, until one changes
        # the list last composed: a composition equal to it is that list again (the same
        # object), so what is derived from it by identity (the drift, the route lookups) holds
        self._composed_last: list | None = None
        self._views: dict[str, tuple] = {}  # the views (FileFacts.views) composition read, per file
        # what the data classes (FileFacts.data_models) route endpoints read their request
        # schemas from declare, per file (without their positions)
        self._models: dict[str, tuple] = {}
        self._file_apps: tuple = ()  # the apps whose files are routes (routes_files), as last composed
        self._drift: tuple[object, object, dict[str, tuple[Finding, ...]]] | None = None  # (composed, table, per file)
        # the findings of the registered one-file analyses (analyzers/analyses.py) per file,
        # their edges merged into ``deps``; what reading their inputs found (a ledger line)
        self.analysis_findings: dict[str, tuple[Finding, ...]] = {}
        self.analysis_input = AnalysisInput()
        # the context manifests under .specward/context/ and their findings (contexts.py)
        self.context = ContextState(self.root)
        self.context.index = self
        # generated files' provenance (stale-generated) and contract-change impact (generated.py)
        self.generated = GeneratedState(self)
        self.installed: InstalledFiles | None = None
        self.input_problems: dict[str, tuple[Finding, ...]] = {}
        # the opt-in registry check (server/engine/registry.py; set by the command line or the
        # editor, never by the workspace): its cached answers turn "may be hallucinated"
        # into hallucinated-package; the names it has no answer for yet, to be asked
        self.registry = None
        self.user_ledger = False  # read the user's own fix-history ledger too (a user opt-in)
        self.registry_wanted: dict[tuple[str, str], set[str]] = {}
        self._dirty_links: set[str] = set()
        # matched endpoints from the cache, per file, valid while the endpoint table is the same
        self._cached_matches: dict[str, tuple[str, tuple]] = {}
        self._table_key = ""
        self._ep_by_id: dict[tuple[str, str, str], Endpoint] = {}
        self.contracts: dict[str, ContractFacts] = {}
        self.skipped: dict[str, str] = {}
        self.calls: dict[str, list[HttpCall]] = {}
        self.deps: dict[str, set[str]] = {}
        self.rdeps: dict[str, set[str]] = {}
        # the registered analyses' own edges (what a file's analyses read or probed) and
        # their reverse: a change reached only through these re-runs the analyses, not the
        # linker
        self.adeps: dict[str, frozenset[str]] = {}
        self.ardeps: dict[str, set[str]] = {}
        self.statuses: dict[str, list[CallStatus]] = {}
        self.used: Counter[tuple[str, str, str]] = Counter()
        self.table = EndpointTable(())
        self.contract_table = self.table
        self._route_trust: bool | None = None  # route_contract.trusted of the statuses, until they change
        self.matcher = Matcher(self.table)
        # the module resolver's configuration (tsconfig/jsconfig, package.json, framework and
        # bundler configs), and the text of every file it read
        self.resolver_config = ResolverConfig.build({})
        self._resolver_texts: dict[str, str] = {}
        self._links_key = LINKER_VERSION
        self._resolver_digest = ""
        self._sources: list[str] = []  # the source files of the last walk
        self.unused: list[Finding] = []
        self.stats: dict[str, float] = {}
        # per document edited with `update(..., incremental=True)` (the editor's open ones):
        # what its next incremental extraction starts from (analyzers/extract/incremental.py)
        self._edit_states: OrderedDict[str, object] = OrderedDict()
        # per document edited incrementally: the index of its facts an edit that changed
        # only call sites links against (``updates._relink_sites``), while every edit since
        # changed only call sites or moved facts
        self._frames: dict[str, object] = {}
        # per document edited incrementally, after a link that watched it (``_link(watch=)``):
        # (its calls as linked, each call site's read set by span): an edit that changed
        # facts other than call sites classifies again only the sites whose read set meets
        # a name the edit changed (``updates._keeper``); valid while ``calls[rel]`` is that list
        self._read_sets: dict[str, tuple[list, dict]] = {}
        self.collector_held = False  # an update left the collector paused (``update``)
        # the text of each source file given to `update(rel, text)` (an editor's buffer, let go
        # when `update_from_disk` follows the disk again): what `Context.text` reads first
        self._buffers: dict[str, str] = {}
        self._cancelled = threading.Event()
        self._parser_sets: list[ParserPool] = []  # started by builds, until they and their flush end
        self._parser_sets_lock = threading.Lock()
        self._build_sets: list[ParserPool] = []  # those of the build in progress (or the last one)

    @property
    def settings(self) -> Settings:
        return self.config.settings

    # ================================================================== cancelling
    def cancel(self) -> None:
        """Stop the build in progress, and any later one, at once (thread-safe; returns without
        waiting, never takes ``self.lock``). The build raises ``BuildCancelled`` at its next
        check, between files and batches; the parser processes are killed, not waited for;
        a flush of their facts to the cache stops. Nothing more is written to the cache, and
        what it holds is consistent (see ``BuildCancelled``). The index is not to be used
        after this: a session that is shutting down calls it."""
        self._cancelled.set()
        with self._parser_sets_lock:
            sets = list(self._parser_sets)
        for parsers in sets:
            parsers.kill()

    def _check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise BuildCancelled()

    def _track(self, parsers: "ParserPool") -> "ParserPool":
        """Parser processes a build started: ``cancel()`` kills them (and kills them now, if it
        was called while they started)."""
        with self._parser_sets_lock:
            # the sets whose work is over (processes shut down, facts flushed) are let go
            self._parser_sets = [p for p in self._parser_sets if not p.finished] + [parsers]
        self._build_sets.append(parsers)
        if self._cancelled.is_set():
            parsers.kill()
        return parsers

    def _set_analysis(self, rel: str, found: tuple[Finding, ...] | None, edges: frozenset[str] = frozenset(),
                      stored: bool = False) -> None:
        """Record one file's analysis results (``found`` None: the file has no facts) and
        its analysis edges; ``stored``: they come from the cache (nothing to write back)."""
        for dep in self.adeps.pop(rel, ()):
            s = self.ardeps.get(dep)
            if s is not None:
                s.discard(rel)
        if found:
            self.analysis_findings[rel] = found
        else:
            self.analysis_findings.pop(rel, None)
        if found is None:
            return
        self.adeps[rel] = edges
        for dep in edges:
            self.ardeps.setdefault(dep, set()).add(rel)
        if not stored:
            self._dirty_links.add(rel)

    def _analyze(self, paths: Iterable[str]) -> None:
        """The registered analyses of these files again (their calls need no linking)."""
        ctx = self._linker(self.facts.get).analysis  # type: ignore[attr-defined]
        for rel in paths:
            facts = self.facts.get(rel)
            if facts is None:
                self._set_analysis(rel, None)
            else:
                self._set_analysis(rel, *analyze(facts, ctx))

    def _note_suppressions(self, rel: str, text: str | None) -> bool:
        """Record the suppression comments of an indexed file's text (None: it has none any
        more); returns whether they changed. A text without ``specward:`` costs a substring test."""
        found = parse_suppressions(text) if text is not None else ()
        if not found:
            return self.suppressions.pop(rel, None) is not None
        if self.suppressions.get(rel) == found:
            return False
        self.suppressions[rel] = found
        return True

    def _load_contract(self, rel: str, ft: FileText) -> None:
        if ft.text is None:
            self.contracts[rel] = ContractFacts(rel, "unknown", findings=(
                Finding("contract-invalid", "error", f"contract file {ft.reason}", rel, Span(0, 0)),), readable=False)
            return
        try:
            self.contracts[rel] = parse_contract(rel, ft.text)
        except Exception as exc:  # noqa: BLE001
            log.exception("contract parse failed for %s", rel)
            self.contracts[rel] = ContractFacts(rel, "unknown", findings=(
                Finding("contract-invalid", "error", f"internal error while reading the contract: {exc}", rel, Span(0, 0)),),
                readable=False)

    # ================================================================== cross-file
    def table_for(self, contracts: dict[str, ContractFacts]) -> EndpointTable:
        """The endpoint table of these contracts, under the workspace's settings."""
        endpoints = [ep for path in sorted(contracts) for ep in contracts[path].endpoints]
        unreadable = [path for path in sorted(contracts) if not contracts[path].readable]
        return EndpointTable(endpoints, self.settings.base_paths, case_sensitive=self.settings.case_sensitive,
                             unreadable=unreadable, hosts=[h for c in contracts.values() for h in c.hosts])

    def routes_as_contract(self) -> bool:
        """Whether client calls are judged against the backend's own routes
        (``contract_sources``): "routes" is a source, and "files" is not or no contract
        file is in the workspace."""
        sources = self.settings.contract_sources
        return "routes" in sources and ("files" not in sources or not self.contracts)

    def _route_table(self) -> EndpointTable:
        from specward.analyzers.route_contract import route_endpoints

        endpoints, incomplete = route_endpoints(self.composed_routes(), self.facts.get, self._route_resolve())
        return EndpointTable(endpoints, self.settings.base_paths, case_sensitive=self.settings.case_sensitive,
                             source="routes", incomplete=incomplete)

    def _judging(self) -> bool:
        """Whether calls are judged at all: there are contracts, or routes stand for them."""
        return bool(self.contracts if self.table.source != "routes" else self.table.endpoints)

    def _rebuild_table(self) -> None:
        self.contract_table = self.table_for(self.contracts)  # what the drift compares the routes with
        self.table = self._route_table() if self.routes_as_contract() else self.contract_table
        self._route_trust = None
        endpoints = self.table.endpoints
        self.matcher = Matcher(self.table)
        self._ep_by_id = {endpoint_id(ep): ep for ep in endpoints}
        ident = repr(([(ep.file, ep.method, ep.path, ep.base_path) for ep in endpoints], self.settings.base_paths,
                      self.table.source, self.table.incomplete))
        self._table_key = digest_of(ident.encode())

    def _link(self, paths: Iterable[str], watch: str | None = None, change=None) -> None:
        """Link ``paths``; ``watch``: one of them, an edited document, whose call sites'
        read sets are recorded (``_read_sets``) and, when ``change`` (how its facts
        changed) allows, whose sites that read nothing the edit changed keep their calls."""
        linker = self._linker(self.facts.get)
        linker.watch = watch
        for rel in paths:
            if rel == watch and change is not None:
                self._link_one(linker, rel, change)
            else:
                self._link_one(linker, rel)

    def _linker(self, lookup: Callable[[str], FileFacts | None]) -> Linker:
        """A linker for one batch of files, and the context the registered analyses of
        those files share (the same lookup: during a build it waits for files still being
        extracted, which stops analyses and linking alike)."""
        linker = Linker(lookup, self.resolver_config)
        linker.analysis = Context(self.analysis_input, lookup, self.resolver_config,  # type: ignore[attr-defined]
                                  self.installed, text=self._text_reader())
        return linker

    def _text_reader(self) -> Callable[[str], str | None]:
        """``Context.text``: a file's buffer, else its text on disk (None when unreadable).
        It holds the buffers and the workspace, not the index (no reference cycle)."""
        buffers, ws = self._buffers, self.ws

        def text(rel: str) -> str | None:
            found = buffers.get(rel)
            return found if found is not None else ws.read(rel).text
        return text

    def _link_attempt(self, linker: Linker, rel: str, building: "_Building") -> None:
        """Link ``rel`` during a build, or park it until the file it needs is extracted."""
        try:
            self._link_one(linker, rel)
        except _NotYetExtracted as wait:
            building.wait(rel, wait.path)
        else:
            building.linked.add(rel)

    def _link_one(self, linker: Linker, rel: str, change=None) -> None:
        facts = self.facts.get(rel)
        if facts is None:
            self._set_links(rel, None, set(), (), ())
            if self._views.pop(rel, None) or self._models.pop(rel, None):
                self._composed = None
            self._set_analysis(rel, None)
            self._read_sets.pop(rel, None)
            return
        reads = None
        try:
            if linker.watch == rel:
                calls, deps, reads = self._link_watched(linker, rel, facts, change)
            else:
                calls, deps = linker.link_file(rel)
        except _NotYetExtracted:
            raise
        except Exception:  # noqa: BLE001
            log.exception("linking failed for %s", rel)
            calls, deps = [], {rel}
        if reads is not None:
            self._read_sets[rel] = (calls, reads)
        else:
            self._read_sets.pop(rel, None)
        found, edges = analyze(facts, linker.analysis, reraise=(_NotYetExtracted,))  # type: ignore[attr-defined]
        self._set_links(rel, calls, deps, facts.problems, (*facts.routes, *facts.mounts))
        views = facts.views
        if views != self._views.get(rel, ()):  # a view class the routes expand (routes_views.py)
            self._composed = None
            if views:
                self._views[rel] = views
            else:
                self._views.pop(rel, None)
        # a request model of a route (route_contract.py); what it declares, not where: an edit
        # above a class moves it, which changes no schema (the hover's origin line may lag)
        models = tuple((m.name, m.kind, m.bases, m.closed, m.open,
                        tuple((f.name, f.type, f.required, f.read_only) for f in m.fields)) for m in facts.data_models)
        if models != self._models.get(rel, ()):
            self._composed = None
            if models:
                self._models[rel] = models
            else:
                self._models.pop(rel, None)
        self._set_analysis(rel, found, edges)

    def _set_links(self, rel: str, calls: list[HttpCall] | None, deps: set[str],
                   problems: tuple[Finding, ...], routes: tuple[Route, ...]) -> None:
        """Record one file's link results (``calls`` None: the file has no facts)."""
        for dep in self.deps.pop(rel, ()):
            s = self.rdeps.get(dep)
            if s is not None:
                s.discard(rel)
        if calls is None:
            self.calls.pop(rel, None)
            self.problems.pop(rel, None)
            self._set_routes(rel, ())
            return
        self.calls[rel] = calls
        self.deps[rel] = deps
        self._dirty_links.add(rel)
        if problems:
            self.problems[rel] = problems
        else:
            self.problems.pop(rel, None)
        self._set_routes(rel, routes)
        for dep in deps:
            self.rdeps.setdefault(dep, set()).add(rel)

    def _set_routes(self, rel: str, items: tuple) -> None:
        """A file's route declarations and mounts (they travel together, in link results
        and the cache); a change of either composes the routes again."""
        routes = tuple(r for r in items if isinstance(r, Route))
        mounts = tuple(m for m in items if isinstance(m, RouteMount))
        if routes != self.routes.get(rel, ()) or mounts != self.mounts.get(rel, ()):
            self._composed = None
        for table, got in ((self.routes, routes), (self.mounts, mounts)):
            if got:
                table[rel] = got
            else:
                table.pop(rel, None)

    def drift_findings(self, rel: str | None = None):
        """``routes.drift``: where the contracts and the backend's routes disagree; of one
        file, or per file. Computed again when the routes or the contracts changed."""
        from specward.analyzers.routes import drift

        with self.lock:
            composed = self.composed_routes() if (self.routes or self._composed) else []
            table = self.contract_table
            if self._drift is None or self._drift[0] is not composed or self._drift[1] is not table:
                self.stats["drift_judged"] = self.stats.get("drift_judged", 0) + 1
                per: dict[str, tuple[Finding, ...]] = {}
                for f in drift(composed, list(table.endpoints)):
                    per[f.file] = (*per.get(f.file, ()), f)
                self._drift = (composed, table, per)
            per = self._drift[2]  # type: ignore[assignment]
            return per if rel is None else per.get(rel, ())

    def is_route_input(self, rel: str) -> bool:
        """Whether composing the routes reads ``rel``: a file with routes or mounts, a file
        route of a framework's app or that framework's configuration (``routes_files``), as
        of the last composition."""
        from specward.analyzers.routes_files import is_input

        return rel in self.routes or rel in self.mounts or is_input(rel, self._file_apps)

    def composed_routes(self) -> list:
        """Every route with its full path, composed across the files that mount its router
        (``analyzers/routes.py``); computed again only after a route or mount changed (or
        a data model, a view, a file route: what the composition or the route table reads).
        A composition equal to the last one is the last list itself: a data model's edit
        composes again (the route table's schemas read the models) but changes no composed
        route, and the drift and the route lookups, which hold on to the list by identity,
        are not judged again."""
        from specward.analyzers.routes import compose

        with self.lock:
            if self._composed is None:
                from specward.analyzers.routes_files import file_apps

                apps = self._file_apps = file_apps(set(self.facts) | set(self._resolver_texts), self._text_reader())
                composed = compose(set(self.routes) | set(self.mounts), self.facts.get, self._route_resolve(),
                                   file_apps=apps)
                last = self._composed_last
                if last is not None and composed == last:
                    composed = last
                    self.stats["composed_kept"] = self.stats.get("composed_kept", 0) + 1
                self._composed = self._composed_last = composed
            return self._composed

    def _route_resolve(self) -> Callable[[str, str, bool], str | None]:
        """How composition follows a route file's imports: to a workspace file, through the
        one resolver (never into an installed package)."""
        ctx = Context(self.analysis_input, self.facts.get, self.resolver_config, installed=self.installed)

        def resolve(importer: str, spec: str, python: bool) -> str | None:
            from specward.analyzers.package_entry import in_installed
            from specward.analyzers.resolve import FILE

            r = ctx.resolver.resolve(importer, spec, "python" if python else None)
            return r.path if r.kind == FILE and r.path and not in_installed(r.path) else None

        return resolve

    def _matches_of(self, rel: str) -> tuple:
        """(table key, per call: the matched endpoint's id and whether the match is weak, or
        None when the call is to be judged again: not matched, or matched with a note), for
        the cache."""
        sts = self.statuses.get(rel, ())
        return (self._table_key, tuple((*endpoint_id(st.endpoint), st.weak)
                                       if st.status == "matched" and st.endpoint and st.finding is None else None
                                       for st in sts))

    def _match(self, rel: str, calls: list[HttpCall]) -> list[CallStatus]:
        """Judge a file's calls; a warm start reuses the cached matched endpoints when the
        endpoint table is the one they were matched against (everything else is judged)."""
        judge = self.matcher.judge
        cached = self._cached_matches.pop(rel, None)
        if cached is None or cached[0] != self._table_key or len(cached[1]) != len(calls):
            return [judge(c) for c in calls]
        out = []
        for call, ep_id in zip(calls, cached[1]):
            ep = self._ep_by_id.get(tuple(ep_id[:3])) if ep_id else None
            out.append(CallStatus(call, "matched", ep, weak=bool(ep_id[3:4] == (True,)))  # type: ignore[index]
                       if ep is not None else judge(call))
            self.stats["reused_matches"] = self.stats.get("reused_matches", 0.0) + (ep is not None)
        return out

    def _rematch(self, paths: Iterable[str]) -> set[str]:
        """Judge the calls of ``paths`` again (their calls changed, or the table did), and
        of every file whose channel's frame their evidence changed; returns the files judged."""
        paths = set(paths)
        judging = self._judging()
        self._route_trust = None
        if not judging:
            changed: set[str] = set()
        else:
            changed = set()
            everything = len(paths) >= len(self.calls)  # a build, a contract change: all are judged
            for rel in paths:
                calls = self.calls.get(rel)
                changed |= self.matcher.observe(rel, calls or (), changes=not everything)
        for channel in changed:
            paths |= self.matcher.files_of(channel)
        for rel in paths:
            judged: dict = {}  # the field findings already computed, for the calls judged alike again
            for st in self.statuses.pop(rel, ()):
                if st.status == "matched" and st.endpoint is not None:
                    key = endpoint_id(st.endpoint)
                    self.used[key] -= 1
                    if self.used[key] <= 0:
                        del self.used[key]
                    c = st.call
                    if st._fields is not None and (c.body or c.params or c.query or c.reads):
                        judged[(c.call_span, c.span, c.method, key)] = st
            calls = self.calls.get(rel)
            if not calls:
                continue
            if not judging:
                sts = [CallStatus(c, "unresolved") for c in calls]
            elif self.table.source == "routes" and (rel in self.routes or rel in self.mounts):
                # the backend's own outgoing calls go to other services, not to its routes
                sts = [CallStatus(replace(c, reason="a call from a file that declares routes is not judged against "
                                          "them (it calls another service)"), "unresolved") for c in calls]
            else:
                sts = self._match(rel, calls)
            self.statuses[rel] = sts
            for st in sts:
                if st.status == "matched" and st.endpoint is not None:
                    self.used[endpoint_id(st.endpoint)] += 1
                    if judged and st._fields is None:
                        c = st.call
                        old = judged.get((c.call_span, c.span, c.method, endpoint_id(st.endpoint)))
                        if old is not None and old.endpoint is st.endpoint and old.call == c:
                            st._fields = old._fields
        self.unused = (unused_endpoint_findings(self.table.endpoints, set(self.used))
                       if self.table.source != "routes" else [])  # a route serves clients outside too
        return paths

    def route_verdicts_shown(self) -> bool:
        """With routes as the contract: whether their phantoms and method mismatches are shown
        (``route_contract.trusted``: most calls reach a route); always, with contract files."""
        if self.table.source != "routes":
            return True
        if self._route_trust is None:
            from specward.analyzers.route_contract import trusted

            self._route_trust = trusted(st for sts in self.statuses.values() for st in sts)
        return self._route_trust

    def routes_changed(self) -> set[str]:
        """After a file's routes or mounts changed: with routes as the contract, a new table
        and every call judged again when the endpoints differ. Returns the files judged."""
        if self.table.source != "routes" and not self.routes_as_contract():
            return set()
        before = self._table_key
        schemas = [ep.schemas for ep in self.table.endpoints]
        self._rebuild_table()
        if self._table_key == before and schemas == [ep.schemas for ep in self.table.endpoints]:
            return set()
        return self._rematch(list(self.calls))

    # ================================================================== queries
    def findings(self, rel: str, suppress: bool = True) -> list[Finding]:
        """All findings of one file, with configured severities applied and, unless
        ``suppress`` is False, its inline ``specward: ignore[...]`` comments (the covered
        findings dropped, ``unknown-suppression``/``unused-suppression`` added)."""
        with self.lock:
            out: list[Finding] = list(self.problems.get(rel, ()))
            out.extend(self._with_registry(rel, self.analysis_findings.get(rel, ())))
            out.extend(self.input_problems.get(rel, ()))
            shown = self.route_verdicts_shown()
            for st in self.statuses.get(rel, ()):
                if st.finding is not None and (shown or st.status not in ("phantom", "method-mismatch")):
                    out.append(st.finding)
                if shown and st.status == "matched":
                    out.extend(st.field_findings)
            contract = self.contracts.get(rel)
            if contract is not None:
                out.extend(contract.findings)
                out.extend(f for f in self.unused if f.file == rel)
            if self.config.source is not None and rel == self.config.source.relative_to(self.root).as_posix():
                out.extend(self.config.problems)
            out.extend(self.context.findings.get(rel, ()))
            out.extend(self.generated.findings_of(rel))
            out.extend(self.drift_findings(rel))
            out = self._apply_severity(out)
            found = self.suppressions.get(rel) if suppress else None
            if found is not None:
                # after the severities: a finding turned off does not exist (its suppression is
                # unused); the suppressions' own findings are configurable like any other
                out = self._apply_severity(apply_suppressions(rel, out, found, CODES))
            return out

    def _with_registry(self, rel: str, found: tuple[Finding, ...]) -> tuple[Finding, ...] | list[Finding]:
        """``found`` with the registry's answers, when the registry check is on: a package
        that is neither declared nor installed and that the registry does not know is a
        ``hallucinated-package``; names without an answer yet go to ``registry_wanted``."""
        if self.registry is None or not found:
            return found
        facts = self.facts.get(rel)
        missing = missing_from_findings(facts, found) if facts is not None else []
        if not missing:
            return found
        names = getattr(self.analysis_input.environment, "import_names", None)
        for pair in names_to_ask(missing, names):
            if self.registry.known(*pair) is None:
                self.registry_wanted.setdefault(pair, set()).add(rel)
        extra = hallucinated_package_findings(rel, missing, self.registry.known, names)
        return replace_import_findings(found, extra) if extra else found

    def ask_registry(self) -> set[str]:
        """Ask the registry about the names findings are waiting for (blocking: network);
        returns the files whose findings may have changed."""
        if self.registry is None:
            return set()
        with self.lock:
            wanted, self.registry_wanted = self.registry_wanted, {}
        if not wanted:
            return set()
        self.registry.ask_many(list(wanted))
        return set().union(*wanted.values())

    def _apply_severity(self, findings: list[Finding]) -> list[Finding]:
        overrides = {**self.settings.severity, **self._severity}
        out = []
        for f in findings:
            sev = overrides.get(f.code)
            if sev == "off":
                continue
            out.append(replace(f, severity=sev) if sev else f)
        return out

    def finding_paths(self) -> set[str]:
        """Every file that may have findings (the others have none)."""
        with self.lock:
            paths = (set(self.statuses) | set(self.contracts) | set(self.problems) | set(self.analysis_findings)
                     | set(self.input_problems) | set(self.context.findings) | self.generated.paths()
                     | set(self.drift_findings()) | set(self.suppressions))
            if self.config.source is not None and self.config.problems:
                paths.add(self.config.source.relative_to(self.root).as_posix())
            return paths

    def all_findings(self) -> list[Finding]:
        with self.lock:
            out = []
            for p in sorted(self.finding_paths()):
                out.extend(self.findings(p))
            return out

    def all_statuses(self) -> list[CallStatus]:
        with self.lock:
            return [st for p in sorted(self.statuses) for st in self.statuses[p]]

    def is_input(self, rel: str) -> bool:
        """Whether a change of ``rel`` may change what the analyses read: a manifest, a
        ledger, import-linter's contracts, a file a config-schema rule governs or its schema."""
        return is_input_file(rel) or governed(rel, config_schema_globs(self.analysis_input.invariants))

    def generated_input(self, rel: str) -> bool:
        """Whether ``rel`` is a declaration file of a framework's generated folder that the
        import checks read for its ``declare module`` blocks (``inputs.generated_augmentations``)."""
        env = self.analysis_input.environment
        if env is None:
            return False
        return generated_declaration(rel, {m.folder for m in env.manifests.values() if m.kind == "npm"})

    def generated_below(self, rel_dir: str) -> set[str]:
        """For a folder in a framework's generated folder that appeared or vanished (``nuxi
        prepare``, ``svelte-kit sync``, a clean): the files below it that were read (the
        resolver's configurations, the declaration files with blocks) and the declaration
        files there now (at most ``GENERATED_MAX_FILES``). Empty for other folders."""
        if not any(p in GENERATED_TYPES for p in rel_dir.split("/")):
            return set()
        prefix = rel_dir + "/"
        stamp = dict(getattr(self.analysis_input.environment, "generated_stamp", ()) or ())
        out = {r for r in (*stamp, *self._resolver_texts, *self.resolver_config.wanted) if r.startswith(prefix)}
        full = os.path.realpath(self.root / rel_dir)
        if os.path.isdir(full) and is_within(full, real_root(str(self.root))):
            for here, dirs, files in os.walk(full):  # (links to folders are not followed)
                dirs[:] = sorted(d for d in dirs if d != "node_modules")
                for f in files:
                    rel = f"{rel_dir}/{os.path.relpath(os.path.join(here, f), full).replace(os.sep, '/')}"
                    if self.generated_input(rel) or self._resolves_with(rel):
                        out.add(rel)
                        if len(out) >= GENERATED_MAX_FILES:
                            return out
        return out

    def tracked(self, rel: str) -> bool:
        return (rel in CONFIG_FILES or self.ws.wanted(rel) or self._resolves_with(rel) or self.is_input(rel)
                or is_manifest(rel) or self.generated.tracks(rel) or self.generated_input(rel)
                or rel in self.rdeps or rel in self.ardeps or bool(self.folder_dependents(rel)))

    # ================================================================== module resolution
    def _resolves_with(self, rel: str) -> bool:
        """Whether the module resolver reads this file (or asked for it, and it was missing)."""
        return ((is_resolver_config(rel) and not self.ws.is_excluded(rel)) or rel in self._resolver_texts
                or rel in self.resolver_config.wanted)

    def _configure_resolver(self, texts: dict[str, str | None]) -> None:
        """Build the resolver's configuration from these files (and any file their
        ``extends`` names, read here: never outside the workspace)."""
        found = {rel: t for rel, t in texts.items() if t is not None}
        extra: dict[str, str] = {}

        def read(rel: str) -> str | None:
            if rel.startswith(("/", "../")) or "/../" in rel:
                return None
            ft = self.ws.read(rel)
            if ft.text is not None:
                extra[rel] = ft.text
            return ft.text

        self.resolver_config = ResolverConfig.build(found, read)
        self._resolver_texts = {**found, **extra}
        digest = digest_of(json.dumps(sorted(self._resolver_texts.items())).encode("utf-8", "surrogatepass"))
        self._resolver_digest = digest
        self._links_key = f"{LINKER_VERSION}-{digest}-{inputs_key(self.analysis_input)}"

    def _read_inputs(self) -> None:
        """Read what the registered analyses take besides facts (installed packages,
        manifests, the fix-history ledgers); the link results' cache key follows them."""
        self.analysis_input, self.input_problems = analysis_input(self.root, self.ws, self.settings, self._sources,
                                                                  self.user_ledger)
        self.installed = InstalledFiles(self.root, self.settings.max_file_size,  # read afresh with the inputs
                                        getattr(self.analysis_input.environment, "python_site", None))
        self._links_key = f"{LINKER_VERSION}-{self._resolver_digest}-{inputs_key(self.analysis_input)}"

    def reload_inputs(self) -> set[str]:
        """A manifest or a ledger changed (or was written by specward itself): when what
        the analyses read differs, every file is judged again. Returns the paths whose
        findings may have changed."""
        with self.lock, _collector_paused():
            before, problems_before = self._links_key, set(self.input_problems)
            self._read_inputs()
            changed = problems_before | set(self.input_problems)
            if self._links_key == before:
                return changed
            everything = list(self.calls) + [r for r in self.digests if r not in self.calls]
            self._link(everything)
            return changed | self._rematch(everything) | set(self.contracts) | set(everything)

    def _update_resolver(self, rel: str, text: str | None) -> set[str]:
        """A configuration file of the resolver changed: every file is linked again."""
        texts: dict[str, str | None] = {r: t for r, t in self._resolver_texts.items() if r != rel}
        if text is not None and is_resolver_config(rel):
            texts[rel] = text
        before = self._links_key
        self._configure_resolver(texts)
        self._composed = None  # mounts resolve through it; a package.json may make an app of file routes
        if self._links_key == before:
            return set()
        everything = list(self.calls) + [r for r in self.digests if r not in self.calls]
        self._link(everything)
        return self._rematch(everything) | set(self.contracts)
