"""Names imported from Node's built-in modules are judged against the `declare module`
blocks of the `@types/node` the project declares (`'readFileSynch' is not exported by
'fs'`), through `node:` re-export blocks; without a declared `@types/node` (a copy
installed for another package's sake may be older than the Node the code runs on) and for
default imports nothing is judged. Real files, the real index; the declarations are a
small `@types/node` of our own, laid out as the real one is."""

from __future__ import annotations

import json
from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree

NODE_TYPES = {
    "node_modules/@types/node/package.json": json.dumps({"name": "@types/node", "version": "24.3.1",
                                                         "types": "index.d.ts"}) + "\n",
    "node_modules/@types/node/index.d.ts": '/// <reference path="crypto.d.ts" />\n/// <reference path="util.d.ts" />\n',
    "node_modules/@types/node/crypto.d.ts": (
        'declare module "crypto" {\n'
        "    function randomUUID(): string;\n"
        "    function createHash(algorithm: string): { update(s: string): { digest(e: 'hex'): string } };\n"
        "}\n"
        'declare module "node:crypto" {\n    export * from "crypto";\n}\n'),
    "node_modules/@types/node/util.d.ts": (
        'declare module "util" {\n    export function promisify<T>(fn: T): unknown;\n    export * from "util/types";\n}\n'
        'declare module "util/types" {\n    export function isPromise(v: unknown): boolean;\n}\n'),
}

SERVICE = {
    "package.json": json.dumps({"name": "ledger-service", "private": True, "type": "module",
                                "devDependencies": {"@types/node": "^24.3.0", "typescript": "~5.9.0"}}) + "\n",
    **NODE_TYPES,
    "src/ids.ts": (
        "import crypto, { randomUUID, createHash } from 'node:crypto';\n"
        "import { randomUuid } from 'crypto';\n"          # tsc TS2724: did you mean 'randomUUID'?
        "import { promisify, isPromise } from 'util';\n"  # isPromise through `export *` of a block
        "import { promisfy } from 'node:util';\n"         # node:util is not declared here: not judged
        "import { sha256 } from 'node:crypto';\n"         # TS2305
        "export const ids = [crypto, randomUUID, createHash, randomUuid, promisify, isPromise, promisfy, sha256];\n"),
}


def _missing(idx: WorkspaceIndex) -> list[tuple[str, int, str]]:
    return [(rel, f.span.start, f.message) for rel in sorted(idx.facts) for f in idx.findings(rel)
            if f.code == "missing-export"]


def test_names_from_built_in_modules_are_judged_against_types_node(tmp_path: Path):
    root = write_tree(tmp_path, SERVICE)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    got = _missing(idx)
    text = SERVICE["src/ids.ts"]
    assert [(rel, text[s:].split()[0]) for rel, s, _ in got] == [("src/ids.ts", "randomUuid"),
                                                                 ("src/ids.ts", "sha256")], got
    assert got[0][2] == ("'randomUuid' is not exported by 'crypto' (node_modules/@types/node/crypto.d.ts) "
                         "(did you mean 'randomUUID'?)")


def test_without_a_declared_types_node_nothing_is_judged(tmp_path: Path):
    """A JavaScript tool whose @types/node came with some dev dependency: its version is not
    the project's choice, so a name it lacks may be one the installed Node has."""
    files = dict(SERVICE)
    files["package.json"] = json.dumps({"name": "ledger-service", "private": True, "type": "module"}) + "\n"
    idx = WorkspaceIndex(write_tree(tmp_path, files), use_cache=False)
    idx.build()
    assert _missing(idx) == []
