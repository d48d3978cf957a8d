"""The plan of a vertical slice, checked before generation and against what was generated
(issue 15, "Slice"; ``docs/stages.md``, "The slice plan"). Pure: plain data in, plain data
out, or a :class:`PlanError`.

Before it writes a slice, the model states a plan (:data:`PLAN_FORMAT` is the prompt text):
the files, each with a role (``backend``, ``model``, ``client``, ``test``, ``other``), what
each PRODUCES (names with a kind: ``function``, ``class``, ``type``, ``constant``; endpoints
``METHOD /path`` for backend handlers) and CONSUMES (names, optionally ``from`` a planned
file or an existing workspace module; endpoints for clients and tests).

How the server-side command uses this module, in order:

1. ``plan = parse_plan(first_json_object(answer))`` (``answers.py``); a
   :class:`PlanError` goes back to the model like an answer that does not fit.
2. ``plan_problems(plan, contract_endpoints, exists)``: the soundness check, which runs at
   every verification depth. ``contract_endpoints``: the selected endpoints (objects with
   ``method`` and ``path``, e.g. ``model.Endpoint``, or ``"METHOD /path"`` strings);
   ``exists(name, module)``: whether the index has ``name`` in ``module`` (a workspace path
   or module specifier as the plan wrote it, or None when the plan named no module: then
   anywhere in the workspace). Problems go back to the model for a new plan.
3. ``plan_text(plan)``: what the user is shown before generation.
4. ``layout_hints(project_map)``: the prompt section saying where the project keeps what
   (from ``server/mcp_server.py::Tools.project_map``'s dict).
5. After generation: ``verify_slice(plan, generated)``, ``generated`` mapping each
   generated path to its ``extract()`` facts (None: the file was written but has no facts,
   e.g. a JSON or SQL file; it is then only checked for presence). Stubs are
   ``stubs.find_stubs``'s, not this module's.

Decisions where the issue is silent:

- Produced names are unique per language family (TypeScript/JavaScript, Python, other),
  not across the whole plan: a full-stack slice legitimately has a pydantic ``Note`` and a
  TypeScript ``Note``, and no file of one family can import from the other. A consumed
  name without ``from`` is looked up among the producers of its own family.
- A name a file consumes and produces itself is satisfied (no problem).
- ``implemented(method, path)`` (optional) says an endpoint the plan does not produce is
  already implemented in the workspace: a frontend-only slice over an existing backend. By
  default every selected endpoint must be produced by a backend file of the plan.
- Endpoints compare by method and path shape (``/notes/:id`` == ``/notes/{note_id}``,
  ``contracts.common.path_shape``), against the endpoint's path with and without the
  contract's base path.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal, Mapping

from ..contracts.common import path_shape
from ..model import HTTP_METHODS, CallSite, FileFacts, Lit, ObjVal, StrVal, UrlExpr
from ..urls import render
from .confine import PathRefused, confine

Role = Literal["backend", "model", "client", "test", "other"]
NameKind = Literal["function", "class", "type", "constant"]
ROLES: tuple[str, ...] = ("backend", "model", "client", "test", "other")
NAME_KINDS: tuple[str, ...] = ("function", "class", "type", "constant")

PLAN_FORMAT = (
    "Before any code, state the slice's plan as one JSON object:\n"
    '{"files": [{"path": "server/routes/notes.ts", "role": "backend",\n'
    '            "produces": {"names": [{"name": "notesRouter", "kind": "constant"}],\n'
    '                         "endpoints": ["GET /notes/{id}"]},\n'
    '            "consumes": {"names": [{"name": "Note", "from": "server/models/note.ts"}],\n'
    '                         "endpoints": []}}]}\n'
    "List every file you will write, each path once, relative to the project root. role is\n"
    "one of backend, model, client, test, other. kind is one of function, class, type,\n"
    "constant. Endpoints are \"METHOD /path\" as the contract writes them: a backend file\n"
    "produces the endpoints it handles, a client or test file consumes the endpoints it\n"
    "calls. A consumed name says from which planned file or existing module it comes\n"
    "(\"from\"); leave \"from\" out only for a name the project already has. Every consumed\n"
    "name must be produced by another file of the plan or exist in the project, every\n"
    "produced name must be unique, and the plan must include a test file.")

_LABEL = 40  # longest piece of the model's text an error message quotes
_ROLE_ALIASES = {
    "backend": "backend", "server": "backend", "handler": "backend", "handlers": "backend",
    "route": "backend", "routes": "backend", "controller": "backend", "api": "backend",
    "model": "model", "models": "model", "data": "model", "schema": "model", "schemas": "model",
    "entity": "model", "types": "model", "dto": "model",
    "client": "client", "frontend": "client", "api-client": "client", "api_client": "client",
    "ui": "client", "service": "client",
    "test": "test", "tests": "test", "spec": "test", "e2e": "test",
    "other": "other", "config": "other", "misc": "other",
}
_KIND_ALIASES = {
    "function": "function", "func": "function", "fn": "function", "method": "function",
    "handler": "function", "component": "function", "hook": "function",
    "class": "class", "model": "class",
    "type": "type", "interface": "type", "enum": "type", "alias": "type", "type alias": "type",
    "typeddict": "type",
    "constant": "constant", "const": "constant", "variable": "constant", "value": "constant",
    "var": "constant", "router": "constant", "object": "constant",
}
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_ENDPOINT = re.compile(r"\s*([A-Za-z]+)\s+(\S+)\s*")
_ECMA_EXT = (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs", ".vue", ".svelte")
_RESOLVE_EXT = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs", ".vue", ".svelte")
_TESTISH = re.compile(r"(^|/)(tests?|__tests__|spec|e2e)/|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.[cm]?[jt]sx?$")


class PlanError(ValueError):
    """A plan object that does not have the expected shape: ``expected`` and ``found`` are
    short descriptions; the message never quotes more than a short label of the answer."""

    def __init__(self, where: str, expected: str, found: str):
        self.where = where
        self.expected = expected
        self.found = found
        super().__init__(f"the slice plan does not fit: {where}: expected {expected}; found {found}")


# ----------------------------------------------------------------------------- data
@dataclass(frozen=True)
class PlanEndpoint:
    """``METHOD /path`` as the plan writes it (method upper-cased); ``shape`` compares
    structurally (``/notes/{}``)."""

    method: str
    path: str

    @property
    def shape(self) -> str:
        return path_shape(self.path)

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class Produced:
    name: str
    kind: str  # one of NAME_KINDS


@dataclass(frozen=True)
class Consumed:
    """A name a file uses; ``source`` is the ``from`` of the plan: a planned file's path, an
    existing module or path as written, or None."""

    name: str
    source: str | None = None


@dataclass(frozen=True)
class PlannedFile:
    path: str  # normalised by confine(): relative, POSIX separators
    role: str  # one of ROLES
    produces: tuple[Produced, ...] = ()
    consumes: tuple[Consumed, ...] = ()
    produces_endpoints: tuple[PlanEndpoint, ...] = ()
    consumes_endpoints: tuple[PlanEndpoint, ...] = ()


@dataclass(frozen=True)
class SlicePlan:
    files: tuple[PlannedFile, ...]

    def file(self, path: str) -> PlannedFile | None:
        return next((f for f in self.files if f.path == path), None)


@dataclass(frozen=True)
class PlanProblem:
    """A soundness problem of a plan. ``kind`` (stable): ``consumed-not-produced``,
    ``duplicate-name``, ``unknown-endpoint``, ``endpoint-not-produced``,
    ``endpoint-not-consumed``, ``no-test``. ``file``: the planned file it is about (None
    for the whole plan); ``name``: the name or ``METHOD /path``."""

    kind: str
    message: str
    file: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class SliceProblem:
    """A generated slice that does not keep its plan. ``kind`` (stable): ``missing-file``,
    ``missing-export``, ``not-wired``, ``route-missing``, ``call-missing``."""

    kind: str
    message: str
    file: str
    name: str | None = None


# ----------------------------------------------------------------------------- parsing
def _label(value: object) -> str:
    if isinstance(value, str):
        text = value if len(value) <= _LABEL else value[: _LABEL - 1] + "…"
        return repr(text)
    if isinstance(value, dict):
        keys = ", ".join(_label(k) for k in list(value)[:5])
        return f"an object (keys: {keys}{', …' if len(value) > 5 else ''})" if value else "an empty object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if value is None:
        return "null"
    return f"a {type(value).__name__} ({_label(str(value))})"


def _get(obj: dict, *keys: str) -> Any:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for k in keys:
        if k in lowered:
            return lowered[k]
    return None


def _endpoint(value: object, where: str) -> PlanEndpoint:
    if isinstance(value, dict):
        ep = _get(value, "endpoint")
        if ep is not None:
            return _endpoint(ep, where)
        method, path = _get(value, "method"), _get(value, "path")
        if isinstance(method, str) and isinstance(path, str):
            value = f"{method} {path}"
    if not isinstance(value, str):
        raise PlanError(where, '"METHOD /path"', _label(value))
    m = _ENDPOINT.fullmatch(value)
    if m is None or m.group(1).upper() not in HTTP_METHODS or not m.group(2).startswith("/"):
        raise PlanError(where, '"METHOD /path" with an HTTP method and a path starting with /', _label(value))
    return PlanEndpoint(m.group(1).upper(), m.group(2))


def _is_endpoint(value: object) -> bool:
    if isinstance(value, dict):
        return _get(value, "endpoint") is not None or (_get(value, "method") is not None and _get(value, "name") is None)
    if isinstance(value, str):
        m = _ENDPOINT.fullmatch(value)
        return bool(m and m.group(1).upper() in HTTP_METHODS and m.group(2).startswith("/"))
    return False


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value.strip()):
        raise PlanError(where, "a name (an identifier, dots allowed)", _label(value))
    return value.strip()


def _produced(value: object, where: str) -> Produced:
    if isinstance(value, str):  # "function createNote"
        parts = value.split()
        if len(parts) >= 2 and " ".join(parts[:-1]).lower() in _KIND_ALIASES:
            return Produced(_name(parts[-1], where), _KIND_ALIASES[" ".join(parts[:-1]).lower()])
        raise PlanError(where, '{"name": ..., "kind": ...} or "KIND NAME"', _label(value))
    if not isinstance(value, dict):
        raise PlanError(where, '{"name": ..., "kind": ...}', _label(value))
    name = _name(_get(value, "name"), where + ".name")
    kind = _get(value, "kind", "type")
    if not isinstance(kind, str) or kind.strip().lower() not in _KIND_ALIASES:
        raise PlanError(where + ".kind", "one of " + ", ".join(NAME_KINDS), _label(kind))
    return Produced(name, _KIND_ALIASES[kind.strip().lower()])


def _consumed(value: object, where: str) -> Consumed:
    if isinstance(value, str):
        return Consumed(_name(value, where))
    if not isinstance(value, dict):
        raise PlanError(where, '{"name": ..., "from": ...} or a name', _label(value))
    name = _name(_get(value, "name"), where + ".name")
    source = _get(value, "from", "module", "source", "file", "path")
    if source is not None and not isinstance(source, str):
        raise PlanError(where + ".from", "a path or module name", _label(source))
    source = source.strip() if isinstance(source, str) and source.strip() else None
    return Consumed(name, source)


def _section(value: object, where: str, item: Callable[[object, str], Any]) -> tuple[list, list[PlanEndpoint]]:
    """A produces/consumes section: {"names": [...], "endpoints": [...]} or one flat list
    mixing names and endpoints. (names, endpoints)."""
    names: list = []
    endpoints: list[PlanEndpoint] = []
    if value is None:
        return names, endpoints
    if isinstance(value, dict):
        extra = set(k.lower() for k in map(str, value)) - {"names", "endpoints", "symbols", "routes"}
        if extra:
            raise PlanError(where, 'an object with "names" and "endpoints" lists, or a list',
                            _label(value))
        raw_names = _get(value, "names", "symbols") or []
        raw_eps = _get(value, "endpoints", "routes") or []
        for key, raw in (("names", raw_names), ("endpoints", raw_eps)):
            if not isinstance(raw, list):
                raise PlanError(f"{where}.{key}", "a list", _label(raw))
        names = [item(v, f"{where}.names[{i}]") for i, v in enumerate(raw_names)]
        endpoints = [_endpoint(v, f"{where}.endpoints[{i}]") for i, v in enumerate(raw_eps)]
        return names, endpoints
    if not isinstance(value, list):
        raise PlanError(where, 'an object with "names" and "endpoints" lists, or a list', _label(value))
    for i, v in enumerate(value):
        if _is_endpoint(v):
            endpoints.append(_endpoint(v, f"{where}[{i}]"))
        else:
            names.append(item(v, f"{where}[{i}]"))
    return names, endpoints


def _file(value: object, where: str) -> PlannedFile:
    if not isinstance(value, dict):
        raise PlanError(where, 'an object with "path" and "role"', _label(value))
    path = _get(value, "path", "file")
    if not isinstance(path, str):
        raise PlanError(where + ".path", "a path relative to the project root", _label(path))
    try:
        path = confine(path).path
    except PathRefused as exc:
        raise PlanError(where + ".path", "a path relative to the project root",
                        f"{_label(path)}, refused ({exc.reason})") from None
    role = _get(value, "role", "kind", "layer")
    if not isinstance(role, str) or role.strip().lower() not in _ROLE_ALIASES:
        raise PlanError(where + ".role", "one of " + ", ".join(ROLES), _label(role))
    produces, p_eps = _section(_get(value, "produces", "exports", "provides"), where + ".produces", _produced)
    consumes, c_eps = _section(_get(value, "consumes", "imports", "uses"), where + ".consumes", _consumed)
    return PlannedFile(path, _ROLE_ALIASES[role.strip().lower()], tuple(produces), tuple(consumes),
                       tuple(dict.fromkeys(p_eps)), tuple(dict.fromkeys(c_eps)))


def parse_plan(obj: object) -> SlicePlan:
    """The plan in a JSON object (``{"files": [...]}``, or that object under ``plan`` or
    ``slice``), or :class:`PlanError`. Tolerated: role and kind synonyms and case
    (``server`` is ``backend``, ``interface`` is ``type``), ``"KIND NAME"`` strings for
    produced names, plain strings for consumed names, produces/consumes as one list mixing
    names and endpoints, ``{"method", "path"}`` endpoints, ``module``/``source`` for
    ``from``. Strict: a path (confined), a role and a name for every entry, endpoints with
    an HTTP method and a path, a non-empty list of files, each path once."""
    if not isinstance(obj, dict):
        raise PlanError("the plan", 'a JSON object {"files": [...]}', _label(obj))
    files = _get(obj, "files")
    if files is None:
        inner = _get(obj, "plan", "slice")
        if isinstance(inner, dict):
            return parse_plan(inner)
    if not isinstance(files, list) or not files:
        raise PlanError("files", "a non-empty list of planned files",
                        _label(files) if files is not None else f"no \"files\" in {_label(obj)}")
    out = [_file(v, f"files[{i}]") for i, v in enumerate(files)]
    seen: dict[str, int] = {}
    for i, f in enumerate(out):
        if f.path in seen:
            raise PlanError(f"files[{i}].path", "each path once",
                            f"{_label(f.path)} again (first at files[{seen[f.path]}])")
        seen[f.path] = i
    return SlicePlan(tuple(out))


# ----------------------------------------------------------------------------- soundness
def family(path: str) -> str:
    """``ecma``, ``python`` or ``other``: which files can import from which."""
    lower = path.lower()
    if lower.endswith((".py", ".pyi")):
        return "python"
    if lower.endswith(_ECMA_EXT):
        return "ecma"
    return "other"


def _stem(path: str) -> str:
    for ext in sorted(_RESOLVE_EXT + (".py", ".pyi"), key=len, reverse=True):
        if path.endswith(ext):
            path = path[: -len(ext)]
            break
    for tail in ("/index", "/__init__"):
        if path.endswith(tail):
            return path[: -len(tail)]
    return path


def _names_target(source: str, plan: SlicePlan) -> PlannedFile | None:
    """The planned file a ``from`` (or a non-relative import specifier) names: its path, its
    path without extension (or without ``/index``, ``/__init__``), its dotted Python module
    (``app.models.note``), or, by suffix, one of those behind a prefix the project adds (a
    ``src/`` root, an alias such as ``@/``, ``~/``, ``#/``, ``@app/``)."""
    s = source.strip()
    s = s[2:] if s.startswith("./") else s
    if "/" not in s and not s.endswith(_RESOLVE_EXT + (".py", ".pyi")):
        s = s.replace(".", "/")  # a dotted module
    tail = _stem(re.sub(r"^(@/|~/|#/|@[\w-]+/)", "", s))
    exact = [f for f in plan.files if s in (f.path, _stem(f.path)) or _stem(s) == _stem(f.path)]
    if exact:
        return exact[0]
    if not tail:
        return None
    return next((f for f in plan.files if _stem(f.path).endswith("/" + tail)), None)


def _endpoint_keys(ep: object) -> tuple[tuple[str, str], ...]:
    """(method, shape) keys of a selected contract endpoint, with and without its base."""
    if isinstance(ep, str):
        try:
            pe = _endpoint(ep, "endpoint")
        except PlanError:
            return ()
        return ((pe.method, pe.shape),)
    method = str(getattr(ep, "method", "")).upper()
    path = str(getattr(ep, "path", ""))
    keys = [(method, path_shape(path))]
    base = str(getattr(ep, "base_path", "") or "")
    if base and base != "/":
        keys.append((method, path_shape(base.rstrip("/") + "/" + path.lstrip("/"))))
    return tuple(keys)


def plan_problems(plan: SlicePlan, contract_endpoints: Iterable[object],
                  exists: Callable[[str, str | None], bool],
                  implemented: Callable[[str, str], bool] | None = None) -> list[PlanProblem]:
    """The soundness problems of ``plan`` against the selected endpoints, in plan order.
    ``exists(name, module)`` is asked only for a consumed name no other planned file
    produces (``module``: the plan's ``from``, or None). See the module docstring."""
    problems: list[PlanProblem] = []
    producers: dict[tuple[str, str], list[PlannedFile]] = {}
    for f in plan.files:
        for p in f.produces:
            producers.setdefault((family(f.path), p.name), []).append(f)
    reported: set[tuple[str, str]] = set()
    for f in plan.files:
        for p in f.produces:
            key = (family(f.path), p.name)
            owners = producers[key]
            if (len(owners) > 1 or sum(1 for q in f.produces if q.name == p.name) > 1) and key not in reported:
                reported.add(key)
                where = ", ".join(dict.fromkeys(o.path for o in owners))
                problems.append(PlanProblem("duplicate-name", f"{p.name} is produced more than once ({where}): "
                                            "give each produced name one file", f.path, p.name))
    for f in plan.files:
        own = {p.name for p in f.produces}
        for c in f.consumes:
            if c.name in own:
                continue
            target = _names_target(c.source, plan) if c.source else None
            if target is not None and target.path != f.path:
                if any(p.name == c.name for p in target.produces):
                    continue
                if exists(c.name, c.source):  # a planned edit of an existing file
                    continue
                problems.append(PlanProblem(
                    "consumed-not-produced", f"{f.path} consumes {c.name} from {target.path}, "
                    f"which does not produce it", f.path, c.name))
                continue
            if c.source is None and producers.get((family(f.path), c.name)):
                continue
            if exists(c.name, c.source):
                continue
            where = f" from {c.source}" if c.source else ""
            problems.append(PlanProblem(
                "consumed-not-produced", f"{f.path} consumes {c.name}{where}, which no planned file "
                "produces and the project does not have", f.path, c.name))
    selected: dict[tuple[str, str], str] = {}
    for ep in contract_endpoints:
        keys = _endpoint_keys(ep)
        for k in keys:
            selected.setdefault(k, f"{keys[0][0]} {getattr(ep, 'path', ep)}" if keys else str(ep))
    produced_keys: set[str] = set()
    consumed_keys: set[str] = set()
    for f in plan.files:
        for verb, eps in (("produces", f.produces_endpoints), ("consumes", f.consumes_endpoints)):
            for ep in eps:
                label = selected.get((ep.method, ep.shape))
                if label is None:
                    problems.append(PlanProblem(
                        "unknown-endpoint", f"{f.path} {verb} {ep}, which is not one of the selected "
                        "contract endpoints", f.path, str(ep)))
                    continue
                if verb == "produces" and f.role == "backend":
                    produced_keys.add(label)
                if verb == "consumes" and f.role == "client":
                    consumed_keys.add(label)
    for label in dict.fromkeys(selected.values()):
        method, _, path = label.partition(" ")
        if label not in produced_keys and not (implemented and implemented(method, path)):
            problems.append(PlanProblem("endpoint-not-produced",
                                        f"no backend file of the plan produces {label}", None, label))
        if label not in consumed_keys:
            problems.append(PlanProblem("endpoint-not-consumed",
                                        f"no client file of the plan consumes {label}", None, label))
    if not any(f.role == "test" for f in plan.files):
        problems.append(PlanProblem("no-test", "the plan has no test file (role \"test\")"))
    return problems


# ----------------------------------------------------------------------------- showing
def plan_text(plan: SlicePlan) -> str:
    """The plan as the user reads it before generation: one block per file, its role, what
    it produces and consumes, by name."""
    lines = [f"The slice writes {len(plan.files)} file(s):"]
    for f in plan.files:
        lines.append(f"- {f.path} ({f.role})")
        made = [f"{p.kind} {p.name}" for p in f.produces] + [f"endpoint {e}" for e in f.produces_endpoints]
        used = [f"{c.name} (from {c.source})" if c.source else c.name for c in f.consumes]
        used += [f"endpoint {e}" for e in f.consumes_endpoints]
        if made:
            lines.append("    produces: " + ", ".join(made))
        if used:
            lines.append("    consumes: " + ", ".join(used))
        if not made and not used:
            lines.append("    (produces and consumes nothing by name)")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- layout
@dataclass(frozen=True)
class LayoutHints:
    """Where the project keeps what, from its ``project_map``. A folder is None when the
    index has no file of that role; ``empty``: the workspace has no indexed source file."""

    empty: bool
    routes: str | None = None
    models: str | None = None
    clients: str | None = None
    tests: str | None = None
    languages: tuple[str, ...] = ()
    route_frameworks: tuple[str, ...] = ()
    client_kinds: tuple[str, ...] = ()
    text: str = ""


def _folder(paths: Iterable[str]) -> str | None:
    counts = Counter(posixpath.dirname(p) for p in paths if isinstance(p, str))
    if not counts:
        return None
    folder = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return folder + "/" if folder else "./"


def _files_of(section: object) -> list[str]:
    if not isinstance(section, list):
        return []
    return [e["file"] for e in section if isinstance(e, dict) and isinstance(e.get("file"), str)]


def _keys(value: object) -> tuple[str, ...]:
    return tuple(str(k) for k in value) if isinstance(value, dict) else ()


def layout_hints(project_map: Mapping[str, Any], files: Iterable[str] = ()) -> LayoutHints:
    """What ``project_map`` says of the layout: the most common folder of the route files,
    the data-model files, the API-client files (those with a client instance, else those
    making HTTP calls, tests left out) and the test files (any path of the map, or of
    ``files``, that looks like a test: ``tests/``, ``__tests__/``, ``test_*.py``,
    ``*.test.ts``, ``*.spec.ts``), with the languages, route frameworks and HTTP client
    kinds most used first. Never raises on a partial map."""
    pm = project_map if isinstance(project_map, Mapping) else {}
    conv = pm.get("conventions") if isinstance(pm.get("conventions"), dict) else {}
    languages = _keys(conv.get("languages"))
    frameworks = _keys(conv.get("route_frameworks"))
    kinds = _keys(conv.get("http_client_kinds"))
    route_files = _files_of(pm.get("routes"))
    model_files = _files_of(pm.get("data_models"))
    client_files = [f for f in _files_of(pm.get("api_clients")) if not _TESTISH.search(f)]
    if not client_files:
        client_files = [f for f in _files_of(pm.get("http_callers")) if not _TESTISH.search(f)]
    every = set(route_files) | set(model_files) | set(_files_of(pm.get("api_clients")))
    every |= set(_files_of(pm.get("http_callers"))) | {f for f in files if isinstance(f, str)}
    test_files = sorted(f for f in every if _TESTISH.search(f))
    route_files = [f for f in route_files if not _TESTISH.search(f)]
    if not languages and not every:
        text = ("Project layout: the workspace has no source files yet, so there is no layout to "
                "follow.\n")
        return LayoutHints(True, text=text)
    hints = LayoutHints(False, _folder(route_files), _folder(model_files), _folder(client_files),
                        _folder(test_files), languages, frameworks, kinds)
    lines = ["Project layout (learned from the index; follow it):"]
    if hints.routes:
        fw = f" ({', '.join(frameworks)})" if frameworks else ""
        lines.append(f"- put backend handlers under {hints.routes}{fw}")
    if hints.models:
        lines.append(f"- put data models under {hints.models}")
    if hints.clients:
        ck = f" ({', '.join(kinds)})" if kinds else ""
        lines.append(f"- put API client calls under {hints.clients}{ck}")
    if hints.tests:
        lines.append(f"- put tests under {hints.tests}")
    if languages:
        lines.append(f"- languages in use, most files first: {', '.join(languages)}")
    if len(lines) == 1:
        lines.append("- no routes, models, API clients or tests indexed yet")
    return LayoutHints(False, hints.routes, hints.models, hints.clients, hints.tests, languages, frameworks,
                       kinds, "\n".join(lines) + "\n")


# ----------------------------------------------------------------------------- verification
def exported_names(facts: FileFacts) -> set[str]:
    """The names a file offers importers. TypeScript/JavaScript: its exports (a default
    export also by its local name); Python: its module-level definitions, imported names
    (re-exports) and ``__all__``."""
    if facts.language == "python":
        names = {d.name for d in facts.definitions}
        names |= {i.local for i in facts.imports if i.local}
        names |= set(facts.all_names or ())
        names |= {m.name for m in facts.data_models}
        return names
    names = {e.name for e in facts.exports} | {e.local for e in facts.exports if e.name == "default"}
    return names


def _resolve_relative(consumer: str, spec: str, python: bool) -> list[str]:
    """Candidate paths (stems) a relative import names, from the consumer's folder."""
    base = posixpath.dirname(consumer)
    if python:
        dots = len(spec) - len(spec.lstrip("."))
        rest = spec[dots:]
        folder = base
        for _ in range(dots - 1):
            folder = posixpath.dirname(folder)
        target = posixpath.join(folder, rest.replace(".", "/")) if rest else folder
        return [posixpath.normpath(target)]
    target = posixpath.normpath(posixpath.join(base, spec))
    return [_stem(target), target]


def _import_targets(consumer: str, facts: FileFacts, plan: SlicePlan, name: str) -> set[str]:
    """The planned files from which ``consumer`` imports ``name`` (or everything, through a
    namespace import or a Python module import)."""
    out: set[str] = set()
    python = facts.language == "python"
    for imp in facts.imports:
        if not (imp.name == name or imp.local == name or imp.name in ("*", "default")):
            continue
        specs = [imp.module]
        if python and imp.name not in ("*", ""):
            specs.append(imp.module.rstrip(".") + "." + imp.name if imp.module.strip(".") else imp.module + imp.name)
        for spec in specs:
            relative = spec.startswith(".")
            for f in plan.files:
                stem = _stem(f.path)
                if relative:
                    if stem in _resolve_relative(consumer, spec, python) or f.path in _resolve_relative(
                            consumer, spec, python):
                        out.add(f.path)
                elif _names_target(spec, plan) is f:
                    out.add(f.path)
    return out


def tails_agree(written: str, endpoint: str) -> bool:
    """Whether a route's or a call's path (``written``) agrees with an endpoint's, segment
    by segment from their ends: a router mounted under a prefix elsewhere declares only the
    tail of an endpoint, a call through a base (``/api``) writes more than it. A parameter
    of the endpoint (``{id}``, ``:id``) agrees with any segment (``/notes/42``); a
    parameter written where the endpoint has a literal does not. A router's ``/`` agrees
    with an endpoint whose last segment is a literal (its mount point, a collection)."""
    x = [s for s in path_shape(written).split("/") if s]
    y = [s for s in path_shape(endpoint).split("/") if s]
    if not x or not y:
        return not (x or y) or (not x and y[-1] != "{}")
    return all(p == q or q == "{}" for p, q in zip(reversed(x), reversed(y)))


def _route_matches(route_path: str, ep: PlanEndpoint) -> bool:
    return tails_agree(route_path, ep.path)


def _substitute(expr: UrlExpr, constants: dict[str, UrlExpr], depth: int = 0) -> UrlExpr:
    out: list = []
    for part in expr:
        name = getattr(part, "name", None)
        if type(part).__name__ == "Ref" and name in constants and depth < 4:
            out.extend(_substitute(constants[name], constants, depth + 1))
        else:
            out.append(part)
    return tuple(out)


def _call_paths(call: CallSite, constants: dict[str, UrlExpr]) -> list[str]:
    """The path-like strings a call passes: positional string arguments and the ``url`` or
    ``path`` of an object or keyword argument, with the file's constants substituted and
    dynamic parts as ``{param}``."""
    values = list(call.args) + [v for k, v in call.kwargs if k in ("url", "path")]
    for arg in call.args:
        if isinstance(arg, ObjVal):
            values += [v for k, v in arg.fields if k in ("url", "path")]
    out = []
    for v in values:
        if isinstance(v, StrVal) and v.expr:
            text = render(_substitute(v.expr, constants))
            text = re.sub(r"^[a-zA-Z][\w+.-]*://[^/]*", "", text).split("?", 1)[0].split("#", 1)[0]
            if "/" in text:
                out.append(text)
    return out


def _call_method(call: CallSite) -> str | None:
    last = call.callee.rsplit(".", 1)[-1].upper()
    if last in HTTP_METHODS:
        return last
    for arg in list(call.args) + [v for _, v in call.kwargs]:
        if isinstance(arg, ObjVal):
            for k, v in arg.fields:
                if k == "method" and isinstance(v, StrVal) and len(v.expr) == 1 and isinstance(v.expr[0], Lit):
                    return v.expr[0].text.upper()
    for k, v in call.kwargs:
        if k == "method" and isinstance(v, StrVal) and len(v.expr) == 1 and isinstance(v.expr[0], Lit):
            return v.expr[0].text.upper()
    if call.callee == "fetch":
        return "GET"
    return None


def _depth(path: str) -> int:
    return len([s for s in path_shape(path).split("/") if s])


def _calls(facts: FileFacts, ep: PlanEndpoint) -> bool:
    constants = dict(facts.constants)
    for call in facts.calls:
        method = _call_method(call)
        if method is not None and method != ep.method:
            continue
        for text in _call_paths(call, constants):
            if tails_agree(text, ep.path) and _depth(text) >= _depth(ep.path):
                return True
    return False


def _file_route_methods(facts: FileFacts) -> set[str]:
    """The methods a file route (Next.js ``route.ts``, SvelteKit ``+server.ts``) exports."""
    return {e.name for e in facts.exports if e.name in HTTP_METHODS}


def verify_slice(plan: SlicePlan, generated: Mapping[str, FileFacts | None]) -> list[SliceProblem]:
    """What the generated files break of the plan, in plan order. ``generated``: each
    generated path (normalised like the plan's) to its facts, None for a file without facts
    (only its presence is checked). See the module docstring for each rule."""
    problems: list[SliceProblem] = []
    producers: dict[tuple[str, str], list[str]] = {}
    for f in plan.files:
        for p in f.produces:
            producers.setdefault((family(f.path), p.name), []).append(f.path)
    for f in plan.files:
        if f.path not in generated:
            problems.append(SliceProblem("missing-file", f"{f.path} was planned but not generated", f.path))
            continue
        facts = generated[f.path]
        if facts is None:
            continue
        if not facts.open_exports:
            offered = exported_names(facts)
            for p in f.produces:
                if p.name not in offered and p.name.split(".")[0] not in offered:
                    problems.append(SliceProblem("missing-export", f"{f.path} does not export {p.kind} {p.name}, "
                                                 "which the plan promised", f.path, p.name))
        for c in f.consumes:
            if c.name in {p.name for p in f.produces}:
                continue
            if c.source:
                target = _names_target(c.source, plan)
            else:
                owners = [o for o in producers.get((family(f.path), c.name), []) if o != f.path]
                target = plan.file(owners[0]) if len(owners) == 1 else None
            if target is None or target.path == f.path or family(target.path) != family(f.path):
                continue
            if target.path not in _import_targets(f.path, facts, plan, c.name):
                problems.append(SliceProblem("not-wired", f"{f.path} does not import {c.name} from "
                                             f"{target.path}", f.path, c.name))
        if f.role == "backend" and f.produces_endpoints:
            methods = _file_route_methods(facts)
            for ep in f.produces_endpoints:
                declared = any(r.unresolved is None and r.method in (ep.method, "ANY", "ALL", "*")
                               and _route_matches(r.path, ep) for r in facts.routes)
                if not declared and ep.method in methods:
                    declared = True  # a file route: its path is its location
                if not declared and facts.views:
                    declared = True  # Django/DRF/Flask views: routed in another file
                if not declared and any(r.path == "" or r.unresolved for r in facts.routes if r.method == ep.method):
                    declared = True  # not judged: a path specward cannot read
                if not declared:
                    problems.append(SliceProblem("route-missing", f"{f.path} declares no route for {ep}",
                                                 f.path, str(ep)))
        if f.role == "client":
            for ep in f.consumes_endpoints:
                if not _calls(facts, ep):
                    problems.append(SliceProblem("call-missing", f"{f.path} makes no HTTP call to {ep}",
                                                 f.path, str(ep)))
    return problems
