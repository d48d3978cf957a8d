"""Where a generated file came from, and whether that is still what the contract says.

A file specward generates records its **provenance**: the contract file and the element
ids (``contract_diff``: ``POST /notes``, ``model Note``) it was generated from, each with
the hash of the element's canonical view at the time. Two places may hold it:

- a **header comment** in the file's first ``HEADER_LINES`` lines, one line::

      // specward-generated: contract=specs/notes.dsl.json elements="POST /notes=sha256:1a2b3c4d5e6f7a8b; model Note=sha256:9c8d7e6f5a4b3c2d"

  in any of the comment styles ``//``, ``#``, ``--``, ``/* ... */``, ``<!-- ... -->``;
  ``key=value`` pairs, a value with spaces in double quotes; ``contract`` (relative to the
  workspace root, posix) and ``elements`` (``ID=HASH`` items separated by ``;``) are
  required, other keys are ignored (room for a generator's name or version). A hash is
  ``sha256:`` and at least 8 of its hex digits (``render_header`` writes 16);
- an entry of ``.specward/generated.json`` (``parse_manifest``), for files that cannot
  hold a comment or should not: the same facts, full hashes, and optionally each
  element's ``snapshot``, its canonical view when generated, which lets
  ``stale_generated`` say what changed field by field.

``stale_generated`` compares a provenance with the current ``ContractFacts`` of its
contract and returns ``stale-generated`` warnings, at the header (at the start of the file
for a ``generated.json`` entry), one per element that changed or went away, each with the
one-line summary of the change when the element's old view is known (a snapshot, or the
``recall`` callable: views of earlier versions the caller has seen), or one when the
contract does not exist or cannot be read. Pure, never raises on any input
(``docs/impact.md``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from .contract_diff import MODEL_PREFIX, View, Views, canonical, comparable, diff_views, hash_matches, summarize
from .contracts.common import describe_loc, locate
from .contracts.positions import MapNode, kind, parse_json, to_plain
from .model import HTTP_METHODS, ContractFacts, Finding, Span

CODE = "stale-generated"
MARKER = "specward-generated:"
MANIFEST = ".specward/generated.json"
HEADER_LINES = 5  # a shebang, "use client", an encoding line may come first
HEAD_CHARS = 4096  # how much of a file the cheap check reads
SHORT_HASH = 16  # hex digits of a hash in a header

_OPENERS = ("//", "#", "--", "/*", "<!--")
_CLOSERS = ("*/", "-->")
_PAIR = re.compile(r'\s*([A-Za-z][\w-]*)=(?:"([^"]*)"|(\S+))')
_HASH = re.compile(r"^sha256:[0-9a-f]{8,64}$")
_ELEMENT = re.compile(r"^(?:model \S.*|[A-Z]+ /\S*)$")


@dataclass(frozen=True)
class Element:
    """One element a file was generated from: its id, its hash then, and (optionally) its
    canonical view then, as canonical JSON."""

    id: str
    hash: str
    snapshot: str | None = None


@dataclass(frozen=True)
class Provenance:
    file: str
    contract: str
    elements: tuple[Element, ...]
    span: Span  # the header line; Span(0, 0) for a generated.json entry
    source: Literal["header", "manifest"] = "header"


@dataclass(frozen=True)
class Manifest:
    """``.specward/generated.json`` read: its entries by file, and what is wrong in it."""

    entries: Mapping[str, Provenance] = field(default_factory=dict)
    problems: tuple[Finding, ...] = ()


def _problem(file: str, span: Span, message: str) -> Finding:
    return Finding(CODE, "warning", message, file, span)


def _bytes(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8", "surrogatepass"))


def valid_element(element: str) -> str | None:
    """Why ``element`` is not an element id, or None."""
    if not _ELEMENT.match(element):
        return f"`{element}` is not an element id (`METHOD /path` or `model Name`)"
    if not element.startswith(MODEL_PREFIX) and element.split(" ", 1)[0] not in HTTP_METHODS:
        return f"`{element}`: unknown HTTP method"
    return None


# ---------------------------------------------------------------------------- header


def has_header(text: str) -> bool:
    """The cheap test: may the file's first lines hold a provenance header?"""
    return MARKER in text[:HEAD_CHARS]


def find_header(path: str, text: str) -> Provenance | Finding | None:
    """The provenance header of a file: a ``Provenance``, a ``stale-generated`` finding on a
    header that cannot be read, or None when the first lines hold none."""
    if not has_header(text):
        return None
    offset = 0
    for line in text[:HEAD_CHARS].splitlines(keepends=True)[:HEADER_LINES]:
        body = line.rstrip("\r\n")
        stripped = body.lstrip()
        opener = next((o for o in _OPENERS if stripped.startswith(o)), None)
        if opener is not None:
            rest = stripped[len(opener):].lstrip("!*/#- \t")
            if rest.startswith(MARKER):
                lead = len(body) - len(stripped)
                span = Span(_bytes(text, offset + lead), _bytes(text, offset + len(body)))
                return _read_header(path, rest[len(MARKER):], span)
        offset += len(line)
    return None


