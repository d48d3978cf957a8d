"""SpecDSL 1.0 -> OpenAPI 3.1, with no LLM (issue 15, "Export OpenAPI").

``load_spec(path, text)`` reads a ``*.dsl.json`` text through the contract reader
(``analyzers.contracts.parse_contract``: the same validator as everywhere else) and, when it
has no error, returns the document as the ``dsl.SpecDSL`` model. ``plan(spec)`` turns that
into the facts both exporters share (type of every field, one ``Operation`` per endpoint
with a stable function name, its parameters, body and response type);
``to_openapi(spec)`` builds the OpenAPI document as a plain dict and ``dump(doc, fmt)``
writes it as YAML or JSON text, byte for byte the same for the same input.

SpecDSL types are short strings (``String``, ``Int``, ``string[]``, ``Article``,
``'draft' | 'published'``, ``string, required``); ``parse_type`` reads the leading type
expression and ignores the rest, which is prose. The mapping is in ``docs/export.md``.
Pure: text in, data or text out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import yaml

from ..contracts import parse_contract
from ..contracts.common import normalize_path
from ..contracts.dsl import ApiEndpoint, SpecDSL
from ..contracts.schemas import dsl_required
from ..model import Finding, Span

OPENAPI_VERSION = "3.1.0"
JSON_MEDIA = "application/json"
BEARER = "bearerAuth"

# --------------------------------------------------------------------------- loading


def load_spec(path: str, text: str) -> tuple[SpecDSL | None, tuple[Finding, ...]]:
    """The validated document and the error findings of the contract reader. ``None`` when
    there is any error (the exporters only run on a contract the validator accepts)."""
    facts = parse_contract(path, text)
    errors = tuple(f for f in facts.findings if f.severity == "error")
    if facts.format != "specdsl" or errors or not facts.readable:
        return None, errors or facts.findings
    try:
        spec = SpecDSL.model_validate(json.loads(text.lstrip("\ufeff")))
    except ValueError as exc:  # (the reader said it was valid: not expected)
        return None, (Finding("contract-invalid", "error", f"not a valid SpecDSL document: {exc}", path, Span(0, 0)),)
    return spec, ()


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class TypeRef:
    """A SpecDSL type. ``kind``: ``string``, ``integer``, ``number``, ``boolean``, ``null``,
    ``any`` (unknown: ``text`` holds what was written), ``object`` (any JSON object),
    ``model`` (``name``), ``array`` (``items``), ``map`` (string keys, ``items`` values),
    ``enum`` (string ``values``), ``union`` (``options``)."""

    kind: str
    format: str = ""
    name: str = ""
    items: "TypeRef | None" = None
    options: tuple["TypeRef", ...] = ()
    values: tuple[str, ...] = ()
    text: str = ""


ANY = TypeRef("any")
_PRIMS: dict[str, tuple[str, str]] = {
    **{k: ("string", "") for k in ("string", "str", "text", "char", "varchar", "slug", "markdown", "html")},
    "email": ("string", "email"), "url": ("string", "uri"), "uri": ("string", "uri"), "uuid": ("string", "uuid"),
    "date": ("string", "date"), "time": ("string", "time"), "datetime": ("string", "date-time"),
    "date-time": ("string", "date-time"), "timestamp": ("string", "date-time"), "bytes": ("string", "byte"),
    **{k: ("integer", "") for k in ("int", "integer", "long", "short", "bigint", "int32", "int64", "serial")},
    **{k: ("number", "") for k in ("number", "float", "double", "decimal", "numeric", "real")},
    "boolean": ("boolean", ""), "bool": ("boolean", ""), "null": ("null", ""), "none": ("null", ""),
    **{k: ("any", "") for k in ("any", "unknown", "json", "mixed")},
    **{k: ("object", "") for k in ("object", "map", "dict", "record", "hash")},
}
_SEQUENCES = {"array", "list", "set", "sequence", "iterable", "readonlyarray", "tuple"}
_MAPPINGS = {"record", "map", "dict", "mapping", "hash"}
_NULLABLE = {"optional", "nullable", "maybe"}
_TOKEN = re.compile(r"""\s*(?:(?P<str>'[^']*'|"[^"]*")|(?P<name>[A-Za-z_$][\w$.-]*)|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>\[\s*\]|[\[\]<>()|,?]))""")


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, value, end offset) of each token, up to the first character that is none."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup or "op"
        value = m.group(kind)
        out.append((kind, re.sub(r"\s+", "", value) if kind == "op" else value, m.end()))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str, models: dict[str, str]) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.models = models  # lower-case name -> name as declared (exact names too)

    def peek(self, value: str | None = None, kind: str | None = None) -> bool:
        if self.i >= len(self.toks):
            return False
        k, v, _ = self.toks[self.i]
        return (value is None or v == value) and (kind is None or k == kind)

    def take(self) -> tuple[str, str]:
        kind, value, _ = self.toks[self.i]
        self.i += 1
        return kind, value

    def union(self, depth: int = 0) -> TypeRef | None:
        first = self.postfix(depth)
        if first is None:
            return None
        options = [first]
        while self.peek("|"):
            save = self.i
            self.take()
            nxt = self.postfix(depth)
            if nxt is None:
                self.i = save
                break
            options.append(nxt)
        return _union(options)

    def postfix(self, depth: int) -> TypeRef | None:
        t = self.primary(depth)
        if t is None:
            return None
        while True:
            if self.peek("[]"):
                self.take()
                t = TypeRef("array", items=t)
            elif self.peek("?"):
                self.take()
                t = _union([t, TypeRef("null")])
            else:
                return t

    def primary(self, depth: int) -> TypeRef | None:
        if self.i >= len(self.toks) or depth > 16:
            return None
        kind, value, _ = self.toks[self.i]
        if kind == "str":
            self.take()
            return TypeRef("enum", values=(value[1:-1],))
        if kind == "num":
            return None
        if value == "(":
            save = self.i
            self.take()
            inner = self.union(depth + 1)
            if inner is not None and self.peek(")"):
                self.take()
                return inner
            self.i = save
            return None
        if kind != "name":
            return None
        self.take()
        low = value.lower()
        if self.peek("(") or self.peek("<") or self.peek("["):
            save = self.i
            closing = {"(": ")", "<": ">", "[": "]"}[self.take()[1]]
            if low == "enum":
                values = self.enum_values(closing)
                if values is not None:
                    return TypeRef("enum", values=tuple(dict.fromkeys(values)))
            else:
                args = self.args(closing, depth)
                if args is not None:
                    generic = _generic(low, args)
                    if generic is not None:
                        return generic
            self.i = save
        if low in _PRIMS:
            k, fmt = _PRIMS[low]
            return TypeRef(k, format=fmt) if k != "any" else ANY
        name = self.models.get(value) or self.models.get(low)
        if name is not None:
            return TypeRef("model", name=name)
        return TypeRef("any", text=value)  # a name nobody declared

    def args(self, closing: str, depth: int) -> list[TypeRef] | None:
        out: list[TypeRef] = []
        while True:
            t = self.union(depth + 1)
            if t is None:
                return None
            out.append(t)
            if self.peek(","):
                self.take()
                continue
            if self.peek(closing):
                self.take()
                return out
            return None

    def enum_values(self, closing: str) -> list[str] | None:
        out: list[str] = []
        while self.i < len(self.toks):
            kind, value = self.take()
            if value == closing:
                return out
            if kind == "str":
                out.append(value[1:-1])
            elif kind in ("name", "num"):
                out.append(value)
            elif value not in (",", "|"):
                return None
        return None


