"""What a framework writes into its generated folder (`.nuxt/`, `.svelte-kit/`, not walked)
and tsc reads through the framework's tsconfig:

- `paths` that map a package name to an installed package's folder (Nuxt maps `vue-router`,
  `consola`, `h3`... so that they resolve whatever the package manager hoists): such an
  import is the configuration's, not an undeclared dependency;
- `declare module 'pkg' { ... }` blocks that add names to a package (`@nuxt/content`'s
  generated collection types): those names are exported by the package, and a misspelled
  one is still a missing export, with the added names among the suggestions.

Real files on disk, the real index; the layout is the one `nuxi prepare` writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree

_NUXT_TSCONFIG = {
    "compilerOptions": {"paths": {
        "~": ["../app"], "~/*": ["../app/*"],
        "vue-router": ["../node_modules/vue-router"],
        "#app": ["../node_modules/nuxt/dist/app"],
    }},
    "include": ["./nuxt.d.ts", "../app/**/*"],
}

APP = {
    "package.json": json.dumps({"name": "handbook", "private": True, "type": "module",
                                "dependencies": {"nuxt": "^4.0.0", "@acme/pages": "^3.0.0"}}) + "\n",
    "nuxt.config.ts": "export default defineNuxtConfig({ modules: ['@acme/pages'] })\n",
    "tsconfig.json": json.dumps({"files": [], "references": [{"path": "./.nuxt/tsconfig.app.json"}]}) + "\n",
    ".nuxt/tsconfig.app.json": json.dumps(_NUXT_TSCONFIG) + "\n",
    ".nuxt/nuxt.d.ts": '/// <reference path="pages/types.d.ts" />\nexport {}\n',
    ".nuxt/pages/types.d.ts": (
        "import type { PageBase } from '@acme/pages'\n"
        "declare module '@acme/pages' {\n"
        "  interface GuideItem extends PageBase {\n    chapter: number\n  }\n"
        "  interface Collections {\n    guide: GuideItem\n  }\n"
        "}\n"),
    "node_modules/@acme/pages/package.json": json.dumps({"name": "@acme/pages", "version": "3.1.0",
                                                         "types": "./dist/index.d.ts"}) + "\n",
    "node_modules/@acme/pages/dist/index.d.ts": (
        "export interface PageBase { path: string; title: string }\n"
        "export interface Collections {}\n"
        "export declare function queryPages(name: string): Promise<PageBase[]>\n"),
    "node_modules/vue-router/package.json": json.dumps({"name": "vue-router", "version": "4.5.0",
                                                        "types": "./dist/vue-router.d.ts"}) + "\n",
    "node_modules/vue-router/dist/vue-router.d.ts": "export declare function useRoute(): { path: string }\n",
    "node_modules/nuxt/package.json": json.dumps({"name": "nuxt", "version": "4.1.0"}) + "\n",
    "node_modules/nuxt/dist/app/index.d.ts": "export declare function useNuxtApp(): unknown\n",
    "node_modules/ufo/package.json": json.dumps({"name": "ufo", "version": "1.6.0", "types": "./dist/index.d.ts"}) + "\n",
    "node_modules/ufo/dist/index.d.ts": "export declare function joinURL(...parts: string[]): string\n",
    "app/pages/guide.vue": (
        "<script setup lang=\"ts\">\n"
        "import type { GuideItem, PageBase } from '@acme/pages'\n"  # added by .nuxt/pages/types.d.ts
        "import { useRoute } from 'vue-router'\n"  # undeclared, but Nuxt's paths map it
        "import { useNuxtApp } from '#app'\n"
        "const route = useRoute()\n"
        "defineProps<{ page: GuideItem; parent?: PageBase }>()\n"
        "</script>\n"),
    "app/utils/links.ts": (
        "import type { GuideItm } from '@acme/pages'\n"  # a typo: tsc TS2724
        "import { joinURL } from 'ufo'\n"  # undeclared and not mapped: still a warning
        "export const link = (g: GuideItm) => joinURL('/guide', String(g.chapter))\n"),
}


def _ws(root: Path) -> Path:
    return write_tree(root, APP)


def _imports(idx: WorkspaceIndex) -> list[tuple[str, str, str]]:
    return [(rel, f.code, f.message) for rel in sorted(idx.facts) for f in idx.findings(rel)
            if f.code in ("phantom-import", "missing-export", "undeclared-dependency")]


def test_names_a_generated_block_adds_are_exported_and_mapped_packages_are_not_undeclared(tmp_path: Path):
    idx = WorkspaceIndex(_ws(tmp_path), use_cache=False)
    idx.build()
    assert ".nuxt/pages/types.d.ts" not in idx.facts  # not a workspace file: read for its blocks only
    found = _imports(idx)
    assert [(rel, code) for rel, code, _ in found] == [
        ("app/utils/links.ts", "missing-export"), ("app/utils/links.ts", "undeclared-dependency")], found
    assert "'GuideItm' is not exported by '@acme/pages'" in found[0][2]
    assert "did you mean 'GuideItem'?" in found[0][2]  # the generated block's names are suggested
    assert "'ufo' is not declared" in found[1][2]


def test_without_the_generated_folder_the_added_name_is_missing(tmp_path: Path):
    """Before `nuxi prepare` (a fresh clone) tsc cannot see the block either: the name is
    missing from the package, and the mapping is gone, so `vue-router` is undeclared."""
    root = _ws(tmp_path)
    for rel in [r for r in APP if r.startswith(".nuxt/")]:
        os.remove(root / rel)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    got = {(rel, code, msg.split(" (")[0]) for rel, code, msg in _imports(idx)}
    assert ("app/pages/guide.vue", "missing-export", "'GuideItem' is not exported by '@acme/pages'") in got
    assert ("app/pages/guide.vue", "undeclared-dependency", "'vue-router' is not declared in package.json") in got


def test_a_regenerated_block_is_read_again_at_the_next_start(tmp_path: Path):
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root)  # with the cache
    idx.build()
    idx.facts.wait_stored()
    assert [code for _, code, _ in _imports(idx)] == ["missing-export", "undeclared-dependency"]
    # the module's next `prepare` declares the other name too (the walk saw nothing change)
    (root / ".nuxt/pages/types.d.ts").write_text(APP[".nuxt/pages/types.d.ts"].replace(
        "  interface Collections {", "  interface GuideItm extends GuideItem {}\n  interface Collections {"))
    again = WorkspaceIndex(root)
    again.build()
    assert again.stats["relinked_files"] > 0
    assert [code for _, code, _ in _imports(again)] == ["undeclared-dependency"]


def test_a_block_rewritten_unchanged_keeps_the_cached_verdicts(tmp_path: Path):
    """Frameworks rewrite their generated folder at every start (`nuxi dev`, `vite dev`):
    the same text again judges nothing again."""
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root)
    idx.build()
    idx.facts.wait_stored()
    block = root / ".nuxt/pages/types.d.ts"
    block.write_text(block.read_text())
    os.utime(block, ns=(block.stat().st_atime_ns, block.stat().st_mtime_ns + 5_000_000_000))
    again = WorkspaceIndex(root)
    again.build()
    assert again.stats["relinked_files"] == 0
    assert [code for _, code, _ in _imports(again)] == ["missing-export", "undeclared-dependency"]


def test_a_link_out_of_the_workspace_is_not_read(tmp_path: Path):
    outside = tmp_path / "elsewhere"
    (outside / "pages").mkdir(parents=True)
    (outside / "pages/types.d.ts").write_text(APP[".nuxt/pages/types.d.ts"].replace("GuideItem", "GuideItm"))
    root = tmp_path / "ws"
    root.mkdir()
    _ws(root)
    os.remove(root / ".nuxt/pages/types.d.ts")
    os.rmdir(root / ".nuxt/pages")
    os.symlink(outside / "pages", root / ".nuxt/pages")
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    got = [(rel, code, msg.split(" (")[0]) for rel, code, msg in _imports(idx)]
    # the linked block (which would add GuideItm) is not read: GuideItem is missing, GuideItm too
    assert ("app/pages/guide.vue", "missing-export", "'GuideItem' is not exported by '@acme/pages'") in got
    assert ("app/utils/links.ts", "missing-export", "'GuideItm' is not exported by '@acme/pages'") in got


def test_names_from_a_mapped_package_folder_are_judged_by_its_types(tmp_path: Path):
    """Nuxt maps `vue` to `node_modules/vue`, whose root holds a CommonJS `index.js`: tsc
    reads the folder's package.json first, so the names are judged against its types."""
    tsconfig = json.loads(APP[".nuxt/tsconfig.app.json"])
    tsconfig["compilerOptions"]["paths"]["vue"] = ["../node_modules/vue"]
    files = {**APP, ".nuxt/tsconfig.app.json": json.dumps(tsconfig) + "\n",
             "node_modules/vue/package.json": json.dumps({"name": "vue", "version": "3.5.0",
                                                          "types": "./dist/vue.d.ts"}) + "\n",
             "node_modules/vue/index.js": "module.exports = require('./dist/vue.cjs.js')\n",
             "node_modules/vue/dist/vue.d.ts": "export declare function ref<T>(v: T): { value: T }\n",
             "app/utils/counter.ts": "import { ref, reff } from 'vue'\nexport const n = ref(reff)\n"}
    idx = WorkspaceIndex(write_tree(tmp_path, files), use_cache=False)
    idx.build()
    got = [(rel, code, msg.split(" (")[0]) for rel, code, msg in _imports(idx) if rel == "app/utils/counter.ts"]
    assert got == [("app/utils/counter.ts", "missing-export", "'reff' is not exported by 'vue'")]


