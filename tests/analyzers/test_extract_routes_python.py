"""extract_python's route facts, one file at a time: the routes (with the router they are
declared on, its own prefix, the handler and where its name is) and the mounts that other
files' routes are composed through (FastAPI ``include_router``/``mount``, Flask
``register_blueprint``), as the real tree-sitter grammar gives them. Each snippet of a
fixture is one file, extracted alone."""

from __future__ import annotations

from specward.analyzers.analyses import thin
from specward.analyzers.extract.python import extract_python
from specward.analyzers.model import FileFacts, RouteMount

from fixtures import split


def extract_all(fixture: str) -> dict[str, tuple[FileFacts, bytes]]:
    return {path: (extract_python(path, text), text.encode("utf-8")) for path, text in split(fixture).items()}


def at(src: bytes, span) -> str | None:
    return None if span is None else src[span.start:span.end].decode("utf-8")


def routes(f: FileFacts, src: bytes) -> list[tuple]:
    """(method, path, router, prefix, handler, the text at the route's span, at the handler's)."""
    return [(r.method, r.path, r.router, r.prefix, r.handler, at(src, r.span), at(src, r.handler_span))
            for r in f.routes]


def mounts(f: FileFacts, src: bytes) -> list[tuple]:
    """(parent, child, prefix, framework, unresolved, the text at the mount's span)."""
    return [(m.parent, m.child, m.prefix, m.framework, m.unresolved, at(src, m.span)) for m in f.mounts]


# --------------------------------------------------------------------------- FastAPI

FASTAPI = """
//- app/main.py
from fastapi import FastAPI
from app.api.router import api_router
from app.admin import admin_app

app = FastAPI()
app.include_router(api_router, prefix="/api")
app.mount("/admin", admin_app)

@app.get("/health")
async def health():
    return {"ok": True}
//- app/api/router.py
from fastapi import APIRouter
from app.api.routes import users, items
from app.api.v1 import routes as v1
import app.api.v2

api_router = APIRouter()
api_router.include_router(users.router, prefix="/users", tags=["users"])
api_router.include_router(items.router)
api_router.include_router(v1.router, prefix=f"/v1")
api_router.include_router(app.api.v2.router, prefix="/v2")
//- app/api/routes/users.py
from fastapi import APIRouter

router = APIRouter()

@router.get("/{user_id:int}")
def read_user(user_id: int):
    return {}

@router.api_route("/", methods=["GET", "post"])
@router.delete("/")
def users(): ...
//- app/api/routes/items.py
from fastapi import APIRouter

router = APIRouter(prefix="/items", tags=["items"])

@router.put(path="/{item_id}/tags/{tag:path}")
async def tag_item(item_id: str, tag: str): ...
"""


def test_fastapi_routes_know_their_router_prefix_and_handler():
    files = extract_all(FASTAPI)
    f, src = files["app/api/routes/users.py"]
    assert routes(f, src) == [
        ("GET", "/{user_id}", "router", "", "read_user", '"/{user_id:int}"', "read_user"),
        ("GET", "/", "router", "", "users", '"/"', "users"),
        ("POST", "/", "router", "", "users", '"/"', "users"),
        ("DELETE", "/", "router", "", "users", '"/"', "users"),
    ]
    assert all(r.framework == "fastapi" for r in f.routes)
    assert f.mounts == ()
    # the handler's span is its name in the `def`, not the decorator's
    handler = f.routes[0].handler_span
    assert src[:handler.start].endswith(b"def ")

    f, src = files["app/api/routes/items.py"]
    assert routes(f, src) == [
        ("PUT", "/items/{item_id}/tags/{tag}", "router", "/items", "tag_item",
         '"/{item_id}/tags/{tag:path}"', "tag_item"),
    ]

    f, src = files["app/main.py"]
    assert routes(f, src) == [("GET", "/health", "app", "", "health", '"/health"', "health")]


