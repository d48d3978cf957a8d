"""The module resolver (analyzers/resolve.py) on multi-file fixtures in the style of real
projects. Each fixture is a whole workspace: its configuration files are fed to
ResolverConfig.build as text, and every file of the fixture exists for the resolver."""

from __future__ import annotations

import pytest
from fixtures import split

from specward.analyzers.resolve import (
    FILE,
    MISSING,
    NODE,
    NUXT,
    PACKAGE,
    SVELTEKIT,
    VIRTUAL,
    WORKSPACE,
    Resolution,
    Resolver,
    ResolverConfig,
    is_resolver_config,
)


class Workspace:
    def __init__(self, fixture: str) -> None:
        self.files = split(fixture)
        # as the server does: the files is_resolver_config accepts, and any other file the
        # configuration names (extends, references) read on request
        self.config = ResolverConfig.build({p: t for p, t in self.files.items() if is_resolver_config(p)},
                                           self.files.get)
        self.asked: list[str] = []
        self.resolver = Resolver(self.config, self._exists)

    def _exists(self, path: str) -> bool:
        self.asked.append(path)
        return path in self.files

    def resolve(self, importer: str, spec: str, language: str | None = None) -> Resolution:
        return self.resolver.resolve(importer, spec, language)

    def show(self, importer: str, spec: str, language: str | None = None) -> str:
        """file path | package:name[ (provider)] | missing"""
        r = self.resolve(importer, spec, language)
        if r.kind == FILE:
            return r.path  # type: ignore[return-value]
        if r.kind == PACKAGE:
            return f"package:{r.package}" + (f" ({r.provider})" if r.provider else "")
        assert r.kind == MISSING
        return "missing"

    def notes(self) -> list[str]:
        return [str(n) for n in self.config.notes]


# ---------------------------------------------------------------------------- SvelteKit
SVELTEKIT_APP = """
//- package.json
{
  "name": "kitchen-notes",
  "private": true,
  "type": "module",
  "scripts": { "dev": "vite dev", "build": "vite build" },
  "devDependencies": { "@sveltejs/kit": "^2.5.0", "svelte": "^4.2.0", "vite": "^5.0.0" }
}
//- jsconfig.json
{
  "extends": "./.svelte-kit/tsconfig.json",
  "compilerOptions": {
    "allowJs": true,
    "checkJs": true,
    "moduleResolution": "bundler"
  }
}
//- svelte.config.js
import adapter from '@sveltejs/adapter-node';

/** @type {import('@sveltejs/kit').Config} */
const config = {
  kit: {
    adapter: adapter(),
    alias: {
      $stores: 'src/stores',
      'icons/*': './src/assets/icons/*'
    }
  }
};

export default config;
//- src/lib/http.js
export async function get(path) { return fetch(`/api${path}`).then((r) => r.json()); }
//- src/lib/recipes/index.js
export * from './list.js';
//- src/lib/recipes/list.js
export const list = [];
//- src/stores/session.js
export const session = null;
//- src/assets/icons/spoon.svelte
<svg></svg>
//- src/routes/recipes/+page.svelte
<script>
  import * as http from '$lib/http.js';
</script>
//- src/routes/recipes/+page.js
import * as http from '$lib/http.js';
"""


def test_sveltekit_lib_alias_without_the_generated_tsconfig():
    ws = Workspace(SVELTEKIT_APP)
    page = "src/routes/recipes/+page.svelte"
    assert ws.show(page, "$lib/http.js") == "src/lib/http.js"
    assert ws.show(page, "$lib/http") == "src/lib/http.js"
    assert ws.show(page, "$lib/recipes") == "src/lib/recipes/index.js"
    assert ws.show(page, "$lib") == "missing"  # src/lib has no index
    r = ws.resolve(page, "$lib/http.js")
    assert r.via == "SvelteKit $lib"
    # TypeScript's order: the .ts source is looked for first
    assert r.probed == ("src/lib/http.ts", "src/lib/http.tsx", "src/lib/http.d.ts", "src/lib/http.js")
    assert ws.notes() == [
        "jsconfig.json: extends ./.svelte-kit/tsconfig.json, which is not in the workspace: "
        "SvelteKit's aliases ($lib, kit.alias) assumed",
    ]
    assert ".svelte-kit/tsconfig.json" in ws.config.wanted


def test_sveltekit_framework_modules_are_packages_not_files():
    ws = Workspace(SVELTEKIT_APP)
    page = "src/routes/recipes/+page.js"
    assert ws.show(page, "$app/navigation") == "package:$app/navigation (sveltekit)"
    assert ws.show(page, "$app/stores") == "package:$app/stores (sveltekit)"
    assert ws.show(page, "$env/static/public") == "package:$env/static/public (sveltekit)"
    assert ws.show(page, "$service-worker") == "package:$service-worker (sveltekit)"
    assert ws.show(page, "./$types") == "package:./$types (sveltekit)"
    assert ws.show(page, "@sveltejs/kit") == "package:@sveltejs/kit"
    assert ws.resolve(page, "$app/forms").probed == ()


def test_sveltekit_kit_alias_entries_and_missing_files():
    ws = Workspace(SVELTEKIT_APP)
    page = "src/routes/recipes/+page.js"
    assert ws.show(page, "$stores/session") == "src/stores/session.js"
    assert ws.show(page, "$stores/session.js") == "src/stores/session.js"
    assert ws.show(page, "icons/spoon.svelte") == "src/assets/icons/spoon.svelte"
    # `icons/*` only matches what is under the folder: `icons` itself is a bare package
    assert ws.show(page, "icons") == "package:icons"
    r = ws.resolve(page, "$lib/htpp.js")
    assert (r.kind, r.via) == (MISSING, "SvelteKit $lib: no such file")
    assert r.probed[0] == "src/lib/htpp.ts"


def test_sveltekit_kit_files_lib_moves_lib():
    ws = Workspace("""
//- package.json
{ "devDependencies": { "@sveltejs/kit": "^2.0.0" } }
//- svelte.config.js
export default { kit: { files: { lib: 'app/shared' } } };
//- app/shared/http.ts
export const http = {};
//- src/routes/+page.ts
import { http } from '$lib/http';
""")
    assert ws.show("src/routes/+page.ts", "$lib/http") == "app/shared/http.ts"


