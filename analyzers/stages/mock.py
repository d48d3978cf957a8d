"""A mock of a contract's API, with no LLM (issue 15, ``specward mock``).

``load_mock(path, text)`` reads a SpecDSL (``*.dsl.json``) or OpenAPI 3.x (YAML or JSON)
contract and returns a ``Mock``: one ``Route`` per operation, each with its declared
responses and an example body built from their schemas. A SpecDSL contract is first turned
into OpenAPI with ``export_openapi.to_openapi``, so both kinds go through one code path:
``from_openapi(doc)``. Both are validated by the contract reader first
(``analyzers.contracts.parse_contract``); an OpenAPI document is then read as plain data
(YAML or JSON) because the reader's shapes do not keep formats, enums or examples.

``example(schema, doc)`` builds a deterministic example of a JSON Schema (or of a SpecDSL
``TypeRef``), following local ``$ref``s with a cycle guard. ``Mock.respond(method, path,
query, headers)`` answers one request as ``(status, headers, body bytes)``:

* the operation whose path template matches (literal segments win over ``{params}``), with
  its first success response and that response's example;
* ``404`` (JSON) for a path no operation has, ``405`` with ``Allow`` for a known path and
  another method; ``HEAD`` answers as ``GET`` when the contract has no ``HEAD``;
* a declared response on request: header ``Prefer: code=404`` or query ``__code=404``
  (the convention of Stoplight Prism); a status the operation does not declare is a ``400``
  listing the declared ones;
* CORS: every answer allows any origin; an ``OPTIONS`` preflight is a ``204``.

The rules are in ``docs/export.md`` ("specward mock"). Pure: text in, data out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping
from urllib.parse import parse_qs, unquote

import yaml

from ..contracts import _is_json, normalize_path, parse_contract
from ..model import Finding
from .export_openapi import TypeRef, json_schema, load_spec, to_openapi

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_DEPTH = 12  # levels of properties and items in one example
MAX_NODES = 5_000  # values in one example (a wide schema is cut there)
STATUS_PARAM = "__code"
JSON_TYPE = "application/json"

_CUT = object()  # a $ref cycle, or too deep: the caller leaves the value out


# --------------------------------------------------------------------------- examples


def resolve_pointer(doc: object, ref: str) -> object:
    """The value a local ``$ref`` (``#/components/schemas/User``) points at, or ``_CUT``
    for a reference to another file or to nothing."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return _CUT
    node = doc
    for raw in ref[1:].split("/")[1:] if ref != "#" else ():
        key = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return _CUT
    return node


_FORMATS: dict[str, object] = {
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "12:00:00Z",
    "duration": "PT1H",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uri-reference": "/example",
    "iri": "https://example.com/",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "byte": "ZXhhbXBsZQ==",
    "binary": "",
    "password": "********",
    "regex": ".*",
    "json-pointer": "/example",
}


class _Builder:
    def __init__(self, doc: object) -> None:
        self.doc = doc
        self.nodes = 0

    def value(self, schema: object, stack: tuple[str, ...], depth: int) -> object:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            return _CUT
        if schema is True or schema is None:
            return None
        if not isinstance(schema, dict):
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                return _CUT  # a cycle: cut where it closes
            target = resolve_pointer(self.doc, ref)
            if target is _CUT:
                return None
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            got = self._given(siblings)
            if got is not _CUT:
                return got
            return self.value(target, (*stack, ref), depth)
        got = self._given(schema)
        if got is not _CUT:
            return got
        for key in ("allOf",):
            parts = schema.get(key)
            if isinstance(parts, list) and parts:
                return self._all_of(schema, parts, stack, depth)
        for key in ("oneOf", "anyOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                return self._first_option(options, stack, depth)
        return self._typed(schema, stack, depth)

    @staticmethod
    def _given(schema: dict) -> object:
        """The schema's own example, default, const or first enum value, if it has one."""
        if "example" in schema:
            return schema["example"]
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        if "default" in schema:
            return schema["default"]
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            non_null = [v for v in enum if v is not None]
            return non_null[0] if non_null else None
        return _CUT

    def _first_option(self, options: list, stack: tuple[str, ...], depth: int) -> object:
        cut = False
        for option in options:
            if isinstance(option, dict) and option.get("type") == "null":
                continue
            got = self.value(option, stack, depth)
            if got is _CUT:
                cut = True
                continue
            return got
        return _CUT if cut else None

    def _all_of(self, schema: dict, parts: list, stack: tuple[str, ...], depth: int) -> object:
        merged: dict | None = None
        other: object = _CUT
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        for part in [*parts, rest] if rest else parts:
            got = self.value(part, stack, depth)
            if isinstance(got, dict):
                merged = {**(merged or {}), **got}
            elif got is not _CUT and got is not None and other is _CUT:
                other = got
        if merged is not None:
            return merged
        return None if other is _CUT else other

    def _typed(self, schema: dict, stack: tuple[str, ...], depth: int) -> object:
        kind = schema.get("type")
        if isinstance(kind, list):  # 3.1: ["string", "null"]
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if kinds else "null"
        if kind is None:
            if "properties" in schema or "additionalProperties" in schema:
                kind = "object"
            elif "items" in schema or "prefixItems" in schema:
                kind = "array"
        if kind == "object":
            return self._object(schema, stack, depth)
        if kind == "array":
            return self._array(schema, stack, depth)
        if kind == "string":
            return _string(schema)
        if kind in ("integer", "number"):
            return _number(schema, kind)
        if kind == "boolean":
            return True
        return None  # null, or nothing said

    def _object(self, schema: dict, stack: tuple[str, ...], depth: int) -> object:
        out: dict = {}
        props = schema.get("properties")
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        if isinstance(props, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and sub.get("writeOnly") is True:
                    continue  # not in a response
                got = self.value(sub, stack, depth + 1)
                if got is _CUT:
                    if name in required:
                        out[str(name)] = None
                    continue
                out[str(name)] = got
        extra = schema.get("additionalProperties")
        if not out and isinstance(extra, dict) and extra:
            got = self.value(extra, stack, depth + 1)
            if got is not _CUT:
                out["key"] = got
        return out

    def _array(self, schema: dict, stack: tuple[str, ...], depth: int) -> object:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            got = [self.value(p, stack, depth + 1) for p in prefix]
            return [None if g is _CUT else g for g in got]
        items = schema.get("items")
        got = self.value(items if items is not None else {}, stack, depth + 1)
        return [] if got is _CUT else [got]  # a cycle through an array ends as an empty one


def _string(schema: dict) -> str:
    fmt = schema.get("format")
    text = _FORMATS.get(fmt, "string") if isinstance(fmt, str) else "string"
    assert isinstance(text, str)
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and not isinstance(low, bool) and len(text) < low:
        text += "x" * min(low - len(text), 1000)
    if isinstance(high, int) and not isinstance(high, bool) and high >= 0 and len(text) > high:
        text = text[:high]
    return text


def _number(schema: dict, kind: str) -> int | float:
    def num(key: str) -> float | None:
        v = schema.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    value = 0.0
    low, high = num("minimum"), num("maximum")
    xlow, xhigh = num("exclusiveMinimum"), num("exclusiveMaximum")
    if schema.get("exclusiveMinimum") is True and low is not None:  # 3.0 spelling
        xlow, low = low, None
    if schema.get("exclusiveMaximum") is True and high is not None:
        xhigh, high = high, None
    if low is not None and value < low:
        value = low
    if xlow is not None and value <= xlow:
        value = xlow + 1
    if high is not None and value > high:
        value = high
    if xhigh is not None and value >= xhigh:
        value = xhigh - 1
    if kind == "integer":
        return int(value)
    return int(value) if value.is_integer() else value


def example(schema: object, doc: object = None) -> object:
    """A deterministic example of a JSON Schema (``dict``) or of a SpecDSL ``TypeRef``.
    ``doc`` is the document local ``$ref``s point into (``#/components/schemas/X``)."""
    if isinstance(schema, TypeRef):
        schema = json_schema(schema)
    got = _Builder(doc).value(schema, (), 0)
    return None if got is _CUT else got


# --------------------------------------------------------------------------- routes


@dataclass(frozen=True)
class Answer:
    """One declared response: its status key as written (``200``, ``4XX``, ``default``),
    the status sent, its headers and body."""

    key: str
    status: int
    description: str = ""
    media: str | None = None  # None: no content
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    example: object = None


@dataclass(frozen=True)
class Route:
    method: str  # upper case
    template: str  # as served: base path included, {params}
    name: str  # operationId, or "METHOD /path"
    answers: tuple[Answer, ...]  # in declared order
    success: Answer
    pattern: re.Pattern = field(compare=False, repr=False)
    params: tuple[str, ...] = ()
    literals: tuple[bool, ...] = ()  # which segments are literal (the more specific wins)

    def declared(self) -> list[str]:
        return [a.key for a in self.answers]


def _compile(template: str) -> tuple[re.Pattern, tuple[str, ...], tuple[bool, ...]]:
    parts: list[str] = []
    params: list[str] = []
    literals: list[bool] = []
    for seg in template.strip("/").split("/") if template != "/" else []:
        out = ""
        pos = 0
        for m in re.finditer(r"\{([^{}/]*)\}", seg):
            out += re.escape(seg[pos:m.start()])
            out += f"(?P<p{len(params)}>[^/]+?)" if m.end() < len(seg) else f"(?P<p{len(params)}>[^/]+)"
            params.append(m.group(1))
            pos = m.end()
        literals.append(pos == 0)
        out += re.escape(seg[pos:])
        parts.append(out)
    return re.compile("^/" + "/".join(parts) + "$"), tuple(params), tuple(literals)


def _status_of(key: str) -> int | None:
    if re.fullmatch(r"[1-5]\d\d", key):
        return int(key)
    if re.fullmatch(r"[1-5]XX", key, re.IGNORECASE):
        return int(key[0]) * 100
    return None


def _media(content: object) -> tuple[str, dict] | None:
    """The media type to answer with: a JSON one first, then text, then the first."""
    if not isinstance(content, dict) or not content:
        return None
    items = [(str(k), v if isinstance(v, dict) else {}) for k, v in content.items()]

    def rank(media: str) -> int:
        mt = media.split(";", 1)[0].strip().lower()
        if mt == JSON_TYPE:
            return 0
        if mt.endswith("+json") or mt == "text/json":
            return 1
        if mt == "*/*":
            return 2
        if mt.startswith("text/"):
            return 3
        return 4

    return min(items, key=lambda kv: rank(kv[0]))


def _deref(doc: object, node: object, limit: int = 16) -> object:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and limit > 0:
        target = resolve_pointer(doc, node["$ref"])
        if target is _CUT:
            return {}
        node, limit = target, limit - 1
    return node


def _media_example(doc: object, media_obj: dict) -> object:
    if "example" in media_obj:
        return media_obj["example"]
    examples = media_obj.get("examples")
    if isinstance(examples, dict):
        for ex in examples.values():
            ex = _deref(doc, ex)
            if isinstance(ex, dict) and "value" in ex:
                return ex["value"]
    return example(media_obj.get("schema", {}), doc)


def _encode(media: str, value: object) -> bytes:
    mt = media.split(";", 1)[0].strip().lower()
    if mt in (JSON_TYPE, "text/json", "*/*") or mt.endswith("+json"):
        return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
    if mt.startswith("text/"):
        return ("" if value is None else value if isinstance(value, str) else json.dumps(value)).encode("utf-8")
    return value.encode("utf-8") if isinstance(value, str) else b""


def _answer(doc: object, key: str, status: int, response: object) -> Answer:
    response = _deref(doc, response)
    if not isinstance(response, dict):
        response = {}
    description = response.get("description") if isinstance(response.get("description"), str) else ""
    headers: list[tuple[str, str]] = []
    declared = response.get("headers")
    if isinstance(declared, dict):
        for name, header in declared.items():
            if str(name).lower() in ("content-type", "content-length", "transfer-encoding", "connection"):
                continue
            header = _deref(doc, header)
            if not isinstance(header, dict):
                continue
            value = header.get("example", example(header.get("schema", {}), doc))
            if value is None:
                continue
            text = json.dumps(value) if not isinstance(value, str) else value
            headers.append((str(name), text.replace("\r", " ").replace("\n", " ")))
    picked = None if status in (204, 205, 304) or status < 200 else _media(response.get("content"))
    if picked is None:
        return Answer(key, status, description, None, b"", tuple(headers))
    media, media_obj = picked
    value = _media_example(doc, media_obj)
    sent = JSON_TYPE if media.strip() == "*/*" else media
    return Answer(key, status, description, sent, _encode(media, value), tuple(headers), value)


def _base(servers: object) -> str:
    """The path part of the first ``servers`` URL (variables at their defaults)."""
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    first = servers[0]
    url = first.get("url")
    if not isinstance(url, str):
        return ""
    variables = first.get("variables") if isinstance(first.get("variables"), dict) else {}
    url = re.sub(r"\{([^{}]*)\}", lambda m: str((variables.get(m.group(1)) or {}).get("default", m.group(0))
                                              if isinstance(variables.get(m.group(1)), dict) else m.group(0)), url)
    url = re.split(r"[?#]", url.strip(), maxsplit=1)[0]
    if "//" in url:
        rest = url.split("//", 1)[1]
        url = rest[rest.find("/"):] if "/" in rest else ""
    url = url.lstrip(".")
    if url.strip("/") == "":
        return ""
    return normalize_path(url)


def _join(base: str, path: str) -> str:
    return normalize_path(base.rstrip("/") + path) if base else normalize_path(path)


def from_openapi(doc: dict) -> "Mock":
    """The mock of an OpenAPI 3.x document given as plain data."""
    routes: list[Route] = []
    doc_base = _base(doc.get("servers"))
    paths = doc.get("paths") if isinstance(doc.get("paths"), dict) else {}
    for raw_path, item in paths.items():
        item = _deref(doc, item)
        if not isinstance(raw_path, str) or not isinstance(item, dict):
            continue
        item_base = _base(item["servers"]) if "servers" in item else doc_base
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            base = _base(op["servers"]) if "servers" in op else item_base
            template = _join(base, raw_path)
            responses = op.get("responses") if isinstance(op.get("responses"), dict) else {}
            answers: list[Answer] = []
            for key, response in responses.items():
                key = str(key)
                status = _status_of(key)
                if status is None and key != "default":
                    continue
                answers.append(_answer(doc, key, status or 200, response))
            success = next((a for a in answers if 200 <= a.status < 300), None)
            if success is None:
                success = next((a for a in answers if a.key == "default"), None)
            if success is None:
                success = Answer("", 204, "no success response declared")
            pattern, params, literals = _compile(template)
            name = op.get("operationId") if isinstance(op.get("operationId"), str) else f"{method.upper()} {template}"
            routes.append(Route(method.upper(), template, name, tuple(answers), success, pattern, params, literals))
    return Mock(tuple(routes), str((doc.get("info") or {}).get("title", "")) if isinstance(doc.get("info"), dict) else "")


# --------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class Loaded:
    """A contract read for the mock: ``mock`` when it can be served, else ``findings``
    (the contract reader's errors) and/or ``error`` (why not)."""

    mock: "Mock | None"
    findings: tuple[Finding, ...] = ()
    error: str = ""
    warnings: tuple[Finding, ...] = ()


def load_mock(path: str, text: str) -> Loaded:
    """A SpecDSL (``*.dsl.json``) or OpenAPI 3.x contract as a ``Mock``. ``path`` decides
    the kind (and JSON or YAML), as for the contract reader."""
    if path.lower().endswith(".dsl.json"):
        spec, findings = load_spec(path, text)
        if spec is None:
            return Loaded(None, findings, f"the contract is not valid ({len(findings)} problem(s))")
        return Loaded(from_openapi(to_openapi(spec)))
    facts = parse_contract(path, text)
    errors = tuple(f for f in facts.findings if f.severity == "error")
    warnings = tuple(f for f in facts.findings if f.severity != "error")
    if facts.format == "swagger":
        return Loaded(None, (), "a Swagger 2.0 document: specward mock reads SpecDSL and OpenAPI 3.x contracts")
    if errors or facts.format != "openapi":
        return Loaded(None, errors or facts.findings, f"the contract is not valid ({len(errors or facts.findings)} problem(s))")
    if not facts.readable:
        return Loaded(None, facts.findings, "the contract cannot be read completely (a path item declared elsewhere?)")
    try:
        # the reader accepted it (no alias bomb, no syntax error): read it again as data
        doc = json.loads(text.lstrip("\ufeff")) if _is_json(path, text) else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        return Loaded(None, (), f"cannot read the document as data: {exc}")
    if not isinstance(doc, dict):
        return Loaded(None, (), "the document is not an object")
    return Loaded(from_openapi(doc), warnings=warnings)



# --------------------------------------------------------------------------- answering


Headers = tuple[tuple[str, str], ...]
CORS: Headers = (("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", "*"))


def _json_body(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


def _lower(headers: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> dict[str, str]:
    pairs = headers.items() if isinstance(headers, Mapping) else (headers or ())
    out: dict[str, str] = {}
    for k, v in pairs:
        key = str(k).lower()
        out[key] = f"{out[key]}, {v}" if key in out else str(v)
    return out


def _query(query: str | Mapping[str, object] | None) -> dict[str, list[str]]:
    if query is None:
        return {}
    if isinstance(query, str):
        return parse_qs(query.lstrip("?"), keep_blank_values=True)
    return {str(k): [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)] for k, v in query.items()}


def asked_status(query: dict[str, list[str]], headers: dict[str, str]) -> str | None:
    """The status a request asks for: ``?__code=404`` first, else ``Prefer: code=404``."""
    if query.get(STATUS_PARAM):
        return query[STATUS_PARAM][0].strip()
    prefer = headers.get("prefer", "")
    for part in re.split(r"[,;]", prefer):
        name, _, value = part.partition("=")
        if name.strip().lower() == "code":
            return value.strip().strip('"')
    return None


@dataclass(frozen=True)
class Mock:
    routes: tuple[Route, ...]
    title: str = ""

    def match(self, path: str) -> list[tuple[Route, dict[str, str]]]:
        """The routes whose template matches ``path`` (most specific first) and their params."""
        path = normalize_path(path) if path else "/"
        found = []
        for r in self.routes:
            m = r.pattern.match(path)
            if m is None:
                continue
            values = {name: unquote(m.group(f"p{i}")) for i, name in enumerate(r.params)}
            found.append((r, values))
        found.sort(key=lambda rv: tuple(not lit for lit in rv[0].literals))
        return found

    def respond(self, method: str, path: str, query: str | Mapping[str, object] | None = None,
                headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> tuple[int, Headers, bytes]:
        """The answer to one request: ``(status, headers, body)``. ``path`` without the
        query string; ``query`` raw (``a=1&b=2``) or a mapping; the body is never read."""
        method = method.upper()
        hdrs = _lower(headers)
        args = _query(query)
        matches = self.match(path)
        # the routes of the most specific template that matches (/users/me before /users/{id})
        best = [(r, v) for r, v in matches if matches and r.literals == matches[0][0].literals]
        allowed = sorted({r.method for r, _ in matches} | ({"HEAD"} if any(r.method == "GET" for r, _ in matches) else set()))
        if method == "OPTIONS" and ("access-control-request-method" in hdrs or not any(r.method == "OPTIONS" for r, _ in matches)):
            return self._preflight(allowed, hdrs)
        if not matches:
            return 404, (*CORS, ("Content-Type", JSON_TYPE)), _json_body(
                {"error": "not found", "message": f"the contract has no endpoint for {path}", "mock": "specward"})
        wanted = method if any(r.method == method for r, _ in best) else (
            "GET" if method == "HEAD" and any(r.method == "GET" for r, _ in best) else None)
        if wanted is None:
            for r, v in matches:  # a less specific template may have the method
                if r.method == method or (method == "HEAD" and r.method == "GET"):
                    wanted, best = r.method, [(r, v)]
                    break
        if wanted is None:
            allow = ", ".join(m for m in allowed if m != "OPTIONS") + ", OPTIONS"
            return 405, (*CORS, ("Allow", allow), ("Content-Type", JSON_TYPE)), _json_body(
                {"error": "method not allowed", "message": f"{path} has no {method} in the contract",
                 "allowed": [m for m in allowed if m != "OPTIONS"], "mock": "specward"})
        route, values = next((r, v) for r, v in best if r.method == wanted)
        asked = asked_status(args, hdrs)
        answer = route.success
        if asked is not None:
            picked = self._pick(route, asked)
            if picked is None:
                return 400, (*CORS, ("Content-Type", JSON_TYPE)), _json_body(
                    {"error": "status not declared",
                     "message": f"{route.method} {route.template} declares no response {asked}",
                     "declared": route.declared(), "mock": "specward"})
            answer = picked
        # a `4XX` or `default` response asked for as 404 is sent as 404
        status = int(asked) if asked is not None and _status_of(answer.key) != int(asked) else answer.status
        body = self._with_params(answer, route, values)
        out: list[tuple[str, str]] = [*CORS, *answer.headers]
        if answer.media is not None and status not in (204, 205, 304):
            out.append(("Content-Type", answer.media if ";" in answer.media or not answer.media.startswith("text/")
                        else f"{answer.media}; charset=utf-8"))
        else:
            body = b""
        return status, tuple(out), body

    @staticmethod
    def _pick(route: Route, asked: str) -> Answer | None:
        if not re.fullmatch(r"[1-5]\d\d", asked):
            return None
        for a in route.answers:
            if a.key == asked:
                return a
        for a in route.answers:
            if a.key.upper() == f"{asked[0]}XX":
                return a
        return next((a for a in route.answers if a.key == "default"), None)

    @staticmethod
    def _with_params(answer: Answer, route: Route, values: dict[str, str]) -> bytes:
        """The body, with top-level fields named like a path parameter set to the value in
        the path (``GET /articles/hello`` answers ``"slug": "hello"``)."""
        ex = answer.example
        if not values or not isinstance(ex, dict) or answer.media is None or not answer.body.startswith(b"{"):
            return answer.body
        changed = dict(ex)
        for name, value in values.items():
            if name in changed and isinstance(changed[name], str):
                changed[name] = value
            elif name in changed and isinstance(changed[name], int) and not isinstance(changed[name], bool) \
                    and re.fullmatch(r"-?\d{1,18}", value):
                changed[name] = int(value)
        return answer.body if changed == ex else _json_body(changed)

    def _preflight(self, allowed: list[str], hdrs: dict[str, str]) -> tuple[int, Headers, bytes]:
        methods = ", ".join(dict.fromkeys([*(allowed or sorted({r.method for r in self.routes})), "OPTIONS"]))
        asked = hdrs.get("access-control-request-headers", "").replace("\r", "").replace("\n", "")
        out: list[tuple[str, str]] = [*CORS, ("Allow", methods), ("Access-Control-Allow-Methods", methods),
                                      ("Access-Control-Max-Age", "600")]
        if asked.strip():
            out.append(("Access-Control-Allow-Headers", asked))  # echoed: `*` does not cover Authorization
        return 204, tuple(out), b""

    def describe(self) -> list[str]:
        """``GET /api/articles -> 200`` per route, for the command's listing."""
        return [f"{r.method} {r.template} -> {r.success.status}" for r in self.routes]
