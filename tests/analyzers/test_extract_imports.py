"""The import and export facts the import checks read, in every language specward extracts.

Each JavaScript/TypeScript form runs in a ``.ts``, ``.tsx`` and ``.js`` file and in the
``<script>`` block of a Vue and a Svelte component (where the form's syntax allows it), and
its facts are compared field by field; spans are checked by slicing the file's UTF-8 bytes
(the components have non-ASCII text before the script, so a span off by the block's offset
or counted in characters fails).
"""

from __future__ import annotations

import random

import pytest

from specward.analyzers import languages
from specward.analyzers.extract import extract, extract_edited
from specward.analyzers.model import Span

# --------------------------------------------------------------------------- helpers

VUE_HEAD = "<template>\n  <h1>Größe: {{ size }}</h1>\n</template>\n\n"
SVELTE_HEAD = "<!-- Übersicht der Bestellungen -->\n"

# where a form is written: the file name and how the code is wrapped
WHERE = {
    "ts": ("src/orders.ts", "", ""),
    "tsx": ("src/Orders.tsx", "", ""),
    "js": ("src/orders.js", "", ""),
    "vue": ("src/Orders.vue", VUE_HEAD + "<script>\n", "</script>\n"),
    "vue-ts": ("src/Orders.vue", VUE_HEAD + '<script setup lang="ts">\n', "</script>\n"),
    "svelte": ("src/Orders.svelte", SVELTE_HEAD + "<script>\n", "</script>\n\n<p>{total}</p>\n"),
    "svelte-ts": ("src/Orders.svelte", SVELTE_HEAD + '<script lang="ts">\n', "</script>\n\n<p>{total}</p>\n"),
}
ANY = ["ts", "tsx", "js", "vue", "svelte-ts"]  # both grammars, both component kinds
TYPED = ["ts", "tsx", "vue-ts", "svelte-ts"]  # TypeScript syntax only


def facts_of(where: str, code: str):
    path, head, tail = WHERE[where]
    text = head + code + tail
    return extract(path, text), text.encode("utf-8")


def cut(data: bytes, span: Span | None) -> str | None:
    return None if span is None else data[span.start:span.end].decode("utf-8")


def imports(where: str, code: str) -> list[tuple]:
    """(module, name, local, kind, guarded, text of span, text of module_span) per import."""
    facts, data = facts_of(where, code)
    return [(i.module, i.name, i.local, i.kind, i.guarded, cut(data, i.span), cut(data, i.module_span))
            for i in facts.imports]


def exports(where: str, code: str) -> list[tuple]:
    """(name, local, module, text of span) per export."""
    facts, data = facts_of(where, code)
    return [(e.name, e.local, e.module, cut(data, e.span)) for e in facts.exports]


def in_file(where: str, code: str, needle: str, nth: int = 0) -> Span:
    """The span of the ``nth`` occurrence of ``needle`` in the wrapped file."""
    path, head, tail = WHERE[where]
    data = (head + code + tail).encode("utf-8")
    at = -1
    for _ in range(nth + 1):
        at = data.index(needle.encode("utf-8"), at + 1)
    return Span(at, at + len(needle.encode("utf-8")))


# --------------------------------------------------------------------------- ES imports


@pytest.mark.parametrize("where", ANY)
def test_an_import_for_its_effect_only(where):
    code = "import './styles/app.css';\nimport \"polyfill-intl\";\n"
    assert imports(where, code) == [
        ("./styles/app.css", "", "", "static", False, "'./styles/app.css'", "./styles/app.css"),
        ("polyfill-intl", "", "", "static", False, '"polyfill-intl"', "polyfill-intl"),
    ]
    facts, _ = facts_of(where, code)
    assert facts.imports[0].module_span == in_file(where, code, "./styles/app.css")


