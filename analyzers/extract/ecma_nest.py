"""NestJS route declarations of JavaScript and TypeScript files, for ``ecma.py``'s
``_Program`` (a mixin: ``NestMixin``): controllers, modules, ``RouterModule`` route tables
and apps (``queries/ecma-nest.scm``, run only in a file that imports from ``@nestjs/``).
Paths, options, spans and unresolved routes follow ``ecma_routes.py``'s conventions (its
``option``, ``route_path``, ``put_route`` and ``literal_path``); ``nest_join`` stays there,
as ``resolve_paths`` joins a resolved NestJS route's pieces with it.

NestJS (``framework="nest"``):

- ``@Controller(path)`` on class C (a string, a template without substitutions, an array of
  them, ``{ path }``, nothing): each method decorated ``@Get(path)``, ``@Post()``, ... is a
  ``Route`` with ``router=C``, ``prefix`` the controller's path, ``handler="C.method"`` (a
  ``FunctionDef`` name, so ``handler_span`` is the method's name). A ``version`` (the
  controller's option or ``@Version``) makes the route unresolved: URI versioning adds a
  segment only when the app enables it.
- mounts with a ``role`` (``RouteMount.role``), composed by ``analyzers/routes_nest.py``:
  ``controller`` (``@Module({ controllers: [C] })``: parent the module class, child C),
  ``import`` (``imports: [M, M.forRoot(), forwardRef(() => M)]``), ``router``
  (``RouterModule.register([{ path, module, children }])`` flattened: child the module,
  prefix the whole path; parent the module class, or the name of a module-level table
  ``const routes: Routes = [...]``), ``router-ref`` (``RouterModule.register(routes)``: child
  the table's name), ``app`` (``const app = await NestFactory.create(AppModule)``: parent
  the binding, child the root module), ``prefix`` (``app.setGlobalPrefix('api')``) and
  ``exclude`` (its ``exclude`` option's literal paths; child the method, or ``""`` for all).
- ``Route.body_model``: the type, as written (``CreateNoteDto``, ``dto.CreateNoteDto``), of
  the handler's parameter decorated ``@Body()`` with no argument; None without one, for
  ``@Body('field')`` (one field, not the whole body) and for a parameter with no type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node, QueryCursor

from .ecma_base import ProgramBase
from .. import languages
from .ecma_routes import _items, _short, nest_join, unwrap
from ..model import Lit, Route, RouteMount, UrlExpr

__all__ = ["NestMixin"]

# NestJS: method decorators -> the route's method
_NEST_VERBS = {"Get": "GET", "Post": "POST", "Put": "PUT", "Patch": "PATCH", "Delete": "DELETE", "All": "ANY",
               "Head": "HEAD", "Options": "OPTIONS", "Search": "SEARCH"}
# `RequestMethod.X` in a setGlobalPrefix exclude -> the method ("" for all)
_REQUEST_METHODS = {"GET": "GET", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH", "DELETE": "DELETE",
                    "HEAD": "HEAD", "OPTIONS": "OPTIONS", "SEARCH": "SEARCH", "ALL": ""}


class NestMixin(ProgramBase):
    """The NestJS methods of ``ecma._Program`` (which provides ``text``, ``span``, ``dotted``,
    ``grammar``, ``option``, ``literal_path``, ``route_path`` and ``put_route`` (the last four
    ``RoutesMixin``'s) and the tables ``out``, ``claimed``, ``import_modules``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        claimed: set[int]

        def option(self, obj: Node, key: str) -> Node | None: ...
        def literal_path(self, n: Node) -> str | None: ...
        def route_path(self, n: Node) -> tuple[str, str | None, UrlExpr | None]: ...
        def put_route(self, r: Route, prefix: UrlExpr | None, own: UrlExpr | None) -> None: ...

    def nest(self, targets: list[Node]) -> None:
        """NestJS controllers, modules, route tables and apps of the dispatched statements
        (a file that imports nothing from ``@nestjs/`` has none)."""
        if not any(m.startswith("@nestjs/") for m in self.import_modules.values()):
            return
        q = languages.query(self.grammar, "ecma-nest.scm")
        classes, decorators = [], []
        for node in targets:
            for _, c in QueryCursor(q).matches(node):
                if "nest.class" in c:
                    classes.append(c)
                elif "nest.route" in c:
                    decorators.append(c)
                elif "nest.factory" in c:
                    self.nest_app(c["nest.factory"][0], c["nest.root"][0])
                elif "nest.prefix" in c:
                    self.nest_prefix(c["nest.prefix"][0], c["nest.prefix.receiver"][0], c["nest.prefix.arguments"][0])
                elif "nest.table" in c:
                    self.nest_table(c["nest.table"][0], c["nest.table.value"][0])
        controllers: dict[int, tuple[str, list, str | None]] = {}
        for c in classes:
            args = c["nest.arguments"][0]
            if args.parent is not None:
                self.claimed.add(args.parent.id)
            items = _items(args)
            name = self.text(c["nest.class.name"][0])
            if self.text(c["nest.decorator"][0]) == "Controller":
                paths, version = self.nest_paths(items[0] if items else None)
                controllers[c["nest.class"][0].id] = (name, paths, version)
            elif items and unwrap(items[0]).type == "object":
                self.nest_module(name, unwrap(items[0]))
        versioned: set[int] = set()
        routes = []
        for c in decorators:
            call = c["nest.route.arguments"][0].parent
            if call is not None:
                self.claimed.add(call.id)
            method = _decorated_method(c["nest.route"][0])
            if method is None:
                continue
            verb = self.text(c["nest.verb"][0])
            if verb == "Version":
                versioned.add(method.id)
            elif call is not None:
                routes.append((verb, call, _items(c["nest.route.arguments"][0]), method))
        for verb, call, items, method in routes:
            body_model = self.nest_body(method)
            body = method.parent
            cls = body.parent if body is not None else None
            got = controllers.get(cls.id) if cls is not None else None
            mname = method.child_by_field_name("name")
            if got is None or mname is None:
                continue
            cname, prefixes, version = got
            if version is None and method.id in versioned:
                version = "the method has a @Version(): URI versioning adds a segment when the app enables it"
            paths, own_version = self.nest_paths(items[0] if items else None, "path")
            for pre, pre_why, pre_expr, _ in prefixes:
                for path, why, expr, node in paths:
                    unresolved = version or own_version or (pre_why and "controller " + pre_why) or why
                    span = self.span(node) if node is not None else self.span(call)
                    r = Route(_NEST_VERBS[verb], nest_join(pre, path), span, "nest", cname,
                              nest_join(pre) if pre else "", f"{cname}.{self.text(mname)}", None, unresolved,
                              body_model=body_model)
                    self.put_route(r, None if version or own_version else pre_expr, expr)

    def nest_body(self, method: Node) -> str | None:
        """The type annotation, as written, of the handler's parameter decorated ``@Body()``
        without an argument (the whole body; ``@Body('title')`` is one field of it)."""
        params = method.child_by_field_name("parameters")
        if params is None:
            return None
        for p in params.named_children:
            if p.type not in ("required_parameter", "optional_parameter"):
                continue
            for dec in p.children:
                if dec.type != "decorator":
                    continue
                call = dec.named_child(0)
                if call is None or call.type != "call_expression":
                    continue
                fn = call.child_by_field_name("function")
                args = call.child_by_field_name("arguments")
                if fn is None or args is None or self.text(fn) != "Body":
                    continue
                if any(a.type != "comment" for a in args.named_children):
                    return None
                ann = p.child_by_field_name("type")
                inner = [x for x in ann.named_children if x.type != "comment"] if ann is not None else []
                return self.text(inner[0]) if len(inner) == 1 else None
        return None

    def nest_paths(self, n: Node | None, what: str = "controller"
                   ) -> tuple[list[tuple[str, str | None, UrlExpr | None, Node | None]], str | None]:
        """The paths a ``@Controller(...)`` or ``@Get(...)`` argument gives: (path, why it is
        not known, its URL expression, its node) each (an array gives several), and why a
        ``version`` makes them unresolved."""
        if n is None:
            return [("", None, (), None)], None
        n = unwrap(n)
        if n.type == "array":
            out = []
            for el in _items(n):
                out += self.nest_paths(el, what)[0]
            return out or [("", None, (), None)], None
        if n.type == "object" and what == "controller":
            version = self.option(n, "version")
            why = None
            if version is not None:
                why = (f"the controller's version {_short(self.text(version))}: URI versioning adds a segment "
                       "when the app enables it")
            path = self.option(n, "path")
            return self.nest_paths(path, "path")[0] if path is not None else [("", None, (), None)], why
        path, why, expr = self.route_path(n)
        return [(path, why, (Lit(path),) if why is None else expr, n)], None

    def nest_module(self, name: str, opts: Node) -> None:
        """``@Module({ controllers: [...], imports: [...] })`` on the class ``name``."""
        out = self.out.mounts
        ctrls = self.option(opts, "controllers")
        if ctrls is not None:
            ctrls = unwrap(ctrls)
            for el in _items(ctrls) if ctrls.type == "array" else [ctrls]:
                el = unwrap(el)
                if el.type == "identifier" and ctrls.type == "array":
                    out.append(RouteMount(name, self.text(el), "", self.span(el), "nest", None, "controller"))
                else:
                    out.append(RouteMount(name, "", "", self.span(el), "nest",
                                          f"controllers include {_short(self.text(el))}", "controller"))
        imports = self.option(opts, "imports")
        if imports is None:
            return
        imports = unwrap(imports)
        for el in _items(imports) if imports.type == "array" else [imports]:
            el = unwrap(el)
            child = self.text(el) if el.type == "identifier" and imports.type == "array" else None
            if el.type == "call_expression":
                fn = el.child_by_field_name("function")
                items = _items(el.child_by_field_name("arguments"))
                segs = self.dotted(fn) if fn is not None else None
                if segs == ["RouterModule", "register"]:
                    self.claimed.add(el.id)
                    self.nest_router(name, items[0] if items else None, el)
                    continue
                if segs == ["forwardRef"] and items and items[0].type == "arrow_function":
                    body = items[0].child_by_field_name("body")
                    if body is not None and unwrap(body).type == "identifier":
                        child = self.text(unwrap(body))
                elif segs is not None and len(segs) == 2:  # UsersModule.forRoot(...): that module
                    child = segs[0]
            if child is not None:
                out.append(RouteMount(name, child, "", self.span(el), "nest", None, "import"))
            else:
                out.append(RouteMount(name, "", "", self.span(el), "nest",
                                      f"imports include {_short(self.text(el))}", "import"))

    def nest_router(self, parent: str, arg: Node | None, call: Node) -> None:
        """``RouterModule.register(...)`` in the imports of the module ``parent``."""
        a = unwrap(arg) if arg is not None else None
        if a is not None and a.type == "array":
            self.nest_entries(parent, a, "", None)
        elif a is not None and a.type == "identifier":
            self.out.mounts.append(RouteMount(parent, self.text(a), "", self.span(a), "nest", None, "router-ref"))
        else:
            node = a if a is not None else call
            self.out.mounts.append(RouteMount(parent, "", "", self.span(node), "nest",
                                              f"RouterModule routes are not a literal: {_short(self.text(node))}",
                                              "router"))

    def nest_entries(self, parent: str, arr: Node, base: str, why: str | None) -> None:
        """The entries of a RouterModule ``Routes`` array, flattened: each module under the
        whole path its entry and the entries around it give."""
        for el in _items(arr):
            el = unwrap(el)
            if el.type == "identifier":  # `children: [CatsModule]`: under the parent's path
                self.out.mounts.append(RouteMount(parent, self.text(el), "" if why else base, self.span(el), "nest",
                                                  why, "router"))
                continue
            if el.type != "object":
                self.out.mounts.append(RouteMount(parent, "", "", self.span(el), "nest",
                                                  f"RouterModule routes include {_short(self.text(el))}", "router"))
                continue
            pnode = self.option(el, "path")
            full, own_why = base, why
            if pnode is not None:
                path, pwhy, _ = self.route_path(pnode)
                if pwhy is not None:
                    own_why = own_why or f"RouterModule {pwhy}"
                full = nest_join(base, path)
            module = self.option(el, "module")
            if module is not None:
                module = unwrap(module)
                if module.type == "identifier":
                    span = self.span(pnode) if pnode is not None else self.span(module)
                    self.out.mounts.append(RouteMount(parent, self.text(module), "" if own_why else full, span,
                                                      "nest", own_why, "router"))
            children = self.option(el, "children")
            if children is not None and unwrap(children).type == "array":
                self.nest_entries(parent, unwrap(children), full, own_why)

    def nest_table(self, name_node: Node, arr: Node) -> None:
        """A module-level ``const routes: Routes = [{ path, module, children }]``: its entries,
        under the table's name (``RouterModule.register(routes)`` names it)."""
        decl = name_node.parent
        up = decl.parent.parent if decl is not None and decl.parent is not None else None
        if up is not None and up.type == "export_statement":
            up = up.parent
        if up is None or up.type != "program":
            return
        items = [unwrap(el) for el in _items(arr)]
        if not items or any(el.type != "object" or self.option(el, "path") is None for el in items):
            return
        if not any(self.option(el, "module") is not None or self.option(el, "children") is not None for el in items):
            return
        self.nest_entries(self.text(name_node), arr, "", None)

    def nest_app(self, call: Node, root: Node) -> None:
        """``const app = await NestFactory.create(AppModule)``: the app (its binding) and its
        root module."""
        self.claimed.add(call.id)
        up = call.parent
        while up is not None and up.type in ("await_expression", "parenthesized_expression", "as_expression",
                                             "non_null_expression", "satisfies_expression"):
            up = up.parent
        binding = ""
        if up is not None and up.type == "variable_declarator":
            nn = up.child_by_field_name("name")
            binding = self.text(nn) if nn is not None and nn.type == "identifier" else ""
        elif up is not None and up.type == "assignment_expression":
            left = up.child_by_field_name("left")
            binding = self.text(left) if left is not None and left.type == "identifier" else ""
        root = unwrap(root)
        if root.type == "identifier":
            self.out.mounts.append(RouteMount(binding, self.text(root), "", self.span(root), "nest", None, "app"))
        else:
            self.out.mounts.append(RouteMount(binding, "", "", self.span(root), "nest",
                                              f"the root module is not a name: {_short(self.text(root))}", "app"))

    def nest_prefix(self, call: Node, receiver: Node, args: Node) -> None:
        """``app.setGlobalPrefix('api', { exclude: [...] })``."""
        self.claimed.add(call.id)
        items = _items(args)
        if not items:
            return
        app = self.text(receiver)
        path, why, _ = self.route_path(items[0])
        out = self.out.mounts
        out.append(RouteMount(app, "", "" if why else nest_join(path), self.span(items[0]), "nest",
                              why and f"the global {why.replace('path', 'prefix', 1)}", "prefix"))
        opts = unwrap(items[1]) if len(items) > 1 else None
        if opts is None:
            return
        exclude = self.option(opts, "exclude") if opts.type == "object" else opts
        if exclude is None:
            return
        exclude = unwrap(exclude)
        for el in _items(exclude) if exclude.type == "array" else [exclude]:
            el = unwrap(el)
            method, pnode = "", el
            if el.type == "object":
                pnode = self.option(el, "path")
                m = self.option(el, "method")
                segs = self.dotted(unwrap(m)) if m is not None else None
                method = _REQUEST_METHODS.get(segs[-1], "?") if segs and len(segs) == 2 else "?"
            lit = self.literal_path(unwrap(pnode)) if pnode is not None and exclude.type == "array" else None
            if lit is None or method == "?":
                out.append(RouteMount(app, "", "", self.span(el), "nest",
                                      f"a global prefix exclude is not a literal: {_short(self.text(el))}", "exclude"))
            else:
                out.append(RouteMount(app, method, nest_join(lit), self.span(el), "nest", None, "exclude"))


def _decorated_method(dec: Node) -> Node | None:
    """The method a decorator applies to: its parent (JavaScript) or the next method of the
    class body (TypeScript puts decorators before the method, as its siblings)."""
    up = dec.parent
    if up is None:
        return None
    if up.type == "method_definition":
        return up
    if up.type != "class_body":
        return None
    n = dec.next_named_sibling
    while n is not None and n.type in ("decorator", "comment"):
        n = n.next_named_sibling
    return n if n is not None and n.type == "method_definition" else None
