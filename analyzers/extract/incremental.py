"""Incremental extraction for the edit path: the facts of an edited file from the state its
previous extraction left, re-extracting only the top-level statements the edit touched.

Facts are a pure function of ``(path, text, extractor version)``; this module is an
optimisation that must give exactly the facts ``extract(path, text)`` gives
(``tests/analyzers/test_incremental_extract.py`` compares both on random edits). Its state
is passed in and out explicitly: ``extract_edited(path, text, state) -> (facts, state,
change)``; the caller (the server, per open document) keeps it, and nothing is cached here.

How (JavaScript, TypeScript, TSX; see ``_Program`` in ``ecma.py``):

* The state holds the previous text and tree and, per top-level statement (a child of
  ``program``), the facts whose spans start in it (every fact's node lies inside one
  statement) and what the statement contributes to the file's cross-statement tables
  (``import_modules``, ``assigned``, ``servers``, client creations).
* The new text is re-parsed from a copy of the previous tree (``languages.reparse``), which
  also gives the edited byte range and the ranges whose syntax changed. A statement of the
  new tree that touches neither is the previous one, moved by the edit's length when it
  lies after the edit: its facts are reused (spans shifted). The others are dispatched
  alone (``_Program(nodes=...)``: every query runs only over those statements) with the
  file's tables as context.
* When the statements taken out and the ones put in do not contribute the same to the
  tables (an import, an assignment, a server or a client creation changed), the facts of
  any statement may change: the whole file is extracted again.

Python files and components are extracted in full (``state`` stays None); their parse is
still incremental through ``languages.parse``.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from bisect import bisect_right
from collections import Counter
from typing import Union

from .. import languages
from ..languages import language_of
from .declarations import is_declaration_file
from ..model import FileFacts, Span
from . import ecma, ecma_routes

__all__ = ["EditState", "Change", "extract_edited", "edited_incrementally"]

_ECMA = ("typescript", "tsx", "javascript")
# The per-statement lists of facts: the lists of an ``EcmaCollector`` (whatever it collects;
# ``clients`` holds those ``on_client`` made) and the Angular clients before deduplication.
# A list holds facts with a ``span`` or ``(position, ...)`` tuples (``constants``).
_LISTS = tuple(sorted(k for k, v in vars(ecma.EcmaCollector()).items() if type(v) is list)) + ("angular",)
_N = len(_LISTS)
_CLIENTS = _LISTS.index("clients")
_CALLS = _LISTS.index("calls")
_ANGULAR = _N - 1
_EMPTY = ((),) * _N


@dataclasses.dataclass(frozen=True, eq=False)
class _Unit:
    """One top-level statement: its byte range and node type, its facts (``lists``, each in
    the order a full extraction sorts them, with spans ``moved`` bytes before where they
    are now: moving a statement costs nothing until its facts are needed) and its
    contributions to the cross-statement tables."""

    start: int
    end: int
    type: str
    lists: tuple
    imports: tuple  # (local, module) written to import_modules, in order
    assigned: frozenset  # identifiers assigned (`x = ...`)
    servers: tuple  # (name, framework), in order
    lets: frozenset  # names of its locals that are not const (their values read `assigned`)
    moved: int = 0

    def placed(self) -> "_Unit":
        """The same statement with the spans of its facts where they are."""
        if not self.moved:
            return self
        return _Unit(self.start, self.end, self.type, _shifted(self.lists, self.moved), self.imports,
                     self.assigned, self.servers, self.lets)


class EditState:
    """What the next ``extract_edited`` of the same document needs, and its facts (built
    when first asked for). Immutable in meaning: the tree is never edited (re-parsing works
    on a copy) and building the facts only places the statements' spans, so an older state
    stays usable."""

    __slots__ = ("path", "language", "src", "tree", "units", "tables", "assigned", "_facts")

    def __init__(self, path: str, language: str, src: bytes, tree, units: tuple, tables: tuple,
                 assigned: Counter, facts: FileFacts | None = None) -> None:
        self.path = path
        self.language = language
        self.src = src
        self.tree = tree
        self.units = units
        self.tables = tables  # (import_modules items, assigned, servers items) of the whole file
        self.assigned = assigned  # identifier -> statements assigning it
        self._facts = facts

    @property
    def facts(self) -> FileFacts:
        if self._facts is None:
            self.units = tuple(u.placed() for u in self.units)
            self._facts = _merge(self.path, self.language, self.units)
        return self._facts

    @property
    def built(self) -> FileFacts | None:
        """The facts if they were built already."""
        return self._facts


class Change:
    """How new facts relate to the previous ones. ``moved_only``: they are the previous
    facts with some spans moved (the edit changed no fact, only where facts are); then
    ``span(old)`` gives where a span of the previous facts (or one derived from them, such
    as a linked call's) is now, or None when that cannot be told.

    ``sites``: when only call sites changed (every other fact is the previous one, moved),
    the call sites of the statements taken out (where they were) and of the statements
    put in (where they are); a call site outside those statements is the previous one,
    moved as ``span`` says. None otherwise.

    ``parts()``: when facts changed (not ``moved_only``), the facts of the statements taken
    out (where they were) and of those put in (where they are), each merged alone: every
    fact outside them is the previous one, moved as ``span`` says. None when not known."""

    __slots__ = ("moved_only", "start", "old_end", "delta", "pairs", "sites", "after", "_units", "_parts")

    def __init__(self, moved_only: bool, start: int, old_end: int, delta: int, pairs: dict,
                 sites: tuple | None = None, after: int | None = None, units: tuple | None = None) -> None:
        self.moved_only = moved_only
        self.start = start
        self.old_end = old_end
        self.delta = delta
        self.pairs = pairs
        self.sites = sites
        self._units = units  # (path, language, statements taken out, statements put in)
        self._parts: tuple[FileFacts, FileFacts] | None = None
        # where the statements extracted again end (before the edit): ``span`` moves any
        # span from there on by ``delta``
        self.after = old_end if after is None else max(after, old_end)

    def span(self, old: Span) -> Span | None:
        new = self.pairs.get(old)
        if new is not None:
            return new
        if old.end <= self.start:
            return old
        if old.start >= self.old_end:
            return Span(old.start + self.delta, old.end + self.delta) if self.delta else old
        return None

    def parts(self) -> tuple[FileFacts, FileFacts] | None:
        if self._parts is None and self._units is not None:
            path, lang, removed, fresh = self._units
            self._parts = (_merge(path, lang, list(removed)), _merge(path, lang, list(fresh)))
        return self._parts


def edited_incrementally(path: str) -> bool:
    """Whether ``extract_edited`` keeps a state for ``path`` (its language re-extracts only
    what an edit touched; the others are extracted in full)."""
    # (declaration files in full: their implicit exports depend on every statement,
    # extract/declarations.py)
    return language_of(path) in _ECMA and not is_declaration_file(path)


def extract_edited(path: str, text: str, state: EditState | None, lazy: bool = False
                   ) -> tuple[FileFacts | None, EditState | None, Change | None]:
    """The facts of ``path`` with ``text`` (exactly ``extract(path, text)``), the state for
    its next edit (None for languages extracted in full) and, when ``state`` was the
    previous extraction's, how the facts changed (None: not known, treat all as changed).
    ``lazy``: when there is a state, the facts are None and ``state.facts`` builds them when
    first asked for (an edit that only moved facts then costs nothing more). Raises what
    ``extract`` raises for a path that is not source."""
    lang = language_of(path)
    if lang not in _ECMA:
        from . import extract

        return extract(path, text), None, None
    got = None
    if state is not None and state.path == path and state.language == lang:
        try:
            got = _edited(path, text, lang, state)
        except Exception:  # noqa: BLE001 - an internal error: the full extraction decides
            got = None
    if got is None:
        got = (*_full(path, text, lang), None)
    facts, new_state, change = got
    if new_state is not None and facts is None and not lazy:
        facts = new_state.facts
    return facts, new_state, change


# ---------------------------------------------------------------------------- full extraction


def _full(path: str, text: str, lang: str, tree=None) -> tuple[FileFacts, EditState | None]:
    """A full extraction that also attributes the facts to statements (the state)."""
    try:
        src = text.encode("utf-8")
        if tree is None:
            tree = languages.parse(lang, src, path)
        out = ecma.EcmaCollector()
        log: list = []
        prog = ecma._Program(out, src, lang, 0, tree=tree, log=log)
        prog.run()
        facts = out.facts(path, lang)
        children = tree.root_node.children
        units = _attribute(children, out, prog, log)
    except Exception:  # noqa: BLE001 - the plain extraction has the last word (it never raises)
        from .ecma import extract_ecma

        return extract_ecma(path, text, lang), None
    tables = (tuple(prog.import_modules.items()), frozenset(prog.assigned), tuple(prog.servers.items()))
    assigned: Counter = Counter()
    for u in units:
        assigned.update(u.assigned)
    return facts, EditState(path, lang, src, tree, tuple(units), tables, assigned, facts)


def _attribute(children: list, out: ecma.EcmaCollector, prog, log: list) -> list[_Unit]:
    """One ``_Unit`` per node of ``children`` (top-level statements in source order) with the
    facts ``out`` collected for them and the contributions in ``log``."""
    starts = [c.start_byte for c in children]
    n = len(children)
    lists: list[list | None] = [None] * n

    def put(i: int, kind: int, item) -> None:
        if i < 0 or i >= n:
            raise ValueError("a fact outside every top-level statement")
        cur = lists[i]
        if cur is None:
            cur = lists[i] = [[] for _ in range(_N)]
        cur[kind].append(item)

    angular = {id(c) for c in prog.angular}
    for kind, name in enumerate(_LISTS):
        if kind == _CLIENTS:  # in creation order: on_client looks earlier ones up
            items = [c for c in out.clients if id(c) not in angular]
        elif kind == _ANGULAR:
            items = prog.angular
        else:
            items = getattr(out, name)
            if not items:
                continue
            items = sorted(items, key=_first if type(items[0]) is tuple else _span_start)
        for item in items:
            put(bisect_right(starts, item[0] if type(item) is tuple else item.span.start) - 1, kind, item)
    contrib: dict[int, tuple[list, set, list, set]] = {}
    slot = {"import": 0, "assigned": 1, "server": 2, "let": 3}
    for pos, what, value in log:
        i = bisect_right(starts, pos) - 1
        if i < 0:
            raise ValueError("a contribution outside every top-level statement")
        entry = contrib.get(i)
        if entry is None:
            entry = contrib[i] = ([], set(), [], set())
        bucket = entry[slot[what]]
        if type(bucket) is set:
            bucket.add(value)
        else:
            bucket.append(value)
    units = []
    none: frozenset = frozenset()
    for i, c in enumerate(children):
        ls = lists[i]
        lt = _EMPTY if ls is None else tuple(tuple(x) for x in ls)
        entry = contrib.get(i)
        if entry is None:
            units.append(_Unit(c.start_byte, c.end_byte, c.type, lt, (), none, (), none))
        else:
            units.append(_Unit(c.start_byte, c.end_byte, c.type, lt, tuple(entry[0]), frozenset(entry[1]),
                               tuple(entry[2]), frozenset(entry[3])))
    return units


def _span_start(x) -> int:
    return x.span.start


def _first(x) -> int:
    return x[0]


def _merge(path: str, lang: str, units: list[_Unit]) -> FileFacts:
    """The file's facts from its statements' (through ``EcmaCollector.facts``, which sorts
    lists that are sorted already)."""
    cols: list[list] = [[] for _ in range(_N)]
    for u in units:
        ls = u.lists
        if ls is _EMPTY:
            continue
        for k in range(_N):
            if ls[k]:
                cols[k].extend(ls[k])
    out = ecma.EcmaCollector()
    for k, name in enumerate(_LISTS):
        if k != _ANGULAR:
            setattr(out, name, cols[k])
    out.clients = cols[_CLIENTS] + ecma.first_angular(cols[_ANGULAR])
    return out.facts(path, lang)


# ---------------------------------------------------------------------------- an edit


def _edited(path: str, text: str, lang: str, state: EditState):
    src = text.encode("utf-8")
    if src == state.src:
        return state.built, state, Change(True, 0, 0, 0, {})
    tree, (start, old_end, new_end), ranges = languages.reparse(lang, state.src, state.tree, src)
    delta = new_end - old_end
    lo, hi = start, new_end
    for a, b in ranges:
        if a < lo:
            lo = a
        if b > hi:
            hi = b
    children = tree.root_node.children
    old_units = state.units
    old_starts = [u.start for u in old_units]
    plan: list = []  # per new child: a reused unit (and its shift) or None (extract it)
    used: set[int] = set()
    todo = []
    for c in children:
        s, e = c.start_byte, c.end_byte
        reused = None
        if e < lo or s > hi:
            d = 0 if e < lo else delta
            i = bisect_right(old_starts, s - d) - 1
            if i >= 0 and i not in used:
                u = old_units[i]
                if u.start == s - d and u.end == e - d and u.type == c.type:
                    reused = (u, d)
                    used.add(i)
        plan.append(reused)
        if reused is None:
            todo.append(c)
    removed = [u.placed() for i, u in enumerate(old_units) if i not in used]
    # the statements to extract, alone, with the tables of the whole file
    fresh = _extract_units(src, lang, tree, todo, state.tables)
    if fresh is None:  # they looked up a client by name: the other statements' clients count
        return _full(path, text, lang, tree) + (None,)
    tables = state.tables
    (old_imports, old_servers), (new_imports, new_servers) = _contributions(removed), _contributions(fresh)
    if old_servers != new_servers:
        return _full(path, text, lang, tree) + (None,)
    if old_imports != new_imports:
        # an import changed: the statements that name an import that changed are extracted
        # again with the new table (no other reads it: ``_imports_changed``)
        got = _imports_changed(tables[0], old_imports, new_imports, src, children, plan)
        if got is None:
            return _full(path, text, lang, tree) + (None,)
        modules, again = got
        tables = (modules, tables[1], tables[2])
        for i in again:
            removed.append(plan[i][0].placed())
            plan[i] = None
        todo = [c for c, reused in zip(children, plan) if reused is None]
        removed.sort(key=_unit_start)
        fresh = _extract_units(src, lang, tree, todo, tables)
        if fresh is None:
            return _full(path, text, lang, tree) + (None,)
    if not _same_clients(removed, fresh, src, children):  # what others may look up changed
        return _full(path, text, lang, tree) + (None,)
    counts = state.assigned
    flipped: set[str] = set()
    if any(u.assigned for u in removed) or any(u.assigned for u in fresh):
        counts = counts.copy()
        for u in removed:
            counts.subtract(u.assigned)
        for u in fresh:
            counts.update(u.assigned)
        before = tables[1]
        now = frozenset(n for n, k in counts.items() if k > 0)
        flipped = set(before ^ now)
        if flipped:
            counts = Counter({n: k for n, k in counts.items() if k > 0})
            tables = (tables[0], now, tables[2])
            # statements whose locals read the names that became (or stopped being)
            # assigned are extracted again too, and all of them with the new table
            for i, reused in enumerate(plan):
                if reused is not None and reused[0].lets & flipped:
                    plan[i] = None
                    removed.append(reused[0].placed())
            todo = [c for c, reused in zip(children, plan) if reused is None]
            removed.sort(key=_unit_start)
            fresh = _extract_units(src, lang, tree, todo, tables)
            if fresh is None or not _same_clients(removed, fresh, src, children):
                return _full(path, text, lang, tree) + (None,)
    units = []
    it = iter(fresh)
    for c, reused in zip(children, plan):
        if reused is None:
            units.append(next(it))
        else:
            u, d = reused
            units.append(u if d == 0 else _moved(u, d))
    pairs: dict = {}
    moved_only = not flipped and _same_lists(removed, fresh, pairs)
    sites = None
    if not moved_only and not flipped and _same_lists(removed, fresh, {}, skip=_CALLS):
        sites = (tuple(x for u in removed for x in u.lists[_CALLS]), tuple(x for u in fresh for x in u.lists[_CALLS]))
    change = Change(moved_only, start, old_end, delta, pairs if moved_only else {}, sites,
                    max((u.end for u in removed), default=old_end),
                    None if moved_only else (path, lang, tuple(removed), tuple(fresh)))
    return None, EditState(path, lang, src, tree, tuple(units), tables, counts), change


def _unit_start(u: _Unit) -> int:
    return u.start


def _extract_units(src: bytes, lang: str, tree, nodes: list, tables: tuple) -> list[_Unit] | None:
    """The statements ``nodes`` extracted alone; None when that read the clients collected
    so far (which then lack the other statements')."""
    if not nodes:
        return []
    out = ecma.EcmaCollector()
    out.clients = watched = _Watched()
    log: list = []
    prog = ecma._Program(out, src, lang, 0, tree=tree, nodes=nodes, context=tables, log=log)
    prog.run()
    if watched.read:
        return None
    out.clients = list.copy(watched)
    return _attribute(nodes, out, prog, log)


class _Watched(list):
    """A list that notes whether it was read (appending is not reading)."""

    read = False

    def _note(name):  # noqa: N805 - builds the reading methods below
        real = getattr(list, name)

        def method(self, *args):
            self.read = True
            return real(self, *args)
        return method

    for _name in ("__iter__", "__reversed__", "__getitem__", "__contains__", "__len__", "__bool__", "index",
                  "count", "copy", "__eq__"):
        if hasattr(list, _name):
            locals()[_name] = _note(_name)
    del _name, _note


def _same_clients(old: list[_Unit], new: list[_Unit], src: bytes, children: list) -> bool:
    """Whether no other statement's lookup of a client can have changed: the statements
    taken out and put in made the same clients (but for spans), or none of the clients
    that differ has its name looked up anywhere. Clients are looked up by name by
    ``<name>.create(...)`` / ``<name>.extend(...)`` (``make_client``): every identifier of a
    statement whose text has ``create`` or ``extend`` counts as looked up (a superset)."""
    pairs: dict = {}
    a = [c for u in old for k in (_CLIENTS, _ANGULAR) for c in u.lists[k]]
    b = [c for u in new for k in (_CLIENTS, _ANGULAR) for c in u.lists[k]]
    if len(a) == len(b) and all(same(x, y, pairs) for x, y in zip(a, b)):
        return True
    names = {seg for c in (*a, *b) for seg in c.name.split(".")}
    for c in children:
        text = src[c.start_byte:c.end_byte]
        if b"create" in text or b"extend" in text:
            if names.intersection(m.decode("utf-8", "replace") for m in _IDENT.findall(text)):
                return False
    return True


_IDENT = re.compile(rb"[A-Za-z_$][\w$]*")



def _imports_changed(table: tuple, old: list, new: list, src: bytes, children: list, plan: list
                     ) -> tuple[tuple, list[int]] | None:
    """An edit replaced the import entries ``old`` (written by the statements taken out) with
    ``new``: the file's new import table (``table``, the whole file's, with the names that
    changed updated in place) and the statements kept whose text names one of them. Only a
    lookup by name reads an entry, and a statement looks up only names it contains, but for
    the frameworks a file imports (``ecma_routes``: every entry's module is read): None,
    extract everything, when a module that changed is one, or when a name is written twice
    (the entry kept then depends on the order of the writes)."""
    before = dict(old)
    after = dict(new)
    if len(before) != len(old) or len(after) != len(new):
        return None
    names = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    if not names:
        return table, []
    for k in names:
        for module in (before.get(k), after.get(k)):
            if module is not None and (module.startswith("@nestjs/") or ecma_routes.backend_of(module)):
                return None
    if any(k in names for reused in plan if reused is not None for k, _ in reused[0].imports):
        return None  # written by a statement kept too
    current = dict(table)
    for k in names:
        if k in after:
            current[k] = after[k]
        else:
            current.pop(k, None)
    starts = [c.start_byte for c in children]
    again = set()
    pattern = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(k.encode("utf-8")) for k in sorted(names))
                         + rb")(?![\w$])")
    for m in pattern.finditer(src):
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and plan[i] is not None:
            again.add(i)
    return tuple(current.items()), sorted(again)


