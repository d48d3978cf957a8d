"""How a recorded call's value is used in the function that makes it: ``CallSite.reads``
(``model.Read``), for ``ecma.py``'s ``_Program`` (a mixin: ``ReadsMixin``).

Computed only for the call sites the extractor records, from the call node upwards (a walk
over parents: each step is decided by the parent's node type and the field the value sits
in), and through the uses of the variables the value is bound to: the places the name is
written in the function (a byte search) whose node is an identifier. (No query: a query
over the function lists every identifier of it, measured about three times the cost of the
byte search on the Sonarr corpus.)

Steps, from the call's value:

* ``await``: an ``await`` (span: the keyword), or the parameter of a ``.then(cb)`` /
  ``.then(cb, onError)`` / ``.subscribe(cb)`` callback (span: ``then``); ``.catch()`` and
  ``.finally()`` hand the value on unchanged (no step).
* a property name: ``.data``, ``?.data``, ``["data"]`` (a string literal; span: the name,
  a string's content without its quotes).
* ``name()``: a method called on the value (``json()``, ``text()``; span: the name); the
  chain goes on with the call's value (``(await r.json()).id``).
* ``[]``: an element: a subscript that is not a string literal (``items[0]``, ``rows[i]``;
  span: the brackets and what they hold), a ``for (const x of v)`` variable (span: the
  variable as bound), an array destructuring's element (span: the element), the first
  parameter of the callback of ``.map/.forEach/.filter/.find/.findIndex/.findLast/.some/
  .every/.flatMap(cb)`` (span: the method's name).
  **The iteration method itself is not a step**: ``data.items.map(i => i.name)`` gives
  ``(..., "items", "[]", "name")`` only (and ``(..., "items")`` when the callback reads
  nothing of its parameter, or is not written inline), so that a chain never holds a method
  of an array. ``.filter(cb)`` goes on with the same array, ``.find(cb)`` /
  ``.findLast(cb)`` with an element (``[]``); ``.map``'s value is not followed.

Pass through, with no step: parentheses, ``!`` (TypeScript non-null), ``as T``, ``<T>x``,
``satisfies T``, the left side of ``||`` / ``??``, a branch of ``c ? a : b``.

Bindings followed: ``const r = <value>`` (and ``let``/``var`` never assigned again),
destructurings (``const { data: { items, total = 0 } } = ...``: each key a step; a rest
element is not followed; ``[first] = ...``: ``[]``), ``x = <value>`` when ``x`` is assigned
only there in the function (uses after the assignment), callbacks' parameters (above), and
``for ... of`` variables. The uses of a variable are searched in the function that binds it
(at module level, in its own top-level statement: facts of one statement stand alone,
which incremental extraction relies on; in the script block of a Vue or Svelte component,
recognized by its offset in the file (``base > 0``: a ``.ts``/``.js`` program starts at 0),
in the whole block: components are always extracted in full, and ``<script setup>`` binds
a request's value at module level);
an identifier in a nested function whose parameters have the same name is not one of them.
At most ``MAX_BINDINGS`` (2) variable bindings in a chain (``const r = await fetch(u); const
j = await r.json(); j.user``), ``MAX_DEPTH`` bindings and callbacks in all.

One ``Read`` per chain where it stops being followed (a leaf): the value passed to a call,
assigned to a property, compared, a variable with no use, ... A chain of awaits alone is not
a read unless it is returned. ``returned``: the chain's value is returned by the function
that makes the call (``return res.data``, an arrow's expression body ``id => api.get(u)``:
steps ``()``); a value returned from a ``.then`` callback goes on from the ``.then(...)``
call; one returned from any other nested function is a leaf. A value used only as a
statement (``await api.post(u, b);``) gives no read. At most ``MAX_READS`` (64) reads per
call site, ``MAX_STEPS`` steps per read; identical reads once.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from ..model import Read, Span

__all__ = ["ReadsMixin", "MAX_READS"]

MAX_READS = 64
MAX_STEPS = 16
MAX_BINDINGS = 2
MAX_DEPTH = 5

_FUNCTIONS = frozenset({"arrow_function", "function_expression", "generator_function", "method_definition",
                        "function_declaration", "generator_function_declaration"})
_PASS = frozenset({"parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression",
                   "type_assertion"})
_THEN = frozenset({b"then", b"subscribe"})
_KEEP = frozenset({b"catch", b"finally"})
# iteration methods whose callback's first parameter is an element -> how their value goes
# on: "same" (the array), "item" (an element), None (not followed)
_ITERATE = {b"map": None, b"forEach": None, b"filter": "same", b"find": "item", b"findLast": "item",
            b"findIndex": None, b"some": None, b"every": None, b"flatMap": None}
_ASSIGNS = frozenset({"assignment_expression", "augmented_assignment_expression"})
_OR = frozenset({b"||", b"??"})
_AWAIT = ("await",)


class _Chain:
    """Where a returned value goes: ``home`` is the function whose ``return`` counts; ``then``
    the ``.then(...)`` call a callback's returned value goes on from (with the chain's
    ``outer`` context and binding count), else None: returned by the caller's function
    (``returned``) or by another function (a leaf)."""

    __slots__ = ("home", "then", "outer", "bindings", "returns")

    def __init__(self, home: int | None, then: Node | None = None, outer: "_Chain | None" = None,
                 bindings: int = 0, returns: bool = True) -> None:
        self.home = home
        self.then = then
        self.outer = outer
        self.bindings = bindings
        self.returns = returns


class ReadsMixin:
    """``call_reads``: the reads of a recorded call's value (``_Program`` provides ``src``,
    ``base``, ``grammar``, ``string_value``, ``locate``, ``params``)."""

    if TYPE_CHECKING:
        src: bytes
        base: int
        grammar: str
        fn_starts: list[int]

        def string_value(self, n: Node) -> str: ...
        def locate(self, n: Node) -> Any: ...
        def params(self, f: Any) -> dict[str, Any]: ...

    def call_reads(self, call: Node, awaited: Node | None, fn: Any) -> tuple[Read, ...]:
        """The reads of ``call``'s value. ``awaited``: the ``await`` the TypeScript grammar
        puts inside the callee (``await api.get<T>(u)``), whose value is the call's; ``fn``:
        the function scope around the call (``locate``), None at module level."""
        up = call.parent
        if up is None or (up.type == "expression_statement" and awaited is None):
            return ()
        if awaited is not None:
            kw = awaited.child(0)
            steps: tuple[str, ...] = _AWAIT
            spans: tuple[Span, ...] = (self._span(kw if kw is not None else awaited),)
        else:
            steps, spans = (), ()
        out: dict = {}
        # the function whose `return` counts is the one the call is filed under (its named
        # function, as `CallSite.scope` says): a `return` inside an anonymous function around
        # the call (`queryFn: () => fetchJson(u)`) hands the value to someone else
        home = fn.named if fn is not None else None
        self._climb(call, steps, spans, _Chain(home.id if home is not None else None), 0, out)
        return tuple(out)

    # ------------------------------------------------------------------ walking up

    def _span(self, n: Node) -> Span:
        return Span(self.base + n.start_byte, self.base + n.end_byte)

    def _leaf(self, steps: tuple, spans: tuple, out: dict, returned: bool = False) -> None:
        if len(out) >= MAX_READS:
            return
        if not returned and steps.count("await") == len(steps):
            return
        out.setdefault(Read(steps, spans, returned), None)

    def _read_returned(self, at: Node, steps: tuple, spans: tuple, chain: _Chain, depth: int, out: dict) -> None:
        """``at`` (a return statement or an arrow's body) returns the chain's value."""
        fn = self.locate(at)
        if fn is None or fn.id != chain.home:
            self._leaf(steps, spans, out)
        elif chain.then is not None:
            self._climb(chain.then, steps, spans, chain.outer, depth, out)  # type: ignore[arg-type]
        else:
            self._leaf(steps, spans, out, chain.returns)

    def _climb(self, n: Node, steps: tuple, spans: tuple, chain: _Chain, depth: int, out: dict) -> None:
        """Follow the value of the expression ``n`` (reached through ``steps``) upwards."""
        src = self.src
        while len(out) < MAX_READS:
            if len(steps) > MAX_STEPS:
                self._leaf(steps[:MAX_STEPS], spans[:MAX_STEPS], out)
                return
            par = n.parent
            if par is None:
                return
            t = par.type
            nid = n.id
            if t in _PASS:
                n = par
                continue
            if t == "await_expression":
                kw = par.child(0)
                steps += _AWAIT
                spans += (self._span(kw if kw is not None else par),)
                n = par
                continue
            if t == "member_expression":
                obj = par.child_by_field_name("object")
                prop = par.child_by_field_name("property")
                if obj is None or obj.id != nid or prop is None:
                    self._leaf(steps, spans, out)
                    return
                name = src[prop.start_byte:prop.end_byte]
                gp = par.parent
                if gp is not None and gp.type == "call_expression" and _is_field(gp, "function", par.id):
                    if self._method(gp, prop, name, steps, spans, chain, depth, out):
                        return
                    steps += (name.decode("utf-8", "replace") + "()",)
                    spans += (self._span(prop),)
                    n = gp
                    continue
                steps += (name.decode("utf-8", "replace"),)
                spans += (self._span(prop),)
                n = par
                continue
            if t == "subscript_expression":
                obj = par.child_by_field_name("object")
                idx = par.child_by_field_name("index")
                if obj is None or obj.id != nid or idx is None:
                    self._leaf(steps, spans, out)
                    return
                key = self._string_index(idx)
                if key is not None:
                    steps += (key[0],)
                    spans += (key[1],)
                else:
                    steps += ("[]",)
                    spans += (self._brackets(par, idx),)
                n = par
                continue
            if t == "variable_declarator":
                if not _is_field(par, "value", nid):
                    self._leaf(steps, spans, out)
                    return
                pat = par.child_by_field_name("name")
                if pat is None:
                    return
                if chain.bindings >= MAX_BINDINGS or depth >= MAX_DEPTH:
                    self._leaf(steps, spans, out)
                    return
                once = _declared_const(par)
                self._bind(pat, steps, spans, _Chain(chain.home, chain.then, chain.outer, chain.bindings + 1,
                                                     chain.returns), depth + 1, out, None if once else par)
                return
            if t == "assignment_expression":
                left = par.child_by_field_name("left")
                if (not _is_field(par, "right", nid) or left is None or left.type != "identifier"
                        or chain.bindings >= MAX_BINDINGS or depth >= MAX_DEPTH):
                    self._leaf(steps, spans, out)
                    return
                self._bind(left, steps, spans, _Chain(chain.home, chain.then, chain.outer, chain.bindings + 1,
                                                      chain.returns), depth + 1, out, par, assignment=True)
                return
            if t == "return_statement":
                self._read_returned(par, steps, spans, chain, depth, out)
                return
            if t == "arrow_function":
                if _is_field(par, "body", nid):
                    self._read_returned(n, steps, spans, chain, depth, out)
                else:
                    self._leaf(steps, spans, out)
                return
            if t == "for_in_statement":
                left = par.child_by_field_name("left")
                op = par.child_by_field_name("operator")
                if (_is_field(par, "right", nid) and left is not None and op is not None
                        and src[op.start_byte:op.end_byte] == b"of" and depth < MAX_DEPTH
                        and par.child_by_field_name("kind") is not None):
                    self._bind(left, steps + ("[]",), spans + (self._span(left),), chain, depth + 1, out, None,
                               scope=par)
                else:
                    self._leaf(steps, spans, out)
                return
            if t == "binary_expression":
                op = par.child_by_field_name("operator")
                if (op is not None and src[op.start_byte:op.end_byte] in _OR
                        and _is_field(par, "left", nid)):
                    n = par
                    continue
                self._leaf(steps, spans, out)
                return
            if t == "ternary_expression":
                if not _is_field(par, "condition", nid):
                    n = par
                    continue
                self._leaf(steps, spans, out)
                return
            if t == "expression_statement" and not steps:
                return
            self._leaf(steps, spans, out)
            return

    def _method(self, call: Node, prop: Node, name: bytes, steps: tuple, spans: tuple, chain: _Chain,
                depth: int, out: dict) -> bool:
        """A method called on the value: True when handled here (``then``, iteration,
        ``catch``), False for a plain ``name()`` step."""
        if name in _KEEP:
            self._climb(call, steps, spans, chain, depth, out)
            return True
        then = name in _THEN
        how = _ITERATE.get(name, "none") if not then else "none"
        if not then and how == "none":
            return False
        cb = _first_arg(call)
        param = _first_param(cb) if cb is not None and cb.type in _FUNCTIONS else None
        pspan = self._span(prop)
        if then:
            if param is None or depth >= MAX_DEPTH:
                self._leaf(steps, spans, out)
                return True
            inner = _Chain(cb.id, call, chain, 0)  # type: ignore[union-attr]
            self._bind(param, steps + _AWAIT, spans + (pspan,), inner, depth + 1, out, None, scope=cb)
            return True
        before = len(out)
        if param is not None and depth < MAX_DEPTH:
            inner = _Chain(cb.id, None, None, chain.bindings, returns=False)  # type: ignore[union-attr]
            self._bind(param, steps + ("[]",), spans + (pspan,), inner, depth + 1, out, None, scope=cb)
        if len(out) == before:
            self._leaf(steps, spans, out)
        if how == "same":
            self._climb(call, steps, spans, chain, depth, out)
        elif how == "item":
            self._climb(call, steps + ("[]",), spans + (pspan,), chain, depth, out)
        return True

    # ------------------------------------------------------------------ bindings

    def _bind(self, pat: Node, steps: tuple, spans: tuple, chain: _Chain, depth: int, out: dict,
              reassignable: Node | None, assignment: bool = False, scope: Node | None = None) -> None:
        """The value bound to a pattern: follow each variable it binds. ``reassignable``: the
        declaration or assignment of a variable that is not ``const`` (followed only when it
        is assigned nowhere else, or, for ``assignment``, only there); ``scope``: where its
        uses are (else the function around ``pat``)."""
        t = pat.type
        if t == "required_parameter" or t == "optional_parameter":
            inner = pat.child_by_field_name("pattern")
            if inner is not None:
                self._bind(inner, steps, spans, chain, depth, out, reassignable, assignment, scope)
            return
        if t == "identifier":
            self._variable(pat, steps, spans, chain, depth, out, reassignable, assignment, scope)
            return
        if t == "assignment_pattern" or t == "object_assignment_pattern":
            left = pat.child_by_field_name("left")
            if left is not None:
                self._bind(left, steps, spans, chain, depth, out, reassignable, assignment, scope)
            return
        if t == "shorthand_property_identifier_pattern":
            name = self.src[pat.start_byte:pat.end_byte].decode("utf-8", "replace")
            self._variable(pat, steps + (name,), spans + (self._span(pat),), chain, depth, out, reassignable,
                           assignment, scope)
            return
        if len(steps) >= MAX_STEPS:
            self._leaf(steps, spans, out)
            return
        if t == "object_pattern":
            for ch in pat.named_children:
                ct = ch.type
                if ct == "shorthand_property_identifier_pattern":
                    self._bind(ch, steps, spans, chain, depth, out, reassignable, assignment, scope)
                elif ct == "object_assignment_pattern":
                    left = ch.child_by_field_name("left")
                    if left is not None:
                        self._bind(left, steps, spans, chain, depth, out, reassignable, assignment, scope)
                elif ct == "pair_pattern":
                    key = ch.child_by_field_name("key")
                    value = ch.child_by_field_name("value")
                    got = self._pattern_key(key) if key is not None else None
                    if got is not None and value is not None:
                        self._bind(value, steps + (got[0],), spans + (got[1],), chain, depth, out, reassignable,
                                   assignment, scope)
            return
        if t == "array_pattern":
            for ch in pat.named_children:
                if ch.type != "rest_pattern" and ch.type != "comment":
                    self._bind(ch, steps + ("[]",), spans + (self._span(ch),), chain, depth, out, reassignable,
                               assignment, scope)
            return
        # a rest element, a member target, ...: not followed
        return

    def _variable(self, nn: Node, steps: tuple, spans: tuple, chain: _Chain, depth: int, out: dict,
                  reassignable: Node | None, assignment: bool, scope: Node | None) -> None:
        name = self.src[nn.start_byte:nn.end_byte]
        f = None
        if scope is not None:
            where = scope
        else:
            f = self.locate(nn)
            where = f.node if f is not None else _statement(nn, self.base > 0)
        uses = []
        assigned = 0
        whole = False  # a use that takes the value as it is (passed on, compared, shown)
        after = (reassignable.end_byte if assignment and reassignable is not None else nn.end_byte)
        # no function nested in `where` (the function itself aside): no use can be shadowed
        starts = self.fn_starts
        nested = bisect_left(starts, where.end_byte) - bisect_left(starts, where.start_byte)
        flat = scope is None and nested == (0 if f is None else 1)
        for occ in self._identifiers(where, name):
            if occ.id == nn.id:
                continue
            p = occ.parent
            pt = p.type if p is not None else ""
            if ((pt in _ASSIGNS and _is_field(p, "left", occ.id)) or pt == "update_expression"  # type: ignore[arg-type]
                    or (pt == "variable_declarator" and p.child_by_field_name("value") is not None  # type: ignore[union-attr]
                        and _is_field(p, "name", occ.id))):  # type: ignore[arg-type]
                assigned += 1
                continue
            if occ.start_byte >= after and (flat or not self._shadowed(occ, where, name)):
                if pt in _GOES_ON:
                    uses.append(occ)
                else:  # (most uses in JSX: no need to walk up from them)
                    whole = True
        if (reassignable is not None and assigned) or not (uses or whole):  # (assigned elsewhere too)
            self._leaf(steps, spans, out)
            return
        if whole:
            self._leaf(steps, spans, out)
        for occ in uses:
            if len(out) >= MAX_READS:
                return
            self._climb(occ, steps, spans, chain, depth, out)

    def _identifiers(self, where: Node, name: bytes) -> list[Node]:
        """The identifiers named ``name`` under ``where``, in source order: each place the
        name is written as a whole word (a byte search, proportional to the uses rather than
        the function's size) whose smallest node is an identifier (not a property name, a
        string, a comment)."""
        src = self.src
        out: list[Node] = []
        at, end, size = where.start_byte, where.end_byte, len(name)
        while True:
            i = src.find(name, at, end)
            if i < 0:
                return out
            at = i + size
            if (i > 0 and src[i - 1] in _WORD_BYTES) or (at < len(src) and src[at] in _WORD_BYTES):
                continue
            n = where.descendant_for_byte_range(i, at)
            if n is not None and n.type == "identifier" and n.start_byte == i and n.end_byte == at:
                out.append(n)

    def _shadowed(self, occ: Node, where: Node, name: bytes) -> bool:
        """Whether a function between ``occ`` and ``where`` has a parameter named ``name``
        (through the program's function scopes: ``locate``, ``params``)."""
        f = self.locate(occ)
        wid = where.id
        if f is None or f.id == wid:
            return False
        text = name.decode("utf-8", "replace")
        while f is not None and f.id != wid:
            if text in self.params(f):
                return True
            f = f.parent
        return False

    # ------------------------------------------------------------------ small pieces

    def _string_index(self, idx: Node) -> tuple[str, Span] | None:
        """A subscript's index when it is a string literal: its content and that span."""
        if idx.type != "string":
            return None
        s, e = idx.start_byte, idx.end_byte
        src = self.src
        if e - s >= 2 and src[e - 1] == src[s]:
            s, e = s + 1, e - 1
        return self.string_value(idx), Span(self.base + s, self.base + e)

    def _pattern_key(self, key: Node) -> tuple[str, Span] | None:
        t = key.type
        if t == "string":
            return self._string_index(key)
        if t == "property_identifier" or t == "identifier" or t == "number":
            return self.src[key.start_byte:key.end_byte].decode("utf-8", "replace"), self._span(key)
        return None

    def _brackets(self, sub: Node, idx: Node) -> Span:
        """``[...]`` of a subscript (from its ``[`` to its ``]``)."""
        start, end = idx.start_byte, idx.end_byte
        for ch in sub.children:
            if ch.type == "[":
                start = ch.start_byte
            elif ch.type == "]":
                end = ch.end_byte
        return Span(self.base + start, self.base + end)


def _start(n: Node) -> int:
    return n.start_byte


def _is_field(par: Node, field: str, nid: int) -> bool:
    ch = par.child_by_field_name(field)
    return ch is not None and ch.id == nid


def _statement(n: Node, block: bool) -> Node:
    """Where the uses of a variable bound at module level are searched: its top-level
    statement, or the whole program for a component's script block (``block``)."""
    up = n
    while up.parent is not None and up.parent.parent is not None:
        up = up.parent
    return up.parent if block and up.parent is not None else up


def _declared_const(decl: Node) -> bool:
    up = decl.parent
    if up is None or up.type != "lexical_declaration":
        return False
    kind = up.child_by_field_name("kind")
    return kind is not None and kind.type == "const"


def _first_arg(call: Node) -> Node | None:
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    for a in args.named_children:
        if a.type != "comment":
            return a
    return None


def _first_param(fn: Node) -> Node | None:
    single = fn.child_by_field_name("parameter")  # `res => ...`
    if single is not None:
        return single
    params = fn.child_by_field_name("parameters")
    if params is None:
        return None
    for p in params.named_children:
        if p.type != "comment":
            return p
    return None


# bytes an identifier may hold (a name found inside a longer one is not a use of it)
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") | frozenset(range(128, 256))
# the parents through which a variable's use may go on being read (``_climb`` decides)
_GOES_ON = _PASS | {"await_expression", "member_expression", "subscript_expression", "variable_declarator",
                    "assignment_expression", "return_statement", "arrow_function", "for_in_statement",
                    "binary_expression", "ternary_expression"}
