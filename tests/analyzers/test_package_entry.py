"""Which file of an installed package an import names (analyzers/package_entry.py)."""

from __future__ import annotations

import json

from specward.analyzers.package_entry import (NO_SUBPATH, TYPED, UNKNOWN, UNTYPED, Entry, declaration_of,
                                              esm_declarations, exported_subpaths, installed_entry, package_of)

PKG = "node_modules/lib"


def entry(manifest: dict | str | None, files: set[str], sub: str = ""):
    text = manifest if isinstance(manifest, str) or manifest is None else json.dumps(manifest)
    return installed_entry(PKG, sub, text, lambda p: p in files)


def test_types_come_from_the_conditions_typescript_matches():
    """A `react-server` or `browser` entry written first may declare less than the one tsc
    reads; a subpath only some other environment resolves still exists."""
    manifest = {"exports": {
        ".": {"react-server": {"module": "./dist/server.mjs"},
              "browser": {"types": "./dist/browser.d.ts", "default": "./dist/browser.js"},
              "import": {"types": "./dist/index.d.mts", "default": "./dist/index.mjs"}},
        "./worker": {"worker": {"types": "./dist/worker.d.ts", "default": "./dist/worker.js"}},
        "./edge": {"edge-light": "./dist/edge.js", "default": "./dist/edge-default.js"},
    }}
    files = {f"{PKG}/dist/{f}" for f in ("server.mjs", "server.d.mts", "browser.d.ts", "browser.js", "index.d.mts",
                                         "index.mjs", "worker.d.ts", "worker.js", "edge.js", "edge.d.ts",
                                         "edge-default.js")}
    assert entry(manifest, files) == Entry(TYPED, f"{PKG}/dist/index.d.mts", "")
    assert entry(manifest, files, "worker") == Entry(TYPED, f"{PKG}/dist/worker.d.ts", "")  # nothing else leads there
    # tsc reads the untyped default (an implicit any): its names are not judged
    assert entry(manifest, files, "edge") == Entry(UNTYPED, f"{PKG}/dist/edge-default.js", "")


def test_types_field_then_main_substitution_then_index():
    assert entry({"types": "dist/types.d.ts"}, {f"{PKG}/dist/types.d.ts"}) == Entry(TYPED, f"{PKG}/dist/types.d.ts", "")
    assert entry({"typings": "./out/index"}, {f"{PKG}/out/index.d.ts"}).path == f"{PKG}/out/index.d.ts"
    # main: lib/main.js -> lib/main.d.ts, as TypeScript reads it
    assert entry({"main": "lib/main.js"}, {f"{PKG}/lib/main.js", f"{PKG}/lib/main.d.ts"}).kind == TYPED
    assert entry({"main": "lib/main.js"}, {f"{PKG}/lib/main.js"}) == Entry(UNTYPED, f"{PKG}/lib/main.js", "")
    assert entry({}, {f"{PKG}/index.d.ts"}).path == f"{PKG}/index.d.ts"
    assert entry({}, set()).kind == UNKNOWN  # files missing: a broken install is trusted


def test_exports_conditions_patterns_and_null():
    manifest = {"exports": {
        ".": {"import": {"types": "./esm/index.d.mts", "default": "./esm/index.mjs"}, "require": "./cjs/index.cjs"},
        "./feature/*": "./dist/feature/*.js",
        "./private/*": None,
    }}
    files = {f"{PKG}/esm/index.d.mts", f"{PKG}/esm/index.mjs", f"{PKG}/dist/feature/a.js", f"{PKG}/dist/feature/a.d.ts",
             f"{PKG}/dist/private/x.d.ts", f"{PKG}/dist/other.d.ts"}
    assert entry(manifest, files).path == f"{PKG}/esm/index.d.mts"
    assert entry(manifest, files, "feature/a").path == f"{PKG}/dist/feature/a.d.ts"
    assert entry(manifest, files, "private/x") == Entry(NO_SUBPATH, None, "exports")  # null: not exported
    assert entry(manifest, files, "dist/other").why == "exports"  # a file that exists, not exported
    assert entry(manifest, files, "feature/missing").kind == UNKNOWN  # exported, but its file is not there
    assert entry({"exports": "./main.js"}, {f"{PKG}/main.js"}, "sub").kind == NO_SUBPATH


