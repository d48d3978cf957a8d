"""The request and response schemas of an endpoint as markdown lines for its hover card
(``Endpoint.schemas``): the request body's fields with their types and required marks
(nested objects one level down), the query parameters, the success response's fields.

Pure and bounded: at most ``MAX_FIELDS`` field lines per section (``MAX_NESTED`` under one
field), then "… and N more".
"""

from __future__ import annotations

from .model import ParamSpec, Prop, Schemas, Shape

MAX_FIELDS = 20
MAX_NESTED = 6
_PLAIN_TEXTS = ("", "object", "body", "form")  # names that say nothing beyond the shape's type


def _type(shape: Shape) -> str:
    return shape.text or shape.type


def _head(title: str, shape: Shape, extra: str = "") -> str:
    head = f"**{title}**"
    if extra:
        head += f" ({extra})"
    if shape.text not in _PLAIN_TEXTS:
        head += f" · `{shape.text}`"
    elif shape.type not in ("object", "any"):
        head += f" · {shape.type}"
    if shape.closed:
        head += " · no other field allowed"
    elif shape.open and shape.props:
        head += " · other fields allowed"
    return head


def _object_of(shape: Shape) -> Shape | None:
    """The object whose fields stand for ``shape``: itself, or an array's items."""
    if shape.type == "object":
        return shape
    if shape.type == "array" and shape.items is not None and shape.items.type == "object":
        return shape.items
    return None


def _shown(shape: Shape, request: bool) -> list[Prop]:
    """What a request sends (read-only fields left out) or a response holds (write-only ones
    left out)."""
    return [p for p in shape.props if not (p.read_only if request else p.write_only)]


def _field(p: Prop, request: bool, indent: str = "") -> str:
    line = f"{indent}- `{p.name}` {_type(p.shape)}"
    if request and p.required:
        line += ", required"
    return line


def _nested(p: Prop, request: bool) -> list[str]:
    inner = _object_of(p.shape)
    if inner is None:
        return []
    props = _shown(inner, request)
    lines = [_field(q, request, "  ") for q in props[:MAX_NESTED]]
    if len(props) > MAX_NESTED:
        lines.append(f"  - … and {len(props) - MAX_NESTED} more")
    return lines


def _fields(shape: Shape, request: bool) -> list[str]:
    """One line per field of ``shape`` (an object, an array's items, each branch of a union),
    bounded."""
    entries: list[list[str]] = []
    if shape.type == "union":
        for b in shape.branches:
            inner = _object_of(b)
            entry = [f"- one of `{_type(b)}`"]
            if inner is not None:
                props = _shown(inner, request)
                entry += [_field(q, request, "  ") for q in props[:MAX_NESTED]]
                if len(props) > MAX_NESTED:
                    entry.append(f"  - … and {len(props) - MAX_NESTED} more")
            entries.append(entry)
    else:
        inner = _object_of(shape)
        for p in _shown(inner, request) if inner is not None else ():
            entries.append([_field(p, request), *_nested(p, request)])
    lines: list[str] = []
    for i, entry in enumerate(entries):
        if len(lines) + len(entry) > MAX_FIELDS:
            if lines:
                lines.append(f"- … and {len(entries) - i} more")
                break
            entry = entry[:MAX_FIELDS]
        lines += entry
    return lines


def _param(p: ParamSpec) -> str:
    return f"- `{p.name}` {p.type}" + (", required" if p.required else "")


def schema_lines(schemas: Schemas) -> list[str]:
    """Markdown lines: "Request body (application/json)" and its fields, "Query
    parameters", "Response 200" and its fields; sections separated by an empty line. Nothing
    for what is not declared."""
    sections: list[list[str]] = []
    if schemas.body is not None:
        extra = ", ".join(x for x in (schemas.body_media, "required" if schemas.body_required else "",
                                      schemas.source if schemas.source in ("pydantic", "dto") else "") if x)
        sections.append([_head("Request body", schemas.body, extra), *_fields(schemas.body, True)])
    query = [p for p in schemas.params if p.location == "query"]
    if query:
        lines = [_param(p) for p in query[:MAX_FIELDS]]
        if len(query) > MAX_FIELDS:
            lines.append(f"- … and {len(query) - MAX_FIELDS} more")
        sections.append(["**Query parameters**", *lines])
    if schemas.response is not None:
        title = f"Response {schemas.response_status}" if schemas.response_status else "Response"
        sections.append([_head(title, schemas.response), *_fields(schemas.response, False)])
    out: list[str] = []
    for s in sections:
        if out:
            out.append("")
        out += s
    return out
