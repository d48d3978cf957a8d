"""Per-file route facts of JavaScript and TypeScript backends (``Route`` with its router,
prefix and handler; ``RouteMount``): Express apps and routers, Fastify apps and plugins,
koa-router and Hono, with the real grammars. Most cases run in both languages; the last
tests compose a few files with ``analyzers/routes.py`` to check that the conventions of the
facts (router names of plugins, ``require:`` children) are the ones the composition reads,
and that incremental extraction stays exact on a backend file."""

from __future__ import annotations


import pytest

from specward.analyzers.extract import extract
from specward.analyzers.extract.ecma import extract_ecma
from specward.analyzers.model import RouteMount

from fixtures import assert_edits_stay_exact, compose_fixture

GRAMMARS = ("javascript", "typescript")


def facts(src: str, grammar: str = "javascript"):
    path = "server/app.js" if grammar == "javascript" else "server/app.ts"
    return extract_ecma(path, src, grammar)


def text_of(src: str, span) -> str | None:
    return None if span is None else src.encode("utf-8")[span.start:span.end].decode("utf-8")


def routes(f) -> list[tuple]:
    """(method, path, framework, router, prefix, handler) of every route."""
    return [(r.method, r.path, r.framework, r.router, r.prefix, r.handler) for r in f.routes]


def mounts(f) -> list[tuple]:
    """(parent, child, prefix, framework, unresolved) of every mount."""
    return [(m.parent, m.child, m.prefix, m.framework, m.unresolved) for m in f.mounts]