def test_fastapi_include_router_and_mount():
    files = extract_all(FASTAPI)
    f, src = files["app/main.py"]
    assert mounts(f, src) == [
        ("app", "api_router", "/api", "fastapi", None, 'app.include_router(api_router, prefix="/api")'),
        ("app", "admin_app", "/admin", "fastapi", None, 'app.mount("/admin", admin_app)'),
    ]
    f, src = files["app/api/router.py"]
    assert [m[:5] for m in mounts(f, src)] == [
        ("api_router", "users.router", "/users", "fastapi", None),
        ("api_router", "items.router", "", "fastapi", None),  # no prefix
        ("api_router", "v1.router", "/v1", "fastapi", None),  # an f-string without substitutions
        ("api_router", "app.api.v2.router", "/v2", "fastapi", None),  # a dotted chain
    ]
    # mount and include_router calls are facts, not call sites
    assert [c.callee for c in f.calls] == []


def test_fastapi_mount_arguments_by_keyword_and_what_is_no_mount():
    f, src = extract_all("""
//- app/main.py
from fastapi import FastAPI, APIRouter
from fastapi.staticfiles import StaticFiles
import requests

app = FastAPI()
app.mount(path="/sub", app=sub_app)
app.mount("/static", StaticFiles(directory="static"), name="static")
app.include_router(make_router(), prefix="/made")
app.include_router(routers[0])
session = requests.Session()
session.mount("https://", adapter)
session.mount(SCHEME, adapter)
other.mount("http://", adapter)
""")["app/main.py"]
    assert mounts(f, src) == [
        ("app", "sub_app", "/sub", "fastapi", None, 'app.mount(path="/sub", app=sub_app)'),
    ]


def test_a_prefix_that_is_not_a_literal_is_unresolved():
    f, src = extract_all("""
//- app/main.py
from fastapi import FastAPI
from app.core.config import settings
from app.api import api_router, legacy

app = FastAPI()
app.include_router(api_router, prefix=settings.API_V1_STR)
app.include_router(legacy.router, prefix=f"{settings.BASE}/legacy")
app.include_router(legacy.router, prefix="/old" + suffix)
app.mount(ROOT, legacy.app)
""")["app/main.py"]
    assert [m[:5] for m in mounts(f, src)] == [
        ("app", "api_router", "", "fastapi", "prefix is not a literal: settings.API_V1_STR"),
        ("app", "legacy.router", "", "fastapi", 'prefix is not a literal: f"{settings.BASE}/legacy"'),
        ("app", "legacy.router", "", "fastapi", 'prefix is not a literal: "/old" + suffix'),
        ("app", "legacy.app", "", "fastapi", "prefix is not a literal: ROOT"),
    ]


# --------------------------------------------------------------------------- Flask

FLASK = """
//- shop/__init__.py
from flask import Flask
from shop.api import api_bp
from shop import admin
from settings import PREFIX

def create_app():
    app = Flask(__name__)
    app.register_blueprint(api_bp, url_prefix="/api")
    app.register_blueprint(admin.bp)
    app.register_blueprint(admin.bp, url_prefix=PREFIX)

    @app.route("/")
    def index():
        return "ok"

    def ping():
        return "pong"

    app.add_url_rule("/ping", view_func=ping)
    return app
//- shop/api/__init__.py
from flask import Blueprint
from .orders import orders_bp

api_bp = Blueprint("api", __name__, url_prefix="/v1")
api_bp.register_blueprint(orders_bp, url_prefix="/orders")
//- shop/api/orders.py
from flask import Blueprint
from . import views

orders_bp = Blueprint("orders", __name__)

@orders_bp.route("/<int:order_id>", methods=("GET", "PATCH"))
def order(order_id): ...

def list_orders(): ...

orders_bp.add_url_rule("/", view_func=list_orders, methods=["GET", "POST"])
orders_bp.add_url_rule("/<order_id>/items", "items", list_orders)
orders_bp.add_url_rule("/export", endpoint="export")
orders_bp.add_url_rule(rule="/<uuid:order_id>/pdf", view_func=views.pdf)
orders_bp.add_url_rule("/search", view_func=SearchView.as_view("search"))
orders_bp.add_url_rule(RULE, view_func=list_orders)
"""


