"""The route facts of a Python file (``Route``, ``RouteMount``, ``RouteView``), for
``python.py``'s ``_Program``, which mixes ``RouteFacts`` in: FastAPI and Flask route
decorators, ``add_url_rule``, ``include_router``/``mount``/``register_blueprint``,
Django URL patterns, Django REST framework routers, and the view classes and functions
those routes name (composition expands them: ``analyzers/routes_views.py``).

The rules live in the queries: the decorator and mount patterns of
``queries/python-facts.scm`` (one traversal with everything else), and
``queries/python-routes.scm`` (Django patterns, ``.urls``, views), run once more over the
file. Python code here turns the captured nodes into plain data through ``_Program``'s
readers (``literal``, ``dotted``, ``qualify``, ``expr``).

Decisions the model leaves open:

* Route decorators: a router/app variable bound once at module level to
  ``FastAPI()``/``APIRouter(prefix=...)``/``Flask()``/``Blueprint(url_prefix=...)`` (or Django
  Ninja's ``NinjaAPI()``/``Router()``: framework ``ninja``) gives the framework and prefix,
  otherwise the path must start with ``/`` and the framework comes from the file's imports
  (flask if it imports flask, else ninja if it imports ninja and not fastapi, else fastapi).
* Django Ninja: ``api.add_router("/items", router)`` is a mount (on a Ninja API or router
  of the file, or in a file importing ninja; a router named by a string is not followed);
  ``path("api/", api.urls)`` in Django patterns mounts the API under ``/api/``.
* A ``Route``'s span is its path's; ``router`` is the receiver when it is a plain name
  (``@api.router.get`` gives None); ``prefix`` is the router's own prefix, with its
  parameters normalized like the path (which starts with it); ``handler``/``handler_span``
  are the decorated function's (or class's) name and the span of that name in its ``def``.
* A path that is not a literal: a module-level string constant of the file (bound once)
  stands for its value, also inside an f-string or a ``+``; anything else gives a route with
  ``unresolved`` (``path is an f-string``, ``path is the name PREFIX``, ``path is a call:
  ...``) whose path is the literal part before the first unknown piece. Only on a known app
  or router of the file, or when that literal part starts with ``/`` (``@cache.get(key)``
  is no route).
* Flask ``add_url_rule`` (rule, endpoint and view function positional or by keyword, as the
  mount pattern's settings say) is a route like a decorator, on its receiver: ``handler``
  is the view function as written when it is a name (``list_orders``, ``views.pdf``), with
  ``handler_span`` the name in its ``def`` when this file defines it (at module level or in
  an enclosing function: an app factory's local view). An endpoint alone
  (``add_url_rule("/", endpoint="index")``, no ``view_func``) is no route: it only names
  the rule for ``url_for``, and whatever serves the path is declared elsewhere. A class-based view (``UserAPI.as_view("user")``) without ``methods=``
  is a route with ``view="UserAPI"`` and method ``ANY``: its class says the methods.
* ``RouteMount``: ``include_router``, ``mount`` and ``register_blueprint`` called on a plain
  name, anywhere (module level, an app factory). Its span is the whole call's. The child
  must be a name or a dotted chain, else there is no mount. A prefix that is no literal
  gives ``prefix=""`` and ``unresolved="prefix is not a literal: <its text>"``; ``None`` is
  no prefix. ``mount`` counts only in a file that imports fastapi or starlette (or on a
  known app), not on an HTTP client of the file, and not with a literal prefix that does
  not start with ``/`` (``session.mount("https://", adapter)`` in requests).
* FastAPI ``root_path`` (``FastAPI(root_path="/api")``): the app is served under it (behind
  a proxy that strips it), so clients call ``/api/...``: a mount of the app under a parent
  named ``""`` (no router), with the ``root_path`` as its prefix, span the argument's.
* Django: ``path``/``re_path``/``url`` (imported from ``django.urls`` /
  ``django.conf.urls``) calls that are elements of a module-level list bound to a name
  (``urlpatterns = [...]``, ``urlpatterns += [...]``, ``[...] + [...]``) are routes on that
  name; elements of a list given to ``include([...])`` (or ``include(([...], "ns"))``) are
  routes on a router named ``patterns@<offset of the list>``, which the enclosing
  ``path("x/", include(...))`` mounts. Paths get a leading ``/`` (Django's have none) and
  ``<int:pk>`` becomes ``{pk}``; a ``re_path`` regex is read when it is a plain path with
  named groups (``^users/(?P<pk>[0-9]+)/$`` is ``/users/{pk}/``), else the route is
  unresolved with the reason. The view: a name (``views.user_list``) or ``X.as_view()``
  sets ``view`` (method ``ANY`` until composition reads it), ``X.as_view({"get":
  "list"})`` gives its methods at once, a wrapper call (``login_required(v)``) is looked
  through, ``admin.site.urls`` is no route, any other ``x.urls`` (a Django Ninja API's, a
  DRF router's) mounts ``x``. ``include("blog.urls")`` mounts the child
  ``module:blog.urls``; ``include(name)`` the module it imports (``module:...``), else the
  list it names in this file; ``include(router.urls)`` the router.
* Django REST framework: ``router = DefaultRouter()``/``SimpleRouter(trailing_slash=...)``
  at module level is a router (framework ``drf``); ``router.register("users", ViewSet)`` on
  it is a ``Route`` with ``view`` the viewset and ``path`` the prefix followed by the
  router's trailing slash (``users/``; ``users`` with ``trailing_slash=False``), without a
  leading ``/``. A ``DefaultRouter`` also serves its API root: ``GET /`` on the router, span
  the router's creation. ``urlpatterns += router.urls`` (or ``+ router.urls``) mounts the
  router under the list with no prefix.
* Views (``RouteView``, read by ``python_views.py``): module-level classes with bases (not only the framework's: a
  workspace base class may be one), with the view methods they define (HTTP methods, DRF
  actions, ``@action`` methods and ``@x.mapping.<verb>``), literal ``methods``,
  ``http_method_names``, ``lookup_field``, ``lookup_url_kwarg``; classes whose bases are all
  plainly not views (``BaseModel``, ``Enum``, ``Exception``...) are left out. Module-level
  functions decorated with ``@api_view([...])``, ``@require_http_methods([...])``,
  ``@require_GET``/``@require_POST``/``@require_safe``: their methods.
* Calls recorded as routes or mounts are not also call sites.
* ``Route.body_model`` (a decorated handler's request model): ``python_models.py``.
"""

