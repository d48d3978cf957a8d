"""The backend's own routes as a contract (``contract_sources``, ``docs/routes.md``): the
composed routes (``routes.compose``) turned into the endpoints client calls are judged
against, and the rule that says when that judgement can be trusted.

A route whose handler takes a request model (``Route.body_model``: a pydantic model, a
NestJS DTO) that is a data class of the workspace (``DataModel``, found through the route
file's imports as ``routes.compose`` finds routers) gets that model's fields as its request
schema (``Endpoint.schemas``, ``route_schemas``).

Pure: composed routes, facts (through ``lookup``) and call statuses in, endpoints and
verdicts out.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Iterable

from .contracts.schemas import type_shape
from .matching import CallStatus
from .model import DataModel, Endpoint, FileFacts, Prop, Schemas, Shape
from .routes import ComposedRoute, Resolve, find_declared

Lookup = Callable[[str], "FileFacts | None"]

MAX_BASES = 16  # classes read for one model (its bases, theirs, ...)
MAX_NESTING = 4  # levels of models inside models
# bases that declare no wire field of their own: following stops there
_ROOTS = frozenset({"BaseModel", "RootModel", "GenericModel", "TypedDict", "SQLModel", "Schema", "ModelSchema",
                    "BaseSettings", "Struct", "object", "Generic", "Protocol", "NamedTuple"})
_MAPPED = re.compile(r"^\s*([A-Za-z_$][\w$.]*)\s*\(\s*([A-Za-z_$][\w$.]*)\s*[,)]")


def handler_label(c: ComposedRoute) -> str:
    """``read_user in app/api/users.py`` (the route's file when its handler has no name)."""
    return f"{c.route.handler} in {c.file}" if c.route.handler else f"the route in {c.file}"


def route_endpoints(composed: Iterable[ComposedRoute], lookup: Lookup | None = None,
                    resolve: Resolve | None = None) -> tuple[list[Endpoint], str | None]:
    """(the endpoints of the resolved routes, why a call that matches none of them cannot be
    judged: some route's full path is not known, so it may be the one; None when all are
    known). One endpoint per method and full path (the first route in sort order wins; a
    path routed twice is the framework's first match too). With ``lookup`` and ``resolve``
    (those ``routes.compose`` was given), a route's request model becomes its endpoint's
    ``schemas`` (``route_schemas``)."""
    seen: set[tuple[str, str]] = set()
    out: list[Endpoint] = []
    unknown: list[ComposedRoute] = []
    memo: dict = {}  # models' shapes, shared by the routes that take them
    for c in composed:
        if c.unresolved is not None:
            unknown.append(c)
            continue
        key = (c.method, c.path)
        if key in seen:
            continue
        seen.add(key)
        span = c.route.handler_span if c.route.handler_span is not None and c.route.handler else c.route.span
        schemas = None
        if lookup is not None and resolve is not None and c.route.body_model:
            schemas = route_schemas(c.file, c.route.body_model, lookup, resolve, memo)
        out.append(Endpoint(c.method, c.path, c.file, c.route.span, id=c.route.handler,
                            details=(("source", "routes"), ("handler", handler_label(c)),
                                     ("handler_span", (span.start, span.end)), ("framework", c.route.framework)),
                            schemas=schemas))
    why = None
    if unknown:
        first = unknown[0]
        more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
        why = (f"the backend has routes whose full path is not known ({first.file}: {first.unresolved}{more}); "
               "the call may be to one of them")
    return out, why


# --------------------------------------------------------------------------- request models


def find_model(file: str, name: str, lookup: Lookup, resolve: Resolve) -> tuple[str, DataModel] | None:
    """The data class ``name`` (as written in ``file``: ``NoteIn``, ``schemas.NoteIn``) names,
    and the file that declares it: the file's own, else through its imports and re-exports,
    as ``routes_views.find_view`` finds a view."""
    return find_declared(file, name, lookup, resolve, lambda facts: facts.data_models)


def _is_root(base: str) -> bool:
    return base.rsplit(".", 1)[-1].split("[", 1)[0] in _ROOTS


def model_shape(file: str, model: DataModel, lookup: Lookup, resolve: Resolve, memo: dict | None = None,
                level: int = 0, building: frozenset = frozenset()) -> Shape:
    """An object shape of ``model``'s fields and those of its workspace bases (a subclass's
    own declaration wins), ``text`` its name. A base that is a framework root
    (``BaseModel``, ``TypedDict``) adds nothing; a base that is neither that nor found in the
    workspace may add fields not seen, so the shape is then ``open``, as it is for a NestJS
    mapped type other than ``PartialType(X)`` (``X``'s fields, none required). Field types
    become shapes where that is easy (``type_shape``), another data class a nested object
    (``MAX_NESTING`` levels, a class inside itself ``any``)."""
    memo = {} if memo is None else memo
    key = (file, model.name, level)
    got = memo.get(key)
    if got is not None:
        return got
    fields: dict[str, Prop] = {}
    open_ = model.open
    todo: list[tuple[str, DataModel, bool]] = [(file, model, False)]  # (file, class, fields optional)
    classes: list[tuple[str, DataModel, bool]] = []
    seen: set[tuple[str, str]] = set()
    while todo and len(seen) < MAX_BASES:
        f, m, optional = todo.pop(0)
        if (f, m.name) in seen:
            continue
        seen.add((f, m.name))
        classes.append((f, m, optional))
        for base in m.bases:
            mapped = _MAPPED.match(base)
            if mapped is not None:
                found = find_model(f, mapped.group(2), lookup, resolve) if mapped.group(1).endswith("PartialType") else None
                if found is None:
                    open_ = True  # OmitType(X, ...), PickType, IntersectionType, a call not known
                else:
                    todo.append((*found, True))
                continue
            if _is_root(base):
                continue
            found = find_model(f, base, lookup, resolve)
            if found is None:
                open_ = True
            else:
                todo.append((*found, optional))
    inside = building | {(file, model.name)}
    for f, m, optional in reversed(classes):  # bases first: the subclass's declarations win
        def nested(name: str, lv: int, f: str = f) -> Shape | None:
            found = find_model(f, name, lookup, resolve)
            if found is None:
                return None
            if (found[0], found[1].name) in inside or level + 1 > MAX_NESTING:
                return Shape(text=found[1].name)
            return model_shape(found[0], found[1], lookup, resolve, memo, level + 1, inside)
        for fd in m.fields:
            shape = type_shape(fd.type, nested) if fd.type else Shape()
            fields[fd.name] = Prop(fd.name, shape, fd.required and not optional, fd.read_only)
    shape = Shape("object", props=tuple(fields.values()), closed=model.closed and not open_,
                  open=open_ and not model.closed, text=model.name)
    memo[key] = shape
    return shape


def route_schemas(file: str, body_model: str, lookup: Lookup, resolve: Resolve, memo: dict | None = None) -> Schemas | None:
    """The request schema of a route in ``file`` whose handler takes ``body_model`` (as
    written: ``NoteIn``, ``schemas.NoteIn``, ``Optional[NoteIn]``, ``list[NoteIn]``), when
    that names a data class of the workspace; None otherwise. Only the body is known: the
    parameters are not listed (``params_complete=False``), the response is not read."""
    found: list[tuple[str, DataModel]] = []

    def named(name: str, level: int) -> Shape | None:
        hit = find_model(file, name, lookup, resolve)
        if hit is None:
            return None
        if not found:
            found.append(hit)
        return model_shape(hit[0], hit[1], lookup, resolve, memo)

    body = type_shape(body_model, named)
    if not found or body.type not in ("object", "array"):
        return None
    where, model = found[0]
    facts = lookup(where)
    source = "pydantic" if facts is not None and facts.language == "python" else "dto"
    if body.type == "object" and body.text != model.name:
        body = replace(body, text=model.name)
    return Schemas(body=body, body_media="application/json", params_complete=False, source=source,
                   origin=(where, model.span))


def trusted(statuses: Iterable[CallStatus]) -> bool:
    """Whether the routes read are the API these calls use: at least half of the distinct
    paths the calls judged against them reach a route. Otherwise (a backend specward reads
    only part of, routes of another service) the phantoms they would give are not shown."""
    matched: set[tuple[str, str]] = set()
    missed: set[tuple[str, str]] = set()
    for st in statuses:
        template = st.call.template or ""
        if st.status == "matched":
            matched.add((st.call.method, template))
        elif st.status in ("phantom", "method-mismatch"):
            missed.add((st.call.method, template))
    return bool(matched) and 2 * len(matched) >= len(matched) + len(missed)


def _shared(a: str, b: str) -> int:
    """Leading segments two path templates share (any two parameters are the same)."""
    n = 0
    for x, y in zip([s for s in a.split("/") if s], [s for s in b.split("/") if s]):
        if x != y and not (x.startswith("{") and y.startswith("{")):
            break
        n += 1
    return n


def nearest_routes(composed: Iterable[ComposedRoute], method: str, path: str, limit: int = 3) -> list[ComposedRoute]:
    """The resolved routes closest to ``method path`` (a contract entry no route implements):
    most leading segments in common, then the same method; none that shares no segment."""
    scored = [(_shared(c.path, path), c.method == method, c) for c in composed if c.unresolved is None]
    scored = [s for s in scored if s[0] > 0]
    scored.sort(key=lambda s: (-s[0], not s[1], s[2].path, s[2].file, s[2].route.span.start))
    return [c for _, _, c in scored[:limit]]


def contract_for(endpoints: Iterable[Endpoint], path: str) -> tuple[str, str] | None:
    """(contract file, its base path) an undeclared route ``path`` belongs in: the one whose
    entries share most leading segments with it (with their base path); None without one."""
    best: tuple[int, str, str] | None = None
    for ep in endpoints:
        full = (ep.base_path.rstrip("/") + ep.path) if ep.base_path else ep.path
        score = _shared(full, path)
        if best is None or score > best[0] or (score == best[0] and ep.file < best[1]):
            best = (score, ep.file, ep.base_path)
    return None if best is None else (best[1], best[2])
