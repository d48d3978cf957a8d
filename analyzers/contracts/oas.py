"""What the OpenAPI 3 (``openapi.py``) and Swagger 2.0 (``swagger.py``) readers share.

Both formats write paths, path items, operations, parameters, responses and local
``$ref``s the same way; they differ in where the base path comes from, in how a request
body is declared and in a few allowed keys. This module holds the common part:

* ``Resolver``: local ``$ref``s (checked everywhere, followed on demand) and one-line
  summaries of schemas (``array<User>``, ``string | null``), model fields;
* ``validate_skeleton``: the top-level keys checked with pydantic, errors placed on the
  key or value at fault;
* ``walk_paths``: the loop over ``paths`` (path keys, path items reached through
  ``$ref``, operation keys, unknown keys) and the duplicate-route check; the format's
  reader builds each ``Endpoint``;
* pieces of an operation's hover ``details`` written identically in both formats.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence
from urllib.parse import unquote

from pydantic import BaseModel, ValidationError

from ..model import Endpoint, Model, Span
from .common import RouteDecl, Sink, check_routes, describe_loc, freeze, locate, node_at, normalize_path, scalar_str
from .positions import MapNode, Node, ScalarNode, SeqNode, kind, to_plain

_STATUS_RANGE = re.compile(r"^[1-5](XX|xx)$")

# --------------------------------------------------------------------------- top level schema

EXPECTED = {
    "string_type": "must be a string",
    "list_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


def validate_skeleton(
    root: MapNode,
    model: type[BaseModel],
    plain: Sequence[str],
    walked: Sequence[str],
    sink: Sink,
    *,
    skip: Callable[[tuple, str], bool] = lambda loc, typ: False,
) -> None:
    """Validate the top level of ``root`` against ``model``.

    Keys in ``plain`` go to pydantic whole; keys in ``walked`` (``paths``, ``components``,
    ...) are walked by hand later, so only their type is checked here (an object becomes
    ``{}``). ``skip(loc, type)`` drops errors the caller reports in its own words."""
    skeleton = {
        k: (to_plain(v) if k in plain else {} if isinstance(v, MapNode) else to_plain(v))
        for k, _, v in root.items()
        if k in plain or k in walked
    }
    try:
        model.model_validate(skeleton)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            if skip(loc, err["type"]):
                continue
            where = describe_loc(loc)
            if err["type"] == "missing":
                sink.add(f"{where}: missing required key `{loc[-1]}`", locate(root, loc, missing=True))
                continue
            expected = EXPECTED.get(err["type"])
            node = node_at(root, loc)
            msg = f"{where}: {expected}, got {kind(node)}" if expected else f"{where}: {err['msg']}"
            sink.add(msg, locate(root, loc))


# --------------------------------------------------------------------------- $ref


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Resolver:
    """Local ``$ref``s of one document. ``opaque`` keys hold free-form values (examples)
    whose ``$ref`` keys are data, not references; ``x-`` extensions are opaque too.

    Every chain of references is followed once, whatever its length, and remembered: a
    document of thousands of chained or looping ``$ref``s costs linear time, and nothing
    recurses. A ``$ref`` to another file or a URL is never followed (the core reads
    nothing): ``check_all`` notes it and ``report_external`` reports it."""

    def __init__(self, root: Node, opaque: frozenset[str] = frozenset({"example"})) -> None:
        self.root = root
        self.opaque = opaque
        self._pointers: dict[str, tuple[Node | None, str]] = {}
        self._ends: dict[str, tuple[Node | None, str]] = {}
        self._frozen: dict[int, object] = {}
        self.external: dict[Span, str] = {}  # span of an external ``$ref`` value -> the ref
        self._compositions: list[MapNode] = []  # schemas with an ``allOf``

    def pointer(self, ref: str) -> tuple[Node | None, str]:
        """Follow a local ref one step: (target, "") or (None, why)."""
        got = self._pointers.get(ref)
        if got is None:
            got = self._pointers[ref] = self._pointer(ref)
        return got

    def _pointer(self, ref: str) -> tuple[Node | None, str]:
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
            elif isinstance(node, SeqNode) and token.isascii() and token.isdigit() and int(token) < len(node.items):
                node = node.items[int(token)]
            else:
                return None, f"no `{_short(token)}` in `{_short(walked)}`"
            walked += "/" + raw
        return node, ""

    def end(self, ref: str) -> tuple[Node | None, str]:
        """Where the chain of references starting at local ``ref`` ends: (node, "") or
        (None, why): "loop", "dangling", "external", "anchor", "invalid"."""
        got = self._ends.get(ref)
        if got is not None:
            return got
        chain: list[str] = []
        on_chain: set[str] = set()
        current = ref
        while True:
            got = self._ends.get(current)
            if got is not None:
                break
            if current in on_chain:
                got = (None, "loop")
                break
            on_chain.add(current)
            chain.append(current)
            target, why = self.pointer(current)
            if target is None:
                got = (None, "dangling" if why else "anchor")
                break
            if not (isinstance(target, MapNode) and "$ref" in target):
                got = (target, "")
                break
            nxt = scalar_str(target.get("$ref"))
            if nxt is None:
                got = (None, "invalid")
                break
            if not nxt.startswith("#"):
                got = (None, "external")
                break
            current = nxt
        for r in chain:
            self._ends[r] = got
        return got

    def deref(self, node: Node | None) -> Node | None:
        """The node a ``$ref`` chain ends at; None for broken, external or looping refs."""
        if isinstance(node, MapNode) and "$ref" in node:
            ref = scalar_str(node.get("$ref"))
            if ref is None or not ref.startswith("#"):
                return None
            return self.end(ref)[0]
        return node

    def frozen(self, node: Node | None) -> object:
        """``freeze(to_plain(node))``, computed once per node (a document-wide value such
        as the root ``security`` goes into every operation's details)."""
        if node is None:
            return None
        got = self._frozen.get(id(node))
        if got is None:
            got = self._frozen[id(node)] = freeze(to_plain(node))
        return got

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
            if ref_node is not None and ref is None and not isinstance(ref_node, MapNode):
                # (an object under ``$ref`` is a schema property named "$ref")
                sink.add(f"$ref must be a string, got {kind(ref_node)}", ref_node.span)
            if ref is not None and ref.startswith("#"):
                target, why = self.pointer(ref)
                if target is None and why:
                    sink.add(f"unresolvable $ref `{_short(ref)}`: {why}", ref_node.span)  # type: ignore[union-attr]
                elif self.end(ref)[1] == "loop":
                    sink.add(f"circular $ref `{_short(ref)}`: the chain of references never reaches a value", ref_node.span)  # type: ignore[union-attr]
            elif ref is not None:
                self.external[ref_node.span] = ref  # type: ignore[union-attr]
            if isinstance(node.get("allOf"), SeqNode):
                self._compositions.append(node)
            for key, _, value in node.items():
                if key in self.opaque or key.startswith("x-"):
                    continue
                stack.append(value)
        self._check_compositions(sink)

    def _check_compositions(self, sink: Sink) -> None:
        """A schema that includes itself through ``allOf`` (directly or through other
        schemas) has properties that never end: reported on the ``$ref`` that closes the
        loop. (A schema whose property or ``items`` refers back to it is a legal recursive
        type, not reported.)"""
        done: set[int] = set()
        for start in sorted(self._compositions, key=lambda n: n.span.start):
            if id(start) in done:
                continue
            on_path: set[int] = set()
            stack: list[tuple[MapNode, int]] = [(start, 0)]  # (schema, next allOf part)
            on_path.add(id(start))
            while stack:
                schema, i = stack[-1]
                parts = schema.get("allOf")
                items = parts.items if isinstance(parts, SeqNode) else []
                if i >= len(items):
                    stack.pop()
                    on_path.discard(id(schema))
                    done.add(id(schema))
                    continue
                stack[-1] = (schema, i + 1)
                part = items[i]
                target = self.deref(part)
                if not isinstance(target, MapNode) or id(target) in done:
                    continue
                if id(target) in on_path:
                    ref_node = part.get("$ref") if isinstance(part, MapNode) else None
                    at = ref_node.span if ref_node is not None else part.span
                    ref = scalar_str(ref_node)
                    what = f"`{_short(ref)}`" if ref else "this part"
                    sink.add(f"circular allOf: through {what} the schema includes itself, so its properties never end", at)
                    continue
                if isinstance(target.get("allOf"), SeqNode):
                    on_path.add(id(target))
                    stack.append((target, 0))
                else:
                    done.add(id(target))

    def report_external(self, sink: Sink) -> None:
        """Every ``$ref`` to another file or a URL (a warning: never followed, never read)."""
        for span, ref in self.external.items():
            sink.add(f"external $ref `{_short(ref)}` is not followed: specward reads no other file or URL, "
                     "so what it refers to is unknown here", span, severity="warning")

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


def models_of(file: str, schemas: Node | None, res: Resolver) -> tuple[Model, ...]:
    """``components.schemas`` (OpenAPI 3) or ``definitions`` (Swagger 2) as models, each
    placed on its name."""
    if not isinstance(schemas, MapNode):
        return ()
    return tuple(Model(name, tuple(res.properties(schema)), file, kspan) for name, kspan, schema in schemas.items())


# --------------------------------------------------------------------------- paths

# builds one endpoint: (path as written, METHOD, span, operation node, path item, sink)
Build = Callable[[str, str, Span, Node, MapNode, Sink], Endpoint]


def walk_paths(
    paths: Node | None,
    res: Resolver,
    sink: Sink,
    data: bytes,
    build: Build,
    *,
    methods: Sequence[str],
    item_keys: Sequence[str],
    foreign: dict[str, str] | None = None,
) -> list[Endpoint]:
    """Every operation under ``paths``, each built by ``build``; problems go to ``sink``.

    ``methods`` are the operation keys of the format (lower-case), ``item_keys`` the other
    keys a path item may hold. ``foreign`` maps an HTTP method the format does not allow
    to the reason given: it is reported and the endpoint is still returned (so is an
    upper-case method key). One broken path item or operation is reported and skipped (or
    kept, as above); the others are read as usual, even when reading one of them fails
    (that becomes a finding on its method key)."""
    endpoints: list[Endpoint] = []
    if not isinstance(paths, MapNode):
        if paths is not None:  # the same words as the skeleton check, which lets ``null`` through
            sink.add(f"paths: must be an object, got {kind(paths)}", paths.span)
        return endpoints
    foreign = foreign or {}
    routes: list[RouteDecl] = []
    checked: set[int] = set()
    allowed = f"expected an HTTP method ({', '.join(methods)}) or one of {', '.join(item_keys)}"
    for key, key_span, item_node in paths.items():
        if key.startswith("x-"):
            continue
        if not key.startswith("/"):
            sink.add(f"path `{key}` must start with `/`", key_span)
        item = res.deref(item_node)
        if not isinstance(item, MapNode):
            if not (isinstance(item_node, MapNode) and "$ref" in item_node):
                sink.add(f"path `{key}`: the path item must be an object, got {kind(item_node)}", item_node.span)
            else:
                _elsewhere(key, item_node, res, sink)
            continue
        # A path item reached through ``$ref`` is checked once (where it is written);
        # its endpoints sit on the path key that refers to it.
        via_ref = item is not item_node
        out = sink if id(item) not in checked else Sink(sink.path)
        checked.add(id(item))
        for okey, ospan, op in item.items():
            method = okey.lower()
            if okey in methods:
                pass
            elif okey in item_keys or okey.startswith("x-"):
                continue
            elif method in methods:
                out.add(f"operation key `{okey}` under `{key}` must be lower-case: `{method}`", ospan)
            elif method in foreign:
                out.add(f"operation key `{okey}` under `{key}`: {foreign[method]}", ospan)
            else:
                out.add(f"unknown key `{okey}` under path `{key}`: {allowed}", ospan)
                continue
            span = key_span if via_ref else ospan
            try:
                ep = build(key, method.upper(), span, op, item, out)
            except RecursionError:
                out.add(f"operation `{method} {key}` is nested too deeply to be read", ospan)
                continue
            except Exception as exc:  # noqa: BLE001 - one operation must not cost the others
                out.add(f"internal error while reading operation `{method} {key}`: {type(exc).__name__}: {exc}", ospan)
                continue
            endpoints.append(ep)
            routes.append(RouteDecl(ep.method, key, span))
    check_routes(routes, sink, data, exact=False)
    return endpoints


def _elsewhere(key: str, item_node: MapNode, res: Resolver, sink: Sink) -> None:
    """A path item whose ``$ref`` leads to another file or a URL: what the path declares
    is unknown here, so the contract judges no call (never guessed: a call to that path
    must not become a phantom)."""
    ref_node = item_node.get("$ref")
    ref = scalar_str(ref_node)
    if ref is None:
        return
    why = "external" if not ref.startswith("#") else res.end(ref)[1]
    if why != "external" or ref_node is None:
        return
    res.external.pop(ref_node.span, None)  # reported here, in these words
    sink.incomplete = True
    sink.add(f"path `{key}` is declared in another file or at a URL (`$ref: {_short(ref)}`), which specward "
             "never reads: its operations are unknown, so no call is judged phantom against this contract",
             ref_node.span, severity="warning")


def not_an_operation(file: str, raw_path: str, method: str, span: Span, op: Node, base_path: str, sink: Sink) -> Endpoint:
    """The endpoint of an operation that is not an object: reported, and still declared."""
    sink.add(f"operation `{method.lower()} {raw_path}` must be an object, got {kind(op)}", op.span)
    return Endpoint(method, normalize_path(raw_path), file, span, base_path)


# --------------------------------------------------------------------------- operations


def param_key(p: MapNode) -> tuple[str, str]:
    return (scalar_str(p.get("name")) or "", scalar_str(p.get("in")) or "")


def merged_params(item_params: Node | None, op_params: Node | None, res: Resolver, sink: Sink) -> dict[tuple[str, str], MapNode]:
    """Path-level parameters first; operation-level ones override them by (name, in)."""
    params: dict[tuple[str, str], MapNode] = {}
    for source in (item_params, op_params):
        if isinstance(source, SeqNode):
            for p in source.items:
                p = res.deref(p)
                if isinstance(p, MapNode):
                    params[param_key(p)] = p
        elif source is not None and not (isinstance(source, MapNode) and "$ref" in source):
            sink.add(f"parameters: must be an array, got {kind(source)}", source.span)
    return params


def param_detail(name: str, loc: str, p: MapNode, typ: str) -> tuple[tuple[str, object], ...]:
    required = p.get("required")
    return (
        ("name", name),
        ("in", loc),
        ("required", bool(required.value) if isinstance(required, ScalarNode) else loc == "path"),
        ("type", typ),
    )


def valid_status(status: str, *, ranges: bool) -> bool:
    if status == "default" or (ranges and _STATUS_RANGE.match(status)):
        return True
    return status.isascii() and status.isdigit() and len(status) == 3 and 100 <= int(status) <= 599


def responses_detail(
    op: MapNode, span: Span, where: str, res: Resolver, sink: Sink, *, ranges: bool, required_in: str | None
) -> tuple[tuple[str, object], ...] | None:
    """``(status, description)`` of each response; bad status keys are reported.
    ``required_in`` names the version that requires ``responses`` (None: optional)."""
    responses = op.get("responses")
    if responses is None:
        if required_in:
            sink.add(f"operation `{where}` has no `responses` (required in {required_in})", span)
        return None
    if not isinstance(responses, MapNode):
        sink.add(f"responses of `{where}` must be an object, got {kind(responses)}", responses.span)
        return None
    hint = "100-599, 1XX-5XX or `default`" if ranges else "100-599 or `default`"
    out: list[tuple[str, object]] = []
    for status, sspan, resp in responses.items():
        if status.startswith("x-"):
            continue
        if not valid_status(status, ranges=ranges):
            sink.add(f"response status `{status}` in `{where}` is not valid: use {hint}", sspan)
        r = res.deref(resp)
        desc = scalar_str(r.get("description")) if isinstance(r, MapNode) else None
        out.append((status, desc))
    return tuple(out)


def response_types(op: MapNode, res: Resolver) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """``(status, ((media type, type), ...))`` of each response that declares a body:
    OpenAPI 3's ``content`` schemas, Swagger 2's ``schema`` (media type ``*``). A type is
    ``Resolver.type_of``'s summary, and an inline object's properties, sorted
    (``{id: integer, token: string}``), so that the contract diff sees its fields."""
    responses = op.get("responses")
    if not isinstance(responses, MapNode):
        return ()
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for status, _, resp in responses.items():
        r = res.deref(resp)
        if status.startswith("x-") or not isinstance(r, MapNode):
            continue
        media: list[tuple[str, str]] = []
        content = r.get("content")
        if isinstance(content, MapNode):
            for mt, _, m in content.items():
                schema = m.get("schema") if isinstance(m, MapNode) else None
                media.append((mt, _summary(schema, res) if schema is not None else "any"))
        elif "schema" in r:
            media.append(("*", _summary(r.get("schema"), res)))
        if media:
            out.append((status, tuple(media)))
    return tuple(out)


def _summary(schema: Node | None, res: Resolver) -> str:
    if isinstance(schema, MapNode) and "$ref" not in schema and isinstance(schema.get("properties"), MapNode):
        return "{" + ", ".join(f"{n}: {t}" for n, t in sorted(res.properties(schema))) + "}"
    return res.type_of(schema)


def closing_details(op: MapNode, root: MapNode, res: Resolver) -> list[tuple[str, object]]:
    """``security`` (the operation's, else the document's), ``tags``, ``deprecated``."""
    details: list[tuple[str, object]] = []
    security = op.get("security") or root.get("security")
    if security is not None:
        details.append(("security", res.frozen(security)))
    tags = op.get("tags")
    if isinstance(tags, SeqNode):
        details.append(("tags", tuple(t.value for t in tags.items if isinstance(t, ScalarNode))))
    deprecated = op.get("deprecated")
    if isinstance(deprecated, ScalarNode) and deprecated.value is True:
        details.append(("deprecated", True))
    return details