def test_flask_blueprints_and_nested_registration():
    files = extract_all(FLASK)
    f, src = files["shop/__init__.py"]
    assert mounts(f, src) == [
        ("app", "api_bp", "/api", "flask", None, 'app.register_blueprint(api_bp, url_prefix="/api")'),
        ("app", "admin.bp", "", "flask", None, "app.register_blueprint(admin.bp)"),
        ("app", "admin.bp", "", "flask", "prefix is not a literal: PREFIX",
         "app.register_blueprint(admin.bp, url_prefix=PREFIX)"),
    ]
    f, src = files["shop/api/__init__.py"]
    assert [m[:5] for m in mounts(f, src)] == [("api_bp", "orders_bp", "/orders", "flask", None)]


def test_flask_routes_in_an_app_factory():
    f, src = extract_all(FLASK)["shop/__init__.py"]
    assert routes(f, src) == [
        ("GET", "/", "app", "", "index", '"/"', "index"),
        ("GET", "/ping", "app", "", "ping", '"/ping"', "ping"),  # the factory's local view
    ]
    assert all(r.framework == "flask" for r in f.routes)


def test_flask_route_decorators_and_add_url_rule():
    f, src = extract_all(FLASK)["shop/api/orders.py"]
    assert routes(f, src) == [
        ("GET", "/{order_id}", "orders_bp", "", "order", '"/<int:order_id>"', "order"),
        ("PATCH", "/{order_id}", "orders_bp", "", "order", '"/<int:order_id>"', "order"),
        ("GET", "/", "orders_bp", "", "list_orders", '"/"', "list_orders"),
        ("POST", "/", "orders_bp", "", "list_orders", '"/"', "list_orders"),
        # the view function as the third positional argument
        ("GET", "/{order_id}/items", "orders_bp", "", "list_orders", '"/<order_id>/items"', "list_orders"),
        # (`add_url_rule("/export", endpoint="export")` has no view function: it only names
        # an endpoint for url_for, no route)
        # a view defined in another module: its name, no span here
        ("GET", "/{order_id}/pdf", "orders_bp", "", "views.pdf", '"/<uuid:order_id>/pdf"', None),
        # a class-based view: its class decides the methods (composition reads it)
        ("ANY", "/search", "orders_bp", "", "SearchView", '"/search"', None),
        # a rule that is not a literal: a route whose path is not known
        ("GET", "", "orders_bp", "", "list_orders", "RULE", "list_orders"),
    ]
    assert [(r.view, r.unresolved) for r in f.routes][-2:] == [("SearchView", None), (None, "path is the name RULE")]
    assert all(r.framework == "flask" for r in f.routes)
    # the handler span of an add_url_rule route is the name in the view's `def`
    assert src[:f.routes[2].handler_span.start].endswith(b"def ")
    assert [c.callee for c in f.calls] == []  # add_url_rule calls are routes, not call sites


def test_a_blueprints_own_prefix_is_joined_and_said():
    f, src = extract_all("""
//- app/views.py
from flask import Blueprint

bp = Blueprint("users", __name__, url_prefix="/users/<int:org>/")

@bp.get("/<name>")
def show(name): ...

def listing(): ...

bp.add_url_rule("", view_func=listing)
""")["app/views.py"]
    assert routes(f, src) == [
        ("GET", "/users/{org}/{name}", "bp", "/users/{org}/", "show", '"/<name>"', "show"),
        ("GET", "/users/{org}/", "bp", "/users/{org}/", "listing", '""', "listing"),
    ]
    # the prefix is what the path starts with, as composition reads it
    assert all(r.path.startswith(r.prefix) for r in f.routes)


def test_routes_on_an_owner_that_is_not_a_plain_name_have_no_router():
    f, src = extract_all("""
//- app/routes.py
from fastapi import APIRouter
from app import api

@api.router.get("/ping")
def ping(): ...
""")["app/routes.py"]
    assert routes(f, src) == [("GET", "/ping", None, "", "ping", '"/ping"', "ping")]


def test_thin_facts_keep_the_mounts():
    f, _ = extract_all(FASTAPI)["app/main.py"]
    assert f.mounts and thin(f).mounts == f.mounts
    assert isinstance(f.mounts[0], RouteMount)


# --------------------------------------------------------------------------- non-literal paths