from __future__ import annotations

import re
from functools import cache

from tree_sitter import QueryCursor

from ..languages import query
from ..model import Lit, Ref, Route, RouteMount, RouteView, Span

_QUERY = "python-routes.scm"

_ROUTERS = {
    "fastapi.FastAPI": ("fastapi", "prefix"),
    "fastapi.APIRouter": ("fastapi", "prefix"),
    "fastapi.routing.APIRouter": ("fastapi", "prefix"),
    "flask.Flask": ("flask", None),
    "flask.Blueprint": ("flask", "url_prefix"),
    "rest_framework.routers.DefaultRouter": ("drf", None),
    "rest_framework.routers.SimpleRouter": ("drf", None),
    "ninja.NinjaAPI": ("ninja", None),
    "ninja.main.NinjaAPI": ("ninja", None),
    "ninja.Router": ("ninja", None),
    "ninja.router.Router": ("ninja", None),
}
_ROUTE_VERBS = {"get", "post", "put", "patch", "delete", "head", "options", "trace"}
_DJANGO_PATHS = {
    "django.urls.path": "path",
    "django.urls.re_path": "re_path",
    "django.urls.conf.path": "path",
    "django.urls.conf.re_path": "re_path",
    "django.conf.urls.url": "re_path",
}
_DJANGO_MODULES = ("django.urls", "django.conf.urls")
_DJANGO_INCLUDES = frozenset({"django.urls.include", "django.urls.conf.include", "django.conf.urls.include"})
_FRAMEWORK_ROOTS = frozenset({"django", "rest_framework", "flask"})

_FLASK_PARAM = re.compile(r"<(?:[^<>:]+:)?([^<>:]+)>")
_TYPED_PARAM = re.compile(r"\{([^{}:]+):[^{}]*\}")
_IDENT = re.compile(r"[^\W\d]\w*")
_WS = re.compile(r"\s+")
# a regex piece read as a path: a literal character (escaped or not), or a named group
# without nested groups
_RE_PIECE = re.compile(r"\(\?P<([^\W\d]\w*)>(?:[^()\\]|\\.)+\)|\\([./\-_~:@!&=,;%])|([^\\.^$*+?{}\[\]|()])")