def _generic(head: str, args: list[TypeRef]) -> TypeRef | None:
    if head in _SEQUENCES and len(args) == 1:
        return TypeRef("array", items=args[0])
    if head in _MAPPINGS and len(args) in (1, 2):
        return TypeRef("map", items=args[-1])
    if head in _NULLABLE and len(args) == 1:
        return _union([args[0], TypeRef("null")])
    return None


def _union(options: list[TypeRef]) -> TypeRef:
    flat: list[TypeRef] = []
    for o in options:
        flat.extend(o.options if o.kind == "union" else (o,))
    # bare words nobody declared, joined by `|`, are the values of an enum: `draft | published`
    if len(flat) > 1 and all(o.kind == "enum" or (o.kind == "any" and o.text and _WORD.fullmatch(o.text)) for o in flat):
        flat = [TypeRef("enum", values=tuple(v for o in flat for v in (o.values or (o.text,))))]
    merged: list[TypeRef] = []
    enum_at = -1
    for o in flat:
        if o.kind == "enum" and enum_at >= 0:
            prev = merged[enum_at]
            merged[enum_at] = TypeRef("enum", values=tuple(dict.fromkeys(prev.values + o.values)))
            continue
        if o.kind == "enum":
            enum_at = len(merged)
        if o not in merged:
            merged.append(o)
    if any(o.kind == "any" for o in merged):
        return next(o for o in merged if o.kind == "any")  # anything | X is anything
    return merged[0] if len(merged) == 1 else TypeRef("union", options=tuple(merged))