def test_sveltekit_generated_tsconfig_is_followed_when_it_is_there():
    ws = Workspace(SVELTEKIT_APP + """
//- .svelte-kit/tsconfig.json
{
  "compilerOptions": {
    "paths": {
      "$lib": ["../src/lib"],
      "$lib/*": ["../src/lib/*"],
      "$stores": ["../src/stores"],
      "$stores/*": ["../src/stores/*"]
    },
    "rootDirs": ["..", "./types"]
  },
  "include": ["ambient.d.ts", "../src/**/*.js", "../src/**/*.svelte"]
}
""")
    r = ws.resolve("src/routes/recipes/+page.js", "$lib/http.js")
    assert (r.path, r.via) == ("src/lib/http.js", "paths '$lib/*' of jsconfig.json")
    assert ws.notes() == []
    assert ws.config.wanted == ()


def test_plain_svelte_vite_app_is_not_sveltekit():
    ws = Workspace("""
//- package.json
{ "devDependencies": { "svelte": "^4.2.0", "@sveltejs/vite-plugin-svelte": "^3.0.0", "vite": "^5.0.0" } }
//- svelte.config.js
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';
export default { preprocess: vitePreprocess() };
//- src/lib/http.js
export const x = 1;
//- src/App.svelte
<script>import x from '$lib/http.js';</script>
""")
    assert ws.show("src/App.svelte", "$lib/http.js") == "missing"
    assert ws.show("src/App.svelte", "$app/navigation") == "missing"


# ---------------------------------------------------------------------------- Nuxt
NUXT3_APP = """
//- package.json
{ "name": "shop-front", "private": true, "devDependencies": { "nuxt": "^3.11.2" } }
//- tsconfig.json
{
  // https://nuxt.com/docs/guide/concepts/typescript
  "extends": "./.nuxt/tsconfig.json"
}
//- nuxt.config.ts
import { fileURLToPath } from 'node:url'

export default defineNuxtConfig({
  devtools: { enabled: true },
  alias: {
    images: fileURLToPath(new URL('./assets/images', import.meta.url)),
  },
})
//- utils/api.ts
export const api = $fetch.create({ baseURL: '/api' })
//- composables/useCart.ts
export function useCart() {}
//- server/utils/db.ts
export const db = {}
//- assets/images/logo.ts
export default ''
//- app/router.options.ts
export default {}
//- pages/index.vue
<script setup lang="ts">
import { api } from '~/utils/api'
</script>
"""


def test_nuxt3_aliases_without_the_generated_tsconfig():
    ws = Workspace(NUXT3_APP)
    page = "pages/index.vue"
    assert ws.show(page, "~/utils/api") == "utils/api.ts"
    assert ws.show(page, "@/composables/useCart") == "composables/useCart.ts"
    assert ws.show(page, "~~/server/utils/db") == "server/utils/db.ts"
    assert ws.show(page, "@@/server/utils/db") == "server/utils/db.ts"
    assert ws.show(page, "images/logo") == "assets/images/logo.ts"
    assert ws.show(page, "#imports") == "package:#imports (nuxt)"
    assert ws.show(page, "#app") == "package:#app (nuxt)"
    assert ws.show(page, "#build/components") == "package:#build/components (nuxt)"
    assert ws.show(page, "~/utils/nope") == "missing"
    # Nuxt 3 keeps srcDir at the root: app/ is not searched
    assert ws.show(page, "~/router.options") == "missing"
    assert ws.notes() == [
        "tsconfig.json: extends ./.nuxt/tsconfig.json, which is not in the workspace: "
        "Nuxt's aliases (~, @, ~~, @@) assumed",
    ]


def test_nuxt4_src_dir_is_app_when_it_exists():
    ws = Workspace("""
//- package.json
{ "devDependencies": { "nuxt": "^4.0.0" } }
//- nuxt.config.ts
export default defineNuxtConfig({ compatibilityDate: '2025-07-15' })
//- app/utils/api.ts
export const api = {}
//- app/app.vue
<template><NuxtPage /></template>
//- shared/types/order.ts
export type Order = { id: string }
//- server/api/orders.get.ts
export default defineEventHandler(() => [])
""")
    assert ws.show("app/app.vue", "~/utils/api") == "app/utils/api.ts"
    assert ws.show("app/app.vue", "@/utils/api") == "app/utils/api.ts"
    assert ws.show("app/app.vue", "~~/server/api/orders.get") == "server/api/orders.get.ts"
    assert ws.show("server/api/orders.get.ts", "#shared/types/order") == "shared/types/order.ts"


def test_nuxt_src_dir_setting_and_compatibility_version():
    ws = Workspace("""
//- nuxt.config.ts
export default defineNuxtConfig({ srcDir: 'client/' })
//- client/utils/api.ts
export const api = {}
//- client/pages/index.vue
<script setup lang="ts">import { api } from '~/utils/api'</script>
""")
    assert ws.show("client/pages/index.vue", "~/utils/api") == "client/utils/api.ts"
    ws = Workspace("""
//- nuxt.config.ts
export default defineNuxtConfig({ future: { compatibilityVersion: 3 } })
//- app/utils/api.ts
export const api = {}
//- utils/api.ts
export const api = {}
""")
    assert ws.show("pages/index.vue", "~/utils/api") == "utils/api.ts"


# ---------------------------------------------------------------------------- Vite + Vue
VITE_VUE_APP = """
//- package.json
{ "name": "ledger-ui", "type": "module", "dependencies": { "vue": "^3.4.0" }, "devDependencies": { "vite": "^5.2.0" } }
//- tsconfig.json
{
  "files": [],
  "references": [{ "path": "./tsconfig.node.json" }, { "path": "./tsconfig.app.json" }]
}
//- tsconfig.app.json
{
  "extends": "@vue/tsconfig/tsconfig.dom.json",
  "include": ["env.d.ts", "src/**/*", "src/**/*.vue"],
  "compilerOptions": {
    "composite": true,
    "baseUrl": ".",
    "paths": { "@/*": ["./src/*"] }
  }
}
//- tsconfig.node.json
{ "include": ["vite.config.*"], "compilerOptions": { "composite": true, "types": ["node"] } }
//- vite.config.ts
import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [vue()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      '~charts': fileURLToPath(new URL('./src/components/charts', import.meta.url)),
    },
  },
})
//- src/api/client.ts
export const client = {}
//- src/components/LedgerTable.vue
<script setup lang="ts">import { client } from '@/api/client'</script>
//- src/components/charts/Bar.vue
<template><div /></template>
//- src/main.ts
import App from './App.vue'
"""


