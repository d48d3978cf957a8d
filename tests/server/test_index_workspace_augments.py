"""A workspace declaration file that augments an installed package (`declare module
'@shop/kit'` in a file that imports or exports: GraphQL codegen output, a `declare module
'vue'` beside `export {}`) leaves the package judged, with the names its blocks add; a
global script's `declare module` still declares the module (not judged). Edits of the
augmentation re-judge its importers. Real files, the real index; packages of our own."""

from __future__ import annotations

import json
from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree

AUGMENT = ("import type { Cart } from '@shop/kit';\n"
           "export type CartQuery = { cart: Cart };\n"
           "declare module '@shop/kit' {\n"
           "  interface StorefrontQueries { cart: CartQuery }\n"
           "  export function useCartQuery(): CartQuery;\n"
           "}\n")

STORE = {
    "package.json": json.dumps({"name": "storefront", "private": True, "type": "module",
                                "dependencies": {"@shop/kit": "^3.1.0"}}) + "\n",
    "node_modules/@shop/kit/package.json": json.dumps({"name": "@shop/kit", "version": "3.1.0", "type": "module",
                                                       "types": "dist/index.d.ts"}) + "\n",
    "node_modules/@shop/kit/dist/index.d.ts": ("export interface Cart { id: string }\n"
                                               "export interface StorefrontQueries {}\n"
                                               "export declare function createCart(): Cart;\n"),
    "storefront.generated.d.ts": AUGMENT,
    "app/cart.ts": ("import { createCart, useCartQuery } from '@shop/kit';\n"
                    "import { createCrt } from '@shop/kit';\n"
                    "export const cart = [createCart(), useCartQuery(), createCrt];\n"),
}


def _missing(idx: WorkspaceIndex) -> list[str]:
    return [f.message for rel in sorted(idx.facts) for f in idx.findings(rel) if f.code == "missing-export"]


def test_an_augmented_package_is_judged_with_the_names_the_workspace_adds(tmp_path: Path):
    root = write_tree(tmp_path, STORE)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _missing(idx) == ["'createCrt' is not exported by '@shop/kit' (node_modules/@shop/kit/dist/index.d.ts) "
                             "(did you mean 'createCart'?)"]
    # the codegen runs again without the hook: its import is judged again
    idx.update("storefront.generated.d.ts", AUGMENT.replace("  export function useCartQuery(): CartQuery;\n", ""))
    got = _missing(idx)
    assert len(got) == 2 and got[0].startswith("'useCartQuery' is not exported by '@shop/kit'"), got


def test_a_global_script_declares_the_module_and_nothing_is_judged(tmp_path: Path):
    files = dict(STORE)
    files["storefront.generated.d.ts"] = AUGMENT.replace("import type { Cart } from '@shop/kit';\n", "") \
        .replace("export type CartQuery", "type CartQuery").replace("{ cart: Cart }", "{ cart: unknown }")
    idx = WorkspaceIndex(write_tree(tmp_path, files), use_cache=False)
    idx.build()
    assert _missing(idx) == []