@pytest.mark.parametrize("where", ANY)
def test_default_namespace_and_named_imports_have_the_specifier_span(where):
    code = "import Api, { fetchOrders as load, Order } from '../api/orders';\nimport * as money from './money';\n"
    assert imports(where, code) == [
        ("../api/orders", "default", "Api", "static", False, "Api", "../api/orders"),
        ("../api/orders", "fetchOrders", "load", "static", False, "fetchOrders as load", "../api/orders"),
        ("../api/orders", "Order", "Order", "static", False, "Order", "../api/orders"),
        ("./money", "*", "money", "static", False, "money", "./money"),
    ]
    facts, _ = facts_of(where, code)
    assert facts.imports[3].module_span == in_file(where, code, "./money")


@pytest.mark.parametrize("where", TYPED)
def test_import_type_is_kind_type(where):
    code = ("import type { Order, OrderLine as Line } from './types';\n"
            "import type Money from './money';\n"
            "import type * as Schema from './schema';\n")
    assert imports(where, code) == [
        ("./types", "Order", "Order", "type", False, "Order", "./types"),
        ("./types", "OrderLine", "Line", "type", False, "OrderLine as Line", "./types"),
        ("./money", "default", "Money", "type", False, "Money", "./money"),
        ("./schema", "*", "Schema", "type", False, "Schema", "./schema"),
    ]


@pytest.mark.parametrize("where", TYPED)
def test_a_type_specifier_makes_only_that_name_a_type_import(where):
    code = "import { type Order, createOrder, type Line as L } from './orders';\n"
    assert imports(where, code) == [
        ("./orders", "Order", "Order", "type", False, "Order", "./orders"),
        ("./orders", "createOrder", "createOrder", "static", False, "createOrder", "./orders"),
        ("./orders", "Line", "L", "type", False, "Line as L", "./orders"),
    ]


@pytest.mark.parametrize("where", TYPED)
def test_export_type_from_is_a_type_import_and_a_re_export(where):
    code = "export type { Order, Line as OrderLine } from './types';\nexport { type Money, format } from './money';\n"
    assert imports(where, code) == [
        ("./types", "Order", "", "type", False, "Order", "./types"),
        ("./types", "Line", "", "type", False, "Line as OrderLine", "./types"),
        ("./money", "Money", "", "type", False, "type Money", "./money"),
        ("./money", "format", "", "static", False, "format", "./money"),
    ]
    assert exports(where, code) == [
        ("Order", "Order", "./types", "Order"),
        ("OrderLine", "Line", "./types", "Line as OrderLine"),
        ("Money", "Money", "./money", "type Money"),
        ("format", "format", "./money", "format"),
    ]


@pytest.mark.parametrize("where", ["ts", "tsx"])
def test_typescript_import_equals_require(where):
    code = "import fs = require('node:fs');\n"
    assert imports(where, code) == [("node:fs", "default", "fs", "require", False, "fs", "node:fs")]


# --------------------------------------------------------------------------- require, import(), globs


@pytest.mark.parametrize("where", ANY)
def test_require_bound_destructured_alone_and_as_a_value(where):
    code = ("const express = require('express');\n"
            "const { join, resolve: abs, sep = '/' } = require(\"path\");\n"
            "require('./instrument');\n"
            "app.use('/api', require('./routes/api'));\n"
            "function later() {\n  const { parse } = require('./csv');\n  return parse;\n}\n")
    assert imports(where, code) == [
        ("express", "default", "express", "require", False, "express", "express"),
        ("path", "join", "join", "require", False, "join", "path"),
        ("path", "resolve", "abs", "require", False, "resolve: abs", "path"),
        ("path", "sep", "sep", "require", False, "sep", "path"),
        ("./instrument", "", "", "require", False, "'./instrument'", "./instrument"),
        ("./routes/api", "*", "", "require", False, "'./routes/api'", "./routes/api"),
        ("./csv", "parse", "parse", "require", False, "parse", "./csv"),
    ]


@pytest.mark.parametrize("where", ANY)
def test_only_literal_specifiers_count(where):
    code = ("const plugin = require(`./plugins/${name}`);\n"
            "const fixed = require(`./plugins/base`);\n"
            "const page = await import(`./pages/${slug}.js`);\n"
            "const other = require(name);\n")
    assert imports(where, code) == [
        ("./plugins/base", "default", "fixed", "require", False, "fixed", "./plugins/base"),
    ]