def test_a_path_that_is_not_a_literal_is_an_unresolved_route_and_a_module_constant_is_read():
    f, src = extract_all('''
//- app/routes.py
from fastapi import APIRouter
from app.settings import BASE

router = APIRouter(prefix="/items")
VERSION = "v1"
TWICE = "a"
TWICE = "b"

@router.get(f"/{VERSION}/list")
def listing(): ...

@router.get(f"{BASE}/search")
def search(): ...

@router.post(BASE)
def create(): ...

@router.get("/" + VERSION + "/count")
def count(): ...

@router.get(TWICE)
def twice(): ...

@router.get(make_path("x"))
def made(): ...

@cache.get(KEY)
def not_a_route(): ...
''')["app/routes.py"]
    got = [(r.method, r.path, r.handler, r.unresolved) for r in f.routes]
    assert got == [
        ("GET", "/items/v1/list", "listing", None),  # a constant of the file, in an f-string
        ("GET", "/items", "search", "path is an f-string"),  # imported: not read
        ("POST", "/items", "create", "path is the name BASE"),
        ("GET", "/items/v1/count", "count", None),
        ("GET", "/items", "twice", "path is the name TWICE"),  # bound twice: no constant
        ("GET", "/items", "made", 'path is a call: make_path("x")'),
    ]


# --------------------------------------------------------------------------- Django

DJANGO = '''
//- shop/urls.py
from django.urls import include, path, re_path
from django.contrib.auth.decorators import login_required
from rest_framework.routers import SimpleRouter
from . import views
from catalog import urls as catalog_urls
from .api import router as api_router

router = SimpleRouter(trailing_slash=False)
router.register(r"orders", views.OrderViewSet, basename="order")

urlpatterns = [
    path("", views.home),
    path("cart/<int:item_id>/", login_required(views.CartItem.as_view()), name="cart-item"),
    re_path(r"^receipts/(?P<number>[0-9]+)\\.pdf$", views.receipt),
    re_path(r"^old/(\\d+)/$", views.old),
    path("catalog/", include(catalog_urls)),
    path("accounts/", include("accounts.urls")),
    path("api/", include(api_router.urls)),
    path("items/", views.ItemViewSet.as_view({"get": "list", "post": "create"})),
]
urlpatterns += router.urls

def helper():
    return [path("nope/", views.home)]
'''


def test_django_patterns_are_routes_and_includes_are_mounts():
    f, src = extract_all(DJANGO)["shop/urls.py"]
    got = [(r.method, r.path, r.router, r.framework, r.handler, r.view, r.unresolved) for r in f.routes]
    assert got == [
        ("ANY", "orders", "router", "drf", "views.OrderViewSet", "views.OrderViewSet", None),
        ("ANY", "/", "urlpatterns", "django", "views.home", "views.home", None),
        ("ANY", "/cart/{item_id}/", "urlpatterns", "django", "views.CartItem", "views.CartItem", None),
        ("ANY", "/receipts/{number}.pdf", "urlpatterns", "django", "views.receipt", "views.receipt", None),
        ("ANY", "/old/", "urlpatterns", "django", "views.old", "views.old",
         "the regex is not a plain path: ^old/(\\d+)/$"),
        ("GET", "/items/", "urlpatterns", "django", "views.ItemViewSet", None, None),  # as_view's actions
        ("POST", "/items/", "urlpatterns", "django", "views.ItemViewSet", None, None),
    ]  # a list built in a function is not the module's patterns
    assert [(m.parent, m.child, m.prefix, m.framework) for m in f.mounts] == [
        ("urlpatterns", "module:catalog.urls", "/catalog/", "django"),
        ("urlpatterns", "module:accounts.urls", "/accounts/", "django"),
        ("urlpatterns", "api_router", "/api/", "django"),
        ("urlpatterns", "router", "", "drf"),
    ]
    assert at(src, f.routes[1].span) == '""' and at(src, f.mounts[3].span) == "urlpatterns += router.urls"
    assert [c.callee for c in f.calls if c.callee in ("path", "re_path")] == ["path"]  # only the helper's


