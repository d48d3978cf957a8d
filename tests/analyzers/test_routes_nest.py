"""NestJS routes with the real extractor, the one resolver and ``routes.compose``: controllers
under a global prefix (``main.ts``), RouterModule paths for a feature module's controllers
(``app.module.ts`` -> ``admin/admin.module.ts`` -> ``admin/reports.controller.ts``), modules
reached through imports across files, literal excludes, paths that are not literals, and
controllers no app reaches (unresolved, never guessed)."""

from __future__ import annotations

from specward.analyzers.contracts import parse_contract
from specward.analyzers.extract.ecma import extract_ecma
from specward.analyzers.routes import compose, drift

from fixtures import compose_fixture, split


def composed(fixture: str):
    return compose_fixture(fixture)

    return compose(facts, facts.get, resolve)


def table(got) -> list[tuple]:
    return [(c.method, c.path, c.file, c.route.handler, c.unresolved) for c in got]


SHOP = """
//- package.json
{ "name": "shop-api", "dependencies": { "@nestjs/common": "^10.0.0", "@nestjs/core": "^10.0.0" } }
//- src/main.ts
import { NestFactory } from '@nestjs/core';
import { RequestMethod } from '@nestjs/common';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { cors: true });
  app.setGlobalPrefix('api', {
    exclude: ['status', { path: 'orders/export', method: RequestMethod.GET }],
  });
  await app.listen(process.env.PORT ?? 3000);
}
bootstrap();
//- src/app.module.ts
import { Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { ConfigModule } from '@nestjs/config';
import { OrdersModule } from './orders/orders.module';
import { AdminModule } from './admin/admin.module';
import { StatusController } from './status.controller';
import { adminRoutes } from './admin/admin.routes';

@Module({
  imports: [ConfigModule.forRoot(), OrdersModule, AdminModule, RouterModule.register(adminRoutes)],
  controllers: [StatusController],
})
export class AppModule {}
//- src/status.controller.ts
import { Controller, Get } from '@nestjs/common';

@Controller()
export class StatusController {
  @Get('status')
  check() { return { ok: true }; }
}
//- src/orders/orders.module.ts
import { Module, forwardRef } from '@nestjs/common';
import { OrdersController } from './orders.controller';
import { PaymentsModule } from '../payments/payments.module';

@Module({ imports: [forwardRef(() => PaymentsModule)], controllers: [OrdersController] })
export class OrdersModule {}
//- src/orders/orders.controller.ts
import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';

const ITEMS = 'items';

@Controller('orders')
export class OrdersController {
  @Get()
  list() { return []; }

  @Get(':orderId')
  show(@Param('orderId') orderId: string) { return {}; }

  @Post()
  place(@Body() body: unknown) { return body; }

  @Patch(':orderId/cancel')
  cancel() {}

  @Get('export')
  exportAll() {}

  @Delete(`:orderId/${ITEMS}/:itemId`)
  dropItem() {}

  @Get(`${process.env.LEGACY_PATH}/:orderId`)
  legacy() {}
}
//- src/payments/payments.module.ts
import { Module } from '@nestjs/common';
import { PaymentsController } from './payments.controller';

@Module({ controllers: [PaymentsController] })
export class PaymentsModule {}
//- src/payments/payments.controller.ts
import { All, Controller } from '@nestjs/common';

@Controller({ path: 'payments/webhook' })
export class PaymentsController {
  @All()
  receive() {}
}
//- src/admin/admin.routes.ts
import { Routes } from '@nestjs/core';
import { AdminModule } from './admin.module';
import { ReportsModule } from './reports/reports.module';

export const adminRoutes: Routes = [
  { path: 'admin', module: AdminModule, children: [{ path: 'reports', module: ReportsModule }] },
];
//- src/admin/admin.module.ts
import { Module } from '@nestjs/common';
import { UsersAdminController } from './users-admin.controller';
import { ReportsModule } from './reports/reports.module';

@Module({ imports: [ReportsModule], controllers: [UsersAdminController] })
export class AdminModule {}
//- src/admin/users-admin.controller.ts
import { Controller, Get, Put } from '@nestjs/common';

@Controller('users')
export class UsersAdminController {
  @Get(':id')
  find() {}

  @Put(':id/roles')
  setRoles() {}
}
//- src/admin/reports/reports.module.ts
import { Module } from '@nestjs/common';
import { ReportsController } from './reports.controller';

@Module({ controllers: [ReportsController] })
export class ReportsModule {}
//- src/admin/reports/reports.controller.ts
import { Controller, Get } from '@nestjs/common';

@Controller('monthly')
export class ReportsController {
  @Get(':year/:month')
  monthly() {}
}
//- src/legacy/legacy.controller.ts
import { Controller, Get } from '@nestjs/common';

@Controller('legacy')
export class LegacyController {
  @Get()
  index() {}
}
"""