@pytest.mark.parametrize("where", ANY)
def test_dynamic_imports(where):
    code = ("const Chart = lazy(() => import('./Chart'));\n"
            "export async function openEditor() {\n  const { Editor } = await import(\"@acme/editor\");\n"
            "  return new Editor();\n}\n"
            "import(`./locale/de`).then(register);\n")
    assert imports(where, code) == [
        ("./Chart", "*", "", "dynamic", False, "'./Chart'", "./Chart"),
        ("@acme/editor", "*", "", "dynamic", False, '"@acme/editor"', "@acme/editor"),
        ("./locale/de", "*", "", "dynamic", False, "`./locale/de`", "./locale/de"),
    ]


@pytest.mark.parametrize("where", ANY)
def test_import_meta_glob_patterns(where):
    code = ("const pages = import.meta.glob('./pages/**/*.vue');\n"
            "const icons = import.meta.glob(['./icons/*.svg', '!./icons/legacy-*.svg'], { eager: true });\n")
    assert imports(where, code) == [
        ("./pages/**/*.vue", "*", "", "glob", False, "'./pages/**/*.vue'", "./pages/**/*.vue"),
        ("./icons/*.svg", "*", "", "glob", False, "'./icons/*.svg'", "./icons/*.svg"),
        ("!./icons/legacy-*.svg", "*", "", "glob", False, "'!./icons/legacy-*.svg'", "!./icons/legacy-*.svg"),
    ]


@pytest.mark.parametrize("where", ANY)
def test_imports_inside_a_try_block_are_guarded(where):
    code = ("let sharp;\n"
            "try {\n  sharp = require('sharp');\n  const { fast } = require('./fast-path');\n} catch (err) {\n"
            "  sharp = require('./sharp-fallback');\n}\n"
            "async function load() {\n  try {\n    if (ready) {\n      return await import('./heavy');\n    }\n"
            "  } finally {\n    done();\n  }\n}\n"
            "const plain = require('plain');\n")
    assert imports(where, code) == [
        ("sharp", "*", "", "require", True, "'sharp'", "sharp"),
        ("./fast-path", "fast", "fast", "require", True, "fast", "./fast-path"),
        ("./sharp-fallback", "*", "", "require", False, "'./sharp-fallback'", "./sharp-fallback"),
        ("./heavy", "*", "", "dynamic", True, "'./heavy'", "./heavy"),
        ("plain", "default", "plain", "require", False, "plain", "plain"),
    ]


# --------------------------------------------------------------------------- ES exports


@pytest.mark.parametrize("where", ANY)
def test_destructured_exports(where):
    code = ("export const { apiUrl, timeout: requestTimeout, retry = 2, ...rest } = settings;\n"
            "export let [first, , third, [nested], ...others] = parts;\n"
            "export const { db: { host } } = config;\n")
    assert exports(where, code) == [
        ("apiUrl", "apiUrl", None, "apiUrl"),
        ("requestTimeout", "requestTimeout", None, "requestTimeout"),
        ("retry", "retry", None, "retry"),
        ("rest", "rest", None, "rest"),
        ("first", "first", None, "first"),
        ("third", "third", None, "third"),
        ("nested", "nested", None, "nested"),
        ("others", "others", None, "others"),
        ("host", "host", None, "host"),
    ]
    facts, _ = facts_of(where, code)
    assert facts.exports[1].span == in_file(where, code, "requestTimeout")


@pytest.mark.parametrize("where", TYPED)
def test_export_declare_forms(where):
    code = ("export declare function track(event: string): void;\n"
            "export declare const VERSION: string, BUILD: number;\n"
            "export declare let mode: 'a' | 'b';\n"
            "export declare class Tracker {}\n"
            "export declare abstract class Sink {}\n"
            "export declare enum Level { Low, High }\n"
            "export declare namespace Events {}\n"
            "export declare interface Options {}\n"
            "export declare type Handler = () => void;\n")
    assert [(n, l, m) for n, l, m, _ in exports(where, code)] == [
        ("track", "track", None), ("VERSION", "VERSION", None), ("BUILD", "BUILD", None), ("mode", "mode", None),
        ("Tracker", "Tracker", None), ("Sink", "Sink", None), ("Level", "Level", None), ("Events", "Events", None),
        ("Options", "Options", None), ("Handler", "Handler", None),
    ]
    assert [s for *_, s in exports(where, code)] == [
        "track", "VERSION", "BUILD", "mode", "Tracker", "Sink", "Level", "Events", "Options", "Handler"]