_WORD = re.compile(r"[A-Za-z_][\w-]*")


def parse_type(text: str, models: dict[str, str] | None = None) -> TypeRef:
    """The type a SpecDSL type description starts with (the rest is prose: ``string,
    required``). ``models`` maps model names (as declared, and lower-cased) to the declared
    name. Anything not understood is ``any`` with the text written."""
    return split_type(text, models)[0]


def split_type(text: str, models: dict[str, str] | None = None) -> tuple[TypeRef, str]:
    """``parse_type`` and the prose after the type (``required, max 200 chars``)."""
    p = _Parser(text, models or {})
    t = p.union()
    if t is None:
        return TypeRef("any", text=text.strip()), ""
    end = p.toks[p.i - 1][2] if p.i else 0
    return t, text[end:].strip(" \t,;:-")


def model_index(spec: SpecDSL) -> dict[str, str]:
    names: dict[str, str] = {}
    lowered: dict[str, list[str]] = {}
    for m in spec.models:
        names.setdefault(m.name, m.name)
        lowered.setdefault(m.name.lower(), []).append(m.name)
    for low, found in lowered.items():
        if len(set(found)) == 1:
            names.setdefault(low, found[0])  # `article` names Article when nothing else does
    return names


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class FieldPlan:
    name: str
    type: TypeRef
    required: bool
    description: str = ""


@dataclass(frozen=True)
class ModelPlan:
    name: str
    fields: tuple[FieldPlan, ...]
    description: str = ""


@dataclass(frozen=True)
class Operation:
    endpoint: ApiEndpoint
    method: str
    path: str  # OpenAPI template: /api/articles/{slug}
    name: str  # function name / operationId, unique in the document
    path_params: tuple[FieldPlan, ...]
    query: tuple[FieldPlan, ...] | None
    body: tuple[FieldPlan, ...] | None
    response: TypeRef | None  # None: no content (204, 205)
    errors: tuple[tuple[int, tuple[tuple[str, str], ...]], ...] = ()  # status -> ((code, description), ...)


@dataclass(frozen=True)
class Plan:
    spec: SpecDSL
    models: tuple[ModelPlan, ...]
    operations: tuple[Operation, ...]
    model_names: dict[str, str] = field(default_factory=dict)


_PARAM = re.compile(r"\{([^{}/]+)\}")
_RESERVED_JS = {
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
    "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof",
    "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void",
    "while", "with", "yield", "let", "static", "implements", "interface", "package", "private", "protected",
    "public", "await", "async",
}
IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")


