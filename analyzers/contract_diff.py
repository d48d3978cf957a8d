"""What changed between two versions of a contract, element by element and field by field.

An **element** of a contract is an endpoint or a model, named by an element id:

- ``POST /auth/login``: an endpoint, by its method and its full path as matching uses it
  (the contract's base path included: ``matching.full_path``);
- ``model LoginResponse``: a model, by its name.

Each element has a **view**: a canonical, position-free rendering of what code generated
from it depends on, as plain JSON data (``element_view``). An endpoint's view holds its
method and path, its base path, its parameters (by location and name: type, whether
required), its request body, its responses (by status: the type of each body), its
authentication, and the fields of every model it references, directly or through other
models. A model's view holds its fields. Descriptions, summaries, examples, tags, the
order of keys, fields and parameters, and every position are left out: an edit of those
changes no view. ``element_hash`` is the SHA-256 of the view's canonical JSON (sorted keys,
no whitespace), prefixed with the rendering's version, so a hash recorded when a file was
generated says whether the element is still the same.

``diff_contracts(old, new)`` compares the views of every element of both versions
(``ContractDiff``); ``diff_views`` compares two views of one element and says what changed
in one line each (``response field token removed``): a change of a model an endpoint
references is also a change of that endpoint, said in the endpoint's terms (a model its
responses name: ``response field ...``; its request body: ``request body field ...``;
any other model it reaches: ``model User field ...``).

Pure: plain data in, plain data out (``docs/impact.md``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping

from .matching import full_path
from .model import ContractFacts, Endpoint, Finding, Model

VIEW_VERSION = 1  # part of every hash: a new rendering makes every recorded hash stale
MODEL_PREFIX = "model "
MAX_SUMMARY_ITEMS = 3  # changes named in a one-line summary before "and N more"

View = dict  # plain JSON data: str keys, str/bool/None/dict values

_TOKEN = re.compile(r"[^<>|&,{}:\[\]()\s]+")


# ---------------------------------------------------------------------------- element ids


def comparable(facts: ContractFacts) -> bool:
    """Whether a contract version can be compared with another: read as a whole (no
    syntax error) and a contract at all (a document that lost its ``openapi`` key is not)."""
    return facts.readable and facts.format != "unknown"


def endpoint_element(ep: Endpoint) -> str:
    """``POST /auth/login``: the method and the full path (with the contract's base)."""
    return f"{ep.method} {full_path(ep)}"


def model_element(m: Model) -> str:
    return MODEL_PREFIX + m.name


def is_model_element(element: str) -> bool:
    return element.startswith(MODEL_PREFIX)


def element_ids(facts: ContractFacts) -> list[str]:
    """Every element id of a contract, endpoints first, each once, in document order."""
    ids = [endpoint_element(ep) for ep in facts.endpoints] + [model_element(m) for m in facts.models]
    return list(dict.fromkeys(ids))


def element_span(facts: ContractFacts, element: str):
    """Where an element is declared (its ``Endpoint.span`` or ``Model.span``), or None."""
    if is_model_element(element):
        name = element[len(MODEL_PREFIX):]
        return next((m.span for m in facts.models if m.name == name), None)
    return next((ep.span for ep in facts.endpoints if endpoint_element(ep) == element), None)


# ---------------------------------------------------------------------------- views


def _text(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(_text(v) for v in value)
    return "" if value is None else str(value)


def _names_in(type_text: str, models: Mapping[str, Model]) -> list[str]:
    """The model names a type summary mentions (``array<User>``, ``A | B``, ``{u: User}``)."""
    return [t for t in _TOKEN.findall(type_text) if t in models]


def _auth(details: dict) -> str | None:
    if "auth" in details:
        return "required" if details["auth"] is True else "none"
    security = details.get("security")
    if security is None:
        return None
    schemes: set[str] = set()
    for requirement in security if isinstance(security, tuple) else ():
        if isinstance(requirement, tuple):
            for pair in requirement:
                if isinstance(pair, tuple) and pair:
                    schemes.add(str(pair[0]))
    return " | ".join(sorted(schemes)) if schemes else "none"


def _endpoint_own(ep: Endpoint, models: Mapping[str, Model]) -> tuple[View, list[str]]:
    """An endpoint's view without its models, and the models it names directly."""
    d = dict(ep.details)
    params: dict[str, dict] = {}
    body: dict[str, object] = {}
    responses: dict[str, dict[str, str]] = {}
    request_types: list[str] = []
    response_types: list[str] = []
    # OpenAPI / Swagger
    for param in d.get("parameters") or ():
        p = dict(param)
        typ = _text(p.get("type"))
        params[f"{p.get('in', '')} {p.get('name', '')}"] = {"type": typ, "required": bool(p.get("required"))}
        request_types.append(typ)
    if isinstance(d.get("requestBody"), tuple):
        rb = dict(d["requestBody"])
        content = {str(mt): _text(t) for mt, t in rb.get("content") or ()}
        body = {"content": content, "required": bool(rb.get("required"))}
        request_types += content.values()
    for status, media in d.get("responseTypes") or ():
        responses[str(status)] = {str(mt): _text(t) for mt, t in media}
        response_types += responses[str(status)].values()
    for status, _ in d.get("responses") or ():
        responses.setdefault(str(status), {})
    # SpecDSL
    request = dict(d["request"]) if isinstance(d.get("request"), tuple) else {}
    for part, where in (("params", "path"), ("query", "query")):
        for name, typ in request.get(part) or ():
            params[f"{where} {name}"] = {"type": _text(typ), "required": where == "path"}
            request_types.append(_text(typ))
    if isinstance(request.get("body"), tuple):
        body = {"fields": {str(k): _text(t) for k, t in request["body"]}}
        request_types += body["fields"].values()  # type: ignore[union-attr]
    if "successStatus" in d:
        said = _names_in(_text(d.get("successDescription")), models)
        responses[str(d["successStatus"])] = {"*": " | ".join(dict.fromkeys(said))} if said else {}
        response_types += said
    for err in d.get("errors") or ():
        e = dict(err)
        status = str(e.get("status", "?"))
        codes = {c for c in (responses.get(status, {}).get("error", ""), _text(e.get("code"))) if c}
        responses[status] = {"error": ", ".join(sorted(codes))}
    mentioned = [m for m in d.get("models") or () if isinstance(m, str)]  # SpecDSL: what the endpoint names

    view: View = {"endpoint": endpoint_element(ep), "method": ep.method, "path": ep.path, "base": ep.base_path,
                  "parameters": params, "body": body, "responses": responses}
    auth = _auth(d)
    if auth is not None:
        view["auth"] = auth
    direct = [n for t in request_types + response_types for n in _names_in(t, models)] + mentioned
    return view, direct


def _model_view(m: Model) -> View:
    return {"model": m.name, "fields": dict(m.fields)}


class Views:
    """The views of one contract version, computed once per element on demand.

    Comparing two versions compares ``signature``s: an endpoint's own part and the
    canonical fields of each model it reaches, each rendered once per version (a whole
    view repeats the fields of every model an endpoint reaches: thousands of endpoints
    reaching the same models would render them thousands of times). ``reuse``: the views of
    another version of the contract (the one before an edit), whose renderings of
    endpoints declared the same way are taken as they are (an edit of one entry renders
    that entry, not the whole contract)."""

    def __init__(self, facts: ContractFacts, reuse: "Views | None" = None) -> None:
        self.facts = facts
        self.models: dict[str, Model] = {}
        for m in facts.models:
            self.models.setdefault(m.name, m)
        self.endpoints: dict[str, Endpoint] = {}
        for ep in facts.endpoints:
            self.endpoints.setdefault(endpoint_element(ep), ep)
        self._own: dict[str, tuple[View, str, tuple[str, ...], tuple[str, ...]]] = {}
        # renderings taken from ``reuse`` (one depends on the endpoint's declaration and on
        # which names are models); no reference to it is kept
        self._taken: dict[str, tuple[View, str, tuple[str, ...]]] = {}
        if reuse is not None and reuse.models.keys() == self.models.keys():
            for element, (own, canon, _, direct) in reuse._own.items():
                ep, other = self.endpoints.get(element), reuse.endpoints[element]
                if ep is not None and ep.details == other.details and ep.path == other.path \
                        and ep.base_path == other.base_path:
                    self._taken[element] = (own, canon, direct)
        self._edges: dict[str, list[str]] = {}  # model -> the models its fields name
        self._closures: dict[frozenset[str], tuple[str, ...]] = {}
        self._model_canon: dict[str, str] = {}
        self._views: dict[str, View | None] = {}

    def ids(self) -> list[str]:
        return list(self.endpoints) + [MODEL_PREFIX + n for n in self.models]

    def _endpoint(self, element: str) -> tuple[View, str, tuple[str, ...]] | None:
        """(own view, its canonical JSON, the models it reaches, sorted)."""
        got = self._own.get(element)
        if got is None:
            ep = self.endpoints.get(element)
            if ep is None:
                return None
            taken = self._taken.pop(element, None)
            if taken is not None:
                own, canon, direct = taken
            else:
                own, found = _endpoint_own(ep, self.models)
                canon, direct = canonical(own), tuple(found)
            got = self._own[element] = (own, canon, self._reach(direct), direct)
        return got[:3]  # type: ignore[return-value]

    def _reach(self, names: Iterable[str]) -> tuple[str, ...]:
        """The models ``names`` name and every model their fields reach, sorted."""
        key = frozenset(n for n in names if n in self.models)
        got = self._closures.get(key)
        if got is None:
            seen: set[str] = set()
            todo = list(key)
            while todo:
                name = todo.pop()
                if name in seen:
                    continue
                seen.add(name)
                edges = self._edges.get(name)
                if edges is None:
                    edges = self._edges[name] = [n for _, t in self.models[name].fields for n in _names_in(t, self.models)]
                todo += [n for n in edges if n not in seen]
            got = self._closures[key] = tuple(sorted(seen))
        return got

    def reached(self, element: str) -> tuple[str, ...]:
        """The model element ids an endpoint reaches (directly or through other models)."""
        got = self._endpoint(element)
        return tuple(MODEL_PREFIX + n for n in got[2]) if got is not None else ()

    def _fields(self, name: str) -> str:
        got = self._model_canon.get(name)
        if got is None:
            got = self._model_canon[name] = canonical(dict(self.models[name].fields))
        return got

    def signature(self, element: str) -> tuple | None:
        """What decides whether two versions of an element are the same (None: absent)."""
        if is_model_element(element):
            name = element[len(MODEL_PREFIX):]
            return (self._fields(name),) if name in self.models else None
        got = self._endpoint(element)
        if got is None:
            return None
        _, canon, reached = got
        return (canon, reached, tuple(self._fields(n) for n in reached))

    def view(self, element: str) -> View | None:
        if element not in self._views:
            if is_model_element(element):
                m = self.models.get(element[len(MODEL_PREFIX):])
                self._views[element] = _model_view(m) if m is not None else None
            else:
                got = self._endpoint(element)
                if got is None:
                    self._views[element] = None
                else:
                    own, _, reached = got
                    self._views[element] = {**own, "models": {n: dict(self.models[n].fields) for n in reached}}
        return self._views[element]

    def hash(self, element: str) -> str | None:
        v = self.view(element)
        return view_hash(v) if v is not None else None


def element_view(facts: ContractFacts, element: str) -> View | None:
    """The canonical view of one element, or None when the contract has no such element."""
    return Views(facts).view(element)


def canonical(view: View) -> str:
    """The view as canonical JSON: sorted keys, no whitespace (what is hashed and stored)."""
    return json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def view_hash(view: View) -> str:
    digest = hashlib.sha256(f"specward-view-{VIEW_VERSION}\n{canonical(view)}".encode("utf-8", "surrogatepass"))
    return "sha256:" + digest.hexdigest()


def element_hash(contract_facts: ContractFacts, element_id: str) -> str | None:
    """``sha256:<64 hex digits>`` of the element's canonical view, or None when the contract
    has no such element."""
    view = element_view(contract_facts, element_id)
    return view_hash(view) if view is not None else None


def hash_matches(current: str, recorded: str) -> bool:
    """Whether a recorded hash (the full one, or a prefix of at least 8 hex digits after
    ``sha256:``, as a header writes it) is the current one."""
    recorded = recorded.strip().lower()
    return len(recorded) >= len("sha256:") + 8 and current.startswith(recorded)


# ---------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class FieldChange:
    """One change inside an element: ``what`` changed (``response field token``, ``query
    parameter page``, ``request body``), how, and the one-line ``text``."""

    what: str
    change: Literal["added", "removed", "changed"]
    old: str | None
    new: str | None
    text: str

    def plain(self) -> dict:
        return {"what": self.what, "change": self.change, "old": self.old, "new": self.new, "text": self.text}


@dataclass(frozen=True)
class ElementChange:
    element: str
    kind: Literal["endpoint", "model"]
    status: Literal["added", "removed", "changed"]
    fields: tuple[FieldChange, ...]
    summary: str  # ``POST /auth/login: response field token removed``

    def plain(self) -> dict:
        return {"id": self.element, "kind": self.kind, "status": self.status, "summary": self.summary,
                "changes": [f.plain() for f in self.fields]}


@dataclass(frozen=True)
class ContractDiff:
    """Every element that was added, removed or changed, endpoints and models apart (the
    new version's order, then what only the old one had)."""

    endpoints: tuple[ElementChange, ...] = ()
    models: tuple[ElementChange, ...] = ()

    @property
    def changes(self) -> tuple[ElementChange, ...]:
        return self.endpoints + self.models

    @property
    def empty(self) -> bool:
        return not self.endpoints and not self.models

    def of(self, kind: str, status: str) -> tuple[ElementChange, ...]:
        return tuple(c for c in (self.endpoints if kind == "endpoint" else self.models) if c.status == status)

    def plain(self) -> dict:
        return {kind: {status: [c.plain() for c in self.of(kind.rstrip("s"), status)]
                       for status in ("added", "removed", "changed")}
                for kind in ("endpoints", "models")}


def summarize(element: str, status: str, fields: Iterable[FieldChange] = ()) -> str:
    """The one-line summary of an element's change."""
    if status != "changed":
        return f"{element} {status}"
    texts = [f.text for f in fields]
    if not texts:
        return f"{element} changed"
    shown = "; ".join(texts[:MAX_SUMMARY_ITEMS])
    more = len(texts) - MAX_SUMMARY_ITEMS
    return f"{element}: {shown}" + (f"; and {more} more" if more > 0 else "")


def _change(what: str, old: str | None, new: str | None, how: str = "type") -> FieldChange | None:
    if old == new:
        return None
    if old is None:
        return FieldChange(what, "added", None, new, f"{what} added")
    if new is None:
        return FieldChange(what, "removed", old, None, f"{what} removed")
    return FieldChange(what, "changed", old, new, f"{what} {how} changed: {old or '(none)'} → {new or '(none)'}")


def _map_changes(what: str, old: Mapping[str, str], new: Mapping[str, str]) -> list[FieldChange]:
    out = []
    for key in [*new, *(k for k in old if k not in new)]:
        c = _change(f"{what} {key}", old.get(key), new.get(key))
        if c is not None:
            out.append(c)
    return out


def _param_changes(old: Mapping[str, dict], new: Mapping[str, dict]) -> list[FieldChange]:
    out = []
    for key in sorted({**old, **new}):
        where, _, name = key.partition(" ")
        what = f"{where} parameter {name}" if where else f"parameter {name}"
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            c = _change(what, a and a.get("type"), b and b.get("type"))
            if c is not None:
                out.append(c)
            continue
        c = _change(what, a.get("type"), b.get("type"))
        if c is not None:
            out.append(c)
        if bool(a.get("required")) != bool(b.get("required")):
            state = "now required" if b.get("required") else "now optional"
            out.append(FieldChange(what, "changed", str(bool(a.get("required"))).lower(),
                                   str(bool(b.get("required"))).lower(), f"{what} {state}"))
    return out


def _body_changes(old: Mapping, new: Mapping) -> list[FieldChange]:
    out: list[FieldChange] = []
    if not old and not new:
        return out
    if not old or not new:
        describe = lambda b: ", ".join(f"{k}: {v}" for k, v in sorted((b.get("content") or b.get("fields") or {}).items()))  # noqa: E731
        c = _change("request body", describe(old) if old else None, describe(new) if new else None)
        return [c] if c is not None else out
    a_fields, b_fields = old.get("fields"), new.get("fields")
    if a_fields is not None or b_fields is not None:
        out += _map_changes("request body field", a_fields or {}, b_fields or {})
    a_content, b_content = old.get("content") or {}, new.get("content") or {}
    if len(a_content) == len(b_content) == 1 and set(a_content) == set(b_content):
        c = _change("request body", next(iter(a_content.values())), next(iter(b_content.values())))
        out += [c] if c is not None else []
    else:
        out += _map_changes("request body", a_content, b_content)
    if bool(old.get("required")) != bool(new.get("required")) and ("content" in old or "content" in new):
        state = "now required" if new.get("required") else "now optional"
        out.append(FieldChange("request body", "changed", None, None, f"request body {state}"))
    return out


def _response_changes(old: Mapping[str, dict], new: Mapping[str, dict]) -> list[FieldChange]:
    out = []
    for status in sorted({**old, **new}):
        a, b = old.get(status), new.get(status)
        what = f"response {status}"
        if a is None or b is None:
            out.append(FieldChange(what, "added" if a is None else "removed", None, None,
                                   f"{what} {'added' if a is None else 'removed'}"))
            continue
        if len(a) == len(b) == 1 and set(a) == set(b):
            key = next(iter(a))
            c = _change(what, a[key], b[key], "error code" if key == "error" else "type")
            out += [c] if c is not None else []
            continue
        for media in [*b, *(m for m in a if m not in b)]:
            label = what if media in ("*", "error") else f"{what} ({media})"
            c = _change(label, a.get(media), b.get(media), "error code" if media == "error" else "type")
            if c is not None:
                out.append(c)
    return out


def _role(view: View, name: str, models: Mapping[str, dict]) -> str:
    """How an endpoint reaches model ``name``: ``response``, ``request body`` or ``model``."""
    if name in _direct_names(view.get("responses", {}).values(), models):
        return "response"
    body = view.get("body") or {}
    request = [*(body.get("content") or {}).values(), *(body.get("fields") or {}).values(),
               *(p.get("type", "") for p in (view.get("parameters") or {}).values())]
    if name in {t for text in request for t in _TOKEN.findall(text)}:
        return "request body"
    return "model"


def _direct_names(responses: Iterable[dict], models: Mapping[str, dict]) -> set[str]:
    return {t for media in responses for text in media.values() for t in _TOKEN.findall(text) if t in models}


def _model_changes(old_view: View, new_view: View) -> list[FieldChange]:
    old_models, new_models = old_view.get("models") or {}, new_view.get("models") or {}
    everything = {**old_models, **new_models}
    found: list[tuple[int, str, list[FieldChange]]] = []
    for name in new_models:
        if name not in old_models or old_models[name] == new_models[name]:
            continue  # (named or no longer named: the type that names it changed, and says so)
        role = _role(new_view, name, everything)
        rank, what = {"response": (0, "response field"), "request body": (1, "request body field")}.get(
            role, (2, f"model {name} field"))
        found.append((rank, name, _map_changes(what, old_models[name], new_models[name])))
    return [c for _, _, changes in sorted(found, key=lambda x: x[:2]) for c in changes]  # the closest first


def diff_views(old: View, new: View) -> tuple[FieldChange, ...]:
    """What changed from one view of an element to another, field by field."""
    if "model" in new or "model" in old:
        return tuple(_map_changes("field", old.get("fields") or {}, new.get("fields") or {}))
    out = _param_changes(old.get("parameters") or {}, new.get("parameters") or {})
    out += _body_changes(old.get("body") or {}, new.get("body") or {})
    out += _response_changes(old.get("responses") or {}, new.get("responses") or {})
    a, b = old.get("auth"), new.get("auth")
    if a != b:
        out.append(FieldChange("auth", "changed", a, b, f"auth changed: {a or '(not declared)'} → {b or '(not declared)'}"))
    out += _model_changes(old, new)
    return tuple(out)


def diff_contracts(old: "ContractFacts | Views", new: "ContractFacts | Views") -> ContractDiff:
    """The elements added, removed and changed from ``old`` to ``new`` (either may be given
    as its ``Views``, which keep what they rendered for the next comparison)."""
    a = old if isinstance(old, Views) else Views(old)
    b = new if isinstance(new, Views) else Views(new)
    endpoints: list[ElementChange] = []
    models: list[ElementChange] = []
    new_ids = b.ids()
    known = set(new_ids)
    for element in [*new_ids, *(e for e in a.ids() if e not in known)]:
        kind: Literal["endpoint", "model"] = "model" if is_model_element(element) else "endpoint"
        before, after = a.signature(element), b.signature(element)
        if before is None:
            change = ElementChange(element, kind, "added", (), summarize(element, "added"))
        elif after is None:
            change = ElementChange(element, kind, "removed", (), summarize(element, "removed"))
        elif before == after:
            continue
        else:
            fields = diff_views(a.view(element), b.view(element))  # type: ignore[arg-type]
            change = ElementChange(element, kind, "changed", fields, summarize(element, "changed", fields))
        (models if kind == "model" else endpoints).append(change)
    return ContractDiff(tuple(endpoints), tuple(models))


# ---------------------------------------------------------------------------- hover


def impact_card(finding: Finding) -> str | None:
    """Markdown for the hover of a contract entry with a ``contract-change-impact`` finding:
    the change and the files it affects, with why; None for any other finding."""
    if finding.code != "contract-change-impact":
        return None
    data = dict(finding.data)
    lines = [f"**{data.get('summary', finding.message)}**", ""]
    for text in data.get("changes") or ():
        lines.append(f"- {text}")
    reasons = data.get("reasons") or ()
    files = data.get("files") or ()
    lines += ["", f"This change affects {len(files)} file{'s' if len(files) != 1 else ''}" + (":" if files else ".")]
    for file, why in reasons:
        lines.append(f"- `{file}` — {why}")
    return "\n".join(lines)
