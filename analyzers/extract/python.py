"""Per-file facts from Python source: ``extract_python(path, text) -> FileFacts``.

The rules live in one query file, ``queries/python-facts.scm``, run once per file:
functions and classes (the scopes), imports, assignments, ``self.x = <call>``,
``with <call> as x`` and other name bindings, calls, route decorators, router mounts and
URL rules. Every call is one match; the call pattern's settings (``verbs``, ``url-args``,
``name-args``) say which callees and which direct arguments make a call a candidate (a
pattern per argument kind would cost more than all the other patterns together); the mount
pattern's settings say which argument of each mounting method is what.

Python code here only turns the captured nodes into plain data: qualified names come
from the nesting of the captured scope ranges (no tree walk), and a small recursive
function turns an expression into a URL expression (``UrlExpr``, ``python_values.py``).

Vocabulary (the same in ``ecma.py``): ``_Program`` is one parsed file and its ``run``;
``_Program.expr`` evaluates an expression into a URL expression (None: not string-like),
``template`` reads a string literal (an f-string's substitutions included), ``value`` any
expression into an argument value (all three in ``python_values.py``); ``_Scope`` is a
function or class whose names expressions resolve in; ``urlexpr.merge`` joins the pieces.
``run`` dispatches the matches by pattern kind (an if-chain: handlers called through a table
measured 2 % slower here), then turns them into facts.

Decisions the model leaves open:

* ``import a.b`` binds ``Import("a.b", "*", "a.b")`` (the local is the dotted path as
  callees spell it); ``from m import *`` is ``Import("m", "*", "*")``. Imports are
  collected wherever they appear (also inside functions and ``try`` blocks).
  An import's span is the span of its element (``a.b``, ``x as y``, ``*``); its
  ``module_span`` the dotted module name as written (``a.b``, ``..models``, the dots of
  ``from . import x``). ``guarded``: inside the body of a ``try:`` that has a handler for
  ``ImportError``/``ModuleNotFoundError``/``Exception``/``BaseException`` (alone, in a tuple,
  ``as e``) or a bare ``except:``, or under ``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``
  (the handler's own fallback imports are not guarded).
* ``all_names``: ``__all__`` assigned a list/tuple of string literals, then extended with
  literal ones (``+=``, ``.extend([...])``, ``.append('x')``), all as module-level
  statements; any other binding or use (``__all__ = a.__all__ + [...]``, inside ``if`` or
  ``try``, ``.remove``) gives None. ``open_exports``: a module-level ``def __getattr__``. Both
  come from ``queries/python-exports.scm``, run only on text naming ``__all__`` or
  ``__getattr__``.
* ``Definition`` and ``ClientDef`` spans are the span of the bound name.
* A client created in a class body (``session = requests.Session()``) is recorded as
  ``self.session`` with the class as scope, like ``self.session = ...`` in a method.
* Besides the brief's rules, a call is recorded when an argument has an ``Arg`` part
  anywhere (``f"{BASE}{path}"``) or refers to a module constant of the same file whose
  value contains ``/``.
* Decorator calls that are recorded as ``Route``s are not also recorded as call sites.
* Routes, mounts and views (route decorators, ``add_url_rule``, ``include_router``, Django
  URL patterns, DRF routers, view classes): ``python_routes.py``, which says what it decides.
* How expressions and arguments are evaluated (strings, names, environment values, ``%``
  and ``str.format``, dict literals, ``dict(...)``, ``**x``, a name bound to a dict):
  ``python_values.py``, which says what it decides.
* ``CallSite.reads`` (how the call's value is used in its function): ``python_reads.py``;
  the data classes (``FileFacts.data_models``) and ``Route.body_model``: ``python_models.py``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache

from tree_sitter import QueryCursor

from ..languages import grammar, parse, query
from .python_models import ModelFacts
from .python_reads import ReadFacts
from .python_routes import RouteFacts
from .python_views import ViewFacts
from .python_values import ValueFacts, _IDENT, _OtherVal, _Span, _Unknown, _all_unknown, _fast, _span
from ..model import (
    Arg,
    CallSite,
    ClientDef,
    Definition,
    FileFacts,
    FunctionDef,
    Import,
    Lit,
    Ref,
    StrVal,
)

_QUERY = "python-facts.scm"
_EXPORTS_QUERY = "python-exports.scm"  # __all__ and __getattr__, for files that name them

_CLIENT_CTORS = {
    "requests.Session": "requests",
    "requests.session": "requests",
    "requests.sessions.Session": "requests",
    "httpx.Client": "httpx",
    "httpx.AsyncClient": "httpx",
    "aiohttp.ClientSession": "aiohttp",
    "aiohttp.client.ClientSession": "aiohttp",
}
_CLIENT_NAMES = frozenset(k.rsplit(".", 1)[1] for k in _CLIENT_CTORS)

_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_WS = re.compile(r"\s+")

_CallSite = _fast(CallSite)
_FunctionDef = _fast(FunctionDef)
_ClientDef = _fast(ClientDef)
_Import = _fast(Import)
_Definition = _fast(Definition)
_FileFacts = _fast(FileFacts)


class _Scope:
    """A function or class: byte range, qualified name and the names bound in it."""

    __slots__ = ("start", "end", "qual", "is_class", "parent", "func", "cls", "node", "index",
                 "name_node", "params_node", "params", "counts", "values", "typed")

    def __init__(self, node, name_node, params_node, is_class: bool) -> None:
        self.start = node.start_byte
        self.end = node.end_byte
        self.node = node
        self.name_node = name_node
        self.params_node = params_node
        self.is_class = is_class
        self.qual = ""
        self.index = -1
        self.parent: _Scope | None = None
        self.func: _Scope | None = None  # nearest function, self included
        self.cls: _Scope | None = None  # nearest class, self included
        self.params: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.values: dict[str, object] = {}
        self.typed: dict[str, str] = {}  # parameter -> client kind (`client: httpx.Client | None`)


class _ModuleNames:
    """Names bound at module level: binding counts and first assigned values."""

    __slots__ = ("counts", "values")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.values: dict[str, object] = {}


class _Grammar:
    """Per-process constants of the query and grammar: pattern kinds, the call pattern's
    settings, field ids."""

    def __init__(self) -> None:
        q = query("python", _QUERY)
        self.query = q
        self.kinds = tuple(q.pattern_settings(i).get("kind") for i in range(q.pattern_count))
        self.exports = e = query("python", _EXPORTS_QUERY)
        self.export_kinds = tuple(e.pattern_settings(i).get("kind") for i in range(e.pattern_count))
        calls = [q.pattern_settings(i) for i in range(q.pattern_count) if self.kinds[i] == "call"]
        if len(calls) != 1:
            raise ValueError(f"{_QUERY}: expected one pattern of kind 'call'")
        self.verbs = frozenset(calls[0]["verbs"].split())
        self.url_args = frozenset(calls[0]["url-args"].split())
        self.name_args = frozenset(calls[0]["name-args"].split())
        self.django = frozenset(calls[0]["django"].split())
        mounts = [q.pattern_settings(i) for i in range(q.pattern_count) if self.kinds[i] == "mount"]
        if len(mounts) != 1:
            raise ValueError(f"{_QUERY}: expected one pattern of kind 'mount'")
        # method -> (framework, {role: (positional index or None, keyword or None)})
        self.mount_rules = {method: _argument_roles(spec) for method, spec in mounts[0].items()
                            if method != "kind"}
        lang = grammar("python")
        f = lang.field_id_for_name
        self.f_name, self.f_value, self.f_attribute, self.f_object = f("name"), f("value"), f("attribute"), f("object")
        self.f_function, self.f_arguments, self.f_expression = f("function"), f("arguments"), f("expression")
        self.f_left, self.f_right, self.f_operator = f("left"), f("right"), f("operator")
        self.f_key, self.f_subscript = f("key"), f("subscript")
        self.f_type = f("type")
        self.f_superclasses = f("superclasses")
        self.f_parameters = f("parameters")
        self.f_alias = f("alias")


@cache
def _grammar() -> _Grammar:
    return _Grammar()


class _Program(RouteFacts, ViewFacts, ReadFacts, ModelFacts, ValueFacts):
    def __init__(self, path: str, text: str, tree=None) -> None:
        self.path = path
        self.src = src = text.encode("utf-8", "surrogatepass")
        self.tree = tree if tree is not None else parse("python", src, path)
        self.g = _grammar()
        if len(src) == len(text):  # ASCII: byte offsets are str offsets
            self.t = lambda n, s=text: s[n.start_byte:n.end_byte]
        else:
            self.t = lambda n, s=src: s[n.start_byte:n.end_byte].decode("utf-8", "replace")
        self.scopes: list[_Scope] = []
        self.starts: list[int] = []
        self.module = _ModuleNames()
        self.imports: list[Import] = []
        self.by_local: dict[str, Import] = {}
        self.assigns: list[tuple] = []  # (name node, value node, owner scope or None)
        self.declared: list = []  # module-level names declared with a type and no value (`x: int`)
        self.class_attrs: list[tuple] = []  # (class scope, assignment node, name node): class attributes
        self.members: list[tuple] = []  # (target node, call node, owner scope or None)
        self.withs: list[tuple] = []  # (name node, call node, owner scope or None)
        self.env_subscripts: set[str] = {"os.environ"}
        self.env_calls: set[str] = {"os.getenv", "os.environ.get"}
        self.url_constants: set[str] = set()
        self.cache: dict[int, object] = {}
        self.routers: dict[str, tuple] = {}  # module-level app/router name -> (framework, prefix)
        self.drf_slash: dict[str, str | None] = {}  # DRF router -> its trailing slash (None: not known)
        self.route_extra: tuple[list, list] = ([], [])  # routes and mounts a router's creation declares
        self.function_names: dict[str, object] | None = None  # qualified name -> name node, when asked
        self.imported: tuple[bool, bool] | None = None  # (imports flask, imports fastapi), when asked

    def last_ident(self, n) -> str:
        names = _IDENT.findall(self.t(n))
        return names[-1] if names else "param"

    def positional_params(self, params_node, method: bool) -> list[str]:
        t = self.t
        names: list[str] = []
        for c in params_node.named_children:
            ty = c.type
            if ty == "identifier":
                names.append(t(c))
            elif ty in ("default_parameter", "typed_default_parameter"):
                name = c.child_by_field_id(self.g.f_name)
                names.append(t(name) if name is not None and name.type == "identifier" else "param")
            elif ty == "typed_parameter":
                first = c.named_children[0] if c.named_child_count else None
                if first is None or first.type != "identifier":
                    break  # *args: T / **kwargs: T
                names.append(t(first))
            elif ty in ("list_splat_pattern", "dictionary_splat_pattern", "keyword_separator"):
                break
            elif ty == "tuple_pattern":
                names.append("param")
        if method and names and names[0] in ("self", "cls"):
            del names[0]
        return names

    def typed_clients(self, params_node) -> dict[str, str]:
        """Parameters annotated with a client class: ``client: httpx.Client | None = None``."""
        out: dict[str, str] = {}
        t = self.t
        raw = t(params_node)
        if "Client" not in raw and "Session" not in raw:  # the client classes' names
            return out
        for c in params_node.named_children:
            if c.type not in ("typed_parameter", "typed_default_parameter"):
                continue
            ty = c.child_by_field_id(self.g.f_type)
            if ty is None:
                continue
            name = c.child_by_field_id(self.g.f_name) if c.type == "typed_default_parameter" else (
                c.named_children[0] if c.named_child_count else None)
            if name is None or name.type != "identifier":
                continue
            for dotted in _DOTTED.findall(t(ty)):
                kind = _CLIENT_CTORS.get(self.qualify(dotted))
                if kind is not None:
                    out[t(name)] = kind
                    break
        return out

    # ------------------------------------------------------------------ scopes
    def innermost(self, pos: int) -> _Scope | None:
        scopes = self.scopes
        if not scopes:
            return None
        i = bisect_right(self.starts, pos) - 1
        while i >= 0:
            s = scopes[i]
            if pos < s.end:
                return s
            p = s.parent
            if p is None:
                return None
            i = p.index
        return None

    def build_scopes(self, found: list[_Scope]) -> None:
        found.sort(key=lambda s: (s.start, -s.end))
        t = self.t
        stack: list[_Scope] = []
        for i, s in enumerate(found):
            s.index = i
            while stack and stack[-1].end <= s.start:
                stack.pop()
            p = stack[-1] if stack else None
            s.parent = p
            name = t(s.name_node)
            s.qual = f"{p.qual}.{name}" if p else name
            if s.is_class:
                s.func = p.func if p else None
                s.cls = s
            else:
                s.func = s
                s.cls = p.cls if p else None
                params = self.positional_params(s.params_node, p is not None and p.is_class)
                s.params = {n: k for k, n in enumerate(params)}
                s.typed = self.typed_clients(s.params_node)
            stack.append(s)
        self.scopes = found
        self.starts = [s.start for s in found]

    # ------------------------------------------------------------------ names
    def qualify(self, dotted: str) -> str:
        """``hx.Client`` -> ``httpx.Client`` through the file's imports."""
        imp = self.by_local.get(dotted)
        if imp is not None:
            return _target(imp)
        parts = dotted.split(".")
        for k in range(len(parts) - 1, 0, -1):
            imp = self.by_local.get(".".join(parts[:k]))
            if imp is not None:
                return ".".join([_target(imp), *parts[k:]])
        return dotted

    def dotted(self, n) -> str | None:
        ty = n.type
        if ty == "identifier":
            return self.t(n)
        if ty != "attribute":
            return None
        s = self.t(n)
        if not _DOTTED.fullmatch(s):
            s = _WS.sub("", s)
            if not _DOTTED.fullmatch(s):
                return None
        return s

    # ------------------------------------------------------------------ extraction
    def run(self) -> FileFacts:
        g = self.g
        kinds = g.kinds
        t = self.t
        found: list[_Scope] = []
        bindings: list[tuple] = []
        call_matches: list[tuple] = []
        route_matches: list[dict] = []
        mount_matches: list[dict] = []
        guards: list = []  # blocks whose imports are guarded
        imports = self.imports
        for idx, caps in QueryCursor(g.query).matches(self.tree.root_node):
            kind = kinds[idx]
            if kind == "call":
                call_matches.append((caps["call"][0], caps["call.function"][0], caps["call.args"][0]))
            elif kind == "assign" or kind == "rebind" or kind == "member" or kind == "with" or kind == "declare":
                bindings.append((kind, caps))
            elif kind == "function":
                found.append(_Scope(caps["function"][0], caps["function.name"][0], caps["function.params"][0], False))
            elif kind == "class":
                found.append(_Scope(caps["class"][0], caps["class.name"][0], None, True))
            elif kind == "import":
                item = caps["import.item"][0]
                module = _WS.sub("", t(caps["import.module"][0]))
                alias = caps.get("import.alias")
                mn = caps["import.module"][0]
                imports.append(_Import(module, "*", t(alias[0]) if alias else module, _span(item), "static", False,
                                       _span(mn)))
            elif kind == "from":
                item = caps["from.item"][0]
                mn = caps["from.module"][0]
                module = _WS.sub("", t(mn))
                if module == "__future__":
                    continue
                name = caps.get("from.name")
                if name is None:
                    imports.append(_Import(module, "*", "*", _span(item), "static", False, _span(mn)))
                else:
                    n = _WS.sub("", t(name[0]))
                    alias = caps.get("from.alias")
                    imports.append(_Import(module, n, t(alias[0]) if alias else n, _span(item), "static", False,
                                           _span(mn)))
            elif kind == "route":
                route_matches.append(caps)
            elif kind == "mount":
                mount_matches.append(caps)
            elif kind == "guard":
                b = caps["guard"][0]
                guards.append((b.start_byte, b.end_byte))

        if guards and imports:
            imports[:] = [_guarded(imp, guards) for imp in imports]
        open_exports, all_names = self.own_names()
        self.build_scopes(found)
        for imp in imports:
            self.by_local.setdefault(imp.local, imp)
            if imp.module == "os":
                if imp.name == "*":
                    self.env_subscripts.add(f"{imp.local}.environ")
                    self.env_calls.update((f"{imp.local}.getenv", f"{imp.local}.environ.get"))
                elif imp.name == "environ":
                    self.env_subscripts.add(imp.local)
                    self.env_calls.add(f"{imp.local}.get")
                elif imp.name == "getenv":
                    self.env_calls.add(imp.local)

        module = self.module
        innermost = self.innermost
        for kind, caps in bindings:
            if kind == "declare":
                name_node = caps["declare.name"][0]
                owner = innermost(name_node.start_byte)
                if owner is None:
                    self.declared.append(name_node)
                elif owner.is_class:
                    self.class_attrs.append((owner, name_node.parent, name_node))
            elif kind == "assign":
                name_node = caps["assign.name"][0]
                owner = innermost(name_node.start_byte)
                target = owner if owner is not None else module
                name = t(name_node)
                counts = target.counts
                counts[name] = counts.get(name, 0) + 1
                value = caps["assign.value"][0]
                target.values.setdefault(name, value)
                self.assigns.append((name_node, name, value, owner))
                if owner is not None and owner.is_class:
                    self.class_attrs.append((owner, caps["assign"][0], name_node))
            elif kind == "rebind":
                n = caps["rebind"][0]
                owner = innermost(n.start_byte)
                target = owner if owner is not None else module
                name = t(n)
                counts = target.counts
                counts[name] = counts.get(name, 0) + 1
            elif kind == "member":
                tn = caps["member.target"][0]
                self.members.append((tn, caps["member.value"][0], innermost(tn.start_byte)))
            else:  # with
                n = caps["with.name"][0]
                self.withs.append((n, caps["with.value"][0], innermost(n.start_byte)))

        definitions, constants, clients = self.bindings()
        functions = self.functions(definitions)
        calls, routes, mounts, views = self.calls(call_matches, route_matches, mount_matches, clients)
        definitions.sort(key=lambda d: d.span.start)
        return _FileFacts(self.path, "python", tuple(imports), (), tuple(definitions), tuple(functions),
                          tuple(constants), tuple(clients), tuple(calls), tuple(routes), (),
                          mounts=tuple(mounts), open_exports=open_exports, all_names=all_names,
                          views=tuple(views), data_models=self.data_models())

    def own_names(self) -> tuple[bool, tuple[str, ...] | None]:
        """(whether a module-level ``__getattr__`` opens the module's names, its literal
        ``__all__``), from ``python-exports.scm``, run only on text that names them."""
        src = self.src
        if b"__all__" not in src and b"__getattr__" not in src:
            return False, None
        q = self.g.exports
        kinds = self.g.export_kinds
        alls: list[dict] = []
        top: set[int] = set()
        opened = False
        for idx, caps in QueryCursor(q).matches(self.tree.root_node):
            kind = kinds[idx]
            if kind == "all":
                alls.append(caps)
            elif kind == "all.top":
                top.add(caps["all.top"][0].id)
            elif kind == "getattr":
                opened = True
        return opened, (self.all_names(alls, top) if alls else None)

    def all_names(self, alls: list[dict], top: set[int]) -> tuple[str, ...] | None:
        """A literal ``__all__``: assigned a list or tuple of strings at module level, then
        extended with literal ones (``+=``, ``.extend([...])``, ``.append('x')``); None when any
        binding of it is not such a literal or not a module-level statement."""
        names: list[str] | None = None
        for caps in sorted(alls, key=lambda c: c["all"][0].start_byte):
            stmt = caps["all"][0]
            if stmt.id not in top:
                return None
            if "all.value" in caps:
                got = self.literal_strings(caps["all.value"][0])
                if got is None:
                    return None
                names = got
                continue
            if names is None:
                return None
            if "all.extend" in caps:
                got = self.literal_strings(caps["all.extend"][0])
            else:
                method = self.t(caps["all.method"][0])
                args = [a for a in caps["all.args"][0].named_children if a.type != "comment"]
                if len(args) != 1:
                    return None
                if method == "extend":
                    got = self.literal_strings(args[0])
                elif method == "append":
                    one = self.literal(args[0]) if args[0].type in ("string", "concatenated_string") else None
                    got = None if one is None else [one]
                else:
                    return None
            if got is None:
                return None
            names.extend(got)
        return None if names is None else tuple(names)

    def literal_strings(self, n) -> list[str] | None:
        """The strings of a list or tuple literal of string literals, else None."""
        if n.type not in ("list", "tuple"):  # `("a")` is a parenthesized string, not a tuple
            return None
        out: list[str] = []
        for c in n.named_children:
            if c.type == "comment":
                continue
            if c.type not in ("string", "concatenated_string"):
                return None
            v = self.literal(c)
            if v is None:
                return None
            out.append(v)
        return out

    def client_kind(self, call) -> str | None:
        fn = call.child_by_field_id(self.g.f_function)
        d = self.dotted(fn) if fn is not None else None
        if d is None or (d[d.rfind(".") + 1:] not in _CLIENT_NAMES and d not in self.by_local):
            return None
        return _CLIENT_CTORS.get(self.qualify(d))

    def client_base(self, call, kind: str, sc: _Scope | None):
        if kind == "requests":
            return None
        g = self.g
        args = call.child_by_field_id(g.f_arguments)
        if args is None:
            return None
        first = True
        for c in args.named_children:
            t = c.type
            if t == "comment":
                continue
            if t == "keyword_argument":
                k = c.child_by_field_id(g.f_name)
                v = c.child_by_field_id(g.f_value)
                if k is not None and v is not None and self.t(k) == "base_url":
                    return self.expr(v, sc) or (_Unknown("base_url"),)
            elif first and kind == "aiohttp":
                return self.expr(c, sc) or (_Unknown("base_url"),)
            first = False
        return None

    def member_client(self, value, owner: _Scope | None):
        """(kind, base, base unknown) when ``self.x = value`` makes ``self.x`` a client: a
        client created here, a parameter typed as a client, or ``client or httpx.Client(...)``."""
        t = value.type
        if t == "call":
            kind = self.client_kind(value)
            return (kind, self.client_base(value, kind, owner), False) if kind is not None else None
        typed = owner.func.typed if owner is not None and owner.func is not None else {}
        if t == "identifier":
            kind = typed.get(self.t(value))
            return (kind, None, True) if kind is not None else None
        if t == "boolean_operator":
            left = value.child_by_field_id(self.g.f_left)
            right = value.child_by_field_id(self.g.f_right)
            kind = typed.get(self.t(left)) if left is not None and left.type == "identifier" else None
            if right is not None and right.type == "call":
                made = self.client_kind(right)
                if made is not None:
                    base = self.client_base(right, made, owner)
                    return made, base, base is None and kind is not None
            return (kind, None, True) if kind is not None else None
        return None

    def bindings(self):
        definitions: list[Definition] = []
        constants: list = []
        clients: list[ClientDef] = []
        module = self.module
        seen_defs: set[str] = set()
        class_seen: set[tuple[int, str]] = set()
        for name_node in self.declared:  # `x: int` with no value: defined, no constant
            name = name_node.text.decode("utf-8", "replace")
            if name not in seen_defs:
                seen_defs.add(name)
                definitions.append(_Definition(name, "variable", _span(name_node)))
        for name_node, name, value, owner in self.assigns:
            if owner is None:
                if name not in seen_defs:
                    seen_defs.add(name)
                    definitions.append(_Definition(name, "variable", _span(name_node)))
                if module.counts.get(name) == 1:
                    e = self.expr(value, None)
                    if e is not None and not _all_unknown(e):
                        constants.append((name, e))
                        if any(type(p) is Lit and "/" in p.text for p in e):
                            self.url_constants.add(name)
            elif owner.is_class:
                key = (owner.start, name)
                if owner.counts.get(name) == 1 and key not in class_seen:
                    class_seen.add(key)
                    e = self.expr(value, owner)
                    if e is not None and not _all_unknown(e):
                        constants.append((f"{owner.qual}.{name}", e))
            if value.type != "call":
                continue
            kind = self.client_kind(value)
            if kind is not None:
                if owner is not None and owner.is_class:
                    clients.append(_ClientDef(f"self.{name}", kind, self.client_base(value, kind, owner),
                                              _span(name_node), owner.qual))
                else:
                    clients.append(_ClientDef(name, kind, self.client_base(value, kind, owner), _span(name_node),
                                              owner.func.qual if owner is not None and owner.func else None))
            elif owner is None and module.counts.get(name) == 1:
                self.router_binding(name, value)  # an app or router: self.routers
        for target, value, owner in self.members:
            cls = owner.cls if owner is not None else None
            made = self.member_client(value, owner)
            if made is not None:
                kind, base, unknown = made
                clients.append(_ClientDef(_WS.sub("", self.t(target)), kind, base, _span(target),
                                          cls.qual if cls else None, None, unknown))
        for name_node, call, owner in self.withs:
            kind = self.client_kind(call)
            if kind is not None:
                clients.append(_ClientDef(self.t(name_node), kind, self.client_base(call, kind, owner),
                                          _span(name_node), owner.func.qual if owner is not None and owner.func else None))
        clients.sort(key=lambda c: c.span.start)
        return definitions, constants, clients

    def functions(self, definitions: list[Definition]) -> list[FunctionDef]:
        out: list[FunctionDef] = []
        for s in self.scopes:
            p = s.parent
            if s.is_class:
                if p is None:
                    definitions.append(_Definition(s.qual, "class", _span(s.name_node)))
                continue
            name_span = _span(s.name_node)
            out.append(_FunctionDef(s.qual, tuple(s.params), _Span(s.start, s.end), name_span))
            if p is None:
                definitions.append(_Definition(s.qual, "function", _span(s.name_node)))
            elif p.is_class and p.parent is None:
                definitions.append(_Definition(s.qual, "method", _span(s.name_node)))
        return out

    def qualifies(self, a, sc: _Scope | None) -> bool:
        """Whether argument ``a`` makes its call a possible HTTP call."""
        t = a.type
        fn = sc if sc is not None and sc.func is sc else None
        if t == "identifier":
            name = self.t(a)
            if name in self.url_constants:
                return True
            if fn is None or (name not in fn.params and not (fn.counts.get(name) == 1 and name in fn.values)):
                return False
        elif t in ("attribute", "subscript"):
            root = _IDENT.match(self.t(a))
            if fn is None or root is None or root.group() not in fn.params:
                return False
        v = self.value(a, sc)
        if type(v) is not StrVal:
            return False
        for p in v.expr:
            tp = type(p)
            if tp is Arg or (tp is Lit and "/" in p.text) or (tp is Ref and p.name in self.url_constants):
                return True
        return False

    def is_verb(self, fn) -> bool:
        """Whether the callee's last segment is one of the query's HTTP verbs."""
        ty = fn.type
        if ty == "identifier":
            return self.t(fn) in self.g.verbs
        if ty != "attribute":
            return False
        s = self.t(fn)
        last = s[s.rfind(".") + 1:]
        if last.isidentifier():  # the attribute name itself (it ends the node)
            return last in self.g.verbs
        attr = fn.child_by_field_id(self.g.f_attribute)
        return attr is not None and attr.type == "identifier" and self.t(attr) in self.g.verbs

    def is_candidate(self, call, fn, args) -> bool:
        """Whether a call is recorded: an HTTP-verb callee, or an argument (positional or
        keyword value) that qualifies (see the call pattern's settings)."""
        if self.is_verb(fn):
            return True
        if args.type != "argument_list":
            return False
        g = self.g
        url_args, name_args = g.url_args, g.name_args
        sc = -1
        for c in args.named_children:
            ty = c.type
            if ty == "keyword_argument":
                c = c.child_by_field_id(g.f_value)
                if c is None:
                    continue
                ty = c.type
            if ty in name_args:
                pass
            elif ty in url_args:
                s = self.t(c)
                if "/" not in s and "{" not in s:
                    continue
            else:
                continue
            if sc == -1:
                sc = self.innermost(call.start_byte)
            if self.qualifies(c, sc):
                return True
        return False

    def calls(self, call_matches: list[tuple], route_matches: list[dict], mount_matches: list[dict],
              clients: list[ClientDef]):
        accepted = [(call, args) for call, fn, args in call_matches if self.is_candidate(call, fn, args)]
        routes, route_calls = self.routes(route_matches)
        mounts: list = []
        if mount_matches:
            rules, mounts, mount_calls = self.mounts(mount_matches, clients)
            routes.extend(rules)
            route_calls |= mount_calls
        patterns, included, views, pattern_calls = self.route_query(call_matches)
        routes += patterns + self.route_extra[0]
        mounts += included + self.route_extra[1]
        route_calls |= pattern_calls
        if len(routes) > 1:
            routes.sort(key=lambda r: r.span.start)  # stable: a route's methods keep their order
        if len(mounts) > 1:
            mounts.sort(key=lambda m: m.span.start)
        out: list[CallSite] = []
        for call, args in accepted:
            if route_calls and call.id in route_calls:
                continue
            out.append(self.call_site(call, args, self.innermost(call.start_byte)))
        out.sort(key=lambda c: (c.span.start, c.span.end))
        return out, routes, mounts, views

    def call_site(self, call, args_node, sc: _Scope | None) -> CallSite:
        g = self.g
        fn = call.child_by_field_id(g.f_function)
        args: list = []
        kwargs: list = []
        if args_node.type == "argument_list":
            for c in args_node.named_children:
                t = c.type
                if t == "keyword_argument":
                    k = c.child_by_field_id(g.f_name)
                    v = c.child_by_field_id(g.f_value)
                    if k is not None and v is not None:
                        kwargs.append((self.t(k), self.value(v, sc)))
                elif t == "list_splat":
                    args.append(_OtherVal(_span(c)))
                elif t != "comment" and t != "dictionary_splat":
                    args.append(self.value(c, sc))
        else:
            args.append(_OtherVal(_span(args_node)))
        fscope = sc.func if sc is not None else None
        callee = self.t(fn) if fn is not None else ""
        if not _DOTTED.fullmatch(callee):
            callee = _WS.sub("", callee)
        return _CallSite(callee, _span(call), tuple(args), tuple(kwargs),
                         fscope.qual if fscope is not None else None, self.reads(call, sc))