def test_subpaths_without_exports():
    files = {f"{PKG}/fp.js", f"{PKG}/fp.d.ts", f"{PKG}/locale/index.js", f"{PKG}/data.json", f"{PKG}/styles.css",
             f"{PKG}/nested/package.json"}
    assert entry({}, files, "fp").path == f"{PKG}/fp.d.ts"
    assert entry({}, files, "fp.js").path == f"{PKG}/fp.d.ts"
    assert entry({}, files, "locale") == Entry(UNTYPED, f"{PKG}/locale/index.js", "")
    assert entry({}, files, "data.json").kind == UNTYPED
    assert entry({}, files, "data").kind == UNTYPED
    assert entry({}, files, "styles.css").kind == UNTYPED
    assert entry({}, files, "nested").kind == UNKNOWN  # its own package.json decides
    assert entry({}, files, "missing") == Entry(NO_SUBPATH, None, "files")
    assert entry({}, files, "../escape").kind == UNKNOWN


def test_an_unreadable_manifest_is_trusted():
    assert entry(None, {f"{PKG}/index.d.ts"}).kind == UNKNOWN
    assert entry("{ not json", {f"{PKG}/index.d.ts"}).kind == UNKNOWN
    assert entry("[1, 2]", {f"{PKG}/index.d.ts"}).kind == UNKNOWN


def test_declaration_of():
    assert declaration_of("a/b.js") == "a/b.d.ts"
    assert declaration_of("a/b.mjs") == "a/b.d.mts"
    assert declaration_of("a/b.cjs") == "a/b.d.cts"
    assert declaration_of("a/b.ts") is None


def test_types_for_an_older_typescript_come_last():
    """DefinitelyTyped's `"types@<=5.0"` condition (its `ts5.0/` copies) comes first in
    `@types/react`'s exports; tsc 5.1 and later take the plain `types`."""
    manifest = {"exports": {".": {"types@<=5.0": {"default": "./ts5.0/index.d.ts"}, "types": {"default": "./index.d.ts"}}}}
    both = {f"{PKG}/ts5.0/index.d.ts", f"{PKG}/index.d.ts"}
    assert entry(manifest, both).path == f"{PKG}/index.d.ts"
    assert entry(manifest, {f"{PKG}/ts5.0/index.d.ts"}).path == f"{PKG}/ts5.0/index.d.ts"  # still a fallback


def test_the_package_a_path_belongs_to():
    assert package_of("node_modules/@types/react/canary.d.ts") == ("node_modules/@types/react", "react")
    assert package_of("node_modules/@types/babel__core/index.d.ts") == ("node_modules/@types/babel__core", "@babel/core")
    assert package_of("web/node_modules/express/lib/index.d.ts") == ("web/node_modules/express", "express")
    assert package_of("node_modules/a/node_modules/@scope/b/x.d.ts") == ("node_modules/a/node_modules/@scope/b", "@scope/b")
    assert package_of("src/index.d.ts") is None
    assert package_of("node_modules/@scope") is None


def test_the_subpaths_a_package_exports_one_by_one():
    manifest = json.dumps({"exports": {".": "./index.js", "./canary": {"types": "./canary.d.ts"}, "./jsx-runtime": "./j.js",
                                       "./feature/*": "./f/*.js", "./package.json": "./package.json"}})
    assert exported_subpaths(manifest) == ("canary", "jsx-runtime")
    assert exported_subpaths(json.dumps({"exports": "./index.js"})) == ()
    assert exported_subpaths(json.dumps({"main": "index.js"})) == ()
    assert exported_subpaths("{ not json") == () and exported_subpaths(None) == ()


def test_which_declaration_files_are_es_modules():
    """What decides whether a default import of a package without `export default` is
    `module.exports` (CommonJS) or an error (an ES module): the extension, then the
    package's `type` (not a `type` key inside another field)."""
    esm = json.dumps({"name": "lib", "type": "module"})
    cjs = json.dumps({"name": "lib", "repository": {"type": "git", "url": "x"}})
    assert esm_declarations(f"{PKG}/index.d.mts", cjs)
    assert not esm_declarations(f"{PKG}/index.d.cts", esm)
    assert esm_declarations(f"{PKG}/index.d.ts", esm)
    assert not esm_declarations(f"{PKG}/index.d.ts", cjs)
    assert not esm_declarations(f"{PKG}/index.d.ts", "{ not json")  # unreadable: not judged as ESM
    assert not esm_declarations(f"{PKG}/index.d.ts", None)