def test_vite_vue_app_resolves_at_through_the_referenced_tsconfig():
    ws = Workspace(VITE_VUE_APP)
    cmp = "src/components/LedgerTable.vue"
    r = ws.resolve(cmp, "@/api/client")
    assert (r.path, r.via) == ("src/api/client.ts", "paths '@/*' of tsconfig.app.json")
    assert ws.show(cmp, "@/components/charts/Bar.vue") == "src/components/charts/Bar.vue"
    assert ws.show(cmp, "~charts/Bar.vue") == "src/components/charts/Bar.vue"
    assert ws.show(cmp, "/src/main") == "src/main.ts"
    assert ws.show(cmp, "vue") == "package:vue"
    # @vue/tsconfig is an installed package: its file is wanted, not a problem worth a doubt
    assert "node_modules/@vue/tsconfig/tsconfig.dom.json" in ws.config.wanted


def test_vite_alias_alone_without_tsconfig_paths():
    ws = Workspace("""
//- vite.config.js
import path from 'path'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

export default defineConfig(({ mode }) => {
  return {
    plugins: [react()],
    resolve: {
      alias: [
        { find: '@', replacement: path.resolve(__dirname, './src') },
        { find: /^~\\/(.*)$/, replacement: '/src/legacy/$1' },
        { find: 'lodash', replacement: 'lodash-es' },
      ],
    },
  }
})
//- src/hooks/useInvoices.js
export function useInvoices() {}
//- src/legacy/format.js
export const format = () => ''
//- src/pages/Invoices.jsx
import { useInvoices } from '@/hooks/useInvoices'
""")
    page = "src/pages/Invoices.jsx"
    assert ws.show(page, "@/hooks/useInvoices") == "src/hooks/useInvoices.js"
    assert ws.show(page, "~/format") == "src/legacy/format.js"
    r = ws.resolve(page, "lodash/debounce")
    assert (r.kind, r.package, r.via) == (PACKAGE, "lodash-es", "vite.config.js resolve.alias 'lodash' -> package")
    # an alias owns its prefix: nothing found there is missing, not a package
    assert ws.show(page, "@/hooks/useInvoice") == "missing"


def test_non_literal_alias_targets_are_skipped_and_said_so():
    ws = Workspace("""
//- vite.config.ts
import { defineConfig } from 'vite'
import path from 'node:path'
import { aliasesFromTsconfig } from './build/aliases'

export default defineConfig({
  resolve: {
    alias: {
      '@': `${process.env.APP_SRC}`,
      '#generated': aliasesFromTsconfig('generated'),
      '@shared': path.resolve(__dirname, '../../outside'),
      '@ok': __dirname + '/src',
    },
  },
})
//- src/a.ts
export const a = 1
""")
    assert ws.notes() == [
        "vite.config.ts: resolve.alias '#generated' skipped: its target aliasesFromTsconfig('generated') is not literal",
        "vite.config.ts: resolve.alias '@' skipped: its target `${process.env.APP_SRC}` is not literal",
        "vite.config.ts: resolve.alias '@shared' skipped: its target path.resolve(__dirname, '../../outside') "
        "is outside the workspace",
    ]
    assert ws.show("src/main.ts", "@ok/a") == "src/a.ts"
    r = ws.resolve("src/main.ts", "#generated/routes")
    assert r.kind == MISSING
    assert r.doubt == "vite.config.ts has aliases specward could not read"


# ---------------------------------------------------------------------------- webpack, Vue CLI
def test_webpack_resolve_alias_object_and_modules():
    ws = Workspace("""
//- package.json
{ "name": "admin-console", "devDependencies": { "webpack": "^5.90.0" } }
//- webpack.config.js
const path = require('path');

module.exports = (env) => ({
  entry: './src/index.js',
  resolve: {
    extensions: ['.js', '.jsx'],
    modules: [path.resolve(__dirname, 'src'), 'node_modules'],
    alias: {
      Utilities: path.resolve(__dirname, 'src/utilities/'),
      Templates$: path.resolve(__dirname, 'src/templates/index.js'),
      'react-dom': '@hot-loader/react-dom',
      xyz: false,
    },
  },
});
//- src/utilities/money.js
export const money = (n) => n.toFixed(2);
//- src/templates/index.js
export default {};
//- src/widgets/Chart.jsx
export default function Chart() {}
//- src/index.js
import { money } from 'Utilities/money';
""")
    entry = "src/index.js"
    assert ws.show(entry, "Utilities/money") == "src/utilities/money.js"
    assert ws.show(entry, "Templates") == "src/templates/index.js"
    assert ws.show(entry, "Templates/other") == "package:Templates"  # `$`: the key alone
    assert ws.show(entry, "widgets/Chart") == "src/widgets/Chart.jsx"  # resolve.modules
    assert ws.show(entry, "react-dom") == "package:@hot-loader/react-dom"
    assert ws.notes() == ["webpack.config.js: resolve.alias 'xyz' skipped: it maps the module to false (ignored)"]


def test_vue_cli_default_at_and_chain_webpack_aliases():
    ws = Workspace("""
//- package.json
{ "name": "crm", "devDependencies": { "@vue/cli-service": "~5.0.0" } }
//- vue.config.js
const path = require('path')
function resolve (dir) {
  return path.join(__dirname, dir)
}

module.exports = {
  configureWebpack: {
    resolve: { alias: { '@views': resolve('src/views') } }
  },
  chainWebpack (config) {
    config.resolve.alias
      .set('@api', resolve('src/api'))
      .set('@assets', resolve('src/assets'))
  }
}
//- src/api/customers.js
export function listCustomers () {}
//- src/views/Customers.vue
<script>import { listCustomers } from '@api/customers'</script>
//- src/store/index.js
export default {}
""")
    view = "src/views/Customers.vue"
    assert ws.show(view, "@api/customers") == "src/api/customers.js"
    assert ws.show(view, "@views/Customers.vue") == "src/views/Customers.vue"
    assert ws.show(view, "@/store") == "src/store/index.js"  # Vue CLI's own @ -> src
    assert ws.resolve(view, "@/store").via == "Vue CLI @"


