"""specward's architecture verdicts against import-linter's on the same contracts.

``trees/layered-py`` keeps its contracts in ``.importlinter`` (layers with an ignored import,
independence, forbidden; direct imports and chains). ``lint-imports`` (the ``test`` extra
installs import-linter) checks the tree; specward reads the same file and checks it too.
Each chain import-linter reports starts at an import (importer module, line): the sets of
(contract, importer, line) must be equal, and each specward message names the chain's
modules in order. Without ``lint-imports`` the test skips, unless
``SPECWARD_REQUIRE_REFERENCE=1`` (then it fails).
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

HERE = Path(__file__).resolve().parent
TREE = HERE / "trees" / "layered-py"
REQUIRED = os.environ.get("SPECWARD_REQUIRE_REFERENCE") == "1"
CHAIN_START = re.compile(r"^-\s+(?P<importer>[\w.]+) -> (?P<imported>[\w.]+) \(l\.(?P<line>\d+)\)")
LINK = re.compile(r"^\s+(?P<importer>[\w.]+) -> (?P<imported>[\w.]+) \(l\.\d+\)")


def _lint_imports() -> str | None:
    found = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    return found if Path(found).exists() else None


def _their_chains(root: Path) -> dict[tuple[str, str, int], list[str]]:
    """(contract name, importer module, line) -> the chain's modules, from lint-imports' report."""
    exe = _lint_imports()
    if exe is None:
        if REQUIRED:
            pytest.fail("lint-imports is not installed (pip install -e '.[test]')")
        pytest.skip("lint-imports is not installed")
    proc = subprocess.run([exe, "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root / "src")})
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the tree breaks every contract
    out: dict[tuple[str, str, int], list[str]] = {}
    lines = proc.stdout.splitlines()
    contract, current = None, None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and set(lines[i + 1]) == {"-"} and len(lines[i + 1]) == len(line):
            contract = line  # a title, underlined
            continue
        m = CHAIN_START.match(line)
        if m and contract:
            current = out[(contract, m["importer"], int(m["line"]))] = [m["importer"], m["imported"]]
            continue
        m = LINK.match(line)
        if m and current is not None:
            current.append(m["imported"])
    return out


def test_the_same_chains_as_lint_imports(tmp_path: Path):
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    (root / ".git").mkdir()  # the project root, as a checkout has it
    theirs = _their_chains(root)
    parser = configparser.ConfigParser()
    parser.read(root / ".importlinter")
    names = {sec.split(":", 2)[2]: parser[sec]["name"] for sec in parser.sections() if sec.startswith("importlinter:contract:")}
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
