"""The rules judged on function bodies (``analyzers/body_rules.py``): ``pure`` (no
side-effect API called by a function marked pure, directly or through a helper of the same
file) and ``no-hardcoded-config`` (no literal inside a function repeating a value of the
config module), in Python and TypeScript, through the registered analysis (the real
extractor's imports, a text reader as the index gives one)."""

from __future__ import annotations

import random

import pytest

from specward.analyzers.analyses import ANALYSES, AnalysisInput, Context, analyze, text_readers
from specward.analyzers.body_rules import check_body_rules, config_candidates, config_values, governed
from specward.analyzers.extract import extract
from specward.analyzers.invariants import Rule
from specward.analyzers.languages import language_of
from specward.analyzers.resolve import ResolverConfig

from fixtures import split


def judge(fixture: str, *rules: Rule, text=None) -> list[tuple[str, str, str]]:
    """(file, the text at the finding's span, message) of every invariant-violation of
    the body rules."""
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if language_of(p)}
    inputs = AnalysisInput(sources=frozenset(facts), invariants=rules)
    ctx = Context(inputs, facts.get, ResolverConfig.build({}), text=text or files.get)
    out = []
    for path in sorted(facts):
        found, _ = analyze(facts[path], ctx)
        for f in found:
            if f.code == "invariant-violation" and dict(f.data)["rule"] in {r.id for r in rules}:
                src = files[path].encode()
                out.append((f.file, src[f.span.start:f.span.end].decode(), f.message))
    return out


# ---------------------------------------------------------------------- pure

PURE = Rule("pure-domain", "pure", modules=("shop.domain",))

PYTHON_DOMAIN = """
//- shop/domain/prices.py
import logging
import requests as http
from requests import get
from shop.util import fmt

def _log(message):
    print(message)

def _audit(message):
    _log(message)

@pure
def total(items):
    _audit("total")
    return sum(items)

def discount(price):
    '''The discounted price.

    @pure
    '''
    get("https://rates.example.com")
    http.post("https://audit.example.com")
    return price * 0.9

@fp.pure()
def tax(price):
    return fmt(price * 0.2)

def not_marked(price):
    print(price)
    return price

class Basket:
    @pure
    def size(self):
        self._trace()
        return 0

    def _trace(self):
        logging.info("size")
//- shop/util.py
def fmt(x):
    print(x)
    return str(x)
//- shop/api/routes.py
@pure
def handler():
    print("not in the rule's modules")
"""


def test_python_pure_functions_by_decorator_and_docstring_tag_through_helpers_and_aliases():
    assert judge(PYTHON_DOMAIN, PURE) == [
        ("shop/domain/prices.py", "_audit",
         "[pure-domain] total is pure but has a side effect: print through _audit -> _log -> print"),
        ("shop/domain/prices.py", "get", "[pure-domain] discount is pure but has a side effect: requests.get"),
        ("shop/domain/prices.py", "http.post", "[pure-domain] discount is pure but has a side effect: requests.post"),
        ("shop/domain/prices.py", "self._trace",
         "[pure-domain] size is pure but has a side effect: logging.info through _trace -> logging.info"),
    ]  # tax() calls a helper of another file: not followed; not_marked is not pure


def test_all_functions_a_custom_marker_and_custom_effects():
    everything = Rule("all", "pure", modules=("shop.domain",), all_functions=True, effects=("print",))
    found = judge(PYTHON_DOMAIN, everything)
    assert [(s, m.split(": ", 1)[1]) for _, s, m in found] == [
        ("print", "print"), ("_log", "print through _log -> print"),
        ("_audit", "print through _audit -> _log -> print"),
        ("print", "print")]  # _log, _audit, total, not_marked; requests and logging are not effects here
    pure_fn = Rule("fp", "pure", modules=("shop.domain",), marker="fp.pure")
    assert judge(PYTHON_DOMAIN, pure_fn) == []  # tax is marked, and calls nothing of this file with an effect
    other = Rule("other", "pure", modules=("shop.domain",), marker="total")
    assert judge(PYTHON_DOMAIN, other) == []  # a function's name is no marker