def test_view_classes_and_function_views_are_recorded_with_what_shapes_their_routes():
    f, src = extract_all('''
//- shop/views.py
from pydantic import BaseModel
from rest_framework import viewsets
from rest_framework.decorators import action, api_view
from django.views.decorators.http import require_safe
from .base import BaseView


class Payload(BaseModel):
    name: str


class OrderViewSet(viewsets.ModelViewSet):
    lookup_field = "code"
    http_method_names = ["get", "post"]

    def list(self, request): ...

    @action(detail=True, methods=["post", "put"], url_path="pay-now")
    def pay(self, request, code=None): ...

    @pay.mapping.delete
    def refund(self, request, code=None): ...

    def helper(self): ...


class CartItem(BaseView):
    def get(self, request, item_id): ...


@api_view(["GET", "POST"])
def receipt(request, number): ...


@require_safe
def home(request): ...


def old(request): ...
''')["shop/views.py"]
    got = {v.name: v for v in f.views}
    assert list(got) == ["OrderViewSet", "CartItem", "receipt", "home"]  # a pydantic model is no view
    order = got["OrderViewSet"]
    assert order.bases == ("rest_framework.viewsets.ModelViewSet",)
    assert [(n, at(src, s)) for n, s in order.handlers] == [("list", "list")]
    assert order.attrs == (("lookup_field", "code"),) and order.allowed == ("GET", "POST")
    [pay] = order.actions
    assert (pay.name, pay.detail, pay.methods, pay.url_path) == ("pay", True, ("POST", "PUT", "DELETE"), "pay-now")
    assert got["CartItem"].bases == ("BaseView",)  # a workspace class, as written
    assert (got["receipt"].function, got["receipt"].methods) == (True, ("GET", "POST"))
    assert got["home"].methods == ("GET", "HEAD")
    assert thin(f).views == ()


def test_drf_register_counts_only_on_a_drf_router_and_default_router_serves_its_root():
    f, src = extract_all('''
//- api/urls.py
import atexit
from rest_framework import routers
from .views import UserViewSet

router = routers.DefaultRouter()
router.register("users", UserViewSet)
router.register(PREFIX, UserViewSet)
atexit.register(print)
''')["api/urls.py"]
    assert [(r.method, r.path, r.router, r.view, r.unresolved) for r in f.routes] == [
        ("GET", "/", "router", None, None),  # DefaultRouter's API root
        ("ANY", "users/", "router", "UserViewSet", None),
        ("ANY", "", "router", "UserViewSet", "path is the name PREFIX"),
    ]
    assert at(src, f.routes[0].span) == "routers.DefaultRouter()"


def test_fastapi_root_path_is_a_mount_above_the_app():
    f, src = extract_all('''
//- main.py
from fastapi import FastAPI
from settings import ROOT

app = FastAPI(title="x", root_path="/api")
other = FastAPI(root_path=ROOT)
''')["main.py"]
    assert [(m.parent, m.child, m.prefix, m.unresolved, at(src, m.span)) for m in f.mounts] == [
        ("", "app", "/api", None, 'root_path="/api"'),
        ("", "other", "", "root_path is not a literal: ROOT", "root_path=ROOT"),
    ]


def test_django_ninja_apis_and_routers_are_ninja_and_their_urls_are_mounted():
    files = extract_all('''
//- polls/api.py
from ninja import NinjaAPI, Router

api = NinjaAPI(title="polls")
votes = Router()
api.add_router("/votes", votes)


@api.get("/questions/{question_id}")
def question(request, question_id: int): ...


@votes.post("/")
def vote(request): ...
//- polls/extra.py
from ninja import Router
from .api import api

@api.put("/close")
def close(request): ...
//- polls/urls.py
from django.urls import path
from polls import api as polls_api

urlpatterns = [path("api/", polls_api.api.urls)]
''')
    f, src = files["polls/api.py"]
    assert [(r.method, r.path, r.router, r.framework) for r in f.routes] == [
        ("GET", "/questions/{question_id}", "api", "ninja"),
        ("POST", "/", "votes", "ninja"),
    ]
    assert mounts(f, src) == [("api", "votes", "/votes", "ninja", None, 'api.add_router("/votes", votes)')]
    other, _ = files["polls/extra.py"]  # an API of another file: the file's imports say ninja
    assert [(r.method, r.path, r.framework) for r in other.routes] == [("PUT", "/close", "ninja")]
    urls, src = files["polls/urls.py"]
    assert urls.routes == ()  # `api.urls` is no view: the API's patterns, mounted
    assert mounts(urls, src) == [("urlpatterns", "polls_api.api", "/api/", "django", None,
                                  'path("api/", polls_api.api.urls)')]