def _contributions(units: list[_Unit]) -> tuple:
    """What statements write to the tables read in order (``assigned`` is counted apart)."""
    imports: list = []
    servers: list = []
    for u in units:
        imports.extend(u.imports)
        servers.extend(u.servers)
    return imports, servers


def _moved(u: _Unit, d: int) -> _Unit:
    """``u`` moved by ``d`` bytes (its facts are moved when they are needed)."""
    return _Unit(u.start + d, u.end + d, u.type, u.lists, u.imports, u.assigned, u.servers, u.lets, u.moved + d)


def _shifted(lists: tuple, d: int) -> tuple:
    if lists is _EMPTY:
        return lists
    out = []
    for items in lists:
        if not items:
            out.append(items)
        elif type(items[0]) is tuple:  # (position, ...)
            out.append(tuple([(x[0] + d, *_moved_tuple(x[1:], d)) for x in items]))
        else:
            out.append(_moved_tuple(items, d))
    return tuple(out)


def _same_lists(old: list[_Unit], new: list[_Unit], pairs: dict, skip: int = -1) -> bool:
    """Whether the statements taken out and put in have the same facts but for their spans
    (recording in ``pairs`` which old span is which new one); the list ``skip`` is not compared."""
    for k in range(_N):
        if k == skip:
            continue
        a = [x for u in old for x in u.lists[k]]
        b = [x for u in new for x in u.lists[k]]
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if type(x) is tuple:  # (position, ...): positions are not spans
                x, y = x[1:], y[1:]
            if not same(x, y, pairs):
                return False
    return True


