"""The acceptance script of a slice, ``specs/<slug>.uat.md`` (issue 15, "Acceptance
script"; ``docs/stages.md``, "The acceptance script"). Pure, and it never raises: odd input
gives a plainer script, never an error (the script never blocks a slice).

How the server-side command uses it:

1. ``acceptance_criteria(spec_markdown)``: the items of the spec's "Acceptance criteria"
   section.
2. ``acceptance_script(slug, criteria, endpoints, generated_routes, generated_calls,
   test_files, run_commands)``: the Markdown text to write. ``endpoints``: the slice's
   contract endpoints as :class:`UatEndpoint` (``uat_endpoint(model.Endpoint)`` builds one
   from the contract's facts: status and fields from its schemas); ``generated_routes`` and
   ``generated_calls``: what the generated files really declare and call
   (:class:`GeneratedRoute`, :class:`GeneratedCall`, from their facts); ``test_files``: the
   generated tests; ``run_commands``: the project's commands (install, start, test), each
   shown as a step.

Decisions where the issue is silent:

- A criterion maps to the endpoints it names (``POST /notes``, a path ``/notes/{id}``), else
  to those whose resource words (the path's literal segments, singular or plural) it uses,
  narrowed by its first verb (create/add → POST, list/see/view/get/open/read → GET,
  edit/update/change/rename → PUT/PATCH, delete/remove → DELETE) when it has one, and
  between a collection and an item by number ("the bookmarks" → ``/bookmarks``, "one
  bookmark" → ``/bookmarks/{id}``). Nothing matched: the criterion says it maps to no endpoint and is checked by
  hand.
- Requests are ``curl`` commands against ``$BASE_URL`` (set in the setup step), path
  parameters written ``<name>``, a JSON body from the contract's request fields.
- Cross-checks: an endpoint of a step that no generated route declares is marked
  **not generated**; one that no generated call makes says that no generated client calls
  it; endpoints no criterion mentions are listed at the end.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..contracts.common import path_shape
from .slice_plan import tails_agree

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_EXPLICIT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s`'\"),;]*)", re.I)
_PATH = re.compile(r"(?<![\w/])(/[A-Za-z0-9_{}:.\-/]+)")
_VERBS = {
    "POST": ("create", "creates", "created", "add", "adds", "added", "submit", "submits", "post", "posts",
             "register", "registers", "write", "writes", "new", "save", "saves"),
    "GET": ("list", "lists", "see", "sees", "view", "views", "get", "gets", "open", "opens", "read", "reads",
            "show", "shows", "shown", "fetch", "fetches", "display", "displays", "displayed", "search", "find"),
    "PUT": ("edit", "edits", "update", "updates", "updated", "change", "changes", "rename", "renames", "replace"),
    "PATCH": ("edit", "edits", "update", "updates", "updated", "change", "changes", "rename", "renames"),
    "DELETE": ("delete", "deletes", "deleted", "remove", "removes", "removed", "archive"),
}
_STOP = {"api", "v1", "v2", "v3", "the", "a", "an", "of", "and", "or", "to", "id"}
_ACCEPTANCE = re.compile(r"acceptance(\s+criteria|\s+tests?)?\b", re.I)


@dataclass(frozen=True)
class UatEndpoint:
    """One contract endpoint as the script shows it: ``status`` the success status
    (``"200"``, ``"201"``; ``""`` when the contract says none), ``request_fields`` and
    ``response_fields`` the top-level body fields as ``(name, type)``."""

    method: str
    path: str
    summary: str = ""
    status: str = ""
    request_fields: tuple[tuple[str, str], ...] = ()
    response_fields: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GeneratedRoute:
    """A route a generated file declares (``Route.method``, ``Route.path``)."""

    method: str
    path: str
    file: str = ""


@dataclass(frozen=True)
class GeneratedCall:
    """An HTTP call a generated file makes: its method (``""`` when not known) and path
    template (``HttpCall``'s, or the literal path)."""

    method: str
    path: str
    file: str = ""


def uat_endpoint(ep: object) -> UatEndpoint:
    """A ``model.Endpoint`` (or anything with ``method``, ``path``, ``summary``, ``schemas``)
    as a :class:`UatEndpoint`: the success status (the schemas' response status, else
    SpecDSL's ``successStatus``) and the top-level fields of its request and response
    schemas (read-only request fields left out)."""
    schemas = getattr(ep, "schemas", None)

    def fields(shape: object) -> tuple[tuple[str, str], ...]:
        props = getattr(shape, "props", ()) or ()
        return tuple((str(p.name), str(getattr(p.shape, "type", "any"))) for p in props
                     if getattr(p, "name", None))

    status = str(getattr(schemas, "response_status", "") or "")
    if not status:  # SpecDSL says it in the endpoint's details
        details = dict(getattr(ep, "details", ()) or ())
        success = details.get("successStatus")
        status = str(success) if isinstance(success, (int, str)) and not isinstance(success, bool) else ""
    body = getattr(schemas, "body", None)
    response = getattr(schemas, "response", None)
    return UatEndpoint(str(getattr(ep, "method", "")).upper(), str(getattr(ep, "path", "")),
                       str(getattr(ep, "summary", "") or ""), status,
                       tuple((n, t) for n, t in fields(body) if not _read_only(body, n)), fields(response))


def _read_only(shape: object, name: str) -> bool:
    for p in getattr(shape, "props", ()) or ():
        if getattr(p, "name", None) == name:
            return bool(getattr(p, "read_only", False))
    return False


# ----------------------------------------------------------------------------- criteria
def acceptance_criteria(spec_markdown: str) -> list[str]:
    """The numbered or bulleted items under the spec's "Acceptance criteria" heading (any
    level, any case; "Acceptance tests" too), up to the next heading of the same or a
    higher level. An item's continuation lines and sub-items join it; checkboxes
    (``- [ ]``) are dropped; fenced code is skipped. No such heading: an empty list."""
    if not isinstance(spec_markdown, str):
        return []
    items: list[str] = []
    level = None
    in_fence = False
    current: list[str] | None = None
    base_indent = None
    for line in spec_markdown.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        h = _HEADING.match(line)
        if h:
            depth = len(h.group(1))
            if level is not None and depth <= level:
                break
            if level is None and _ACCEPTANCE.search(h.group(2)):
                level = depth
            elif level is not None and current is not None:
                current = None  # a sub-heading ends an item
            continue
        if level is None:
            continue
        m = _ITEM.match(line)
        if m and (base_indent is None or len(m.group(1)) <= base_indent):
            base_indent = len(m.group(1)) if base_indent is None else base_indent
            current = [m.group(2).strip()]
            items.append("")
        elif current is not None and line.strip():
            current.append((m.group(2) if m else line).strip())
        elif current is not None and not line.strip():
            pass
        else:
            continue
        if current is not None:
            items[-1] = " ".join(p for p in current if p)
    return [i for i in items if i]


# ----------------------------------------------------------------------------- mapping
def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ses") and len(w) > 4:
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def _words(text: str) -> set[str]:
    return {_singular(w) for w in _WORD.findall(text)}


def _resource_words(ep: UatEndpoint) -> set[str]:
    segs = [s for s in ep.path.split("/") if s and not s.startswith(("{", ":"))]
    words = set()
    for s in segs:
        words |= {_singular(w) for w in re.split(r"[-_.]", s) if w}
    return words - _STOP


def _key(method: str, path: str) -> tuple[str, str]:
    try:
        return (method.upper(), path_shape(path))
    except Exception:  # never raises on odd input
        return (str(method).upper(), str(path))


def _maps(criterion: str, endpoints: Sequence[UatEndpoint]) -> list[UatEndpoint]:
    explicit = {_key(m, p) for m, p in _EXPLICIT.findall(criterion)}
    if explicit:
        return [ep for ep in endpoints if _key(ep.method, ep.path) in explicit]
    paths = {path_shape(p) for p in _PATH.findall(criterion) if len(p) > 1}
    if paths:
        hit = [ep for ep in endpoints if path_shape(ep.path) in paths]
        if hit:
            return hit
    words = _words(criterion)
    verbs: set[str] = set()
    for w in _WORD.findall(criterion):  # the first verb is the criterion's action
        verbs = {m for m, vs in _VERBS.items() if w.lower() in vs}
        if verbs:
            break
    scored = []
    for ep in endpoints:
        resource = _resource_words(ep)
        overlap = len(words & resource)
        if not overlap:
            continue
        if verbs and ep.method not in verbs:
            continue
        detail = 1 if any(s.startswith(("{", ":")) for s in ep.path.split("/")) else 0
        singular_only = not any(w.lower().endswith("s") for w in _WORD.findall(criterion)
                                if _singular(w) in resource)
        scored.append((overlap, detail == (1 if singular_only else 0), ep))
    if not scored:
        return []
    best = max((o, d) for o, d, _ in scored)
    return [ep for o, d, ep in scored if (o, d) == best]


# ----------------------------------------------------------------------------- rendering
def _example(kind: str) -> object:
    return {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(kind, "example")


def _curl(ep: UatEndpoint) -> str:
    path = re.sub(r"\{([^{}/]*)\}", r"<\1>", ep.path)
    path = re.sub(r"(^|/):([A-Za-z_]\w*)", r"\1<\2>", path)
    parts = ["curl -i"]
    if ep.method != "GET":
        parts.append(f"-X {ep.method}")
    parts.append(f'"$BASE_URL{path}"')
    if ep.request_fields:
        body = json.dumps({n: _example(t) for n, t in ep.request_fields})
        parts.append("-H 'Content-Type: application/json'")
        parts.append("-d '" + body.replace("'", "'\\''") + "'")
    return " ".join(parts)


def _expectation(ep: UatEndpoint) -> str:
    status = f"status {ep.status}" if ep.status else "a success status (2xx)"
    if ep.response_fields:
        names = ", ".join(f"`{n}`" for n, _ in ep.response_fields)
        return f"Expect {status}; the JSON answer contains {names}."
    return f"Expect {status}."


def _agree(written: object, path: str, longer: bool = False) -> bool:
    """A route or call path agrees with an endpoint's (``slice_plan.tails_agree``); a call
    must write at least the endpoint's segments (``longer``)."""
    try:
        if not isinstance(written, str):
            return False
        if longer and len([s for s in path_shape(written).split("/") if s]) < len(
                [s for s in path_shape(path).split("/") if s]):
            return False
        return tails_agree(written, path)
    except Exception:
        return False


def _line(text: object) -> str:
    return " ".join(str(text).split())


def acceptance_script(slug: str, criteria: Iterable[str], endpoints: Iterable[UatEndpoint],
                      generated_routes: Iterable[GeneratedRoute], generated_calls: Iterable[GeneratedCall],
                      test_files: Iterable[str], run_commands: Iterable[str]) -> str:
    """The text of ``specs/<slug>.uat.md``: setup (the run commands, ``BASE_URL``), the
    generated tests to run, one section per criterion with its requests and what each
    answer must contain, cross-checked against the generated routes and calls. Never
    raises (see the module docstring)."""
    try:
        return _script(slug, criteria, endpoints, generated_routes, generated_calls, test_files, run_commands)
    except Exception as exc:  # the script never blocks a slice
        return (f"# Acceptance script: {_line(slug)}\n\nspecward could not derive the steps "
                f"({type(exc).__name__}); check the acceptance criteria of the spec by hand.\n")


def _items(values: object, kind: type) -> list:
    try:
        return [v for v in values if isinstance(v, kind)]  # type: ignore[union-attr]
    except TypeError:
        return []


def _script(slug: object, criteria: object, endpoints: object, routes: object, calls: object,
            tests: object, commands: object) -> str:
    crits = [_line(c) for c in _items(criteria, str) if c.strip()]
    eps = _items(endpoints, UatEndpoint)
    route_list = _items(routes, GeneratedRoute)
    call_list = _items(calls, GeneratedCall)

    def is_declared(ep: UatEndpoint) -> bool:
        return any(r.method.upper() in (ep.method, "ANY", "ALL") and _agree(r.path, ep.path) for r in route_list)

    def is_called(ep: UatEndpoint) -> bool:
        return any((not c.method or c.method.upper() == ep.method) and _agree(c.path, ep.path, True)
                   for c in call_list)
    out = [f"# Acceptance script: {_line(slug)}", "",
           "The steps a person follows to see that the slice works, derived from the spec's acceptance",
           "criteria and checked against the generated files. Nothing here runs by itself.", "",
           "## Setup", ""]
    n = 0
    for cmd in _items(commands, str):
        if cmd.strip():
            n += 1
            out.append(f"{n}. Run `{_line(cmd)}`.")
    n += 1
    out.append(f"{n}. Set the base URL of the running server: `export BASE_URL=http://localhost:PORT`.")
    test_list = [t for t in _items(tests, str) if t.strip()]
    out += ["", "## Generated tests", ""]
    out += [f"- `{_line(t)}`" for t in test_list] or ["- none were generated: every step below is by hand."]
    used: set[tuple[str, str]] = set()
    out += ["", "## Criteria"]
    if not crits:
        out += ["", "The spec has no acceptance criteria: there is nothing to check step by step."]
    for i, crit in enumerate(crits, 1):
        out += ["", f"### {i}. {crit}", ""]
        mapped = _maps(crit, eps)
        if not mapped:
            out.append("This criterion maps to no endpoint of the slice: check it by hand (in the user "
                       "interface, or with the generated tests).")
            continue
        for j, ep in enumerate(mapped, 1):
            key = _key(ep.method, ep.path)
            used.add(key)
            label = f"`{ep.method} {ep.path}`" + (f" ({_line(ep.summary)})" if ep.summary else "")
            out.append(f"{j}. Send {label}:")
            out += ["", "   ```sh", f"   {_curl(ep)}", "   ```", "", f"   {_expectation(ep)}"]
            if not is_declared(ep):
                out.append(f"   **not generated**: no generated route declares {ep.method} {ep.path}.")
            if not is_called(ep):
                out.append("   No generated client calls it.")
    rest = [ep for ep in eps if _key(ep.method, ep.path) not in used]
    if rest:
        out += ["", "## Endpoints no criterion mentions", ""]
        for ep in rest:
            mark = "" if is_declared(ep) else " — **not generated**"
            out.append(f"- `{ep.method} {ep.path}`{mark}")
    return "\n".join(out) + "\n"
