"""Matching resolved HTTP calls against declared endpoints. Pure.

A call matches an endpoint when its path equals the endpoint's path segment by segment (a
``{param}`` on either side matches any one segment). What the call spells may lack a part
of the endpoint's full path: the contract's base path (an interceptor or an environment
value adds it), or, when the call goes through a base that cannot be seen statically, an
unknown prefix. That missing part is the call's **frame** (``Hyp``: which path of the call,
its whole template ``T`` or the part after its known base ``R``, and the prefix).

Calls travel through **channels** (``HttpCall.channel``: one client, one base expression,
or the plain calls of one project). The calls of a channel that match are the evidence of
the frame its other calls are in (``Matcher``): a path that matches nothing is judged in
that frame, so a call through an Angular ``HttpClient`` whose sibling calls match the
contract's paths without its ``servers`` base is a phantom even though no call spells the
base, and a base read from the environment stands for one prefix, inferred from the calls
that match.

Literal segments compare without case first; a call that matches only when case is
ignored is matched with a ``case-mismatch`` note (ASP.NET and Express route without case),
unless the table is case-sensitive. A dynamic segment of a call meeting a literal segment
of the contract (``/users/{x}`` against ``/users/me``) is a *weak* match: it is only taken
when no strong one exists, so it never hides a method mismatch.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Iterable, Literal

from .codes import CODES
from .fields import check as check_fields
from .http_call import HttpCall
from .model import Endpoint, Finding

Status = Literal["matched", "phantom", "method-mismatch", "unresolved"]
Hyp = tuple[str, str]  # (which path of the call: "T" or "R", the prefix it lacks)

_PARAM = re.compile(r"\{[^{}/]*\}")
_ASSET = re.compile(r"\.(json|js|mjs|css|map|html?|txt|md|csv|xml|svg|png|jpe?g|gif|webp|ico|woff2?|ttf|wasm|pdf)$", re.I)
PREFIX_DEPTH = 3  # unknown prefixes considered: the first 1..3 literal segments of declared paths
STRICT_MIN = 3  # matched calls a channel needs before its frame judges the calls that match elsewhere


@dataclass(eq=False)
class CallStatus:
    """A call and what the contracts say about it. The ``phantom-api`` finding (with its
    nearest endpoints, the costly part) is computed when first asked for. ``weak``: the
    match needed a dynamic segment of the call to stand for a literal one of the contract.
    ``branch``: for a conditional URL, the candidate path the status is about."""

    call: HttpCall
    status: Status
    endpoint: Endpoint | None = None
    _finding: Finding | None = None
    _table: "EndpointTable | None" = None
    weak: bool = False
    branch: str | None = None
    frame: str | None = None  # the prefix the call was judged under, when it lacked one
    _fields: "list[Finding] | None" = None

    @property
    def field_findings(self) -> list[Finding]:
        """What the call sends and reads, against the matched endpoint's schemas
        (``analyzers/fields.py``): judged only for a sure match of one path (not a weak one,
        not a conditional URL), computed when first asked for."""
        if self._fields is None:
            ep = self.endpoint
            call = self.call
            if (self.status != "matched" or ep is None or ep.schemas is None or self.weak or call.candidates
                    or not (call.body or call.params or call.query or call.reads)):
                self._fields = []
            else:
                self._fields = check_fields(call, ep)
        return self._fields

    @property
    def finding(self) -> Finding | None:
        if self._finding is None and self.status == "phantom" and self._table is not None:
            self._finding = phantom_finding(self._table, self.call, self.branch, self.frame)
        return self._finding


def endpoint_key(ep: Endpoint) -> str:
    return f"{ep.method} {ep.path}"


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


class _Seg:
    """A segment with parameters: ``{id}`` (any) or ``{id}.json`` (a pattern)."""

    __slots__ = ("text", "any", "pattern", "loose")

    def __init__(self, text: str) -> None:
        self.text = text
        self.any = bool(_PARAM.fullmatch(text))
        source = None if self.any else (
            "".join(".+" if _PARAM.fullmatch(p) else re.escape(p) for p in re.split(r"(\{[^{}/]*\})", text) if p) + r"\Z")
        self.pattern = re.compile(source) if source else None
        self.loose = re.compile(source, re.I) if source else None

    def accepts(self, seg: str) -> bool:
        return self.any or bool(self.loose and self.loose.match(seg))

    def exact(self, seg: str) -> bool:
        return self.any or bool(self.pattern and self.pattern.match(seg))


@lru_cache(maxsize=4096)
def _seg(text: str) -> _Seg:
    return _Seg(text)


@dataclass(frozen=True)
class Hit:
    """One endpoint a path matches. ``prefix``: what the path lacks of the endpoint's full
    path ("" or the contract's base path); ``exact``: literal segments equal with their case;
    ``weak``: a dynamic segment of the path met a literal one of the contract."""

    ep: Endpoint
    prefix: str
    exact: bool
    weak: bool


class _Node:
    __slots__ = ("lit", "params", "leaves")

    def __init__(self) -> None:
        self.lit: dict[str, _Node] = {}  # lower-cased literal segment -> child
        self.params: list[tuple[_Seg, _Node]] = []
        self.leaves: list[tuple[Endpoint, str, tuple[str, ...]]] = []  # (endpoint, prefix, its segments)


class EndpointTable:
    """The merged endpoints of all contracts, indexed for segment-wise lookup."""

    def __init__(self, endpoints: Iterable[Endpoint], base_paths: Iterable[str] = (),
                 case_sensitive: bool = False, unreadable: Iterable[str] = (), hosts: Iterable[str] = (),
                 source: str = "contract", incomplete: str | None = None) -> None:
        self.endpoints = tuple(endpoints)
        # "contract": the contract files' endpoints; "routes": the backend's own routes
        # (``routes.route_endpoints``), which then name their handlers in messages
        self.source = source
        self.hosts = frozenset(h.lower() for h in hosts)  # the hosts the contracts' servers name
        self.base_paths = tuple(b.rstrip("/") for b in base_paths if b.strip("/"))
        self.case_sensitive = case_sensitive
        self.unreadable = tuple(unreadable)  # contracts that could not be read as a whole
        # why a call that matches nothing is not judged: a contract could not be read, or a
        # route's full path is not known (it may be the one)
        self.incomplete = incomplete or (f"contract {', '.join(self.unreadable)} could not be read"
                                         if self.unreadable else None)
        self._root = _Node()
        self.namespace = _namespace(self.endpoints)
        self.bases = tuple(sorted({ep.base_path.rstrip("/") for ep in self.endpoints if ep.base_path.strip("/")}))
        self.standard = frozenset(("",) + self.bases)  # prefixes a contract itself declares
        # the prefixes a path may lack, by the segment that follows them (lower case; "{" for
        # a parameter): a path starting with `series` is tried only after prefixes some
        # declared path continues with `series` or a parameter
        after: dict[str, set[str]] = {}
        for ep in self.endpoints:
            segs = _segments(full_path(ep))
            for n in range(1, min(PREFIX_DEPTH, len(segs) - 1) + 1):
                if any("{" in s for s in segs[:n]):
                    break
                nxt = segs[n]
                after.setdefault("{" if "{" in nxt else nxt.lower(), set()).add("/" + "/".join(segs[:n]))
        order = lambda p: (p.count("/"), p)  # noqa: E731
        self._prefixes_after = {k: tuple(sorted(v, key=order)) for k, v in after.items()}
        self.prefixes = tuple(sorted({p for v in after.values() for p in v}, key=order))
        self._near_cache: dict[tuple, list[Endpoint]] = {}
        self._hits_cache: dict[str, tuple[Hit, ...]] = {}
        self._interp_cache: dict[tuple, dict[Hyp, tuple[Hit, ...]]] = {}
        # inverted index for `nearest`: distinctive literal segments (and their first three
        # letters) -> endpoints; segments most endpoints share (/api, /v1) are left out
        keys: dict[str, list[Endpoint]] = {}
        for ep in self.endpoints:
            for seg in set(_segments(full_path(ep))):
                if "{" not in seg:
                    for k in {seg.lower(), seg[:3].lower() + "~"}:
                        keys.setdefault(k, []).append(ep)
        common = max(2, len(self.endpoints) // 2)
        self._by_key = {k: v for k, v in keys.items() if len(v) <= common}
        self._forms: dict[int, tuple[list[str], ...]] = {}
        for ep in self.endpoints:
            eps, full = _segments(ep.path), _segments(full_path(ep))
            self._forms[id(ep)] = (eps, full) if full != eps else (full,)
        for ep in self.endpoints:
            full = full_path(ep)
            self._insert(full, ep, "")
            if full != ep.path:
                self._insert(ep.path, ep, ep.base_path.rstrip("/"))
            for b in self.base_paths:  # prefixes clients add and contracts omit (configuration)
                self._insert(b + full, ep, "")

    def _insert(self, path: str, ep: Endpoint, prefix: str) -> None:
        node = self._root
        segs = tuple(_segments(path))
        for seg in segs:
            if "{" in seg:
                for s, child in node.params:
                    if s.text == seg:
                        node = child
                        break
                else:
                    child = _Node()
                    node.params.append((_seg(seg), child))
                    node = child
            else:
                node = node.lit.setdefault(seg.lower(), _Node())
        if not any(e is ep and p == prefix for e, p, _ in node.leaves):
            node.leaves.append((ep, prefix, segs))

    # ------------------------------------------------------------------ lookups
    def hits(self, path: str) -> tuple[Hit, ...]:
        """Every endpoint ``path`` matches segment-wise, in either of its forms."""
        found = self._hits_cache.get(path)
        if found is None:
            segs = _segments(path)
            out: list[tuple[tuple, bool]] = []
            self._walk(self._root, segs, 0, False, out)
            seen: set[tuple[int, str]] = set()
            hits = []
            for (ep, prefix, esegs), weak in out:
                key = (id(ep), prefix)
                if key in seen:
                    continue
                seen.add(key)
                exact = all(s == e or "{" in s or _seg(e).exact(s) for s, e in zip(segs, esegs))
                hits.append(Hit(ep, prefix, exact, weak))
            found = self._hits_cache[path] = tuple(hits)
        return found

    def _walk(self, node: _Node, segs: list[str], i: int, weak: bool, out: list) -> None:
        if i == len(segs):
            out.extend((leaf, weak) for leaf in node.leaves)
            return
        seg = segs[i]
        if "{" in seg:
            call_seg = _seg(seg)
            for text, child in node.lit.items():
                if call_seg.accepts(text):
                    self._walk(child, segs, i + 1, True, out)  # a dynamic value standing for a literal
            for s, child in node.params:
                if call_seg.any or s.any or call_seg.text == s.text:
                    self._walk(child, segs, i + 1, weak, out)
            return
        child = node.lit.get(seg.lower())
        if child is not None:
            self._walk(child, segs, i + 1, weak, out)
        for s, child in node.params:
            if s.accepts(seg):
                self._walk(child, segs, i + 1, weak, out)

    def lookup(self, path: str) -> list[Endpoint]:
        """Endpoints whose path (with or without base) matches ``path`` segment-wise."""
        out: list[Endpoint] = []
        for h in self.hits(path):
            if (h.exact or not self.case_sensitive) and all(h.ep is not e for e in out):
                out.append(h.ep)
        return out

    def interpret(self, template: str, relative: str | None, base_unknown: bool) -> dict[Hyp, tuple[Hit, ...]]:
        """Every frame in which the call's path matches something, with the hits there."""
        key = (template, relative, base_unknown)
        found = self._interp_cache.get(key)
        if found is not None:
            return found
        found = {}
        paths = [("T", template)]
        if relative and relative != template:
            paths.append(("R", relative))
        for kind, p in paths:
            for h in self.hits(p):
                found.setdefault((kind, h.prefix), []).append(h)
            if base_unknown:  # the base stands for an unknown prefix: which ones fit
                first = (_segments(p) or [""])[0]
                fitting = self._prefixes_after.get(first.lower(), ()) if "{" not in first else self.prefixes
                for prefix in sorted(set(fitting) | set(self._prefixes_after.get("{", ())), key=lambda x: (x.count("/"), x)):
                    for h in self.hits(prefix + p):
                        if not h.prefix:
                            found.setdefault((kind, prefix), []).append(h)
        if self.case_sensitive:
            found = {k: [h for h in v if h.exact] for k, v in found.items()}
        found = {k: tuple(v) for k, v in found.items() if v}
        self._interp_cache[key] = found
        return found

    def candidates(self, call: HttpCall) -> list[Endpoint]:
        """Endpoints the call's path matches in any frame (for quick fixes and hovers)."""
        if call.template is None:
            return []
        out: list[Endpoint] = []
        for hits in self.interpret(call.template, call.relative, call.base_unknown or call.implicit).values():
            for h in hits:
                if all(h.ep is not e for e in out):
                    out.append(h.ep)
        return out

    def outside(self, template: str, relative: str | None, base_unknown: bool, frame: Hyp | None) -> str | None:
        """Why a path that matches nothing is not this API's business, or None."""
        last = (_segments(template) or [""])[-1]
        if _ASSET.search(last):
            return f"{template} looks like a static file, not an API endpoint"
        if self.namespace is None:
            return None
        ns = self.namespace
        if frame is not None:
            kind, prefix = frame
            spelled = template if kind == "T" or not relative else relative
            tried = [prefix + spelled]
        else:
            tried = [template] + ([relative] if relative else [])
            if base_unknown:
                first = (_segments(template) or [""])[0]
                tried += [b + template for b in self.bases if _segments(b)[0] != first]
        if any(tuple(_segments(p)[:len(ns)]) == ns for p in tried):
            return None
        return f"outside the API: every declared endpoint is under /{'/'.join(ns)}"

    # ------------------------------------------------------------------ nearest
    def nearest(self, call: HttpCall, limit: int = 3) -> list[Endpoint]:
        """Declared endpoints close to the call's path (segment edit distance)."""
        assert call.template is not None
        key = (call.template, call.relative, call.method, limit)
        cached = self._near_cache.get(key)
        if cached is not None:
            return cached
        targets = [_segments(call.template)]
        if call.relative and call.relative != call.template:
            targets.append(_segments(call.relative))
        pool: dict[int, Endpoint] = {}
        for t in targets:
            for seg in t:
                if "{" not in seg:
                    for k in (seg.lower(), seg[:3].lower() + "~"):
                        for ep in self._by_key.get(k, ()):
                            pool[id(ep)] = ep
        scored: list[tuple[float, int, str, Endpoint]] = []
        for ep in pool.values():
            forms = self._forms[id(ep)]  # its path, and with the base path when it has one
            limit_d = max(0.5, len(forms[-1]) / 3)
            best_d = limit_d + 1
            for t in targets:
                for e in forms:
                    if abs(len(t) - len(e)) <= limit_d:  # the distance is at least the length difference
                        best_d = min(best_d, _distance(t, e))
            if best_d <= limit_d:
                same_method = 0 if call.method in (ep.method, "UNKNOWN") else 1
                scored.append((best_d, same_method, endpoint_key(ep), ep))
        scored.sort(key=lambda t: (t[0], t[1], t[2]))
        result: list[Endpoint] = []
        if scored:
            closest = [t for t in scored if t[0] <= scored[0][0]]
            if any(t[1] == 0 for t in closest):
                closest = [t for t in closest if t[1] == 0]  # same method first
            result = [t[3] for t in closest][:limit]
        self._near_cache[key] = result
        return result


def _namespace(endpoints: tuple[Endpoint, ...]) -> tuple[str, ...] | None:
    """The part every declared path starts with, when there is one: the contracts' shared
    base path (``/api/v1``), else their shared first segment (``/api``)."""
    if not endpoints:
        return None
    bases = {ep.base_path.rstrip("/") for ep in endpoints}
    if len(bases) == 1:
        base = _segments(next(iter(bases)))
        if base and "{" not in "".join(base):
            return tuple(base)
    firsts = {(_segments(full_path(ep)) or [""])[0] for ep in endpoints}
    if len(firsts) == 1:
        first = next(iter(firsts))
        if first and "{" not in first:
            return (first,)
    return None


@lru_cache(maxsize=65536)
def _seg_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    pa, pb = bool(_PARAM.fullmatch(a)), bool(_PARAM.fullmatch(b))
    if pa and pb:
        return 0.0
    if a.lower() == b.lower():
        return 0.1
    if pa or pb or SequenceMatcher(None, a, b).ratio() >= 0.6:
        return 0.5
    return 1.0


def _distance(a: list[str], b: list[str]) -> float:
    prev = [float(j) for j in range(len(b) + 1)]
    for i, sa in enumerate(a, 1):
        cur = [float(i)] + [0.0] * len(b)
        for j, sb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + _seg_cost(sa, sb))
        prev = cur
    return prev[-1]


