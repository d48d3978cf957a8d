"""specward's import verdicts against the real compilers' on the same trees.

Each tree under ``trees/`` is checked twice: by the compiler (``tsc --noEmit -p`` for the
TypeScript one, pyright for the Python one) and by ``check_imports`` over facts from the
real ``extract``, a resolver built from the tree's configuration files, and the environment
``read_environment`` reads. The sets of (file, line, kind) must be equal, where kind is
``phantom-import`` or ``missing-export``:

- tsc: TS2307 -> phantom-import; TS2305, TS2724, TS2614, TS1192, TS2613, TS2459 (declared
  but not exported), TS2460 -> missing-export;
- pyright: reportMissingImports, reportMissingModuleSource -> phantom-import;
  reportAttributeAccessIssue "... is unknown import symbol" -> missing-export.

``undeclared-dependency`` has no compiler counterpart and is not compared. Where specward
differs on purpose, the difference is named in ``DIFFERENCES`` and asserted as such.

The compilers come from ``tools/`` (``npm ci --ignore-scripts --no-audit --no-fund`` there
installs the pinned TypeScript) and from the ``test`` extra (pyright). When they are not
installed the test skips, unless ``SPECWARD_REQUIRE_REFERENCE=1`` (then it fails).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specward.analyzers.codes import TSC_EQUIVALENTS
from specward.analyzers.extract import extract
from specward.analyzers.imports import check_imports, with_declared_modules
from specward.analyzers.languages import language_of
from specward.analyzers.lines import LineIndex
from specward.analyzers.resolve import Resolver, ResolverConfig, is_resolver_config
from specward.analyzers.package_entry import in_installed, in_node_modules
from specward.server.engine.installed import InstalledFiles
from specward.server.engine.packages import is_manifest, read_environment

HERE = Path(__file__).resolve().parent
TREES = HERE / "trees"
TSC = HERE / "tools" / "node_modules" / ".bin" / "tsc"
REQUIRED = os.environ.get("SPECWARD_REQUIRE_REFERENCE") == "1"

TS_CODES = TSC_EQUIVALENTS
TSC_LINE = re.compile(r"^(?P<file>\S.*?)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): ")  # (a path may hold parentheses)

# (tree, file, line, kind): verdicts where specward and the compiler differ on purpose, with
# the reason. An entry with kind prefixed "+" is specward's only, "-" the compiler's only.
DIFFERENCES: dict[tuple[str, str, int, str], str] = {
    ("ts-app", "src/main.ts", 3, "+phantom-import"):
        "a relative import of a file that does not exist is a phantom even when a wildcard "
        "`declare module '*.css'` makes tsc accept any name: the bundler fails on it",
    ("ts-app", "src/main.ts", 7, "+phantom-import"):
        "the same through an alias: `@/assets/banner.svg` names src/assets/banner.svg, which does not "
        "exist; `declare module '*.svg'` gives such files a type, it does not create them",
    ("py-app", "app/services/export.py", 5, "-phantom-import"):
        "an import inside `try:` ... `except ImportError:` is optional on purpose: a guarded package "
        "import is not judged",
}
# Not compared in ts-app: bare packages. That tree has no node_modules, so tsc cannot find
# any package, while specward judges packages without node_modules against the manifest
# only (undeclared-dependency, which has no compiler counterpart). `board-theme` and
# `virtual:icons` are ambient modules for both. ts-packages has its node_modules: there
# packages are compared (TS7016, an untyped package, is not a verdict of either).


def _tool(name: str, path: Path | None, install: str) -> str:
    """The pinned compiler: ``path`` when given (never another version found on PATH), else
    ``name`` on PATH."""
    found = (str(path) if path.exists() else None) if path is not None else shutil.which(name)
    if found is None:
        why = f"{name} is not installed: {install}"
        if REQUIRED:
            pytest.fail(why + " (SPECWARD_REQUIRE_REFERENCE=1)")
        pytest.skip(why)
    return found


def specward_verdicts(tree: Path) -> set[tuple[str, int, str]]:
    # node_modules is not a part of the workspace (the walk leaves it out): its files are
    # read through the engine's InstalledFiles, as the index reads them
    files = {rel: p for p in sorted(tree.rglob("*"))
             if p.is_file() and not in_node_modules(rel := p.relative_to(tree).as_posix())}
    texts = {rel: p.read_text("utf-8") for rel, p in files.items()}
    facts = {rel: extract(rel, text) for rel, text in texts.items() if language_of(rel)}
    config = ResolverConfig.build({rel: t for rel, t in texts.items() if is_resolver_config(rel)}, texts.get)
    env = read_environment(tree, sys.executable, manifests=[rel for rel in files if is_manifest(rel)],
                           read=texts.get)
    env = with_declared_modules(env, facts.values())
    installed = InstalledFiles(tree, 10_000_000, env.python_site)
    # (as the index's resolver asks: analyzers/analyses.py _Exists)
    resolver = Resolver(config, lambda rel: installed.exists(rel) if in_installed(rel) else rel in files)
    out = set()
    for rel, f in sorted(facts.items()):
        lines = LineIndex.of_text(texts[rel])
        for finding in check_imports(f, resolver, facts.get, env, files=list(files), installed=installed).findings:
            if finding.code in ("phantom-import", "missing-export"):
                out.add((rel, lines.position(finding.span.start)[0] + 1, finding.code))
    return out


def tsc_verdicts(tree: Path) -> set[tuple[str, int, str]]:
    tsc = _tool("tsc", TSC, "npm ci --ignore-scripts --no-audit --no-fund in tests/imports/tools")
    run = subprocess.run([tsc, "--noEmit", "--pretty", "false", "-p", str(tree)], cwd=tree,
                         capture_output=True, text=True, timeout=300)
    out = set()
    for line in run.stdout.splitlines():
        m = TSC_LINE.match(line)
        if m and m.group("code") in TS_CODES:
            rel = (tree / m.group("file")).resolve().relative_to(tree).as_posix()
            out.add((rel, int(m.group("line")), TS_CODES[m.group("code")]))
    assert run.returncode in (0, 1, 2), run.stderr
    return out


def pyright_verdicts(tree: Path) -> set[tuple[str, int, str]]:
    beside = Path(sys.executable).parent / "pyright"  # the venv's, also when it is not activated
    pyright = _tool("pyright", beside if beside.exists() else None, "pip install -e '.[test]' (pyright==1.1.414)")
    run = subprocess.run([pyright, "--outputjson", "--pythonpath", sys.executable, str(tree)], cwd=tree,
                         capture_output=True, text=True, timeout=600)
    data = json.loads(run.stdout)
    out = set()
    for d in data["generalDiagnostics"]:
        rule, message = d.get("rule"), d["message"]
        if rule in ("reportMissingImports", "reportMissingModuleSource"):
            kind = "phantom-import"
        elif rule == "reportAttributeAccessIssue" and "is unknown import symbol" in message:
            kind = "missing-export"
        else:
            continue
        rel = Path(d["file"]).resolve().relative_to(tree).as_posix()
        out.add((rel, d["range"]["start"]["line"] + 1, kind))
    return out


def compare(name: str, compiler: set, ours: set) -> None:
    expected = set(compiler)
    for (tree, file, line, kind), _why in DIFFERENCES.items():
        if tree != name:
            continue
        if kind.startswith("+"):
            expected.add((file, line, kind[1:]))
        else:
            expected.discard((file, line, kind[1:]))
    assert sorted(ours) == sorted(expected), (
        f"only the compiler: {sorted(expected - ours)}; only specward: {sorted(ours - expected)}")


def test_typescript_tree_matches_tsc():
    tree = TREES / "ts-app"
    compiler = tsc_verdicts(tree)
    # the tree is built to hold each kind of mistake: the compiler must see them all
    assert {k for _, _, k in compiler} == {"phantom-import", "missing-export"}
    assert len(compiler) >= 9
    compare("ts-app", compiler, specward_verdicts(tree))


def test_installed_packages_match_tsc(tmp_path: Path):
    """Names and subpaths of installed packages: declaration files found through `types`,
    `typings`, `main`, `exports` conditions and `@types/`, `export *` chains (cycles, and
    into another package), `export =`, untyped packages. The tree keeps its packages in
    `_node_modules` (the repository ignores node_modules folders): installed here."""
    tree = tmp_path / "ts-packages"
    shutil.copytree(TREES / "ts-packages", tree)
    (tree / "_node_modules").rename(tree / "node_modules")
    compiler = tsc_verdicts(tree)
    assert {k for _, _, k in compiler} == {"phantom-import", "missing-export"}
    assert len(compiler) >= 12
    compare("ts-packages", compiler, specward_verdicts(tree))


def test_python_tree_matches_pyright():
    tree = TREES / "py-app"
    compiler = pyright_verdicts(tree)
    assert {k for _, _, k in compiler} == {"phantom-import", "missing-export"}
    assert len(compiler) >= 6
    compare("py-app", compiler, specward_verdicts(tree))
