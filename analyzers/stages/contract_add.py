"""Add the endpoint a phantom call needs to the contract's text, for the slice stage's
"Implement this endpoint" (issue 15, "Slice"; ``docs/stages.md``, "In the editor"). Pure:
the contract's text in, its whole new text out.

- **SpecDSL** (``*.dsl.json``): a new object at the end of ``endpoints`` with the next free
  ``EP-NNN`` id (the width of the ids already there), the path in ``:param`` form, the
  path parameters under ``request.params``, a description saying which file's call it was
  added for, ``successStatus`` 201 for a POST (200 otherwise) and ``errors: []``; in the
  file's own indentation (a one-line file stays one line).
- **OpenAPI / Swagger, JSON or YAML**: an operation under ``paths``, written as text in
  the file's own indentation; merged into the path item that already declares the path
  (any parameter names: ``/notes/{noteId}`` is ``/notes/{id}``) with another method, else
  a new path item after the last one. Every ``{param}`` segment is declared as a path
  parameter (OpenAPI 3 with a ``schema``, Swagger 2.0 with a ``type``). The contract's
  base path (``servers[0].url``'s path, Swagger's ``basePath``) is taken off the call's
  path first.

The text around the insertion is left byte for byte as it was. :class:`ContractAddError`
when the contract cannot take it (not a contract, already declares the endpoint, no
``endpoints`` list or ``paths`` mapping, a flow-style YAML ``paths``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..contracts import parse_contract
from ..contracts.common import path_shape
from ..contracts.positions import MapNode, Node, SeqNode, parse_json, parse_yaml

_BRACED = re.compile(r"\{([^{}/]*)\}")
_COLON = re.compile(r"(?<=/):([A-Za-z_][\w-]*)")
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE")


class ContractAddError(ValueError):
    """The contract cannot take the endpoint; the message says why."""


@dataclass(frozen=True)
class Added:
    text: str  # the contract's whole new text
    method: str
    path: str  # as the contract now declares it: ``{param}`` form, without the base path

    @property
    def endpoint(self) -> str:
        """``"METHOD /path"``, as ``slice_cli.select`` takes it."""
        return f"{self.method} {self.path}"


def call_path(path: str, base_path: str = "") -> str:
    """A call's path as a contract declares it: query and fragment dropped, ``:name`` and
    anonymous ``{}`` segments named ``{name}`` / ``{param}``, the base path taken off."""
    path = re.split(r"[?#]", path.strip(), maxsplit=1)[0] or "/"
    if not path.startswith("/"):
        path = "/" + path
    path = _COLON.sub(lambda m: "{" + m.group(1) + "}", path)
    n = [0]

    def named(m: re.Match) -> str:
        if m.group(1).strip():
            return "{" + m.group(1).strip() + "}"
        n[0] += 1
        return "{param}" if n[0] == 1 else "{param%d}" % n[0]

    path = _BRACED.sub(named, path)
    base = base_path.rstrip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):] or "/"
    return path


def _params(path: str) -> list[str]:
    return [m.group(1) for m in _BRACED.finditer(path)]


def _description(call_file: str) -> str:
    return f"Added by specward for the call in {call_file}"


def _success(method: str) -> int:
    return 201 if method == "POST" else 200


def _line_indent(data: bytes, offset: int) -> str:
    """The whitespace that starts the line ``offset`` is on."""
    start = data.rfind(b"\n", 0, offset) + 1
    line = data[start:offset].decode("utf-8", "replace")
    return line[: len(line) - len(line.lstrip(" \t"))]


def _insert(text: str, at: int, new: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return (data[:at] + new.encode("utf-8", "surrogatepass") + data[at:]).decode("utf-8", "surrogatepass")


def _replace(text: str, start: int, end: int, new: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return (data[:start] + new.encode("utf-8", "surrogatepass") + data[end:]).decode("utf-8", "surrogatepass")


def _base_of(contract, root: Node | None) -> str:
    base = next((ep.base_path for ep in contract.endpoints if ep.base_path), "")
    if base or not isinstance(root, MapNode):
        return base
    from ..contracts.openapi import _compute_base_path

    if "servers" in root:
        return _compute_base_path(root.get("servers"))
    got = root.get("basePath")  # Swagger 2.0
    value = getattr(got, "value", None)
    return value.rstrip("/") if isinstance(value, str) and value.startswith("/") else ""


def add_endpoint(contract_rel: str, text: str, method: str, path: str, call_file: str) -> Added:
    """``text`` (the contract ``contract_rel``) declaring ``method path`` too; ``path`` is the
    call's (``{param}`` or ``:param`` form, with the base path or without)."""
    method = method.upper()
    if method not in _METHODS:
        raise ContractAddError(f"{method}: not an HTTP method a contract declares")
    contract = parse_contract(contract_rel, text)
    if contract.format == "unknown":
        raise ContractAddError(f"{contract_rel}: not a SpecDSL or OpenAPI contract")
    yaml_file = contract.format != "specdsl" and not text.lstrip("\ufeff \t\r\n").startswith("{")
    parsed = parse_yaml(text) if yaml_file else parse_json(text)
    root = parsed.root
    if not isinstance(root, MapNode) or parsed.problems:
        raise ContractAddError(f"{contract_rel}: cannot be read (fix its syntax first)")
    path = call_path(path, _base_of(contract, root))
    shape = path_shape(path)
    if any(ep.method == method and path_shape(ep.path) == shape for ep in contract.endpoints):
        raise ContractAddError(f"{contract_rel} already declares {method} {path}")
    if contract.format == "specdsl":
        return _add_dsl(contract_rel, text, root, method, path, call_file)
    if yaml_file:
        return _add_yaml(contract_rel, text, root, method, path, call_file, swagger="swagger" in root)
    return _add_oas_json(contract_rel, text, root, method, path, call_file, swagger="swagger" in root)