def full_path(ep: Endpoint) -> str:
    """The endpoint's path with its contract's base path, as a client would call it."""
    return (ep.base_path.rstrip("/") + ep.path) if ep.base_path.strip("/") else ep.path


def _fmt(ep: Endpoint) -> str:
    return f"{ep.method} {full_path(ep)}"


def _handler(ep: Endpoint) -> str | None:
    """A route's handler (``read_user in app/users.py``); None for a contract entry."""
    return dict(ep.details).get("handler") if ep.details else None  # type: ignore[return-value]


def _named(ep: Endpoint) -> str:
    """``_fmt`` for messages: a route also names its handler (``GET /api/users/{id}, read_user
    in app/users.py``)."""
    handler = _handler(ep)
    return _fmt(ep) + (f", {handler}" if handler else "")


# ---------------------------------------------------------------------- judging


def _prefer(h: Hyp) -> tuple:
    kind, prefix = h
    return (prefix.count("/"), kind != "T", prefix)


class Matcher:
    """Judges calls against one table, with the evidence of every call observed so far:
    per channel, how many calls match in each frame. ``observe(file, calls)`` replaces a
    file's evidence and returns the channels whose frame changed (their other files must
    be judged again); ``judge(call)`` gives a call's status."""

    def __init__(self, table: EndpointTable) -> None:
        self.table = table
        self._counts: dict[str, Counter[Hyp]] = {}
        self._matched: Counter[str] = Counter()  # channel -> calls that match somewhere
        self._files: dict[str, Counter[str]] = {}  # channel -> file -> calls observed
        self._by_file: dict[str, list[tuple[str, tuple[Hyp, ...]]]] = {}
        self._frames: dict[str, tuple[Hyp, bool] | None] = {}
        self._hyps: dict[tuple, tuple[Hyp, ...]] = {}  # per (template, relative, base unknown)
        self._verdicts: dict[tuple, tuple] = {}  # per (hits, method): what the hits say

    def hypotheses(self, call: HttpCall) -> tuple[Hyp, ...]:
        unknown = call.base_unknown or call.implicit
        if not call.candidates:
            key = (call.template, call.relative, unknown)
            found = self._hyps.get(key)
            if found is None:
                interp = self.table.interpret(call.template, call.relative, unknown) if call.template is not None else {}
                found = self._hyps[key] = tuple(sorted(interp))
            return found
        hyps: set[Hyp] = set()
        for template, relative, _ in call.candidates:
            if template is not None:
                hyps.update(self.table.interpret(template, relative, unknown))
        return tuple(sorted(hyps))

    def observe(self, file: str, calls: Iterable[HttpCall], changes: bool = True) -> set[str]:
        """Replace a file's evidence; returns the channels whose frame it changed (without
        ``changes``, nothing: the caller judges every call anyway, as after a build)."""
        contrib = [(c.channel, self.hypotheses(c)) for c in calls]
        old = self._by_file.get(file, [])
        if old == contrib:
            return set()  # the file's evidence did not change (most edits)
        channels = {ch for ch, _ in old} | {ch for ch, _ in contrib}
        before = {ch: self.frame(ch) for ch in channels} if changes else {}
        self._retract(file)
        per: dict[str, list] = {}  # channel -> [calls, calls with hits, {hyp: calls}]
        for ch, hyps in contrib:
            agg = per.get(ch)
            if agg is None:
                agg = per[ch] = [0, 0, {}]
            agg[0] += 1
            if hyps:
                agg[1] += 1
                for h in hyps:
                    agg[2][h] = agg[2].get(h, 0) + 1
        for ch, (n, matched, hyps) in per.items():
            files = self._files.get(ch)
            if files is None:
                files = self._files[ch] = Counter()
            files[file] += n
            if matched:
                counts = self._counts.get(ch)
                if counts is None:
                    counts = self._counts[ch] = Counter()
                for h, k in hyps.items():
                    counts[h] += k
                self._matched[ch] += matched
        for ch in channels:
            self._frames.pop(ch, None)
        if contrib:
            self._by_file[file] = contrib
        return {ch for ch in channels if self.frame(ch) != before[ch]} if changes else set()

    def forget(self, file: str) -> set[str]:
        return self.observe(file, ())

    def _retract(self, file: str) -> None:
        """Take a file's evidence out (its channels' cached frames are the caller's to drop)."""
        for ch, hyps in self._by_file.pop(file, ()):
            files = self._files[ch]
            files[file] -= 1
            if files[file] <= 0:
                del files[file]
            if hyps:
                counts = self._counts[ch]
                counts.subtract(hyps)
                for h in hyps:
                    if counts[h] <= 0:
                        del counts[h]
                self._matched[ch] -= 1

    def files_of(self, channel: str) -> set[str]:
        return set(self._files.get(channel, ()))

    def frame(self, channel: str) -> tuple[Hyp, bool] | None:
        """The channel's frame (the one most of its matching calls are in) and whether it is
        strong enough to judge its calls that match only elsewhere."""
        if channel in self._frames:
            return self._frames[channel]
        counts = self._counts.get(channel)
        frame = None
        if counts:
            best = min(counts, key=lambda h: (-counts[h], _prefer(h)))
            n = counts[best]
            frame = (best, n >= STRICT_MIN and n >= 0.8 * self._matched[channel])
        self._frames[channel] = frame
        return frame

    def judge(self, call: HttpCall) -> CallStatus:
        if call.external:
            if (call.host or "").lower() not in self.table.hosts:
                return CallStatus(replace(call, template=None, relative=None, candidates=()), "unresolved")
            call = replace(call, reason=None, external=False,  # a host the contract's servers name
                           candidates=tuple((t, r, None) for t, r, _ in call.candidates))
        branches = _branches(call)
        if len(branches) == 1:
            template, relative, _ = branches[0]
            if template is None:
                return CallStatus(call, "unresolved")
            return self._judge_path(call, template, relative, None)
        results = []
        unresolved = []
        for i, (template, relative, reason) in enumerate(branches):
            if template is None:
                unresolved.append(reason or "cannot be resolved")
                continue
            results.append(self._judge_path(call, template, relative, f"branch {i + 1} of {len(branches)}"))
        for status in ("phantom", "method-mismatch"):
            for st in results:
                if st.status == status:
                    return st
        judged = [st for st in results if st.status == "matched"]
        if judged and not unresolved:
            return judged[0]
        why = "; ".join(unresolved) or "; ".join(st.call.reason or "" for st in results if st.status == "unresolved")
        if judged and all(st.status == "matched" for st in results):
            why = f"one branch of the conditional URL cannot be resolved ({why})"
        return CallStatus(replace(call, reason=why or call.reason), "unresolved")

    def _judge_path(self, call: HttpCall, template: str, relative: str | None, branch: str | None) -> CallStatus:
        table = self.table
        interp = table.interpret(template, relative, call.base_unknown or call.implicit)
        frame = self.frame(call.channel) if call.channel else None
        label = template if call.method == "UNKNOWN" else f"{call.method} {template}"
        if branch is not None and template != call.template:
            call = replace(call, template=template, relative=relative)
        if frame is not None and frame[1] and (call.base_unknown or call.implicit):
            hits = interp.get(frame[0])
            if hits is None and interp:  # matches only under another prefix than its channel's
                return CallStatus(call, "phantom", None, None, table, branch=branch, frame=frame[0][1] or None)
        else:
            # a prefix only a guess supports (no contract declares it as a base) counts when
            # the channel's calls agree on it, not for one call on its own
            agreed = frame[0] if frame is not None and self._counts[call.channel][frame[0]] >= 2 else None
            allowed = [h for h in interp if h == agreed or h[1] in table.standard]
            hits = interp[agreed if agreed in interp else min(allowed, key=_prefer)] if allowed else None
        if hits:
            return self._verdict(call, label, hits, branch)
        if table.incomplete:
            return CallStatus(replace(call, reason=table.incomplete), "unresolved", branch=branch)
        why = table.outside(template, relative, call.base_unknown, frame[0] if frame else None)
        if why is not None:
            return CallStatus(replace(call, reason=why), "unresolved", branch=branch)
        prefix = frame[0][1] if frame is not None and call.base_unknown and frame[0][1] else None
        return CallStatus(call, "phantom", None, None, table, branch=branch, frame=prefix)

    def _verdict(self, call: HttpCall, label: str, hits: tuple[Hit, ...], branch: str | None) -> CallStatus:
        key = (id(hits), call.method)  # hits are the table's own (memoized) tuples
        got = self._verdicts.get(key)
        if got is None or got[0] is not hits:
            strong = [h for h in hits if not h.weak]
            chosen = strong or list(hits)
            exact = [h for h in chosen if h.exact]
            eps = [h.ep for h in (exact or chosen)]
            match = eps[0] if call.method == "UNKNOWN" else next((ep for ep in eps if ep.method in (call.method, "ANY")), None)
            got = self._verdicts[key] = (hits, match, not strong, bool(exact), eps)
        _, match, weak, exact, eps = got
        if match is not None and exact:  # the usual case
            return CallStatus(call, "matched", match, None, weak=weak, branch=branch)
        if match is None:
            if self.table.incomplete:
                return CallStatus(replace(call, reason=self.table.incomplete), "unresolved", branch=branch)
            methods = sorted({ep.method for ep in eps})
            if self.table.source == "routes":
                msg = (f"{label} is not routed: the backend routes {full_path(eps[0])} only with "
                       f"{', '.join(methods)} (handled by {', '.join(_handler(ep) for ep in eps[:3])})")
            else:
                msg = (f"{label} is not declared: the contract has {full_path(eps[0])} only with "
                       f"{', '.join(methods)}")
            finding = Finding("method-mismatch", CODES["method-mismatch"].severity, msg, call.file, call.span,
                              data=(("method", call.method), ("template", call.template),
                                    ("declared", tuple(_fmt(ep) for ep in eps))))
            return CallStatus(call, "method-mismatch", eps[0], finding, weak=weak, branch=branch)
        note = None
        if not exact:
            note = Finding("case-mismatch", CODES["case-mismatch"].severity,
                           f"{label} matches {_fmt(match)} only when case is ignored; set "
                           "case_sensitive = true if the backend routes with case",
                           call.file, call.span, data=(("endpoint", _fmt(match)),))
        return CallStatus(call, "matched", match, note, weak=weak, branch=branch)