# ---------------------------------------------------------------------------- CRA, baseUrl
def test_create_react_app_base_url_src():
    ws = Workspace("""
//- package.json
{ "name": "storefront", "dependencies": { "react": "^18.2.0", "react-scripts": "5.0.1" } }
//- jsconfig.json
{ "compilerOptions": { "baseUrl": "src" }, "include": ["src"] }
//- src/components/Button.jsx
export default function Button() {}
//- src/services/api.js
export const api = {}
//- src/pages/Checkout.jsx
import Button from 'components/Button'
""")
    page = "src/pages/Checkout.jsx"
    r = ws.resolve(page, "components/Button")
    assert (r.path, r.via) == ("src/components/Button.jsx", "baseUrl of jsconfig.json")
    assert ws.show(page, "services/api") == "src/services/api.js"
    r = ws.resolve(page, "react")
    assert (r.kind, r.package) == (PACKAGE, "react")
    assert r.probed[:2] == ("src/react.ts", "src/react.tsx")  # baseUrl first, as tsc does
    assert ws.show(page, "@/x") == "missing"


# ---------------------------------------------------------------------------- monorepo
MONOREPO = """
//- package.json
{ "name": "acme", "private": true, "workspaces": ["apps/*", "packages/*"] }
//- tsconfig.base.json
{ "compilerOptions": { "strict": true, "moduleResolution": "bundler" } }
//- packages/sdk/package.json
{
  "name": "@acme/sdk",
  "version": "0.3.0",
  "type": "module",
  "exports": {
    ".": { "types": "./dist/index.d.ts", "import": "./dist/index.js" },
    "./http": { "types": "./dist/http.d.ts", "default": "./dist/http.js" },
    "./models/*": "./src/models/*.ts"
  },
  "source": "./src/index.ts"
}
//- packages/sdk/src/index.ts
export * from './http.js';
//- packages/sdk/src/http.ts
export const http = {};
//- packages/sdk/src/models/invoice.ts
export type Invoice = {};
//- packages/ui/package.json
{ "name": "@acme/ui", "main": "lib/index.js" }
//- packages/ui/lib/index.js
export const Button = {};
//- packages/config/package.json
{ "name": "@acme/config", "main": "dist/index.js" }
//- apps/web/package.json
{ "name": "web", "dependencies": { "@acme/sdk": "workspace:*", "@acme/ui": "workspace:*" } }
//- apps/web/tsconfig.json
{ "extends": "../../tsconfig.base.json", "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }
//- apps/web/src/lib/session.ts
export const session = {};
//- apps/web/src/pages/home.ts
import { http } from '@acme/sdk';
//- apps/admin/tsconfig.json
{ "extends": "../../tsconfig.base", "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["app/*"] } } }
//- apps/admin/app/lib/session.ts
export const session = {};
//- apps/admin/app/main.ts
import { session } from '@/lib/session';
"""


def test_monorepo_workspace_packages_by_name():
    ws = Workspace(MONOREPO)
    home = "apps/web/src/pages/home.ts"
    r = ws.resolve(home, "@acme/sdk")
    assert (r.kind, r.path, r.package, r.root) == (FILE, "packages/sdk/src/index.ts", "@acme/sdk", "packages/sdk")
    assert r.via == "workspace package @acme/sdk (packages/sdk/package.json)"
    assert ws.show(home, "@acme/sdk/http") == "packages/sdk/src/http.ts"
    assert ws.show(home, "@acme/sdk/models/invoice") == "packages/sdk/src/models/invoice.ts"
    assert ws.show(home, "@acme/ui") == "packages/ui/lib/index.js"
    r = ws.resolve(home, "@acme/config")
    assert (r.kind, r.provider, r.root) == (PACKAGE, WORKSPACE, "packages/config")
    assert ws.show(home, "@acme/other") == "package:@acme/other"


def test_monorepo_nearest_tsconfig_per_folder():
    ws = Workspace(MONOREPO)
    assert ws.show("apps/web/src/pages/home.ts", "@/lib/session") == "apps/web/src/lib/session.ts"
    assert ws.show("apps/admin/app/main.ts", "@/lib/session") == "apps/admin/app/lib/session.ts"
    # the root has no tsconfig.json: nothing defines @/ there, the old guess applies
    assert ws.show("scripts/seed.ts", "@/lib/session") == "missing"


# ---------------------------------------------------------------------------- tsconfig
def test_extends_array_later_configs_win_and_paths_are_replaced_whole():
    ws = Workspace("""
//- config/ts/paths-a.json
{ "compilerOptions": { "baseUrl": "../..", "paths": { "#a/*": ["web/src/a/*"] } } }
//- config/ts/paths-b.json
{ "compilerOptions": { "paths": { "#b/*": ["web/src/b/*"] } } }
//- web/tsconfig.json
{ "extends": ["../config/ts/paths-a", "../config/ts/paths-b.json"], "compilerOptions": { "noEmit": true } }
//- web/src/a/one.ts
export const one = 1
//- web/src/b/two.ts
export const two = 2
""")
    # checked with tsc 5.9: b's paths replace a's; a's baseUrl stays and b's targets use it
    assert ws.show("web/src/main.ts", "#b/two") == "web/src/b/two.ts"
    assert ws.show("web/src/main.ts", "#a/one") == "missing"


