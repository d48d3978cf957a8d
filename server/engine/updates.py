"""How ``WorkspaceIndex`` follows changes: a source file's new text (extracted again, in
part when it is an open document being edited), what it changes for the files that read it
through their links or their analyses, a contract, a file that is not a source appearing
(``docs/architecture.md``, "How an edit flows"). A mixin of ``WorkspaceIndex``
(``index.py``): its state lives there."""

from __future__ import annotations

import gc
import logging
from dataclasses import replace
from heapq import merge
from itertools import chain
from typing import Iterable

from specward.analyzers.analyses import text_readers
from specward.analyzers.extract import extract_edited
from specward.analyzers.extract.incremental import edited_incrementally, relocated, shift
from specward.analyzers.http import HttpCall
from specward.analyzers.symbols import EVERYTHING, FileIndex, names_of
from specward.analyzers.ambient_installed import ambient_modules, augmented_modules
from specward.analyzers.model import FOLDER_EDGE, FileFacts, Finding, Span

from .parsing import extract_safely
from .workspace import FileText, digest_of

from .build import _collector_paused

log = logging.getLogger(__name__)

CONFIG_FILES = ("specward.toml", "pyproject.toml")  # a change of one builds the index again
EDIT_STATES = 8  # documents edited incrementally whose extraction state is kept (trees: ~40 B/byte)


def _moved_findings(found: tuple[Finding, ...], rel: str, where) -> tuple[Finding, ...] | None:
    """Findings of ``rel`` placed where an edit moved them (their spans, and the edits of
    their quick fixes in this file); None when one cannot be placed."""
    out = []
    for f in found:
        span = where(f.span)
        if span is None:
            return None
        data = f.data
        fixes = dict(data).get("fixes")
        if fixes:
            moved = []
            for title, file, start, end, text in fixes:
                if file == rel:
                    at = where(Span(start, end))
                    if at is None:
                        return None
                    start, end = at.start, at.end
                moved.append((title, file, start, end, text))
            data = tuple((k, tuple(moved)) if k == "fixes" else (k, v) for k, v in data)
        out.append(f if span == f.span and data is f.data else replace(f, span=span, data=data))
    return tuple(out)


