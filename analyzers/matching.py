"""Matching resolved HTTP calls against declared endpoints. Pure.

A call matches an endpoint when its path template equals the endpoint's path, with or
without the contract's base path (clients often add the base in an interceptor or from an
environment variable), segment by segment: a ``{param}`` on either side matches any one
segment. When the call's URL came from a base (client ``baseURL``, a base constant), the
part after the base is tried too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Iterable, Literal

from .codes import CODES
from .http import HttpCall
from .model import Endpoint, Finding

Status = Literal["matched", "phantom", "method-mismatch", "unresolved"]

_PARAM = re.compile(r"\{[^{}/]*\}")
_ASSET = re.compile(r"\.(json|js|mjs|css|map|html?|txt|md|csv|xml|svg|png|jpe?g|gif|webp|ico|woff2?|ttf|wasm|pdf)$", re.I)


@dataclass(eq=False)
class CallStatus:
    """A call and what the contracts say about it. The ``phantom-api`` finding (with its
    nearest endpoints, the costly part) is computed when first asked for."""

    call: HttpCall
    status: Status
    endpoint: Endpoint | None = None
    _finding: Finding | None = None
    _table: "EndpointTable | None" = None

    @property
    def finding(self) -> Finding | None:
        if self._finding is None and self.status == "phantom" and self._table is not None:
            self._finding = phantom_finding(self._table, self.call)
        return self._finding


def endpoint_key(ep: Endpoint) -> str:
    return f"{ep.method} {ep.path}"


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


class _Seg:
    """A segment with parameters: ``{id}`` (any) or ``{id}.json`` (a pattern)."""

    __slots__ = ("text", "any", "pattern")

    def __init__(self, text: str) -> None:
        self.text = text
        self.any = bool(_PARAM.fullmatch(text))
        self.pattern = None if self.any else re.compile(
            "".join(".+" if _PARAM.fullmatch(p) else re.escape(p) for p in re.split(r"(\{[^{}/]*\})", text) if p) + r"\Z")

    def accepts(self, seg: str) -> bool:
        return self.any or bool(self.pattern and self.pattern.match(seg))


@lru_cache(maxsize=4096)
def _seg(text: str) -> _Seg:
    return _Seg(text)


class _Node:
    __slots__ = ("lit", "params", "endpoints")

    def __init__(self) -> None:
        self.lit: dict[str, _Node] = {}
        self.params: list[tuple[_Seg, _Node]] = []
        self.endpoints: list[Endpoint] = []


class EndpointTable:
    """The merged endpoints of all contracts, indexed for segment-wise lookup."""

    def __init__(self, endpoints: Iterable[Endpoint], base_paths: Iterable[str] = ()) -> None:
        self.endpoints = tuple(endpoints)
        self.base_paths = tuple(b.rstrip("/") for b in base_paths if b.strip("/"))
        self._root = _Node()
        firsts = {(_segments(full_path(ep)) or [""])[0] for ep in self.endpoints}
        # when every endpoint lives under one first segment (/api, /v1), that is the API's
        # namespace: a path outside it is not a call to this API (a page, an asset, ...)
        self.namespace = next(iter(firsts)) if len(firsts) == 1 and "{" not in next(iter(firsts)) else None
        self._near_cache: dict[tuple, list[Endpoint]] = {}
        self._cand_cache: dict[tuple, list[Endpoint]] = {}  # (template, relative) -> matches
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
            self._insert(ep.path, ep)
            if ep.base_path and ep.base_path.strip("/"):
                self._insert(ep.base_path.rstrip("/") + ep.path, ep)

    def _insert(self, path: str, ep: Endpoint) -> None:
        node = self._root
        for seg in _segments(path):
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
                node = node.lit.setdefault(seg, _Node())
        if ep not in node.endpoints:
            node.endpoints.append(ep)

    def lookup(self, path: str) -> list[Endpoint]:
        """Endpoints whose path (with or without base) matches ``path`` segment-wise."""
        out: list[Endpoint] = []
        self._walk(self._root, _segments(path), 0, out)
        seen: set[int] = set()
        unique = []
        for ep in out:
            if id(ep) not in seen:
                seen.add(id(ep))
                unique.append(ep)
        return unique

    def _walk(self, node: _Node, segs: list[str], i: int, out: list[Endpoint]) -> None:
        if i == len(segs):
            out.extend(node.endpoints)
            return
        seg = segs[i]
        if "{" in seg:
            call_seg = _seg(seg)
            for text, child in node.lit.items():
                if call_seg.accepts(text):
                    self._walk(child, segs, i + 1, out)
            for s, child in node.params:
                if call_seg.any or s.any or call_seg.text == s.text:
                    self._walk(child, segs, i + 1, out)
            return
        child = node.lit.get(seg)
        if child is not None:
            self._walk(child, segs, i + 1, out)
        for s, child in node.params:
            if s.accepts(seg):
                self._walk(child, segs, i + 1, out)

    def outside(self, call: HttpCall) -> str | None:
        """Why a call that matches nothing is not this API's business, or None."""
        assert call.template is not None
        last = (_segments(call.template) or [""])[-1]
        if _ASSET.search(last):
            return f"{call.template} looks like a static file, not an API endpoint"
        if self.namespace is not None and not call.base_unknown:
            paths = [call.template] + ([call.relative] if call.relative else [])
            if not any((_segments(p) or [""])[0] == self.namespace for p in paths):
                return f"outside the API: every declared endpoint is under /{self.namespace}"
        return None

    def candidates(self, call: HttpCall) -> list[Endpoint]:
        assert call.template is not None
        key = (call.template, call.relative)
        found = self._cand_cache.get(key)
        if found is None:
            found = self._cand_cache[key] = self._candidates(call)
        return found

    def _candidates(self, call: HttpCall) -> list[Endpoint]:
        assert call.template is not None
        paths = [call.template]
        if call.relative and call.relative != call.template:
            paths.append(call.relative)
        for base in self.base_paths:
            for p in list(paths):
                if p.startswith(base + "/"):
                    paths.append(p[len(base):])
        for p in paths:
            found = self.lookup(p)
            if found:
                return found
        return []

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