def _guarded(imp: Import, guards: list[tuple[int, int]]) -> Import:
    pos = imp.span.start
    for s, e in guards:
        if s <= pos < e:
            return _Import(imp.module, imp.name, imp.local, imp.span, imp.kind, True, imp.module_span)
    return imp


def _argument_roles(spec: str) -> tuple[str, dict[str, tuple[int | None, str | None]]]:
    """A mount pattern's setting, ``fastapi child=0|router prefix=prefix``, as
    ``("fastapi", {"child": (0, "router"), "prefix": (None, "prefix")})``."""
    framework, *roles = spec.split()
    out: dict[str, tuple[int | None, str | None]] = {}
    for role in roles:
        name, _, where = role.partition("=")
        index: int | None = None
        keyword: str | None = None
        for w in where.split("|"):
            if w.isdigit():
                index = int(w)
            else:
                keyword = w
        out[name] = (index, keyword)
    return framework, out


def _target(imp: Import) -> str:
    """What an import binds, as a dotted name: ``httpx``, ``httpx.AsyncClient``, ``.config``."""
    if imp.name == "*":
        return imp.module
    return imp.module + imp.name if imp.module.endswith(".") else f"{imp.module}.{imp.name}"


def extract_python(path: str, text: str, tree=None) -> FileFacts:
    """The facts of one Python file (``tree``: its tree when parsed already). Tolerates
    syntax errors: what parses is extracted."""
    ex = _Program(path, text, tree)
    try:
        return ex.run()
    finally:
        for s in ex.scopes:  # a scope is its own `func` or `cls`: no cycle outlives the run
            s.parent = s.func = s.cls = None
