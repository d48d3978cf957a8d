"""Imports into folders the walk leaves out (`.svelte-kit`, `dist`, an ignored folder): such
a path is a module when the disk has the file (InstalledFiles.unlisted_exists), judged as
tsc judges it. A SvelteKit app's tsconfig makes `.svelte-kit/types` a root of the same
virtual folder as the app (rootDirs), so a relative import that names no file of the app is
looked for there too: found, it resolves; not found, it is a phantom import, as it is for
tsc."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree

APP = {
    "package.json": '{"name": "notes", "type": "module", "devDependencies": {"@sveltejs/kit": "^2.0.0"}}\n',
    "svelte.config.js": "export default { kit: {} };\n",
    "tsconfig.json": '{"extends": "./.svelte-kit/tsconfig.json", "compilerOptions": {"strict": true}}\n',
    # what `svelte-kit sync` writes (not in the repository: .svelte-kit is excluded by name)
    ".svelte-kit/tsconfig.json": ('{"compilerOptions": {"paths": {"$lib": ["../src/lib"], "$lib/*": ["../src/lib/*"]},'
                                  ' "rootDirs": ["..", "./types"]}, "include": ["../src/**/*.ts"]}\n'),
    ".svelte-kit/types/src/routes/notes/$types.d.ts": "export type PageLoad = () => unknown;\n",
    ".svelte-kit/types/src/routes/notes/columns.d.ts": "export declare const columns: string[];\n",
    "src/lib/format.ts": "export const short = (s: string) => s.slice(0, 40);\n",
    "src/routes/notes/+page.ts": (
        "import type { PageLoad } from './$types';\n"
        "import { short } from '$lib/format';\n"
        "import { columns } from './columns';\n"  # generated beside the route, under the other root
        "import { pinned } from './pinned';\n"  # nowhere: tsc says TS2307
        "export const load: PageLoad = () => ({ title: short('notes'), columns, pinned });\n"),
}


def _ws(root: Path) -> Path:
    return write_tree(root, APP)


def _phantoms(idx: WorkspaceIndex) -> list[str]:
    return [dict(f.data)["module"] for rel in sorted(idx.facts) for f in idx.findings(rel) if f.code == "phantom-import"]


def test_a_relative_import_found_in_neither_root_folder_is_a_phantom(tmp_path: Path):
    idx = WorkspaceIndex(_ws(tmp_path), use_cache=False)
    idx.build()
    assert "src/routes/notes/+page.ts" in idx.facts and ".svelte-kit/tsconfig.json" not in idx.digests
    assert _phantoms(idx) == ["./pinned"]


def test_a_phantom_into_an_unwalked_folder_is_judged_again_at_the_next_start(tmp_path: Path):
    root = _ws(tmp_path)
    idx = WorkspaceIndex(root)  # with the cache
    idx.build()
    idx.facts.wait_stored()
    assert _phantoms(idx) == ["./pinned"]
    # `svelte-kit sync` (or any generator) writes the module into the excluded folder: nothing
    # in the walk changed, but the cached verdict does not stand
    (root / ".svelte-kit/types/src/routes/notes/pinned.d.ts").write_text("export declare const pinned: string[];\n")
    warm = WorkspaceIndex(root)
    warm.build()
    assert warm.stats["cached_files"] == len(warm.digests)  # a warm start: no file parsed again
    assert _phantoms(warm) == []


def test_an_import_through_a_link_out_of_the_workspace_is_not_judged(tmp_path: Path):
    outside = tmp_path / "elsewhere"
    (outside / "types/src/routes/notes").mkdir(parents=True)
    (tmp_path / "app").mkdir()
    root = _ws(tmp_path / "app")
    # the other root folder is a link out of the workspace: never looked at, so not judged
    (root / ".svelte-kit/types").rename(tmp_path / "moved")
    (root / ".svelte-kit/types").symlink_to(outside / "types")
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert "./pinned" not in _phantoms(idx)
