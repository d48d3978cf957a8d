"""Routes whose methods (and, for Django REST framework, paths) a view decides, expanded
across files before composition (``routes.compose`` calls ``expand``): a declaration with
``Route.view`` set (Django ``path("x/", views.user_list)``, ``path("x/",
views.UserView.as_view())``, a Flask ``add_url_rule(..., view_func=UserAPI.as_view("u"))``,
a DRF ``router.register("users", UserViewSet)``) becomes one route per method the view
serves, found through the declaring file's imports (``routes.child_node``, re-exports
followed) in the views its files declare (``FileFacts.views``) and up their bases.

- A function view serves the methods of its decorator (``@api_view([...])``,
  ``@require_http_methods([...])``, ``@require_GET``...); without one, or when it is not
  found in the workspace, it is ``ANY`` (Django calls a function view for every method).
- A class view (Django ``View`` and its generic views, DRF ``APIView`` and generics, Flask
  ``MethodView``) serves the HTTP methods it defines or inherits (from the workspace's
  classes, and the framework's own: ``ListCreateAPIView`` is ``GET`` and ``POST``),
  restricted by a literal ``http_method_names``; a Flask class's literal ``methods``
  decides (``MethodView`` defaults to the methods it defines, ``View`` to ``GET``). A
  framework class used directly (``TemplateView.as_view()``) is known by the full dotted
  name the declaring file's import gives it (``django.views.generic.TemplateView``: GET).
  Django's ``RedirectView`` answers every method alike: ``ANY``. A class that is not
  found, or whose methods are not known (a base outside the workspace and no method of its
  own; Django's ``View`` itself), is one ``ANY`` route.
- A DRF viewset registered on a router gives DRF's routes: ``list``/``create`` at
  ``prefix/``, ``retrieve``/``update``/``partial_update``/``destroy`` at
  ``prefix/{lookup}/``, each ``@action`` at ``prefix/url_path/`` or
  ``prefix/{lookup}/url_path/`` with its methods (and its ``mapping``), for the actions the
  class defines or inherits (``ModelViewSet``: all six; ``ReadOnlyModelViewSet``: list and
  retrieve; mixins: theirs); ``{lookup}`` is ``lookup_url_kwarg``, else ``lookup_field``,
  else ``pk``. Trailing slashes are the router's (``trailing_slash=False``: none). A
  viewset that is not found, or whose actions are not known, is one unresolved route.

The handler of an expanded route is ``View.method`` as written (``views.UserViewSet.list``);
its ``handler_span`` is given only when the view is in the declaring file (a route's
spans are in its own file). Pure: facts in, routes out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from .model import FileFacts, Route, RouteView, Span, ViewAction

Lookup = Callable[[str], FileFacts | None]
MAX_BASES = 32  # classes read up one view's bases

_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
# the framework's classes (by root package and name): (family, the view methods they define)
_VIEWSET, _VIEW, _MIXIN, _FLASK_METHOD_VIEW, _FLASK_VIEW = "viewset", "view", "mixin", "methodview", "flaskview"
_ANY_VIEW = "anyview"  # a class that answers every method alike (Django's RedirectView)
_KNOWN: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    **{("rest_framework", n): (_VIEWSET, ()) for n in ("ViewSetMixin", "ViewSet", "GenericViewSet")},
    ("rest_framework", "ModelViewSet"): (_VIEWSET, ("list", "create", "retrieve", "update", "partial_update",
                                                    "destroy")),
    ("rest_framework", "ReadOnlyModelViewSet"): (_VIEWSET, ("list", "retrieve")),
    ("rest_framework", "ListModelMixin"): (_MIXIN, ("list",)),
    ("rest_framework", "CreateModelMixin"): (_MIXIN, ("create",)),
    ("rest_framework", "RetrieveModelMixin"): (_MIXIN, ("retrieve",)),
    ("rest_framework", "UpdateModelMixin"): (_MIXIN, ("update", "partial_update")),
    ("rest_framework", "DestroyModelMixin"): (_MIXIN, ("destroy",)),
    ("rest_framework", "APIView"): (_VIEW, ()),
    ("rest_framework", "GenericAPIView"): (_VIEW, ()),
    ("rest_framework", "CreateAPIView"): (_VIEW, ("post",)),
    ("rest_framework", "ListAPIView"): (_VIEW, ("get",)),
    ("rest_framework", "RetrieveAPIView"): (_VIEW, ("get",)),
    ("rest_framework", "DestroyAPIView"): (_VIEW, ("delete",)),
    ("rest_framework", "UpdateAPIView"): (_VIEW, ("put", "patch")),
    ("rest_framework", "ListCreateAPIView"): (_VIEW, ("get", "post")),
    ("rest_framework", "RetrieveUpdateAPIView"): (_VIEW, ("get", "put", "patch")),
    ("rest_framework", "RetrieveDestroyAPIView"): (_VIEW, ("get", "delete")),
    ("rest_framework", "RetrieveUpdateDestroyAPIView"): (_VIEW, ("get", "put", "patch", "delete")),
    ("django", "View"): (_VIEW, ()),
    **{("django", n): (_VIEW, ("get",)) for n in (
        "TemplateView", "ListView", "DetailView", "BaseListView", "BaseDetailView", "ArchiveIndexView",
        "YearArchiveView", "MonthArchiveView", "WeekArchiveView", "DayArchiveView", "TodayArchiveView",
        "DateDetailView")},
    **{("django", n): (_VIEW, ("get", "post", "put")) for n in (
        "FormView", "CreateView", "UpdateView", "ProcessFormView", "BaseFormView", "BaseCreateView",
        "BaseUpdateView")},
    ("django", "DeleteView"): (_VIEW, ("get", "post", "delete")),
    ("django", "BaseDeleteView"): (_VIEW, ("get", "post", "delete")),
    ("django", "RedirectView"): (_ANY_VIEW, ()),
    ("flask", "MethodView"): (_FLASK_METHOD_VIEW, ()),
    ("flask", "View"): (_FLASK_VIEW, ()),
}
# DRF's routes of a viewset's actions: (action, method, detail)
_ACTIONS = (("list", "GET", False), ("create", "POST", False), ("retrieve", "GET", True),
            ("update", "PUT", True), ("partial_update", "PATCH", True), ("destroy", "DELETE", True))


@dataclass
class _Read:
    """What a view class serves, read up its bases (nearest first, as Python's MRO for
    single inheritance and depth-first for several)."""

    handlers: dict[str, tuple[str, Span]] = field(default_factory=dict)  # method -> (file, span of its name)
    actions: dict[str, tuple[str, ViewAction]] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    methods: tuple[str, ...] | None = None
    allowed: tuple[str, ...] | None = None
    families: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)  # bases outside the workspace and not known


def expand(rel: str, routes: tuple[Route, ...], lookup: Lookup, resolve) -> list[Route] | tuple[Route, ...]:
    """``routes`` of ``rel`` with each one whose ``view`` is set replaced by the routes its
    view gives (no ``view`` left)."""
    if not any(r.view for r in routes):
        return routes
    out: list[Route] = []
    for r in routes:
        if r.view is None:
            out.append(r)
        elif r.framework == "drf":
            out += _viewset_routes(rel, r, lookup, resolve)
        else:
            out += _view_routes(rel, r, lookup, resolve)
    return out


def find_view(file: str, name: str, lookup: Lookup, resolve) -> tuple[str, RouteView] | None:
    """The view ``name`` (as written in ``file``: ``UserView``, ``views.UserView``) names, and
    the file that declares it; through imports and re-exports (``from .users import
    UserViewSet`` in a package's ``__init__``)."""
    from .routes import find_declared

    return find_declared(file, name, lookup, resolve, lambda facts: facts.views)


def _known(base: str) -> tuple[str, tuple[str, ...]] | None:
    root, _, rest = base.partition(".")
    return _KNOWN.get((root, base.rsplit(".", 1)[-1])) if rest else None


def qualified(file: str, name: str, lookup: Lookup) -> str | None:
    """``name`` as written in ``file`` (``TemplateView``, ``generic.TemplateView``) as the
    full dotted name its import gives (``django.views.generic.TemplateView``); None when no
    absolute import binds its first part."""
    facts = lookup(file)
    if facts is None:
        return None
    best = None
    for i in facts.imports:  # the longest binding `name` starts with (`import django.views.generic`)
        local = i.local
        if not local or i.module.startswith(".") or i.kind not in ("static", "type"):
            continue
        if (name == local or name.startswith(local + ".")) and (best is None or len(local) > len(best.local)):
            best = i
    if best is None:
        return None
    base = best.module if best.name == "*" else f"{best.module}.{best.name}"
    rest = name[len(best.local) + 1:]
    return f"{base}.{rest}" if rest else base


def _framework_view(rel: str, r: Route, plain: Route, lookup: Lookup) -> list[Route]:
    """A route whose view class is not in the workspace: the methods of the framework's own
    class (``TemplateView.as_view()`` imported from ``django.views.generic``: GET), else one
    ``ANY`` route."""
    q = qualified(rel, r.view or "", lookup)
    known = _known(q) if q is not None and q.split(".", 1)[0] in ("django", "rest_framework", "flask") else None
    if known is None:
        return [plain]
    family, handlers = known
    if family == _FLASK_VIEW:
        methods = ["GET"]
    elif family in (_VIEW, _FLASK_METHOD_VIEW):
        methods = [h.upper() for h in _VERBS if h in handlers]
    else:  # a viewset or mixin as a plain view, a RedirectView: any method
        methods = []
    if not methods:
        return [replace(plain, handler=r.view)]
    return [replace(plain, method=m, handler=f"{r.view}.{m.lower()}", handler_span=None) for m in methods]


def read_class(file: str, view: RouteView, lookup: Lookup, resolve) -> _Read:
    out = _Read()
    todo = [(file, view)]
    seen: set[tuple[str, str]] = set()
    while todo and len(seen) < MAX_BASES:
        f, v = todo.pop(0)
        if (f, v.name) in seen:
            continue
        seen.add((f, v.name))
        for name, span in v.handlers:
            out.handlers.setdefault(name, (f, span))
        for a in v.actions:
            out.actions.setdefault(a.name, (f, a))
        for k, value in v.attrs:
            out.attrs.setdefault(k, value)
        if out.methods is None:
            out.methods = v.methods
        if out.allowed is None:
            out.allowed = v.allowed
        for base in v.bases:
            known = _known(base)
            if known is not None:
                family, handlers = known
                out.families.add(family)
                for h in handlers:
                    out.handlers.setdefault(h, ("", Span(0, 0)))
                continue
            if base.split(".", 1)[0] in ("django", "rest_framework", "flask"):
                out.unknown.append(base)  # a framework class not in the table: not guessed
                continue
            found = find_view(f, base, lookup, resolve)
            if found is None:
                out.unknown.append(base)
            else:
                todo.append(found)
    return out


def _handler(rel: str, r: Route, where: tuple[str, Span] | None, what: str) -> tuple[str, Span | None]:
    span = where[1] if where is not None and where[0] == rel else None
    return f"{r.view}.{what}", span


def _view_routes(rel: str, r: Route, lookup: Lookup, resolve) -> list[Route]:
    """A Django or Flask route whose view decides its methods."""
    plain = replace(r, view=None)
    found = find_view(rel, r.view or "", lookup, resolve)
    if found is None:  # not in the workspace: a framework class's methods, else ANY
        return _framework_view(rel, r, plain, lookup)
    file, view = found
    if view.function:
        return [replace(plain, method=m) for m in view.methods or ()] or [plain]
    read = read_class(file, view, lookup, resolve)
    if _FLASK_VIEW in read.families or _FLASK_METHOD_VIEW in read.families:
        if read.methods is not None:
            methods = list(read.methods)
        elif _FLASK_METHOD_VIEW in read.families:
            methods = [h.upper() for h in _VERBS if h in read.handlers]
        else:
            methods = ["GET"]
    elif _ANY_VIEW in read.families and read.allowed is None:
        methods = []  # a RedirectView: every method alike, one ANY route
    else:
        methods = [h.upper() for h in _VERBS if h in read.handlers]
        if _ANY_VIEW in read.families:
            methods = [m.upper() for m in _VERBS if m.upper() in (read.allowed or ())]
        elif read.allowed is not None:
            methods = [m for m in methods if m in read.allowed]
    if not methods:
        return [replace(plain, handler=r.view)] if read.unknown or _ANY_VIEW in read.families else []
    out = []
    for m in methods:
        handler, span = _handler(rel, r, read.handlers.get(m.lower()), m.lower())
        out.append(replace(plain, method=m, handler=handler, handler_span=span))
    return out


def _viewset_routes(rel: str, r: Route, lookup: Lookup, resolve) -> list[Route]:
    """DRF's routes of a viewset registered on a router (``r.path``: the prefix and the
    router's trailing slash)."""
    plain = replace(r, view=None)
    if r.unresolved is not None:
        return [replace(plain, path="/" + r.path)]
    found = find_view(rel, r.view or "", lookup, resolve)
    if found is None:
        return [replace(plain, path="/" + r.path, unresolved=f"the viewset {r.view} is not in the workspace")]
    file, view = found
    read = read_class(file, view, lookup, resolve)
    slash = "/" if r.path.endswith("/") else ""
    prefix = r.path[:-1] if slash else r.path
    lookup_name = read.attrs.get("lookup_url_kwarg") or read.attrs.get("lookup_field") or "pk"

    def url(detail: bool, extra: str = "") -> str:
        parts = [prefix] if prefix else []
        if detail:
            parts.append("{" + lookup_name + "}")
        if extra:
            parts.append(extra)
        return "/" + "/".join(parts) + (slash if parts else "")

    out: list[Route] = []
    allowed = read.allowed
    for action, method, detail in _ACTIONS:
        if action in read.handlers and (allowed is None or method in allowed):
            handler, span = _handler(rel, r, read.handlers[action], action)
            out.append(replace(plain, method=method, path=url(detail), handler=handler, handler_span=span))
    for name, (f, a) in sorted(read.actions.items(), key=lambda kv: kv[1][1].span.start):
        handler, span = _handler(rel, r, (f, a.span), name)
        if a.unresolved is not None or a.detail is None:
            out.append(replace(plain, method="ANY", path=url(False), handler=handler, handler_span=span,
                               unresolved=a.unresolved or "the action's detail is not known"))
            continue
        for m in a.methods:
            if allowed is None or m in allowed:
                out.append(replace(plain, method=m, path=url(a.detail, a.url_path), handler=handler,
                                   handler_span=span))
    if not out and (read.unknown or not read.families):
        why = (f"the actions of {r.view} are not known (it extends {', '.join(read.unknown)})" if read.unknown
               else f"the actions of {r.view} are not known")
        return [replace(plain, path="/" + r.path, unresolved=why)]
    return out
