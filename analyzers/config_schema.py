"""The ``config-schema`` invariant: a configuration file (JSON, YAML or TOML) must validate
against a JSON Schema (the ``jsonschema`` library, the schema's own draft, Draft 2020-12
when it names none). Each error is an ``invariant-violation`` placed at the offending key
(or value), found from the document's own positions: tree-sitter-json for JSON, the YAML
composer's marks, the key's line for TOML.

Pure: the document's text and the schema (plain data) in, findings out.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import yaml
from jsonschema import exceptions as js_exceptions
from jsonschema import validators

from .codes import CODES
from .languages import parse
from .model import Finding, Span

_SHOWN_ERRORS = 20  # per document


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a JSON Schema, or None."""
    if not isinstance(schema, (dict, bool)):
        return "a schema is a JSON object"
    try:
        validators.validator_for(schema).check_schema(schema)
    except js_exceptions.SchemaError as exc:
        return f"not a valid JSON Schema: {exc.message}"
    return None


def check_document(path: str, text: str, schema: Any, rule_id: str, origin: str = "") -> list[Finding]:
    """The findings of one document against ``schema`` (a valid one: ``schema_problem``)."""
    try:
        data, locate = _load(path, text)
    except (ValueError, yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        return [_finding(rule_id, origin, path, Span(0, 0), f"{path} cannot be read as {_kind(path)}: "
                         f"{str(exc).splitlines()[0]}")]
    validator = validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    out = []
    for err in errors[:_SHOWN_ERRORS]:
        where = list(err.absolute_path)
        shown = "/".join(str(p) for p in where) or "the document"
        extra = _unexpected(err)
        if extra:  # at each key the schema does not allow, not at the object holding them
            for key in extra:
                at = "/".join(str(p) for p in [*where, key])
                out.append(_finding(rule_id, origin, path, locate([*where, key]),
                                    f"{at}: the schema does not allow this key ({err.message})"))
            continue
        out.append(_finding(rule_id, origin, path, locate(where), f"{shown}: {err.message}"))
    return sorted(out, key=lambda f: f.span.start)


def _unexpected(err) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about."""
    if err.validator != "additionalProperties" or not isinstance(err.instance, dict) or not isinstance(err.schema, dict):
        return []
    props = err.schema.get("properties") or {}
    patterns = list((err.schema.get("patternProperties") or {}))
    return [k for k in err.instance if k not in props and not any(re.search(p, k) for p in patterns)]


def _finding(rule_id: str, origin: str, path: str, span: Span, message: str) -> Finding:
    return Finding("invariant-violation", CODES["invariant-violation"].severity, f"[{rule_id}] {message}", path, span,
                   (("rule", rule_id), ("origin", origin)))


def _kind(path: str) -> str:
    return "YAML" if path.endswith((".yaml", ".yml")) else "TOML" if path.endswith(".toml") else "JSON"


def _load(path: str, text: str):
    """(data, locate(path parts) -> Span)."""
    kind = _kind(path)
    src = text.encode("utf-8", "surrogatepass")
    if kind == "JSON":
        data = json.loads(text)
        root = parse("json", src, None).root_node
        return data, lambda where: _json_span(root, where)
    if kind == "YAML":
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)

        def locate(where: list) -> Span:
            hit = _yaml_node(node, where)
            if hit is None:
                return Span(0, 0)
            start, end = hit
            return Span(len(text[:start].encode("utf-8", "surrogatepass")), len(text[:end].encode("utf-8", "surrogatepass")))
        return data, locate
    data = tomllib.loads(text)
    return data, lambda where: _toml_span(text, where)


def _json_span(root, where: list) -> Span:
    node = next((c for c in root.named_children), None)
    best = node
    for key in where:
        if node is None:
            break
        nxt = None
        if node.type == "object" and isinstance(key, str):
            for pair in node.named_children:
                k = pair.child_by_field_name("key") if pair.type == "pair" else None
                if k is not None and k.text is not None and json.loads(k.text.decode("utf-8", "replace")) == key:
                    best, nxt = k, pair.child_by_field_name("value")
                    break
        elif node.type == "array" and isinstance(key, int):
            items = [c for c in node.named_children if c.type != "comment"]
            if key < len(items):
                best = nxt = items[key]
        if nxt is None:
            break
        node = nxt
    if best is None:
        return Span(0, 0)
    return Span(best.start_byte, best.end_byte)


def _yaml_node(node, where: list) -> tuple[int, int] | None:
    best = (node.start_mark.index, node.end_mark.index) if node is not None else None
    for key in where:
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if getattr(k, "value", None) == str(key):
                    best, nxt = (k.start_mark.index, k.end_mark.index), v
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            nxt = node.value[key]
            best = (nxt.start_mark.index, nxt.end_mark.index)
        if nxt is None:
            break
        node = nxt
    return best


def _toml_span(text: str, where: list) -> Span:
    for key in reversed([k for k in where if isinstance(k, str)]):
        m = re.search(rf"(?m)^[ \t]*\"?{re.escape(key)}\"?[ \t]*=", text)
        if m:
            start = len(text[: m.start()].encode()) + len(m.group(0)) - len(m.group(0).lstrip())
            return Span(start, start + len(key.encode()))
    return Span(0, 0)