@pytest.mark.parametrize("where", TYPED)
def test_namespaces_abstract_classes_enums_overloads_and_import_aliases(where):
    code = ("export namespace Money { export const zero = 0; }\n"
            "export module Legacy { }\n"
            "export abstract class Repository { abstract find(): void; }\n"
            "export enum Status { Open = 'open' }\n"
            "export const enum Flag { On = 1 }\n"
            "export function parse(text: string): number;\n"
            "export function parse(text: string, radix: number): number;\n"
            "export function parse(text: string, radix = 10) { return parseInt(text, radix); }\n"
            "export import Zero = Money.zero;\n")
    assert exports(where, code) == [
        ("Money", "Money", None, "Money"),
        ("Legacy", "Legacy", None, "Legacy"),
        ("Repository", "Repository", None, "Repository"),
        ("Status", "Status", None, "Status"),
        ("Flag", "Flag", None, "Flag"),
        ("parse", "parse", None, "parse"),
        ("parse", "parse", None, "parse"),
        ("parse", "parse", None, "parse"),
        ("Zero", "Zero", None, "Zero"),
    ]


@pytest.mark.parametrize("where", ANY)
def test_export_default_expressions(where):
    code = "export default { name: 'orders', routes };\n"
    assert exports(where, code) == [("default", "default", None, code.rstrip("\n"))]
    ident = "const store = createStore();\nexport default store;\n"
    assert exports(where, ident) == [("default", "store", None, "export default store;")]
    call = "export default defineConfig({ base: '/app/' });\n"
    assert exports(where, call) == [("default", "default", None, call.rstrip("\n"))]


@pytest.mark.parametrize("where", ["ts", "tsx"])
def test_export_equals_and_export_as_namespace(where):
    code = "declare function moment(): void;\nexport = moment;\nexport as namespace moment;\n"
    assert exports(where, code) == [("=", "moment", None, "moment"), ("moment", "*", None, "moment")]
    facts, _ = facts_of(where, code)
    assert facts.exports[0].span == in_file(where, code, "moment", 1)
    assert facts.exports[1].span == in_file(where, code, "moment", 2)
    assert not facts.open_exports
    obj = "export = { a: 1 };\n"
    assert exports(where, obj) == [("=", "=", None, "{ a: 1 }")]


@pytest.mark.parametrize("where", ANY)
def test_export_clauses_and_re_exports(where):
    code = ("const client = makeClient();\n"
            "export { client as default, client };\n"
            "export * from './helpers';\n"
            "export * as formats from \"./formats\";\n"
            "export { default as Button, size } from './Button';\n")
    assert exports(where, code) == [
        ("default", "client", None, "client as default"),
        ("client", "client", None, "client"),
        ("*", "*", "./helpers", "'./helpers'"),
        ("formats", "*", "./formats", "formats"),
        ("Button", "default", "./Button", "default as Button"),
        ("size", "size", "./Button", "size"),
    ]
    assert imports(where, code) == [
        ("./helpers", "*", "", "static", False, "'./helpers'", "./helpers"),
        ("./formats", "*", "", "static", False, "formats", "./formats"),
        ("./Button", "default", "", "static", False, "default as Button", "./Button"),
        ("./Button", "size", "", "static", False, "size", "./Button"),
    ]


# --------------------------------------------------------------------------- ambient modules


