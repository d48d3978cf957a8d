"""The view facts of a Python file (``RouteView``), for ``python.py``'s ``_Program``, which
mixes ``ViewFacts`` in beside ``RouteFacts``: module-level classes with bases and the view
methods they define (HTTP methods, DRF actions, ``@action`` methods and
``@x.mapping.<verb>``), and module-level functions with a method decorator
(``@api_view([...])``, ``@require_http_methods([...])``, ``@require_GET``...). The decisions
are listed in ``python_routes.py``'s docstring ("Views"); ``RouteFacts.route_query`` finds the
nodes (``queries/python-routes.scm``) and calls these readers. Composition expands the views
(``analyzers/routes_views.py``).
"""

from __future__ import annotations

from ..model import RouteView, Span, ViewAction
from .python_routes import _FRAMEWORK_ROOTS, _ROUTE_VERBS, _span

# the view methods a class may define (HTTP methods; DRF's viewset actions)
_HANDLERS = frozenset({*_ROUTE_VERBS, "list", "create", "retrieve", "update", "partial_update", "destroy"})
# bases that make a class plainly no view (qualified through the file's imports)
_NOT_VIEW_ROOTS = frozenset({"pydantic", "pydantic_settings", "enum", "typing", "typing_extensions", "dataclasses",
                             "abc", "sqlalchemy", "sqlmodel", "collections", "marshmallow", "attrs", "msgspec"})
_NOT_VIEWS = frozenset({"object", "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError", "KeyError",
                        "LookupError", "str", "int", "float", "dict", "list", "tuple", "set", "bytes", "NamedTuple",
                        "TypedDict", "Protocol", "Generic", "Enum", "IntEnum", "StrEnum", "BaseModel"})
# function-view decorators: qualified name -> the methods they allow (None: read the argument)
_METHOD_DECORATORS = {
    "rest_framework.decorators.api_view": None,
    "django.views.decorators.http.require_http_methods": None,
    "django.views.decorators.http.require_GET": ("GET",),
    "django.views.decorators.http.require_POST": ("POST",),
    "django.views.decorators.http.require_safe": ("GET", "HEAD"),
}
_ACTION = "rest_framework.decorators.action"


