"""Backend route declarations of JavaScript and TypeScript files, for ``ecma.py``'s
``_Program`` (a mixin: ``RoutesMixin``): Express, Fastify, Koa and Hono routes and mounts
(found by ``queries/ecma-deep.scm``: ``server.*``, ``mount``, and the calls ``on_call``
(``ecma_calls.py``) hands to ``on_route``). NestJS controllers, modules and apps are
``ecma_nest.py``'s (``NestMixin``, with its conventions), which uses this module's
``option``, ``route_path``, ``put_route``, ``literal_path`` and ``nest_join``.

Conventions (the composition in ``analyzers/routes.py`` and ``analyzers/routes_nest.py``
reads them):

- ``Route.router`` / ``RouteMount.parent``: the app or router's name where it is bound
  (module or factory level); a plugin's parameter (``fastify.get`` in ``function
  usersPlugin(fastify)``) stands for the plugin, named as the file's exports name the
  function (``plugin``); an inline plugin (``app.register(async (api) => ..., { prefix })``)
  for the router it is registered on, under its prefix.
- ``RouteMount.child``: an identifier, a dotted name (``routes.users``), or
  ``require:<specifier>`` for an inline ``require('./x')`` / ``import('./x')``.
- a prefix that is not a literal: the mount is unresolved (``prefix=""``); when it is the
  prefix of routes declared here (koa-router's ``prefix`` option, Hono's ``basePath``, an
  inline plugin's), those routes are declared on a synthetic router ``<router>~<prefix>``
  that an unresolved mount puts under the router.
- a route path that is not a literal (``app.get(`${BASE}/:id`, h)``, ``@Get(ROUTE)``) is a
  ``Route`` with ``unresolved`` set (``path is a template literal``, ``path is the name
  BASE``) and ``path`` holding the literal text before the first unknown piece; its URL
  expression is kept (``EcmaCollector.route_exprs``) so that ``resolve_paths`` can resolve
  it, when the whole file's facts are put together, from module-level ``const`` strings of
  the same file (never from anything else).
- a chain of shorthands (``app.get('/a', h).post('/b', h2)``): every link is a route on the
  chain's receiver (``chain_receiver``).
- Fastify's ``register(plugin, opts)`` with ``opts`` a name: the mount is unresolved while
  dispatching; ``resolve_options``, when the whole file's facts are put together, gives it
  the ``prefix`` of a module-level ``const`` object literal of that name (none: ``""``).
- spans: a route's is its path string's (the decorator's call without one); a mount's its
  prefix's (the call's without one).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from .ecma_base import ProgramBase
from ..model import Definition, FunctionDef, Lit, Ref, Route, RouteMount, Span, UrlExpr

ROUTE_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
# names a route or mount receiver may have without being bound here to a known factory (an
# app passed in, a plugin's parameter, an instance imported)
ROUTE_RECEIVERS = frozenset({"app", "router", "server", "fastify"})
# imported modules that say a file is a backend's (module as written -> framework); a prefix
# of the name counts for scoped packages and subpaths (`@fastify/`, `hono/`)
_BACKEND_MODULES = {"express": "express", "fastify": "fastify", "fastify-plugin": "fastify", "@fastify/": "fastify",
                    "koa": "koa", "@koa/router": "koa", "koa-router": "koa", "hono": "hono", "hono/": "hono",
                    "@hono/": "hono"}


def backend_of(module: str) -> str | None:
    """The framework an imported module says the file is a backend of, if any."""
    fw = _BACKEND_MODULES.get(module)
    if fw is None and "/" in module:
        for head, name in _BACKEND_MODULES.items():
            if head.endswith("/") and module.startswith(head):
                return name
    return fw


_KOA_ROUTER_MODULES = frozenset({"@koa/router", "koa-router"})
# classes of `new X()` bound as routers -> their kind (see ``RoutesMixin.framework``)
_SERVER_CLASSES = {"Router": "new Router", "KoaRouter": "koa", "Koa": "koa", "Hono": "hono", "OpenAPIHono": "hono"}
# the identifier or dotted name of a mount prefix that is named like one (`API_PREFIX`,
# `config.basePath`): an unresolved prefix rather than a middleware before the router
_PREFIX_NAME = re.compile(r"[Pp]refix|PREFIX|[Pp]ath$|PATH|[Uu]rl$|URL|[Bb]ase$|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
_NOT_NAME = re.compile(r"[^\w$]+")
_ROUTE_HANDLERS = frozenset(
    {"arrow_function", "function_expression", "identifier", "member_expression", "call_expression"}
)
ROUTE_METHODS_B = frozenset(x.encode() for x in ROUTE_METHODS)
ROUTE_PARAM = re.compile(r":([A-Za-z_$][\w$]*)(?:\([^)]*\))?\??")
# a route path that is not a literal, but may be one (a name, a template, a concatenation, a call)
_PATHISH = frozenset({"template_string", "identifier", "member_expression", "binary_expression", "call_expression"})
_SPACE = re.compile(r"\s+")
FUNCTION_NODES = frozenset(
    {"arrow_function", "function_expression", "generator_function", "method_definition"}
)
WRAPPERS = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
     "instantiation_expression"}  # `createClient<paths>`
)


def unwrap(n: Node) -> Node:
    while n.type in WRAPPERS:
        inner = n.named_child(0)
        if inner is None:
            break
        n = inner
    return n


def _items(args: Node | None) -> list[Node]:
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


class RoutesMixin(ProgramBase):
    """The route and mount methods of ``ecma._Program`` (which provides ``text``, ``span``,
    ``string_value``, ``specifier``, ``key_text``, ``dotted``, ``locate``, ``params``,
    ``expr`` and the tables ``servers``, ``local_routers``, ``import_modules``, ``claimed``,
    ``plugins``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        fns: list
        servers: dict[str, tuple]
        local_routers: dict[tuple[int, str], tuple]
        claimed: set[int]
        plugins: dict[int, tuple | None]
        _backend: list

    def server_info(self, c: dict) -> tuple:
        """(kind, own prefix, holder) of an app or router bound to a variable: the kind is a
        framework, or ``Router`` / ``new Router`` (Express's or koa-router's: the imports tell,
        when it is used, ``framework``); the own prefix is koa-router's ``prefix`` option or
        Hono's ``basePath``; ``holder``, when that prefix is not a literal, the synthetic router
        its routes are declared on, mounted under the binding by an unresolved mount recorded
        here. Decided on the statement alone (it runs while dispatching)."""
        nn = c["server.name"][0]
        args = c.get("server.arguments")
        items = [a for a in args[0].named_children if a.type != "comment"] if args else []
        prefix_node = None
        if "server.base" in c:  # new Hono().basePath('/api'): a declaration, not a call
            kind = "hono"
            prefix_node = items[0] if items else None
            if args and args[0].parent is not None:
                self.claimed.add(args[0].parent.id)
        elif "server.class" in c:
            kind = _SERVER_CLASSES.get(self.text(c["server.class"][0]), "koa")
        else:
            factory = self.text(c["server.factory"][0])
            kind = "fastify" if "astify" in factory else ("Router" if factory == "Router" else "express")
        if kind in ("new Router", "Router", "koa") and items and unwrap(items[0]).type == "object":
            prefix_node = self.option(unwrap(items[0]), "prefix")
            if prefix_node is not None:
                kind = "koa"  # Express's routers take no prefix
        if prefix_node is None:
            return kind, "", None
        lit, why = self.literal_prefix(prefix_node)
        if why is None:
            return kind, lit, None
        name = self.text(nn)
        holder = _holder(name, self.text(prefix_node))
        self.out.mounts.append(RouteMount(name, holder, "", self.span(prefix_node), kind, why))
        return kind, "", holder

    def framework(self, kind: str) -> str:
        if kind == "Router" or kind == "new Router":
            module = self.import_modules.get("Router")
            if module in _KOA_ROUTER_MODULES:
                return "koa"
            if module == "express":
                return "express"
            return "express" if kind == "Router" else "koa"
        return kind

    def backend(self) -> str | None:
        """The framework the file imports (``express``, ``fastify``, ``koa``, ``hono``; the first
        one imported), if any."""
        found = self.backends()
        return found[0] if found else None

    def backends(self) -> tuple[str, ...]:
        """The frameworks the file imports, in import order. Read only after the dispatch (the
        whole file's imports)."""
        if not self._backend:
            found: list[str] = []
            for module in self.import_modules.values():
                fw = backend_of(module)
                if fw is not None and fw not in found:
                    found.append(fw)
            self._backend.append(tuple(found))
        return self._backend[0]

    def router_of(self, name: str, at: Node) -> tuple[str, str, str, str] | None:
        """What the receiver ``name`` of a call at ``at`` is: (router name, framework, prefix
        its routes and mounts are under in this file, how it is known: ``bound`` to an app or
        router factory here, the ``param`` of a plugin, or only by its ``name``), or None when
        it is no app or router."""
        r = self.locate(at) if self.fns else None
        while r is not None:
            info = self.local_routers.get((r.id, name)) if self.local_routers else None
            if info is not None:
                return self.bound(name, info)
            if name in r.locals:
                return (name, self.backend() or "express", "", "name") if name in ROUTE_RECEIVERS else None
            p = self.params(r).get(name)
            if p is not None:
                if p[1] is not None:
                    return None
                got = self.plugin(r, name) if p[0] == 0 else None
                if got is not None:
                    return got
                return (name, self.backend() or "express", "", "param") if name in ROUTE_RECEIVERS else None
            r = r.parent
        info = self.servers.get(name)
        if info is not None:
            return self.bound(name, info)
        if name in ROUTE_RECEIVERS:
            return name, self.backend() or "express", "", "name"
        return None

    def bound(self, name: str, info: tuple) -> tuple[str, str, str, str]:
        kind, prefix, holder = info
        return holder or name, self.framework(kind), prefix, "bound"

    def plugin(self, f: Any, param: str) -> tuple[str, str, str, str] | None:
        """A function whose first parameter ``param`` is the app its routes are declared on (a
        Fastify plugin, an Express module handed the app), as ``router_of`` says it."""
        if f.id in self.plugins:
            return self.plugins[f.id]
        self.plugins[f.id] = None  # a plugin reached again while it is being looked at
        got = self.plugins[f.id] = self._plugin(f, param)
        return got

    def _plugin(self, f: Any, param: str) -> tuple[str, str, str, str] | None:
        node = f.node
        outer = node.parent
        while outer is not None and outer.type == "parenthesized_expression":
            node, outer = outer, outer.parent
        if outer is not None and outer.type == "arguments":  # inline: X.register(async (api) => {...}, opts)
            call = outer.parent
            fn = call.child_by_field_name("function") if call is not None else None
            items = [a for a in outer.named_children if a.type != "comment"]
            if fn is not None and fn.type == "member_expression" and items and items[0].id == node.id:
                prop = fn.child_by_field_name("property")
                obj = fn.child_by_field_name("object")
                if prop is not None and obj is not None and obj.type == "identifier" and self.text(prop) == "register":
                    up = self.router_of(self.text(obj), call)
                    if up is not None:
                        router, _fw, prefix, how = up
                        lit, why, pnode = self.register_prefix(items[1] if len(items) > 1 else None)
                        if why is not None and pnode is not None:
                            return _holder(router, self.text(pnode)), "fastify", "", how
                        return router, "fastify", _join(prefix, lit), how
        if param not in ROUTE_RECEIVERS:
            return None
        if outer is not None and (self.module_exports(outer, node) or (
                outer.type == "export_statement" and node.type != "function_declaration")):
            name = "default"  # (`module.exports = ...` also names the function `module.exports`)
        elif f.name is not None:
            name = f.name
        else:
            name = param
        if param == "fastify" or "fastify" in self.backends():
            fw = "fastify"
        else:  # an async function handed the app: a Fastify plugin (Express modules are seldom async)
            fw = self.backend() or ("fastify" if any(ch.type == "async" for ch in f.node.children) else "express")
        return name, fw, "", "param"

    def module_exports(self, n: Node, value: Node) -> bool:
        """Whether ``n`` is ``module.exports = value``."""
        if n.type != "assignment_expression":
            return False
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        return (right is not None and right.id == value.id and left is not None
                and self.dotted(left) == ["module", "exports"])

    def option(self, obj: Node, key: str) -> Node | None:
        """The value of ``key`` in an object literal (the last one written), or None."""
        found = None
        for ch in obj.named_children:
            t = ch.type
            if t == "pair":
                k = ch.child_by_field_name("key")
                if k is not None and self.key_text(k) == key:
                    found = ch.child_by_field_name("value")
            elif t == "shorthand_property_identifier" and self.text(ch) == key:
                found = ch
        return found

    def literal_path(self, n: Node) -> str | None:
        """A route path written as a literal (a string, a template without substitutions),
        parameters as ``{name}``; None otherwise."""
        t = n.type
        if t == "string":
            return ROUTE_PARAM.sub(r"{\1}", self.string_value(n))
        if t == "template_string" and not any(ch.type == "template_substitution" for ch in n.named_children):
            got = self.specifier(n)
            return ROUTE_PARAM.sub(r"{\1}", got[0]) if got is not None else None
        return None

    def literal_prefix(self, n: Node) -> tuple[str, str | None]:
        """(prefix, None) for a literal prefix, ("", why) for any other expression."""
        n = unwrap(n)
        got = self.literal_path(n)
        if got is not None:
            return got, None
        if n.type == "regex":
            return "", f"prefix is a regular expression: {_short(self.text(n))}"
        return "", f"prefix is not a literal: {_short(self.text(n))}"

    def register_prefix(self, opts: Node | None) -> tuple[str, str | None, Node | None]:
        """The ``prefix`` of Fastify's ``register(plugin, opts)``: (prefix, why it is not
        known, the node that says so)."""
        if opts is None:
            return "", None, None
        o = unwrap(opts)
        if o.type != "object":
            return "", f"options are not a literal: {_short(self.text(o))}", o
        value = spread = None
        for ch in o.named_children:
            t = ch.type
            if t == "pair":
                k = ch.child_by_field_name("key")
                if k is not None and self.key_text(k) == "prefix":
                    value, spread = ch.child_by_field_name("value"), None
            elif t == "shorthand_property_identifier" and self.text(ch) == "prefix":
                value, spread = ch, None
            elif t == "spread_element":
                spread = ch
        if spread is not None:
            return "", f"prefix may come from {_short(self.text(spread))}", spread
        if value is None:
            return "", None, None
        lit, why = self.literal_prefix(value)
        return lit, why, value

    def handler_name(self, n: Node | None, depth: int = 0) -> str | None:
        """The handler's name: an identifier, a dotted name (``users.list``), the one argument
        of a wrapper (``asyncHandler(listUsers)``), Fastify's ``{ handler }`` option."""
        if n is None:
            return None
        n = unwrap(n)
        t = n.type
        if t == "identifier" or t == "shorthand_property_identifier":
            return self.text(n)
        if t == "member_expression":
            segs = self.dotted(n)
            return ".".join(segs) if segs else None
        if depth:
            return None
        if t == "call_expression":
            fn = n.child_by_field_name("function")
            argn = n.child_by_field_name("arguments")
            items = [a for a in argn.named_children if a.type != "comment"] if argn is not None else []
            if (fn is not None and fn.type in ("identifier", "member_expression") and self.text(fn) != "require"
                    and len(items) == 1 and items[0].type in ("identifier", "member_expression")):
                return self.handler_name(items[0], 1)
        elif t == "object":
            return self.handler_name(self.option(n, "handler"), 1)
        return None

    def add_route(self, method: str, path_node: Node, handler: Node | None, router: str, fw: str, prefix: str,
                  path: str | None = None) -> None:
        why = expr = None
        if path is None:
            path, why, expr = self.route_path(path_node)
        self.put_route(Route("ANY" if method == "all" else method.upper(), _join(prefix, path),
                             self.span(path_node), fw, router, prefix, self.handler_name(handler), None, why),
                       (Lit(prefix),) if prefix else (), expr)

    def put_route(self, r: Route, prefix: UrlExpr | None, own: UrlExpr | None) -> None:
        """Record a route; one whose path is unresolved keeps the URL expressions of its
        prefix and own path for ``resolve_paths`` (a module-level constant may give them)."""
        self.out.routes.append(r)
        if r.unresolved is not None and prefix is not None and own is not None:
            self.out.route_exprs.append((r.span.start, r.path, r.prefix, prefix, own))

    def route_path(self, n: Node) -> tuple[str, str | None, UrlExpr | None]:
        """A route path: ``(path, None, None)`` for a literal; for any other expression (a
        template with substitutions, a name, a call, ``+``) the literal text before its first
        unknown piece, why it is not known, and its URL expression with the names of
        module-level bindings as ``Ref`` (None when it has another name: a local, a
        parameter)."""
        lit = self.literal_path(n)
        if lit is not None:
            return lit, None, None
        n = unwrap(n)
        t = n.type
        if t == "template_string":
            why = "path is a template literal"
        elif t == "identifier" or t == "member_expression":
            segs = self.dotted(n)
            why = f"path is the name {'.'.join(segs) if segs else _short(self.text(n))}"
        elif t == "call_expression":
            fn = n.child_by_field_name("function")
            why = f"path is computed by {_short(self.text(fn)) if fn is not None else 'a call'}()"
        else:
            why = f"path is not a literal: {_short(self.text(n))}"
        expr = self.expr(n, None, None) if t in _PATHISH and t != "call_expression" else None
        known = ""
        for part in expr or ():
            if type(part) is not Lit:
                break
            known += part.text  # type: ignore[union-attr]
        if expr is not None:
            local = self.locate(n) if self.fns else None
            for part in expr:
                if type(part) is Ref and local is not None and self.shadowed(part.name.split(".")[0], local):
                    expr = None  # a local or a parameter: never a module constant
                    break
        return ROUTE_PARAM.sub(r"{\1}", known), why, expr

    def shadowed(self, name: str, f) -> bool:
        """Whether ``name`` is a local or a parameter of ``f`` or a function around it."""
        while f is not None:
            if name in f.locals or name in self.params(f):
                return True
            f = f.parent
        return False

    def on_route(self, fn: Node, args: list[Node], call: Node) -> bool:
        """Record ``app.get('/users/:id', handler)`` as a Route (and not as a call). A path
        that is not a literal (a name, a template with substitutions, a call) makes an
        unresolved route on an app or router bound here or in a file that imports a
        backend framework (not a client's ``api.get(url, options)``)."""
        args = [a for a in args if a.type != "comment"]
        if len(args) < 2:
            return False
        last = args[-1]
        lt = last.type
        first = unwrap(args[0]).type
        literal = first in ("string", "template_string")
        if (lt not in _ROUTE_HANDLERS and lt != "object") or not (literal or first in _PATHISH):
            return False
        obj = self.chain_receiver(fn.child_by_field_name("object"))
        prop = fn.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier":
            return False
        got = self.router_of(self.text(obj), call)
        if got is None:
            return False
        router, fw, prefix, how = got
        if lt == "object" and fw != "fastify":  # Fastify's `app.get('/x', { handler })`
            return False
        path_node = args[0]
        if fw == "koa" and len(args) >= 3 and args[1].type in ("string", "template_string"):
            path_node = args[1]  # a named route: router.get('user', '/users/:id', show)
        path = self.literal_path(path_node)
        if path is None and not (how == "bound" or self.backend() is not None):
            return False
        self.add_route(self.text(prop), path_node, last, router, fw, prefix, path)
        return True

    def chain_receiver(self, obj: Node | None) -> Node | None:
        """The receiver of a chain of route shorthands: ``app`` in ``app.get('/a', h).post('/b',
        h2)`` (Express's app and router, Fastify, koa-router and Hono return the instance from
        them), the object itself when it is no such chain. A link is a route method's call with
        a path and a handler; ``X.route('/x').get(h)`` is no such chain (``route_chain``)."""
        while obj is not None and obj.type == "call_expression":
            fn = obj.child_by_field_name("function")
            argn = obj.child_by_field_name("arguments")
            if fn is None or fn.type != "member_expression" or argn is None:
                return obj
            prop = fn.child_by_field_name("property")
            if prop is None or (self.text(prop) not in ROUTE_METHODS and self.text(prop) != "all"):
                return obj
            if len([a for a in argn.named_children if a.type != "comment"]) < 2:
                return obj
            obj = fn.child_by_field_name("object")
        return obj

    def on_mount(self, c: dict) -> None:
        """``X.use(...)``, ``X.register(...)``, ``X.route(...)`` on an app or router."""
        call = c["mount"][0]
        recv = self.text(c["mount.receiver"][0])
        got = self.router_of(recv, call)
        if got is None:
            return
        router, fw, prefix, how = got
        method = self.text(c["mount.method"][0])
        args = [a for a in c["mount.arguments"][0].named_children if a.type != "comment"]
        if method == "route" and len(args) == 1 and self.literal_path(args[0]) is not None:
            self.route_chain(call, args[0], router, fw, prefix)
            return
        # an app or router known only by its name (`app`, `router`) mounts only in a backend's
        # file: not a Vue app's `app.use(router)`, an MSW server's `server.use(...)`
        if not (how == "bound" or recv == "fastify" or self.servers or self.backend() is not None):
            return
        if method == "route":
            if len(args) == 1 and unwrap(args[0]).type == "object":
                self.route_object(call, unwrap(args[0]), router, fw, prefix)
            elif len(args) == 2:  # Hono: app.route('/api', sub)
                self.claimed.add(call.id)
                child = self.plugin_child(args[1])
                if child is not None:
                    lit, why = self.literal_prefix(args[0])
                    self.out.mounts.append(RouteMount(router, child, "" if why else _join(prefix, lit),
                                                      self.span(args[0]), "hono", why))
        elif method == "register":
            self.register_mount(call, args, router, prefix)
        elif fw in ("fastify", "hono"):  # their use() takes middleware only
            self.claimed.add(call.id)
        else:
            self.use_mount(call, args, router, fw, prefix)

    def route_chain(self, head: Node, path_node: Node, router: str, fw: str, prefix: str) -> None:
        """``X.route('/x').get(h).post(h2)``: one route per method of the chain."""
        self.claimed.add(head.id)
        node = head
        while True:
            member = node.parent
            if member is None or member.type != "member_expression":
                break
            call = member.parent
            if call is None or call.type != "call_expression":
                break
            fn = call.child_by_field_name("function")
            prop = member.child_by_field_name("property")
            if fn is None or fn.id != member.id or prop is None:
                break
            method = self.text(prop)
            if method not in ROUTE_METHODS and method != "all":
                break
            argn = call.child_by_field_name("arguments")
            items = [a for a in argn.named_children if a.type != "comment"] if argn is not None else []
            self.claimed.add(call.id)
            self.add_route(method, path_node, items[-1] if items else None, router, fw, prefix)
            node = call

    def route_object(self, call: Node, obj: Node, router: str, fw: str, prefix: str) -> None:
        """Fastify's ``X.route({ method: 'GET' | [...], url: '/x', handler })``."""
        url = self.option(obj, "url") or self.option(obj, "path")
        method = self.option(obj, "method")
        if url is None or method is None:
            return
        url, method = unwrap(url), unwrap(method)
        path, why, expr = self.route_path(url)
        if why is not None and url.type not in _PATHISH:
            return
        if method.type == "string":
            methods = [method]
        elif method.type == "array":
            methods = [m for m in method.named_children if m.type == "string"]
        else:
            return
        self.claimed.add(call.id)
        handler = self.option(obj, "handler")
        for m in methods:
            if why is None:
                self.add_route(self.string_value(m).lower(), url, handler, router, "fastify", prefix, path)
            else:
                self.put_route(Route(self.string_value(m).upper(), _join(prefix, path), self.span(url), "fastify",
                                     router, prefix, self.handler_name(handler), None, why),
                               (Lit(prefix),) if prefix else (), expr)

    def register_mount(self, call: Node, args: list[Node], router: str, prefix: str) -> None:
        """Fastify's ``X.register(plugin, { prefix })``."""
        self.claimed.add(call.id)
        if not args:
            return
        plugin = unwrap(args[0])
        lit, why, node = self.register_prefix(args[1] if len(args) > 1 else None)
        span = self.span(node) if node is not None else self.span(call)
        if why is not None and node is not None and node.type == "identifier":
            # `register(plugin, opts)`: a module-level const object literal may say (``resolve_options``)
            local = self.locate(node) if self.fns else None
            if local is None or not self.shadowed(self.text(node), local):
                self.out.option_refs.append((span.start, self.text(node), prefix))
        if plugin.type in FUNCTION_NODES:
            # inline: its routes are declared on this router (``plugin``), or on the synthetic
            # one an unresolved mount puts here
            if why is not None and node is not None:
                self.out.mounts.append(RouteMount(router, _holder(router, self.text(node)), "", span, "fastify", why))
            return
        child = self.plugin_child(plugin)
        if child is not None:
            self.out.mounts.append(RouteMount(router, child, "" if why else _join(prefix, lit), span, "fastify", why))

    def use_mount(self, call: Node, args: list[Node], router: str, fw: str, prefix: str) -> None:
        """Express's and Koa's ``X.use([prefix,] ...middleware, child)``: the last argument that
        is a router (``use_child``); none, only middleware: no mount."""
        self.claimed.add(call.id)
        child, at = None, -1
        for i in range(len(args) - 1, -1, -1):
            child = self.use_child(args[i], call)
            if child is not None:
                at = i
                break
        if child is None:
            return
        first = unwrap(args[0])
        if at > 0 and first.type == "array":  # app.use(['/a', '/b'], router)
            pieces = [(*self.literal_prefix(x), x) for x in first.named_children if x.type != "comment"]
        elif at > 0 and self.path_like(first):
            pieces = [(*self.literal_prefix(first), first)]
        else:
            pieces = [("", None, call)]
        for lit, why, node in pieces:
            self.out.mounts.append(RouteMount(router, child, "" if why else _join(prefix, lit), self.span(node), fw, why))

    def path_like(self, n: Node) -> bool:
        """Whether the first argument of ``use`` is a path (a string, a template, a name like
        ``API_PREFIX`` or ``config.basePath``) rather than a middleware."""
        t = n.type
        if t in ("string", "template_string", "binary_expression", "regex"):
            return True
        if t == "identifier" or t == "member_expression":
            segs = self.dotted(n)
            return bool(segs) and _PREFIX_NAME.search(segs[-1]) is not None
        return False

    def use_child(self, a: Node, at: Node) -> str | None:
        """The router an argument of ``use`` names: an identifier imported (``import users
        from``, ``require``) or bound here to a router factory, a dotted name on an import
        (``routes.users``), an inline ``require('./x')``, Koa's ``sub.routes()``; None for
        anything else (``express.json()``, ``cors()``, a handler defined here)."""
        a = unwrap(a)
        t = a.type
        if t == "identifier":
            name = self.text(a)
            if name in self.import_modules:
                return name
            got = self.router_of(name, at)
            return name if got is not None and got[3] == "bound" else None
        if t == "member_expression":
            segs = self.dotted(a)
            return ".".join(segs) if segs and len(segs) > 1 and segs[0] in self.import_modules else None
        if t == "call_expression":
            loaded = self.loaded(a)
            if loaded is not None:
                return loaded
            fn = a.child_by_field_name("function")
            argn = a.child_by_field_name("arguments")
            if fn is not None and fn.type == "member_expression" and argn is not None and not argn.named_children:
                prop = fn.child_by_field_name("property")
                obj = fn.child_by_field_name("object")
                if prop is not None and obj is not None and self.text(prop) in ("routes", "middleware"):
                    segs = self.dotted(obj)
                    if segs:
                        return ".".join(segs)
        return None

    def plugin_child(self, a: Node) -> str | None:
        """What Fastify's ``register`` or Hono's ``route`` is given: a name, a dotted name, an
        inline ``require('./x')`` / ``import('./x')``."""
        a = unwrap(a)
        if a.type == "await_expression" and a.named_child(0) is not None:
            a = unwrap(a.named_child(0))
        t = a.type
        if t == "identifier":
            return self.text(a)
        if t == "member_expression":
            segs = self.dotted(a)
            return ".".join(segs) if segs else None
        if t == "call_expression":
            return self.loaded(a)
        return None

    def loaded(self, a: Node) -> str | None:
        """``require:<specifier>`` for ``require('./x')`` / ``import('./x')``, else None."""
        fn = a.child_by_field_name("function")
        argn = a.child_by_field_name("arguments")
        if fn is None or argn is None:
            return None
        if not (fn.type == "import" or (fn.type == "identifier" and self.text(fn) == "require")):
            return None
        items = [x for x in argn.named_children if x.type != "comment"]
        if len(items) != 1 or items[0].type not in ("string", "template_string"):
            return None
        got = self.specifier(items[0])
        return None if got is None else "require:" + got[0]


def nest_join(*parts: str) -> str:
    """NestJS's join of route pieces: each without its slashes, ``/``-separated; ``/`` when
    all are empty."""
    kept = [p.strip("/") for p in parts if p.strip("/")]
    return "/" + "/".join(kept)


def resolve_paths(routes: tuple[Route, ...], exprs: list, constants: list) -> tuple[Route, ...]:
    """The routes whose path is unresolved resolved where their URL expressions are made of
    literals and module-level constants of the file that are strings (through other such
    constants; never anything else). ``exprs``: (position, path, prefix, prefix expression,
    own expression) per unresolved route (``RoutesMixin.put_route``)."""
    if not exprs:
        return routes
    consts: dict[str, UrlExpr] = {}
    for _, name, e in sorted(constants, key=lambda c: c[0]):
        consts.setdefault(name, e)
    table = {(pos, path, prefix): (pre, own) for pos, path, prefix, pre, own in exprs}
    out = []
    for r in routes:
        got = table.get((r.span.start, r.path, r.prefix)) if r.unresolved is not None else None
        if got is not None:
            pre, own = _literal(got[0], consts, 0), _literal(got[1], consts, 0)
            if pre is not None and own is not None:
                pre, own = ROUTE_PARAM.sub(r"{\1}", pre), ROUTE_PARAM.sub(r"{\1}", own)
                if r.framework == "nest":
                    r = replace(r, path=nest_join(pre, own), prefix=nest_join(pre) if pre else "", unresolved=None)
                else:
                    r = replace(r, path=_join(pre, own), prefix=pre, unresolved=None)
        out.append(r)
    return tuple(out)


def resolve_options(mounts: tuple[RouteMount, ...], refs: list, objects: list) -> tuple[RouteMount, ...]:
    """The Fastify mounts ``register(plugin, opts)`` whose ``opts`` is the name of a
    module-level ``const`` object literal of the file, with the ``prefix`` it gives (none:
    empty). ``refs``: (position of the mount's span, name, the router's prefix in the file);
    ``objects``: (position, name, prefix, why it is not known). Anything else stays unresolved."""
    if not refs or not objects:
        return mounts
    table: dict[str, tuple[str, str | None]] = {}
    for _, name, lit, why in sorted(objects, key=lambda o: o[0]):
        table.setdefault(name, (lit, why))
    wanted = {pos: (name, prefix) for pos, name, prefix in refs}
    out = []
    for m in mounts:
        got = wanted.get(m.span.start) if m.unresolved is not None and m.framework == "fastify" else None
        if got is not None and got[0] in table:
            lit, why = table[got[0]]
            m = replace(m, prefix="" if why else _join(got[1], lit), unresolved=why)
        out.append(m)
    return tuple(out)


def _literal(expr: UrlExpr, consts: dict[str, UrlExpr], depth: int) -> str | None:
    out = ""
    for part in expr:
        t = type(part)
        if t is Lit:
            out += part.text  # type: ignore[union-attr]
        elif t is Ref and depth < 4 and part.name in consts:  # type: ignore[union-attr]
            got = _literal(consts[part.name], consts, depth + 1)  # type: ignore[union-attr]
            if got is None:
                return None
            out += got
        else:
            return None
    return out


def _join(prefix: str, path: str) -> str:
    """A path under a prefix declared in the same file (``/users`` + ``/`` is ``/users``)."""
    if not prefix:
        return path
    if not path or path == "/":
        return prefix
    return prefix.rstrip("/") + (path if path.startswith("/") else "/" + path)


def _holder(router: str, prefix_text: str) -> str:
    """The synthetic router holding the routes declared under a prefix that is not a literal:
    ``<router>~<the prefix expression, as a name>``."""
    return f"{router}~{_NOT_NAME.sub('_', prefix_text).strip('_')[:40]}"


def _short(text: str) -> str:
    t = _SPACE.sub(" ", text).strip()
    return t if len(t) <= 60 else t[:57] + "..."


def with_handlers(routes: tuple[Route, ...], functions: list[FunctionDef],
                   definitions: list[Definition]) -> tuple[Route, ...]:
    """The routes with ``handler_span``: the name of the function of this file their handler
    names, the one visible from the route (defined in a function around it, else at module
    level; the innermost), else a module-level definition of that name. From the whole file's
    facts: a handler is often defined in another statement than its route."""
    if not any(r.handler for r in routes):
        return routes
    by_name: dict[str, list[FunctionDef]] = {}
    for fd in functions:
        by_name.setdefault(fd.name, []).append(fd)
    defs: dict[str, Span] = {}
    for d in definitions:
        defs.setdefault(d.name, d.span)
    out = []
    for r in routes:
        span = None
        if r.handler is not None:
            best: tuple[int, Span] | None = None
            for fd in by_name.get(r.handler, ()):
                around = _around(fd, functions)
                if around is not None and not (around.start <= r.span.start and r.span.end <= around.end):
                    continue  # local to another function
                key = around.start if around is not None else -1
                if best is None or key > best[0]:
                    best = (key, fd.name_span)
            span = best[1] if best is not None else defs.get(r.handler)
        out.append(replace(r, handler_span=span) if span is not None else r)
    return tuple(out)


def _around(fd: FunctionDef, functions: list[FunctionDef]) -> Span | None:
    """The span of the innermost other function containing ``fd``, None at module level."""
    s, e = fd.span.start, fd.span.end
    best: Span | None = None
    for g in functions:
        gs, ge = g.span.start, g.span.end
        if gs <= s and e <= ge and (gs != s or ge != e) and (best is None or gs >= best.start):
            best = g.span
    return best


