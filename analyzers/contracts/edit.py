"""Edits to contract files: add an endpoint where it belongs, in the file's own style
(indentation, key order of its neighbours; Swagger 2.0 or OpenAPI 3 parameters). Pure:
text in, (span, new text) out."""

from __future__ import annotations

import json
import re

from ..model import Span
from .positions import MapNode, SeqNode, parse_json, parse_yaml

_PARAM = re.compile(r"\{([^{}/]*)\}")


def _indent_at(data: bytes, offset: int) -> str:
    line_start = data.rfind(b"\n", 0, offset) + 1
    prefix = data[line_start:offset].decode("utf-8", "replace")
    return prefix if not prefix.strip() else re.match(r"\s*", prefix).group(0)


def add_endpoint(file: str, text: str, method: str, path: str, base_path: str = "") -> tuple[Span, str] | None:
    """Where and what to insert so the contract declares ``method path`` (``path`` in
    ``{param}`` form, with the call's base; the contract's ``base_path`` is taken off)."""
    if base_path and path.startswith(base_path.rstrip("/") + "/"):
        path = path[len(base_path.rstrip("/")):]
    if file.endswith(".dsl.json"):
        return _add_dsl(text, method, path)
    if file.endswith((".yaml", ".yml")):
        return _add_openapi_yaml(text, method, path)
    return None


def _add_dsl(text: str, method: str, path: str) -> tuple[Span, str] | None:
    parsed = parse_json(text)
    root = parsed.root
    if not isinstance(root, MapNode):
        return None
    endpoints = root.get("endpoints")
    if not isinstance(endpoints, SeqNode):
        return None
    ids = [m.group(1) for m in re.finditer(r'"id"\s*:\s*"EP-(\d+)"', text)]
    width = max((len(i) for i in ids), default=3)
    next_id = "EP-" + str(max((int(i) for i in ids), default=0) + 1).zfill(width)
    entry = {
        "id": next_id, "method": method, "path": _PARAM.sub(lambda m: ":" + (m.group(1) or "param"), path),
        "description": "TODO: describe this endpoint", "auth": False,
        "request": {"params": {m.group(1): "string" for m in _PARAM.finditer(path)}} if "{" in path else {},
        "successStatus": 201 if method == "POST" else 200, "successDescription": "TODO", "errors": [],
    }
    data = text.encode("utf-8")
    if endpoints.items:
        last = endpoints.items[-1]
        indent = _indent_at(data, last.span.start)
        body = json.dumps(entry, indent=2 if len(indent) <= 4 else len(indent) // 2, ensure_ascii=False)
        body = body.replace("\n", "\n" + indent)
        return Span(last.span.end, last.span.end), ",\n" + indent + body
    indent = _indent_at(data, endpoints.span.start) + "  "
    body = json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
    return Span(endpoints.span.start + 1, endpoints.span.start + 1), "\n" + indent + body + "\n" + indent[:-2]


def _add_openapi_yaml(text: str, method: str, path: str) -> tuple[Span, str] | None:
    parsed = parse_yaml(text)
    root = parsed.root
    if not isinstance(root, MapNode):
        return None
    paths = root.get("paths")
    if not isinstance(paths, MapNode) or not paths.entries:
        return None
    data = text.encode("utf-8")
    key, key_span, value = paths.entries[-1]
    indent = _indent_at(data, key_span.start)
    step = indent or "  "
    params = [m.group(1) or "param" for m in _PARAM.finditer(path)]
    lines = [f"{indent}{path}:", f"{indent}{step}{method.lower()}:", f"{indent}{step * 2}summary: TODO describe this endpoint"]
    if params:
        lines.append(f"{indent}{step * 2}parameters:")
        # Swagger 2.0 gives a path parameter its type directly, OpenAPI 3 through a schema
        typed = ["  type: string"] if "swagger" in root else ["  schema:", "    type: string"]
        for p in params:
            lines += [f"{indent}{step * 3}- name: {p}", f"{indent}{step * 3}  in: path",
                      f"{indent}{step * 3}  required: true"] + [f"{indent}{step * 3}{t}" for t in typed]
    lines += [f"{indent}{step * 2}responses:", f'{indent}{step * 3}"200":', f"{indent}{step * 4}description: OK"]
    # after the last path item's last non-blank character (a block mapping's end mark can
    # sit at the start of the next top-level key)
    at = len(data[: value.span.end].rstrip())
    return Span(at, at), "\n" + "\n".join(lines)