def pascal(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    return "".join(w[:1].upper() + w[1:] for w in words)


def _derived_name(method: str, path: str) -> str:
    segs = [s for s in path.split("/") if s]
    if segs and segs[0].lower() == "api":
        segs = segs[1:]
    parts = [method.lower()]
    for s in segs:
        m = _PARAM.fullmatch(s)
        parts.append("By" + pascal(m.group(1)) if m else pascal(s))
    if len(parts) == 1:
        parts.append("Root")
    return "".join(parts)


def _explicit_name(ep: ApiEndpoint) -> str | None:
    extra = ep.model_extra or {}
    for key in ("operationId", "name"):
        value = extra.get(key)
        if isinstance(value, str) and IDENT.match(value) and value not in _RESERVED_JS:
            return value
    return None


def _response_type(ep: ApiEndpoint, spec: SpecDSL, names: dict[str, str]) -> TypeRef | None:
    extra = (ep.model_extra or {}).get("response")
    if isinstance(extra, str) and extra.strip():
        return parse_type(extra, names)
    if ep.successStatus in (204, 205, 304):
        return None
    best: tuple[int, int, TypeRef] | None = None
    for m in spec.models:
        words = [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", m.name)] or [m.name.lower()]
        head = r"\s*".join(re.escape(w) for w in words[:-1])
        last = words[-1]
        plural = re.escape(last[:-1]) + "ies" if last.endswith("y") and len(last) > 1 else re.escape(last) + "(?:s|es)"
        joint = head + r"[\s_-]*" if head else ""
        pattern = re.compile(rf"\b{joint}(?:(?P<many>{plural})|{re.escape(last)})\b", re.IGNORECASE)
        hit = pattern.search(ep.successDescription)
        if hit is None:
            continue
        ref = TypeRef("model", name=m.name)
        t = TypeRef("array", items=ref) if hit.group("many") else ref
        key = (hit.start(), -(hit.end() - hit.start()))
        if best is None or key < best[:2]:
            best = (key[0], key[1], t)
    return best[2] if best else ANY


def _fields(mapping: dict[str, str] | None, names: dict[str, str], *, required: bool | None = None) -> tuple[FieldPlan, ...] | None:
    if mapping is None:
        return None
    out = []
    for k, v in mapping.items():
        t, prose = split_type(v, names)
        out.append(FieldPlan(k, t, dsl_required(v) if required is None else required, prose))
    return tuple(out)


def plan(spec: SpecDSL) -> Plan:
    names = model_index(spec)
    models = tuple(
        ModelPlan(m.name, tuple(FieldPlan(f.name, parse_type(f.type, names), f.required, f.description or "")
                                for f in m.fields), m.description or "")
        for m in spec.models)
    ops: list[Operation] = []
    taken: set[str] = set()
    for ep in spec.endpoints:
        path = normalize_path(ep.path)
        request = ep.request
        declared = {f.name: f for f in _fields(request.params if request else None, names, required=True) or ()}
        path_params = []
        for pname in dict.fromkeys(_PARAM.findall(path)):
            got = declared.get(pname)
            path_params.append(got if got is not None else FieldPlan(pname, TypeRef("string"), True))
        base = _explicit_name(ep) or _derived_name(ep.method, path)
        name, n = base, 2
        while name in taken:
            name, n = f"{base}{n}", n + 1
        taken.add(name)
        grouped: dict[int, list[tuple[str, str]]] = {}
        for e in ep.errors or ():
            grouped.setdefault(e.status, []).append((e.code, e.description))
        ops.append(Operation(
            ep, ep.method, path, name, tuple(path_params),
            _fields(request.query if request else None, names),
            _fields(request.body if request else None, names),
            _response_type(ep, spec, names),
            tuple((s, tuple(v)) for s, v in grouped.items()),
        ))
    return Plan(spec, models, tuple(ops), names)


# --------------------------------------------------------------------------- OpenAPI


_COMPONENT_KEY = re.compile(r"[^A-Za-z0-9._-]")


def component_key(name: str) -> str:
    """A model's key under ``components/schemas`` (the characters OpenAPI allows)."""
    return _COMPONENT_KEY.sub("_", name) or "_"


def json_schema(t: TypeRef) -> dict:
    """The JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a type."""
    if t.kind in ("string", "integer", "number", "boolean", "null"):
        out: dict = {"type": t.kind}
        if t.format:
            out["format"] = t.format
        return out
    if t.kind == "model":
        return {"$ref": f"#/components/schemas/{component_key(t.name)}"}
    if t.kind == "array":
        return {"type": "array", "items": json_schema(t.items or ANY)}
    if t.kind == "map":
        return {"type": "object", "additionalProperties": json_schema(t.items or ANY)}
    if t.kind == "object":
        return {"type": "object"}
    if t.kind == "enum":
        return {"type": "string", "enum": list(t.values)}
    if t.kind == "union":
        return {"anyOf": [json_schema(o) for o in t.options]}
    return {"description": f"SpecDSL type `{t.text}`"} if t.text else {}


def _object_schema(fields: tuple[FieldPlan, ...], description: str = "", *, with_descriptions: bool) -> dict:
    out: dict = {"type": "object"}
    if description:
        out["description"] = description
    props: dict = {}
    for f in fields:
        s = json_schema(f.type)
        if with_descriptions and f.description:
            s = {**s, "description": f.description}  # (3.1: a $ref may have siblings)
        props[f.name] = s
    out["properties"] = props
    required = [f.name for f in fields if f.required]
    if required:
        out["required"] = required
    return out


def _parameter(f: FieldPlan, where: str) -> dict:
    out: dict = {"name": f.name, "in": where, "required": True if where == "path" else f.required,
                 "schema": json_schema(f.type)}
    if f.description:
        out["description"] = f.description
    return out


def _content(t: TypeRef) -> dict:
    return {JSON_MEDIA: {"schema": json_schema(t)}}


def operation_object(op: Operation) -> dict:
    ep = op.endpoint
    out: dict = {"operationId": op.name, "summary": ep.description, "x-specdsl-id": ep.id}
    params = [_parameter(f, "path") for f in op.path_params] + [_parameter(f, "query") for f in op.query or ()]
    if params:
        out["parameters"] = params
    if op.body is not None:
        out["requestBody"] = {"required": True,
                              "content": {JSON_MEDIA: {"schema": _object_schema(op.body, with_descriptions=False)}}}
    if ep.auth:
        out["security"] = [{BEARER: []}]
    success: dict = {"description": ep.successDescription}
    if op.response is not None:
        success["content"] = _content(op.response)
    responses: dict = {str(ep.successStatus): success}
    for status, errors in op.errors:
        text = "; ".join(f"{desc} ({code})" for code, desc in errors)
        key = str(status)
        if key in responses:
            responses[key]["description"] += "; " + text
            continue
        responses[key] = {"description": text, "x-error-codes": [code for code, _ in errors]}
    out["responses"] = responses
    return out


def to_openapi(spec: SpecDSL, the_plan: Plan | None = None) -> dict:
    """The OpenAPI 3.1 document of a SpecDSL document, as plain data."""
    p = the_plan or plan(spec)
    info: dict = {"title": spec.feature.title, "version": "1.0.0", "description": spec.feature.description}
    doc: dict = {"openapi": OPENAPI_VERSION, "info": info, "x-specdsl-feature": spec.feature.id}
    paths: dict = {}
    for op in p.operations:
        item = paths.setdefault(op.path, {})
        item[op.method.lower()] = operation_object(op)  # (a duplicate route is a validator error)
    doc["paths"] = paths
    components: dict = {}
    schemas = {}
    for m in p.models:
        schemas.setdefault(component_key(m.name), _object_schema(m.fields, m.description, with_descriptions=True))
    if schemas:
        components["schemas"] = schemas
    if any(op.endpoint.auth for op in p.operations):
        components["securitySchemes"] = {BEARER: {"type": "http", "scheme": "bearer"}}
    if components:
        doc["components"] = components
    return doc


# The first line of a YAML export: the workspace's contract discovery passes over a file
# that starts with it (the endpoints are the SpecDSL source's; declared twice, each would
# be reported unused in one of the two contracts).
EXPORT_MARK = "# Exported by specward from "


def dump(doc: dict, fmt: str = "yaml", source: str | None = None) -> str:
    """The document as text: ``yaml`` (block style, keys in document order, status codes as
    quoted strings) or ``json`` (two-space indent). The same input gives the same bytes.
    ``source``: the SpecDSL file's name, named in a first comment line of a YAML export
    (``EXPORT_MARK``)."""
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt != "yaml":
        raise ValueError(f"unknown format: {fmt!r} (yaml or json)")
    head = f"{EXPORT_MARK}{source}: edit that file, not this one.\n" if source else ""
    return head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


def export_openapi(spec: SpecDSL, fmt: str = "yaml") -> str:
    return dump(to_openapi(spec), fmt)