TYPESCRIPT_DOMAIN = """
//- web/src/domain/cart.ts
import * as fs from 'node:fs';
import { readFile as read } from 'fs/promises';
import axios from 'axios';
import { format } from './format';

const trace = (message: string) => console.log(message);

function audit(message: string) {
  trace(message);
}

/** Sums the lines. @pure */
export function total(lines: number[]): number {
  audit('total');
  return lines.reduce((a, b) => a + b, 0);
}

/**
 * @pure
 */
export const load = async (path: string) => {
  const text = await read(path);
  fs.writeFileSync(path, text);
  [1, 2].forEach((n) => fetch(`/api/${n}`));
  return format(text);
};

export function notMarked() {
  console.log('free to log');
}

export class Cart {
  @pure
  size(): number {
    this.log();
    return axios.defaults ? 1 : 0;
  }

  log() {
    axios.post('/log');
  }
}
//- web/src/domain/format.ts
export function format(x: string) { console.log(x); return x; }
"""


def test_typescript_pure_functions_by_jsdoc_and_decorator_through_helpers_and_aliases():
    rule = Rule("pure-web", "pure", modules=("web/src/domain/cart.ts",))
    assert judge(TYPESCRIPT_DOMAIN, rule) == [
        ("web/src/domain/cart.ts", "audit",
         "[pure-web] total is pure but has a side effect: console.log through audit -> trace -> console.log"),
        ("web/src/domain/cart.ts", "read", "[pure-web] load is pure but has a side effect: fs.promises.readFile"),
        ("web/src/domain/cart.ts", "fs.writeFileSync",
         "[pure-web] load is pure but has a side effect: fs.writeFileSync"),
        ("web/src/domain/cart.ts", "fetch", "[pure-web] load is pure but has a side effect: fetch"),
        ("web/src/domain/cart.ts", "this.log",
         "[pure-web] size is pure but has a side effect: axios.post through log -> axios.post"),
    ]


def test_a_pure_rule_in_javascript_and_a_vue_component():
    fixture = """
    //- lib/math.js
    const fs = require('fs');
    /** @pure */
    function area(r) { fs.appendFileSync('log', String(r)); return 3.14 * r * r; }
    //- lib/Counter.vue
    <template><p>{{ n }}</p></template>
    <script setup lang="ts">
    /** @pure */
    function double(n: number) { console.info(n); return 2 * n }
    </script>
    """
    rule = Rule("pure-lib", "pure", modules=("lib/**",))
    assert [(f, s) for f, s, _ in judge(fixture, rule)] == [("lib/Counter.vue", "console.info"),
                                                            ("lib/math.js", "fs.appendFileSync")]


# ---------------------------------------------------------------------- no-hardcoded-config

TS_CONFIG = """
//- src/config/paymentConfig.ts
export const paymentConfig = {
  retryCount: 3,
  gateway: 'https://pay.example.com',
  enabled: true,
  backoff: { firstMs: 250 },
  zero: 0,
} as const;
//- src/payments/charge.ts
import { paymentConfig } from '../config/paymentConfig';

const MODULE_LEVEL = 3;
type Attempts = { max: 3 };

export async function charge(amount: number, attempts = 3): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await fetch('https://pay.example.com', { method: 'POST' });
  }
  const table = { 3: 'three', 'https://pay.example.com': 1 };
  table[3];
  wait(250, -3, 0x3, 3.5, `https://pay.example.com/${amount}`, 'https:\\/\\/pay.example.com');
  const later = () => paymentConfig.retryCount + 3;
}
"""

TS_RULE = Rule("payment-config", "no-hardcoded-config", config="src/config/paymentConfig.ts",
               keys=("retryCount", "gateway", "enabled", "firstMs", "zero"))


def test_typescript_literals_that_duplicate_config_values_inside_functions():
    where = "read it from src/config/paymentConfig.ts"
    assert judge(TS_CONFIG, TS_RULE) == [
        ("src/payments/charge.ts", "3", f"[payment-config] 3 duplicates paymentConfig.retryCount: {where}"),
        ("src/payments/charge.ts", "3", f"[payment-config] 3 duplicates paymentConfig.retryCount: {where}"),
        ("src/payments/charge.ts", "'https://pay.example.com'",
         f"[payment-config] 'https://pay.example.com' duplicates paymentConfig.gateway: {where}"),
        ("src/payments/charge.ts", "250", f"[payment-config] 250 duplicates paymentConfig.backoff.firstMs: {where}"),
        ("src/payments/charge.ts", "3", f"[payment-config] 3 duplicates paymentConfig.retryCount: {where}"),
    ]  # the default `attempts = 3`, `i < 3`, the URL, 250, in the arrow function; not at module level, in a
    # type, an object key, a subscript, -3, hex, a template with a substitution, a string with escapes; true and 0


