"""Generated files and contract changes in the index (``docs/impact.md``).

The index owns one ``GeneratedState``. It keeps:

- the **provenance** of generated files: the header of every source file whose first lines
  name ``specward-generated`` (seen as the build reads each file, and on each update of a
  source: a substring test, nothing parsed otherwise), and the entries of
  ``.specward/generated.json``;
- their ``stale-generated`` findings, judged against the index's contracts at the end of
  a build, when a generated file or the manifest changes, and when a contract it names
  changes (``by_contract``: the contract is a dependency of the generated file);
- the ``contract-change-impact`` findings of each contract: the elements its **last change**
  added, removed or changed, each with the files that change affects (call sites matched
  to the element before or after, generated files naming it, their importers), computed
  when the contract is updated and kept until its next change.

What "the last change" is: each update of a contract is compared with the version before
it. A disk change (the watcher, a file not open in the editor, the command line) whose
elements differ from the previous version's starts a new change: its baseline is the
previous version. Editor edits of an open contract (``incremental``) are one change
together: the first one that changes an element takes the version before it as the
baseline, and later keystrokes are compared with that baseline (typing a field name
letter by letter is one "field added", not one change per letter); the editing session's
change ends when the file changes on disk (a close without saving compares the disk's
version with that same baseline, so an undone edit leaves nothing). An update that
changes no element (whitespace, a description) changes no baseline; findings are placed
again on the new text. While a contract cannot be read, it has no impact finding.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Mapping

from specward.analyzers.contract_diff import (MODEL_PREFIX, ContractDiff, Views, comparable, diff_contracts,
                                              endpoint_element, hash_matches, is_model_element)
from specward.analyzers.matching import CallStatus, Matcher
from specward.analyzers.model import ContractFacts, Finding, Span
from specward.analyzers.provenance import (MANIFEST, Manifest, Provenance, find_header, has_header, parse_manifest,
                                           stale_generated)

if TYPE_CHECKING:
    from .index import WorkspaceIndex

log = logging.getLogger(__name__)

IMPACT = "contract-change-impact"
RECALLED = 4096  # views of earlier element versions kept to say what changed

Callers = Mapping[str, list[CallStatus]]  # element id -> the calls matched to it


@dataclass(frozen=True)
class _Baseline:
    views: Views  # the version the change is from (what it rendered is kept for the next keystroke)
    callers: Callers  # the calls matched to its elements then
    editor: bool  # taken by an editing session (open document edits)

    @property
    def facts(self) -> ContractFacts:
        return self.views.facts


@dataclass(frozen=True)
class _Before:
    facts: ContractFacts | None  # the contract's last readable version
    statuses: Mapping[str, list[CallStatus]]  # the index's statuses then (a shallow copy)


@dataclass
class Radius:
    """What one element's change affects: the calls matched to it (before or after), the
    generated files naming it, and the importers of those files (importer -> generated file)."""

    calls: list[CallStatus] = field(default_factory=list)
    generated: list[str] = field(default_factory=list)
    importers: dict[str, str] = field(default_factory=dict)

    def reasons(self, element: str) -> list[tuple[str, str]]:
        """(file, why) for each affected file, once (the first reason)."""
        out: dict[str, str] = {}
        for st in self.calls:
            out.setdefault(st.call.file, f"calls {endpoint_element(st.endpoint) if st.endpoint else element}")
        for g in self.generated:
            out.setdefault(g, f"generated from {element}")
        for imp, g in self.importers.items():
            out.setdefault(imp, f"imports {g}")
        return sorted(out.items())


def callers_in(statuses: Mapping[str, Iterable[CallStatus]], contract: str) -> dict[str, list[CallStatus]]:
    """The matched calls of ``statuses`` by the element of ``contract`` they matched."""
    out: dict[str, list[CallStatus]] = {}
    for rel in sorted(statuses):
        for st in statuses[rel]:
            if st.status == "matched" and st.endpoint is not None and st.endpoint.file == contract:
                out.setdefault(endpoint_element(st.endpoint), []).append(st)
    return out


class GeneratedState:
    def __init__(self, index: "WorkspaceIndex") -> None:
        self.index = weakref.proxy(index)  # the index owns this state: no reference cycle
        self.reset()

    def reset(self) -> None:
        """Forget everything (a build starts)."""
        self.headers: dict[str, Provenance | Finding] = {}  # source file -> its header (or why it is unreadable)
        self.manifest = Manifest()
        self.findings: dict[str, tuple[Finding, ...]] = {}  # stale-generated, per file
        self.by_contract: dict[str, set[str]] = {}  # contract -> generated files naming it
        self._contracts_of: dict[str, set[str]] = {}  # generated file -> contracts it names
        self.impact: dict[str, tuple[Finding, ...]] = {}  # contract-change-impact, per contract
        self._base: dict[str, _Baseline] = {}
        self._readable: dict[str, ContractFacts] = {}  # the last readable version of a contract that is not
        self._recalled: OrderedDict[str, dict] = OrderedDict()  # full hash -> view
        self._views: dict[str, Views] = {}  # of each contract's version at its last update

    # ------------------------------------------------------------------ a proposal checked
    # A contract's update moves its contract-change-impact baseline: a proposed text checked
    # and then the disk's text again would read as two changes. ``kept = state.keep(rel)``
    # before such a check and ``state.put_back(rel, kept)`` after it leave ``rel`` as it was.
    _PER_CONTRACT = ("_base", "impact", "_readable", "_views")

    def keep(self, rel: str) -> dict[str, tuple[bool, object]]:
        return {name: (rel in getattr(self, name), getattr(self, name).get(rel)) for name in self._PER_CONTRACT}

    def put_back(self, rel: str, kept: dict[str, tuple[bool, object]]) -> None:
        for name, (present, value) in kept.items():
            table = getattr(self, name)
            if present:
                table[rel] = value
            else:
                table.pop(rel, None)

    # ------------------------------------------------------------------ what the index asks
    def findings_of(self, rel: str) -> tuple[Finding, ...]:
        return self.findings.get(rel, ()) + self.impact.get(rel, ())

    def paths(self) -> set[str]:
        return set(self.findings) | set(self.impact)

    def tracks(self, rel: str) -> bool:
        """Whether a change of ``rel`` matters here beyond what the index follows anyway."""
        return rel == MANIFEST or rel in self.manifest.entries

    def provenances(self, rel: str) -> list[Provenance]:
        """The provenances of one file: its header's, then its generated.json entry's."""
        header = self.headers.get(rel)
        out = [header] if isinstance(header, Provenance) else []
        entry = self.manifest.entries.get(rel)
        if entry is not None:
            out.append(entry)
        return out

    def generated_files(self, contract: str) -> dict[str, set[str]]:
        """Generated file -> the element ids of ``contract`` it names."""
        out: dict[str, set[str]] = {}
        for rel in sorted(self.by_contract.get(contract, ())):
            for p in self.provenances(rel):
                if p.contract == contract:
                    out.setdefault(rel, set()).update(e.id for e in p.elements)
        return out

    # ------------------------------------------------------------------ build
    def seen(self, rel: str, text: str | None) -> bool:
        """A source file's text (as a build reads it, or an update): keep its header. Returns
        whether the header changed."""
        header = find_header(rel, text) if text is not None and has_header(text) else None
        if header is None:
            return self.headers.pop(rel, None) is not None
        changed = self.headers.get(rel) != header
        self.headers[rel] = header
        return changed

    def built(self) -> None:
        """The build has read every file and contract: read the manifest and judge."""
        ft = self.index.ws.read(MANIFEST)
        self.manifest = parse_manifest(ft.text) if ft.text is not None else Manifest()
        self._judge(set(self.headers) | set(self.manifest.entries))
        self._manifest_problems()
        for facts in self.index.contracts.values():
            self._remember(facts)  # (the versions generated files may have been made from)

    # ------------------------------------------------------------------ updates
    def before(self, rel: str) -> _Before | None:
        """What an update of contract ``rel`` is compared with (None when it is none)."""
        facts = self.index.contracts.get(rel)
        if facts is None and rel not in self._readable:
            return None
        if facts is None or not comparable(facts):
            facts = self._readable.get(rel, facts)
        return _Before(facts, dict(self.index.statuses))

    def after(self, rel: str, text: str | None, incremental: bool, before: _Before | None) -> set[str]:
        """An update of ``rel`` is done: the files whose findings here may have changed."""
        try:
            return self._after(rel, text, incremental, before)
        except Exception:  # noqa: BLE001 - these findings may lag, the update goes through
            log.exception("judging generated files and contract changes failed after %s changed", rel)
            return set()

    def _after(self, rel: str, text: str | None, incremental: bool, before: _Before | None) -> set[str]:
        index = self.index
        if rel == MANIFEST:
            return self._manifest_changed(text)
        if before is not None or rel in index.contracts:
            return self._contract_changed(rel, before, incremental)
        changed = index.ws.is_source(rel) and not index.ws.is_excluded(rel) and self.seen(rel, text)
        if changed or rel in self.headers or rel in self.manifest.entries:
            self._judge({rel})
            return {rel}
        return set()

    def _manifest_changed(self, text: str | None) -> set[str]:
        listed = set(self.manifest.entries)
        self.manifest = parse_manifest(text) if text is not None else Manifest()
        todo = listed | set(self.manifest.entries)
        self._judge(todo)
        self._manifest_problems()
        return todo | {MANIFEST}

    def _manifest_problems(self) -> None:
        if self.manifest.problems:
            self.findings[MANIFEST] = self.manifest.problems
        else:
            self.findings.pop(MANIFEST, None)

    def _contract_changed(self, rel: str, before: _Before | None, incremental: bool) -> set[str]:
        index = self.index
        new = index.contracts.get(rel)
        old = before.facts if before is not None else None
        cached = self._views.pop(rel, None)
        vold = (cached if cached is not None and cached.facts is old else Views(old)) if old is not None else None
        if vold is not None and comparable(vold.facts):
            self._remember(vold)  # what the generated files were made from, to say what changed
        affected = {rel} | self._judge(self.by_contract.get(rel, set()))
        if new is None:
            self._base.pop(rel, None)
            self._readable.pop(rel, None)
            self.impact.pop(rel, None)
            return affected
        if not comparable(new):
            if old is not None and comparable(old):
                self._readable[rel] = old
            self.impact.pop(rel, None)
            return affected
        self._readable.pop(rel, None)
        vnew = self._views[rel] = Views(new, reuse=vold or (self._base[rel].views if rel in self._base else None))
        self._remember(vnew)
        base = self._base.get(rel)
        step = None
        if vold is not None and comparable(vold.facts):
            step = diff_contracts(vold, vnew)
            if not step.empty:
                if incremental:
                    if base is None or not base.editor:
                        base = _Baseline(vold, callers_in(before.statuses, rel), True)  # type: ignore[union-attr]
                elif base is not None and base.editor:
                    base = replace(base, editor=False)  # the editing session's change ends here
                else:
                    base = _Baseline(vold, callers_in(before.statuses, rel), False)  # type: ignore[union-attr]
                self._base[rel] = base
        if base is None:
            self.impact.pop(rel, None)
            return affected
        diff = step if step is not None and base.views is vold else diff_contracts(base.views, vnew)
        self._set_impact(rel, base, vnew, diff)
        return affected

    def set_baseline(self, rel: str, old: ContractFacts) -> bool:
        """Describe the change from ``old`` to contract ``rel``'s current version, as if it had
        just happened (``specward check --impact-since``). False when ``rel`` is no contract."""
        new = self.index.contracts.get(rel)
        if new is None:
            return False
        base = _Baseline(Views(old), self.judge_with(rel, old), False)
        self._base[rel] = base
        self._remember(base.views)
        self._judge(self.by_contract.get(rel, set()))
        if comparable(new):
            vnew = Views(new)
            self._set_impact(rel, base, vnew, diff_contracts(base.views, vnew))
        return True

    # ------------------------------------------------------------------ judging
    def _judge(self, files: Iterable[str]) -> set[str]:
        """Judge these generated files again; returns them."""
        files = set(files)
        root = self.index.root
        for rel in files:
            for contract in self._contracts_of.pop(rel, set()):
                named = self.by_contract.get(contract)
                if named is not None:
                    named.discard(rel)
                    if not named:
                        del self.by_contract[contract]
            found: list[Finding] = []
            header = self.headers.get(rel)
            if isinstance(header, Finding):
                found.append(header)
            provs = [p for p in self.provenances(rel) if p.source == "header" or os.path.isfile(root / rel)]
            for p in provs:
                self._contracts_of.setdefault(rel, set()).add(p.contract)
                self.by_contract.setdefault(p.contract, set()).add(rel)
                try:
                    found += stale_generated(p, self.index.contracts.get(p.contract), recall=self._recall,
                                             missing=self._missing(p.contract))
                except Exception:  # noqa: BLE001 - one file's verdict, never the update
                    log.exception("judging the provenance of %s failed", rel)
            if found:
                self.findings[rel] = tuple(found)
            else:
                self.findings.pop(rel, None)
        return files

    def _missing(self, contract: str) -> str:
        path = contract if os.path.isabs(contract) else self.index.root / contract
        if os.path.isfile(path):
            return "is not one of the contracts specward reads (see the `contracts` setting)"
        return "does not exist"

    def _remember(self, versions: "ContractFacts | Views") -> None:
        """Keep the views of the elements of a contract version that generated files name."""
        facts = versions.facts if isinstance(versions, Views) else versions
        named = {e.id for rel in self.by_contract.get(facts.path, ()) for p in self.provenances(rel)
                 if p.contract == facts.path for e in p.elements}
        if not named:
            return
        views = versions if isinstance(versions, Views) else Views(facts)
        for element in named:
            digest = views.hash(element)
            if digest is not None:
                self._recalled[digest] = views.view(element)  # type: ignore[assignment]
                self._recalled.move_to_end(digest)
        while len(self._recalled) > RECALLED:
            self._recalled.popitem(last=False)

    def _recall(self, recorded: str) -> dict | None:
        return next((v for h, v in reversed(self._recalled.items()) if hash_matches(h, recorded)), None)

    # ------------------------------------------------------------------ blast radius
    def judge_with(self, rel: str, facts: ContractFacts | None) -> dict[str, list[CallStatus]]:
        """Every linked call judged against the index's contracts with ``facts`` in place of
        contract ``rel`` (None: without it): the matched ones, by the element of ``facts``
        they matched."""
        index = self.index
        contracts = {k: v for k, v in index.contracts.items() if k != rel}
        if facts is not None:
            contracts[rel] = facts
        matcher = Matcher(index.table_for(contracts))
        calls = {f: index.calls[f] for f in sorted(index.calls)}
        for f, cs in calls.items():
            matcher.observe(f, cs, changes=False)
        return callers_in({f: [matcher.judge(c) for c in cs] for f, cs in calls.items()},
                          facts.path if facts is not None else rel)

    def radius(self, contract: str, diff: ContractDiff, old: "ContractFacts | Views", new: "ContractFacts | Views",
               old_callers: Callers, new_callers: Callers) -> dict[str, Radius]:
        """What each changed element of ``diff`` affects (from the index: its calls'
        verdicts before and after, the generated files' provenance, the import graph)."""
        index = self.index
        uses: dict[str, set[str]] = {}  # model element -> endpoint elements that reach it
        if diff.models:
            for views in (v if isinstance(v, Views) else Views(v) for v in (old, new)):
                for ep in views.endpoints:
                    for m in views.reached(ep):
                        uses.setdefault(m, set()).add(ep)
        generated = self.generated_files(contract)
        out: dict[str, Radius] = {}
        for change in diff.changes:
            element = change.element
            through = sorted(uses.get(element, ())) if is_model_element(element) else [element]
            r = Radius()
            seen: set[tuple[str, int, int]] = set()
            for ep in through:
                for st in [*old_callers.get(ep, ()), *new_callers.get(ep, ())]:
                    key = (st.call.file, st.call.span.start, st.call.span.end)
                    if key not in seen:
                        seen.add(key)
                        r.calls.append(st)
            names = {element, *through}
            r.generated = [g for g, ids in generated.items() if ids & names]
            for g in r.generated:
                for imp in sorted((index.rdeps.get(g, set()) | index.ardeps.get(g, set())) - {g, contract}):
                    r.importers.setdefault(imp, g)
            r.calls.sort(key=lambda st: (st.call.file, st.call.span.start))
            out[element] = r
        return out

    def _set_impact(self, rel: str, base: _Baseline, views: Views, diff: ContractDiff) -> None:
        radius = self.radius(rel, diff, base.views, views, base.callers, callers_in(self.index.statuses, rel))
        spans = {**{MODEL_PREFIX + n: m.span for n, m in views.models.items()},
                 **{e: ep.span for e, ep in views.endpoints.items()}}
        found = []
        for change in diff.changes:
            reasons = [(f, why) for f, why in radius[change.element].reasons(change.element) if f != rel]
            n = len(reasons)
            affects = f"this change affects {n} file{'s' if n != 1 else ''}" if n else "this change affects no file"
            span = spans.get(change.element) if change.status != "removed" else None
            found.append(Finding(IMPACT, "information", f"{change.summary} — {affects}", rel, span or Span(0, 0), (
                ("element", change.element), ("change", change.status), ("summary", change.summary),
                ("changes", tuple(f.text for f in change.fields)), ("files", tuple(f for f, _ in reasons)),
                ("reasons", tuple(reasons)))))
        found.sort(key=lambda f: (f.span.start, f.message))
        if found:
            self.impact[rel] = tuple(found)
        else:
            self.impact.pop(rel, None)