@pytest.mark.parametrize("path", ["src/env.d.ts", "src/shims.ts"])
def test_declare_module_names_and_its_exports_are_not_the_files(path):
    text = ("declare module '*.vue' {\n  import type { DefineComponent } from 'vue';\n"
            "  const component: DefineComponent;\n  export default component;\n}\n"
            "declare module \"virtual:routes\";\n"
            "declare module '@acme/untyped' {\n  export function go(): void;\n}\n"
            "declare namespace Internal { const x: number; }\n"
            "export const marker = 1;\n")
    facts = extract(path, text)
    assert facts.declared_modules == ("*.vue", "virtual:routes", "@acme/untyped")
    # a declaration file that is a module exports its top-level declarations without
    # `export` (no export declaration says otherwise: extract/declarations.py); a .ts file does not
    implicit = [("Internal", "Internal")] if path.endswith(".d.ts") else []
    assert [(e.name, e.local) for e in facts.exports] == implicit + [("marker", "marker")]
    assert facts.imports == ()
    assert not facts.open_exports


def test_implicit_exports_of_declaration_files_and_ambient_module_blocks():
    from specward.analyzers.extract.declarations import ambient_module

    names = lambda f: [e.name for e in f.exports]  # noqa: E731
    text = ("import type { Node } from './node';\ndeclare function walk(n: Node): void;\n"
            "declare const depth: number;\ninterface Visitor { enter(): void }\ntype Kind = 'a' | 'b';\n"
            "declare namespace ast { function inner(): void }\nexport declare function visit(): void;\n")
    assert names(extract("types/walk.d.ts", text)) == ["walk", "depth", "Visitor", "Kind", "ast", "visit"]
    # an export declaration turns the rule off (what `export {};` at the end of emitted files means)
    assert names(extract("types/walk.d.ts", text + "export {};\n")) == ["visit"]
    assert names(extract("types/walk.d.ts", text + "export { walk as traverse };\n")) == ["visit", "traverse"]
    # a declaration file without imports or exports is a global script: no module, no exports
    assert names(extract("types/globals.d.ts", "declare const VERSION: string;\n")) == []
    blocks = ("declare module 'ui' {\n  export function mount(): void;\n  function hidden(): void;\n  export {};\n}\n"
              "declare module 'ui/extra' {\n  const speed: number;\n  function go(): void;\n}\n")
    assert names(ambient_module("types/index.d.ts", blocks, "ui")) == ["mount"]
    assert names(ambient_module("types/index.d.ts", blocks, "ui/extra")) == ["speed", "go"]
    assert ambient_module("types/index.d.ts", blocks, "ui/none") is None
    # a file of blocks only (and global declarations beside them) is no module of its own
    assert names(extract("types/index.d.ts", blocks + "declare function $rune(): void;\n")) == []


def test_a_module_declaration_file_augments_the_modules_it_declares():
    """`declare module 'x'` in a declaration file that imports or exports adds to x (an
    augmentation: its blocks' names, merged); in a global script it declares x; wildcards
    are declarations either way; a block that re-exports everything cannot be listed."""
    codegen = ("import type * as Api from '@shop/api-types';\n"
               "export type CartQuery = { cart: Api.Cart };\n"
               "declare module '@shop/kit' {\n  interface StorefrontQueries { cart: CartQuery }\n}\n"
               "declare module '@shop/kit' {\n  export function useCartQuery(): CartQuery;\n}\n"
               "declare module '*.graphql' {\n  const doc: string;\n  export default doc;\n}\n"
               "declare module '@shop/kit/hooks' {\n  export * from '@shop/kit';\n}\n")
    f = extract("storefront.generated.d.ts", codegen)
    assert f.declared_modules == ("@shop/kit", "*.graphql", "@shop/kit/hooks")
    assert f.augments == (("@shop/kit", ("StorefrontQueries", "useCartQuery")), ("@shop/kit/hooks", None))
    script = "declare module '@shop/kit' {\n  export function useCart(): void;\n}\n"
    assert extract("shims.d.ts", script).augments == ()
    assert extract("shims.d.ts", "export {};\n" + script).augments == (("@shop/kit", ("useCart",)),)