def test_python_config_module_values_and_the_literals_that_repeat_them():
    fixture = """
    //- app/settings.py
    RETRIES = 3
    API_URL: str = "https://api.example.com"
    DEBUG = False
    LIMITS = {"page_size": 50, "nested": {"timeout": 2.5}}

    class Payment:
        currency = "EUR"
    //- app/jobs.py
    from app import settings

    BATCH = 50

    def sync(page_size=50) -> None:
        '''Runs 3 times.'''
        for attempt in range(3):
            fetch("https://api.example.com", timeout=2.50)
        rows = {"page_size": 1}
        convert(rows["EUR"], "EUR", f"{3}", b"EUR", -3, 0o3)
        return [lambda: 50]
    //- app/settings_test.py
    def check():
        assert 3 == 3
    """
    rule = Rule("settings", "no-hardcoded-config", config="app.settings",
                keys=("RETRIES", "API_URL", "DEBUG", "page_size", "timeout", "currency"), modules=("app/jobs.py",))
    assert [(s, m) for _, s, m in judge(fixture, rule)] == [
        ("50", '[settings] 50 duplicates LIMITS["page_size"]: read it from app.settings'),
        ("3", "[settings] 3 duplicates settings.RETRIES: read it from app.settings"),
        ('"https://api.example.com"', '[settings] "https://api.example.com" duplicates settings.API_URL: '
                                      "read it from app.settings"),
        ("2.50", '[settings] 2.50 duplicates LIMITS["nested"]["timeout"]: read it from app.settings'),
        ('"EUR"', "[settings] \"EUR\" duplicates Payment.currency: read it from app.settings"),
        ("3", "[settings] 3 duplicates settings.RETRIES: read it from app.settings"),  # in the f-string's code
        ("50", '[settings] 50 duplicates LIMITS["page_size"]: read it from app.settings'),
    ]  # not: the module-level BATCH, the docstring, a dictionary key, a subscript, bytes, -3, octal;
    # settings_test.py is not in the rule's modules


def test_config_values_read_from_both_languages():
    ts = config_values("src/config/payment.ts", (
        "const RETRIES = 4;\n"
        "export const retryCount = 3;\n"
        "export const payment = Object.freeze({ RETRIES, region: 'eu', nested: { deep: { tooDeep: 1 } } });\n"
        "export default { timeoutMs: 5000, label: `plain`, negative: -2 } satisfies Config;\n"))
    assert [(v.path, v.shown, v.value) for v in ts] == [
        (("RETRIES",), "payment.RETRIES", ("n", 4)),
        (("retryCount",), "payment.retryCount", ("n", 3)),
        (("payment", "RETRIES"), "payment.RETRIES", ("n", 4)),
        (("payment", "region"), "payment.region", ("s", "eu")),
        (("default", "timeoutMs"), "payment.timeoutMs", ("n", 5000)),
        (("default", "label"), "payment.label", ("s", "plain")),
        (("default", "negative"), "payment.negative", ("n", -2)),
    ]
    cjs = config_values("config/index.js", "module.exports = { port: 8080, host: 'db', 'max-conn': 1e3 };\n")
    assert [(v.shown, v.value) for v in cjs] == [("config.port", ("n", 8080)), ("config.host", ("s", "db")),
                                                 ("config.max-conn", ("n", 1000))]
    py = config_values("app/config/__init__.py", (
        "import os\nRETRIES = 0x10\nNAME = 'a\\tb'\nFLAG = True\nURL = os.environ['URL']\n"
        "CONFIG = dict(a=1)\n\n@dataclass\nclass Db:\n    port: int = 5432\n"))
    assert [(v.shown, v.value) for v in py] == [("config.RETRIES", ("n", 16)), ("config.NAME", ("s", "a\tb")),
                                                ("config.FLAG", ("b", True)), ("Db.port", ("n", 5432))]


def test_trivial_values_are_never_flagged_and_keys_can_be_paths():
    fixture = """
    //- src/config.ts
    export const limits = { none: 0, one: 1, minus: -1, empty: '', on: true, retries: 3 };
    export const other = { retries: 5 };
    //- src/use.ts
    export function f() { return [0, 1, -1, '', true, 3, 5]; }
    """
    all_keys = Rule("c", "no-hardcoded-config", config="src/config.ts", keys=("none", "one", "minus", "empty", "on"))
    assert judge(fixture, all_keys) == []
    path_key = Rule("c", "no-hardcoded-config", config="src/config.ts", keys=("other.retries",))
    assert [s for _, s, _ in judge(fixture, path_key)] == ["5"]
    both = Rule("c", "no-hardcoded-config", config="src/config.ts", keys=("retries",))
    assert [s for _, s, _ in judge(fixture, both)] == ["3", "5"]


