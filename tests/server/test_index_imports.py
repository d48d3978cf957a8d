"""The import checks as the index keeps them: every change reaches the files whose import
verdicts depend on it (through the analyses' own edges), with the same findings as a
fresh index of the same files."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex


def _codes(idx: WorkspaceIndex, rel: str) -> list[str]:
    return sorted(f.code for f in idx.findings(rel) if f.code in ("phantom-import", "missing-export",
                                                                   "repeated-hallucination"))


def _ws(root: Path, files: dict[str, str]) -> Path:
    (root / "specward.toml").write_text("")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _same_as_fresh(idx: WorkspaceIndex, root: Path, rels: list[str]) -> None:
    fresh = WorkspaceIndex(root, use_cache=False)
    fresh.build()
    for rel in rels:
        assert idx.findings(rel) == fresh.findings(rel), rel


def test_removing_an_export_reaches_every_importer_without_relinking_them(tmp_path: Path):
    files = {"src/flags.ts": "export const darkMode = true;\nexport const beta = false;\n"}
    for i in range(5):
        files[f"src/feature{i}.ts"] = f"import {{ beta }} from './flags';\nexport const f{i} = () => beta;\n"
    root = _ws(tmp_path, files)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert all(_codes(idx, f"src/feature{i}.ts") == [] for i in range(5))
    linked: list[str] = []
    original = idx._link_one

    def counting(linker, rel):
        linked.append(rel)
        return original(linker, rel)

    idx._link_one = counting  # type: ignore[method-assign]
    (root / "src/flags.ts").write_text("export const darkMode = true;\n")
    changed = idx.update("src/flags.ts", (root / "src/flags.ts").read_text())
    assert {f"src/feature{i}.ts" for i in range(5)} <= changed
    assert all(_codes(idx, f"src/feature{i}.ts") == ["missing-export"] for i in range(5))
    assert linked == ["src/flags.ts"]  # the importers have no link to it: only their analyses ran
    _same_as_fresh(idx, root, sorted(files))
    # and back
    (root / "src/flags.ts").write_text(files["src/flags.ts"])
    idx.update("src/flags.ts", files["src/flags.ts"])
    assert all(_codes(idx, f"src/feature{i}.ts") == [] for i in range(5))


def test_a_module_or_an_asset_that_appears_clears_its_phantom_import(tmp_path: Path):
    root = _ws(tmp_path, {"src/app.ts": "import { fmt } from './format';\nimport './logo.svg';\n"
                                        "export const show = () => fmt(1);\n"})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _codes(idx, "src/app.ts") == ["phantom-import", "phantom-import"]
    (root / "src/format.ts").write_text("export const fmt = (n: number) => String(n);\n")
    assert "src/app.ts" in idx.update_from_disk("src/format.ts")
    assert _codes(idx, "src/app.ts") == ["phantom-import"]
    (root / "src/logo.svg").write_text("<svg/>\n")
    assert idx.tracked("src/logo.svg")  # some file asked for it: the watcher's events reach the index
    assert "src/app.ts" in idx.update_from_disk("src/logo.svg")
    assert _codes(idx, "src/app.ts") == []
    _same_as_fresh(idx, root, ["src/app.ts"])


def test_an_asset_that_appears_or_goes_between_two_runs_is_seen_by_the_cached_verdicts(tmp_path: Path):
    root = _ws(tmp_path, {"src/app.ts": "import logo from './logo.svg';\nexport const img = logo;\n"})
    runs = []
    for present in (False, True, False):
        if present:
            (root / "src/logo.svg").write_text("<svg/>\n")
        else:
            (root / "src/logo.svg").unlink(missing_ok=True)
        idx = WorkspaceIndex(root)  # the cache of the run before
        idx.build()
        runs.append(_codes(idx, "src/app.ts"))
    assert runs == [["phantom-import"], [], ["phantom-import"]]


def test_a_file_the_walk_does_not_list_exists_all_the_same(tmp_path: Path):
    # generated code in an ignored folder, an ignored file, an excluded folder: tsc reads them
    root = _ws(tmp_path, {".gitignore": "src/gen/\n*.local.ts\n",
                          "specward.toml": "exclude = [\"vendor\"]\n",
                          "src/gen/api.ts": "export const client = 1;\n",
                          "src/keys.local.ts": "export const key = 'k';\n",
                          "vendor/chart.js": "export default 1;\n",
                          "src/app.ts": "import { client } from './gen/api';\nimport { key } from './keys.local';\n"
                                        "import chart from '../vendor/chart.js';\nimport { nope } from './gone';\n"
                                        "export const all = [client, key, chart, nope];\n"})
    (root / ".git").mkdir()
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    found = [(f.code, dict(f.data)["module"]) for f in idx.findings("src/app.ts") if f.code == "phantom-import"]
    assert found == [("phantom-import", "./gone")]


def test_an_import_meta_glob_is_judged_again_when_a_file_appears_or_goes_below_its_folder(tmp_path: Path):
    root = _ws(tmp_path, {"src/pages.ts": "export const pages = import.meta.glob('./pages/**/*.tsx');\n"
                                          "export const posts = import.meta.glob('./posts/*.md');\n",
                          "src/pages/Home.vue": "<template><main /></template>\n"})
    idx = WorkspaceIndex(root)
    idx.build()
    modules = lambda: sorted(dict(f.data)["module"] for f in idx.findings("src/pages.ts"))  # noqa: E731
    assert modules() == ["./pages/**/*.tsx", "./posts/*.md"]
    (root / "src/pages/admin").mkdir()
    (root / "src/pages/admin/Users.tsx").write_text("export default function Users() { return null; }\n")
    assert idx.tracked("src/pages/admin/Users.tsx")
    assert "src/pages.ts" in idx.update_from_disk("src/pages/admin/Users.tsx")  # a source appeared
    assert modules() == ["./posts/*.md"]
    (root / "src/posts").mkdir()
    (root / "src/posts/hello.md").write_text("# Hello\n")
    assert idx.tracked("src/posts/hello.md")
    assert "src/pages.ts" in idx.update_from_disk("src/posts/hello.md")  # a file that is not a source
    assert modules() == []
    _same_as_fresh(idx, root, ["src/pages.ts"])
    (root / "src/pages/admin/Users.tsx").unlink()
    assert "src/pages.ts" in idx.update_from_disk("src/pages/admin/Users.tsx")
    assert modules() == ["./pages/**/*.tsx"]
    idx.facts.wait_stored()
    idx.persist(["src/pages.ts"])  # that verdict reaches the cache
    (root / "src/pages/admin/Users.tsx").write_text("export default function Users() { return null; }\n")
    warm = WorkspaceIndex(root)  # a folder edge's verdict is never taken from the cache
    warm.build()
    assert [f.code for f in warm.findings("src/pages.ts")] == []


def test_a_ledger_written_meanwhile_is_read_and_judges_every_file(tmp_path: Path):
    from specward.server.engine.ledger import record_fix

    root = _ws(tmp_path, {"src/a.ts": "import { gett } from './api';\nexport const a = () => gett();\n",
                          "src/api.ts": "export const get = () => 1;\n"})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _codes(idx, "src/a.ts") == ["missing-export"]
    record_fix(root, "./api", ("gett",), "missing_export", "src/b.ts", 1, "rename", "gett=get")
    changed = idx.update(".specward/fix-history.jsonl", (root / ".specward/fix-history.jsonl").read_text())
    assert "src/a.ts" in changed
    assert _codes(idx, "src/a.ts") == ["missing-export", "repeated-hallucination"]
    _same_as_fresh(idx, root, ["src/a.ts", "src/api.ts"])


def test_a_warm_start_reuses_the_import_verdicts_and_their_edges(tmp_path: Path):
    root = _ws(tmp_path, {"src/flags.ts": "export const beta = false;\n",
                          "src/f.ts": "import { beta, gamma } from './flags';\nexport const f = () => beta;\n"})
    cold = WorkspaceIndex(root)
    cold.build()
    cold.facts.wait_stored()
    warm = WorkspaceIndex(root)
    warm.build()
    assert warm.stats["parsed_files"] == 0
    assert _codes(warm, "src/f.ts") == ["missing-export"]
    assert warm.adeps["src/f.ts"] and "src/flags.ts" in warm.adeps["src/f.ts"]
    (root / "src/flags.ts").write_text("export const beta = false;\nexport const gamma = 1;\n")
    assert "src/f.ts" in warm.update_from_disk("src/flags.ts")
    assert _codes(warm, "src/f.ts") == []


def test_warming_an_open_documents_dependents_loads_what_its_next_edit_rechecks(tmp_path: Path):
    files = {"src/flags.ts": "export const beta = false;\n", "src/util.ts": "export const id = (x: number) => x;\n",
             "src/other.ts": "export const unrelated = 1;\n"}
    for i in range(3):
        files[f"src/feature{i}.ts"] = ("import { beta } from './flags';\nimport { id } from './util';\n"
                                       f"export const f{i} = () => id(beta ? 1 : 0);\n")
    root = _ws(tmp_path, files)
    WorkspaceIndex(root).build()
    idx = WorkspaceIndex(root)  # a warm start: every file's facts are in the cache only
    idx.build()
    assert not idx.facts._lru
    idx.warm_dependents("src/flags.ts")
    # the importers, and what their analyses read (util.ts), but not an unrelated file
    assert {f"src/feature{i}.ts" for i in range(3)} | {"src/util.ts"} <= set(idx.facts._lru)
    assert "src/other.ts" not in idx.facts._lru


def _package(root: Path, name: str, dts: str, version: str = "1.0.0") -> None:
    pkg = root / "node_modules" / name
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "package.json").write_text(f'{{"name": "{name}", "version": "{version}", "types": "index.d.ts"}}')
    (pkg / "index.d.ts").write_text(dts)


def test_names_and_subpaths_of_installed_packages_and_a_reinstall(tmp_path: Path):
    root = _ws(tmp_path, {
        "package.json": '{"name": "app", "dependencies": {"charts": "^1.0.0"}}',
        "src/plot.ts": "import { drawLine, drawPie } from 'charts';\nimport { theme } from 'charts/themes';\n"
                       "export const plot = [drawLine, drawPie, theme];\n",
    })
    _package(root, "charts", "export declare function drawLine(): void;\nexport declare function drawBar(): void;\n")
    idx = WorkspaceIndex(root)
    idx.build()
    got = {(f.code, f.message) for f in idx.findings("src/plot.ts")}
    assert ("missing-export", "'drawPie' is not exported by 'charts' (node_modules/charts/index.d.ts) "
                              "(did you mean 'drawLine'?)") in got
    assert any(c == "phantom-import" and "it has no file 'themes'" in m for c, m in got)
    # the user types a name the package has: judged at once
    text = (root / "src/plot.ts").read_text().replace("drawPie", "drawBar")
    idx.update("src/plot.ts", text)
    assert [f.code for f in idx.findings("src/plot.ts")] == ["phantom-import"]
    # a new version is installed (its files change, and npm's install state with them): a warm
    # start judges against the new declarations, it does not reuse the old verdicts
    (root / "src/plot.ts").write_text(text)
    WorkspaceIndex(root).build()  # the cache holds the verdicts of this text
    _package(root, "charts", "export declare function drawLine(): void;\n", version="2.0.0")
    (root / "node_modules/charts/themes.d.ts").write_text("export declare const theme: string;\n")
    (root / "node_modules/.package-lock.json").write_text('{"lockfileVersion": 3}')
    warm = WorkspaceIndex(root)
    warm.build()
    assert [(f.code, f.message) for f in warm.findings("src/plot.ts")] == [
        ("missing-export", "'drawBar' is not exported by 'charts' (node_modules/charts/index.d.ts)")]


def test_a_package_linked_out_of_the_workspace_is_not_read(tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "ws").mkdir()
    (outside / "package.json").write_text('{"name": "linked", "types": "index.d.ts"}')
    (outside / "index.d.ts").write_text("export declare const only: number;\n")
    root = _ws(tmp_path / "ws", {
        "package.json": '{"name": "app", "dependencies": {"linked": "^1.0.0"}}',
        "src/a.ts": "import { other } from 'linked';\nexport const a = other;\n",
    })
    (root / "node_modules").mkdir()
    (root / "node_modules/linked").symlink_to(outside)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _codes(idx, "src/a.ts") == []  # not read, so not judged
    assert idx.installed is not None and not idx.installed.exists("node_modules/linked/index.d.ts")


def test_names_imported_from_installed_python_packages(tmp_path: Path):
    root = _ws(tmp_path, {
        "pyproject.toml": '[project]\nname = "svc"\ndependencies = ["shipping", "lazyload"]\n',
        "svc/orders.py": "from shipping import Carrier, Carier\nfrom shipping.rates import quote, quota\n"
                         "from shipping import rates, _native, labels\nfrom lazyload import anything\n",
    })
    site = root / ".venv/lib/python3.11/site-packages"
    (root / ".venv/pyvenv.cfg").parent.mkdir(parents=True)
    (root / ".venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    files = {
        "shipping/__init__.py": "from .carriers import *\nfrom . import rates\n",
        "shipping/carriers.py": "__all__ = ['Carrier']\nclass Carrier: ...\nclass _Private: ...\n",
        "shipping/rates.py": "def quote(weight): return weight * 2\n",
        "shipping/_native.cpython-311-x86_64-linux-gnu.so": "",
        "shipping-2.0.0.dist-info/METADATA": "Name: shipping\nVersion: 2.0.0\n",
        "shipping-2.0.0.dist-info/top_level.txt": "shipping\n",
        "lazyload/__init__.py": "def __getattr__(name):\n    raise AttributeError(name)\n",
        "lazyload-1.0.dist-info/METADATA": "Name: lazyload\nVersion: 1.0\n",
        "lazyload-1.0.dist-info/top_level.txt": "lazyload\n",
    }
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    got = [(f.code, f.message) for f in idx.findings("svc/orders.py") if f.code == "missing-export"]
    assert got == [
        ("missing-export", "'Carier' is not defined in 'shipping' (shipping/__init__.py in the project's Python "
                           "environment) (did you mean 'Carrier'?)"),
        ("missing-export", "'quota' is not defined in 'shipping.rates' (shipping/rates.py in the project's Python "
                           "environment) (did you mean 'quote'?)"),
        # `labels`: no module, no name (the compiled `_native` is a submodule; `lazyload` has __getattr__)
        ("missing-export", "'labels' is not defined in 'shipping' (shipping/__init__.py in the project's Python "
                           "environment)"),
    ]