# ---------------------------------------------------------------------------- spans in facts
# Per dataclass of the model, which fields hold spans (from the type hints, so a field added
# to the model is covered): 0 none, 1 a Span, 2 something that may contain spans.

_PLANS: dict[type, tuple | None] = {}
_MODES: dict[object, int] = {}


def _plan(t: type) -> tuple | None:
    """((field name, mode), ...) of a dataclass, None when no field can hold a span; also
    whether every field is an __init__ parameter (else objects are rebuilt by ``replace``)."""
    if t in _PLANS:
        return _PLANS[t]
    _PLANS[t] = ((), True)  # while computing (recursive types): assume it may hold spans
    hints = typing.get_type_hints(t)
    fields = dataclasses.fields(t)
    plan = tuple((f.name, _mode(hints.get(f.name, object))) for f in fields)
    positional = all(f.init for f in fields)
    result = (plan, positional) if any(m for _, m in plan) else None
    _PLANS[t] = result
    return result


def _mode(tp) -> int:
    if tp is Span:
        return 1
    hit = _MODES.get(tp)
    if hit is not None:
        return hit
    _MODES[tp] = 2  # while computing (recursive types): assume it may hold spans
    origin = typing.get_origin(tp)
    if origin is Union or origin is tuple or origin is types.UnionType:
        m = 2 if any(_mode(a) for a in typing.get_args(tp) if a is not Ellipsis) else 0
    elif origin is typing.Literal:
        m = 0
    elif isinstance(tp, type) and dataclasses.is_dataclass(tp):
        m = 2 if _plan(tp) is not None else 0
    elif tp in (str, int, float, bool, type(None)):
        m = 0
    else:
        m = 2  # object, Any, ...: looked at at run time
    _MODES[tp] = m
    return m


