"""HTTP clients of JavaScript and TypeScript files (``model.ClientDef``), for ``ecma.py``'s
``_Program`` (a mixin: ``ClientsMixin``): clients a library creates (``axios.create(...)``,
``ky.extend(...)``, or an existing client's), bindings to a call or an instance the linker
may follow as a factory (``const api = makeClient()``, ``this.api = new ApiService()``),
parameters typed as a client or injected into a constructor, class fields and ``this``
fields (clients, or constants: ``Cls.baseUrl``), and clients a named function returns;
with what classes extend (``class_bases``) and the fields their constructors set.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .ecma_base import ProgramBase
from .ecma_exprs import _STRINGISH
from .ecma_routes import unwrap as _unwrap
from ..model import Arg, ClientDef, Param, StrVal, Unknown, UrlExpr

if TYPE_CHECKING:
    from .ecma import _Scope

__all__ = ["ClientsMixin"]

# Keys of a client factory's options holding the base URL.
BASE_KEYS = ("baseURL", "baseUrl", "prefixUrl", "prefixURL", "basePath", "base_url")
# Type names of client instances (typed parameters and fields).
CLIENT_TYPES = {"HttpClient": "angular", "AxiosInstance": "axios", "AxiosStatic": "axios", "KyInstance": "ky",
                "$Fetch": "ofetch"}
# A binding to a call is recorded as a possible client when the callee or the name says so.
_CLIENTISH = re.compile(r"client|api|http|service|sdk|request|fetcher|instance|transport|backend|rest", re.I)
_CLIENTISH_B = re.compile(_CLIENTISH.pattern.encode(), re.I)
_NOT_FACTORIES = frozenset({"fetch", "require", "axios", "axios.get", "axios.post", "fetchJson", "useState",
                            "useRef", "useContext", "ref", "reactive", "inject"})
_BUILTIN_CLASSES = frozenset({"Date", "Map", "Set", "WeakMap", "WeakSet", "Error", "TypeError", "URL",
                              "URLSearchParams", "FormData", "Headers", "Request", "Response", "Promise",
                              "RegExp", "Array", "Object", "AbortController", "Blob", "File", "Event",
                              "CustomEvent", "Proxy", "Intl.DateTimeFormat", "Intl.NumberFormat", "TextEncoder",
                              "TextDecoder", "EventSource", "WebSocket", "Worker", "Image", "Uint8Array",
                              "ArrayBuffer", "DataView", "Subject", "BehaviorSubject", "Observable",
                              "HttpParams", "HttpHeaders", "EventEmitter", "FileReader", "XMLHttpRequest"})
# Module (as imported) or global name -> client kind, for X.create()/X.extend().
CLIENT_MODULES = {
    "axios": "axios",
    "redaxios": "axios",
    "ky": "ky",
    "ky-universal": "ky",
    "ofetch": "ofetch",
    "ohmyfetch": "ofetch",
}
CLIENT_GLOBALS = {"axios": "axios", "ky": "ky", "ofetch": "ofetch", "$fetch": "ofetch"}


class ClientsMixin(ProgramBase):
    """The client methods of ``ecma._Program`` (which provides ``text``, ``span``,
    ``key_text``, ``dotted``, ``locate``, ``params``, ``expr`` and ``obj`` (``ExprsMixin``)
    and the tables ``out``, ``classes``, ``typed``, ``ctor_fields``, ``import_modules``,
    ``fn_by_id``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        classes: list[tuple[int, int, str]]
        typed: list[tuple[Node, str, str, bool]]
        ctor_fields: dict[str, list[tuple[str, int]]]

    def enclosing_class(self, pos: int) -> str | None:
        best = None
        for s, e, name in self.classes:
            if s <= pos < e and (best is None or s >= best[0]):
                best = (s, name)
        return best[1] if best else None

    def class_bases(self, cls: Node) -> tuple[str, ...]:
        """What a class extends, as written (type arguments dropped)."""
        for ch in cls.named_children:
            if ch.type == "class_heritage":
                for h in ch.named_children:
                    value = h.child_by_field_name("value") if h.type == "extends_clause" else h
                    if value is None:
                        continue
                    segs = self.dotted(value)
                    if segs:
                        return (".".join(segs),)
        return ()

    def find_typed(self, fn: Node, name: str) -> None:
        """Parameters typed as a client (``api: AxiosInstance``) or injected into a constructor."""
        ps = fn.child_by_field_name("parameters")
        if ps is None or self.grammar == "javascript":
            return
        ctor = fn.type == "method_definition" and name.endswith(".constructor")
        index = -1
        for p in ps.named_children:
            if p.type in ("comment", "decorator", "this"):
                continue
            index += 1
            if p.type not in ("required_parameter", "optional_parameter"):
                continue
            pat = p.child_by_field_name("pattern")
            if pat is None or pat.type != "identifier":
                continue
            injected = ctor and any(ch.type == "accessibility_modifier" or ch.type == "readonly" for ch in p.children)
            if injected:  # `constructor(private routes: Routes)`: a field set from this parameter
                self.ctor_fields.setdefault(name.split(".")[0], []).append((self.text(pat), index))
            typ = p.child_by_field_name("type")
            inner = typ.named_child(0) if typ is not None else None
            if inner is None or inner.type not in ("type_identifier", "nested_type_identifier"):
                continue
            tname = self.text(inner)
            if tname in CLIENT_TYPES or (injected and tname[:1].isupper()):
                self.typed.append((fn, self.text(pat), tname, injected))

    def on_typed(self) -> None:
        out = self.out.clients
        for fn, pname, tname, injected in self.typed:
            f = self.fn_by_id.get(fn.id)
            if f is None or f.name is None:
                continue
            kind = CLIENT_TYPES.get(tname)
            span = self.span(fn)
            if kind is not None and not injected:
                out.append(ClientDef(pname, kind, None, span, f.name, None, True))
            if injected:
                cls = f.name.split(".")[0]
                if kind is not None:
                    if kind != "angular":  # Angular's own constructor parameters are found by the queries
                        out.append(ClientDef(f"this.{pname}", kind, None, span, cls, None, True))
                else:
                    out.append(ClientDef(f"this.{pname}", "factory", None, span, cls, f"new {tname}"))

    def on_class_fields(self, class_fields: list[dict], this_fields: list[dict]) -> None:
        """Class fields and `this` fields: literal ones are constants (``Cls.baseUrl``),
        clients are clients (``this.http``)."""
        out = self.out
        for c in class_fields:
            cls = self.text(c["field.class"][0])
            nn = c["field.name"][0]
            value = _unwrap(c["field.value"][0])
            name = self.key_text(nn)
            if name is None:
                continue
            if value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None and not any(type(p) in (Param, Arg, Unknown) for p in r):
                    out.constants.append((self.base + nn.start_byte, f"{cls}.{name}", r))
            elif value.type in ("call_expression", "new_expression"):
                fn = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                made = False
                if fn is not None and args is not None and fn.type == "member_expression":
                    prop = fn.child_by_field_name("property")
                    obj = fn.child_by_field_name("object")
                    if prop is not None and obj is not None and self.text(prop) in ("create", "extend"):
                        made = self.make_client(obj, args, f"this.{name}", nn, cls, None)
                if not made:
                    self.bind_client(f"this.{name}", value, nn, cls)
        typed = {(f.id, p): t for f, p, t, _ in self.typed}
        for c in this_fields:
            left = c["this.field"][0]
            value = _unwrap(c["this.value"][0])
            segs = self.dotted(left)
            if not segs or len(segs) != 2:
                continue
            cls = self.enclosing_class(left.start_byte)
            if cls is None:
                continue
            f = self.locate(left)
            if value.type == "identifier" and f is not None and f.name is not None and f.name.endswith(".constructor"):
                p = self.params(f).get(self.text(value))
                if p is not None and p[1] is None:  # `this.routes = routes` in the constructor
                    self.ctor_fields.setdefault(cls, []).append((segs[1], p[0]))
            if value.type == "identifier" and f is not None:
                tname = typed.get((f.node.id, self.text(value)))
                kind = CLIENT_TYPES.get(tname) if tname else None
                if kind is not None:
                    out.clients.append(ClientDef(f"this.{segs[1]}", kind, None, self.span(left), cls, None, True))
                    continue
            if value.type in _STRINGISH:
                r = self.expr(value, None, None)
                if r is not None and not any(type(p) in (Param, Arg, Unknown) for p in r):
                    out.constants.append((self.base + left.start_byte, f"{cls}.{segs[1]}", r))

    def returned_clients(self, names: dict) -> None:
        """A client a named function returns (`return axios.create({...})`, `() => ky.create(...)`):
        the linker follows calls of such a factory."""
        src = self.src
        for _name, _nn, fn in names.values():
            f = self.fn_by_id.get(fn.id)
            if f is None or f.name is None:
                continue
            body = fn.child_by_field_name("body")
            nodes = [body] if body is not None and body.type != "statement_block" else f.returns
            for n in nodes:
                if n.type != "call_expression":
                    continue
                callee = n.child_by_field_name("function")
                args = n.child_by_field_name("arguments")
                if callee is None or args is None or callee.type != "member_expression":
                    continue
                prop = callee.child_by_field_name("property")
                obj = callee.child_by_field_name("object")
                if prop is not None and obj is not None and src[prop.start_byte : prop.end_byte] in (b"create", b"extend"):
                    self.make_client(obj, args, "return", n, f.name, f)
                    break

    def on_binds(self, binds: list[tuple[Node, Node | None]]) -> None:
        src = self.src
        for nn, value in binds:
            if value is not None and value.type == "await_expression":
                value = value.named_child(0)
            if value is None or value.type not in ("call_expression", "new_expression"):
                continue
            callee = value.child_by_field_name("function" if value.type == "call_expression" else "constructor")
            if callee is None or callee.type not in ("identifier", "member_expression"):
                continue
            craw = src[callee.start_byte : callee.end_byte]
            if not (_CLIENTISH_B.search(craw) or _CLIENTISH_B.search(src[nn.start_byte : nn.end_byte])
                    or (craw[:1].isupper() and callee.parent is not None and callee.parent.type == "new_expression")):
                continue  # most bindings to a call: not a client (decided as bind_client would)
            segs = self.dotted(nn)
            if not segs:
                continue
            name = ".".join(segs)
            if name.startswith("this."):
                scope = self.enclosing_class(nn.start_byte)
                if scope is None:
                    continue
            else:
                f = self.locate(nn)
                named = f.named if f is not None else None
                scope = named.name if named is not None else None
            self.bind_client(name, value, nn, scope)

    def bind_client(self, name: str, value: Node, nn: Node, scope: str | None) -> None:
        """A binding to a call or an instance that may be a client: the linker follows the
        factory (a library's, a workspace function returning a client, a class)."""
        is_new = value.type == "new_expression"
        callee_node = value.child_by_field_name("constructor" if is_new else "function")
        if callee_node is None:
            return
        segs = self.dotted(callee_node)
        if not segs:
            return
        callee = ".".join(segs)
        if segs[-1] in ("create", "extend") or callee in _NOT_FACTORIES:
            return  # library clients come from the client patterns
        if is_new:
            if not callee[:1].isupper() or callee in _BUILTIN_CLASSES:
                return
        elif not (_CLIENTISH.search(callee) or _CLIENTISH.search(name)):
            return
        base = None
        args = value.child_by_field_name("arguments")
        first = next((a for a in args.named_children if a.type != "comment"), None) if args is not None else None
        if first is not None and first.type == "call_expression":  # createClient(createConfig({ baseUrl }))
            args = first.child_by_field_name("arguments")
        if args is not None:
            base = self.options_base(args, self.locate(value), None)
        self.out.clients.append(ClientDef(name, "factory", base, self.span(nn), scope,
                                          ("new " if is_new else "") + callee))

    def on_client(self, c: dict) -> None:
        node = c["client"][0]
        name_nodes = c.get("client.name")
        f = self.locate(node)
        named = f.named if f is not None else None
        if name_nodes:
            nn = name_nodes[0]
            nsegs = self.dotted(nn)
            name = ".".join(nsegs) if nsegs else self.text(nn)
        else:
            nn = node
            name = "default"
        if name.startswith("this."):
            scope = self.enclosing_class(node.start_byte)
        else:
            scope = named.name if named is not None else None
        self.make_client(c["client.library"][0], c["client.arguments"][0], name, nn, scope, f)

    def make_client(self, lib: Node, args: Node, name: str, nn: Node, scope: str | None, f: _Scope | None) -> bool:
        """A client created by a library's ``create``/``extend`` (or an existing client's)."""
        segs = self.dotted(lib)
        if not segs:
            return False
        libname = ".".join(segs)
        kind = None
        base: UrlExpr | None = None
        module = self.import_modules.get(libname)
        if module is not None:
            kind = CLIENT_MODULES.get(module)
        elif libname in CLIENT_GLOBALS:
            kind = CLIENT_GLOBALS[libname]
        else:
            for prev in reversed(self.out.clients):
                if prev.name == libname:
                    kind, base = prev.kind, prev.base
                    break
        if kind is None:
            return False
        base = self.options_base(args, f, base)
        self.out.clients.append(ClientDef(name, kind, base, self.span(nn), scope))
        return True

    def options_base(self, args: Node, f: _Scope | None, base: UrlExpr | None) -> UrlExpr | None:
        """The base URL a client's options give (the first object argument's first string
        under one of ``BASE_KEYS``), else ``base``."""
        for a in args.named_children:
            if a.type == "object":
                ov = self.obj(a, f, f.named if f is not None else None, 0)
                for k in BASE_KEYS:
                    v = ov.get(k)
                    if type(v) is StrVal:
                        return v.expr  # type: ignore[union-attr]
                break
        return base
