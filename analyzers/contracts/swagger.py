"""Swagger 2.0 (OpenAPI 2.0) documents (YAML or JSON).

Read with the same machinery as OpenAPI 3 (``oas.py``): local ``$ref``s (to
``#/definitions``, ``#/parameters``, ``#/responses`` or anywhere else) are checked
everywhere except inside ``example``/``examples`` values and ``x-`` extensions, endpoints
sit on their method key, problems on the key or value at fault. Decisions where the
issue was silent:

* ``basePath`` is the endpoints' ``base_path`` (``/`` means none), as ``servers[0].url``
  is in OpenAPI 3. A ``basePath`` without a leading ``/`` is reported and read as if it
  had one. ``host`` and ``schemes`` only go into the hover ``details``.
* ``swagger`` must be the string ``"2.0"``: ``2.0`` written as a YAML number is reported
  but read; another version is reported on its value and the document is still read as
  2.0 (whatever of it has the 2.0 shape).
* ``info.title``, ``info.version``, ``paths`` and each operation's ``responses`` are
  required. Response status keys: ``default``, 100-599 and ``x-`` extensions (ranges such
  as ``2XX`` came with OpenAPI 3.0 and are reported).
* Operation keys: get, put, post, delete, options, head, patch. ``trace`` (added in
  OpenAPI 3.0) and upper-case keys (``GET:``) are reported, and the endpoint is still
  returned. A path item may also hold ``parameters``, ``$ref`` and ``x-`` keys; anything
  else (``summary``, ``servers``: OpenAPI 3 keys) is reported.
* Parameters: path-level and operation-level ones are merged by (name, in), the
  operation's winning, as in OpenAPI 3. ``in`` must be ``query``, ``header``, ``path``,
  ``formData`` or ``body`` (reported on the value). Non-body parameters carry their type
  themselves (``type``/``items``: ``array<string>``, ``file``) and appear under
  ``parameters`` in the details (``formData`` ones included); the ``body`` parameter
  becomes the details' ``requestBody``, in OpenAPI 3's shape, with one entry per media
  type of ``consumes`` (the operation's, else the document's, else ``application/json``).
* ``definitions`` are the models. ``security`` requirements (the document's and each
  operation's) must name a scheme of ``securityDefinitions``: an unknown name is a
  dangling reference, reported on the name.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ..model import Endpoint, Model, Span
from .common import Sink, normalize_path, scalar_str
from .oas import (
    Resolver,
    closing_details,
    merged_params,
    models_of,
    not_an_operation,
    param_detail,
    response_types,
    responses_detail,
    validate_skeleton,
    walk_paths,
)
from .positions import MapNode, Node, ScalarNode, SeqNode, kind
from .schemas import ShapeBuilder, guarded, swagger_schemas

METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
PATH_ITEM_KEYS = ("parameters", "$ref")
FOREIGN = {"trace": "`trace` is not an operation in Swagger 2.0 (OpenAPI 3.0 added it)"}
LOCATIONS = ("query", "header", "path", "formData", "body")
DEFAULT_MEDIA = "application/json"


# --------------------------------------------------------------------------- top level schema


class _Base(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class Info(_Base):
    title: str
    version: str


class SwaggerDocument(_Base):
    swagger: str
    info: Info
    host: str | None = None
    basePath: str | None = None
    schemes: list[str] | None = None
    consumes: list[str] | None = None
    produces: list[str] | None = None
    security: list[dict[str, list[str]]] | None = None
    paths: dict[str, Any] | None = None
    definitions: dict[str, Any] | None = None
    parameters: dict[str, Any] | None = None
    responses: dict[str, Any] | None = None
    securityDefinitions: dict[str, Any] | None = None


_PLAIN = ("swagger", "info", "host", "basePath", "schemes", "consumes", "produces", "security")
_WALKED = ("paths", "definitions", "parameters", "responses", "securityDefinitions")


def _version(root: MapNode, sink: Sink) -> None:
    node = root.get("swagger")
    assert node is not None
    value = node.value if isinstance(node, ScalarNode) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 2:
            sink.add('swagger: the version must be a string (write `"2.0"`), got a number', node.span)
            return
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        sink.add(f'swagger: must be the version string `"2.0"`, got {kind(node)}', node.span)
        return
    if text != "2.0":
        sink.add(
            f"swagger: unsupported Swagger version `{text}`: specward reads Swagger 2.0 and OpenAPI 3.0.x/3.1.x",
            node.span,
        )


def _base_path(root: MapNode, sink: Sink) -> str:
    node = root.get("basePath")
    base = scalar_str(node)
    if base is None:  # absent, or not a string (reported by the skeleton check)
        return ""
    base = base.strip()
    if not base.startswith("/"):
        sink.add(f"basePath `{base}` must start with `/`", node.span)  # type: ignore[union-attr]
    base = normalize_path(base)
    return "" if base == "/" else base


# --------------------------------------------------------------------------- reading


def parse(path: str, root: MapNode, data: bytes, sink: Sink) -> tuple[tuple[Endpoint, ...], tuple[Model, ...]]:
    _version(root, sink)
    validate_skeleton(
        root, SwaggerDocument, _PLAIN, _WALKED, sink,
        skip=lambda loc, typ: loc == ("swagger",),  # reported with the version check
    )
    res = Resolver(root, opaque=frozenset({"example", "examples"}))
    res.check_all(sink)
    base = _base_path(root, sink)
    schemes = _security_schemes(root)
    _check_security(root.get("security"), schemes, sink)
    shared = root.get("parameters")
    if isinstance(shared, MapNode):
        for _, _, p in shared.items():
            _check_parameter(p, sink)

    paths = root.get("paths")
    if paths is None:
        sink.add("missing required key `paths` (required in Swagger 2.0)", root.open_span)

    shapes = ShapeBuilder(res)  # each schema built once for the whole document

    def build(raw_path: str, method: str, span: Span, op: Node, item: MapNode, out: Sink) -> Endpoint:
        return _endpoint(path, raw_path, method, span, op, item, root, base, schemes, res, out, shapes)

    endpoints = walk_paths(paths, res, sink, data, build, methods=METHODS, item_keys=PATH_ITEM_KEYS, foreign=FOREIGN)
    res.report_external(sink)
    return tuple(endpoints), models_of(path, root.get("definitions"), res)


def _security_schemes(root: MapNode) -> set[str] | None:
    node = root.get("securityDefinitions")
    if node is None:
        return set()
    if not isinstance(node, MapNode):
        return None  # reported by the skeleton check: do not report every name on top of it
    return {name for name, _, _ in node.items()}


def _check_security(security: Node | None, schemes: set[str] | None, sink: Sink) -> None:
    if schemes is None or not isinstance(security, SeqNode):
        return
    for requirement in security.items:
        if not isinstance(requirement, MapNode):
            continue
        for name, span, _ in requirement.items():
            if name not in schemes:
                sink.add(f"security scheme `{name}` is not defined in `securityDefinitions`", span)


def _check_parameter(p: Node, sink: Sink) -> None:
    """``in`` of a parameter written here (not a ``$ref``)."""
    if not isinstance(p, MapNode) or "$ref" in p:
        return
    name = scalar_str(p.get("name")) or "?"
    loc = p.get("in")
    if loc is None:
        sink.add(f"parameter `{name}`: missing required key `in` ({', '.join(LOCATIONS)})", p.open_span)
    elif scalar_str(loc) not in LOCATIONS:
        got = f"`{loc.value}`" if isinstance(loc, ScalarNode) and loc.value is not None else kind(loc)
        sink.add(f"parameter `{name}`: `in` must be one of {', '.join(LOCATIONS)}, got {got}", loc.span)


def _strings(node: Node | None) -> tuple[str, ...] | None:
    if not isinstance(node, SeqNode):
        return None
    return tuple(x.value for x in node.items if isinstance(x, ScalarNode) and isinstance(x.value, str))


def _endpoint(
    file: str,
    raw_path: str,
    method: str,
    span: Span,
    op: Node,
    item: MapNode,
    root: MapNode,
    base: str,
    schemes: set[str] | None,
    res: Resolver,
    sink: Sink,
    shapes: ShapeBuilder | None = None,
) -> Endpoint:
    where = f"{method.lower()} {raw_path}"
    if not isinstance(op, MapNode):
        return not_an_operation(file, raw_path, method, span, op, base, sink)
    details: list[tuple[str, object]] = []
    description = scalar_str(op.get("description"))
    if description is not None:
        details.append(("description", description))

    for source in (item.get("parameters"), op.get("parameters")):
        if isinstance(source, SeqNode):
            for p in source.items:
                _check_parameter(p, sink)
    params = merged_params(item.get("parameters"), op.get("parameters"), res, sink)
    listed = [
        param_detail(name, loc, p, res.type_of(p))
        for (name, loc), p in params.items()
        if loc != "body"
    ]
    if listed:
        details.append(("parameters", tuple(listed)))

    consumes = _strings(op.get("consumes"))
    if consumes is None:
        consumes = _strings(root.get("consumes"))
    produces = _strings(op.get("produces"))
    if produces is None:
        produces = _strings(root.get("produces"))
    body = next((p for (_, loc), p in params.items() if loc == "body"), None)
    if body is not None:
        schema = body.get("schema")
        typ = res.type_of(schema) if schema is not None else "any"
        required = body.get("required")
        details.append(
            (
                "requestBody",
                (
                    ("required", bool(required.value) if isinstance(required, ScalarNode) else False),
                    ("content", tuple((mt, typ) for mt in (consumes or (DEFAULT_MEDIA,)))),
                ),
            )
        )

    responses = responses_detail(op, span, where, res, sink, ranges=False, required_in="Swagger 2.0")
    if responses is not None:
        details.append(("responses", responses))
        types = response_types(op, res)
        if types:  # the bodies' types, for the contract diff
            details.append(("responseTypes", types))
    _check_security(op.get("security"), schemes, sink)
    details += closing_details(op, root, res)
    if consumes is not None:
        details.append(("consumes", consumes))
    if produces is not None:
        details.append(("produces", produces))
    host = scalar_str(root.get("host"))
    if host is not None:
        details.append(("host", host))
    op_schemes = _strings(op.get("schemes"))
    if op_schemes is None:
        op_schemes = _strings(root.get("schemes"))
    if op_schemes is not None:
        details.append(("schemes", op_schemes))

    return Endpoint(
        method=method,
        path=normalize_path(raw_path),
        file=file,
        span=span,
        base_path=base,
        id=scalar_str(op.get("operationId")),
        summary=scalar_str(op.get("summary")),
        details=tuple(details),
        schemas=guarded(lambda: swagger_schemas(op, item, res, shapes or ShapeBuilder(res), consumes)),
    )