_PLAIN = frozenset({str, int, float, bool, type(None)})
_new = object.__new__
_set = object.__setattr__


class _Shifters(dict):
    """type -> a function moving every span of a value of that type by ``d``, built on
    first use."""

    def __missing__(self, t: type):
        f = self[t] = _shifter(t)
        return f


_S = _Shifters()


def _moved_span(v: Span, d: int) -> Span:
    if v.start < 0:  # the linker's FOREIGN (a key a wrapper writes): in no file, never moved
        return v
    o = _new(Span)
    _set(o, "__dict__", {"start": v.start + d, "end": v.end + d})
    return o


def _kept(v, d: int):
    return v


def _moved_tuple(v: tuple, d: int, S=_S, kept=_kept) -> tuple:
    for x in v:  # most tuples (URL parts, names) hold nothing with a span: kept as they are
        if S[type(x)] is not kept:
            return tuple([S[type(x)](x, d) for x in v])
    return v


def _shifter(t: type):
    """Objects are rebuilt from their field dictionary (the model's dataclasses have no
    ``__init__`` logic and no slots; other dataclasses go through ``dataclasses.replace``)."""
    if t is Span:
        return _moved_span
    if t is tuple:
        return _moved_tuple
    if t in _PLAIN or not dataclasses.is_dataclass(t):
        return _kept
    p = _plan(t)
    if p is None:
        return _kept
    plan = p[0]
    spans = tuple(n for n, m in plan if m == 1)
    walks = tuple(n for n, m in plan if m == 2)
    if hasattr(t, "__slots__") or hasattr(t, "__post_init__"):
        def rebuild(v, d):
            changes = {n: _moved_span(getattr(v, n), d) for n in spans}
            changes.update((n, shift(getattr(v, n), d)) for n in walks)
            return dataclasses.replace(v, **changes)
        return rebuild

    def moved(v, d, S=_S, new=_new, put=_set, span=Span, t=t, spans=spans, walks=walks):
        dd = v.__dict__.copy()
        for n in spans:
            x = dd[n]
            if x.start >= 0:  # (not FOREIGN)
                o = new(span)
                put(o, "__dict__", {"start": x.start + d, "end": x.end + d})
                dd[n] = o
        for n in walks:
            x = dd[n]
            if x is not None:
                dd[n] = S[type(x)](x, d)
        o = new(t)
        put(o, "__dict__", dd)
        return o
    return moved