# --------------------------------------------------------------------------- Express


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_express_app_mounts_routers_imported_required_and_inline(grammar):
    src = (
        "const express = require('express');\n"
        "const users = require('./routes/users');\n"
        "const { postsRouter } = require('./routes/posts');\n"
        "const app = express();\n"
        "app.use(express.json());\n"
        "app.use(cors());\n"
        "app.use('/api/users', users);\n"
        "app.use('/api/posts', postsRouter);\n"
        "app.use('/api/tags', require('./routes/tags'));\n"
        "app.listen(3000);\n"
    )
    f = facts(src, grammar)
    assert mounts(f) == [
        ("app", "users", "/api/users", "express", None),
        ("app", "postsRouter", "/api/posts", "express", None),
        ("app", "require:./routes/tags", "/api/tags", "express", None),
    ]
    assert text_of(src, f.mounts[0].span) == "'/api/users'"
    assert f.calls == ()  # mounts are declarations, not HTTP calls


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_express_router_file_routes_know_their_router_and_handlers(grammar):
    src = (
        "import { Router } from 'express';\n"
        "import { remove } from './handlers';\n"
        "export const router = Router();\n"
        "router.get('/', list);\n"
        "router.get('/:id', (req, res) => res.json({}));\n"
        "router.post('/', asyncHandler(create));\n"
        "router.delete('/:id', remove);\n"
        "function list(req, res) {}\n"
        "const create = async (req, res) => {};\n"
        "export default router;\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/", "express", "router", "", "list"),
        ("GET", "/{id}", "express", "router", "", None),
        ("POST", "/", "express", "router", "", "create"),
        ("DELETE", "/{id}", "express", "router", "", "remove"),
    ]
    spans = [text_of(src, r.handler_span) for r in f.routes]
    assert spans == ["list", None, "create", None]  # `remove` is imported: defined elsewhere
    assert f.calls == ()


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_router_route_chains_give_one_route_per_method(grammar):
    src = (
        "const express = require('express');\n"
        "const router = express.Router();\n"
        "router.route('/items/:id').get(show).put(update).delete(remove);\n"
        "router.route(`/items`).get(list).post(create);\n"
        "function show() {}\n"
    )
    f = facts(src, grammar)
    assert [(r.method, r.path, r.handler) for r in f.routes] == [
        ("GET", "/items/{id}", "show"), ("PUT", "/items/{id}", "update"), ("DELETE", "/items/{id}", "remove"),
        ("GET", "/items", "list"), ("POST", "/items", "create"),
    ]
    assert {r.router for r in f.routes} == {"router"}
    assert text_of(src, f.routes[0].span) == "'/items/:id'"
    assert text_of(src, f.routes[0].handler_span) == "show"
    assert f.calls == ()


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_nested_routers_and_middleware_before_the_router(grammar):
    src = (
        "const express = require('express');\n"
        "const auth = require('./auth');\n"
        "const usersRouter = require('./users');\n"
        "const api = express.Router();\n"
        "const admin = express.Router();\n"
        "function requireAdmin(req, res, next) { next(); }\n"
        "api.use('/users', auth, rateLimit({ max: 5 }), usersRouter);\n"
        "api.use('/admin', requireAdmin, admin);\n"
        "admin.get('/stats', stats);\n"
        "api.use(auth);\n"                       # an imported middleware alone: a mount at ''
        "api.use('/ping', requireAdmin);\n"      # a handler defined here: no mount
        "api.use(function (req, res, next) { next(); });\n"
        "module.exports = api;\n"
    )
    f = facts(src, grammar)
    assert mounts(f) == [
        ("api", "usersRouter", "/users", "express", None),
        ("api", "admin", "/admin", "express", None),
        ("api", "auth", "", "express", None),
    ]
    assert routes(f) == [("GET", "/stats", "express", "admin", "", "stats")]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_a_mount_prefix_that_is_not_a_literal_is_unresolved(grammar):
    src = (
        "import express from 'express';\n"
        "import { API_PREFIX, config } from './config';\n"
        "import users from './users';\n"
        "import * as routes from './routes';\n"
        "const app = express();\n"
        "app.use(API_PREFIX, users);\n"
        "app.use(`${config.base}/v2`, routes.v2);\n"
        "app.use(config.basePath, routes.v3);\n"
        "app.use(/^\\/legacy/, users);\n"
        "app.use(['/a', '/b/:id'], users);\n"
        "app.use(`/v1`, routes.v1);\n"
    )
    f = facts(src, grammar)
    assert mounts(f) == [
        ("app", "users", "", "express", "prefix is not a literal: API_PREFIX"),
        ("app", "routes.v2", "", "express", "prefix is not a literal: `${config.base}/v2`"),
        ("app", "routes.v3", "", "express", "prefix is not a literal: config.basePath"),
        ("app", "users", "", "express", "prefix is a regular expression: /^\\/legacy/"),
        ("app", "users", "/a", "express", None),
        ("app", "users", "/b/{id}", "express", None),
        ("app", "routes.v1", "/v1", "express", None),
    ]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_a_factory_level_router_and_an_express_module_handed_the_app(grammar):
    src = (
        "import express from 'express';\n"
        "export function createUsersRouter(db) {\n"
        "  const users = express.Router();\n"
        "  const nested = express.Router();\n"
        "  function local(req, res) {}\n"
        "  users.get('/', local);\n"
        "  users.use('/nested', nested);\n"
        "  return users;\n"
        "}\n"
        "function local(req, res) {}\n"
        "module.exports = function (app) {\n"
        "  app.get('/health', local);\n"
        "};\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/", "express", "users", "", "local"),
        ("GET", "/health", "express", "default", "", "local"),
    ]
    # each handler is the `local` visible from its route
    assert [r.handler_span.start for r in f.routes] == [src.index("local(req"), src.index("local(req", 200)]
    assert mounts(f) == [("users", "nested", "/nested", "express", None)]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_a_frontend_apps_use_is_no_mount_and_clients_stay_calls(grammar):
    src = (
        "import { createApp } from 'vue';\n"
        "import router from './router';\n"
        "const app = createApp(App);\n"
        "app.use(router);\n"
        "export function load(instance, api) {\n"
        "  instance.get('/users', options);\n"
        "  return api.get('/users/1', options);\n"
        "}\n"
    )
    f = facts(src, grammar)
    assert f.mounts == () and f.routes == ()
    assert [c.callee for c in f.calls if c.callee.endswith(".get")] == ["instance.get", "api.get"]