def test_the_names_of_an_export_equals_namespace():
    """`export = N` over `declare namespace N` (@types/react, express): named imports take
    the namespace's members, with tsc's rule for ambient bodies (checked with tsc 6.0)."""
    from specward.analyzers.extract.declarations import export_assigned

    names = lambda f: sorted(e.name for e in f.exports)  # noqa: E731
    lib = ("export = Charts;\nexport as namespace Charts;\ntype Local = string;\n"
           "declare function Charts(el: Element): void;\n"
           "declare namespace Charts {\n  function plot(): void;\n  export function clear(): void;\n"
           "  interface Axis { label: Local }\n  type Scale = 'log' | 'linear';\n  const version: string;\n"
           "  class Series {}\n  enum Kind { Bar }\n  namespace themes { const dark: number }\n}\n"
           "declare namespace Charts {\n  const locale: string;\n}\n")
    got = export_assigned("node_modules/charts/index.d.ts", lib)
    assert names(got) == ["Axis", "Kind", "Scale", "Series", "clear", "locale", "plot", "themes", "version"]
    # an export declaration in a body: only what it exports with `export`
    closed = lib.replace("  namespace themes { const dark: number }\n", "  export {};\n")
    assert names(export_assigned("x.d.ts", closed)) == ["clear", "locale"]
    # a class, an enum or a variable of the same name: their properties are names too (not judged)
    assert export_assigned("x.d.ts", lib.replace("declare function Charts(el: Element): void;",
                                                 "declare class Charts { static zoom(): void }")) is None
    assert export_assigned("x.d.ts", lib.replace("declare function Charts(el: Element): void;",
                                                 "declare const Charts: { zoom(): void };")) is None
    # no namespace of that name in the file, or no `export =`
    assert export_assigned("x.d.ts", "declare function f(): void;\nexport = f;\n") is None
    assert export_assigned("x.d.ts", "declare namespace N { const a: 1 }\nexport = M;\n") is None
    assert export_assigned("x.d.ts", "declare namespace N { const a: 1 }\nexport as namespace N;\n") is None


def test_declare_module_in_a_component_script():
    facts, _ = facts_of("vue-ts", "declare module 'vue-router' { interface RouteMeta { title: string } }\n")
    assert facts.declared_modules == ("vue-router",)
    assert extract("src/a.ts", "const a = 1;\n").declared_modules == ()


# --------------------------------------------------------------------------- CommonJS


@pytest.mark.parametrize("where", ["js", "ts", "vue", "svelte"])
def test_commonjs_object_exports(where):
    code = ("function listOrders() {}\n"
            "module.exports = { listOrders, remove: removeOrder, VERSION: '2' };\n"
            "module.exports.extra = helper;\n"
            "exports.count = function () { return 3; };\n")
    assert [(n, l, m) for n, l, m, _ in exports(where, code)] == [
        ("default", "default", None),
        ("listOrders", "listOrders", None),
        ("remove", "removeOrder", None),
        ("VERSION", "default.VERSION", None),
        ("extra", "helper", None),
        ("count", "exports.count", None),
    ]
    facts, _ = facts_of(where, code)
    assert not facts.open_exports
    assert facts.exports[2].span == in_file(where, code, "remove: removeOrder")


@pytest.mark.parametrize("where", ["js", "ts", "vue", "svelte"])
@pytest.mark.parametrize("code", [
    "module.exports = createRouter();\n",
    "module.exports = router;\n",
    "module.exports = class Store {};\n",
    "if (process.env.LEGACY) {\n  module.exports.old = true;\n}\n",
    "function install() { exports.late = 1; }\n",
    "exports['dash-name'] = 1;\n",
    "exports = module.exports = server;\n",
    "Object.assign(module.exports, helpers);\n",
    "Object.assign(exports, { a, b });\n",
    "Object.defineProperty(exports, 'lazy', { get: load });\n",
    "__exportStar(require('./impl'), exports);\n",
    "tslib_1.__exportStar(require('./impl'), exports);\n",
])
def test_commonjs_exports_made_at_run_time_are_open(where, code):
    facts, _ = facts_of(where, code)
    assert facts.open_exports, code


