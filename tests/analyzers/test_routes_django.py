"""Django and Django REST framework routes composed across files (extract -> compose with
the one resolver, as the server does): a project's root URLconf including an app's
``urls.py`` and an API whose ``urls.py`` registers viewsets on a DRF router; views in
``views.py`` files, a viewset's base class in a third package. Also Flask ``MethodView``
and FastAPI's ``root_path``."""

from __future__ import annotations

from specward.analyzers.extract import extract
from specward.analyzers.routes import compose

from fixtures import split
from test_routes import routes

PROJECT = """
//- manage.py
import os
//- config/__init__.py
//- config/urls.py
from django.contrib import admin
from django.urls import include, path, re_path

from blog import views as blog_views

API_VERSION = "v2"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("blog/", include("blog.urls", namespace="blog")),
    path(f"api/{API_VERSION}/", include("api.urls")),
    re_path(r"^archive/(?P<year>[0-9]{4})/$", blog_views.archive),
    re_path(r"^legacy/.*$", blog_views.legacy),
    path(settings.STATUS_PATH, blog_views.status),
]
//- blog/__init__.py
//- blog/urls.py
from django.urls import include, path
from . import views

app_name = "blog"

drafts = [
    path("", views.drafts),
    path("<int:pk>/publish/", views.publish),
]

urlpatterns = [
    path("", views.post_list, name="list"),
    path("posts/<slug:slug>/", views.PostDetail.as_view(), name="detail"),
    path("posts/<int:pk>/comments/", views.comment_create),
    path("feed/", views.FeedView.as_view()),
    path("drafts/", include(drafts)),
    path("tags/", include([path("<str:tag>/", views.tagged)])),
]
//- blog/views.py
from django.views import View
from django.views.generic import DetailView
from django.views.decorators.http import require_POST, require_http_methods, require_safe


def post_list(request): ...


def drafts(request): ...


@require_POST
def publish(request, pk): ...


@require_POST
def comment_create(request, pk): ...


@require_http_methods(["GET", "HEAD"])
def archive(request, year): ...


@require_safe
def tagged(request, tag): ...


def legacy(request): ...


def status(request): ...


class PostDetail(DetailView):
    template_name = "blog/detail.html"

    def post(self, request, *args, **kwargs): ...


class FeedView(View):
    http_method_names = ["get"]

    def get(self, request): ...

    def delete(self, request): ...
//- api/__init__.py
//- api/urls.py
from django.urls import include, path
from rest_framework.routers import DefaultRouter, SimpleRouter

from .views import AccountViewSet, TagViewSet, ping
from . import views

router = DefaultRouter()
router.register(r"accounts", AccountViewSet, basename="account")
router.register("tags", TagViewSet)

plain = SimpleRouter(trailing_slash=False)
plain.register("invoices", views.InvoiceViewSet)

urlpatterns = [
    path("", include(router.urls)),
    path("ping/", ping),
    path("reports/", views.ReportList.as_view()),
]
urlpatterns += plain.urls
//- api/views.py
from rest_framework import generics, mixins, viewsets
from rest_framework.decorators import action, api_view

from core.viewsets import AuditedViewSet


@api_view(["GET"])
def ping(request): ...


class AccountViewSet(AuditedViewSet):
    lookup_field = "username"

    @action(detail=True, methods=["post"], url_path="set-password")
    def set_password(self, request, username=None): ...

    @set_password.mapping.delete
    def clear_password(self, request, username=None): ...

    @action(detail=False)
    def recent(self, request): ...


class TagViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    pass


class InvoiceViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_url_kwarg = "number"


class ReportList(generics.ListCreateAPIView):
    pass
//- core/__init__.py
//- core/viewsets.py
from rest_framework import viewsets


class AuditedViewSet(viewsets.ModelViewSet):
    http_method_names = ["get", "post", "patch", "delete"]
"""


def resolved(fixture: str) -> list[tuple[str, str, str]]:
    return [r[:3] for r in routes(fixture) if r[3] is None]


def test_django_includes_compose_across_three_files_with_each_views_methods():
    got = resolved(PROJECT)
    blog = [r[:2] for r in got if r[2] == "blog/urls.py"]
    assert blog == [
        ("ANY", "/blog/"),  # an undecorated function view serves every method
        ("ANY", "/blog/drafts/"),  # a list of the same file, included
        ("POST", "/blog/drafts/{pk}/publish/"),
        ("GET", "/blog/feed/"),  # http_method_names leaves out DELETE
        ("POST", "/blog/posts/{pk}/comments/"),
        ("GET", "/blog/posts/{slug}/"),  # DetailView's get, and the post it defines
        ("POST", "/blog/posts/{slug}/"),
        ("GET", "/blog/tags/{tag}/"),  # an inline include([...])
        ("HEAD", "/blog/tags/{tag}/"),
    ]
    root = [r[:2] for r in got if r[2] == "config/urls.py"]
    assert root == [("GET", "/archive/{year}/"), ("HEAD", "/archive/{year}/")]  # a plain re_path regex
    assert not any(p.startswith("/admin") for _, p, _ in got)  # Django's admin is not the project's routes