@lru_cache(maxsize=65536)
def _seg_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    pa, pb = bool(_PARAM.fullmatch(a)), bool(_PARAM.fullmatch(b))
    if pa and pb:
        return 0.0
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


def match_call(table: EndpointTable, call: HttpCall) -> CallStatus:
    if call.template is None:
        return CallStatus(call, "unresolved")
    found = table.candidates(call)
    label = call.template if call.method == "UNKNOWN" else f"{call.method} {call.template}"
    if found:
        if call.method == "UNKNOWN":
            return CallStatus(call, "matched", found[0])
        for ep in found:
            if ep.method == call.method:
                return CallStatus(call, "matched", ep)
        methods = sorted({ep.method for ep in found})
        path = full_path(found[0])
        msg = (f"{label} is not declared: the contract has {path} only with "
               f"{', '.join(methods)}")
        finding = Finding("method-mismatch", CODES["method-mismatch"].severity, msg, call.file, call.span,
                          data=(("method", call.method), ("template", call.template),
                                ("declared", tuple(_fmt(ep) for ep in found))))
        return CallStatus(call, "method-mismatch", found[0], finding)
    why = table.outside(call)
    if why is not None:
        return CallStatus(replace(call, reason=why), "unresolved")
    return CallStatus(call, "phantom", None, None, table)


def phantom_finding(table: EndpointTable, call: HttpCall) -> Finding:
    assert call.template is not None
    label = call.template if call.method == "UNKNOWN" else f"{call.method} {call.template}"
    near = table.nearest(call)
    msg = f"{label} is not in the contract"
    if near:
        msg += f" (nearest: {', '.join(_fmt(ep) for ep in near[:2])})"
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