# --------------------------------------------------------------------------- Fastify


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_fastify_app_registers_plugins_with_prefixes(grammar):
    src = (
        "import Fastify from 'fastify';\n"
        "import usersPlugin from './routes/users';\n"
        "import * as routes from './routes';\n"
        "const app = Fastify({ logger: true });\n"
        "app.register(usersPlugin, { prefix: '/users' });\n"
        "app.register(require('./routes/items'), { prefix: '/v1/items' });\n"
        "app.register(import('./routes/tags'));\n"
        "app.register(routes.orders, { prefix: ORDERS_PREFIX });\n"
        "app.register(routes.audit, options);\n"
        "app.register(cors, { ...corsOptions });\n"
        "app.get('/health', { schema: {} }, async () => ({ ok: true }));\n"
        "app.route({ method: ['GET', 'HEAD'], url: '/status/:id', handler: status });\n"
        "async function status() {}\n"
    )
    f = facts(src, grammar)
    assert mounts(f) == [
        ("app", "usersPlugin", "/users", "fastify", None),
        ("app", "require:./routes/items", "/v1/items", "fastify", None),
        ("app", "require:./routes/tags", "", "fastify", None),
        ("app", "routes.orders", "", "fastify", "prefix is not a literal: ORDERS_PREFIX"),
        ("app", "routes.audit", "", "fastify", "options are not a literal: options"),
        ("app", "cors", "", "fastify", "prefix may come from ...corsOptions"),
    ]
    assert routes(f) == [
        ("GET", "/health", "fastify", "app", "", None),
        ("GET", "/status/{id}", "fastify", "app", "", "status"),
        ("HEAD", "/status/{id}", "fastify", "app", "", "status"),
    ]
    assert text_of(src, f.routes[1].span) == "'/status/:id'"
    assert text_of(src, f.routes[1].handler_span) == "status"
    assert f.calls == ()


@pytest.mark.parametrize("grammar", GRAMMARS)
@pytest.mark.parametrize("head, router", [
    ("export default async function (fastify, opts) {", "default"),
    ("export default async (fastify, opts) => {", "default"),
    ("module.exports = async function (fastify, opts) {", "default"),
    ("module.exports = (fastify, opts, done) => {", "default"),
    ("export default async function usersPlugin(fastify) {", "usersPlugin"),
    ("export async function usersPlugin(fastify) {", "usersPlugin"),
    ("const usersPlugin = async (fastify) => {", "usersPlugin"),
])
def test_a_fastify_plugin_is_named_as_its_file_exports_it(grammar, head, router):
    src = (
        f"{head}\n"
        "  fastify.get('/', list);\n"
        "  fastify.post('/:id', { handler: update });\n"
        "  fastify.register(require('./comments'), { prefix: '/:id/comments' });\n"
        "}\n"
        "async function list() {}\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/", "fastify", router, "", "list"),
        ("POST", "/{id}", "fastify", router, "", "update"),
    ]
    assert text_of(src, f.routes[0].handler_span) == "list"
    assert mounts(f) == [(router, "require:./comments", "/{id}/comments", "fastify", None)]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_chained_shorthands_declare_every_route_of_the_chain(grammar):
    # Fastify, Express (app and router), koa-router and Hono return the instance from their
    # shorthands, so each link of the chain is a route on the same app or router
    src = (
        "const server = require('fastify')();\n"
        "server\n"
        "  .get('/ping', { schema: {} }, async () => 'pong')\n"
        "  .post('/echo', echo)\n"
        "  .delete('/echo/:id', { handler: drop });\n"
        "module.exports = function (fastify, opts, done) {\n"
        "  fastify.get('/', opts, listAll).put('/', opts, replaceAll);\n"
        "  done();\n"
        "};\n"
        "async function echo() {}\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/ping", "fastify", "server", "", None),
        ("POST", "/echo", "fastify", "server", "", "echo"),
        ("DELETE", "/echo/{id}", "fastify", "server", "", "drop"),
        ("GET", "/", "fastify", "default", "", "listAll"),
        ("PUT", "/", "fastify", "default", "", "replaceAll"),
    ]
    assert f.calls == ()
    src = (
        "import express from 'express';\n"
        "const router = express.Router();\n"
        "router.get('/books', listBooks).post('/books', addBook);\n"
        "router.route('/books/:id').get(showBook).patch(editBook);\n"
        "fetchJson('/books', opts).then(render);\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/books", "express", "router", "", "listBooks"),
        ("POST", "/books", "express", "router", "", "addBook"),
        ("GET", "/books/{id}", "express", "router", "", "showBook"),
        ("PATCH", "/books/{id}", "express", "router", "", "editBook"),
    ]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_register_options_named_by_a_module_level_const_object_give_its_prefix(grammar):
    src = (
        "const app = require('fastify')();\n"
        "const quiet = { logLevel: 'warn', schema: { hide: true } };\n"
        "const admin = { prefix: '/admin' };\n"
        "const fromEnv = { prefix: process.env.ADMIN_PREFIX };\n"
        "let later = { prefix: '/later' };\n"
        "app.register(require('./health'), quiet, (err) => { if (err) throw err; });\n"
        "app.register(require('./admin'), admin);\n"
        "app.register(require('./env'), fromEnv);\n"
        "app.register(require('./later'), later);\n"
        "app.register(require('./elsewhere'), imported);\n"
        "app.register(async (api) => { api.get('/me', me); }, admin);\n"
        "module.exports = async function (server, quiet) {\n"
        "  server.register(require('./inner'), quiet);\n"
        "};\n"
    )
    f = facts(src, grammar)
    assert mounts(f) == [
        ("app", "require:./health", "", "fastify", None),
        ("app", "require:./admin", "/admin", "fastify", None),
        ("app", "require:./env", "", "fastify", "prefix is not a literal: process.env.ADMIN_PREFIX"),
        ("app", "require:./later", "", "fastify", "options are not a literal: later"),
        ("app", "require:./elsewhere", "", "fastify", "options are not a literal: imported"),
        ("app", "app~admin", "/admin", "fastify", None),
        # a parameter named as the module constant is not it
        ("default", "require:./inner", "", "fastify", "options are not a literal: quiet"),
    ]
    assert routes(f) == [("GET", "/me", "fastify", "app~admin", "", "me")]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_inline_fastify_plugins_declare_on_their_parent_under_the_prefix(grammar):
    src = (
        "const fastify = require('fastify')({ logger: true });\n"
        "fastify.register(async (api) => {\n"
        "  api.get('/health', health);\n"
        "  api.register(async function (v1) {\n"
        "    v1.post('/items', createItem);\n"
        "  }, { prefix: '/v1' });\n"
        "  api.register(require('./users'), { prefix: '/users' });\n"
        "}, { prefix: '/api' });\n"
        "fastify.register(async (dyn) => { dyn.get('/x', x); }, { prefix: config.prefix });\n"
        "function health() {}\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/api/health", "fastify", "fastify", "/api", "health"),
        ("POST", "/api/v1/items", "fastify", "fastify", "/api/v1", "createItem"),
        ("GET", "/x", "fastify", "fastify~config_prefix", "", "x"),
    ]
    assert mounts(f) == [
        ("fastify", "require:./users", "/api/users", "fastify", None),
        ("fastify", "fastify~config_prefix", "", "fastify", "prefix is not a literal: config.prefix"),
    ]
    assert f.calls == ()


