"""installed_ambient: the `declare module` names reached from installed packages' typed
entries, through references, imports and re-exports; cycles and the file bound."""

from __future__ import annotations

import json

from specward.analyzers.ambient_installed import installed_ambient, installed_declarers


class Files:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.read_paths: list[str] = []

    def exists(self, path: str) -> bool:
        return path in self.files

    def manifest(self, pkgdir: str) -> str | None:
        return self.files.get(f"{pkgdir}/package.json")

    def listing(self, folder: str) -> frozenset[str]:
        return frozenset()

    def facts(self, path: str):
        return None

    def read(self, path: str) -> str | None:
        self.read_paths.append(path)
        return self.files.get(path)


def _pkg(name: str, types: str) -> str:
    return json.dumps({"name": name, "types": types})


TREE = {
    "node_modules/kit/package.json": _pkg("kit", "types/index.d.ts"),
    "node_modules/kit/types/index.d.ts": (
        "/// <reference path=\"./globals.d.ts\" />\n"
        "export * from './router';\n"
        "import type { X } from 'kit-theme';\n"),
    "node_modules/kit/types/globals.d.ts": "declare module 'virtual:kit-routes' { const r: string[]; export default r; }\n",
    "node_modules/kit/types/router.d.ts": "export * from './index';\ndeclare module '$kit/*' {}\n",  # a cycle back
    "node_modules/kit/node_modules/kit-theme/package.json": _pkg("kit-theme", "t.d.ts"),  # the nested copy wins
    "node_modules/kit/node_modules/kit-theme/t.d.ts": "export declare module '@theme/Nav' {}\n",
    "node_modules/kit-theme/package.json": _pkg("kit-theme", "t.d.ts"),
    "node_modules/kit-theme/t.d.ts": "declare module '@theme/Old' {}\n",
    "node_modules/untyped/package.json": json.dumps({"name": "untyped", "main": "index.js"}),
    "node_modules/untyped/index.js": "declare module 'never-read' {}\n",
}


def test_names_reached_through_references_reexports_and_imports():
    files = Files(TREE)
    got = installed_ambient(["node_modules/kit", "node_modules/untyped"], files, files.read)
    assert got == {"virtual:kit-routes", "$kit/*", "@theme/Nav"}
    assert len(files.read_paths) == len(set(files.read_paths)) == 4  # each file once, the cycle cut


def test_the_file_bound_stops_the_walk():
    files = Files(TREE)
    got = installed_ambient(["node_modules/kit"], files, files.read, max_files=2)
    assert len(files.read_paths) == 2 and got <= {"virtual:kit-routes", "$kit/*", "@theme/Nav"}


def test_reference_types_look_in_the_type_roots_first():
    """`/// <reference types="node" />` names no package `node`: tsc finds `@types/node` (the
    type roots come first for a reference, a package's own types first for an import)."""
    files = Files({
        "node_modules/server-kit/package.json": _pkg("server-kit", "index.d.ts"),
        "node_modules/server-kit/index.d.ts": (
            "/// <reference types=\"node\" />\n/// <reference types=\"sk-env/globals\" />\n"
            "export declare function listen(port: number): void;\n"),
        "node_modules/@types/node/package.json": _pkg("@types/node", "index.d.ts"),
        "node_modules/@types/node/index.d.ts": "declare module 'node:fs' { export function readFileSync(p: string): string; }\n",
        "node_modules/@types/sk-env/package.json": _pkg("@types/sk-env", "index.d.ts"),
        "node_modules/@types/sk-env/globals.d.ts": "declare module 'sk:env' { export const mode: string; }\n",
        "node_modules/sk-env/package.json": _pkg("sk-env", "index.d.ts"),
        "node_modules/sk-env/globals.d.ts": "declare module 'sk:env-untyped-copy' {}\n",
    })
    got = installed_declarers(["node_modules/server-kit"], files, files.read)
    assert got == {"node:fs": ("node_modules/@types/node/index.d.ts",),
                   "sk:env": ("node_modules/@types/sk-env/globals.d.ts",)}


def test_each_name_lists_every_file_that_declares_it():
    files = Files({
        "node_modules/meters/package.json": _pkg("meters", "index.d.ts"),
        "node_modules/meters/index.d.ts": "export declare function meter(): number;\n",
        "node_modules/meters-motion/package.json": _pkg("meters-motion", "m.d.ts"),
        "node_modules/meters-motion/m.d.ts": "import 'meters';\nimport './more';\ndeclare module 'meters' { export function tween(): void; }\n",
        "node_modules/meters-motion/more.d.ts": "declare module 'meters' { export function ease(): void; }\ndeclare module 'meters' {}\n",
    })
    got = installed_declarers(["node_modules/meters-motion"], files, files.read)
    assert got == {"meters": ("node_modules/meters-motion/m.d.ts", "node_modules/meters-motion/more.d.ts")}
