"""OpenAPI 3.0 / 3.1 documents (YAML or JSON).

Decisions where the brief was silent:

* Local ``$ref``s (``#/...``, JSON-pointer escapes ``~0``/``~1`` and percent-encoding) are
  checked everywhere in the document (except inside ``example`` values and ``x-``
  extensions): one that points nowhere is reported on the ``$ref`` value, and so is a
  chain of ``$ref``s that loops back on itself. A recursive *schema* (a schema whose
  property refers back to it) is legal and is not reported; one that includes itself
  through ``allOf`` is. External refs are never followed: each is a warning, and a path
  item declared elsewhere makes the contract judge no call.
* The base path comes from the most specific ``servers`` list (operation, then path
  item, then the document), first entry; server variables with a ``default`` are
  substituted, others are left as ``{name}``.
* Operation keys written in upper case (``GET:``) are reported but the endpoint is still
  returned, so one typo does not turn every call into a phantom.
* A path key without a leading ``/`` is reported and read as if it had one.
* In 3.0 ``paths`` and each operation's ``responses`` are required (3.1 made them
  optional). ``info.title`` and ``info.version`` are required strings in both.
* ``openapi: 3.0`` written as a YAML number is reported (it must be a string) but read.
* Response status keys: ``default``, ``1XX``..``5XX`` (``xx`` accepted too), 100-599, and
  ``x-`` extensions.
"""

from __future__ import annotations

import re
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
from .schemas import ShapeBuilder, guarded, openapi_schemas

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PATH_ITEM_KEYS = ("summary", "description", "servers", "parameters", "$ref")
_VERSION = re.compile(r"^3\.([01])(\.\d+)?([-+].*)?$")
_SERVER_VAR = re.compile(r"\{([^{}]*)\}")


# --------------------------------------------------------------------------- top level schema