# ------------------------------------------------------------------ while the server runs
# (`nuxi dev` rewrites the folder at every start; `nuxi prepare` after adding a module adds
# blocks; `nuxi cleanup` removes it): the file watcher reports such a file, the index reads
# the folder again, and only what changed is judged again

REGENERATED = APP[".nuxt/pages/types.d.ts"].replace(
    "  interface Collections {", "  interface GuideItm extends GuideItem {}\n  interface Collections {")


def test_the_generated_files_the_checks_read_are_tracked(tmp_path: Path):
    idx = WorkspaceIndex(_ws(tmp_path), use_cache=False)
    idx.build()
    assert idx.tracked(".nuxt/pages/types.d.ts")
    assert idx.tracked(".nuxt/content/types.d.mts")  # one that may appear
    assert idx.tracked(".nuxt/tsconfig.app.json")  # the resolver reads it
    assert not idx.tracked(".nuxt/node_modules/x/index.d.ts")
    assert not idx.tracked(".nuxt/dist/server/app.mjs")
    assert not idx.tracked("vendor/.nuxt/types.d.ts")  # no npm project in vendor/
    assert idx.generated_below(".nuxt") == {".nuxt/tsconfig.app.json", ".nuxt/nuxt.d.ts", ".nuxt/pages/types.d.ts"}
    assert idx.generated_below("app") == set()