def test_controllers_compose_with_the_global_prefix_router_module_and_imports_across_files():
    got = [r for r in table(composed(SHOP)) if r[4] is None]
    assert got == [
        # RouterModule paths (the table in admin.routes.ts) for the admin module's own
        # controllers and for the reports module's (a child entry), under the global prefix
        ("GET", "/api/admin/reports/monthly/{year}/{month}", "src/admin/reports/reports.controller.ts",
         "ReportsController.monthly", None),
        ("GET", "/api/admin/users/{id}", "src/admin/users-admin.controller.ts", "UsersAdminController.find", None),
        ("PUT", "/api/admin/users/{id}/roles", "src/admin/users-admin.controller.ts",
         "UsersAdminController.setRoles", None),
        ("GET", "/api/orders", "src/orders/orders.controller.ts", "OrdersController.list", None),
        ("POST", "/api/orders", "src/orders/orders.controller.ts", "OrdersController.place", None),
        ("GET", "/api/orders/{orderId}", "src/orders/orders.controller.ts", "OrdersController.show", None),
        ("PATCH", "/api/orders/{orderId}/cancel", "src/orders/orders.controller.ts", "OrdersController.cancel", None),
        # a module-level const string in the same file resolves the template
        ("DELETE", "/api/orders/{orderId}/items/{itemId}", "src/orders/orders.controller.ts",
         "OrdersController.dropItem", None),
        ("ANY", "/api/payments/webhook", "src/payments/payments.controller.ts", "PaymentsController.receive", None),
        # excluded from the global prefix: a plain path, and a path with its method
        ("GET", "/orders/export", "src/orders/orders.controller.ts", "OrdersController.exportAll", None),
        ("GET", "/status", "src/status.controller.ts", "StatusController.check", None),
    ]


def test_unresolved_routes_say_why_and_are_never_guessed():
    got = {(r[0], r[1]): r[4] for r in table(composed(SHOP)) if r[4] is not None}
    assert got == {
        ("GET", "/legacy"): "LegacyController is in no module the app's root module AppModule (src/main.ts) "
                            "reaches through its imports",
        ("GET", "/api/orders"): "path is a template literal",
    }


def test_steps_name_the_files_that_add_each_piece():
    c = next(c for c in composed(SHOP) if c.route.handler == "OrdersController.show")
    assert [(s.text, s.file, s.kind) for s in c.steps] == [
        ("/api", "src/main.ts", "mount"), ("/orders", "src/orders/orders.controller.ts", "router"),
        ("/{orderId}", "src/orders/orders.controller.ts", "route"),
    ]
    r = next(c for c in composed(SHOP) if c.route.handler == "ReportsController.monthly")
    assert [(s.text, s.file) for s in r.steps][:2] == [("/api", "src/main.ts"),
                                                      ("/admin/reports", "src/admin/admin.routes.ts")]


def test_handler_span_is_the_methods_name():
    files = split(SHOP)
    src = files["src/orders/orders.controller.ts"]
    f = extract_ecma("src/orders/orders.controller.ts", src, "typescript")
    show = next(r for r in f.routes if r.handler == "OrdersController.show")
    assert src.encode()[show.handler_span.start:show.handler_span.end] == b"show"
    assert src.encode()[show.span.start:show.span.end] == b"':orderId'"
    assert f.calls == ()  # decorators are declarations, not HTTP calls


def test_drift_matches_a_contract_with_other_parameter_names():
    contract = parse_contract("openapi.yaml", """openapi: 3.0.0
info: {title: shop, version: '1'}
paths:
  /api/orders/{id}:
    get: {responses: {'200': {description: ok}}}
  /api/orders:
    get: {responses: {'200': {description: ok}}}
    post: {responses: {'200': {description: ok}}}
""")
    findings = drift(composed(SHOP), list(contract.endpoints))
    # `{id}` in the contract is the route's `{orderId}`; nothing unimplemented is claimed
    # while some route's path is unresolved
    assert [f.code for f in findings if f.code != "undeclared-route"] == []
    undeclared = {dict(f.data)["path"] for f in findings if f.code == "undeclared-route"}
    assert "/api/orders/{orderId}" not in undeclared and "/api/orders/{orderId}/cancel" in undeclared


def test_a_global_prefix_that_is_not_a_literal_and_no_app_at_all():
    fixture = """
//- src/main.ts
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { settings } from './settings';
async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix(settings.prefix);
}
//- src/app.module.ts
import { Module } from '@nestjs/common';
import { CatsController } from './cats.controller';
@Module({ controllers: [CatsController] })
export class AppModule {}
//- src/cats.controller.ts
import { Controller, Get } from '@nestjs/common';
@Controller('cats')
export class CatsController { @Get() all() {} }
"""
    assert table(composed(fixture)) == [
        ("GET", "/cats", "src/cats.controller.ts", "CatsController.all",
         "the global prefix is the name settings.prefix"),
    ]
    alone = {k: v for k, v in split(fixture).items() if k != "src/main.ts"}
    no_app = "".join(f"//- {k}\n{v}" for k, v in alone.items())
    assert [r[4] for r in table(composed(no_app))] == [
        "no NestFactory.create() in the workspace: the app's global prefix is not known"]


def test_a_controller_path_from_a_constant_and_a_version():
    src = (
        "import { Controller, Get, Version } from '@nestjs/common';\n"
        "import { BASE } from './paths';\n"
        "const LOCAL = 'local';\n"
        "@Controller(LOCAL)\n"
        "export class A { @Get(':id') one() {} @Version('2') @Get('v') two() {} }\n"
        "@Controller(BASE)\n"
        "export class B { @Get() three() {} }\n"
        "@Controller({ path: 'c', version: '1' })\n"
        "export class C { @Get() four() {} }\n"
    )
    f = extract_ecma("src/x.controller.ts", src, "typescript")
    assert [(r.path, r.prefix, r.unresolved) for r in f.routes] == [
        ("/local/{id}", "/local", None),
        # versioned: unresolved whatever its path (only the literal part is kept)
        ("/v", "", "the method has a @Version(): URI versioning adds a segment when the app enables it"),
        ("/", "", "controller path is the name BASE"),  # imported: not this file's constant
        ("/c", "/c", "the controller's version '1': URI versioning adds a segment when the app enables it"),
    ]