class UpdateSteps:
    def update(self, rel: str, text: str | None, incremental: bool = False, hold_collector: bool = False
               ) -> set[str]:
        """A file's new text (None: deleted or unreadable). Returns the paths whose findings
        may have changed. ``incremental``: the file is being edited (an open document) and
        its next versions will come this way too: keep what lets the next edit re-extract
        only the statements it touches (the results are the same either way).
        ``hold_collector``: leave the garbage collector paused; the caller resumes it
        (``resume_collector``) once what the user waits for is out."""
        # an update of a large file builds tens of thousands of objects that live until it
        # ends: with the collector on, its young-generation passes scan them again and again
        # (~10 % of an edit's time); paused, one pass after the update sees them once (that
        # pass costs 10-60 ms on a 10,000-line file: the server makes it after the publish)
        held = hold_collector and gc.isenabled()
        self.collector_held |= held
        with self.lock, _collector_paused(resume=not held):
            before = self.generated.before(rel)  # a contract's previous version (generated.py)
            affected = (self._update_any(rel, text, incremental) | self._context_changed(rel, text)
                        | self.generated.after(rel, text, incremental, before))
            # its suppression comments, when it is indexed (a source or a contract): changed
            # ones change its findings even when its facts only moved
            indexed = text is not None and (rel in self.digests or rel in self.contracts)
            if self._note_suppressions(rel, text if indexed else None):
                affected.add(rel)
            return affected

    def _context_changed(self, rel: str, text: str | None) -> set[str]:
        """What the context manifests make of a change (contexts.ContextState.changed)."""
        try:
            return self.context.changed(rel, text)
        except Exception:  # noqa: BLE001 - one failing manifest costs its findings, not the edit
            log.exception("judging the context manifests failed")
            return set()

    def _update_any(self, rel: str, text: str | None, incremental: bool) -> set[str]:
        if rel in CONFIG_FILES:
            before = set(self.facts) | set(self.contracts) | {rel}
            self.build()
            return before | set(self.facts) | set(self.contracts)
        affected: set[str] = set()
        if self._resolves_with(rel):
            affected = self._update_resolver(rel, text)
        generated = self.generated_input(rel)  # (read for its blocks: not a workspace declaration file)
        if self.is_input(rel) or (self._generated_changed(rel, text) if generated
                                  else rel.endswith(".d.ts") and self._ambient_changed(rel, text)):
            affected |= self.reload_inputs()
        if self.ws.is_excluded(rel):
            return affected  # (a ledger in .specward/, a manifest in an excluded folder)
        if not self.ws.is_source(rel) and (rel in self.rdeps or rel in self.ardeps or self.folder_dependents(rel)) \
                and not self.ws.is_contract(rel, text) \
                and rel not in self.contracts:
            return affected | self._other_file_changed(rel)
        # a contract that no longer looks like one (an edit removed its openapi key)
        # stays a contract, and is reported, rather than vanishing silently
        if self.ws.is_contract(rel, text) or rel in self.contracts:
            return self._update_contract(rel, text) | affected
        if self.ws.is_source(rel):
            return self._update_source(rel, text, incremental) | affected
        return affected

    def update_from_disk(self, rel: str) -> set[str]:
        ft = self.ws.read(rel)
        if ft.text is None and ft.reason != "the file no longer exists":
            with self.lock:
                self.skipped[rel] = ft.reason or "skipped"
        try:
            return self.update(rel, ft.text)
        finally:
            with self.lock:
                self._buffers.pop(rel, None)  # its text is the disk's again (Context.text reads it there)

    def _update_source(self, rel: str, text: str | None, incremental: bool = False) -> set[str]:
        old_unused = {f.span for f in self.unused}
        facts = change = before = None
        listing: set[str] = set()  # judged again because a file appeared or went away below a folder
        if text is None:
            if self._file_route_exports(rel) is not None:
                self._composed = None  # a file route, or a framework's config, went away
            self._edit_states.pop(rel, None)
            self._frames.pop(rel, None)
            self._buffers.pop(rel, None)
            existed = self.facts.drop(rel)
            self.digests.pop(rel, None)
            if not existed:
                return {rel}
            listing = self._listing_changed(rel, False, "sources")
        else:
            if rel not in self.digests:
                listing = self._listing_changed(rel, True, "sources")
            digest = digest_of(text.encode("utf-8", "surrogatepass"))
            self._buffers[rel] = text
            if self.digests.get(rel) == digest and rel in self.facts:
                return set()
            self.skipped.pop(rel, None)
            exported = self._file_route_exports(rel)
            before = self.facts.built(rel)
            facts, change = self._extract(rel, text, incremental)
            if exported is not None and (exported != tuple(built(facts).exports) or rel not in self.digests):
                self._composed = None  # a file route's exports (its methods) or a framework config changed
            self.facts.put_live(rel, facts)
            self.digests[rel] = digest
            if change is not None and change.moved_only and self._move_links(rel, facts, change):
                # no fact changed, only where they are: nothing to link or match; but the
                # analyses that read texts (this file's, or the files judged with it) again
                readers = text_readers(chain((rel,), self.ardeps.get(rel, ())), self.analysis_input)
                self._analyze(readers)
                return {rel} | readers | (self.routes_changed() if self._composed is None else set())
        if self._relink_sites(rel, change, before):
            linked = {rel}  # no other file reads these call sites: only their calls change
            self._analyze(text_readers(chain((rel,), self.ardeps.get(rel, ())), self.analysis_input))
        else:
            linked = {rel} | self.rdeps.get(rel, set())
            # (an open document: its sites' read sets are recorded, and those that read
            # nothing the edit changed keep their calls: ``_link_watched``)
            self._link(linked, rel if rel in self._edit_states and text is not None else None, change)
            self._frames.pop(rel, None)
            if rel in self._edit_states and text is not None:  # its facts as linked: the next edits' frame
                self._frames[rel] = self.facts.built(rel)
        # a route or mount changed: with routes as the contract, every call judged again (once)
        rejudged = self.routes_changed() if self._composed is None else set()
        judged = (self.ardeps.get(rel, set()) | listing) - linked  # reached only through an analysis edge
        self._analyze(judged)
        affected = linked | judged | rejudged | self._rematch(linked - rejudged)
        if {f.span for f in self.unused} != old_unused:
            affected |= set(self.contracts)
        return affected

    def resume_collector(self) -> None:
        """Turn the garbage collector on again after updates that held it paused."""
        if self.collector_held:
            self.collector_held = False
            gc.enable()

    def prepare_edits(self, rel: str, text: str) -> None:
        """Give an open document what its incremental edits start from, when it has none
        (opened with the text already indexed): else its first edit extracts the whole file."""
        with self.lock, _collector_paused():
            if (rel in self._edit_states or rel not in self.facts or not self.ws.is_source(rel)
                    or self.digests.get(rel) != digest_of(text.encode("utf-8", "surrogatepass"))):
                return
            try:
                _, state, _ = extract_edited(rel, text, None, lazy=True)
            except Exception:  # noqa: BLE001 - its first edit extracts it in full instead
                return
            if state is not None:
                self._keep_state(rel, state)
                self.facts.put_live(rel, state)  # the same facts (same text), from that state
                self._record_reads(rel)

    def _record_reads(self, rel: str) -> None:
        """The read sets of ``rel``'s call sites, for its calls as the index holds them (a
        link that watches it, kept only when it gives those very calls): else its first
        edit of a fact other than a call site links it in full to record them."""
        calls = self.calls.get(rel)
        stored = self._read_sets.get(rel)
        facts = self.facts.get(rel)
        if calls is None or facts is None or (stored is not None and stored[0] is calls):
            return
        linker = self._linker(self.facts.get)
        linker.watch = rel
        try:
            got, _, reads = self._link_watched(linker, rel, facts, None)
        except Exception:  # noqa: BLE001 - (a file still being extracted): recorded at its next link
            return
        if reads is not None and got == calls:
            self._read_sets[rel] = (calls, reads)

    def warm_dependents(self, rel: str) -> None:
        """Load the facts of the files whose findings read ``rel`` (its importers, its
        callers) and of what their analyses read, up to half the store's memory: an open
        document is about to be edited, and its first edit would otherwise wait for the
        cache to give them back (100 importers: ~0.4 s)."""
        with self.lock:
            deps = sorted((self.rdeps.get(rel, set()) | self.ardeps.get(rel, set())) - {rel})
            read = {p for dep in deps for p in (*self.adeps.get(dep, ()), *self.deps.get(dep, ()))} - set(deps)
            for path in [*deps, *sorted(read)][: self.facts.limit // 2]:
                if path in self.facts:
                    self.facts.get(path)

    def _keep_state(self, rel: str, state) -> None:
        """Keep ``rel``'s edit state; the oldest beyond ``EDIT_STATES`` is dropped, and its
        facts, if the store holds them through it, are built so that its tree goes too."""
        self._edit_states[rel] = state
        while len(self._edit_states) > EDIT_STATES:
            old_rel, old = self._edit_states.popitem(last=False)
            self._frames.pop(old_rel, None)
            if self.facts.holds(old_rel, old):
                self.facts.put_live(old_rel, old.facts)

    def needs_edit_state(self, rel: str) -> bool:
        """Whether an open document still lacks what its incremental edits start from."""
        return rel not in self._edit_states and edited_incrementally(rel)

    def _extract(self, rel: str, text: str, incremental: bool):
        """(facts, how they differ from the index's facts of ``rel`` or None when not known)."""
        state = self._edit_states.pop(rel, None)
        if not incremental:
            return extract_safely(rel, text), None
        try:
            facts, new_state, change = extract_edited(rel, text, state, lazy=True)
        except Exception:  # noqa: BLE001 - the plain path reports the failure on the file
            return extract_safely(rel, text), None
        if new_state is not None:
            self._keep_state(rel, new_state)
            if facts is None:
                facts = new_state  # its facts are built when something reads them
        if state is None or not self.facts.holds(rel, state):
            change = None  # `change` compares with the state's facts, not the index's
        return facts, change

    def _link_watched(self, linker, rel: str, facts: FileFacts, change) -> tuple[list[HttpCall], set[str], dict | None]:
        """Link ``rel``, the watched file of ``linker``, recording its sites' read sets: (calls,
        deps, read sets by span, or None when they are not to be trusted: an answer
        depended on the order things were asked in, a class passes a table to ``super``,
        two sites share a span). After an edit (``change``) that changed facts other than
        call sites, only the sites the edit put in and those whose read set meets a name it
        changed are classified again; the others keep their calls, moved (``_keeper``).
        Exactly ``link_file``'s results either way."""
        supers = any(c.super_args and c.bases for c in facts.classes)
        keeper = self._keeper(rel, facts, change) if change is not None and not supers else None
        if keeper is not None:
            cutoffs = linker.cutoffs
            try:
                calls, deps = linker.link_file(rel, keeper.reads, keeper)
            except _Relink:
                calls = None
            if calls is not None and not keeper.moved and linker.cutoffs == cutoffs:
                self.stats["read_links"] = self.stats.get("read_links", 0.0) + 1
                self.stats["read_kept_sites"] = self.stats.get("read_kept_sites", 0.0) + keeper.kept
                reads = keeper.reads if len(keeper.reads) == len(facts.calls) else None
                return calls, deps | self.deps.get(rel, set()), reads
            linker._memo.clear()  # (what that link memoized stays right; asked afresh, as a full link asks)
        reads: dict = {}
        cutoffs = linker.cutoffs
        calls, deps = linker.link_file(rel, reads)
        trusted = linker.cutoffs == cutoffs and not supers and len(reads) == len(facts.calls)
        return calls, deps, reads if trusted else None

    def _keeper(self, rel: str, facts: FileFacts, change) -> "_Keeper | None":
        """What lets ``link_file`` keep the calls of the sites an edit left alone (see
        ``_link_watched``), or None when it cannot: the read sets are not the current
        calls', the edit changed routes, mounts, a class's ``super`` table or the hosts of
        the file's bases, or a site cannot be placed."""
        stored = self._read_sets.get(rel)
        if change.moved_only or stored is None or stored[0] is not self.calls.get(rel):
            return None
        parts = change.parts()
        if parts is None or rel in self.routes or rel in self.mounts:
            return None
        old_part, new_part = parts
        if any(p.routes or p.mounts or any(c.super_args for c in p.classes) for p in parts):
            return None
        old_idx, new_idx = FileIndex(old_part), FileIndex(new_part)
        if _hosts(old_idx) != _hosts(new_idx):
            return None  # (the file's hosts are the union of its statements')
        changed = names_of(old_idx) | names_of(new_idx)
        old_calls, old_reads = stored
        # (spans as (start, end) pairs: a tuple hashes faster than a ``Span``)
        by_site: dict[tuple[int, int], list[HttpCall]] = {}
        for c in old_calls:
            by_site.setdefault((c.call_span.start, c.call_span.end), []).append(c)
        if any(c.call_span not in old_reads for c in old_calls):
            return None  # (a call that is not a site's)
        taken = {(s.span.start, s.span.end) for s in old_part.calls}
        if change.pairs:
            return None  # (``span`` below is ``change.span`` without pairs)
        start, end, delta = change.start, change.old_end, change.delta
        moved: dict[tuple[int, int], tuple[tuple[int, int], set]] = {}
        for span, read in old_reads.items():
            was = (span.start, span.end)
            if was in taken:
                continue
            if was[1] <= start:
                now = was
            elif was[0] >= end:
                now = (was[0] + delta, was[1] + delta)
            else:
                return None
            if now in moved:
                return None
            moved[now] = (was, read)
        return _Keeper(by_site, moved, changed, {(s.span.start, s.span.end) for s in new_part.calls}, change)

    def _relink_sites(self, rel: str, change, before) -> bool:
        """An edit changed only call sites of ``rel``: link those alone (``spliced_calls``),
        against the facts of ``rel`` as they were when its link frame was taken (``before``:
        its previous facts if they were built; the same but for spans and call sites), so
        that nothing waits for this edit's facts to be built; move the rest of its link
        results. False when it cannot be done so: link the whole file then."""
        if (change is None or change.sites is None or rel not in self.calls or rel not in self.deps
                or rel in self.routes or rel in self.mounts):
            return False
        frame = self._frames.get(rel) or before
        if frame is None:
            return False
        where = change.span
        problems = self.problems.get(rel, ())  # the facts' own, moved
        spans = [where(x.span) for x in problems]
        moved_analysis = _moved_findings(self.analysis_findings.get(rel, ()), rel, where)
        if None in spans or moved_analysis is None:
            return False
        if type(frame) is not FileIndex:
            frame = FileIndex(frame)
        get = self.facts.get

        def lookup(path: str):
            return frame.facts if path == rel else get(path)

        linker = self._linker(lookup)
        linker._index[rel] = frame
        old, old_deps = self.calls[rel], self.deps[rel]
        # (a subclass elsewhere may bind a method's sites: only when no other file reads rel)
        got = spliced_calls(old, change, linker, rel, bool(self.rdeps.get(rel, set()) - {rel}))
        if got is None:
            return False
        self._frames[rel] = frame
        calls, deps = got
        self._spliced_reads(rel, old, calls, change)
        self.calls[rel] = calls
        self.deps[rel] = deps = deps | old_deps  # (a dependency the edit dropped stays: harmless)
        for dep in deps:
            self.rdeps.setdefault(dep, set()).add(rel)
        if problems:
            self.problems[rel] = tuple(replace(x, span=sp) for x, sp in zip(problems, spans))
        if moved_analysis:
            self.analysis_findings[rel] = moved_analysis
        self._dirty_links.add(rel)
        self.stats["spliced_links"] = self.stats.get("spliced_links", 0.0) + 1
        return True

    def _spliced_reads(self, rel: str, old: list[HttpCall], calls: list[HttpCall], change) -> None:
        """After an edit that changed only call sites (``_relink_sites``): the read sets of
        the sites it left, moved; a site put in, or one that read the sites of a scope the
        edit changed (a function it called), is to be classified again (``EVERYTHING``)."""
        stored = self._read_sets.pop(rel, None)
        if stored is None or stored[0] is not old:
            return
        taken, put = change.sites
        gone = {s.span for s in taken}
        scopes = {("scope", s.scope) for s in chain(taken, put) if s.scope is not None}
        where = change.span
        again = {EVERYTHING}
        reads: dict = {}
        for span, read in stored[1].items():
            if span in gone:
                continue
            now = where(span)
            if now is None or now in reads:
                return
            reads[now] = read if scopes.isdisjoint(read) else again
        for s in put:
            if s.span in reads:
                return
            reads[s.span] = again
        self._read_sets[rel] = (calls, reads)

    def _move_links(self, rel: str, facts, change) -> bool:
        """An edit moved ``rel``'s facts without changing them: move its linked calls and
        their statuses the same way (a file's link results hold only its own spans, so no
        other file's change). False when a span cannot be placed: link as usual then."""
        calls = self.calls.get(rel)
        if calls is None or rel not in self.deps:
            return False
        where = change.span
        new_calls = [moved_call(c, change) for c in calls]
        done = {id(c): m for c, m in zip(calls, new_calls)}  # a status holds one of these calls, mostly
        new_statuses = []
        for st in self.statuses.get(rel, ()):
            call = done[id(st.call)] if id(st.call) in done else moved_call(st.call, change)
            finding = st._finding
            if finding is not None:
                span = where(finding.span)
                if span is None:
                    return False
                if span != finding.span:
                    finding = replace(finding, span=span)
            if call is None:
                return False
            unmoved = call is st.call and finding is st._finding
            new_statuses.append(st if unmoved else replace(st, call=call, _finding=finding, _fields=None))
        if any(c is None for c in new_calls):
            return False
        problems = self.problems.get(rel, ())  # the facts' own, moved the same way
        spans = [where(x.span) for x in problems]
        if None in spans:
            return False
        moved_problems = tuple(replace(x, span=sp) for x, sp in zip(problems, spans))
        moved_analysis = _moved_findings(self.analysis_findings.get(rel, ()), rel, where)
        if moved_analysis is None:
            return False
        stored = self._read_sets.pop(rel, None)
        if stored is not None and stored[0] is calls:  # the read sets move with the sites
            reads = {where(span): read for span, read in stored[1].items()}
            if None not in reads and len(reads) == len(stored[1]):
                self._read_sets[rel] = (new_calls, reads)
        self.calls[rel] = new_calls
        if rel in self.statuses:
            self.statuses[rel] = new_statuses
        if moved_problems:
            self.problems[rel] = moved_problems
        if rel in self.routes or rel in self.mounts:  # the new facts' (handlers' spans moved too)
            facts = built(facts)
            self._set_routes(rel, (*facts.routes, *facts.mounts))
        self._dirty_links.add(rel)
        if self.analysis_findings.get(rel):
            self.analysis_findings[rel] = moved_analysis
        self.stats["moved_links"] = self.stats.get("moved_links", 0.0) + 1
        return True

    def _file_route_exports(self, rel: str) -> tuple | None:
        """The exports of ``rel`` when it may be a file route or a framework's configuration
        (``routes_files.is_input``: what composing the routes again depends on), else None."""
        from specward.analyzers.routes_files import is_input

        if not is_input(rel, self._file_apps):
            return None
        if is_input(rel, ()):  # a framework's config or a package.json: any change counts
            return ("a configuration",)  # (never equal to a file's exports)
        old = self.facts.get(rel) if rel in self.facts else None
        return tuple(old.exports) if old is not None else ()

    def _update_contract(self, rel: str, text: str | None) -> set[str]:
        if text is None:
            self.contracts.pop(rel, None)
        else:
            self._load_contract(rel, FileText(rel, text, ""))
        self._rebuild_table()
        paths = list(self.calls)
        self._rematch(paths)
        return set(paths) | set(self.contracts) | {rel}

    def persist(self, rels: Iterable[str]) -> None:
        """The files' current facts match the disk: store them (and pending link results)."""
        if self.cache is None or not self.cache.enabled:
            return
        with self.lock:
            rows = []
            for r in rels:
                facts = self.facts.live(r)
                if facts is not None and r in self.digests:
                    rows.append((r, self.digests[r], facts))
            if self.cache.store(rows):
                self.facts.mark_stored(r for r, _, _ in rows)
            self._flush_links()

    def _ambient_changed(self, rel: str, text: str | None) -> bool:
        """Whether the modules a workspace ``.d.ts`` declares or augments may differ from
        those read (the names in its blocks are its facts: a change there re-judges the
        files that imported through it, as any dependency)."""
        env = self.analysis_input.environment
        declared = getattr(env, "declared_modules", {}) or {}
        augments = getattr(env, "workspace_augments", {}) or {}
        now_declared, now_augmented = augmented_modules(text or "")
        before = (sorted(m for m, r in declared.items() if r == rel),
                  sorted(m for m, files in augments.items() if rel in files))
        return before != (sorted(set(now_declared)), sorted(set(now_augmented)))

    def _generated_changed(self, rel: str, text: str | None) -> bool:
        """Whether a generated declaration file's ``declare module`` blocks may differ from
        those read (a framework rewrites its folder at every start, mostly unchanged)."""
        stamp = dict(getattr(self.analysis_input.environment, "generated_stamp", ()) or ())
        declares = text is not None and any("*" not in m for m in ambient_modules(text))
        if rel not in stamp:
            return declares
        return not declares or stamp[rel] != digest_of((text or "").encode("utf-8", "surrogatepass"))

    def folder_dependents(self, rel: str) -> set[str]:
        """The files whose findings list the files below a folder of ``rel`` (their
        ``FOLDER_EDGE`` edges): a file appearing there or going away changes them."""
        out: set[str] = set()
        folder = rel
        while folder:
            folder = folder.rpartition("/")[0]
            out |= self.ardeps.get(FOLDER_EDGE + folder, set())
        return out

    def _listing_changed(self, rel: str, present: bool, kind: str) -> set[str]:
        """``rel`` appeared (``present``) or went away: the analyses' file list (``kind``:
        ``files`` or ``sources``) follows, and the files with an edge on one of its folders
        are returned."""
        listed = getattr(self.analysis_input, kind)
        if (rel in listed) != present:
            self.analysis_input = replace(self.analysis_input, **{kind: listed | {rel} if present else listed - {rel}})
        return self.folder_dependents(rel)

    def _other_file_changed(self, rel: str) -> set[str]:
        """A file that is not a source (a stylesheet, an image) appeared or went away, and
        some file's analyses asked for it or list its folder: those are judged again."""
        listing = self._listing_changed(rel, (self.root / rel).exists(), "files")
        linked = set(self.rdeps.get(rel, ()))
        self._link(linked)
        judged = (self.ardeps.get(rel, set()) | listing) - linked
        self._analyze(judged)
        return linked | judged | self._rematch(linked)


class _Relink(Exception):
    """A site an edit left alone cannot be placed: link the whole file."""


def _hosts(idx: FileIndex) -> frozenset[str]:
    from specward.analyzers.http import Linker

    return Linker._api_hosts(None, idx)  # type: ignore[arg-type]  (it reads only ``idx``)


class _Keeper:
    """``link_file``'s ``keep`` after an edit that changed facts other than call sites: a
    site the edit left alone whose read set meets none of the ``changed`` names keeps its
    calls (moved as the edit moved it) and its read set; the others are classified again.
    Every site the edit left alone must be met once (``moved`` empties), else ``_Relink``."""

    __slots__ = ("by_site", "moved", "changed", "fresh", "change", "reads", "kept")

    def __init__(self, by_site: dict, moved: dict, changed: set, fresh: set, change) -> None:
        self.by_site = by_site  # previous calls by their site's span
        self.moved = moved  # where a site the edit left is now -> (where it was, its read set)
        self.changed = changed
        self.fresh = fresh  # spans of the sites the edit put in
        self.change = change
        self.reads: dict = {}
        self.kept = 0

    def __call__(self, site) -> list[HttpCall] | None:
        span = site.span
        at = (span.start, span.end)
        if at in self.fresh:
            return None
        got = self.moved.pop(at, None)
        if got is None:
            raise _Relink()
        was, read = got
        if EVERYTHING in read or not self.changed.isdisjoint(read):
            return None
        out = []
        for c in self.by_site.get(was, ()):
            m = moved_call(c, self.change)
            if m is None:
                raise _Relink()
            out.append(m)
        self.reads[span] = read
        self.kept += 1
        return out


def built(facts) -> FileFacts:
    """A file's facts, built from an incremental edit's state when that is what is held."""
    return facts if type(facts) is FileFacts else facts.facts


def moved_call(c: HttpCall, change) -> HttpCall | None:
    """A linked call where an edit (``Change``) moved its call site (None: it cannot be
    placed). Its body and reads move with it: they lie after the call's start, the reads
    possibly after the edit when the call is before it."""
    where = change.span
    span, call_span = where(c.span), where(c.call_span)
    if span is None or call_span is None:
        return None
    same = span == c.span and call_span == c.call_span
    if not (c.body or c.params or c.reads):
        return c if same else replace(c, span=span, call_span=call_span)
    if c.call_span.start >= change.after:  # all of it after the edit: one shift
        d = change.delta
        return c if not d else replace(c, span=span, call_span=call_span, body=shift(c.body, d) if c.body else c.body,
                       params=shift(c.params, d) if c.params else c.params, reads=shift(c.reads, d))
    if same and max((sp.end for r in c.reads for sp in r.spans), default=0) <= change.start:
        return c  # all of it before the edit
    try:
        body, params, reads = relocated(c.body, where), relocated(c.params, where), relocated(c.reads, where)
    except LookupError:
        return None
    if same and body is c.body and params is c.params and reads is c.reads:
        return c
    return replace(c, span=span, call_span=call_span, body=body, params=params, reads=reads)


def spliced_calls(old: list[HttpCall], change, linker, rel: str, read_elsewhere: bool = True
                  ) -> tuple[list[HttpCall], set[str]] | None:
    """The calls of ``rel`` after an edit that changed only call sites (``change.sites``):
    the calls of the sites the edit put in, linked, and the previous calls of the other
    sites, moved; in ``link_file``'s order (the file's). None when a call cannot be placed or
    other sites' calls may have changed too (``Linker.link_sites``; ``read_elsewhere``: another
    file links against ``rel``): link the whole file then."""
    taken, put = change.sites
    linked = linker.link_sites(rel, put, taken, read_elsewhere)
    if linked is None:
        return None
    fresh, deps = linked
    gone = {s.span for s in taken}
    kept = []
    for c in old:
        if c.call_span in gone:
            continue
        m = moved_call(c, change)
        if m is None:
            return None
        kept.append(m)
    return list(merge(kept, fresh, key=_call_start)), deps


def _call_start(c: HttpCall) -> int:
    return c.call_span.start


