"""SpecDSL 1.0: the ``*.dsl.json`` files the ai-spec tool writes.

Modelled on ai-spec's own ``core/dsl-types.ts`` and ``core/dsl-validator.ts``. Where
those disagree with the brief we were given, we follow ai-spec:

* ``models[].relations`` is a list of plain-text strings (``"hasMany Post"``,
  ``"belongs to User via userId"``), not objects. A relation names a model when it matches
  ``hasMany|hasOne|belongsTo|manyToMany <Name>`` (ai-spec's rule; we also accept the
  spaced forms ``has many``/``belongs to``/``many to many``); an unknown name is flagged.
* ``components[].props`` are ``{name, type, required, description?}`` objects,
  ``events`` are ``{name, payload?}`` objects and ``state`` is an object
  (name -> type description), not an array.
* ``behaviors`` and ``components`` are optional (the validator accepts them missing,
  although the TypeScript type makes ``behaviors`` required); ``props``/``events``/
  ``state``/``apiCalls`` inside a component are optional as well.
* ``request.body|query|params`` are flat maps of field name -> type-description string.
* ``apiCalls`` are only cross-checked against endpoint ids when the file declares at
  least one endpoint (a frontend-only DSL may name endpoints declared elsewhere).
* Types are strict, as in the TypeScript validator: ``"auth": "true"`` is not a boolean,
  ``"successStatus": "200"`` is not a number.

Decisions where ai-spec is silent or where we check more:

* ``method`` must be written upper-case (ai-spec rejects ``"get"``); a lower-case but
  otherwise known method is reported and the endpoint is still returned (upper-cased).
  Any method in ``model.HTTP_METHODS`` keeps the endpoint usable even when SpecDSL does
  not allow it (``HEAD``), so phantom-API checks do not cascade from one typo.
* A ``path`` that does not start with ``/`` is reported; the endpoint is still returned
  with a leading ``/`` added by ``normalize_path``.
* Extra checks: routes that differ only in parameter names (``/users/:id`` vs
  ``/users/:userId``), and ``apiCalls`` entries that are not strings.
* ai-spec's size limits (at most 100 endpoints, 50 models, ...) are not enforced: they are
  limits of the generator, not of the contract.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from ..model import HTTP_METHODS, Endpoint, Model, Span
from .common import RouteDecl, Sink, check_routes, describe_loc, freeze, node_at, line_of, locate, normalize_path, scalar_str
from .positions import MapNode, Node, ScalarNode, SeqNode, kind, to_plain
from .schemas import dsl_schemas, guarded

DSL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

_RELATION = re.compile(r"\b(?:has\s*many|has\s*one|belongs\s*to|many\s*to\s*many)\s+([A-Za-z_]\w*)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- schema


def _non_empty(v: str) -> str:
    if not v.strip():
        raise PydanticCustomError("non_empty", "must be a non-empty string")
    return v


def _status(v: int) -> int:
    if not 100 <= v <= 599:
        raise PydanticCustomError("http_status", "must be an HTTP status code (100-599), got {value}", {"value": v})
    return v


def _method(v: str) -> str:
    if v in DSL_METHODS:
        return v
    if v.upper() in DSL_METHODS:
        raise PydanticCustomError("method_case", "must be upper-case: `{upper}`", {"upper": v.upper()})
    raise PydanticCustomError(
        "method", "must be one of {allowed}, got `{value}`", {"allowed": "|".join(DSL_METHODS), "value": v}
    )


def _api_path(v: str) -> str:
    if not v.startswith("/"):
        raise PydanticCustomError("path_slash", 'must start with "/", got `{value}`', {"value": v})
    return v


NonEmpty = Annotated[str, AfterValidator(_non_empty)]
Status = Annotated[int, AfterValidator(_status)]
Method = Annotated[str, AfterValidator(_method)]
ApiPath = Annotated[str, AfterValidator(_api_path)]
FieldMap = dict[str, str]


class _Base(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class FeatureMeta(_Base):
    id: NonEmpty
    title: NonEmpty
    description: NonEmpty


class ModelField(_Base):
    name: NonEmpty
    type: NonEmpty
    required: bool
    unique: bool | None = None
    description: str | None = None


class DataModel(_Base):
    name: NonEmpty
    description: str | None = None
    fields: list[ModelField]
    relations: list[str] | None = None


class RequestSchema(_Base):
    body: FieldMap | None = None
    query: FieldMap | None = None
    params: FieldMap | None = None


class ResponseError(_Base):
    status: Status
    code: NonEmpty
    description: NonEmpty


class ApiEndpoint(_Base):
    id: NonEmpty
    method: Method
    path: ApiPath
    description: NonEmpty
    auth: bool
    request: RequestSchema | None = None
    successStatus: Status
    successDescription: NonEmpty
    errors: list[ResponseError] | None = None


class BusinessBehavior(_Base):
    id: NonEmpty
    description: NonEmpty
    trigger: str | None = None
    constraints: list[str] | None = None


class ComponentProp(_Base):
    name: NonEmpty
    type: NonEmpty
    required: bool
    description: str | None = None


class ComponentEvent(_Base):
    name: NonEmpty
    payload: str | None = None


class ComponentSpec(_Base):
    id: NonEmpty
    name: NonEmpty
    description: NonEmpty
    props: list[ComponentProp] | None = None
    events: list[ComponentEvent] | None = None
    state: dict[str, Any] | None = None
    apiCalls: list[str] | None = None


class SpecDSL(_Base):
    version: Literal["1.0"]
    feature: FeatureMeta
    models: list[DataModel]
    endpoints: list[ApiEndpoint]
    behaviors: list[BusinessBehavior] | None = None
    components: list[ComponentSpec] | None = None


_EXPECTED = {
    "bool_type": "must be a boolean",
    "int_type": "must be an integer",
    "string_type": "must be a string",
    "list_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


def _validate(root: MapNode, sink: Sink) -> None:
    try:
        SpecDSL.model_validate(to_plain(root))
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            where = describe_loc(loc)
            if err["type"] == "missing":
                sink.add(f"{where}: missing required key `{loc[-1]}`", locate(root, loc, missing=True))
                continue
            node = node_at(root, loc)
            expected = _EXPECTED.get(err["type"])
            if expected:
                msg = f"{where}: {expected}, got {kind(node)}"
            elif err["type"] == "literal_error" and loc == ("version",):
                got = node.value if isinstance(node, ScalarNode) else kind(node)
                msg = f'version: must be "1.0", got `{got}`'
            else:
                msg = f"{where}: {err['msg']}"
            sink.add(msg, locate(root, loc))


# --------------------------------------------------------------------------- reading


def _seq(node: Node | None) -> list[Node]:
    return node.items if isinstance(node, SeqNode) else []


def parse(path: str, root: Node, data: bytes, sink: Sink) -> tuple[tuple[Endpoint, ...], tuple[Model, ...]]:
    if not isinstance(root, MapNode):
        sink.add(f"a SpecDSL file must hold a JSON object, got {kind(root)}", _open(root))
        return (), ()
    _validate(root, sink)

    # models
    models: list[Model] = []
    model_names: set[str] = set()
    model_nodes = [m for m in _seq(root.get("models")) if isinstance(m, MapNode)]
    by_name: dict[str, MapNode] = {}  # the first model of each name, for the request schemas
    for m in model_nodes:
        name = scalar_str(m.get("name"))
        if name:
            model_names.add(name)
            by_name.setdefault(name, m)
    for m in model_nodes:
        name = scalar_str(m.get("name"))
        fields: list[tuple[str, str]] = []
        seen_fields: dict[str, Span] = {}
        for f in _seq(m.get("fields")):
            if not isinstance(f, MapNode):
                continue
            fname = scalar_str(f.get("name"))
            ftype = scalar_str(f.get("type"))
            if fname is None:
                continue
            if fname in seen_fields:
                sink.add(
                    f"duplicate field name `{fname}` in model `{name}`: also at line {line_of(data, seen_fields[fname].start)}",
                    f.get("name").span,  # type: ignore[union-attr]
                )
            else:
                seen_fields[fname] = f.get("name").span  # type: ignore[union-attr]
            fields.append((fname, ftype or ""))
        for rel in _seq(m.get("relations")):
            text = scalar_str(rel)
            if text is None:
                continue
            for hit in _RELATION.finditer(text):
                if hit.group(1) not in model_names:
                    sink.add(
                        f"relation `{text}` of model `{name}` names model `{hit.group(1)}`, which is not defined in `models`",
                        rel.span,
                    )
        if name:
            models.append(Model(name, tuple(fields), path, m.get("name").span))  # type: ignore[union-attr]

    # endpoints
    endpoints: list[Endpoint] = []
    routes: list[RouteDecl] = []
    ids: dict[str, Span] = {}
    for ep in _seq(root.get("endpoints")):
        if not isinstance(ep, MapNode):
            continue
        ep_id_node = ep.get("id")
        ep_id = scalar_str(ep_id_node)
        if ep_id is not None:
            if ep_id in ids:
                sink.add(
                    f"duplicate endpoint id `{ep_id}`: also used at line {line_of(data, ids[ep_id].start)}",
                    ep_id_node.span,  # type: ignore[union-attr]
                )
            else:
                ids[ep_id] = ep_id_node.span  # type: ignore[union-attr]
        method = scalar_str(ep.get("method"))
        path_node = ep.get("path")
        raw_path = scalar_str(path_node)
        if method is None or method.upper() not in HTTP_METHODS or not raw_path or not raw_path.strip():
            continue
        method = method.upper()
        routes.append(RouteDecl(method, raw_path, path_node.span))  # type: ignore[union-attr]
        endpoints.append(
            Endpoint(
                method=method,
                path=normalize_path(raw_path),
                file=path,
                span=path_node.span,  # type: ignore[union-attr]
                base_path="",
                id=ep_id,
                summary=scalar_str(ep.get("description")),
                details=_details(ep, model_names),
                schemas=guarded(lambda: dsl_schemas(ep.get("request"), by_name)),
            )
        )
    check_routes(routes, sink, data, exact=True)

    # components -> endpoint ids
    for comp in _seq(root.get("components")):
        if not isinstance(comp, MapNode):
            continue
        cname = scalar_str(comp.get("name")) or scalar_str(comp.get("id")) or "component"
        for call in _seq(comp.get("apiCalls")):
            ref = scalar_str(call)
            if ref is None:
                continue  # reported by the schema check
            if ids and ref not in ids:
                sink.add(f"component `{cname}` calls endpoint `{ref}`, which is not defined in `endpoints`", call.span)

    return tuple(endpoints), tuple(models)


def _open(node: Node) -> Span:
    return node.open_span if isinstance(node, (MapNode, SeqNode)) else node.span


_DETAIL_KEYS = ("description", "auth", "request", "successStatus", "successDescription", "errors")


def _details(ep: MapNode, model_names: set[str]) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = []
    for key in _DETAIL_KEYS:
        if key in ep:
            out.append((key, freeze(to_plain(ep.get(key)))))
    mentioned: list[str] = []
    texts: list[str] = []
    request = ep.get("request")
    if isinstance(request, MapNode):
        for part in ("body", "query", "params"):
            fields = request.get(part)
            if isinstance(fields, MapNode):
                texts.extend(v.value for _, _, v in fields.items() if isinstance(v, ScalarNode) and isinstance(v.value, str))
    desc = scalar_str(ep.get("successDescription"))
    if desc:
        texts.append(desc)
    for text in texts:
        for word in _WORD.findall(text):
            if word in model_names and word not in mentioned:
                mentioned.append(word)
    out.append(("models", tuple(mentioned)))
    return tuple(out)
