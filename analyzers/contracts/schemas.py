"""Request and response schemas of an operation (``Endpoint.schemas``), as ``Shape`` trees
for the field checks (``analyzers/fields.py``) and the hover (``analyzers/schema_card.py``).

* ``ShapeBuilder``: the JSON Schemas of one OpenAPI 3.0/3.1 or Swagger 2.0 document as
  ``Shape``s, through the document's ``Resolver`` (local ``$ref``s only). Each schema node
  is built once per document and the frozen shapes are shared between the operations that
  reach them; a ``$ref`` that leads back to a schema being built is cut there
  (``Shape("any", text=name)``), and nesting is bounded (``MAX_LEVEL`` levels of
  properties and items, ``MAX_STACK`` schemas being built at once), so nothing recurses
  without bound and a document costs time linear in its size.
* ``openapi_schemas`` / ``swagger_schemas``: one operation's ``Schemas`` (request body,
  parameters, success response).
* ``dsl_schemas``: a SpecDSL endpoint's ``request`` maps.
* ``type_shape``: a type as written in code or in a SpecDSL description (``str``,
  ``list[Note]``, ``string[]``, ``Note | null``) as a ``Shape``, where that is easy.

The rules (which media type, which status, what is closed or open) are in
``docs/contracts.md`` ("Request and response schemas"). Pure: nodes in, shapes out.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from ..model import ParamSpec, Prop, Schemas, Shape
from .common import scalar_str
from .oas import Resolver
from .positions import MapNode, Node, ScalarNode, SeqNode

MAX_LEVEL = 8  # levels of properties and array items below a body or response
MAX_STACK = 32  # schemas being built at once (allOf parts, union branches and $ref hops included)
MAX_BRANCHES = 16  # alternatives of an object whose allOf parts are unions
_BIG = 1 << 30

ANY = Shape()
_LOCATIONS = ("query", "path", "header", "cookie")


# --------------------------------------------------------------------------- media types


def _media_rank(media: str) -> int | None:
    """0-3 for a JSON media type (``application/json``, ``*/*``, ``application/*+json``,
    ``text/json``, in that order), 4 for a URL-encoded form, 5 for a multipart form, None
    for anything else. Parameters (``; charset=utf-8``) and case are ignored."""
    mt = media.split(";", 1)[0].strip().lower()
    if mt == "application/json":
        return 0
    if mt == "*/*":
        return 1
    if mt.startswith("application/") and mt.endswith("+json"):
        return 2
    if mt == "text/json":
        return 3
    if mt == "application/x-www-form-urlencoded":
        return 4
    if mt == "multipart/form-data":
        return 5
    return None


def _pick(medias: list[str], *, forms: bool) -> str | None:
    """The media type a body is read from: the best ranked (the first written among equals);
    forms only when ``forms`` (request bodies); None when no JSON (or form) type is listed."""
    best: tuple[int, int] | None = None
    chosen = None
    for i, mt in enumerate(medias):
        rank = _media_rank(mt)
        if rank is None or (rank > 3 and not forms):
            continue
        if best is None or (rank, i) < best:
            best, chosen = (rank, i), mt
    return chosen


# --------------------------------------------------------------------------- shapes


def _flag(node: Node | None, key: str) -> bool:
    value = node.get(key) if isinstance(node, MapNode) else None
    return isinstance(value, ScalarNode) and value.value is True


def _strings(node: Node | None) -> list[str]:
    if not isinstance(node, SeqNode):
        return []
    return [x.value for x in node.items if isinstance(x, ScalarNode) and isinstance(x.value, str)]


def _merge_prop(old: Prop, new: Prop) -> Prop:
    """``new`` declared after ``old`` (a later ``allOf`` part, the composite's own): its
    shape wins unless it only says the name is required."""
    shape = old.shape if new.shape is ANY else new.shape
    return Prop(new.name, shape, old.required or new.required, old.read_only or new.read_only,
                old.write_only or new.write_only)


class ShapeBuilder:
    """The schemas of one document as shapes, each node built once.

    A result is remembered by node identity when it does not depend on where it was
    reached from (no ``$ref`` cut at a schema outside it, no bound reached inside it);
    otherwise per (node, level), so that a graph of schemas referring to each other still
    costs a bounded number of builds per node."""

    def __init__(self, res: Resolver) -> None:
        self.res = res
        self._exact: dict[int, Shape] = {}
        self._ctx: dict[tuple[int, int], Shape] = {}
        self._named: dict[tuple[int, str], Shape] = {}
        self._leaves: dict[tuple[str, str], Shape] = {}
        self._texts: dict[int, str] = {}
        self._stack: dict[int, int] = {}  # node id -> its index on the stack of schemas being built
        self._shapes: dict[tuple, Shape] = {}
        self._props: dict[tuple, Prop] = {}
        self._params: dict[ParamSpec, ParamSpec] = {}

    def shape(self, node: Node | None) -> Shape:
        return self._build(node, 0)[0]

    # ----------------------------------------------------------------- internals

    def _text(self, node: Node) -> str:
        """``Resolver.type_of(node)``, once per node (an array's from its items' text)."""
        got = self._texts.get(id(node))
        if got is None:
            t = node.get("type") if isinstance(node, MapNode) and "$ref" not in node else None
            ts = t.value if isinstance(t, ScalarNode) and isinstance(t.value, str) else None
            plain = ts is not None and "oneOf" not in node and "anyOf" not in node and "allOf" not in node  # type: ignore[operator]
            if plain and ts == "array" and isinstance(node.get("items"), MapNode):  # type: ignore[union-attr]
                got = f"array<{self._text(node.get('items'))}>"  # type: ignore[union-attr, arg-type]
            elif plain and ts != "array":
                got = ts
            else:
                got = self.res.type_of(node)
            self._texts[id(node)] = got  # type: ignore[assignment]
        return got  # type: ignore[return-value]

    def intern(self, shape: Shape) -> Shape:
        """One object per distinct shape (its parts are interned already): shared shapes
        pickle once."""
        if not shape.props and shape.items is None and not shape.branches:
            return shape  # a leaf (``leaf`` makes one of each) or an empty object
        key = (shape.type, tuple(id(p) for p in shape.props), shape.closed, shape.open, id(shape.items),
               tuple(id(b) for b in shape.branches), shape.text)
        got = self._shapes.get(key)
        if got is None:
            got = self._shapes[key] = shape
        return got

    def prop(self, name: str, shape: Shape, required: bool = False, read_only: bool = False,
             write_only: bool = False) -> Prop:
        key = (name, id(shape), required, read_only, write_only)
        got = self._props.get(key)
        if got is None:
            got = self._props[key] = Prop(name, shape, required, read_only, write_only)
        return got

    def leaf(self, typ: str, text: str) -> Shape:
        got = self._leaves.get((typ, text))
        if got is None:
            got = self._leaves[(typ, text)] = Shape(typ, text=text)
        return got

    def _build(self, node: Node | None, level: int) -> tuple[Shape, int]:
        """(shape, low): ``low`` is the stack index of the outermost schema a ``$ref`` inside
        was cut at (``_BIG`` for none, -1 when a bound was reached inside)."""
        if not isinstance(node, MapNode):
            return ANY, _BIG  # `true`, `{}`-less garbage: anything
        key = id(node)
        got = self._exact.get(key)
        if got is not None:
            return got, _BIG
        got = self._ctx.get((key, level))
        if got is not None:
            return got, -1
        if "$ref" in node:
            return self._ref(node, level)
        if level > MAX_LEVEL or len(self._stack) >= MAX_STACK:
            return self.leaf("any", self._text(node)), -1
        index = len(self._stack)
        self._stack[key] = index
        try:
            shape, low = self._schema(node, level)
        finally:
            del self._stack[key]
        shape = self.intern(shape)
        if low >= index:
            self._exact[key] = shape
            return shape, _BIG
        self._ctx[(key, level)] = shape
        return shape, low

    def _ref(self, node: MapNode, level: int) -> tuple[Shape, int]:
        name = self._text(node)
        target = self.res.deref(node)
        if not isinstance(target, MapNode):
            return self.leaf("any", name), _BIG  # dangling, external, looping, not an object
        on = self._stack.get(id(target))
        if on is not None:
            return self.leaf("any", name), on  # a recursive type: cut where it comes back
        shape, low = self._build(target, level)
        if shape.text == name:
            return shape, low
        named = self._named.get((id(shape), name))
        if named is None:
            named = self._named[(id(shape), name)] = self.intern(replace(shape, text=name))
        return named, low

    def _schema(self, node: MapNode, level: int) -> tuple[Shape, int]:
        low = _BIG
        union = None
        for comb in ("oneOf", "anyOf"):
            parts = node.get(comb)
            if isinstance(parts, SeqNode) and parts.items:
                union = parts
                break
        if union is None:
            return self._own(node, level, composed=False)
        own, low = self._own(node, level, composed=True)
        if own.type not in ("any", "object", "union"):
            return own, low  # `type: string` with alternatives of format: a string all the same
        branches: list[Shape] = []
        for part in union.items:
            s, lo = self._build(part, level)
            low = min(low, lo)
            if s.type == "null":
                continue
            if own.props and s.type == "object":
                s = self.intern(_merged(own, s))
            branches.append(s)
        if not branches:
            return (own if own.type != "any" else self.leaf("null", self._text(node))), low
        if len(branches) == 1:
            return branches[0], low
        return Shape("union", branches=tuple(branches), text=self._text(node)), low

    def _types(self, node: MapNode) -> list[str] | None:
        t = node.get("type")
        if isinstance(t, SeqNode):
            return [x.value for x in t.items if isinstance(x, ScalarNode) and isinstance(x.value, str)]
        ts = scalar_str(t)
        return [ts] if ts is not None else None

    def _own(self, node: MapNode, level: int, *, composed: bool) -> tuple[Shape, int]:
        """The schema without its ``oneOf``/``anyOf`` (``composed``: it has one)."""
        types = self._types(node)
        text = self._text(node)
        if types is not None:
            real = [t for t in types if t != "null"]
            if not real:
                return self.leaf("null" if types else "any", text), _BIG
            if len(real) > 1:
                low = _BIG
                branches = []
                for t in real:
                    s, lo = self._typed(node, t, level, composed, text=t if t != "array" else text)
                    low = min(low, lo)
                    branches.append(s)
                return Shape("union", branches=tuple(branches), text=text), low
            return self._typed(node, real[0], level, composed, text=text)
        if "properties" in node or "additionalProperties" in node or "required" in node:
            return self._object(node, level, composed, text)
        if "items" in node:
            return self._typed(node, "array", level, composed, text=text)
        if isinstance(node.get("allOf"), SeqNode):
            parts = [self._build(p, level) for p in node.get("allOf").items]  # type: ignore[union-attr]
            kinds = {s.type for s, _ in parts}
            if "object" in kinds or kinds <= {"any"}:
                return self._object(node, level, composed, text, parts=parts)
            first = next(s for s, _ in parts if s.type != "any")
            return first, min(lo for _, lo in parts)
        values = node.get("enum")
        if isinstance(values, SeqNode) and values.items:
            if all(isinstance(v, ScalarNode) and isinstance(v.value, str) for v in values.items):
                return self.leaf("string", text), _BIG
        const = node.get("const")
        if isinstance(const, ScalarNode) and isinstance(const.value, str):
            return self.leaf("string", text), _BIG
        return self.leaf("any", text), _BIG

    def _typed(self, node: MapNode, t: str, level: int, composed: bool, *, text: str) -> tuple[Shape, int]:
        if t == "object":
            return self._object(node, level, composed, text)
        if t == "array":
            items, low = self._build(node.get("items"), level + 1)
            return Shape("array", items=items, text=text), low
        if t in ("string", "number", "integer", "boolean", "null"):
            return self.leaf(t, text), _BIG
        return self.leaf("any", text), _BIG  # `file` (Swagger), a misspelt type

    def _object(self, node: MapNode, level: int, composed: bool, text: str,
                parts: list[tuple[Shape, int]] | None = None) -> tuple[Shape, int]:
        """An object schema: its ``allOf`` parts merged, then its own ``properties``. A part
        that is a union (``allOf: [Base, {oneOf: [A, B]}]``) makes the whole a union of the
        merged alternatives (``Base & A``, ``Base & B``), up to ``MAX_BRANCHES`` of them."""
        low = _BIG
        all_of = node.get("allOf")
        if parts is None and isinstance(all_of, SeqNode):
            parts = [self._build(p, level) for p in all_of.items]
        shapes: list[Shape] = []
        for s, lo in parts or ():
            low = min(low, lo)
            shapes.append(s)
        required = _strings(node.get("required"))
        own: list[Prop] = []
        declared = node.get("properties")
        if isinstance(declared, MapNode):
            for name, _, sub in declared.items():
                s, lo = self._build(sub, level + 1)
                low = min(low, lo)
                target = self.res.deref(sub) if isinstance(sub, MapNode) and "$ref" in sub else sub
                own.append(Prop(name, s, name in required,
                                _flag(sub, "readOnly") or _flag(target, "readOnly"),
                                _flag(sub, "writeOnly") or _flag(target, "writeOnly")))
        extra = node.get("additionalProperties")
        unevaluated = node.get("unevaluatedProperties")
        closed = (isinstance(extra, ScalarNode) and extra.value is False) or (
            isinstance(unevaluated, ScalarNode) and unevaluated.value is False)
        pattern = node.get("patternProperties")
        open_ = isinstance(extra, MapNode) or (isinstance(extra, ScalarNode) and extra.value is True) or (
            isinstance(pattern, MapNode) and bool(pattern.entries))
        if not own and not shapes and not composed:
            open_ = True  # `type: object` and nothing else: a free-form object

        def merge(chosen: list[Shape]) -> Shape:
            props: dict[str, Prop] = {}
            any_open = open_
            for s in chosen:
                if s.type == "object":
                    any_open = any_open or s.open
                    for p in s.props:
                        props[p.name] = _merge_prop(props[p.name], p) if p.name in props else p
                elif s.type in ("any", "union"):
                    any_open = True  # a part whose properties are not known may add any
            for p in own:
                props[p.name] = _merge_prop(props[p.name], p) if p.name in props else p
            for name in required:  # the composite's `required` applies to its parts' properties too
                if name not in props:
                    props[name] = Prop(name, ANY, True)  # required but not declared: still required
                elif not props[name].required:
                    props[name] = replace(props[name], required=True)
            final = tuple(self.prop(p.name, p.shape, p.required, p.read_only, p.write_only) for p in props.values())
            return self.intern(Shape("object", props=final, closed=closed, open=any_open and not closed, text=text))

        combos: list[list[Shape]] = [[]]
        for s in shapes:
            options = s.branches if s.type == "union" else (s,)
            if len(combos) * len(options) > MAX_BRANCHES:
                options = (s,)  # too many alternatives: this part stays unknown (open)
            combos = [c + [o] for c in combos for o in options]
        if len(combos) == 1:
            return merge(combos[0]), low
        return Shape("union", branches=tuple(merge(c) for c in combos), text=text), low


def _merged(base: Shape, branch: Shape) -> Shape:
    """A ``oneOf`` branch with the properties the schema around it declares."""
    props = {p.name: p for p in base.props}
    for p in branch.props:
        props[p.name] = _merge_prop(props[p.name], p) if p.name in props else p
    return replace(branch, props=tuple(props.values()), open=branch.open or base.open)


# --------------------------------------------------------------------------- operations


def guarded(build: Callable[[], Schemas]) -> Schemas | None:
    """``build()``, or None (nothing judged) should reading the schemas fail: an operation
    whose schemas cannot be read is still declared, with its paths checked as before."""
    try:
        return build()
    except (RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def _params(item_params: Node | None, op_params: Node | None, res: Resolver, shapes: ShapeBuilder, *,
            swagger: bool) -> tuple[tuple[ParamSpec, ...], bool, dict[tuple[str, str], MapNode]]:
    """(parameters, whether they are all known, every parameter by (name, in)) of path-level
    and operation-level ``parameters``, the operation's overriding by (name, in) as
    ``oas.merged_params`` does."""
    complete = True
    merged: dict[tuple[str, str], MapNode] = {}
    for source in (item_params, op_params):
        if source is None:
            continue
        if not isinstance(source, SeqNode):
            complete = False
            continue
        for p in source.items:
            target = res.deref(p)
            name = scalar_str(target.get("name")) if isinstance(target, MapNode) else None
            loc = scalar_str(target.get("in")) if isinstance(target, MapNode) else None
            if not isinstance(target, MapNode) or name is None or loc is None:
                complete = False  # a $ref not followed, a parameter without a name or place
                continue
            merged[(name, loc)] = target
    out: list[ParamSpec] = []
    for (name, loc), p in merged.items():
        if loc not in _LOCATIONS:
            continue  # Swagger's `body` and `formData` are the body
        required = p.get("required")
        req = loc == "path" or (isinstance(required, ScalarNode) and required.value is True)
        if swagger:
            typ = res.type_of(p)
        else:
            typ = res.type_of(p.get("schema")) if "schema" in p else "any"
        spec = ParamSpec(name, loc, req, typ)
        out.append(shapes._params.setdefault(spec, spec))  # one object per distinct parameter
    return tuple(out), complete, merged


def _status_order(responses: MapNode) -> list[tuple[str, Node]]:
    """The responses a success body is looked for in, in order: 2xx by number, then ``2XX``;
    ``default`` only when no 2xx status is declared at all (otherwise it is the errors')."""
    numeric: list[tuple[int, str, Node]] = []
    ranged: list[tuple[str, Node]] = []
    default: Node | None = None
    for status, _, resp in responses.items():
        if len(status) == 3 and status.isascii() and status.isdigit() and 200 <= int(status) <= 299:
            numeric.append((int(status), status, resp))
        elif status in ("2XX", "2xx"):
            ranged.append((status, resp))
        elif status == "default":
            default = resp
    order = [(s, r) for _, s, r in sorted(numeric, key=lambda x: x[0])] + ranged
    if not order and default is not None:
        order.append(("default", default))
    return order


def _response(op: MapNode, res: Resolver, shapes: ShapeBuilder, *, swagger: bool) -> tuple[Shape | None, str]:
    responses = op.get("responses")
    if not isinstance(responses, MapNode):
        return None, ""
    for status, resp in _status_order(responses):
        r = res.deref(resp)
        if not isinstance(r, MapNode):
            continue
        if swagger:
            if "schema" in r:
                return shapes.shape(r.get("schema")), status.upper() if status != "default" else status
            continue
        content = r.get("content")
        if not isinstance(content, MapNode):
            continue
        media = _pick([mt for mt, _, _ in content.items()], forms=False)
        m = content.get(media) if media is not None else None
        if isinstance(m, MapNode) and "schema" in m:
            return shapes.shape(m.get("schema")), status.upper() if status != "default" else status
    return None, ""


def openapi_schemas(op: MapNode, item: MapNode, res: Resolver, shapes: ShapeBuilder) -> Schemas:
    """An OpenAPI 3 operation's schemas: ``requestBody`` (the JSON media type, else a form),
    the merged parameters, the success response's JSON body."""
    params, complete, _ = _params(item.get("parameters"), op.get("parameters"), res, shapes, swagger=False)
    body: Shape | None = None
    media = ""
    required = False
    declared = op.get("requestBody")
    if declared is not None:
        rb = res.deref(declared)
        body = ANY  # declared, but nothing known of it (a $ref not followed, no JSON media type)
        if isinstance(rb, MapNode):
            required = _flag(rb, "required")
            content = rb.get("content")
            if isinstance(content, MapNode):
                medias = [mt for mt, _, _ in content.items()]
                chosen = _pick(medias, forms=True)
                if chosen is not None:
                    m = content.get(chosen)
                    media = chosen
                    body = shapes.shape(m.get("schema")) if isinstance(m, MapNode) and "schema" in m else ANY
                elif medias:
                    media = medias[0]
    response, status = _response(op, res, shapes, swagger=False)
    return Schemas(body, media, required, params, complete, response, status, source="openapi")


def swagger_schemas(op: MapNode, item: MapNode, res: Resolver, shapes: ShapeBuilder,
                    consumes: tuple[str, ...] | None) -> Schemas:
    """A Swagger 2.0 operation's schemas: the ``in: body`` parameter's schema (or the
    ``formData`` parameters as an object), the other parameters, ``responses.<code>.schema``."""
    params, complete, merged = _params(item.get("parameters"), op.get("parameters"), res, shapes, swagger=True)
    body: Shape | None = None
    media = ""
    required = False
    listed = list(consumes or ())
    in_body = next((p for (_, loc), p in merged.items() if loc == "body"), None)
    form = [(name, p) for (name, loc), p in merged.items() if loc == "formData"]
    if in_body is not None:
        required = _flag(in_body, "required")
        body = shapes.shape(in_body.get("schema")) if "schema" in in_body else ANY
        media = _pick(listed, forms=False) or (listed[0] if listed else "application/json")
    elif form:
        lowered = [_media_rank(mt) for mt in listed]
        media = "multipart/form-data" if 5 in lowered and 4 not in lowered else "application/x-www-form-urlencoded"
        props = tuple(Prop(name, shapes.shape(p), _flag(p, "required")) for name, p in form)
        required = any(p.required for p in props)
        body = Shape("object", props=props, text="form")
    response, status = _response(op, res, shapes, swagger=True)
    return Schemas(body, media, required, params, complete, response, status, source="swagger")


# --------------------------------------------------------------------------- types as written

_PRIMITIVES = {
    "str": "string", "string": "string", "String": "string", "EmailStr": "string", "HttpUrl": "string",
    "AnyUrl": "string", "UUID": "string", "uuid": "string", "UUID4": "string", "datetime": "string",
    "date": "string", "time": "string", "Date": "string", "SecretStr": "string", "text": "string",
    "int": "integer", "integer": "integer", "Integer": "integer", "bigint": "integer", "PositiveInt": "integer",
    "float": "number", "number": "number", "Number": "number", "Decimal": "number", "double": "number",
    "bool": "boolean", "boolean": "boolean", "Boolean": "boolean",
    "None": "null", "null": "null", "undefined": "null", "NoneType": "null",
}
_ANY = {"Any", "any", "unknown", "object", "Object", "Json", "JSON"}
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "Record", "Map", "object"}
_SEQUENCES = {"list", "List", "Sequence", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple",
              "Iterable", "Array", "ReadonlyArray", "conlist"}
_WRAPPERS = {"Optional", "Annotated", "Required", "NotRequired", "ReadOnly", "Readonly", "Partial", "Final"}
_HEAD = re.compile(r"^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?=[\[<]|$)")

ModelShape = Callable[[str, int], "Shape | None"]  # (name as written, level) -> nested object, or None


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split on ``sep`` outside brackets and quotes."""
    out: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "[(<{":
            depth += 1
        elif ch in "])>}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [p.strip() for p in out]


def type_shape(text: str, model: ModelShape | None = None, level: int = 0) -> Shape:
    """A type as written (Python ``str``, ``list[Note]``, ``Optional[int]``; TypeScript
    ``string``, ``Note[]``, ``Array<Note>``, ``Note | null``; a SpecDSL ``string[]``) as a
    shape, with ``text`` the type as written. ``model`` turns a name into a nested object
    (a data class of the workspace, a SpecDSL model); anything not understood is ``any``."""
    t = text.strip()
    if not t or level > MAX_LEVEL:
        return Shape(text=t)
    options = [o for o in _split_top(t, "|") if o]
    if len(options) > 1:
        shapes = [type_shape(o, model, level) for o in options]
        real = [s for s in shapes if s.type != "null"]
        if len(real) == 1:
            return replace(real[0], text=t) if real[0].text != t else real[0]
        if not real:
            return Shape("null", text=t)
        if all(s.type == "string" for s in real):
            return Shape("string", text=t)  # 'a' | 'b'
        return Shape("union", branches=tuple(real), text=t)
    if t.endswith("[]"):
        return Shape("array", items=type_shape(t[:-2], model, level + 1), text=t)
    if t[0] in "'\"`":
        return Shape("string", text=t)  # a string literal type
    if t.startswith("(") and t.endswith(")"):
        return replace(type_shape(t[1:-1], model, level), text=t)
    m = _HEAD.match(t)
    if m is None:
        return Shape(text=t)
    head = m.group(1)
    rest = t[m.end():]
    args: list[str] = []
    if rest:
        if rest[0] + rest[-1] not in ("[]", "<>"):
            return Shape(text=t)
        args = [a for a in _split_top(rest[1:-1], ",") if a]
    last = head.rsplit(".", 1)[-1]
    if last in _WRAPPERS and args:
        inner = type_shape(args[0], model, level)
        return inner if inner.text == t else replace(inner, text=t)
    if last == "Union" and args:
        inner = type_shape(" | ".join(args), model, level)
        return replace(inner, text=t)
    if last == "Literal" and args:
        return Shape("string" if all(a[:1] in "'\"" for a in args) else "any", text=t)
    if last in _SEQUENCES and (args or not rest):
        items = type_shape(args[0], model, level + 1) if args else ANY
        return Shape("array", items=items, text=t)
    if last in _MAPPINGS:
        return Shape("object", open=True, text=t)
    if not args:
        prim = _PRIMITIVES.get(head)
        if prim is not None:
            return Shape(prim, text=t)
        if head in _ANY:
            return Shape(text=t)
        if model is not None:
            found = model(head, level + 1)
            if found is not None:
                return found if found.text == t else replace(found, text=t)
    return Shape(text=t)


# --------------------------------------------------------------------------- SpecDSL

_REQUIRED = re.compile(r"\brequired\b", re.IGNORECASE)
_OPTIONAL = re.compile(r"\b(optional|not\s+required)\b", re.IGNORECASE)
_DSL_TYPE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:\s*\[\s*\])*)")
_DSL_PRIMITIVES = {"string": "string", "str": "string", "text": "string", "date": "string", "datetime": "string",
                   "uuid": "string", "email": "string", "url": "string", "number": "number", "float": "number",
                   "integer": "integer", "int": "integer", "boolean": "boolean", "bool": "boolean",
                   "null": "null"}


def dsl_required(description: str) -> bool:
    """A SpecDSL field is required when its description says so: the word ``required``
    (not ``optional``, not ``not required``), or a trailing ``!``."""
    d = description.strip()
    if d.endswith("!"):
        return True
    return bool(_REQUIRED.search(d)) and not _OPTIONAL.search(d)


def dsl_type(description: str, model: ModelShape | None = None, level: int = 0) -> Shape:
    """The shape of a SpecDSL type description from its leading type name (``string``,
    ``number``, ``string[]``, a model's name: ``text`` is that name, ``Post[]``); the rest of
    the description (``, required``, ``max 200 chars``) is not a type."""
    m = _DSL_TYPE.match(description)
    if m is None:
        return Shape(text=description.strip())
    head = re.sub(r"\s+", "", m.group(1))
    base = head.rstrip("[]")
    dims = (len(head) - len(base)) // 2
    prim = _DSL_PRIMITIVES.get(base.lower())
    if prim is not None:
        shape = Shape(prim, text=base)
    elif base.lower() in ("array", "list") and not dims:
        shape = Shape("array", items=ANY, text=base)
    elif base.lower() in ("object", "json", "map", "record"):
        shape = Shape("object", open=True, text=base)
    else:
        shape = (model(base, level + 1) if model is not None else None) or Shape(text=base)
    for _ in range(dims):
        shape = Shape("array", items=shape, text=shape.text + "[]")
    return shape


def dsl_schemas(request: Node | None, models: dict[str, MapNode]) -> Schemas:
    """A SpecDSL endpoint's schemas from its ``request`` maps: ``body`` (name -> type
    description) as an object whose fields are required only when their description says
    so (``dsl_required``), ``query`` as query parameters (likewise), ``params`` as path
    parameters (required). SpecDSL declares no response schema. The query parameters are
    the whole list only when ``request.query`` is written."""
    cache: dict[str, Shape | None] = {}
    building: set[str] = set()

    def model(name: str, level: int) -> Shape | None:
        node = models.get(name)
        if node is None or name in building or level > 3:
            return Shape(text=name) if node is not None else None
        if name in cache:
            return cache[name]
        building.add(name)
        props = []
        fields = node.get("fields")
        for f in fields.items if isinstance(fields, SeqNode) else ():
            fname = scalar_str(f.get("name")) if isinstance(f, MapNode) else None
            if fname is None:
                continue
            ftype = scalar_str(f.get("type")) or ""  # type: ignore[union-attr]
            props.append(Prop(fname, dsl_type(ftype, model, level), _flag(f, "required")))
        building.discard(name)
        got = cache[name] = Shape("object", props=tuple(props), text=name)
        return got

    def fields(part: str) -> list[tuple[str, str]] | None:
        node = request.get(part) if isinstance(request, MapNode) else None
        if not isinstance(node, MapNode):
            return None
        return [(k, v.value if isinstance(v, ScalarNode) and isinstance(v.value, str) else "")
                for k, _, v in node.items()]

    body = None
    body_fields = fields("body")
    if body_fields is not None:
        props = tuple(Prop(k, dsl_type(d, model), dsl_required(d)) for k, d in body_fields)
        body = Shape("object", props=props, text="body")
    params: list[ParamSpec] = []
    for k, d in fields("params") or ():
        params.append(ParamSpec(k, "path", True, dsl_type(d).text or "any"))
    query = fields("query")
    for k, d in query or ():
        params.append(ParamSpec(k, "query", dsl_required(d), dsl_type(d).text or "any"))
    model = None  # type: ignore[assignment]  # (it refers to itself: no cycle outlives the call)
    return Schemas(body, "application/json" if body is not None else "",
                   body is not None and any(p.required for p in body.props),
                   tuple(params), params_complete=query is not None, source="specdsl")
