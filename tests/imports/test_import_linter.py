"""specward's architecture verdicts against import-linter's on the same contracts.

``trees/layered-py`` keeps its contracts in ``.importlinter`` (layers with an ignored import,
independence, forbidden; direct imports and chains). ``lint-imports`` (the ``test`` extra
installs import-linter) checks the tree; specward reads the same file and checks it too.
Each chain import-linter reports starts at an import (importer module, line): the sets of
(contract, importer, line) must be equal, and each specward message names the chain's
modules in order. (``bench/invariants_corpus.py`` reads lint-imports' report, and does the
same on a real project.) Without ``lint-imports`` the test skips, unless
``SPECWARD_REQUIRE_REFERENCE=1`` (then it fails).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

HERE = Path(__file__).resolve().parent
TREE = HERE / "trees" / "layered-py"
REQUIRED = os.environ.get("SPECWARD_REQUIRE_REFERENCE") == "1"
_spec = importlib.util.spec_from_file_location("bench_invariants", HERE.parents[1] / "bench" / "invariants_corpus.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)  # type: ignore[union-attr]


def _their_chains(root: Path) -> dict[tuple[str, str, int], list[str]]:
    """(contract name, importer module, line) -> the chain's modules, from lint-imports' report."""
    if not (Path(sys.executable).parent / "lint-imports").exists() and shutil.which("lint-imports") is None:
        if REQUIRED:
            pytest.fail("lint-imports is not installed (pip install -e '.[test]')")
        pytest.skip("lint-imports is not installed")
    return bench.run_lint_imports(root, "src")


def test_the_same_chains_as_lint_imports(tmp_path: Path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    (root / ".git").mkdir()  # the project root, as a checkout has it
    theirs = _their_chains(root)
    assert theirs, "lint-imports reports every contract of the tree broken"
    names = bench.contract_names(root)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    ours: dict[tuple[str, str, int], str] = {}
    for rel in sorted(idx.facts):
        text = (root / rel).read_text()
        for f in idx.findings(rel):
            if f.code != "invariant-violation":
                continue
            line = text.encode()[: f.span.start].count(b"\n") + 1
            module = rel[len("src/"):-len(".py")].replace("/", ".")
            ours[(names[dict(f.data)["rule"]], module, line)] = f.message
    assert set(ours) == set(theirs)
    for key, chain in theirs.items():  # the message names the chain: importer -> ... -> the banned module
        middle = chain[1:-1]
        assert (" through " + " -> ".join(chain[1:])) in ours[key] if middle else " through " not in ours[key], key
    assert len(theirs) == 5  # the tree is what the docstring says