def test_a_block_regenerated_while_running_is_read_again(tmp_path: Path):
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert [code for _, code, _ in _imports(idx)] == ["missing-export", "undeclared-dependency"]
    (root / ".nuxt/pages/types.d.ts").write_text(REGENERATED)
    changed = idx.update_from_disk(".nuxt/pages/types.d.ts")
    assert "app/utils/links.ts" in changed
    assert [code for _, code, _ in _imports(idx)] == ["undeclared-dependency"]
    # rewritten with the same text (the next `nuxi dev`): nothing is judged again
    key = idx._links_key
    (root / ".nuxt/pages/types.d.ts").write_text(REGENERATED)
    assert idx.update_from_disk(".nuxt/pages/types.d.ts") == set()
    assert idx._links_key == key
    # a generated file without a block changes nothing either
    (root / ".nuxt/nuxt.d.ts").write_text('/// <reference path="pages/types.d.ts" />\nexport {}\n// again\n')
    assert idx.update_from_disk(".nuxt/nuxt.d.ts") == set()


def test_a_removed_generated_folder_is_seen_while_running(tmp_path: Path):
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    below = idx.generated_below(".nuxt")
    for rel in [r for r in APP if r.startswith(".nuxt/")]:
        os.remove(root / rel)
    changed: set[str] = set()
    for rel in sorted(below):
        changed |= idx.update_from_disk(rel)
    assert "app/pages/guide.vue" in changed
    got = {(rel, code, msg.split(" (")[0]) for rel, code, msg in _imports(idx)}
    # the same verdicts as a start without the folder (test_without_the_generated_folder_...)
    assert ("app/pages/guide.vue", "missing-export", "'GuideItem' is not exported by '@acme/pages'") in got
    assert ("app/pages/guide.vue", "undeclared-dependency", "'vue-router' is not declared in package.json") in got