def _read_header(path: str, rest: str, span: Span) -> Provenance | Finding:
    rest = rest.rstrip()
    for closer in _CLOSERS:
        if rest.endswith(closer):
            rest = rest[: -len(closer)].rstrip()
    pairs: dict[str, str] = {}
    at = 0
    while at < len(rest):
        m = _PAIR.match(rest, at)
        if m is None:
            if not rest[at:].strip():
                break
            return _problem(path, span, f"the specward-generated header cannot be read: expected key=value at "
                                        f"`{rest[at:].strip()[:40]}`; this file is not checked against its contract")
        pairs.setdefault(m.group(1), m.group(2) if m.group(2) is not None else m.group(3))
        at = m.end()
    missing = [k for k in ("contract", "elements") if not pairs.get(k, "").strip()]
    if missing:
        return _problem(path, span, f"the specward-generated header has no {' and no '.join(missing)}; "
                                    "this file is not checked against its contract")
    elements: list[Element] = []
    for item in pairs["elements"].split(";"):
        item = item.strip()
        if not item:
            continue
        element, eq, digest = item.rpartition("=")
        why = "expected ID=sha256:HASH" if not eq else valid_element(element.strip())
        if why is None and not _HASH.match(digest.strip().lower()):
            why = f"`{digest}` is not a hash (sha256: and at least 8 hex digits)"
        if why is not None:
            return _problem(path, span, f"the specward-generated header cannot be read: element `{item}`: {why}")
        elements.append(Element(element.strip(), digest.strip().lower()))
    if not elements:
        return _problem(path, span, "the specward-generated header names no element; "
                                    "this file is not checked against its contract")
    return Provenance(path, pairs["contract"].strip(), tuple(elements), span, "header")


def render_header(contract: str, elements: Sequence[tuple[str, str]], comment: str = "//") -> str:
    """The header line a generator writes (no newline): ``elements`` are (id, hash) pairs
    (``contract_diff.element_hash``), written with ``SHORT_HASH`` hex digits. ``comment``
    is one of ``//``, ``#``, ``--``, ``/*``, ``<!--``. Raises ``ValueError`` for what
    cannot be written (a contract path with a space or a quote, an id with ``;``)."""
    if comment not in _OPENERS:
        raise ValueError(f"unknown comment style {comment!r}")
    if not contract or any(c in contract for c in ' "\t\n'):
        raise ValueError(f"contract path {contract!r} cannot be written in a header")
    items = []
    for element, digest in elements:
        why = valid_element(element)
        if why is not None or any(c in element for c in ';"\n'):
            raise ValueError(why or f"element id {element!r} cannot be written in a header")
        if not _HASH.match(digest):
            raise ValueError(f"{digest!r} is not a hash")
        items.append(f"{element}={digest[: len('sha256:') + SHORT_HASH]}")
    line = f'{comment} {MARKER} contract={contract} elements="{"; ".join(items)}"'
    closer = {"/*": " */", "<!--": " -->"}.get(comment, "")
    return line + closer


def elements_of(facts: ContractFacts, ids: Iterable[str], snapshot: bool = False) -> tuple[Element, ...]:
    """The ``Element`` records of a generation from ``facts`` (hashes, and snapshots when
    asked for); raises ``KeyError`` for an id the contract does not have."""
    views = Views(facts)
    out = []
    for element in ids:
        view = views.view(element)
        if view is None:
            raise KeyError(element)
        out.append(Element(element, views.hash(element) or "", canonical(view) if snapshot else None))
    return tuple(out)


# ---------------------------------------------------------------------------- generated.json


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _ElementEntry(_Strict):
    id: str
    hash: str
    snapshot: dict[str, Any] | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        why = valid_element(v)
        if why is not None:
            raise ValueError(why)
        return v

    @field_validator("hash")
    @classmethod
    def _hash(cls, v: str) -> str:
        if not _HASH.match(v.strip().lower()):
            raise ValueError(f"`{v}` is not a hash (sha256: and at least 8 hex digits)")
        return v.strip().lower()