# --------------------------------------------------------------------------- SpecDSL
def _next_id(endpoints: SeqNode) -> str:
    nums, width = [], 3
    for item in endpoints.items:
        got = item.get("id") if isinstance(item, MapNode) else None
        m = re.fullmatch(r"EP-(\d+)", str(getattr(got, "value", "") or ""))
        if m:
            nums.append(int(m.group(1)))
            width = max(width, len(m.group(1)))
    return "EP-" + str(max(nums, default=0) + 1).zfill(width)


def _json_block(value: object, indent: str, unit: str | None) -> str:
    """``value`` as JSON whose lines after the first start with ``indent`` (``unit`` None:
    on one line)."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _unit(data: bytes, inner: int, outer: int) -> str:
    """The file's indentation step: what a line inside a container adds to its opening line."""
    a, b = _line_indent(data, inner), _line_indent(data, outer)
    step = a[len(b):] if a.startswith(b) and len(a) > len(b) else ""
    return step or ("\t" if "\t" in a else "  ")


def _one_line(data: bytes, start: int, end: int) -> bool:
    return b"\n" not in data[start:end]


def _into_seq(text: str, seq: SeqNode, owner_start: int, value: object) -> str:
    """``value`` appended to the JSON array ``seq`` (whose key starts at ``owner_start``)."""
    data = text.encode("utf-8", "surrogatepass")
    if seq.items:
        last = seq.items[-1]
        if _one_line(data, seq.span.start, seq.span.end):
            return _insert(text, last.span.end, ", " + _json_block(value, "", None))
        indent = _line_indent(data, last.span.start)
        unit = _unit(data, last.span.start, owner_start)
        return _insert(text, last.span.end, ",\n" + indent + _json_block(value, indent, unit))
    outer = _line_indent(data, owner_start)
    if _one_line(data, 0, len(data)):
        return _insert(text, seq.span.start + 1, _json_block(value, "", None))
    unit = _unit(data, owner_start, 0) if outer else "  "
    indent = outer + unit
    return _replace(text, seq.span.start, seq.span.end,
                    "[\n" + indent + _json_block(value, indent, unit) + "\n" + outer + "]")


def _add_dsl(rel: str, text: str, root: MapNode, method: str, path: str, call_file: str) -> Added:
    endpoints = root.get("endpoints")
    if not isinstance(endpoints, SeqNode):
        raise ContractAddError(f"{rel}: no `endpoints` list to add to")
    params = _params(path)
    entry: dict[str, object] = {
        "id": _next_id(endpoints), "method": method, "path": _BRACED.sub(lambda m: ":" + m.group(1), path),
        "description": _description(call_file), "auth": False}
    if params:
        entry["request"] = {"params": {p: "string" for p in params}}
    entry.update({"successStatus": _success(method), "successDescription": "Created" if method == "POST" else "OK",
                  "errors": []})
    return Added(_into_seq(text, endpoints, root.key_span("endpoints").start, entry), method, path)


# --------------------------------------------------------------------------- OpenAPI
def _existing_path(paths: MapNode, path: str) -> tuple[str, object, Node] | None:
    shape = path_shape(path)
    for key, key_span, value in paths.items():
        if path_shape(key) == shape:
            return key, key_span, value
    return None


def _operation(method: str, path: str, call_file: str, swagger: bool) -> dict:
    op: dict[str, object] = {"summary": _description(call_file)}
    params = _params(path)
    if params:
        typed = {"type": "string"} if swagger else {"schema": {"type": "string"}}
        op["parameters"] = [{"name": p, "in": "path", "required": True, **typed} for p in params]
    status = str(_success(method))
    op["responses"] = {status: {"description": "Created" if method == "POST" else "OK"}}
    return op


