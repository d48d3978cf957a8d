"""API contracts: SpecDSL (``*.dsl.json``), OpenAPI 3.0/3.1 and Swagger 2.0, read with
positions.

``parse_contract(path, text)`` never raises: every problem is a ``contract-invalid``
finding placed on the key or value that is wrong, and an invalid entry costs only that
entry: every valid endpoint of the file is still returned.

Format detection: ``*.dsl.json`` is SpecDSL; otherwise a document whose top level has an
``openapi`` key is OpenAPI 3 (``openapi.py``), one with a ``swagger`` key is Swagger 2.0
(``swagger.py``; both built on ``oas.py``); anything else is format ``unknown`` with one
finding. Files ending in ``.json`` (or whose text starts
with ``{``/``[`` when the extension says neither JSON nor YAML) are read as JSON with
tree-sitter, everything else as YAML.

When JSON has syntax errors, the findings are the syntax errors only, but endpoints and
models are still read from the part of the document tree-sitter could recover (so a
contract being edited does not make every call a phantom). YAML errors stop reading.
``Endpoint.details`` values are frozen (dicts become tuples of pairs, lists tuples) so
facts stay hashable.

Hostile input (``tests/reliability/test_hostile_contracts.py``): nesting deeper than
``positions.MAX_DEPTH`` and YAML alias bombs are syntax errors; ``$ref`` chains and loops
of any length cost linear time; a ``$ref`` to another file or a URL is never followed
(the core reads nothing) and is reported as a warning; a path item declared elsewhere
makes the contract judge no call (``readable=False``), as does an empty file.
"""

from __future__ import annotations

import re

from ..model import ContractFacts, Finding, Span
from .common import CODE, Sink, normalize_path, path_shape, scalar_str
from .positions import MapNode, Parsed, ScalarNode, SeqNode, kind, parse_json, parse_yaml

__all__ = ["parse_contract", "normalize_path", "path_shape"]


def parse_contract(path: str, text: str) -> ContractFacts:
    fmt = "specdsl" if path.lower().endswith(".dsl.json") else "unknown"
    try:
        return _parse(path, text, fmt)
    except RecursionError:
        why = "the document is nested too deeply"
    except Exception as exc:  # noqa: BLE001 - never raise on any input
        why = f"{type(exc).__name__}: {exc}"
    finding = Finding(CODE, "error", f"internal error while reading the contract: {why}", path, Span(0, 0))
    return ContractFacts(path, fmt, findings=(finding,), readable=False)  # type: ignore[arg-type]


def _is_json(path: str, text: str) -> bool:
    lower = path.lower()
    if lower.endswith(".json"):
        return True
    if lower.endswith((".yaml", ".yml")):
        return False
    return text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _parse(path: str, text: str, fmt: str) -> ContractFacts:
    sink = Sink(path)
    data = text.encode("utf-8", "surrogatepass")
    if not text.strip("\ufeff \t\r\n"):
        # nothing declared yet (a contract being written): it judges no call
        sink.add("the contract file is empty", Span(0, 0))
        return ContractFacts(path, fmt, findings=sink.sorted(), readable=False)  # type: ignore[arg-type]
    if not text.isascii() and _SURROGATE.search(text):
        # text that is not Unicode (an editor buffer can carry lone surrogates; files are
        # decoded strictly): each becomes U+FFFD, three UTF-8 bytes like its surrogatepass
        # encoding, so every offset of ``data`` still holds
        bad = _SURROGATE.search(text)
        at = len(text[: bad.start()].encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
        sink.add(f"the contract text is not valid Unicode: a lone surrogate (U+{ord(bad.group()):04X}) "  # type: ignore[union-attr]
                 "here, read as U+FFFD", Span(at, at + 3))
        text = _SURROGATE.sub("\ufffd", text)

    parsed: Parsed = parse_json(text) if _is_json(path, text) else parse_yaml(text)
    root = parsed.root
    if root is None:
        for p in parsed.problems:
            sink.add(p.message, p.span)
        if not parsed.problems:
            sink.add("the contract file holds no document", Span(0, 0))
        return ContractFacts(path, fmt, findings=sink.sorted(), readable=False)  # type: ignore[arg-type]

    endpoints: tuple = ()
    models: tuple = ()
    if fmt == "specdsl":
        from . import dsl

        endpoints, models = dsl.parse(path, root, data, sink)
    elif isinstance(root, MapNode) and "openapi" in root:
        from . import openapi

        fmt = "openapi"
        endpoints, models = openapi.parse(path, root, data, sink)
    elif isinstance(root, MapNode) and "swagger" in root:
        from . import swagger

        fmt = "swagger"
        endpoints, models = swagger.parse(path, root, data, sink)
    elif isinstance(root, MapNode):
        sink.add(
            "not an API contract: expected a top-level `openapi` key (OpenAPI 3.x) or `swagger` key "
            "(Swagger 2.0), or a SpecDSL file named `*.dsl.json`",
            root.open_span,
        )
    else:
        opening = root.open_span if isinstance(root, SeqNode) else root.span
        sink.add(f"not an API contract: the document must be an object, got {kind(root)}", opening)

    for p in parsed.duplicates:
        sink.add(p.message, p.span)
    if parsed.problems:  # the tree was recovered from broken JSON: only syntax errors are reliable
        sink = _only(sink, parsed)
    # a recovered tree may lack any part of the document: it matches calls, judges none
    readable = not parsed.problems and not sink.incomplete
    return ContractFacts(path, fmt, endpoints, models, sink.sorted(), readable=readable,  # type: ignore[arg-type]
                         hosts=_hosts(root) if isinstance(root, MapNode) else ())


_VARIABLE = re.compile(r"\{([^{}]*)\}")


def _hosts(root: MapNode) -> tuple[str, ...]:
    """The hosts of OpenAPI ``servers`` (variables at their defaults) and of Swagger ``host``."""
    found: list[str] = []
    servers = root.get("servers")
    for server in servers.items if isinstance(servers, SeqNode) else ():
        if not isinstance(server, MapNode):
            continue
        url = scalar_str(server.get("url")) or ""
        defaults: dict[str, str] = {}
        variables = server.get("variables")
        if isinstance(variables, MapNode):
            for name, _, var in variables.items():
                d = var.get("default") if isinstance(var, MapNode) else None
                if isinstance(d, ScalarNode) and d.value is not None:
                    defaults[name] = str(d.value)
        url = _VARIABLE.sub(lambda m: defaults.get(m.group(1), m.group(0)), url.strip())
        m = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://([^/?#]+)", url)
        if m and "{" not in m.group(1):
            found.append(m.group(1).lower())
    host = scalar_str(root.get("host"))
    if host:
        found.append(host.strip().lower())
    return tuple(dict.fromkeys(found))


def _only(sink: Sink, parsed: Parsed) -> Sink:
    fresh = Sink(sink.path)
    for p in parsed.problems:
        fresh.add(p.message, p.span)
    return fresh