def relocated(v, where):
    """``v`` with every span ``s`` replaced by ``where(s)`` (spans that start before 0, the
    linker's FOREIGN, are kept); ``v`` itself when no span changed. Raises ``LookupError``
    when ``where`` gives None."""
    t = type(v)
    if t is Span:
        if v.start < 0:
            return v
        got = where(v)
        if got is None:
            raise LookupError(v)
        return v if got == v else got
    if t is tuple:
        if not v:
            return v
        out = [relocated(x, where) for x in v]
        return v if all(a is b for a, b in zip(out, v)) else tuple(out)
    if t in _PLAIN or not dataclasses.is_dataclass(t):
        return v
    p = _plan(t)
    if p is None:
        return v
    changes = {}
    for n, m in p[0]:
        if m:
            x = getattr(v, n)
            y = relocated(x, where)
            if y is not x:
                changes[n] = y
    if not changes:
        return v
    if hasattr(t, "__slots__") or hasattr(t, "__post_init__"):
        return dataclasses.replace(v, **changes)
    dd = v.__dict__.copy()
    dd.update(changes)
    o = _new(t)
    _set(o, "__dict__", dd)
    return o


def shift(v, d: int):
    """``v`` (a fact, a value inside one, a tuple of them) with every span moved by ``d``."""
    return _S[type(v)](v, d)


def same(a, b, pairs: dict) -> bool:
    """Whether ``a`` and ``b`` are equal but for their spans, each span of ``a`` always
    standing for the same span of ``b`` (recorded in ``pairs``)."""
    t = type(a)
    if t is not type(b):
        return False
    if t is Span:
        return pairs.setdefault(a, b) == b
    if t is tuple:
        return len(a) == len(b) and all(same(x, y, pairs) for x, y in zip(a, b))
    if t in (str, int, float, bool, type(None)) or not dataclasses.is_dataclass(t):
        return a == b
    p = _plan(t)
    if p is None:
        return a == b
    for name, m in p[0]:
        x, y = getattr(a, name), getattr(b, name)
        if m == 0:
            if x != y:
                return False
        elif m == 1:
            if pairs.setdefault(x, y) != y:
                return False
        elif not same(x, y, pairs):
            return False
    return True