@pytest.mark.parametrize("code", [
    "Object.defineProperty(exports, '__esModule', { value: true });\nexports.a = 1;\n",
    "Object.assign(target, source);\nexport const a = 1;\n",
    "const exportsList = [];\nmodule.exports = { a };\n",
    "import x from './x';\nexport default x;\n",
])
def test_exports_that_are_known_are_not_open(code):
    assert not extract("src/m.js", code).open_exports, code


# --------------------------------------------------------------------------- Python


def py(code: str) -> list[tuple]:
    facts = extract("app/orders.py", code)
    data = code.encode("utf-8")
    return [(i.module, i.name, i.local, i.kind, i.guarded, cut(data, i.span), cut(data, i.module_span))
            for i in facts.imports]


def test_python_module_spans_are_the_dotted_names_as_written():
    code = ("import os.path as osp, json\n"
            "from . import models\n"
            "from ..core.db import (session as db_session,\n    engine)\n"
            "from .. services import billing\n"
            "from app.api import *\n"
            "# é: byte offsets below are not character offsets\n"
            "import ünïcode_mod\n")
    assert py(code) == [
        ("os.path", "*", "osp", "static", False, "os.path as osp", "os.path"),
        ("json", "*", "json", "static", False, "json", "json"),
        (".", "models", "models", "static", False, "models", "."),
        ("..core.db", "session", "db_session", "static", False, "session as db_session", "..core.db"),
        ("..core.db", "engine", "engine", "static", False, "engine", "..core.db"),
        ("..services", "billing", "billing", "static", False, "billing", ".. services"),
        ("app.api", "*", "*", "static", False, "*", "app.api"),
        ("ünïcode_mod", "*", "ünïcode_mod", "static", False, "ünïcode_mod", "ünïcode_mod"),
    ]
    assert extract("app/orders.py", code).imports[2].module_span == Span(code.index(". import"),
                                                                          code.index(". import") + 1)


def test_python_imports_in_functions_are_extracted():
    code = "def export_csv(rows):\n    import csv\n    from .formats import header\n    return csv, header\n"
    assert py(code) == [
        ("csv", "*", "csv", "static", False, "csv", "csv"),
        (".formats", "header", "header", "static", False, "header", ".formats"),
    ]


def test_python_guarded_imports():
    code = ("try:\n    import ujson as json\nexcept ImportError:\n    import json\n"
            "try:\n    from ._speedups import crc\nexcept (ValueError, ModuleNotFoundError) as exc:\n    crc = None\n"
            "try:\n    import yaml\nexcept:\n    yaml = None\n"
            "try:\n    import tomllib\nexcept Exception:\n    tomllib = None\n"
            "try:\n    import orjson\nexcept KeyError:\n    pass\n"
            "if TYPE_CHECKING:\n    from .models import Order\n"
            "if typing.TYPE_CHECKING:\n    import pandas\n"
            "if DEBUG:\n    import pdb\n"
            "def load():\n    try:\n        import lxml\n    except ImportError:\n        return None\n")
    assert [(m, g) for m, _, _, _, g, _, _ in py(code)] == [
        ("ujson", True), ("json", False), ("._speedups", True), ("yaml", True), ("tomllib", True),
        ("orjson", False), (".models", True), ("pandas", True), ("pdb", False), ("lxml", True),
    ]


@pytest.mark.parametrize("code, names", [
    ("__all__ = ['Order', \"Line\"]\n", ("Order", "Line")),
    ("__all__ = ('Order',)\n__all__ += ['Line']\n", ("Order", "Line")),
    ("__all__: list[str] = ['a']\n__all__.extend(['b', 'c'])\n__all__.append('d')\n", ("a", "b", "c", "d")),
    ("__all__ = []\n", ()),
    ("x = 1\n", None),
    ("__all__ = models.__all__ + ['extra']\n", None),
    ("__all__ = ['a']\n__all__ += helpers.__all__\n", None),
    ("__all__ = [name for name in dir()]\n", None),
    ("__all__ = ['a', f'{prefix}b']\n", None),
    ("__all__ = ['a']\nif EXTRA:\n    __all__ += ['b']\n", None),
    ("__all__ = ['a']\n__all__.remove('a')\n", None),
    ("__all__ += ['a']\n", None),
    ("def f():\n    __all__ = ['inner']\n", None),
])
def test_python_literal_all(code, names):
    assert extract("app/__init__.py", code).all_names == names


