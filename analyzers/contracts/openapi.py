"""OpenAPI 3.0 / 3.1 documents (YAML or JSON).

Decisions where the brief was silent:

* Local ``$ref``s (``#/...``, JSON-pointer escapes ``~0``/``~1`` and percent-encoding) are
  checked everywhere in the document (except inside ``example`` values and ``x-``
  extensions): one that points nowhere is reported on the ``$ref`` value, and so is a
  chain of ``$ref``s that loops back on itself. A recursive *schema* (a schema whose
  property refers back to it) is legal and is not reported. External refs are ignored.
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
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, ValidationError

from ..model import Endpoint, Model, Span
from .common import RouteDecl, Sink, check_routes, describe_loc, freeze, node_at, locate, normalize_path, scalar_str
from .positions import MapNode, Node, ScalarNode, SeqNode, kind, to_plain

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PATH_ITEM_KEYS = frozenset({"summary", "description", "servers", "parameters", "$ref"})
_VERSION = re.compile(r"^3\.([01])(\.\d+)?([-+].*)?$")
_STATUS_RANGE = re.compile(r"^[1-5](XX|xx)$")
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


_EXPECTED = {
    "string_type": "must be a string",
    "list_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


def _validate_top(root: MapNode, sink: Sink) -> None:
    # Only the skeleton goes to pydantic: paths/components are walked by hand below.
    skeleton = {k: (to_plain(v) if k in ("openapi", "info", "servers") else {} if isinstance(v, MapNode) else to_plain(v))
                for k, _, v in root.items() if k in ("openapi", "info", "servers", "paths", "components")}
    try:
        OpenAPIDocument.model_validate(skeleton)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            if loc == ("openapi",) and err["type"] == "string_type":
                continue  # reported with the version check
            where = describe_loc(loc)
            if err["type"] == "missing":
                sink.add(f"{where}: missing required key `{loc[-1]}`", locate(root, loc, missing=True))
                continue
            expected = _EXPECTED.get(err["type"])
            node = node_at(root, loc)
            msg = f"{where}: {expected}, got {kind(node)}" if expected else f"{where}: {err['msg']}"
            sink.add(msg, locate(root, loc))


# --------------------------------------------------------------------------- $ref


class Resolver:
    def __init__(self, root: Node) -> None:
        self.root = root

    def pointer(self, ref: str) -> tuple[Node | None, str]:
        """Follow a local ref one step: (target, "") or (None, why)."""
        frag = unquote(ref[1:])
        if frag == "":
            return self.root, ""
        if not frag.startswith("/"):
            return None, ""  # a 3.1 ``$anchor`` name (``#node``): not followed, not reported
        node: Node | None = self.root
        walked = "#"
        for raw in frag[1:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, MapNode) and token in node:
                node = node.get(token)
            elif isinstance(node, SeqNode) and token.isdigit() and int(token) < len(node.items):
                node = node.items[int(token)]
            else:
                return None, f"no `{token}` in `{walked}`"
            walked += "/" + raw
        return node, ""

    def deref(self, node: Node | None) -> Node | None:
        """The node a ``$ref`` chain ends at; None for broken, external or looping refs."""
        seen: set[str] = set()
        while isinstance(node, MapNode) and "$ref" in node:
            ref = scalar_str(node.get("$ref"))
            if ref is None or not ref.startswith("#") or ref in seen or len(seen) > 50:
                return None
            seen.add(ref)
            node, _ = self.pointer(ref)
        return node

    def check_all(self, sink: Sink) -> None:
        stack: list[Node] = [self.root]
        visited: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in visited:
                continue
            visited.add(id(node))
            if isinstance(node, SeqNode):
                stack.extend(node.items)
                continue
            if not isinstance(node, MapNode):
                continue
            ref_node = node.get("$ref")
            ref = scalar_str(ref_node)
            if ref is not None and ref.startswith("#"):
                target, why = self.pointer(ref)
                if target is None and why:
                    sink.add(f"unresolvable $ref `{ref}`: {why}", ref_node.span)  # type: ignore[union-attr]
                elif self._loops(ref):
                    sink.add(f"circular $ref `{ref}`: the chain of references never reaches a value", ref_node.span)  # type: ignore[union-attr]
            for key, _, value in node.items():
                if key == "example" or key.startswith("x-"):
                    continue
                stack.append(value)

    def _loops(self, ref: str) -> bool:
        seen: set[str] = set()
        while ref not in seen:
            seen.add(ref)
            target, _ = self.pointer(ref)
            if not (isinstance(target, MapNode) and "$ref" in target):
                return False
            nxt = scalar_str(target.get("$ref"))
            if nxt is None or not nxt.startswith("#"):
                return False
            ref = nxt
        return True

    # ----------------------------------------------------------------- schema summaries

    def type_of(self, schema: Node | None, depth: int = 0) -> str:
        if not isinstance(schema, MapNode):
            return "any"
        if depth > 8:
            return "…"
        ref = scalar_str(schema.get("$ref"))
        if ref is not None:
            name = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            return unquote(name) or ref
        for comb, sep in (("oneOf", " | "), ("anyOf", " | "), ("allOf", " & ")):
            parts = schema.get(comb)
            if isinstance(parts, SeqNode) and parts.items:
                return sep.join(self.type_of(p, depth + 1) for p in parts.items)
        t = schema.get("type")
        if isinstance(t, SeqNode):
            names = [str(x.value) for x in t.items if isinstance(x, ScalarNode)]
            if "array" in names:
                names = [f"array<{self.type_of(schema.get('items'), depth + 1)}>" if n == "array" else n for n in names]
            return " | ".join(names) or "any"
        ts = scalar_str(t)
        if ts == "array":
            return f"array<{self.type_of(schema.get('items'), depth + 1)}>"
        if ts:
            return ts
        if "properties" in schema:
            return "object"
        if "enum" in schema:
            return "enum"
        return "any"

    def properties(self, schema: Node | None, depth: int = 0, seen: set[int] | None = None) -> list[tuple[str, str]]:
        """(name, type) of an object schema's properties, following ``allOf`` parts."""
        seen = set() if seen is None else seen
        schema = self.deref(schema)
        if not isinstance(schema, MapNode) or depth > 8 or id(schema) in seen:
            return []
        seen.add(id(schema))
        out: list[tuple[str, str]] = []
        parts = schema.get("allOf")
        if isinstance(parts, SeqNode):
            for p in parts.items:
                out.extend(self.properties(p, depth + 1, seen))
        props = schema.get("properties")
        if isinstance(props, MapNode):
            for name, _, sub in props.items():
                out.append((name, self.type_of(sub)))
        names: dict[str, int] = {}
        merged: list[tuple[str, str]] = []
        for name, typ in out:  # later (own) properties override inherited ones
            if name in names:
                merged[names[name]] = (name, typ)
            else:
                names[name] = len(merged)
                merged.append((name, typ))
        return merged