class _Base(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class Info(_Base):
    title: str
    version: str


class ServerVariable(_Base):
    default: str


class Server(_Base):
    url: str
    variables: dict[str, ServerVariable] | None = None


class OpenAPIDocument(_Base):
    openapi: str
    info: Info
    servers: list[Server] | None = None
    paths: dict[str, Any] | None = None
    components: dict[str, Any] | None = None


def _validate_top(root: MapNode, sink: Sink) -> None:
    # Only the skeleton goes to pydantic: paths/components are walked by hand below.
    validate_skeleton(
        root, OpenAPIDocument, ("openapi", "info", "servers"), ("paths", "components"), sink,
        skip=lambda loc, typ: loc == ("openapi",) and typ == "string_type",  # reported with the version check
    )


# --------------------------------------------------------------------------- reading


def _base_path(servers: Node | None, bases: dict[int, str] | None = None) -> str:
    """The base path of a ``servers`` list; ``bases`` remembers it per list while one
    document is read (the document's own list serves every operation)."""
    if bases is None or servers is None:
        return _compute_base_path(servers)
    got = bases.get(id(servers))
    if got is None:
        got = bases[id(servers)] = _compute_base_path(servers)
    return got


def _compute_base_path(servers: Node | None) -> str:
    if not isinstance(servers, SeqNode) or not servers.items:
        return ""
    first = servers.items[0]
    if not isinstance(first, MapNode):
        return ""
    url = scalar_str(first.get("url"))
    if not url:
        return ""
    variables = first.get("variables")
    defaults: dict[str, str] = {}
    if isinstance(variables, MapNode):
        for name, _, var in variables.items():
            if isinstance(var, MapNode):
                d = var.get("default")
                if isinstance(d, ScalarNode) and d.value is not None:
                    defaults[name] = str(d.value)
    url = _SERVER_VAR.sub(lambda m: defaults.get(m.group(1), m.group(0)), url.strip())
    url = re.split(r"[?#]", url, maxsplit=1)[0]
    if "://" in url or url.startswith("//"):
        rest = url.split("//", 1)[1]
        slash = rest.find("/")
        url = rest[slash:] if slash >= 0 else ""
    if url in ("", "/", ".", "./"):
        return ""
    if url.startswith("./"):
        url = url[1:]
    base = normalize_path(url)
    return "" if base == "/" else base


def _version(root: MapNode, sink: Sink) -> str | None:
    node = root.get("openapi")
    assert node is not None
    if isinstance(node, ScalarNode) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        text = str(node.value)
        sink.add(f'openapi: the version must be a string (write `"{text}.0"`), got a number', node.span)
    elif isinstance(node, ScalarNode) and isinstance(node.value, str):
        text = node.value.strip()
    else:
        sink.add(f"openapi: must be a version string such as `3.0.3`, got {kind(node)}", node.span)
        return None
    m = _VERSION.match(text)
    if not m:
        sink.add(f"openapi: unsupported OpenAPI version `{text}`: specward reads 3.0.x and 3.1.x", node.span)
        return None
    return f"3.{m.group(1)}"


def parse(path: str, root: MapNode, data: bytes, sink: Sink) -> tuple[tuple[Endpoint, ...], tuple[Model, ...]]:
    version = _version(root, sink)
    _validate_top(root, sink)
    res = Resolver(root)
    res.check_all(sink)

    paths = root.get("paths")
    if paths is None and version == "3.0":
        sink.add("missing required key `paths` (required in OpenAPI 3.0)", root.open_span)

    bases: dict[int, str] = {}  # base path per ``servers`` list (nodes live as long as ``root``)
    shapes = ShapeBuilder(res)  # each schema built once for the whole document

    def build(raw_path: str, method: str, span: Span, op: Node, item: MapNode, out: Sink) -> Endpoint:
        return _endpoint(path, raw_path, method, span, op, item, root, res, out, version, bases, shapes)

    endpoints = walk_paths(paths, res, sink, data, build, methods=METHODS, item_keys=PATH_ITEM_KEYS)
    res.report_external(sink)
    components = root.get("components")
    return tuple(endpoints), models_of(path, components.get("schemas") if isinstance(components, MapNode) else None, res)


def _endpoint(
    file: str,
    raw_path: str,
    method: str,
    span: Span,
    op: Node,
    item: MapNode,
    root: MapNode,
    res: Resolver,
    sink: Sink,
    version: str | None,
    bases: dict[int, str] | None = None,
    shapes: ShapeBuilder | None = None,
) -> Endpoint:
    where = f"{method.lower()} {raw_path}"
    if not isinstance(op, MapNode):
        return not_an_operation(file, raw_path, method, span, op, _base_path(item.get("servers") or root.get("servers"), bases), sink)
    servers = op.get("servers") or item.get("servers") or root.get("servers")
    details: list[tuple[str, object]] = []
    description = scalar_str(op.get("description"))
    if description is not None:
        details.append(("description", description))

    params = merged_params(item.get("parameters"), op.get("parameters"), res, sink)
    if params:
        details.append(
            (
                "parameters",
                tuple(
                    param_detail(name, loc, p, res.type_of(p.get("schema")) if "schema" in p else "any")
                    for (name, loc), p in params.items()
                ),
            )
        )

    body = res.deref(op.get("requestBody"))
    if isinstance(body, MapNode):
        content = body.get("content")
        media: list[tuple[str, object]] = []
        if isinstance(content, MapNode):
            for mt, _, m in content.items():
                schema = m.get("schema") if isinstance(m, MapNode) else None
                media.append((mt, res.type_of(schema) if schema is not None else "any"))
        required = body.get("required")
        details.append(
            (
                "requestBody",
                (
                    ("required", bool(required.value) if isinstance(required, ScalarNode) else False),
                    ("content", tuple(media)),
                ),
            )
        )

    responses = responses_detail(
        op, span, where, res, sink, ranges=True, required_in="OpenAPI 3.0" if version == "3.0" else None
    )
    if responses is not None:
        details.append(("responses", responses))
        types = response_types(op, res)
        if types:  # the bodies' types, for the contract diff
            details.append(("responseTypes", types))
    details += closing_details(op, root, res)

    summary = scalar_str(op.get("summary")) or scalar_str(item.get("summary"))
    schemas = guarded(lambda: openapi_schemas(op, item, res, shapes or ShapeBuilder(res)))
    return Endpoint(
        method=method,
        path=normalize_path(raw_path),
        file=file,
        span=span,
        base_path=_base_path(servers, bases),
        id=scalar_str(op.get("operationId")),
        summary=summary,
        details=tuple(details),
        schemas=schemas,
    )