@pytest.mark.parametrize("code, opened", [
    ("def __getattr__(name):\n    return lazy(name)\n", True),
    ("import sys\n\ndef __getattr__(name: str) -> object: ...\n", True),
    ("class Proxy:\n    def __getattr__(self, name):\n        return 1\n", False),
    ("def __getattribute__(name):\n    pass\n", False),
    ("x = 1\n", False),
])
def test_python_module_getattr_opens_the_exports(code, opened):
    assert extract("app/lazy.py", code).open_exports is opened


# --------------------------------------------------------------------------- incremental == full

MODULE_TS = """import './polyfills';
import type { Order } from './types';
import { type Line, total } from './lines';
const fs = require('fs');
export type { Money } from './money';
export * from './helpers';
declare module '*.svg' { const src: string; export default src; }
export const { apiUrl, timeout: wait } = settings;
export declare function track(name: string): void;
export namespace Units { export const km = 1000; }
let heavy;
try {
  heavy = require('./heavy');
} catch (e) {}
export async function open() {
  return import('./Editor');
}
const pages = import.meta.glob(['./pages/*.ts']);
export default pages;
"""

MODULE_JS = """const { join } = require('path');
require('./setup');
exports.a = 1;
module.exports.b = function () {};
function late() { exports.c = 2; }
module.exports = { join, d: late };
Object.defineProperty(exports, '__esModule', { value: true });
"""

SNIPPETS = ["require('./x');\n", "try { require('y') } catch {}\n", "export = thing;\n", "module.exports = f();\n",
            "declare module 'z';\n", "import type { T } from './t';\n", "export * as ns from './ns';\n",
            "exports.e = 5;\n", "import('./lazy');\n", "{", "}", "'", "\n", "try {", "export const [p] = q;\n"]


@pytest.mark.parametrize("path, original", [("src/module.ts", MODULE_TS), ("src/module.js", MODULE_JS)])
def test_incremental_extraction_gives_the_same_import_facts(path, original):
    for seed in range(4):
        rng = random.Random(f"imports:{path}:{seed}")
        text = original
        facts, state, _ = extract_edited(path, text, None)
        for step in range(40):
            i = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.45:
                text = text[:i] + rng.choice(SNIPPETS) + text[i:]
            elif op < 0.8:
                text = text[:i] + text[i + rng.choice((1, 3, 12, 40)):]
            elif op < 0.9:
                text = text[:i] + rng.choice("abz'\"`{}();\n ") + text[i:]
            else:
                text = original
            facts, state, _ = extract_edited(path, text, state)
            languages._local.__dict__.pop("recent", None)  # a fresh parse for the full extraction
            assert facts == extract(path, text), f"seed {seed}, edit {step}: {text!r}"


def test_python_imports_in_a_version_or_platform_branch_are_guarded():
    src = ("import sys\n"
           "if sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli as tomllib\n"
           "if sys.version_info[:2] < (3, 9):\n    from backports import zoneinfo\n"
           "if sys.platform == 'win32':\n    import winreg\n"
           "if DEBUG:\n    import pdb\n")
    f = extract("pkg/compat.py", src)
    assert [(i.module, i.guarded) for i in f.imports] == [
        ("sys", False), ("tomllib", True), ("tomli", True), ("backports", True), ("winreg", True), ("pdb", False)]


def test_python_names_declared_with_a_type_and_no_value_are_defined():
    src = "__version__: str\nregistry: dict[str, int] = {}\nclass C:\n    field: int\ndef f():\n    local: int\n"
    f = extract("pkg/__init__.pyi", src)
    names = [(d.name, d.kind) for d in f.definitions]
    assert ("__version__", "variable") in names and ("registry", "variable") in names
    assert not any(n in ("field", "local", "C.field") for n, _ in names)  # only module-level names
    data = src.encode()
    d = next(d for d in f.definitions if d.name == "__version__")
    assert data[d.span.start:d.span.end] == b"__version__"
