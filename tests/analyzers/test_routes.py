"""Routes composed across files (analyzers/routes.py) with the real extractor and the one
resolver: FastAPI and Flask prefixes through three files, Express routers mounted through
three files, re-exports, a prefix that is not a literal (unresolved, never guessed), and a
router mounted twice."""

from __future__ import annotations

from specward.analyzers.routes import compose, join

from fixtures import compose_fixture


def routes(fixture: str) -> list[tuple[str, str, str, str | None]]:
    """(method, full path, file, unresolved) of every composed route."""
    return [(c.method, c.path, c.file, c.unresolved) for c in compose_fixture(fixture)]

    return [(c.method, c.path, c.file, c.unresolved) for c in compose(facts, facts.get, resolve)]


def test_join_normalizes_slashes():
    assert join("/api", "users/", "/{id}") == "/api/users/{id}"
    assert join("", "") == "/" and join("/api/", "/") == "/api/"


FASTAPI = """
//- app/__init__.py
//- app/main.py
from fastapi import FastAPI
from app.api.router import api_router

app = FastAPI()
app.include_router(api_router, prefix="/api")
//- app/api/__init__.py
//- app/api/router.py
from fastapi import APIRouter
from app.api.routes import users, items

api_router = APIRouter()
api_router.include_router(users.router, prefix="/users")
api_router.include_router(items.router)
//- app/api/routes/__init__.py
//- app/api/routes/users.py
from fastapi import APIRouter

router = APIRouter()

@router.get("/{user_id:int}")
def read_user(user_id: int):
    return {}

@router.api_route("/", methods=["GET", "POST"])
def users(): ...
//- app/api/routes/items.py
from fastapi import APIRouter

router = APIRouter(prefix="/items")

@router.delete("/{item_id}")
def drop(item_id: str): ...
"""


def test_fastapi_prefixes_compose_through_three_files():
    assert routes(FASTAPI) == [
        ("DELETE", "/api/items/{item_id}", "app/api/routes/items.py", None),
        ("GET", "/api/users/", "app/api/routes/users.py", None),
        ("POST", "/api/users/", "app/api/routes/users.py", None),
        ("GET", "/api/users/{user_id}", "app/api/routes/users.py", None),
    ]


FLASK = """
//- shop/__init__.py
from flask import Flask
from shop.api import api_bp
from settings import PREFIX

def create_app():
    app = Flask(__name__)
    app.register_blueprint(api_bp, url_prefix="/api")
    app.register_blueprint(api_bp, url_prefix=PREFIX)
    return app
//- shop/api/__init__.py
from flask import Blueprint
from .orders import orders_bp

api_bp = Blueprint("api", __name__)
api_bp.register_blueprint(orders_bp, url_prefix="/orders")
//- shop/api/orders.py
from flask import Blueprint

orders_bp = Blueprint("orders", __name__)

@orders_bp.route("/<int:order_id>", methods=["GET", "PATCH"])
def order(order_id): ...
"""


def test_flask_blueprints_nested_across_files_and_a_prefix_that_is_not_a_literal():
    got = routes(FLASK)
    resolved = [r for r in got if r[3] is None]
    assert resolved == [("GET", "/api/orders/{order_id}", "shop/api/orders.py", None),
                        ("PATCH", "/api/orders/{order_id}", "shop/api/orders.py", None)]
    unresolved = [r for r in got if r[3] is not None]
    assert [r[:2] for r in unresolved] == [("GET", "/orders/{order_id}"), ("PATCH", "/orders/{order_id}")]
    assert all("PREFIX" in r[3] for r in unresolved)


EXPRESS = """
//- server/app.js
const express = require('express');
const api = require('./routes');

const app = express();
app.use(express.json());
app.use('/api', api);
//- server/routes/index.js
const { Router } = require('express');
const users = require('./users');
const router = Router();
router.use('/users', users);
module.exports = router;
//- server/routes/users.js
const express = require('express');
const router = express.Router();

router.get('/:id', function show(req, res) { res.json({}); });
router.route('/').get(list).post(create);

function list(req, res) {}
function create(req, res) {}
module.exports = router;
"""


def test_express_routers_mounted_through_three_files():
    assert routes(EXPRESS) == [
        ("GET", "/api/users", "server/routes/users.js", None),
        ("POST", "/api/users", "server/routes/users.js", None),
        ("GET", "/api/users/{id}", "server/routes/users.js", None),
    ]


TS_EXPRESS = """
//- src/main.ts
import express from 'express';
import { v1 } from './routes';

const app = express();
app.use('/api/v1', v1);
//- src/routes/index.ts
export { v1 } from './v1';
//- src/routes/v1.ts
import { Router } from 'express';
export const v1 = Router();

v1.post('/sessions', (req, res) => res.sendStatus(201));
"""


def test_a_router_re_exported_through_an_index_file():
    assert routes(TS_EXPRESS) == [("POST", "/api/v1/sessions", "src/routes/v1.ts", None)]


def test_a_flask_url_prefix_at_registration_replaces_the_blueprints_own():
    fixture = """
//- app.py
from flask import Flask
from admin import admin_bp

app = Flask(__name__)
app.register_blueprint(admin_bp, url_prefix="/console")
//- admin.py
from flask import Blueprint

admin_bp = Blueprint("admin", __name__, url_prefix="/admin")

@admin_bp.route("/users")
def users(): ...
"""
    assert routes(fixture) == [("GET", "/console/users", "admin.py", None)]