class _FileEntry(_Strict):
    contract: str
    elements: list[_ElementEntry]

    @field_validator("contract")
    @classmethod
    def _contract(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must name the contract file")
        return v.strip()

    @field_validator("elements")
    @classmethod
    def _elements(cls, v: list) -> list:
        if not v:
            raise ValueError("must name at least one element")
        return v


class _Top(_Strict):
    version: Literal[1]
    files: dict[str, Any]


def _message(err: dict) -> str:
    if err["type"] == "missing":
        return f"missing required key `{err['loc'][-1]}`"
    if err["type"] == "extra_forbidden":
        return "unknown key"
    if err["type"] == "literal_error":
        return "must be 1"
    msg = str(err["msg"])
    return msg.removeprefix("Value error, ")


def _bad_file_key(key: str) -> str | None:
    if not key or key.startswith("/") or "\\" in key or any(p in ("..", ".", "") for p in key.split("/")):
        return "a file must be a workspace-relative posix path without `.` or `..` parts"
    return None


def parse_manifest(text: str, path: str = MANIFEST) -> Manifest:
    """Read ``.specward/generated.json``; every problem is a ``stale-generated`` warning on
    the key or value at fault, and a broken entry costs only that entry. Never raises."""
    try:
        return _parse_manifest(text, path)
    except RecursionError:
        why = "the document is nested too deeply"
    except Exception as exc:  # noqa: BLE001 - never raise on any input
        why = f"{type(exc).__name__}: {exc}"
    return Manifest({}, (_problem(path, Span(0, 0), f"{path} cannot be read: {why}"),))


def _parse_manifest(text: str, path: str) -> Manifest:
    if not text.strip():
        return Manifest()
    parsed = parse_json(text)
    problems = [_problem(path, p.span, f"{path} is not valid JSON: {p.message}") for p in parsed.problems]
    root = parsed.root
    if problems or root is None:
        return Manifest({}, tuple(problems) or (_problem(path, Span(0, 0), f"{path} holds no JSON document"),))
    if not isinstance(root, MapNode):
        return Manifest({}, (_problem(path, root.span, f"{path} must hold an object, got {kind(root)}"),))
    skeleton = {k: ({} if k == "files" and isinstance(v, MapNode) else to_plain(v)) for k, _, v in root.items()}
    try:
        _Top.model_validate(skeleton)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            span = locate(root, loc, missing=err["type"] == "missing")
            problems.append(_problem(path, span, f"{path}: {describe_loc(loc)}: {_message(err)}"))
    files = root.get("files")
    entries: dict[str, Provenance] = {}
    if isinstance(files, MapNode):
        for key, key_span, node in files.items():
            bad = _bad_file_key(key)
            if bad is not None:
                problems.append(_problem(path, key_span, f"{path}: files.{key}: {bad}"))
                continue
            try:
                entry = _FileEntry.model_validate(to_plain(node))
            except ValidationError as exc:
                for err in exc.errors(include_url=False):
                    loc = ("files", key, *err["loc"])
                    span = locate(root, loc, missing=err["type"] == "missing")
                    problems.append(_problem(path, span, f"{path}: {describe_loc(loc)}: {_message(err)}"))
                continue
            elements = tuple(Element(e.id, e.hash, canonical(e.snapshot) if e.snapshot is not None else None)
                             for e in entry.elements)
            entries[key] = Provenance(key, entry.contract, elements, Span(0, 0), "manifest")
    return Manifest(entries, tuple(sorted(problems, key=lambda f: (f.span.start, f.message))))


def render_manifest(entries: Iterable[Provenance]) -> str:
    """``.specward/generated.json`` for these provenances (sorted, two-space indent, a final
    newline): what a generator writes."""
    files: dict[str, object] = {}
    for p in sorted(entries, key=lambda p: p.file):
        elements = []
        for e in p.elements:
            item: dict[str, object] = {"id": e.id, "hash": e.hash}
            if e.snapshot is not None:
                item["snapshot"] = json.loads(e.snapshot)
            elements.append(item)
        files[p.file] = {"contract": p.contract, "elements": elements}
    return json.dumps({"version": 1, "files": files}, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------- staleness

Recall = Callable[[str], "View | None"]  # an element's view by a (recorded) hash, when known


def _old_view(element: Element, recall: Recall | None) -> View | None:
    if element.snapshot is not None:
        try:
            view = json.loads(element.snapshot)
        except ValueError:
            view = None
        if isinstance(view, dict):
            return view
    return recall(element.hash) if recall is not None else None


def stale_generated(prov: Provenance, contract: ContractFacts | None, *, recall: Recall | None = None,
                    missing: str = "does not exist") -> tuple[Finding, ...]:
    """The ``stale-generated`` findings of one generated file: ``contract`` is the current
    facts of ``prov.contract`` (None when there is no such contract: ``missing`` says why);
    ``recall`` gives views of earlier versions by hash, to say what changed."""
    def finding(message: str, change: str, element: str = "", summary: str = "") -> Finding:
        data = (("contract", prov.contract), ("element", element), ("change", change), ("summary", summary))
        return Finding(CODE, "warning", message, prov.file, prov.span, data)

    if contract is None:
        return (finding(f"generated from {prov.contract}, which {missing}: this file cannot be checked against "
                        "its contract", "missing"),)
    if not comparable(contract):
        return (finding(f"generated from {prov.contract}, which cannot be read now (see its contract-invalid "
                        "findings): checked again once it parses", "unreadable"),)
    views = Views(contract)
    out = []
    for element in prov.elements:
        current = views.hash(element.id)
        if current is None:
            out.append(finding(f"{element.id} was removed from {prov.contract} since this file was generated",
                               "removed", element.id, summarize(element.id, "removed")))
            continue
        if hash_matches(current, element.hash):
            continue
        old = _old_view(element, recall)
        fields = diff_views(old, views.view(element.id) or {}) if old is not None else ()
        if fields:
            summary = summarize(element.id, "changed", fields)
            out.append(finding(f"{summary} ({prov.contract} changed since this file was generated)",
                               "changed", element.id, summary))
        else:
            out.append(finding(f"{element.id} changed in {prov.contract} since this file was generated",
                               "changed", element.id, summarize(element.id, "changed")))
    return tuple(out)