def _branches(call: HttpCall) -> tuple[tuple[str | None, str | None, str | None], ...]:
    return call.candidates or ((call.template, call.relative, call.reason),)


def match_call(table: EndpointTable, call: HttpCall) -> CallStatus:
    """One call judged without the evidence of its channel."""
    return Matcher(table).judge(call)


def phantom_finding(table: EndpointTable, call: HttpCall, branch: str | None = None,
                    frame: str | None = None) -> Finding:
    assert call.template is not None
    label = call.template if call.method == "UNKNOWN" else f"{call.method} {call.template}"
    near = table.nearest(call)
    where = "a route of the backend" if table.source == "routes" else "in the contract"
    msg = f"{label} is not {where}"
    if frame:
        msg = f"{label} is not {where} under {frame}, the prefix the other calls through this base use"
    if branch:
        msg += f" ({branch} of a conditional URL)"
    if near:
        msg += f" (nearest: {', '.join(_named(ep) for ep in near[:2])})"
    return Finding("phantom-api", CODES["phantom-api"].severity, msg, call.file, call.span,
                   data=(("method", call.method), ("template", call.template),
                         ("nearest", tuple(_fmt(ep) for ep in near))))


def unused_endpoint_findings(endpoints: Iterable[Endpoint], used: set[tuple[str, str, str]]) -> list[Finding]:
    """``unused-endpoint`` for each endpoint no matched call reaches. ``used`` holds
    (file, method, path) of matched endpoints."""
    out = []
    for ep in endpoints:
        if (ep.file, ep.method, ep.path) not in used:
            out.append(Finding("unused-endpoint", CODES["unused-endpoint"].severity,
                               f"{_fmt(ep)} is not called anywhere in the workspace",
                               ep.file, ep.span, data=(("endpoint", f"{ep.method} {ep.path}"),)))
    return out


def endpoint_id(ep: Endpoint) -> tuple[str, str, str]:
    return (ep.file, ep.method, ep.path)