def test_typed_fastify_plugin_in_typescript():
    src = (
        "import type { FastifyInstance, FastifyPluginAsync } from 'fastify';\n"
        "export async function itemRoutes(app: FastifyInstance): Promise<void> {\n"
        "  app.get<{ Params: { id: string } }>('/items/:id', getItem);\n"
        "  app.route({ method: 'DELETE', url: '/items/:id', handler: deleteItem });\n"
        "}\n"
        "const getItem = async (req: any) => ({});\n"
        "function deleteItem() {}\n"
    )
    f = facts(src, "typescript")
    assert routes(f) == [
        ("GET", "/items/{id}", "fastify", "itemRoutes", "", "getItem"),
        ("DELETE", "/items/{id}", "fastify", "itemRoutes", "", "deleteItem"),
    ]
    assert [text_of(src, r.handler_span) for r in f.routes] == ["getItem", "deleteItem"]


# --------------------------------------------------------------------------- Koa and Hono


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_koa_routers_with_prefixes_named_routes_and_nested_routes(grammar):
    src = (
        "const Koa = require('koa');\n"
        "const Router = require('@koa/router');\n"
        "const users = require('./users');\n"
        "const app = new Koa();\n"
        "const router = new Router({ prefix: '/api' });\n"
        "const dyn = new Router({ prefix: PREFIX });\n"
        "router.get('user', '/users/:id', show);\n"
        "router.get('/', index);\n"
        "router.use('/users', users.routes(), users.allowedMethods());\n"
        "dyn.get('/d', show);\n"
        "app.use(router.routes());\n"
        "app.use(router.allowedMethods());\n"
        "app.use(bodyParser());\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/api/users/{id}", "koa", "router", "/api", "show"),
        ("GET", "/api", "koa", "router", "/api", "index"),
        ("GET", "/d", "koa", "dyn~PREFIX", "", "show"),
    ]
    assert mounts(f) == [
        ("dyn", "dyn~PREFIX", "", "koa", "prefix is not a literal: PREFIX"),
        ("router", "users", "/api/users", "koa", None),
        ("app", "router", "", "koa", None),
    ]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_hono_apps_with_a_base_path_and_sub_apps(grammar):
    src = (
        "import { Hono } from 'hono';\n"
        "import users from './users';\n"
        "const app = new Hono().basePath('/api');\n"
        "const books = new Hono();\n"
        "books.get('/:id', (c) => c.json({}));\n"
        "app.route('/users', users);\n"
        "app.route('/books', books);\n"
        "app.get('/health', health);\n"
        "app.use('*', logger());\n"
        "export default app;\n"
    )
    f = facts(src, grammar)
    assert routes(f) == [
        ("GET", "/{id}", "hono", "books", "", None),
        ("GET", "/api/health", "hono", "app", "/api", "health"),
    ]
    assert mounts(f) == [
        ("app", "users", "/api/users", "hono", None),
        ("app", "books", "/api/books", "hono", None),
    ]
    assert f.calls == ()


