"""Architecture invariants on fixture trees, through the registered analysis (the real
extractor and the one resolver): layers, forbidden, independence, indirect chains, ignored
imports, path patterns for JavaScript and external packages."""

from __future__ import annotations

from specward.analyzers.analyses import AnalysisInput, Context, analyze
from specward.analyzers.extract import extract
from specward.analyzers.invariants import Rule, matches, module_names
from specward.analyzers.languages import language_of
from specward.analyzers.resolve import ResolverConfig, is_resolver_config

from fixtures import split

SHOP = """
//- shop/api/routes.py
from shop.services import checkout
//- shop/services/checkout.py
from shop.domain.order import Order
//- shop/domain/order.py
import requests
from shop.api import routes
//- shop/domain/price.py
from shop.util.helpers import money
//- shop/domain/tax.py
from shop.domain import price
//- shop/util/helpers.py
from shop.util import deeper
//- shop/util/deeper.py
from shop.services.checkout import place
//- shop/billing/invoice.py
from shop.shipping.label import make
//- shop/shipping/label.py
def make(): pass
"""

LAYERS = Rule("layers", "layers", layers=(("shop.api",), ("shop.services",), ("shop.domain",)))


def violations(fixture: str, *rules: Rule) -> list[tuple[str, str, str]]:
    """(file, rule id, message) of every invariant-violation."""
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if language_of(p)}
    config = ResolverConfig.build({p: t for p, t in files.items() if is_resolver_config(p)})
    inputs = AnalysisInput(files=frozenset(p for p in files if p not in facts), invariants=rules)
    ctx = Context(inputs, facts.get, config)
    out = []
    for path in sorted(facts):
        found, _ = analyze(facts[path], ctx)
        out += [(f.file, dict(f.data)["rule"], f.message) for f in found if f.code == "invariant-violation"]
    return out


def test_a_lower_layer_importing_a_higher_one_directly_or_through_unlayered_modules():
    assert violations(SHOP, LAYERS) == [
        ("shop/domain/order.py", "layers", "[layers] shop.domain.order must not import shop.api: shop.api is a higher layer"),
        ("shop/domain/price.py", "layers", "[layers] shop.domain.price must not import shop.services through "
                                          "shop.util.helpers -> shop.util.deeper -> shop.services.checkout: "
                                          "shop.services is a higher layer"),
    ]  # tax.py reaches services only through price.py, a module of a layer: judged there


def test_direct_only_independence_and_a_forbidden_external_package():
    direct = Rule("layers", "layers", layers=LAYERS.layers, indirect=False)
    indep = Rule("features", "independence", modules=("shop.billing", "shop.shipping"))
    pure = Rule("pure", "forbidden", sources=("shop.domain",), targets=("requests",), name="Domain is pure")
    found = violations(SHOP, direct, indep, pure)
    assert [(f, r) for f, r, _ in found] == [("shop/billing/invoice.py", "features"), ("shop/domain/order.py", "pure"),
                                              ("shop/domain/order.py", "layers")]  # in the order of the imports
    assert found[1][2] == "[pure] (Domain is pure) shop.domain.order must not import requests: requests is forbidden to shop.domain"


def test_an_ignored_import_edge_breaks_the_chain():
    rule = Rule("layers", "layers", layers=LAYERS.layers, ignore=(("shop.util.deeper", "shop.services.**"),))
    assert [f for f, _, _ in violations(SHOP, rule)] == ["shop/domain/order.py"]


def test_independent_siblings_of_a_layer_and_path_patterns_for_typescript():
    fixture = """
    //- web/src/pages/board.ts
    import { cards } from '../features/cards/list';
    export const board = cards;
    //- web/src/features/cards/list.ts
    import { rows } from '../../db/client';
    import { user } from '../users/me';
    export const cards = [rows, user];
    //- web/src/features/users/me.ts
    export const user = 1;
    //- web/src/db/client.ts
    export const rows = [];
    """
    rule = Rule("web", "layers", layers=(("web/src/pages",), ("web/src/features/cards", "web/src/features/users")),
                independent=(False, True))
    no_db = Rule("no-db-in-ui", "forbidden", sources=("web/src/pages",), targets=("web/src/db",))
    found = violations(fixture, rule, no_db)
    assert found == [
        ("web/src/features/cards/list.ts", "web", "[web] web/src/features/cards/list.ts must not import "
                                                  "web/src/features/users: web/src/features/users is an independent sibling in its layer"),
        # the forbidden rule does not name the features: its chain goes through them
        ("web/src/pages/board.ts", "no-db-in-ui", "[no-db-in-ui] web/src/pages/board.ts must not import web/src/db "
                                                  "through web/src/features/cards/list.ts -> web/src/db/client.ts: "
                                                  "web/src/db is forbidden to web/src/pages"),
    ]


def test_patterns_name_modules_files_and_packages():
    assert module_names("src/shop/api/__init__.py") == ("src.shop.api", "shop.api", "src/shop/api/__init__.py")
    assert matches("shop.api", "src/shop/api/routes.py")
    assert matches("shop.*.routes", "shop/api/routes.py") and not matches("shop.*.routes", "shop/api/v1/routes.py")
    assert matches("shop.**.routes", "shop/api/v1/routes.py")
    assert not matches("shop.api", "shop/apis/x.py")
    assert matches("web/src/db", "web/src/db/client.ts") and matches("web/src/**/*.server.ts", "web/src/a/b.server.ts")
    assert matches("requests", None, "requests.adapters") and matches("@acme/db", None, "@acme/db")
    assert not matches("requests", None, "requests_oauthlib")


def test_a_required_symbol_must_be_defined_by_the_module_itself():
    fixture = """
    //- app/config/payment.py
    from app.config.defaults import TIMEOUT_S
    RETRY_COUNT = 3
    //- app/config/payment/extra.py
    VALUE = 1
    //- app/config/defaults.py
    TIMEOUT_S = 10
    //- web/src/config/limits.ts
    export const retryCount = 3;
    export { windowMs } from './window';
    //- web/src/config/window.ts
    export const windowMs = 1000;
    //- web/src/config/all.ts
    export * from './limits';
    """
    rules = (Rule("pay", "required-symbol", modules=("app.config.payment",), symbols=("RETRY_COUNT", "TIMEOUT_S", "CURRENCY")),
             Rule("limits", "required-symbol", modules=("web/src/config/limits",), symbols=("retryCount", "windowMs", "burst")),
             Rule("all", "required-symbol", modules=("web/src/config/all.ts",), symbols=("anything",)))
    assert violations(fixture, *rules) == [
        ("app/config/payment.py", "pay", "[pay] app.config.payment must define CURRENCY"),
        ("web/src/config/limits.ts", "limits", "[limits] web/src/config/limits.ts must define burst"),
    ]  # an imported name is a Python module attribute; `export *` cannot be known; a submodule is not the module


def test_imports_resolve_restates_the_phantom_imports_of_the_files_it_names():
    fixture = """
    //- web/src/core/boot.ts
    import { start } from './startt';
    import { ready } from '../ui/ready';
    //- web/src/ui/ready.ts
    import { nope } from './gone';
    export const ready = 1;
    //- web/src/core/start.ts
    export const start = 1;
    """
    rule = Rule("core-resolves", "imports-resolve", sources=("web/src/core",))
    assert violations(fixture, rule) == [
        ("web/src/core/boot.ts", "core-resolves",
         "[core-resolves] every import of web/src/core/boot.ts must resolve: './startt' cannot be found"),
    ]