def test_paths_without_base_url_are_relative_to_the_config_that_sets_them():
    ws = Workspace("""
//- base/tsconfig.json
{
  // shared settings
  "compilerOptions": {
    "paths": {
      "@/*": ["../shared/*", "./fallback/*",],
      "exact": ["../shared/x.ts"],
      "@/special/*": ["../special/*"],
    },
  },
}
//- app/tsconfig.json
{ "extends": "../base/tsconfig.json", /* trailing comma: */ }
//- shared/x.ts
export const x = 1
//- shared/y.js
export const y = 1
//- base/fallback/z.ts
export const z = 1
//- special/s.ts
export const s = 1
""")
    main = "app/src/main.ts"
    assert ws.show(main, "@/x") == "shared/x.ts"
    assert ws.show(main, "@/y") == "shared/y.js"
    assert ws.show(main, "@/z") == "base/fallback/z.ts"  # the second target, in order
    assert ws.show(main, "exact") == "shared/x.ts"
    assert ws.show(main, "@/special/s") == "special/s.ts"  # the longest prefix wins
    r = ws.resolve(main, "@/missing")
    assert r.kind == MISSING
    assert r.probed[0] == "shared/missing.ts"
    assert "base/fallback/missing.ts" in r.probed
    assert ws.notes() == []


def test_paths_that_fail_fall_back_to_packages_as_tsc_does():
    ws = Workspace("""
//- tsconfig.json
{ "compilerOptions": { "paths": { "*": ["./types/*"], "components/*": ["./src/components/*"] } } }
//- types/globals.d.ts
export {}
//- src/components/Card.tsx
export const Card = 1
""")
    assert ws.show("src/main.ts", "components/Card") == "src/components/Card.tsx"
    assert ws.show("src/main.ts", "globals") == "types/globals.d.ts"
    assert ws.show("src/main.ts", "components/Nope") == "package:components"
    assert ws.show("src/main.ts", "react") == "package:react"
    # "*" says nothing about "@/" or "~/": the last-resort guess still applies
    assert ws.show("src/main.ts", "@/components/Card") == "src/components/Card.tsx"


def test_a_paths_match_that_fails_skips_base_url():
    ws = Workspace("""
//- tsconfig.json
{ "compilerOptions": { "baseUrl": "./other", "paths": { "lib/*": ["./src/nope/*"] } } }
//- other/lib/z.ts
export const z = 1
//- other/util.ts
export const u = 1
""")
    # checked with tsc 5.9: after the failed substitution it looks in node_modules only
    r = ws.resolve("src/main.ts", "lib/z")
    assert (r.kind, r.package) == (PACKAGE, "lib")
    assert "other/lib/z.ts" not in r.probed
    assert ws.show("src/main.ts", "util") == "other/util.ts"


def test_extends_packages_from_node_modules_and_the_workspace():
    ws = Workspace("""
//- package.json
{ "name": "mono", "private": true }
//- tooling/typescript/package.json
{ "name": "@mono/tsconfig", "private": true }
//- tooling/typescript/base.json
{ "compilerOptions": { "baseUrl": "../..", "paths": { "~ui/*": ["packages/ui/src/*"] } } }
//- node_modules/@tsconfig/svelte/tsconfig.json
{ "compilerOptions": { "paths": { "#from-node-modules": ["../../../lib/nm.ts"] } } }
//- apps/one/tsconfig.json
{ "extends": "@mono/tsconfig/base.json" }
//- apps/two/tsconfig.json
{ "extends": "@tsconfig/svelte" }
//- apps/three/tsconfig.json
{ "extends": "@acme/tsconfig/strictest.json", "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }
//- packages/ui/src/button.ts
export const button = 1
//- lib/nm.ts
export const nm = 1
""")
    assert ws.show("apps/one/src/main.ts", "~ui/button") == "packages/ui/src/button.ts"
    assert ws.show("apps/two/src/main.ts", "#from-node-modules") == "lib/nm.ts"
    r = ws.resolve("apps/three/src/main.ts", "@/nope")
    assert r.kind == MISSING
    assert r.doubt == ("apps/three/tsconfig.json extends @acme/tsconfig/strictest.json, which is not in the "
                       "workspace: the paths and baseUrl it may set are unknown")
    assert ws.notes() == [
        "apps/three/tsconfig.json: extends @acme/tsconfig/strictest.json, which is not in the workspace: "
        "the paths and baseUrl it may set are unknown",
    ]
    assert "node_modules/@acme/tsconfig/strictest.json" in ws.config.wanted
    assert "apps/three/node_modules/@acme/tsconfig/strictest.json" in ws.config.wanted


def test_broken_and_cyclic_configs_are_noted_and_ignored():
    ws = Workspace("""
//- tsconfig.json
{ "extends": "./tsconfig.a.json", "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }
//- tsconfig.a.json
{ "extends": "./tsconfig.json" }
//- packages/bad/tsconfig.json
{ "compilerOptions": { "paths": { "@/*": "./src/*" } } }
//- packages/worse/tsconfig.json
{ "compilerOptions": { "paths": {
//- src/x.ts
export const x = 1
""")
    assert ws.show("src/main.ts", "@/x") == "src/x.ts"
    assert ws.notes() == [
        "packages/bad/tsconfig.json: compilerOptions.paths '@/*' is not a pattern with a list of paths: ignored",
        "packages/worse/tsconfig.json: not valid JSON (line 2: Expecting property name enclosed in double quotes): ignored",
        "tsconfig.a.json: extends ./tsconfig.json, which extends this file again: the cycle is cut here",
    ]