def test_drf_router_routes_from_viewsets_their_bases_actions_and_lookup():
    api = [r[:2] for r in resolved(PROJECT) if r[2] == "api/urls.py"]
    assert api == [
        ("GET", "/api/v2/"),  # DefaultRouter's API root
        ("GET", "/api/v2/accounts/"),  # AuditedViewSet (core/) is a ModelViewSet without PUT
        ("POST", "/api/v2/accounts/"),
        ("GET", "/api/v2/accounts/recent/"),  # @action(detail=False)
        ("DELETE", "/api/v2/accounts/{username}/"),  # lookup_field
        ("GET", "/api/v2/accounts/{username}/"),
        ("PATCH", "/api/v2/accounts/{username}/"),
        ("DELETE", "/api/v2/accounts/{username}/set-password/"),  # the action's mapping
        ("POST", "/api/v2/accounts/{username}/set-password/"),
        ("GET", "/api/v2/invoices"),  # urlpatterns += plain.urls, trailing_slash=False
        ("GET", "/api/v2/invoices/{number}"),  # lookup_url_kwarg
        ("GET", "/api/v2/ping/"),  # @api_view(["GET"])
        ("GET", "/api/v2/reports/"),  # ListCreateAPIView
        ("POST", "/api/v2/reports/"),
        ("GET", "/api/v2/tags/"),  # GenericViewSet + ListModelMixin: list only
    ]


def test_what_is_not_known_is_unresolved_with_its_reason():
    unresolved = [(r[1], r[3]) for r in routes(PROJECT) if r[3] is not None]
    assert ("/legacy/", "the regex is not a plain path: ^legacy/.*$") in unresolved
    assert ("/", "path is the attribute settings.STATUS_PATH") in unresolved
    assert len(unresolved) == 2


def test_handlers_name_the_view_and_its_method():
    files = split(PROJECT)
    facts = {p: extract(p, t) for p, t in files.items() if p.endswith(".py")}
    from specward.analyzers.analyses import AnalysisInput, Context
    from specward.analyzers.resolve import FILE, ResolverConfig

    ctx = Context(AnalysisInput(), facts.get, ResolverConfig.build({}))

    def resolve(importer, spec, python):
        r = ctx.resolver.resolve(importer, spec, "python" if python else None)
        return r.path if r.kind == FILE else None

    by = {(c.method, c.path): c for c in compose(facts, facts.get, resolve)}
    assert by[("PATCH", "/api/v2/accounts/{username}/")].route.handler == "AccountViewSet.partial_update"
    assert by[("POST", "/api/v2/accounts/{username}/set-password/")].route.handler == "AccountViewSet.set_password"
    assert by[("POST", "/blog/posts/{slug}/")].route.handler == "views.PostDetail.post"
    steps = [(s.text, s.file) for s in by[("GET", "/blog/posts/{slug}/")].steps]
    assert steps == [("/blog/", "config/urls.py"), ("/posts/{slug}/", "blog/urls.py")]


def test_a_view_in_the_declaring_file_gives_the_handlers_span():
    fixture = """
//- app/urls.py
from django.urls import path
from django.views import View


class Ping(View):
    def get(self, request): ...


urlpatterns = [path("ping/", Ping.as_view())]
"""
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items()}
    [c] = compose(facts, facts.get, lambda *a: None)
    src = files["app/urls.py"].encode()
    assert (c.method, c.path, c.route.handler) == ("GET", "/ping/", "Ping.get")
    assert src[c.route.handler_span.start:c.route.handler_span.end] == b"get"


def test_a_viewset_outside_the_workspace_is_unresolved_and_an_unknown_class_view_is_any():
    fixture = """
//- urls.py
from django.urls import include, path
from rest_framework.routers import SimpleRouter
from thirdparty.views import ExternalViewSet, ExternalView

router = SimpleRouter()
router.register("ext", ExternalViewSet)

urlpatterns = [path("api/", include(router.urls)), path("x/", ExternalView.as_view())]
"""
    assert routes(fixture) == [
        ("ANY", "/api/ext/", "urls.py", "the viewset ExternalViewSet is not in the workspace"),
        ("ANY", "/x/", "urls.py", None),
    ]