class ViewFacts:
    """The view readers of ``_Program`` (mixed in: they use its readers and ``RouteFacts.arguments``)."""

    def view_class(self, caps: dict, members) -> RouteView | None:
        """A module-level class with bases, as a view (None when its bases are plainly not
        views)."""
        bases: list[str] = []
        for c in caps["view.bases"][0].named_children:
            if c.type not in ("identifier", "attribute"):
                continue
            d = self.dotted(c)
            if d is None:
                continue
            q = self.qualify(d)
            root = q.split(".", 1)[0]
            if root in _NOT_VIEW_ROOTS or d in _NOT_VIEWS:
                continue
            bases.append(q if root in _FRAMEWORK_ROOTS else d)
        if not bases:
            return None
        handlers: list[tuple[str, Span]] = []
        actions: dict[str, ViewAction] = {}
        mapped: list[tuple[str, str]] = []
        methods = allowed = None
        attrs: list[tuple[str, str]] = []
        for m in members:
            if "view.attr" in m:
                name, value = self.t(m["view.attr"][0]), m["view.value"][0]
                if name in ("methods", "http_method_names"):
                    strings = self.literal_strings(value) if value.type != "set" else \
                        self.literal_strings_of(value)
                    if strings is not None:
                        got = tuple(s.upper() for s in strings)
                        if name == "methods":
                            methods = got
                        else:
                            allowed = got
                else:
                    lit = self.literal(value)
                    if lit is not None:
                        attrs.append((name, lit))
                continue
            name_node = m["view.method"][0]
            name = self.t(name_node)
            member = m["view.member"][0]
            decorated = False
            if member.type == "decorated_definition":
                for dec in member.named_children:
                    if dec.type != "decorator":
                        continue
                    got = self.action_decorator(dec, name, _span(name_node))
                    if isinstance(got, ViewAction):
                        actions[name] = got
                        decorated = True
                    elif got is not None:
                        mapped.append(got)
                        decorated = True
            if name in _HANDLERS and not decorated:
                handlers.append((name, _span(name_node)))
        for action, verb in mapped:
            a = actions.get(action)
            if a is not None and verb not in a.methods:
                actions[action] = ViewAction(a.name, a.detail, (*a.methods, verb), a.url_path, a.span, a.unresolved)
        return RouteView(self.t(caps["view.name"][0]), _span(caps["view.name"][0]), tuple(bases), tuple(handlers),
                         methods, allowed, tuple(attrs), tuple(sorted(actions.values(), key=lambda a: a.span.start)))

    def literal_strings_of(self, node) -> list[str] | None:
        out = []
        for c in node.named_children:
            v = self.literal(c) if c.type in ("string", "concatenated_string") else None
            if v is None:
                return None
            out.append(v)
        return out

    def action_decorator(self, dec, name: str, span: Span):
        """``@action(detail=..., methods=[...], url_path=...)``: its ``ViewAction``;
        ``@<action>.mapping.<verb>``: (the action, the verb); else None."""
        expr = next((c for c in dec.named_children if c.type != "comment"), None)
        if expr is None:
            return None
        if expr.type == "attribute":
            d = self.dotted(expr)
            parts = d.split(".") if d else []
            if len(parts) == 3 and parts[1] == "mapping" and parts[2] in _ROUTE_VERBS:
                return parts[0], parts[2].upper()
            return None
        if expr.type != "call":
            return None
        fn = expr.child_by_field_id(self.g.f_function)
        d = self.dotted(fn) if fn is not None else None
        if d is None or self.qualify(d) != _ACTION:
            return None
        picked = self.arguments(expr.child_by_field_id(self.g.f_arguments),
                                {"methods": (0, "methods"), "detail": (1, "detail"), "url_path": (2, "url_path")})
        why = None
        detail_node = picked.get("detail")
        detail = {"True": True, "False": False}.get(self.t(detail_node)) if detail_node is not None else None
        if detail is None:
            why = "the action's detail is not True or False"
        methods: tuple[str, ...] = ("GET",)
        if picked.get("methods") is not None:
            strings = self.literal_strings(picked["methods"])
            if strings is None:
                why = why or "the action's methods are not a literal list"
            else:
                methods = tuple(s.upper() for s in strings) or methods
        url_path = name
        if picked.get("url_path") is not None:
            lit = self.literal(picked["url_path"])
            if lit is None:
                why = why or "the action's url_path is not a literal"
            else:
                url_path = lit
        return ViewAction(name, detail, methods, url_path, span, why)

    def view_function(self, caps: dict) -> RouteView | None:
        """A module-level function decorated with a method decorator: its methods."""
        for dec in caps["view.decorated"][0].named_children:
            if dec.type != "decorator":
                continue
            expr = next((c for c in dec.named_children if c.type != "comment"), None)
            if expr is None:
                continue
            call = expr if expr.type == "call" else None
            fn = call.child_by_field_id(self.g.f_function) if call is not None else expr
            d = self.dotted(fn) if fn is not None else None
            q = self.qualify(d) if d is not None else None
            if q not in _METHOD_DECORATORS:
                continue
            methods = _METHOD_DECORATORS[q]
            if methods is None:
                first = None
                if call is not None:
                    picked = self.arguments(call.child_by_field_id(self.g.f_arguments),
                                            {"methods": (0, "http_method_names")})
                    first = picked.get("methods")
                strings = self.literal_strings(first) if first is not None else (
                    [] if q.endswith("api_view") else None)  # `@api_view()`: GET
                if strings is None:
                    continue  # not literal: the view stays ANY
                methods = tuple(s.upper() for s in strings) or (("GET",) if q.endswith("api_view") else ())
            name = caps["view.function"][0]
            return RouteView(self.t(name), _span(name), methods=tuple(methods), function=True)
        return None