# ---------------------------------------------------------------------------- files
def test_typescript_extension_rules():
    ws = Workspace("""
//- src/api/client.ts
export const client = {}
//- src/api/types.d.ts
export type T = {}
//- src/ui/Card.tsx
export const Card = 1
//- src/esm/util.mts
export const u = 1
//- src/cjs/legacy.cts
export const l = 1
//- src/users/user.service.ts
export class UserService {}
//- src/store/index.ts
export const store = {}
//- src/vendor/package.json
{ "name": "vendored", "main": "lib/main.js" }
//- src/vendor/lib/main.ts
export const main = 1
//- src/js/plain.js
export const plain = 1
//- src/logo.svg
<svg/>
""")
    main = "src/main.ts"
    assert ws.show(main, "./api/client.js") == "src/api/client.ts"
    assert ws.show(main, "./api/client") == "src/api/client.ts"
    assert ws.show(main, "./api/types.js") == "src/api/types.d.ts"
    assert ws.show(main, "./api/types") == "src/api/types.d.ts"
    assert ws.show(main, "./ui/Card.jsx") == "src/ui/Card.tsx"
    assert ws.show(main, "./esm/util.mjs") == "src/esm/util.mts"
    assert ws.show(main, "./cjs/legacy.cjs") == "src/cjs/legacy.cts"
    assert ws.show(main, "./users/user.service") == "src/users/user.service.ts"
    assert ws.show(main, "./store") == "src/store/index.ts"
    assert ws.show(main, "./store/") == "src/store/index.ts"
    assert ws.show(main, "./vendor") == "src/vendor/lib/main.ts"
    assert ws.show(main, "./js/plain.ts") == "src/js/plain.js"  # tsc strips .ts too
    assert ws.show(main, "./logo.svg?url") == "src/logo.svg"
    assert ws.show(main, "!!raw-loader!./logo.svg") == "src/logo.svg"
    assert ws.show(main, "./api/client/") == "missing"  # a trailing slash is a folder
    assert ws.show(main, "../../outside") == "missing"
    assert ws.show(main, "../src/api/client") == "src/api/client.ts"
    r = ws.resolve(main, "./nothing")
    assert r.probed == (
        "src/nothing.ts", "src/nothing.tsx", "src/nothing.d.ts", "src/nothing.js", "src/nothing.jsx",
        "src/nothing.mjs", "src/nothing.mts", "src/nothing.cjs", "src/nothing.cts", "src/nothing.vue",
        "src/nothing.svelte", "src/nothing/index.ts", "src/nothing/index.tsx", "src/nothing/index.d.ts",
        "src/nothing/index.js", "src/nothing/index.jsx", "src/nothing/index.mjs",
    )


def test_package_imports_field_and_builtins():
    ws = Workspace("""
//- package.json
{ "name": "worker", "type": "module", "imports": { "#db": "./src/db/index.js", "#lib/*": "./src/lib/*.js", "#dep": "pg" } }
//- src/db/index.ts
export const db = 1
//- src/lib/queue.ts
export const queue = 1
""")
    main = "src/main.ts"
    assert ws.show(main, "#db") == "src/db/index.ts"
    assert ws.show(main, "#lib/queue") == "src/lib/queue.ts"
    assert ws.show(main, "#dep") == "package:pg"
    assert ws.show(main, "#lib/nope") == "missing"
    assert ws.show(main, "#unknown") == "missing"
    assert ws.show(main, "node:fs/promises") == "package:node:fs/promises (node)"
    assert ws.show(main, "fs/promises") == "package:fs (node)"
    assert ws.show(main, "virtual:pwa-register") == "package:virtual:pwa-register (virtual)"


def test_last_resort_guess_only_when_no_configuration_speaks():
    files = """
//- src/lib/http.ts
export const http = 1
//- app/store.ts
export const store = 1
"""
    ws = Workspace(files)
    assert ws.show("src/routes/x.ts", "@/lib/http") == "src/lib/http.ts"
    assert ws.show("src/routes/x.ts", "~/store") == "app/store.ts"
    assert ws.resolve("src/routes/x.ts", "@/lib/http").via.startswith("guess: @/ is src/")
    ws = Workspace(files + """
//- tsconfig.json
{ "compilerOptions": { "paths": { "@/*": ["./lib/*"] } } }
""")
    assert ws.show("src/routes/x.ts", "@/lib/http") == "missing"  # paths says where @/ is
    assert ws.show("src/routes/x.ts", "~/store") == "app/store.ts"  # nothing says where ~/ is


def test_python_modules():
    ws = Workspace("""
//- app/__init__.py
//- app/api/__init__.py
//- app/api/client.py
import requests
//- app/settings.py
BASE = "/api"
//- src/billing/__init__.py
//- src/billing/invoices.py
//- tools/scripts/sync.py
import helpers
//- tools/scripts/helpers.py
//- tools/common.py
""")
    assert ws.show("app/api/client.py", ".") == "app/api/__init__.py"
    assert ws.show("app/api/client.py", "..settings") == "app/settings.py"
    assert ws.show("app/api/client.py", "...") == "missing"  # above the top package: the root has no __init__.py
    assert ws.show("app/api/client.py", "app.settings") == "app/settings.py"
    assert ws.show("app/api/client.py", "app.api") == "app/api/__init__.py"
    assert ws.show("app/api/client.py", "billing.invoices") == "src/billing/invoices.py"
    assert ws.show("tools/scripts/sync.py", "helpers") == "tools/scripts/helpers.py"
    assert ws.show("tools/scripts/sync.py", "common") == "tools/common.py"
    assert ws.show("app/api/client.py", "requests") == "package:requests"
    assert ws.show("app/api/client.py", "requests.adapters") == "package:requests"
    assert ws.show("app/api/client.py", ".missing") == "missing"
    assert ws.resolve("app/api/client.py", "app.settings").probed == ("app/settings.py",)
    # the language decides, not the specifier's look
    assert ws.show("web/x.ts", "app.settings") == "package:app.settings"
    assert ws.show("web/x.ts", "app.settings", language="python") == "app/settings.py"


# ---------------------------------------------------------------------------- memo, probes
def test_answers_are_memoized_per_folder_and_context():
    ws = Workspace(VITE_VUE_APP)
    first = ws.resolve("src/components/LedgerTable.vue", "@/api/client")
    asked = len(ws.asked)
    assert asked == len(first.probed) > 0
    again = ws.resolve("src/components/charts/Bar.vue", "@/api/client")  # same context, another folder
    assert again is first and len(ws.asked) == asked
    rel1 = ws.resolve("src/components/LedgerTable.vue", "../api/client")
    rel2 = ws.resolve("src/main.ts", "./api/client")  # the same target
    assert rel1 is rel2
    # a fresh resolver asks again (a new batch sees new files)
    ws.files["src/api/client.js"] = ""
    fresh = Resolver(ws.config, ws.files.__contains__)
    assert fresh.resolve("src/main.ts", "./api/client").path == "src/api/client.ts"


def test_a_failing_exists_is_not_memoized():
    ws = Workspace(SVELTEKIT_APP)
    calls = []

    def exists(path: str) -> bool:
        calls.append(path)
        if len(calls) == 1:
            raise LookupError("not yet extracted")
        return path in ws.files

    r = Resolver(ws.config, exists)
    with pytest.raises(LookupError):
        r.resolve("src/routes/recipes/+page.js", "$lib/http.js")
    assert r.resolve("src/routes/recipes/+page.js", "$lib/http.js").path == "src/lib/http.js"