# --------------------------------------------------------------------------- reading


def _base_path(servers: Node | None) -> str:
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


def _param_key(p: MapNode) -> tuple[str, str]:
    return (scalar_str(p.get("name")) or "", scalar_str(p.get("in")) or "")


def parse(path: str, root: MapNode, data: bytes, sink: Sink) -> tuple[tuple[Endpoint, ...], tuple[Model, ...]]:
    version = _version(root, sink)
    _validate_top(root, sink)
    res = Resolver(root)
    res.check_all(sink)

    paths = root.get("paths")
    if paths is None and version == "3.0":
        sink.add("missing required key `paths` (required in OpenAPI 3.0)", root.open_span)

    endpoints: list[Endpoint] = []
    routes: list[RouteDecl] = []
    checked: set[int] = set()
    if isinstance(paths, MapNode):
        for key, key_span, item_node in paths.items():
            if key.startswith("x-"):
                continue
            if not key.startswith("/"):
                sink.add(f"path `{key}` must start with `/`", key_span)
            item = res.deref(item_node)
            if not isinstance(item, MapNode):
                if not (isinstance(item_node, MapNode) and "$ref" in item_node):
                    sink.add(f"path `{key}`: the path item must be an object, got {kind(item_node)}", item_node.span)
                continue
            # A path item reached through ``$ref`` is checked once (where it is written);
            # its endpoints sit on the path key that refers to it.
            via_ref = item is not item_node
            out = sink if id(item) not in checked else Sink(sink.path)
            checked.add(id(item))
            item_params = item.get("parameters")
            for okey, ospan, op in item.items():
                method = okey.lower()
                if okey in METHODS:
                    pass
                elif okey in PATH_ITEM_KEYS or okey.startswith("x-"):
                    continue
                elif method in METHODS:
                    out.add(f"operation key `{okey}` under `{key}` must be lower-case: `{method}`", ospan)
                else:
                    out.add(
                        f"unknown key `{okey}` under path `{key}`: expected an HTTP method "
                        f"({', '.join(METHODS)}) or one of summary, description, servers, parameters, $ref",
                        ospan,
                    )
                    continue
                span = key_span if via_ref else ospan
                ep = _endpoint(path, key, method.upper(), span, op, item, item_params, root, res, out, version)
                endpoints.append(ep)
                routes.append(RouteDecl(ep.method, key, span))
    check_routes(routes, sink, data, exact=False)
    return tuple(endpoints), _models(path, root, res)