# --------------------------------------------------------------------------- composed across files


def composed(fixture: str) -> list[tuple[str, str, str, str | None]]:
    return [(c.method, c.path, c.file, c.unresolved) for c in compose_fixture(fixture)]


FASTIFY = """
//- src/app.js
const fastify = require('fastify')();
fastify.register(require('./routes/users'), { prefix: '/users' });
fastify.register(require('./routes/items'), { prefix: '/api' });
//- src/routes/users.js
module.exports = async function (fastify, opts) {
  fastify.get('/', list);
  fastify.register(require('./comments'), { prefix: '/:id/comments' });
};
async function list() {}
//- src/routes/comments.js
module.exports = async (app) => {
  app.post('/', async () => ({}));
};
//- src/routes/items.ts
import type { FastifyInstance } from 'fastify';
export default async function items(app: FastifyInstance) {
  app.register(async (v1) => {
    v1.get('/items/:id', async () => ({}));
  }, { prefix: '/v1' });
}
"""


def test_fastify_plugins_compose_through_register_prefixes():
    assert composed(FASTIFY) == [
        ("GET", "/api/v1/items/{id}", "src/routes/items.ts", None),
        ("GET", "/users", "src/routes/users.js", None),
        ("POST", "/users/{id}/comments", "src/routes/comments.js", None),
    ]


EXPRESS_TS = """
//- src/main.ts
import express from 'express';
import { authenticate } from './auth';
import users from './users';
const app = express();
app.use(express.json());
app.use('/api/users', authenticate, users);
app.use(API_BASE, users);
//- src/auth.ts
export function authenticate(req: any, res: any, next: any) { next(); }
//- src/users.ts
import { Router } from 'express';
const router = Router();
router.route('/').get(list).post(create);
router.get('/:id', show);
function list() {}
function create() {}
function show() {}
export default router;
"""


def test_express_routes_compose_with_middleware_and_an_unresolved_prefix():
    got = composed(EXPRESS_TS)
    assert [r for r in got if r[3] is None] == [
        ("GET", "/api/users", "src/users.ts", None),
        ("POST", "/api/users", "src/users.ts", None),
        ("GET", "/api/users/{id}", "src/users.ts", None),
    ]
    unresolved = [r for r in got if r[3] is not None]
    assert len(unresolved) == 3 and all("API_BASE" in r[3] for r in unresolved)


# --------------------------------------------------------------------------- incremental extraction

BACKEND = """const express = require('express');
const { usersRouter } = require('./users');
const app = express();
const router = express.Router();
app.use('/api', auth, usersRouter);
app.use(API_PREFIX, router);
router.get('/items/:id', show);
router.route('/items').get(list).post(create);
function show(req, res) {}
const list = (req, res) => {};
module.exports = async function (fastify) {
  fastify.register(async (api) => { api.get('/x', show); }, { prefix: '/api' });
  fastify.register(require('./items'), { prefix: PREFIX });
  fastify.register(require('./tags'), tagOptions);
};
const tagOptions = { prefix: '/tags' };
"""
PIECES = ["x", "'", "`", "(", ")", "{", "}", ";", "\n", "/", "function list() {}\n", "const router = Router();\n",
          "const tagOptions = {};\n", "let tagOptions = 1;\n",
          "app.use('/v2', require('./v2'));\n", "const { auth } = require('./auth');\n", "export default "]