def test_construction_is_deterministic():
    a = Workspace(MONOREPO + VITE_VUE_APP.replace("//- ", "//- ui/"))
    files = split(MONOREPO + VITE_VUE_APP.replace("//- ", "//- ui/"))
    reversed_configs = {p: files[p] for p in reversed(list(files)) if is_resolver_config(p)}
    b = ResolverConfig.build(reversed_configs)
    assert a.config.notes == b.notes and a.config.wanted == tuple(sorted(b.wanted, key=list(a.config.wanted).index))
    rb = Resolver(b, files.__contains__)
    for importer, spec in [("ui/src/main.ts", "@/api/client"), ("apps/web/src/pages/home.ts", "@acme/sdk"),
                           ("apps/admin/app/main.ts", "@/lib/session")]:
        assert a.resolve(importer, spec) == rb.resolve(importer, spec)


@pytest.mark.parametrize(("path", "expected"), [
    ("package.json", True), ("apps/web/package.json", True), ("tsconfig.json", True),
    ("tsconfig.app.json", True), ("packages/x/tsconfig.build.json", True), ("jsconfig.json", True),
    ("svelte.config.js", True), ("nuxt.config.ts", True), ("vite.config.mts", True),
    ("webpack.config.js", True), ("webpack.common.js", True), ("vue.config.js", True),
    ("src/vite.config.ts", True), ("package-lock.json", False), ("src/config.ts", False),
    ("tsconfig.ts", False), ("vite.config.json", False), ("README.md", False), ("svelte.config", False),
])
def test_is_resolver_config(path, expected):
    assert is_resolver_config(path) is expected


def test_an_empty_workspace_config_resolves_relatives_and_packages():
    config = ResolverConfig.build({})
    assert config.notes == () and config.wanted == () and config.files == ()
    r = Resolver(config, {"a/b.ts"}.__contains__)
    assert r.resolve("a/main.ts", "./b").path == "a/b.ts"
    assert r.resolve("a/main.ts", "react").kind == PACKAGE
    assert r.resolve("a/main.ts", "").kind == MISSING
    assert (NODE, NUXT, SVELTEKIT, VIRTUAL) == ("node", "nuxt", "sveltekit", "virtual")


def test_aliases_belong_to_their_project_folder():
    ws = Workspace("""
//- apps/shop/package.json
{ "name": "shop", "devDependencies": { "vite": "^5.0.0" } }
//- apps/shop/vite.config.ts
import { defineConfig } from 'vite'
export default defineConfig({
  resolve: { alias: { '@': '/src', '~assets': './src/assets', '@fallback': ['./src/one', './src/two'] } },
})
//- apps/shop/src/cart.ts
export const cart = 1
//- apps/shop/src/assets/logo.ts
export default ''
//- apps/shop/src/two/x.ts
export const x = 1
//- apps/blog/src/cart.ts
export const cart = 2
""")
    assert ws.show("apps/shop/src/pages/a.ts", "@/cart") == "apps/shop/src/cart.ts"
    assert ws.show("apps/shop/src/pages/a.ts", "~assets/logo") == "apps/shop/src/assets/logo.ts"
    assert ws.show("apps/shop/src/pages/a.ts", "@fallback/x") == "apps/shop/src/two/x.ts"
    assert ws.show("apps/shop/src/pages/a.ts", "/src/cart") == "apps/shop/src/cart.ts"
    # another app: the shop's alias does not apply, the old guess does (from the workspace root)
    assert ws.resolve("apps/blog/src/pages/a.ts", "@/cart").via.startswith("guess:")


def test_tsconfig_wins_over_jsconfig_in_one_folder():
    ws = Workspace("""
//- tsconfig.json
{ "compilerOptions": { "paths": { "~lib/*": ["./lib/ts/*"] } } }
//- jsconfig.json
{ "compilerOptions": { "paths": { "~lib/*": ["./lib/js/*"] } } }
//- lib/ts/a.ts
export const a = 1
//- lib/js/a.js
export const a = 2
""")
    assert ws.show("main.ts", "~lib/a") == "lib/ts/a.ts"


def test_a_generated_nuxt_tsconfig_alone_is_enough_to_know_nuxt():
    ws = Workspace("""
//- tsconfig.json
{ "extends": "./.nuxt/tsconfig.json" }
//- utils/format.ts
export const format = 1
""")
    r = ws.resolve("pages/index.vue", "~/utils/format")
    assert (r.path, r.doubt) == ("utils/format.ts", "")
    assert ws.show("pages/index.vue", "#imports") == "package:#imports (nuxt)"
    assert ".nuxt/tsconfig.json" in ws.config.wanted


def test_nuxt4_solution_tsconfig_referencing_generated_files():
    ws = Workspace("""
//- tsconfig.json
{
  "files": [],
  "references": [
    { "path": "./.nuxt/tsconfig.app.json" },
    { "path": "./.nuxt/tsconfig.server.json" },
    { "path": "./.nuxt/tsconfig.shared.json" },
    { "path": "./.nuxt/tsconfig.node.json" }
  ]
}
//- app/composables/useOrders.ts
export function useOrders() {}
""")
    assert ws.show("app/pages/index.vue", "~/composables/useOrders") == "app/composables/useOrders.ts"
    assert ws.notes() == [
        "tsconfig.json: references ./.nuxt/tsconfig.app.json, which is not in the workspace: "
        "Nuxt's aliases (~, @, ~~, @@) assumed",
    ]
    assert ".nuxt/tsconfig.app.json" in ws.config.wanted


def test_config_files_read_on_request_are_listed():
    ws = Workspace("""
//- web/tsconfig.json
{ "extends": "../config/base", "references": [{ "path": "../lib" }] }
//- config/base.json
{ "compilerOptions": { "baseUrl": "../web/src" } }
//- web/src/util.ts
export const util = 1
""")
    assert ws.config.files == ("config/base.json", "web/tsconfig.json")
    assert ws.config.wanted == ("config/base", "lib/tsconfig.json")
    assert not is_resolver_config("config/base.json")
    assert ws.show("web/src/pages/a.ts", "util") == "web/src/util.ts"