def test_only_files_of_the_config_modules_language_and_modules_are_judged():
    fixture = """
    //- src/config.ts
    export const retryCount = 7;
    //- src/a.ts
    export function a() { return 7; }
    //- src/b/b.ts
    export function b() { return 7; }
    //- tools/c.py
    def c():
        return 7
    //- src/config.d.ts
    export declare function d(x: 7): void;
    """
    anywhere = Rule("c", "no-hardcoded-config", config="src/config.ts", keys=("retryCount",))
    assert [f for f, _, _ in judge(fixture, anywhere)] == ["src/a.ts", "src/b/b.ts"]
    below = Rule("c", "no-hardcoded-config", config="src/config.ts", keys=("retryCount",), modules=("src/b",))
    assert [f for f, _, _ in judge(fixture, below)] == ["src/b/b.ts"]
    extensionless = Rule("c", "no-hardcoded-config", config="src/config", keys=("retryCount",))
    assert [f for f, _, _ in judge(fixture, extensionless)] == ["src/a.ts", "src/b/b.ts"]


# ---------------------------------------------------------------------- the analysis

def test_edges_are_the_file_and_the_config_module_and_no_text_judges_nothing():
    files = split(TS_CONFIG)
    path = "src/payments/charge.ts"
    facts = extract(path, files[path])
    exists = {"src/config/paymentConfig.ts", path}.__contains__
    found, edges = check_body_rules(path, facts.imports, (TS_RULE,), files.get, exists)
    assert len(found) == 5 and edges == {path, "src/config/paymentConfig.ts"}
    assert check_body_rules(path, facts.imports, (TS_RULE,), None, exists) == ((), {path})
    assert check_body_rules(path, facts.imports, (TS_RULE,), lambda p: None, exists) == ((), {path})
    # the config module is missing: its candidates are edges (one appearing judges the file again)
    missing = Rule("m", "no-hardcoded-config", config="src/settings", keys=("x",))
    found, edges = check_body_rules(path, facts.imports, (missing,), files.get, exists)
    assert found == () and edges == {path, *config_candidates("src/settings")}
    assert config_candidates("app.settings") == ("app/settings.py", "app/settings/__init__.py",
                                                 "src/app/settings.py", "src/app/settings/__init__.py")


def test_the_gate_costs_nothing_without_a_body_rule():
    assert [a.name for a in ANALYSES][-1] == "body-rules"
    assert text_readers(["src/a.ts"], AnalysisInput()) == set()
    layers = Rule("l", "layers", layers=(("a",), ("b",)))
    assert text_readers(["src/a.ts"], AnalysisInput(invariants=(layers,))) == set()
    assert text_readers(["src/a.ts", "app/b.py"], AnalysisInput(invariants=(TS_RULE,))) == {"src/a.ts"}
    assert not governed("src/config/paymentConfig.ts", (TS_RULE,))  # the config module itself
    assert not governed("app/x.py", (TS_RULE,))  # another language
    assert not governed("src/types.d.ts", (TS_RULE,))

    calls: list[str] = []

    def text(p: str) -> str | None:
        calls.append(p)
        return None
    facts = extract("src/a.ts", "export function a() { return 3; }\n")
    ctx = Context(AnalysisInput(invariants=(PURE,)), {}.get, ResolverConfig.build({}), text=text)
    analyze(facts, ctx)
    assert calls == []  # src/a.ts is not in the pure rule's modules: its text is never read


@pytest.mark.parametrize("path", ["shop/domain/x.py", "web/x.ts", "web/x.tsx", "web/x.js", "web/x.vue"])
def test_garbage_text_does_not_raise(path: str):
    rng = random.Random(7)
    rules = (Rule("p", "pure", modules=("shop.domain", "web"), all_functions=True),
             Rule("c", "no-hardcoded-config", config="web/config.ts", keys=("a",)),
             Rule("d", "no-hardcoded-config", config="shop.config", keys=("a",)))
    config = {"web/config.ts": "export const a = 'x';\n", "shop/config.py": "a = 'x'\n"}
    for _ in range(30):
        garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))).decode("utf-8", "surrogateescape")
        garbage += "\ndef f(:\n  'x' \udcff function g() { 'x'; @pure\n"
        texts = {**config, path: garbage}
        found, _ = check_body_rules(path, (), rules, texts.get, texts.__contains__)
        assert all(f.code == "invariant-violation" for f in found)
    assert config_values("web/config.ts", "\udcff export const = {{{ 'a\n") == []