def _into_map(text: str, mapping: MapNode, owner_start: int, key: str, value: object) -> str:
    """``"key": value`` added at the end of the JSON object ``mapping``."""
    data = text.encode("utf-8", "surrogatepass")
    pair = json.dumps(key, ensure_ascii=False) + ": "
    if mapping.entries:
        _, key_span, last = mapping.entries[-1]
        if _one_line(data, mapping.span.start, mapping.span.end):
            return _insert(text, last.span.end, ", " + pair + _json_block(value, "", None))
        indent = _line_indent(data, key_span.start)
        unit = _unit(data, key_span.start, owner_start)
        return _insert(text, last.span.end, ",\n" + indent + pair + _json_block(value, indent, unit))
    outer = _line_indent(data, owner_start)
    if _one_line(data, 0, len(data)):
        return _insert(text, mapping.span.start + 1, pair + _json_block(value, "", None))
    unit = _unit(data, owner_start, 0) if outer else "  "
    indent = outer + unit
    return _replace(text, mapping.span.start, mapping.span.end,
                    "{\n" + indent + pair + _json_block(value, indent, unit) + "\n" + outer + "}")


def _add_oas_json(rel: str, text: str, root: MapNode, method: str, path: str, call_file: str,
                  swagger: bool) -> Added:
    paths = root.get("paths")
    if not isinstance(paths, MapNode):
        raise ContractAddError(f"{rel}: no `paths` object to add to")
    found = _existing_path(paths, path)
    if found is not None and isinstance(found[2], MapNode):
        key, key_span, item = found
        op = _operation(method, key, call_file, swagger)
        return Added(_into_map(text, item, key_span.start, method.lower(), op), method, key)
    op = _operation(method, path, call_file, swagger)
    return Added(_into_map(text, paths, root.key_span("paths").start, path, {method.lower(): op}), method, path)


def _yaml_lines(value: object, indent: str, step: str) -> list[str]:
    """A block-style YAML rendering of plain data (strings double-quoted as JSON, which is
    YAML too)."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            key = json.dumps(k) if not re.fullmatch(r"[A-Za-z_/][\w/{}.-]*", k) else k
            if isinstance(v, (dict, list)) and v:
                out.append(f"{indent}{key}:")
                out += _yaml_lines(v, indent + step, step)
            else:
                out.append(f"{indent}{key}: {_yaml_scalar(v)}")
    elif isinstance(value, list):
        for item in value:
            inner = _yaml_lines(item, indent + "  ", step)
            out.append(f"{indent}- {inner[0].lstrip()}")
            out += inner[1:]
    return out


def _yaml_scalar(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if v == {}:
        return "{}"
    s = str(v)
    plain = re.fullmatch(r"[A-Za-z][\w ./()-]*", s) and s.lower() not in _YAML_WORDS and not s.endswith(" ")
    return s if plain else json.dumps(s, ensure_ascii=False)


_YAML_WORDS = ("true", "false", "yes", "no", "on", "off", "null", "y", "n")


def _yaml_step(data: bytes, paths: MapNode, paths_key_start: int) -> tuple[str, str]:
    """(the indentation of ``paths``' keys, the file's step)."""
    for _, key_span, item in paths.entries:
        indent = _line_indent(data, key_span.start)
        if isinstance(item, MapNode) and item.entries:
            inner = _line_indent(data, item.entries[0][1].start)
            if inner.startswith(indent) and len(inner) > len(indent):
                return indent, inner[len(indent):]
        outer = _line_indent(data, paths_key_start)
        step = indent[len(outer):] if indent.startswith(outer) and len(indent) > len(outer) else "  "
        return indent, step
    outer = _line_indent(data, paths_key_start)
    return outer + "  ", "  "


def _end_of(data: bytes, node: Node) -> int:
    """After the node's last non-blank character (a block mapping's end mark can sit at the
    start of the next key)."""
    return len(data[: node.span.end].rstrip())


def _add_yaml(rel: str, text: str, root: MapNode, method: str, path: str, call_file: str, swagger: bool) -> Added:
    paths = root.get("paths")
    data = text.encode("utf-8", "surrogatepass")
    if not isinstance(paths, MapNode):
        raise ContractAddError(f"{rel}: no `paths` mapping to add to")
    flow = data[paths.span.start:paths.span.start + 1] == b"{"
    if flow and paths.entries:
        raise ContractAddError(f"{rel}: its `paths` is written in flow style ({{...}}): add the endpoint by hand")
    indent, step = _yaml_step(data, paths, root.key_span("paths").start)
    found = None if flow else _existing_path(paths, path)
    if found is not None and isinstance(found[2], MapNode) and found[2].entries:
        key, key_span, item = found
        op_indent = _line_indent(data, item.entries[0][1].start)
        lines = [f"{op_indent}{method.lower()}:", *_yaml_lines(_operation(method, key, call_file, swagger),
                                                                op_indent + step, step)]
        return Added(_insert(text, _end_of(data, item), "\n" + "\n".join(lines)), method, key)
    lines = [f"{indent}{path}:", f"{indent}{step}{method.lower()}:",
             *_yaml_lines(_operation(method, path, call_file, swagger), indent + step * 2, step)]
    if flow:  # ``paths: {}``: a block mapping instead
        return Added(_replace(text, paths.span.start, paths.span.end, "\n" + "\n".join(lines)), method, path)
    return Added(_insert(text, _end_of(data, paths), "\n" + "\n".join(lines)), method, path)