def test_building_and_resolving_leave_no_reference_cycles():
    """The index freezes what a build allocated instead of collecting it (docs/architecture.md)."""
    import gc

    files = split(SVELTEKIT_APP + VITE_VUE_APP.replace("//- ", "//- web/") + MONOREPO)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        config = ResolverConfig.build({p: t for p, t in files.items() if is_resolver_config(p)}, files.get)
        resolver = Resolver(config, files.__contains__)
        for importer in ("src/routes/recipes/+page.js", "web/src/main.ts", "apps/web/src/pages/home.ts"):
            for spec in ("$lib/http.js", "@/api/client", "@acme/sdk", "./nothing", "react", "~/x"):
                resolver.resolve(importer, spec)
        assert resolver.resolve("web/src/main.ts", "@/api/client").path == "web/src/api/client.ts"
        del config, resolver
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


# ---------------------------------------------------------------------------- missing configuration
DOTNET_SPA = """
//- package.json
{ "name": "tv-manager", "dependencies": { "react": "18.3.1", "lodash": "4.17.21" } }
//- tsconfig.json
{ "extends": "./frontend/tsconfig.json" }
//- frontend/src/Helpers/Hooks/useApiQuery.ts
export default function useApiQuery() {}
//- frontend/src/Series/useSeries.ts
import useApiQuery from 'Helpers/Hooks/useApiQuery';
import React from 'react';
"""


def test_a_bare_specifier_no_dependency_provides_is_tried_as_a_base_url_when_the_config_is_missing():
    ws = Workspace(DOTNET_SPA)
    r = ws.resolve("frontend/src/Series/useSeries.ts", "Helpers/Hooks/useApiQuery")
    assert (r.kind, r.path) == (FILE, "frontend/src/Helpers/Hooks/useApiQuery.ts")
    assert r.via.startswith("guess: a baseUrl of frontend/src") and r.doubt
    assert "frontend/src/Series/Helpers/Hooks/useApiQuery.ts" in r.probed  # nearest folder first
    assert ws.show("frontend/src/Series/useSeries.ts", "react") == "package:react"  # a dependency: never guessed
    assert ws.show("frontend/src/Series/useSeries.ts", "Components/Nope") == "package:Components"


def test_no_base_url_guess_when_the_configuration_is_complete():
    ws = Workspace(DOTNET_SPA.replace('{ "extends": "./frontend/tsconfig.json" }', "{}"))
    assert ws.show("frontend/src/Series/useSeries.ts", "Helpers/Hooks/useApiQuery") == "package:Helpers"


def test_root_dirs_make_one_virtual_folder_for_relative_imports():
    ws = Workspace("""
//- app/tsconfig.json
{ "extends": "./tsconfig.base.json", "include": ["src"] }
//- app/tsconfig.base.json
{ "compilerOptions": { "rootDirs": ["./src", "./.generated"] } }
//- app/src/routes/invoice.ts
import { schema } from './invoice.schema';
//- app/.generated/routes/invoice.schema.ts
export const schema = {};
//- app/src/routes/local.ts
export const local = 1;
""")
    r = ws.resolver.resolve("app/src/routes/invoice.ts", "./invoice.schema")
    assert (r.kind, r.path) == (FILE, "app/.generated/routes/invoice.schema.ts")
    assert "rootDirs" in r.via
    # the other way round, and a file in neither stays missing (with both places probed)
    back = ws.resolver.resolve("app/.generated/routes/invoice.schema.ts", "./local")
    assert (back.kind, back.path) == (FILE, "app/src/routes/local.ts")
    gone = ws.resolver.resolve("app/src/routes/invoice.ts", "./invoice.types")
    assert gone.kind == MISSING and "app/.generated/routes/invoice.types.ts" in gone.probed


def test_paths_to_an_installed_package_folder_give_the_package_mapped():
    """Nuxt's generated tsconfig maps `vue-router` to `node_modules/vue-router`: a folder
    whose package.json names the entry. The specifier is that package, and the mapping is
    said (the import checks do not call it undeclared); a mapping into the workspace that
    fails is a plain fallback."""
    ws = Workspace("""
//- tsconfig.json
{ "compilerOptions": { "paths": { "vue-router": ["./node_modules/vue-router"], "lodash": ["./vendor/lodash"] } } }
//- src/main.ts
export {}
""")
    r = ws.resolve("src/main.ts", "vue-router")
    assert (r.kind, r.package) == ("package", "vue-router")
    assert r.mapped == "paths 'vue-router' of tsconfig.json"
    other = ws.resolve("src/main.ts", "lodash")
    assert (other.kind, other.package, other.mapped) == ("package", "lodash", "")
    assert ws.resolve("src/main.ts", "react").mapped == ""


def test_paths_to_a_package_folder_read_the_package_before_its_index():
    """tsc reads a mapped folder's package.json before any index file: `vue`'s root
    `index.js` (CommonJS) is not what `import { ref } from 'vue'` names. A mapping into
    another package's own dependencies (Nuxt maps `h3` into nitro's copy) is doubted:
    the project's copy may export other names."""
    ws = Workspace("""
//- tsconfig.json
{ "compilerOptions": { "paths": {
    "vue": ["./node_modules/vue"],
    "h3": ["./node_modules/@nuxt/nitro-server/node_modules/h3"],
    "@acme/ui": ["./web/node_modules/@acme/ui"] } } }
//- node_modules/vue/package.json
{ "name": "vue", "types": "dist/vue.d.mts" }
//- node_modules/vue/index.js
module.exports = require('./dist/vue.cjs.js')
//- web/node_modules/@acme/ui/package.json
{ "name": "@acme/ui" }
//- src/main.ts
export {}
""")
    vue = ws.resolve("src/main.ts", "vue")
    assert (vue.kind, vue.package, vue.mapped) == ("package", "vue", "paths 'vue' of tsconfig.json")
    assert "node_modules/vue/index.js" not in vue.probed
    ui = ws.resolve("src/main.ts", "@acme/ui")
    assert (ui.kind, ui.package, bool(ui.mapped)) == ("package", "@acme/ui", True)
    h3 = ws.resolve("src/main.ts", "h3")
    assert (h3.kind, h3.package) == ("package", "h3") and "another package's dependencies" in h3.doubt