FLASK_AND_FASTAPI = """
//- shop/__init__.py
from flask import Flask
from shop.api import bp

app = Flask(__name__)
app.register_blueprint(bp, url_prefix="/api")
//- shop/api.py
from flask import Blueprint
from shop.resources import UserAPI, ItemAPI, Legacy

bp = Blueprint("api", __name__)
bp.add_url_rule("/users/<int:user_id>", view_func=UserAPI.as_view("user"))
bp.add_url_rule("/items/", view_func=ItemAPI.as_view("items"))
bp.add_url_rule("/legacy", view_func=Legacy.as_view("legacy"))
bp.add_url_rule("/export", view_func=UserAPI.as_view("export"), methods=["POST"])
//- shop/resources.py
from flask.views import MethodView, View


class UserAPI(MethodView):
    def get(self, user_id): ...

    def delete(self, user_id): ...


class ItemAPI(MethodView):
    methods = ["GET", "POST"]

    def get(self): ...

    def post(self): ...

    def put(self): ...


class Legacy(View):
    def dispatch_request(self): ...
//- service/main.py
from fastapi import APIRouter, FastAPI

app = FastAPI(title="svc", root_path="/svc")
things = APIRouter()
app.include_router(things, prefix="/v1")


@things.get("/things/{thing_id}")
def read_thing(thing_id: int): ...
"""


def test_flask_method_views_give_one_route_per_method():
    got = [r[:2] for r in resolved(FLASK_AND_FASTAPI) if r[2] == "shop/api.py"]
    assert got == [
        ("POST", "/api/export"),  # methods= at registration decide
        ("GET", "/api/items/"),  # the class's `methods` attribute decides
        ("POST", "/api/items/"),
        ("GET", "/api/legacy"),  # a plain View: GET
        ("DELETE", "/api/users/{user_id}"),  # a MethodView: the methods it defines
        ("GET", "/api/users/{user_id}"),
    ]


def test_fastapi_root_path_prefixes_what_clients_call():
    assert [r[:2] for r in resolved(FLASK_AND_FASTAPI) if r[2] == "service/main.py"] == [
        ("GET", "/svc/v1/things/{thing_id}")]


def test_the_frameworks_own_view_classes_give_their_methods_by_their_import():
    fixture = """
//- site/urls.py
import django.views.generic
from django.urls import path
from django.views import View, generic
from django.views.generic import RedirectView, TemplateView as Page
from django.views.generic.edit import DeleteView, FormView
from rest_framework.generics import ListCreateAPIView

from site.views import Moved
from elsewhere import TemplateView as Unrelated

urlpatterns = [
    path("", Page.as_view(template_name="home.html")),
    path("notes/", generic.ListView.as_view(model=None)),
    path("notes/<int:pk>/", django.views.generic.DetailView.as_view()),
    path("contact/", FormView.as_view()),
    path("notes/<int:pk>/remove/", DeleteView.as_view()),
    path("old/", RedirectView.as_view(url="/")),
    path("moved/", Moved.as_view()),
    path("bare/", View.as_view()),
    path("api/", ListCreateAPIView.as_view()),
    path("other/", Unrelated.as_view()),
]
//- site/__init__.py
//- site/views.py
from django.views.generic import RedirectView


class Moved(RedirectView):
    pattern_name = "home"
"""
    assert [r[:2] for r in resolved(fixture)] == [
        ("GET", "/"),  # TemplateView (imported under another name): get only
        ("GET", "/api/"),  # DRF's generics too
        ("POST", "/api/"),
        ("ANY", "/bare/"),  # View itself defines no method
        ("GET", "/contact/"),  # FormView: get, post and the put it passes to post
        ("POST", "/contact/"),
        ("PUT", "/contact/"),
        ("ANY", "/moved/"),  # a RedirectView of the project answers every method
        ("GET", "/notes/"),  # through `from django.views import generic`
        ("GET", "/notes/{pk}/"),  # through `import django.views.generic`
        ("DELETE", "/notes/{pk}/remove/"),  # DeleteView: get, post (Django >= 4) and delete
        ("GET", "/notes/{pk}/remove/"),
        ("POST", "/notes/{pk}/remove/"),
        ("ANY", "/old/"),  # RedirectView answers every method
        ("ANY", "/other/"),  # a class of another package: not known
    ]


def test_a_django_ninja_api_is_mounted_by_its_urls_with_its_routers():
    fixture = """
//- project/urls.py
from django.urls import include, path

urlpatterns = [path("shop/", include("shop.urls"))]
//- project/__init__.py
//- shop/__init__.py
//- shop/urls.py
from django.urls import path

from shop import api

urlpatterns = [path("v1/", api.api.urls)]
//- shop/api.py
from ninja import NinjaAPI, Router

api = NinjaAPI()
carts = Router()


@api.get("/ping")
def ping(request): ...


@carts.delete("/{cart_id}")
def drop(request, cart_id: int): ...


api.add_router("/carts", carts)
"""
    assert routes(fixture) == [
        ("DELETE", "/shop/v1/carts/{cart_id}", "shop/api.py", None),  # api.add_router("/carts", carts)
        ("GET", "/shop/v1/ping", "shop/api.py", None),  # path("v1/", api.api.urls), included under shop/
    ]
