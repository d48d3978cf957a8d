"""Editor features over plain data: what is under the cursor, hover cards, completion
candidates, quick-fix texts. Pure: offsets in, strings and plain tuples out; the server
turns them into LSP types (``server/lsp/convert.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from .contracts.common import normalize_path
from .contracts.positions import MapNode, parse_json, parse_yaml
from .http_call import HttpCall
from .schema_card import schema_lines
from .matching import CallStatus, EndpointTable, full_path
from .model import ContractFacts, Endpoint, Finding, Model, Route, Span
from .routes import ComposedRoute

_PARAM = re.compile(r"\{([^{}/]*)\}")


def _contains(span: Span, offset: int) -> bool:
    return span.start <= offset <= span.end


def call_at(statuses: Iterable[CallStatus], offset: int) -> CallStatus | None:
    """The call whose URL (preferred) or call expression contains ``offset``; the
    innermost when several do."""
    best: CallStatus | None = None
    best_width = 0
    for st in statuses:
        c = st.call
        span = c.span if _contains(c.span, offset) else c.call_span if _contains(c.call_span, offset) else None
        if span is not None and (best is None or span.end - span.start < best_width):
            best, best_width = st, span.end - span.start
    return best


def endpoint_at(contract: ContractFacts, offset: int) -> Endpoint | None:
    for ep in contract.endpoints:
        if _contains(ep.span, offset):
            return ep
    return None


def model_at(contract: ContractFacts, offset: int) -> Model | None:
    for m in contract.models:
        if _contains(m.span, offset):
            return m
    return None


# ---------------------------------------------------------------------------- what a cursor designates


@dataclass(frozen=True)
class PathKey:
    """A key under the top-level ``paths`` of an OpenAPI or Swagger document (YAML or
    JSON): the key as written, its span (quotes included when it is quoted) and the span of
    its value, the path item."""

    key: str
    span: Span
    item: Span


@dataclass(frozen=True)
class Designated:
    """The endpoints a cursor position in a contract stands for. ``kind`` is "operation"
    on an endpoint's own span (an OpenAPI method key, a SpecDSL ``path`` value) and "path"
    on an OpenAPI/Swagger path key, which stands for every operation of that path (possibly
    none). ``span`` is the key or value under the cursor; ``path`` the path as a client
    calls it (with the base path when all the operations share one)."""

    kind: str
    span: Span
    path: str
    endpoints: tuple[Endpoint, ...]


def _is_json(file: str, text: str) -> bool:
    # the same choice as ``contracts.parse_contract``: the extension, else the first character
    lower = file.lower()
    if lower.endswith(".json"):
        return True
    if lower.endswith((".yaml", ".yml")):
        return False
    return text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def has_path_keys(contract: ContractFacts) -> bool:
    """Whether the contract's format keeps its paths as keys under ``paths`` (OpenAPI and
    Swagger do; SpecDSL and documents that are no contract do not)."""
    return contract.format not in ("specdsl", "unknown")


def path_keys(file: str, text: str) -> tuple[PathKey, ...]:
    """The path keys of a contract's text, in document order (``x-`` extensions left out).
    Format-agnostic over OpenAPI and Swagger: only the ``paths`` → path key → method key
    shape counts. Empty when the text holds no ``paths`` mapping (or no document)."""
    parsed = parse_json(text) if _is_json(file, text) else parse_yaml(text)
    root = parsed.root
    paths = root.get("paths") if isinstance(root, MapNode) else None
    if not isinstance(paths, MapNode):
        return ()
    return tuple(PathKey(key, span, node.span) for key, span, node in paths.entries if not key.startswith("x-"))


def _within(inner: Span, outer: Span) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def operations_of(contract: ContractFacts, key: PathKey) -> tuple[Endpoint, ...]:
    """The endpoints declared under a path key: their span lies in its path item, or is the
    key itself (a path item reached through ``$ref`` puts its endpoints on the key). A
    path item written as a YAML alias shares its spans with the anchored one: the path
    then decides between the two."""
    inside = [ep for ep in contract.endpoints if ep.span == key.span or _within(ep.span, key.item)]
    same = [ep for ep in inside if ep.path == normalize_path(key.key)]
    return tuple(same or inside)


def endpoints_at(contract: ContractFacts, offset: int, keys: Sequence[PathKey] = ()) -> Designated | None:
    """What a cursor at ``offset`` in a contract designates: on a path key (``keys``, from
    ``path_keys`` of the contract's text) every operation of that path; on an endpoint's
    own span that endpoint; else None."""
    for key in keys:
        if _contains(key.span, offset):
            eps = operations_of(contract, key)
            paths = {full_path(ep) for ep in eps}
            path = paths.pop() if len(paths) == 1 else normalize_path(key.key)
            return Designated("path", key.span, path, eps)
    ep = endpoint_at(contract, offset)
    if ep is None:
        return None
    return Designated("operation", ep.span, full_path(ep), (ep,))


# ---------------------------------------------------------------------------- hover


def _value(v: object) -> str:
    if isinstance(v, tuple) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return ", ".join(f"{k}: {_value(x)}" for k, x in v)
    if isinstance(v, tuple):
        return ", ".join(_value(x) for x in v)
    return str(v)


def endpoint_card(ep: Endpoint, models: dict[str, Model], where: str) -> str:
    """Markdown: method and path, summary, auth, parameters and body, responses, errors,
    referenced models with their fields, and where it is declared."""
    d = dict(ep.details)
    lines = [f"**{ep.method} {full_path(ep)}**" + (f" — `{ep.id}`" if ep.id else "")]
    summary = ep.summary or d.get("description")
    if summary:
        lines += ["", str(summary)]
    if d.get("description") and d.get("description") != summary:
        lines += ["", str(d["description"])]
    facts = []
    if "auth" in d:
        facts.append(f"- auth: {'required' if d['auth'] else 'none'}")
    if d.get("security"):
        facts.append(f"- security: {_value(d['security'])}")
    request = dict(d["request"]) if isinstance(d.get("request"), tuple) else {}
    for key, label in (("params", "path"), ("query", "query"), ("body", "body")):
        fields = request.get(key)
        if fields:
            facts.append(f"- {label}: " + ", ".join(f"`{k}: {_value(t)}`" for k, t in fields))
    for param in d.get("parameters", ()) or ():
        p = dict(param)
        facts.append(f"- {p.get('in', 'param')}: `{p.get('name')}: {p.get('type', '?')}`"
                     + (" (required)" if p.get("required") else ""))
    if d.get("requestBody"):
        facts.append(f"- body: {_value(d['requestBody'])}")
    if d.get("successStatus"):
        facts.append(f"- success: {d['successStatus']}" + (f" {d['successDescription']}" if d.get("successDescription") else ""))
    for status, desc in d.get("responses", ()) or ():
        facts.append(f"- {status}: {_value(desc)}")
    for err in d.get("errors", ()) or ():
        e = dict(err)
        facts.append(f"- error {e.get('status', '?')} `{e.get('code', '')}`: {e.get('description', '')}")
    if facts:
        lines += [""] + facts
    if ep.schemas is not None:
        schema = schema_lines(ep.schemas)
        if schema:
            lines += [""] + schema
    used = [models[m] for m in (d.get("models") or ()) if m in models]
    for m in used:
        lines += ["", f"**{m.name}** " + ", ".join(f"`{n}: {t}`" for n, t in m.fields)]
    lines += ["", f"Declared in `{where}`"]
    return "\n".join(lines)


def hover_call(st: CallStatus, models: dict[str, Model], where: str | None, near: Sequence[Endpoint]) -> str:
    c = st.call
    label = f"{c.method} {c.template}" if c.template else c.method
    if st.status == "matched" and st.endpoint is not None:
        return endpoint_card(st.endpoint, models, where or st.endpoint.file)
    if st.status == "method-mismatch" and st.endpoint is not None:
        return (f"**{label}** — method not declared\n\nThe contract has `{full_path(st.endpoint)}` with other "
                f"methods only.\n\n" + endpoint_card(st.endpoint, models, where or st.endpoint.file))
    if st.status == "phantom":
        text = f"**{label}** — not in the contract"
        if near:
            text += "\n\nNearest declared endpoints:\n" + "\n".join(f"- `{ep.method} {full_path(ep)}`" for ep in near)
        return text
    why = c.reason or "specward could not resolve this URL statically"
    return f"**{label}** — unresolved\n\n{why}. specward never guesses such calls, so it checks nothing here."


def hover_endpoint(ep: Endpoint, callers: Sequence[tuple[str, int]]) -> str:
    head = f"**{ep.method} {full_path(ep)}**"
    if not callers:
        return head + "\n\nNo call in the workspace reaches this endpoint."
    shown = "\n".join(f"- `{f}:{line}`" for f, line in callers[:5])
    more = f"\n- … and {len(callers) - 5} more" if len(callers) > 5 else ""
    return f"{head}\n\n{len(callers)} call{'s' if len(callers) != 1 else ''}:\n{shown}{more}"


def hover_path(path: str, operations: Sequence[tuple[Endpoint, Sequence[tuple[str, int]]]]) -> str:
    """Markdown for a path key: each operation declared under it, with how many calls reach
    it and the first three locations."""
    head = f"**{path}**"
    if not operations:
        return head + "\n\nNo operation is declared under this path."
    lines = [head, ""]
    for ep, callers in operations:
        n = len(callers)
        calls = f"{n} call{'s' if n != 1 else ''}" if n else "no call"
        lines.append(f"- `{ep.method}`" + (f" {ep.summary}" if ep.summary else "") + f" — {calls}")
        lines += [f"  - `{f}:{line}`" for f, line in callers[:3]]
        if n > 3:
            lines.append(f"  - … and {n - 3} more")
    return "\n".join(lines)


_WORD = re.compile(rb"[A-Za-z_$][\w$]*")
_IMPORT_LINE = re.compile(rb"^\s*(import\b|from\s+\S+\s+import\b|export\s+(type\s+)?\{)")


def imported_name_at(line: bytes, column: int) -> str | None:
    """The identifier at ``column`` (bytes) of ``line`` when the line is an import
    (``import { User } from './api'``, ``from app.models import User``)."""
    if not _IMPORT_LINE.match(line):
        return None
    for m in _WORD.finditer(line):
        if m.start() <= column <= m.end():
            return m.group(0).decode()
    return None


def hover_model(m: Model) -> str:
    return f"**{m.name}**\n\n" + "\n".join(f"- `{n}`: {t}" for n, t in m.fields)


def hover_finding(finding: Finding) -> str | None:
    """The card of an import a finding is about, when the finding has a history (a
    ``repeated-hallucination``: the fix-history ledger's records of the same mistake);
    None otherwise (the diagnostic says it all)."""
    if not dict(finding.data).get("history"):
        return None
    from .ledger import hover_text

    return hover_text(finding)


# ---------------------------------------------------------------------------- completion


@dataclass(frozen=True)
class PathCompletion:
    label: str  # the path as the user will see it in the string
    snippet: str  # with ${1:param} placeholders
    method: str
    preferred: bool  # accepts the call's method
    endpoint: Endpoint


def snippet_of(path: str, quote: str = "'", prefix: str = "") -> str:
    """``/articles/{slug}`` -> ``/articles/${1:slug}``: a snippet with one placeholder per
    parameter. In a JS template literal the placeholder becomes an interpolation
    (`` `/articles/${slug}` ``), in a Python f-string a replacement field."""
    counter = iter(range(1, 1000))
    if quote == "`":
        wrap = "\\${%s}"
    elif "f" in prefix.lower():
        wrap = "{%s}"
    else:
        wrap = "%s"
    return _PARAM.sub(lambda m: wrap % ("${%d:%s}" % (next(counter), m.group(1) or "param")),
                      path.replace("$", "\\$"))


def path_completions(table: EndpointTable, method: str | None, base: str = "", quote: str = "'",
                     prefix: str = "") -> list[PathCompletion]:
    """Every declared path for a call whose client adds ``base``; those accepting
    ``method`` first."""
    out: dict[tuple[str, str], PathCompletion] = {}
    base = base.rstrip("/")
    for ep in table.endpoints:
        path = full_path(ep)
        if base and path.startswith(base + "/"):
            path = path[len(base):]
        preferred = method in (None, "UNKNOWN", ep.method)
        key = (path, ep.method)
        if key not in out:
            out[key] = PathCompletion(path, snippet_of(path, quote, prefix), ep.method, preferred, ep)
    return sorted(out.values(), key=lambda c: (not c.preferred, c.label, c.method))


def call_base(call: HttpCall) -> str:
    """The base the call's client or base constant adds in front of what is written."""
    if not call.template or not call.relative or call.relative == call.template:
        return ""
    if call.relative == "/":
        return call.template
    if call.template.endswith(call.relative):
        return call.template[: len(call.template) - len(call.relative)]
    return ""


_OPEN_CALL = re.compile(
    r"(?P<callee>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?:<[^()]*>)?\(\s*(?P<prefix>[fFrR]{0,2})"
    r"(?P<quote>[`'\"])(?P<typed>[^`'\"]*)$")
_VERB = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "del": "DELETE",
         "head": "HEAD", "options": "OPTIONS"}
_HTTP_CALLEES = ("fetch", "axios", "$fetch", "ofetch", "ky", "useSWR", "useRequest", "useFetch", "request", "superagent")


@dataclass(frozen=True)
class UrlContext:
    callee: str
    method: str  # "UNKNOWN" when the call does not say
    typed: str  # what is already typed inside the string, up to the cursor
    quote: str
    prefix: str  # Python string prefix (f, r, ...)


def url_context(line_prefix: str) -> UrlContext | None:
    """For the text of a line up to the cursor, when the cursor is inside the first string
    argument of a call that looks like an HTTP call. Text-based on purpose: while the user
    types, the string is often unterminated and the syntax tree cannot see the call."""
    m = _OPEN_CALL.search(line_prefix)
    if m is None:
        return None
    callee = m.group("callee")
    last = callee.rpartition(".")[2]
    if last.lower() in _VERB:
        method = _VERB[last.lower()]
    elif last in _HTTP_CALLEES or callee in _HTTP_CALLEES:
        method = "UNKNOWN"
    else:
        return None
    return UrlContext(callee, method, m.group("typed"), m.group("quote"), m.group("prefix"))


# ---------------------------------------------------------------------------- quick fixes


def rewrite_path(source: str, new_path: str) -> str | None:
    """Replace the path of a URL argument written as ``source`` (a string, template or
    f-string literal, quotes included) with ``new_path`` (``{param}`` templates), keeping
    the literal's kind, any scheme/host or query part, and the dynamic parts of segments
    that stay parameters. None when the source is not a single literal."""
    m = re.fullmatch(r"(?P<prefix>[fFrRbB]{0,2})(?P<q>`|'|\")(?P<body>.*)(?P=q)", source, re.S)
    if m is None:
        return None
    prefix, q, body = m.group("prefix"), m.group("q"), m.group("body")
    template = q == "`" or "f" in prefix.lower()
    head = ""
    hm = re.match(r"(?:[a-zA-Z][\w+.-]*://[^/]*)|(?:\$\{[^}]*\})+|(?:\{[^}]*\})+", body)
    if hm and not body.startswith("/"):
        head, body = hm.group(0), body[hm.end():]
    tail = ""
    for sep in ("?", "#"):
        i = body.find(sep)
        if i >= 0:
            body, tail = body[:i], body[i:] + tail
            break
    old_segs = body.split("/")
    new_segs = new_path.split("/")
    out = []
    for i, seg in enumerate(new_segs):
        pm = _PARAM.fullmatch(seg)
        if pm is None:
            out.append(seg)
            continue
        old = old_segs[i] if i < len(old_segs) else ""
        if template and ("${" in old or (old.startswith("{") and "f" in prefix.lower())):
            out.append(old)
        elif template:
            name = pm.group(1) or "param"
            out.append("{" + name + "}" if "f" in prefix.lower() else "${" + name + "}")
        else:
            out.append(seg)  # a plain string cannot hold a placeholder: leave {param} visible
    return f"{prefix}{q}{head}{'/'.join(out)}{tail}{q}"


def relative_to_call(ep: Endpoint, call: HttpCall) -> str:
    """The endpoint's path as this call writes it: without the base its client adds, and
    with or without the contract's base path as the call itself does."""
    base = call_base(call).rstrip("/")
    for path in (full_path(ep), ep.path):
        if base and path.startswith(base + "/"):
            return path[len(base):]
    contract_base = ep.base_path.rstrip("/")
    if contract_base and call.template and not call.template.startswith(contract_base + "/"):
        return ep.path
    return full_path(ep)


# ---------------------------------------------------------------------------- backend routes


def route_declaration_at(routes: Sequence[Route], offset: int, line: Span | None = None) -> Route | None:
    """The route declaration a cursor at ``offset`` designates: the one whose path or
    handler name (its ``def``, its ``function``) contains it; else, when ``line`` (the
    cursor's line) holds exactly one declaration's path, that one (the cursor elsewhere on
    ``@router.get("/{slug}")``). Two declarations on the line and the cursor on neither:
    None (no guess). A declaration that stands for several methods (a view's) is several
    routes with one span: the first is returned, the span says which others go with it."""
    for r in routes:
        if _contains(r.span, offset) or (r.handler_span is not None and _contains(r.handler_span, offset)):
            return r
    if line is None:
        return None
    on_line = [r for r in routes if line.start <= r.span.start <= line.end]
    return on_line[0] if len({r.span for r in on_line}) == 1 else None


def _specificity(route_path: str, contract_path: str) -> int | None:
    """How closely a route's path implements a contract path, segment by segment: None
    when a parameter of the contract meets a literal of the route (``/users/{id}`` is not
    implemented by ``/users/me``) or the shapes differ; else the number of literal
    segments the two share (a literal route beats a parameter one for ``/users/me``)."""
    rs = [s for s in route_path.split("/") if s]
    cs = [s for s in contract_path.split("/") if s]
    if len(rs) != len(cs):
        return None
    score = 0
    for r, c in zip(rs, cs):
        if "{" in c:
            if "{" not in r:
                return None
        elif "{" not in r:
            score += 1
    return score


def implemented_endpoints(composed: Sequence[ComposedRoute],
                          endpoints: Sequence[Endpoint]) -> dict[ComposedRoute, tuple[Endpoint, ...]]:
    """Which contract endpoints each resolved route implements, judged as ``routes.drift``
    judges them: per contract file, only when the routes implement at least half of its
    paths, in the frame (with the servers base path, or without it) most of its paths match
    in; the method the same (or the route's ``ANY``); parameters of any name. When several
    routes fit one endpoint, only the most specific ones implement it, and a route whose
    literal segment meets a parameter of the contract implements nothing: a contract
    entry is never tied to a route the framework would not send it to. And while some
    route's full path is not known (a prefix that is not a literal), an endpoint its known
    part would fit (``/admin/users/{id}`` and ``/users/{user_id}`` under
    ``settings.ADMIN_PREFIX``) is tied to no route matched without the contract's base path:
    the unknown one may be it."""
    resolved = [c for c in composed if c.unresolved is None]
    unknown = [c for c in composed if c.unresolved is not None and c.path.strip("/")]
    if not resolved or not endpoints:
        return {}
    table = EndpointTable([Endpoint(c.method, c.path, c.file, c.route.span) for c in resolved])
    back: dict[tuple[str, str, str, Span], list[ComposedRoute]] = {}
    for c in resolved:
        back.setdefault((c.file, c.method, c.path, c.route.span), []).append(c)
    by_file: dict[str, list[Endpoint]] = {}
    for ep in endpoints:
        by_file.setdefault(ep.file, []).append(ep)
    out: dict[ComposedRoute, list[Endpoint]] = {}
    for file in sorted(by_file):
        eps = by_file[file]
        full = len({full_path(ep) for ep in eps if table.lookup(full_path(ep))})
        bare = len({ep.path for ep in eps if table.lookup(ep.path)})
        if 2 * max(full, bare) < len({ep.path for ep in eps}):
            continue  # not (all) this backend's contract: drift judges nothing there either
        use_full = full >= bare
        for ep in eps:
            path = full_path(ep) if use_full else ep.path
            ranked: list[tuple[tuple[int, bool], Endpoint]] = []
            for r in table.lookup(path):
                if r.method not in (ep.method, "ANY"):
                    continue
                score = _specificity(r.path, path)
                if score is not None:
                    ranked.append(((score, r.method == ep.method), r))
            if not ranked:
                continue
            if not use_full and any(_may_be(u, ep) for u in unknown):
                continue  # in doubt: a route whose full path is not known may be the one
            best = max(rank for rank, _ in ranked)
            for rank, r in ranked:
                if rank == best:
                    for c in back[(r.file, r.method, r.path, r.span)]:
                        out.setdefault(c, []).append(ep)
    return {c: tuple(eps) for c, eps in out.items()}


def _may_be(c: ComposedRoute, ep: Endpoint) -> bool:
    """Whether a route whose full path is not known may implement ``ep``: the method fits,
    and the part of its path that is known fits the end of the endpoint's full path
    (segment by segment, a parameter on either side fitting anything)."""
    if c.method not in (ep.method, "ANY"):
        return False
    known = [s for s in c.path.split("/") if s]
    wanted = [s for s in full_path(ep).split("/") if s]
    if len(known) > len(wanted):
        return False
    tail = wanted[len(wanted) - len(known):]
    return all("{" in k or "{" in w or k.lower() == w.lower() for k, w in zip(known, tail))


def written_path(c: ComposedRoute) -> str:
    """The path as its declaration writes it (normalized: ``{id}``), without the prefixes
    of its router and of the mounts above it."""
    own = [s.text for s in c.steps if s.kind == "route"]
    return own[-1] if own else c.route.path


def add_fields(text: str, names: tuple[str, ...], endpoint: str, python: bool = False) -> tuple[int, str] | None:
    """Where and what to insert into an object (or dict) literal's ``text`` to add the
    required ``names`` with a placeholder the user must fill: ``title: /* required by POST
    /notes */`` (JavaScript, left invalid on purpose), ``"title": ...,  # required by POST
    /notes`` (Python). One line per field in a literal written on several lines, at its
    indentation; inline otherwise. Returns (offset in ``text``, new text), None when ``text``
    is not a literal in braces."""
    body = text.rstrip()
    if not names or not body.startswith("{") or not body.endswith("}"):
        return None
    close = len(body) - 1
    inner = body[1:close]
    stripped = inner.rstrip()
    comma = bool(stripped.strip()) and not stripped.endswith(",")
    if "\n" in inner:
        # after the last entry, one line per field, at the indentation of the entries
        last_nl = inner.rstrip().rfind("\n")
        line = inner[last_nl + 1:] if last_nl >= 0 else inner
        indent = line[: len(line) - len(line.lstrip())] if stripped.strip() else "  "
        at = 1 + len(stripped)
        pieces = []
        for n in names:
            if python:
                pieces.append(f"\n{indent}\"{n}\": ...,  # required by {endpoint}")
            else:
                pieces.append(f"\n{indent}{n}: /* required by {endpoint} */,")
        return at, ("," if comma else "") + "".join(pieces)
    at = 1 + len(stripped)
    sep = ", " if stripped.strip() else " "
    if python:
        added = ", ".join(f"\"{n}\": ..." for n in names)
        return at, (sep if comma or not stripped.strip() else " ") + added + (" " if not stripped.strip() else "")
    added = ", ".join(f"{n}: /* required by {endpoint} */" for n in names)
    lead = sep if comma or not stripped.strip() else " "
    return at, lead + added + (" " if not stripped.strip() or not inner.endswith(" ") else "")
