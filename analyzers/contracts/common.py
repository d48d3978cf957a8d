"""Helpers shared by the SpecDSL and OpenAPI readers: paths, findings, plain values."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..model import Finding, Span
from .positions import MapNode, Node, ScalarNode, SeqNode

CODE = "contract-invalid"

_COLON_PARAM = re.compile(r"(^|[/.])\:([A-Za-z_][A-Za-z0-9_]*)")
_SLASHES = re.compile(r"/{2,}")
_BRACE_PARAM = re.compile(r"\{[^{}/]*\}")


def normalize_path(path: str) -> str:
    """``/users/:id//posts/`` -> ``/users/{id}/posts``.

    ``:param`` becomes ``{param}`` (at the start of a segment or after a ``.``), runs of
    slashes collapse to one, a trailing slash is dropped (except for ``/`` itself),
    ``{param}`` is kept as is, and a leading ``/`` is added when missing."""
    path = path.strip()
    path = _COLON_PARAM.sub(lambda m: f"{m.group(1)}{{{m.group(2)}}}", path)
    path = _SLASHES.sub("/", path)
    if not path.startswith("/"):
        path = "/" + path
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return path


def path_shape(path: str) -> str:
    """The normalized path with every ``{...}`` replaced by ``{}``: ``/users/{}``."""
    return _BRACE_PARAM.sub("{}", normalize_path(path))


def freeze(value: object, _depth: int = 0) -> object:
    """A hashable plain value: dicts become tuples of (key, value) pairs, lists tuples."""
    if _depth > 50:
        return None
    if isinstance(value, dict):
        return tuple((str(k), freeze(v, _depth + 1)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v, _depth + 1) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of a byte offset (for messages that point elsewhere)."""
    return data.count(b"\n", 0, offset) + 1


@dataclass(slots=True)
class Sink:
    """Collects findings for one file, without duplicates, in a stable order."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    _seen: set = field(default_factory=set)
    # set when part of what the contract declares lies elsewhere (a path item in another
    # file): the contract then judges no call, like one that cannot be read
    incomplete: bool = False

    def add(self, message: str, span: Span, data: tuple[tuple[str, object], ...] = (), *,
            severity: str = "error") -> None:
        key = (message, span)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(Finding(CODE, severity, message, self.path, span, data))  # type: ignore[arg-type]

    def sorted(self) -> tuple[Finding, ...]:
        return tuple(sorted(self.findings, key=lambda f: (f.span.start, f.span.end, f.message)))


# --------------------------------------------------------------------------- locating


def locate(root: Node, loc: Sequence[object], *, missing: bool = False) -> Span:
    """The span for a validation error at ``loc`` (keys and indexes).

    For a present value: the value's span. For a missing key (``missing=True``, the last
    element of ``loc`` is the missing key): the key of the parent object when it has one,
    else the parent's opening bracket. When ``loc`` cannot be followed all the way the
    deepest node reached is used (its key when it has one)."""
    node: Node = root
    key_span: Span | None = None
    steps = list(loc[:-1]) if missing else list(loc)
    for step in steps:
        if isinstance(node, MapNode) and isinstance(step, str) and step in node:
            key_span = node.key_span(step)
            node = node.get(step)  # type: ignore[assignment]
        elif isinstance(node, SeqNode) and isinstance(step, int) and 0 <= step < len(node.items):
            key_span = None
            node = node.items[step]
        else:
            return key_span or _opening(node)
    if missing:
        return key_span or _opening(node)
    return node.span


def node_at(root: Node, loc: tuple) -> Node | None:
    """The node at a pydantic error location (keys and indexes), or None."""
    node: Node | None = root
    for step in loc:
        if isinstance(node, MapNode) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, SeqNode) and isinstance(step, int) and 0 <= step < len(node.items):
            node = node.items[step]
        else:
            return None
    return node


def _opening(node: Node) -> Span:
    if isinstance(node, (MapNode, SeqNode)):
        return node.open_span
    return node.span


def describe_loc(loc: Iterable[object]) -> str:
    """``("endpoints", 1, "method")`` -> ``endpoints[1].method`` (as ai-spec writes it)."""
    out = ""
    for step in loc:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out or "document"


# --------------------------------------------------------------------------- routes


@dataclass(frozen=True, slots=True)
class RouteDecl:
    method: str
    raw: str  # the path as written (normalized, before base path)
    span: Span


def check_routes(routes: Sequence[RouteDecl], sink: Sink, data: bytes, *, exact: bool) -> None:
    """Flag routes with the same method and path shape.

    ``exact`` also reports routes that are written identically (SpecDSL; in OpenAPI the
    same path key twice is a duplicate key, reported by the parser)."""
    first: dict[tuple[str, str], RouteDecl] = {}
    newlines: list[int] | None = None  # built on the first duplicate (many of them stay linear)
    for r in routes:
        k = (r.method, path_shape(r.raw))
        other = first.get(k)
        if other is None:
            first[k] = r
            continue
        if newlines is None:
            newlines = [m.start() for m in re.finditer(b"\n", data)]
        where = f"line {bisect.bisect_left(newlines, other.span.start) + 1}"
        related = (("related", ((sink.path, other.span.start, other.span.end),)),)
        if normalize_path(other.raw) == normalize_path(r.raw):
            if other.raw == r.raw:
                if exact:
                    sink.add(f"duplicate route `{r.method} {r.raw}`: also declared at {where}", r.span, related)
            else:
                sink.add(
                    f"duplicate route `{r.method} {r.raw}`: same as `{other.raw}` ({where}) once normalized",
                    r.span,
                    related,
                )
        else:
            sink.add(
                f"duplicate route `{r.method} {r.raw}`: differs from `{r.method} {other.raw}` ({where}) "
                "only in parameter names",
                r.span,
                related,
            )


def scalar_str(node: Node | None) -> str | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return node.value
    return None
