"""Phantom fields: what a call sends and what its caller reads, against the schemas of the
endpoint it matched (``docs/fields.md``).

Pure: an ``HttpCall`` (with the body, query parameters and response reads the linker found)
and the ``Endpoint`` it matched in, findings out:

* ``unknown-field``: a key of an object-literal body that the request schema does not declare
  (an error when the schema is closed, ``additionalProperties: false``; a warning otherwise),
  a property of a closed TypeScript type a value spread into the body has included
  (``Key.origin``, ``payload.typed``);
* ``missing-field``: a required property that a body whose keys are all visible leaves out;
* ``unknown-parameter``: a query parameter (a ``params`` object, a query string written into
  the URL) that the operation does not declare;
* ``missing-parameter``: a required query parameter that a literal set of parameters leaves out;
* ``unknown-response-field``: a property read from the response body (of the success status)
  that its schema does not have, nested objects and array items included.

Nothing is judged where the schema does not say (``any``, an object with no declared
properties, ``additionalProperties`` allowing anything), where the body is not visible (a
spread of something unseen makes the keys incomplete: extra keys are still judged, missing
ones are not), or where a ``oneOf`` cannot be decided. Names are compared exactly; the
message names the nearest declared one, and the rename is a quick fix
(``Finding.data["fixes"]``: ``(title, file, start, end, new_text)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import SPREAD, Endpoint, Finding, Key, ObjVal, Prop, Read, Shape, Span

FIELD_CODES = ("unknown-field", "missing-field", "unknown-parameter", "missing-parameter", "unknown-response-field")

_OBJECT_BUILTINS = frozenset({"constructor", "__proto__", "prototype"})
_ARRAY_PROPS = frozenset({"length"})
MAX_NESTING = 6


def label(ep: Endpoint) -> str:
    base = ep.base_path.rstrip("/") if ep.base_path.strip("/") else ""
    return f"{ep.method} {base}{ep.path}"


# --------------------------------------------------------------------------- names


def _norm(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance, or ``limit + 1`` once it is surely above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def nearest(name: str, candidates: list[str]) -> str | None:
    """The declared name a misspelt one most likely meant: the same name in another case or
    spelling (``authorName`` / ``author_name``), else the closest within a small edit
    distance (about a third of the name)."""
    if not candidates:
        return None
    n = _norm(name)
    for c in candidates:
        if _norm(c) == n:
            return c
    limit = max(1, min(3, len(name) // 3))
    best, best_d = None, limit + 1
    for c in candidates:
        d = _distance(name.lower(), c.lower(), limit)
        if d < best_d or (d == best_d and best is not None and c < best):
            best, best_d = c, d
    return best


def guess(name: str, declared: list[str], unsent: list[str], unknown: int) -> str | None:
    """What an unknown body key most likely stands for: the nearest declared name by spelling,
    else, when it is the only unknown key and one declared field alone is not sent, that one
    (``{ title, content }`` against ``title``, ``body``: ``body``). (Query parameters are
    guessed by spelling only: a query string often sets names of its own.)"""
    near = nearest(name, declared)
    if near is None and unknown == 1 and len(unsent) == 1:
        return unsent[0]
    return near


# --------------------------------------------------------------------------- bodies


@dataclass
class _Keys:
    """The keys an object sends: the ones written (with their spans and nested objects), and
    whether they are all of them."""

    written: list[tuple[Key, ObjVal | None]]
    complete: bool


def sent_keys(obj: ObjVal, depth: int = 0) -> _Keys:
    """Keys of an object literal, through the spreads it can see (a later key wins)."""
    written: dict[str, tuple[Key, ObjVal | None]] = {}
    complete = not obj.computed
    values = {k: v for k, v in obj.fields if k != SPREAD}
    spreads = [v for k, v in obj.fields if k == SPREAD]
    for v in spreads:
        if type(v) is ObjVal and depth < MAX_NESTING:
            inner = sent_keys(v, depth + 1)
            complete = complete and inner.complete
            for key, nested in inner.written:
                written.setdefault(key.name, (key, nested))
        else:
            complete = False
    for key in obj.keys:
        v = values.get(key.name)
        written[key.name] = (key, v if type(v) is ObjVal and v.keys else None)
    if not obj.keys and obj.fields and not spreads:
        complete = False  # made by hand (an older fact): its keys are not all known
    return _Keys(list(written.values()), complete)


def _object_shapes(shape: Shape) -> list[Shape] | None:
    """The object shapes a value of ``shape`` may take (the branches of a union), or None when
    it is not an object whose properties are known."""
    if shape.type == "union":
        out: list[Shape] = []
        for b in shape.branches:
            got = _object_shapes(b)
            if got is None:
                return None  # a branch that may be anything
            out.extend(got)
        return out or None
    if shape.type == "object" and not shape.open and shape.props:
        return [shape]
    return None


class _Check:
    def __init__(self, call_file: str, ep: Endpoint, call_span: Span) -> None:
        self.file = call_file
        self.call_span = call_span
        self.ep = ep
        self.where = label(ep)
        self.out: list[Finding] = []
        self.seen: set[tuple[str, int, int, str]] = set()

    def add(self, code: str, severity: str, message: str, span: Span, file: str | None = None,
            fixes: tuple = (), **data: object) -> None:
        key = (code, span.start, span.end, message)  # (two names of one query string share a span)
        if key in self.seen:
            return
        self.seen.add(key)
        extra: list[tuple[str, object]] = [("endpoint", self.where)]
        extra.extend((k, v) for k, v in data.items() if v is not None)
        if fixes:
            extra.append(("fixes", fixes))
        self.out.append(Finding(code, severity, message, file or self.file, span, tuple(extra)))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ request body
    def body(self, obj: ObjVal, shape: Shape, path: str, file: str, depth: int = 0) -> None:
        shapes = _object_shapes(shape)
        if shapes is None or depth > MAX_NESTING:
            return
        keys = sent_keys(obj)
        names = {k.name for k, _ in keys.written}
        # a oneOf/anyOf: the branches that declare every key sent
        fitting = [s for s in shapes if all(_request_prop(s, n) is not None for n in names)]
        if not fitting:
            declared = _request_names(shapes)
            closed = all(s.closed for s in shapes)
            unknown = [key for key, _ in keys.written
                       if not any(_request_prop(s, key.name) is not None for s in shapes)]
            unsent = [n for n in declared if n not in names]
            meant = set()
            for key in unknown:
                # (a type's property is guessed by spelling only: the type was not typed for this call)
                g = guess(key.name, declared, unsent, len(unknown)) if not key.origin else nearest(key.name, declared)
                meant.add(nearest(key.name, declared))  # (a guess by spelling, not by elimination)
                if key.span.start >= 0:  # (a key a wrapper writes is reported at the wrapper, not here)
                    self._unknown_key(key, path, g, closed, file)
            if keys.complete and len(shapes) == 1:  # what no unknown key seems to stand for is missing
                missing = [p.name for p in shapes[0].props
                           if p.required and not p.read_only and p.name not in names and p.name not in meant]
                if missing:
                    self._missing(obj, missing, path, file, keys)
            return
        for key, nested in keys.written:
            if nested is None:
                continue
            props = [p for s in fitting if (p := _request_prop(s, key.name)) is not None]
            if len(props) == 1:
                self.body(nested, props[0].shape, f"{path}{key.name}.", file, depth + 1)
        if keys.complete and len(fitting) == 1:
            missing = [p.name for p in fitting[0].props if p.required and not p.read_only and p.name not in names]
            if missing:
                self._missing(obj, missing, path, file, keys)

    def _unknown_key(self, key: Key, path: str, guess: str | None, closed: bool, file: str) -> None:
        hint = f"; did you mean `{guess}`?" if guess else ""
        whose = f"the request body of {self.where}" if not path else f"`{path.rstrip('.')}` in the request body of {self.where}"
        fixes: tuple = ()
        if guess is not None and not key.origin:  # (a key a type declares is renamed in the type, not here)
            new = f"{guess}: {key.name}" if key.shorthand else guess
            fixes = ((f"Rename to `{guess}`", file, key.span.start, key.span.end, new),)
        origin = f" (from {key.origin})" if key.origin else ""
        self.add("unknown-field", "error" if closed else "warning",
                 f"`{path}{key.name}` is not a field of {whose}{origin}{hint}", key.span, file, fixes,
                 field=path + key.name, nearest=guess)

    def _missing(self, obj: ObjVal, missing: list[str], path: str, file: str, keys: _Keys) -> None:
        names = ", ".join(f"`{path}{m}`" for m in missing)
        what = "field" if len(missing) == 1 else "fields"
        # keys a declared type gave: the type is what leaves it out
        typed = sorted({k.origin for k, _ in keys.written if k.origin})
        why = f" (not declared by {' nor '.join(typed)})" if typed else ""
        message = f"The request body of {self.where} requires {what} {names}{why}"
        if obj.span.start < 0:  # a wrapper's own object: said at the call
            self.add("missing-field", "error", message, self.call_span, file, fields=tuple(missing))
            return
        if not obj.fields and obj.keys and all(k.origin for k in obj.keys):  # the body is a typed value itself
            self.add("missing-field", "error", message, obj.span, file, fields=tuple(missing))
            return
        span = Span(obj.span.start, obj.span.start + 1)
        # the quick fix needs the literal's text: ``ide.add_fields`` writes it from these
        self.add("missing-field", "error", message, span, file, fields=tuple(missing),
                 object=(obj.span.start, obj.span.end))

    # ------------------------------------------------------------------ parameters
    def params(self, obj: ObjVal | None, query: tuple[str, ...], url_span: Span) -> None:
        schemas = self.ep.schemas
        if schemas is None or (obj is None and not query):
            return
        declared = [p.name for p in schemas.params if p.location == "query"]
        paths = {p.name for p in schemas.params if p.location == "path"}
        sent: set[str] = set(query)
        complete = True
        if obj is not None:
            keys = sent_keys(obj)
            complete = keys.complete
            sent |= {key.name for key, _ in keys.written}
        if schemas.params_complete:
            written = [(key.name, key.span, key) for key, _ in keys.written] if obj is not None else []
            written += [(name, url_span, None) for name in query]
            for name, span, key in written:
                if name not in declared:
                    self._unknown_param(name, span, nearest(name, declared), paths, self.file, key)
        if complete:
            missing = [p.name for p in schemas.params if p.location == "query" and p.required and p.name not in sent]
            if missing:
                names = ", ".join(f"`{m}`" for m in missing)
                literal = obj is not None and obj.span.start >= 0
                span = Span(obj.span.start, obj.span.start + 1) if literal else url_span  # type: ignore[union-attr]
                self.add("missing-parameter", "error",
                         f"{self.where} requires the query parameter{'s' if len(missing) > 1 else ''} {names}",
                         span, fields=tuple(missing),
                         object=(obj.span.start, obj.span.end) if literal else None)  # type: ignore[union-attr]

    def _unknown_param(self, name: str, span: Span, guess: str | None, paths: set[str], file: str,
                       key: Key | None) -> None:
        declared = [p.name for p in self.ep.schemas.params if p.location == "query"] if self.ep.schemas else []
        if name in paths:
            msg = f"`{name}` is a path parameter of {self.where}, not a query parameter"
            guess = None
        else:
            hint = f"; did you mean `{guess}`?" if guess else ""
            none = " (it declares none)" if not declared else ""
            msg = f"`{name}` is not a query parameter of {self.where}{none}{hint}"
        fixes: tuple = ()
        if guess is not None and key is not None:
            fixes = ((f"Rename to `{guess}`", file, key.span.start, key.span.end,
                      f"{guess}: {key.name}" if key.shorthand else guess),)
        self.add("unknown-parameter", "warning", msg, span, file, fixes, parameter=name, nearest=guess)

    # ------------------------------------------------------------------ response
    def reads(self, reads: tuple[Read, ...], shape: Shape, status: str) -> None:
        for read in reads:
            self._walk(read, shape, status)

    def _walk(self, read: Read, shape: Shape, status: str) -> None:
        cur = shape
        walked: list[str] = []
        for step, span in zip(read.steps, read.spans):
            if step == "[]":
                items = _items(cur)
                if items is None:
                    return
                cur = items
                walked.append("[]")
                continue
            if step.endswith("()") or step == "await":
                return  # a method of the value: what it gives is not followed
            shapes = _object_shapes(cur)
            if shapes is None:
                return
            props = [p for s in shapes if (p := s.prop(step)) is not None]
            if not props:
                if step in _OBJECT_BUILTINS:
                    return
                declared = sorted({p.name for s in shapes for p in s.props if not p.write_only})
                guess = nearest(step, declared)
                hint = f"; did you mean `{guess}`?" if guess else ""
                inside = "".join(("[]" if w == "[]" else f".{w}") for w in walked).lstrip(".")
                whose = f"`{inside}` in the response" if inside else "the response"
                fixes = ((f"Rename to `{guess}`", self.file, span.start, span.end, guess),) if guess else ()
                self.add("unknown-response-field", "warning",
                         f"`{step}` is not a field of {whose} of {self.where} ({status}){hint}", span, fixes=fixes,
                         field=step, nearest=guess)
                return
            cur = props[0].shape if len(props) == 1 else Shape("union", branches=tuple(p.shape for p in props))
            walked.append(step)


def _request_prop(shape: Shape, name: str) -> Prop | None:
    p = shape.prop(name)
    if p is None and shape.open:
        return Prop(name, Shape())
    return p


def _request_names(shapes: list[Shape]) -> list[str]:
    return sorted({p.name for s in shapes for p in s.props if not p.read_only})


def _items(shape: Shape) -> Shape | None:
    if shape.type == "array":
        return shape.items if shape.items is not None else Shape()
    if shape.type == "union":
        items = [i for b in shape.branches if (i := _items(b)) is not None]
        if len(items) == 1:
            return items[0]
        return Shape("union", branches=tuple(items)) if items else None
    return None


# --------------------------------------------------------------------------- entry point


def catch_all(ep: Endpoint) -> bool:
    """An operation whose whole path is one parameter (``GET /{path}``): a fallback route that
    answers any one-segment path (static files, the app's shell), not an operation the call
    chose. Its schemas say nothing about the request (``/initialize.json?t=...`` sends a
    cache-buster no such route declares), so nothing is judged against them."""
    segs = [s for s in ep.path.split("/") if s]
    return len(segs) == 1 and segs[0].startswith("{") and segs[0].endswith("}") and segs[0].count("{") == 1


def check(call, ep: Endpoint) -> list[Finding]:
    """The field findings of one matched call (``call`` is an ``http.HttpCall``)."""
    schemas = ep.schemas
    if schemas is None or catch_all(ep):
        return []
    c = _Check(call.file, ep, call.span)
    if call.body is not None and schemas.body is not None and ep.method not in ("GET", "HEAD", "DELETE", "OPTIONS"):
        c.body(call.body, schemas.body, "", call.file)
    if call.params is not None or call.query:
        c.params(call.params, call.query, call.span)
    if call.reads and schemas.response is not None:
        c.reads(call.reads, schemas.response, schemas.response_status or "success")
    return c.out