def _endpoint(
    file: str,
    raw_path: str,
    method: str,
    span: Span,
    op: Node,
    item: MapNode,
    item_params: Node | None,
    root: MapNode,
    res: Resolver,
    sink: Sink,
    version: str | None,
) -> Endpoint:
    where = f"{method.lower()} {raw_path}"
    if not isinstance(op, MapNode):
        sink.add(f"operation `{where}` must be an object, got {kind(op)}", op.span)
        return Endpoint(method, normalize_path(raw_path), file, span, _base_path(item.get("servers") or root.get("servers")))
    servers = op.get("servers") or item.get("servers") or root.get("servers")
    details: list[tuple[str, object]] = []
    description = scalar_str(op.get("description"))
    if description is not None:
        details.append(("description", description))

    # parameters: path-level first, operation-level ones override by (name, in)
    params: dict[tuple[str, str], MapNode] = {}
    for source in (item_params, op.get("parameters")):
        if isinstance(source, SeqNode):
            for p in source.items:
                p = res.deref(p)
                if isinstance(p, MapNode):
                    params[_param_key(p)] = p
        elif source is not None and not (isinstance(source, MapNode) and "$ref" in source):
            sink.add(f"parameters: must be an array, got {kind(source)}", source.span)
    if params:
        out = []
        for (name, loc), p in params.items():
            schema = p.get("schema")
            required = p.get("required")
            out.append(
                (
                    ("name", name),
                    ("in", loc),
                    ("required", bool(required.value) if isinstance(required, ScalarNode) else loc == "path"),
                    ("type", res.type_of(schema) if schema is not None else "any"),
                )
            )
        details.append(("parameters", tuple(out)))

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

    responses = op.get("responses")
    if isinstance(responses, MapNode):
        out_r: list[tuple[str, object]] = []
        for status, sspan, resp in responses.items():
            if status.startswith("x-"):
                continue
            if not _valid_status(status):
                sink.add(
                    f"response status `{status}` in `{where}` is not valid: use 100-599, 1XX-5XX or `default`", sspan
                )
            r = res.deref(resp)
            desc = scalar_str(r.get("description")) if isinstance(r, MapNode) else None
            out_r.append((status, desc))
        details.append(("responses", tuple(out_r)))
    elif responses is None:
        if version == "3.0":
            sink.add(f"operation `{where}` has no `responses` (required in OpenAPI 3.0)", span)
    else:
        sink.add(f"responses of `{where}` must be an object, got {kind(responses)}", responses.span)

    security = op.get("security") or root.get("security")
    if security is not None:
        details.append(("security", freeze(to_plain(security))))
    tags = op.get("tags")
    if isinstance(tags, SeqNode):
        details.append(("tags", tuple(t.value for t in tags.items if isinstance(t, ScalarNode))))
    deprecated = op.get("deprecated")
    if isinstance(deprecated, ScalarNode) and deprecated.value is True:
        details.append(("deprecated", True))

    summary = scalar_str(op.get("summary")) or scalar_str(item.get("summary"))
    return Endpoint(
        method=method,
        path=normalize_path(raw_path),
        file=file,
        span=span,
        base_path=_base_path(servers),
        id=scalar_str(op.get("operationId")),
        summary=summary,
        details=tuple(details),
    )


def _valid_status(status: str) -> bool:
    if status == "default" or _STATUS_RANGE.match(status):
        return True
    return status.isdigit() and len(status) == 3 and 100 <= int(status) <= 599


def _models(file: str, root: MapNode, res: Resolver) -> tuple[Model, ...]:
    components = root.get("components")
    schemas = components.get("schemas") if isinstance(components, MapNode) else None
    if not isinstance(schemas, MapNode):
        return ()
    return tuple(Model(name, tuple(res.properties(schema)), file, kspan) for name, kspan, schema in schemas.items())
