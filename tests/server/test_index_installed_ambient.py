"""Modules that installed packages declare for a project (`declare module '@theme/Layout'`
in a theme's declarations, reached from the preset the project depends on, as Docusaurus
does): no phantom imports, as there are none for tsc; a misspelled one still is, and the
message names the declared module it is close to. Real files, the real index; the layout
is the one a Docusaurus site's `npm install` gives (package names of our own)."""

from __future__ import annotations

import json
from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree


def _pkg(name: str, types: str, **more: object) -> str:
    return json.dumps({"name": name, "version": "3.0.0", "types": types, **more}) + "\n"


SITE = {
    "package.json": json.dumps({"name": "handbook-site", "private": True,
                                "dependencies": {"@acme/preset": "3.0.0", "react": "19.0.0"},
                                "devDependencies": {"@acme/aliases": "3.0.0"}}) + "\n",
    "tsconfig.json": json.dumps({"compilerOptions": {"baseUrl": ".", "jsx": "preserve"}}) + "\n",
    # the preset's types import its options, which import the theme: the theme's blocks
    # declare the components a site imports by their alias
    "node_modules/@acme/preset/package.json": _pkg("@acme/preset", "lib/index.d.ts"),
    "node_modules/@acme/preset/lib/index.d.ts": "export type { Options } from './options';\n",
    "node_modules/@acme/preset/lib/options.d.ts": "import type { ThemeConfig } from '@acme/theme';\n"
                                                  "export type Options = { theme?: ThemeConfig };\n",
    "node_modules/@acme/theme/package.json": _pkg("@acme/theme", "src/theme.d.ts"),
    "node_modules/@acme/theme/src/theme.d.ts": (
        "/// <reference types=\"@acme/aliases\" />\n"
        "export type ThemeConfig = { navbar?: object };\n"
        "declare module '@theme/Layout' {\n  export default function Layout(props: { title?: string }): unknown;\n}\n"
        "declare module '@theme/Heading' {\n  export default function Heading(props: object): unknown;\n}\n"),
    # a direct devDependency with blocks of its own (and a wildcard)
    "node_modules/@acme/aliases/package.json": _pkg("@acme/aliases", "src/index.d.ts"),
    "node_modules/@acme/aliases/src/index.d.ts": (
        "declare module '@site/useSiteData' {\n  export default function useSiteData(): object;\n}\n"
        "declare module '@generated/*' {\n  const value: object;\n  export default value;\n}\n"),
    "node_modules/react/package.json": json.dumps({"name": "react", "version": "19.0.0"}) + "\n",
    "node_modules/react/index.js": "module.exports = {};\n",
    "src/pages/index.tsx": (
        "import Layout from '@theme/Layout';\n"
        "import Heading from '@theme/Heading';\n"
        "import useSiteData from '@site/useSiteData';\n"
        "import routes from '@generated/routes';\n"
        "import Footerz from '@theme/Footerz';\n"  # nobody declares it: tsc TS2307
        "import Headng from '@theme/Headng';\n"  # a misspelling of a declared one
        "export default function Home() { return [Layout, Heading, useSiteData(), routes, Footerz, Headng]; }\n"),
}


def _phantoms(idx: WorkspaceIndex) -> list[tuple[str, str]]:
    return [(dict(f.data).get("package", ""), f.message) for rel in sorted(idx.facts) for f in idx.findings(rel)
            if f.code == "phantom-import"]


def test_modules_declared_by_installed_packages_are_no_phantoms(tmp_path: Path):
    idx = WorkspaceIndex(write_tree(tmp_path, SITE), use_cache=False)
    idx.build()
    got = _phantoms(idx)
    assert [pkg for pkg, _ in got] == ["@theme/Footerz", "@theme/Headng"], got
    assert "did you mean" not in got[0][1]
    assert got[1][1].endswith("did you mean '@theme/Heading' (declared by an installed package's types)?")


def test_a_package_the_project_does_not_reach_declares_nothing(tmp_path: Path):
    """The theme's blocks count because the preset (declared) reaches it; without the
    preset in package.json (installed or not) tsc's program would not read them."""
    files = dict(SITE)
    files["package.json"] = json.dumps({"name": "handbook-site", "private": True,
                                        "dependencies": {"react": "19.0.0"}}) + "\n"
    idx = WorkspaceIndex(write_tree(tmp_path, files), use_cache=False)
    idx.build()
    got = {pkg for pkg, _ in _phantoms(idx)}
    assert {"@theme/Layout", "@theme/Heading", "@site/useSiteData", "@generated/routes"} <= got