def test_route_facts_stay_exact_under_incremental_edits():
    path = "server/app.js"
    assert_edits_stay_exact(path, BACKEND, PIECES)


def test_mounts_are_model_facts():
    f = facts("const app = require('express')();\napp.use('/x', require('./x'));\n")
    assert f.mounts and all(type(m) is RouteMount for m in f.mounts)


# --------------------------------------------------------------------------- paths that are not literals


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_route_paths_that_are_not_literals_are_unresolved_routes(grammar):
    src = (
        "const express = require('express');\n"
        "const { BASE } = require('./config');\n"
        "const USERS = '/users';\n"
        "const ITEM = USERS + '/:id';\n"
        "const router = express.Router();\n"
        "router.get(USERS, list);\n"                      # a module-level const: resolved
        "router.get(`${USERS}/:id/posts`, posts);\n"      # a template of one: resolved
        "router.put(ITEM, update);\n"                     # a const built of consts: resolved
        "router.get(BASE, list);\n"                       # imported: never guessed
        "router.post(`/teams/${BASE}/join`, join);\n"
        "router.delete(paths.item(), remove);\n"
        "function mount(prefix) {\n"
        "  router.get(prefix, list);\n"                   # a parameter, even named like a const
        "  const USERS = '/other';\n"
        "  router.get(USERS, list);\n"                    # a local const: not the module's
        "}\n"
        "function list() {}\n"
    )
    f = facts(src, grammar)
    assert [(r.method, r.path, r.handler, r.unresolved) for r in f.routes] == [
        ("GET", "/users", "list", None),
        ("GET", "/users/{id}/posts", "posts", None),
        ("PUT", "/users/{id}", "update", None),
        ("GET", "", "list", "path is the name BASE"),
        ("POST", "/teams/", "join", "path is a template literal"),
        ("DELETE", "", "remove", "path is computed by paths.item()"),
        ("GET", "", "list", "path is the name prefix"),
        ("GET", "", "list", "path is the name USERS"),
    ]
    assert text_of(src, f.routes[3].span) == "BASE"
    assert f.calls == ()  # route declarations, not HTTP calls


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_a_client_call_with_a_computed_url_stays_a_call(grammar):
    src = (
        "import axios from 'axios';\n"
        "const app = axios.create({ baseURL: '/api' });\n"
        "export const load = (id) => app.get(`/users/${id}`, options);\n"
    )
    f = facts(src, grammar)
    assert f.routes == ()
    assert "app.get" in [c.callee for c in f.calls]


def test_unresolved_routes_compose_unresolved_with_the_known_part():
    fixture = """
//- src/app.js
const express = require('express');
const users = require('./users');
const app = express();
app.use('/api', users);
//- src/users.js
const { Router } = require('express');
const { ADMIN } = require('./config');
const router = Router();
const ME = '/me';
router.get(ME, (req, res) => res.json({}));
router.get(`/users${ADMIN}`, (req, res) => res.json({}));
module.exports = router;
"""
    assert composed(fixture) == [
        ("GET", "/api/me", "src/users.js", None),
        ("GET", "/api/users", "src/users.js", "path is a template literal"),
    ]


NEST = """import { Controller, Get, Post } from '@nestjs/common';
const BASE = 'things';
@Controller(BASE)
export class ThingsController {
  @Get(':id')
  one() {}
  @Post(`${BASE}/:id`)
  two() {}
}
@Module({ controllers: [ThingsController], imports: [OtherModule] })
export class ThingsModule {}
"""
NEST_PIECES = ["x", "'", "`", "(", ")", "{", "}", ";", "\n", "@", "const BASE = 'stuff';\n", "@Get('/z')\n",
               "import { X } from '@nestjs/core';\n", "// @nestjs/\n"]


def test_nest_route_facts_stay_exact_under_incremental_edits():
    path = "src/things.controller.ts"
    assert_edits_stay_exact(path, NEST, NEST_PIECES)
    assert [r.path for r in extract(path, NEST).routes] == ["/things/{id}", "/things/things/{id}"]