@cache
def _routes_grammar():
    q = query("python", _QUERY)
    return q, tuple(q.pattern_settings(i).get("kind") for i in range(q.pattern_count))


def _span(n) -> Span:
    return Span(n.start_byte, n.end_byte)


def normalize(path: str) -> str:
    """Path parameters as ``{name}``: Flask's and Django's ``<int:id>``/``<id>``,
    Starlette's ``{id:int}``."""
    if "<" in path:
        path = _FLASK_PARAM.sub(r"{\1}", path)
    if ":" in path:
        path = _TYPED_PARAM.sub(r"{\1}", path)
    return path


def shown(text: str, limit: int = 60) -> str:
    """An expression's text on one line, shortened, for a reason."""
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join_prefix(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if prefix.endswith("/") and path.startswith("/"):
        return prefix + path[1:]
    return prefix + path


def regex_path(pattern: str, anchored: bool = True) -> tuple[str, str | None]:
    """A Django ``re_path`` (or DRF prefix) regex as a path: ``^users/(?P<pk>[0-9]+)/$`` is
    ``users/{pk}/``. (the path read, None) when it is a plain path with named groups; else
    (the plain part before the first piece that is not, the reason). ``anchored``: the
    regex must start with ``^`` (Django searches a pattern without it anywhere in the
    path); a DRF router's prefix is a piece of the router's own anchored regex."""
    body = pattern
    if body.startswith("^"):
        body = body[1:]
    elif anchored:
        return "", f"the regex does not start with ^: {shown(pattern)}"
    if body.endswith("$") and not body.endswith("\\$"):
        body = body[:-1]
    out: list[str] = []
    pos = 0
    while pos < len(body):
        m = _RE_PIECE.match(body, pos)
        if m is None:
            return "".join(out), f"the regex is not a plain path: {shown(pattern)}"
        out.append("{" + m.group(1) + "}" if m.group(1) else (m.group(2) or m.group(3)))
        pos = m.end()
    return "".join(out), None


class RouteFacts:
    """The route readers of ``_Program`` (mixed in: they use its readers and tables)."""

    # ------------------------------------------------------------------ routers
    def router_binding(self, name: str, value) -> None:
        """``name = <call>`` at module level, bound once: an app or router (``self.routers``),
        a FastAPI ``root_path`` (a mount above the app), a DRF router's trailing slash and,
        for a ``DefaultRouter``, its API root route."""
        fn = value.child_by_field_id(self.g.f_function)
        d = self.dotted(fn) if fn is not None else None
        qualified = self.qualify(d) if d is not None else None
        router = _ROUTERS.get(qualified) if qualified is not None else None
        if router is None:
            return
        framework, prefix_kw = router
        prefix = ""
        args = value.child_by_field_id(self.g.f_arguments)
        slash: str | None = "/"
        for c in args.named_children if args is not None else ():
            k = c.child_by_field_id(self.g.f_name) if c.type == "keyword_argument" else None
            v = c.child_by_field_id(self.g.f_value) if k is not None else None
            if v is None:
                continue
            key = self.t(k)
            if prefix_kw and key == prefix_kw:
                prefix = self.literal(v) or ""
            elif key == "root_path" and qualified == "fastapi.FastAPI":
                lit = self.literal(v)
                why = None if lit is not None else f"root_path is not a literal: {shown(self.t(v))}"
                if lit != "":
                    self.route_extra[1].append(RouteMount("", name, normalize(lit or ""), _span(c), "fastapi", why))
            elif key == "trailing_slash" and framework == "drf":
                slash = {"True": "/", "False": ""}.get(self.t(v))
        self.routers[name] = (framework, prefix)
        if framework == "drf":
            self.drf_slash[name] = slash
            if qualified.endswith("DefaultRouter"):  # the API root view, at the router's root
                self.route_extra[0].append(Route("GET", "/", _span(value), "drf", name))

    # ------------------------------------------------------------------ paths
    def constant(self, name: str) -> str | None:
        """The value of a module-level string constant of the file (bound once), else None."""
        module = self.module
        if module.counts.get(name) != 1:
            return None
        v = module.values.get(name)
        return self.literal(v) if v is not None else None

    def route_path(self, node) -> tuple[str, str | None] | None:
        """(path, None) of a route's path argument; (the literal part before the first piece
        that is not known, why) when it is not a literal; None when it is not string-like."""
        lit = self.literal(node)
        if lit is not None:
            return lit, None
        ty = node.type
        if ty == "identifier":
            name = self.t(node)
            value = self.constant(name)
            return (value, None) if value is not None else ("", f"path is the name {name}")
        e = self.expr(node, None)
        if e is None:
            return None
        known: list[str] = []
        whole = True
        for p in e:
            text = p.text if type(p) is Lit else self.constant(p.name) if type(p) is Ref else None
            if text is None:
                whole = False
                break
            known.append(text)
        if whole:
            return "".join(known), None
        if ty == "string":
            why = "path is an f-string"
        elif ty == "attribute":
            why = f"path is the attribute {shown(self.t(node))}"
        elif ty == "call":
            why = f"path is a call: {shown(self.t(node))}"
        else:
            why = f"path is not a literal: {shown(self.t(node))}"
        return "".join(known), why

    # ------------------------------------------------------------------ decorators
    def routes(self, matches: list[dict]):
        """The routes of the route decorators (``@router.get("/x")``, ``@bp.route("/x",
        methods=[...])``), and the ids of their calls (which are not call sites)."""
        routes: list[Route] = []
        route_calls: set[int] = set()
        if not matches:
            return routes, route_calls
        g = self.g
        t = self.t
        for caps in matches:
            call = caps["route"][0]
            owner = _WS.sub("", t(caps["route.owner"][0]))
            verb = t(caps["route.verb"][0])
            args = caps["route.args"][0]
            path_node = None
            methods_node = None
            for c in args.named_children:
                if c.type == "keyword_argument":
                    k = t(c.child_by_field_id(g.f_name))
                    if k in ("path", "rule") and path_node is None:
                        path_node = c.child_by_field_id(g.f_value)
                    elif k == "methods":
                        methods_node = c.child_by_field_id(g.f_value)
                elif c.type != "comment" and path_node is None:
                    path_node = c
            read = self.route_path(path_node) if path_node is not None else None
            if read is None:
                continue
            path, unresolved = read
            if unresolved is not None and owner not in self.routers and not path.startswith("/"):
                continue  # `@cache.get(key)`: nothing says it is a route
            frame = self.route_frame(owner, path or "/" if unresolved else path, verb == "route")
            if frame is None:
                continue
            framework, prefix = frame
            methods = [verb.upper()] if verb in _ROUTE_VERBS else self.methods_of(methods_node)
            full = normalize(join_prefix(prefix, path))
            handler = caps["route.handler"][0]
            router = owner if _IDENT.fullmatch(owner) else None
            span, name, name_span = _span(path_node), t(handler), _span(handler)
            body = self.body_model(handler.parent, framework, full)  # python_models.py
            for m in methods:
                routes.append(Route(m, full, span, framework, router, prefix, name, name_span, unresolved,
                                    body_model=body))
            route_calls.add(call.id)
        return routes, route_calls

    def route_frame(self, owner: str, path: str, flask_verb: bool) -> tuple[str, str] | None:
        """(framework, the router's own prefix, normalized) of a route declared on ``owner``;
        None when it is no route: an owner that is not a known app or router needs a path
        starting with ``/``, and its framework comes from the file's imports (flask when it
        imports flask, or for a ``route`` method in a file that does not import fastapi)."""
        router = self.routers.get(owner)
        if router is not None:
            framework, prefix = router
            return framework, normalize(prefix)
        if not path.startswith("/"):
            return None
        if self.imported is None:
            roots = {i.module.split(".", 1)[0] for i in self.imports}
            self.imported = ("flask" in roots, "fastapi" in roots)
        flask, fastapi = self.imported
        if not flask and not fastapi and any(i.module.split(".", 1)[0] == "ninja" for i in self.imports):
            return "ninja", ""  # `@api.get("/x")` on a Django Ninja API of another file
        return ("flask" if flask or (flask_verb and not fastapi) else "fastapi"), ""

    def methods_of(self, node, default: tuple[str, ...] = ("GET",)) -> list[str]:
        """The literal methods of ``methods=[...]`` (a list, tuple or set), else ``default``."""
        methods: list[str] = []
        if node is not None and node.type in ("list", "tuple", "set"):
            for m in node.named_children:
                lit = self.literal(m)
                if lit:
                    methods.append(lit.upper())
        return methods or list(default)

    # ------------------------------------------------------------------ mounts and URL rules
    def arguments(self, args, roles: dict[str, tuple[int | None, str | None]]) -> dict[str, object]:
        """The argument node of each role (see the mount pattern's settings): the positional
        argument at its index (not after a ``*splat``, which hides the positions) or the
        keyword argument's value."""
        g = self.g
        t = self.t
        by_index = {index: role for role, (index, _) in roles.items() if index is not None}
        by_keyword = {keyword: role for role, (_, keyword) in roles.items() if keyword is not None}
        out: dict[str, object] = {}
        position = 0
        for c in args.named_children:
            ty = c.type
            if ty == "keyword_argument":
                k = c.child_by_field_id(g.f_name)
                v = c.child_by_field_id(g.f_value)
                role = by_keyword.get(t(k)) if k is not None else None
                if role is not None and v is not None:
                    out.setdefault(role, v)
            elif ty == "list_splat":
                position = -1
            elif ty != "comment" and ty != "dictionary_splat" and position >= 0:
                role = by_index.get(position)
                if role is not None:
                    out.setdefault(role, c)
                position += 1
        return out

    def mounts(self, matches: list[dict], clients):
        """The mounts (``include_router``, ``mount``, ``register_blueprint``), the routes of
        ``add_url_rule`` and DRF ``register`` calls, and the ids of the calls recorded (not
        call sites)."""
        t = self.t
        rules = self.g.mount_rules
        routers = self.routers
        clients_named = {c.name for c in clients}
        mounts: list[RouteMount] = []
        routes: list[Route] = []
        recorded: set[int] = set()
        asgi: bool | None = None  # whether the file imports fastapi or starlette, when asked
        for caps in matches:
            call = caps["mount"][0]
            parent = t(caps["mount.parent"][0])
            method = t(caps["mount.method"][0])
            framework, roles = rules[method]
            if "register" in roles and routers.get(parent, ("",))[0] != "drf":
                continue  # `atexit.register(f)`: only a DRF router of the file registers viewsets
            picked = self.arguments(caps["mount.args"][0], roles)
            if "rule" in roles or "register" in roles:
                route = self.url_rule(call, parent, picked, framework) if "rule" in roles else \
                    self.registration(call, parent, picked)
                if route is None:  # `add_url_rule("/", endpoint="index")`: Flask's, and no route
                    recorded.add(call.id)
                elif route:
                    routes.extend(route)
                    recorded.add(call.id)
                continue
            child_node = picked.get("child")
            child = self.dotted(child_node) if child_node is not None else None
            if child is None:
                continue  # `include_router(make_router())`, `mount("/x", StaticFiles(...))`
            prefix, unresolved = "", None
            prefix_node = picked.get("prefix")
            if prefix_node is not None and prefix_node.type != "none":
                lit = self.literal(prefix_node)
                if lit is None:
                    unresolved = f"prefix is not a literal: {shown(t(prefix_node))}"
                else:
                    prefix = normalize(lit)
            if method == "mount":  # also `requests.Session().mount("https://", adapter)`
                if parent in clients_named or (unresolved is None and prefix and not prefix.startswith("/")):
                    continue
                if parent not in routers:
                    if asgi is None:
                        asgi = any(i.module.split(".", 1)[0] in ("fastapi", "starlette") for i in self.imports)
                    if not asgi:
                        continue
            elif method == "include_router" and parent in routers:
                framework = routers[parent][0]
            elif method == "add_router" and routers.get(parent, ("",))[0] != "ninja" and \
                    not any(i.module.split(".", 1)[0] == "ninja" for i in self.imports):
                continue  # Django Ninja's `api.add_router("/x", router)` only
            mounts.append(RouteMount(parent, child, prefix, _span(call), framework, unresolved))
            recorded.add(call.id)
        return routes, mounts, recorded

    def url_rule(self, call, parent: str, picked: dict[str, object], framework: str) -> list[Route] | None:
        """The routes of ``app.add_url_rule("/x", "endpoint", view, methods=[...])`` (Flask):
        the handler is the view function when it is a name (``handler_span`` the name of its
        ``def`` when this file defines it), None when it is another expression; a
        class-based view (``UserAPI.as_view("user")``) without ``methods=`` leaves the
        methods to its class (``view``). Without a view function the rule only names an
        endpoint for ``url_for``: None (no route, and the call is no call site either)."""
        rule_node = picked.get("rule")
        read = self.route_path(rule_node) if rule_node is not None else None
        if read is None:
            return []
        view = picked.get("view")
        if view is None or view.type == "none":
            return None
        path, unresolved = read
        if unresolved is not None and parent not in self.routers and not path.startswith("/"):
            return []
        frame = self.route_frame(parent, path or "/" if unresolved else path, True)
        if frame is None:
            return []
        own_framework, prefix = frame
        if parent in self.routers:
            framework = own_framework
        handler = self.dotted(view)
        view_class = self.as_view_class(view) if handler is None else None
        methods_node = picked.get("methods")
        handler_span = self.defined_function(handler, call.start_byte) if handler else None
        full = normalize(join_prefix(prefix, path))
        span = _span(rule_node)
        if view_class is not None:
            handler = view_class
            if methods_node is None:
                return [Route("ANY", full, span, framework, parent, prefix, handler, None, unresolved, view_class)]
        return [Route(m, full, span, framework, parent, prefix, handler, handler_span, unresolved)
                for m in self.methods_of(methods_node)]

    def as_view_class(self, node) -> str | None:
        """``UserAPI`` of ``UserAPI.as_view(...)`` (a name or dotted), else None."""
        if node.type != "call":
            return None
        fn = node.child_by_field_id(self.g.f_function)
        if fn is None or fn.type != "attribute":
            return None
        attr = fn.child_by_field_id(self.g.f_attribute)
        obj = fn.child_by_field_id(self.g.f_object)
        if attr is None or obj is None or self.t(attr) != "as_view":
            return None
        return self.dotted(obj)

    def registration(self, call, parent: str, picked: dict[str, object]) -> list[Route]:
        """``router.register("users", UserViewSet)`` on a DRF router of the file: a route
        whose ``view`` is the viewset, ``path`` the prefix and the router's trailing slash."""
        prefix_node, viewset_node = picked.get("register"), picked.get("viewset")
        viewset = self.dotted(viewset_node) if viewset_node is not None else None
        if prefix_node is None or viewset is None:
            return []
        read = self.route_path(prefix_node)
        if read is None:
            return []
        prefix, unresolved = read
        if unresolved is None:
            prefix, unresolved = regex_path(prefix, anchored=False)
            if unresolved is not None:
                unresolved = "the prefix " + unresolved.removeprefix("the ")
        slash = self.drf_slash.get(parent, "/")
        if slash is None:
            unresolved = unresolved or "the router's trailing_slash is not True or False"
            slash = ""
        return [Route("ANY", normalize(prefix) + ("" if unresolved else slash), _span(prefix_node), "drf", parent,
                      "", viewset, None, unresolved, viewset)]

    def defined_function(self, name: str, pos: int) -> Span | None:
        """The span of the name of the function ``name`` resolves to at ``pos``: one defined
        in an enclosing function (an app factory's local view) or at module level."""
        if "." in name:
            return None
        by_qual = self.function_names
        if by_qual is None:
            by_qual = self.function_names = {s.qual: s.name_node for s in self.scopes if not s.is_class}
        sc = self.innermost(pos)
        while sc is not None:
            if not sc.is_class:
                node = by_qual.get(f"{sc.qual}.{name}")
                if node is not None:
                    return _span(node)
            sc = sc.parent
        node = by_qual.get(name)
        return _span(node) if node is not None else None

    # ------------------------------------------------------------------ Django and views
    def route_query(self, call_matches: list[tuple]) -> tuple[list[Route], list[RouteMount], list[RouteView], set[int]]:
        """Django URL patterns (among the file's calls), ``+= router.urls`` and the views of
        the file (from ``python-routes.scm``), with the ids of the calls recorded."""
        routes: list[Route] = []
        mounts: list[RouteMount] = []
        recorded: set[int] = set()
        t = self.t
        # the names of the query's `django` setting this file imports from Django
        names = {i.local for i in self.imports if i.module.startswith(_DJANGO_MODULES) and i.name in self.g.django}
        for call, fn, args in call_matches if names else ():
            if fn.type != "identifier" or t(fn) not in names:
                continue
            parent = call.parent
            if parent is None or parent.type not in ("list", "tuple"):
                continue
            got = self.django_pattern(call, fn, args)
            if got is not None:
                routes.extend(r for r in got if type(r) is Route)
                mounts.extend(m for m in got if type(m) is RouteMount)
                recorded.add(call.id)
        views: list[RouteView] = []
        q, kinds = _routes_grammar()
        src = self.src
        if b".urls" in src or b"api_view" in src or b"require_" in src:
            cursor = QueryCursor(q)
            cursor.set_max_start_depth(0)  # the module-level patterns
            for idx, caps in cursor.matches(self.tree.root_node):
                kind = kinds[idx]
                if kind == "urls":
                    mounts += self.urls_added(caps["urls"][0], caps["urls.owner"][0], caps["urls.value"][0])
                elif kind == "view.function":
                    v = self.view_function(caps)
                    if v is not None and (not views or views[-1].name != v.name):
                        views.append(v)
        f_superclasses = self.g.f_superclasses
        for s in self.scopes:
            if s.parent is not None or not s.is_class or s.node.child_by_field_id(f_superclasses) is None:
                continue
            cursor = QueryCursor(q)
            cursor.set_max_start_depth(0)  # the class patterns, on this class
            found = None
            members = []
            for idx, caps in cursor.matches(s.node):
                kind = kinds[idx]
                if kind == "view":
                    found = caps
                elif kind == "view.method" or kind == "view.attr":
                    members.append(caps)
            v = self.view_class(found, members) if found is not None else None
            if v is not None:
                views.append(v)
        views.sort(key=lambda v: v.span.start)
        return routes, mounts, views, recorded

    def pattern_list(self, node) -> str | None:
        """The router a list of URL patterns is: the module-level name it is bound to
        (``urlpatterns = [...]``, ``+= [...]``, ``[...] + other``), or ``patterns@<offset>``
        for a list given to ``include(...)``; None for any other list."""
        g = self.g
        container = node
        p = node.parent
        while p is not None and (p.type == "parenthesized_expression" or
                                 (p.type == "binary_operator" and self.t(p.child_by_field_id(g.f_operator)) == "+")):
            container, p = p, p.parent
        if p is None:
            return None
        if p.type in ("assignment", "augmented_assignment"):
            left, right = p.child_by_field_id(g.f_left), p.child_by_field_id(g.f_right)
            if right is None or right.id != container.id or left is None or left.type != "identifier":
                return None
            return self.t(left) if self.innermost(p.start_byte) is None else None
        if p.type == "tuple" and container.id == node.id and node.type == "list":
            p = p.parent  # include(([...], "ns"))
        if p is not None and p.type == "argument_list" and p.parent is not None and self.is_include(p.parent):
            return f"patterns@{node.start_byte}"
        return None

    def is_include(self, call) -> bool:
        fn = call.child_by_field_id(self.g.f_function)
        d = self.dotted(fn) if fn is not None else None
        return d is not None and self.qualify(d) in _DJANGO_INCLUDES

    def django_pattern(self, call, fn, args) -> list | None:
        """The route or mount of one ``path(...)``/``re_path(...)`` element (None: not
        Django's, or not in a list of patterns)."""
        kind = _DJANGO_PATHS.get(self.qualify(self.t(fn)))
        if kind is None:
            return None
        owner = self.pattern_list(call.parent)
        if owner is None:
            return None
        picked = self.arguments(args, {"route": (0, "route"), "view": (1, "view")})
        route_node, view_node = picked.get("route"), picked.get("view")
        if route_node is None or view_node is None:
            return None
        read = self.route_path(route_node)
        if read is None:
            return None
        path, unresolved = read
        view = self.django_view(view_node)
        if view is None:
            return []  # `admin.site.urls`: no route of the project's own
        what, target = view
        if unresolved is None and kind == "re_path":
            path, unresolved = regex_path(path)
        path = normalize("/" + path.removeprefix("/")) if path or unresolved is None else ""
        span = _span(route_node)
        if what == "include":
            return [RouteMount(owner, target, path, _span(call), "django", unresolved)]
        if what == "methods":
            handler, methods = target
            return [Route(m, path, span, "django", owner, "", handler, None, unresolved) for m in methods]
        handler = target
        handler_span = self.defined_function(handler, call.start_byte) if handler and what == "function" else None
        return [Route("ANY", path, span, "django", owner, "", handler, handler_span, unresolved, handler)]

    def django_view(self, node, depth: int = 0):
        """What a pattern's view argument is: ``("include", child)``, ``("function",
        name)``, ``("class", name)`` (``X.as_view()``), ``("methods", (name, methods))``
        (``X.as_view({"get": "list"})``), ``("function", None)`` (not known), or None
        (``admin.site.urls``)."""
        ty = node.type
        if ty in ("identifier", "attribute"):
            d = self.dotted(node)
            if d is None:
                return "function", None
            if d.endswith(".site.urls"):
                return None
            if d.endswith(".urls"):  # `path("api/", api.urls)`: a Ninja API's (or a router's) patterns
                return "include", d[: -len(".urls")]
            return "function", d
        if ty in ("list", "tuple"):
            child = self.included(node)
            return ("include", child) if child is not None else ("function", None)
        if ty != "call":
            return "function", None
        if self.is_include(node):
            first = next((c for c in node.child_by_field_id(self.g.f_arguments).named_children
                          if c.type not in ("comment", "keyword_argument")), None)
            child = self.included(first) if first is not None else None
            return ("include", child) if child is not None else ("function", None)
        cls = self.as_view_class(node)
        if cls is not None:
            first = next((c for c in node.child_by_field_id(self.g.f_arguments).named_children
                          if c.type != "comment"), None)
            if first is not None and first.type == "dictionary":  # a viewset's {"get": "list"}
                methods = [k.upper() for p in first.named_children if p.type == "pair"
                           and (k := self.literal(p.child_by_field_id(self.g.f_key)))]
                return ("methods", (cls, methods)) if methods else ("function", None)
            return "class", cls
        args = node.child_by_field_id(self.g.f_arguments)
        inner = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        if depth < 3 and len(inner) == 1 and inner[0].type in ("identifier", "attribute", "call"):
            got = self.django_view(inner[0], depth + 1)  # `login_required(views.profile)`
            return got if got is not None and got[1] is not None else ("function", None)
        return "function", None

    def included(self, node) -> str | None:
        """The child an ``include(...)`` argument names: ``module:blog.urls`` (a module's
        string, or a module it imports), a list of this file (``patterns@<offset>`` when
        inline), a DRF router (``router.urls``)."""
        ty = node.type
        if ty in ("string", "concatenated_string"):
            lit = self.literal(node)
            return f"module:{lit}" if lit else None
        if ty == "list":
            return f"patterns@{node.start_byte}"
        if ty == "tuple":
            first = next((c for c in node.named_children if c.type != "comment"), None)
            return self.included(first) if first is not None else None
        d = self.dotted(node)
        if d is None:
            return None
        imp = self.by_local.get(d)
        if imp is not None:  # `include(blog_urls)`, `import blog.urls`: a module (or its list)
            if imp.name == "*":
                return f"module:{imp.module}"
            return "module:" + imp.module + ("" if imp.module.endswith(".") else ".") + imp.name
        if d.endswith(".urls"):
            return d[: -len(".urls")]
        return d

    def urls_added(self, stmt, owner, value) -> list[RouteMount]:
        """``urlpatterns += router.urls`` (or ``= [...] + router.urls``) at module level: each
        DRF router added is mounted under the list, without a prefix."""
        g = self.g
        operands = []
        stack = [value]
        while stack:
            n = stack.pop()
            if n.type == "binary_operator" and self.t(n.child_by_field_id(g.f_operator)) == "+":
                stack += [n.child_by_field_id(g.f_right), n.child_by_field_id(g.f_left)]
            elif n.type == "attribute" and self.t(n.child_by_field_id(g.f_attribute)) == "urls":
                operands.append(n.child_by_field_id(g.f_object))
        out = []
        for obj in operands:
            router = self.dotted(obj)
            if router is None:
                continue
            if self.routers.get(router, ("",))[0] != "drf" and not (
                    router.split(".", 1)[0] in self.by_local and any(
                        i.module.split(".", 1)[0] in ("django", "rest_framework") for i in self.imports)):
                continue
            out.append(RouteMount(self.t(owner), router, "", _span(stmt), "drf"))
        return out
