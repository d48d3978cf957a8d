"""Architecture invariants that are cheaper to test than to remember."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("pygls", "lsprotocol", "litellm", "watchdog", "specward.server")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_analyzers_import_no_shell_libraries():
    offenders = []
    for path in sorted((ROOT / "analyzers").rglob("*.py")):
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_importing_every_analyzer_loads_no_shell_library():
    code = (
        "import pkgutil, sys, specward.analyzers as a\n"
        "for m in pkgutil.walk_packages(a.__path__, 'specward.analyzers.'):\n"
        "    __import__(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN[:4]!r} or m.startswith('specward.server')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_engine_knows_neither_lsp_nor_cli():
    """``server/engine/`` is shared by the command line and the language server: it imports
    neither, nor pygls/lsprotocol (relative imports that climb out of it count too)."""
    offenders = []
    for path in sorted((ROOT / "server" / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level >= 2:
                    names = [f"..{node.module or ''}"]
                elif node.module:
                    names = [node.module] if node.level == 0 else []
            for name in names:
                if name.startswith(("pygls", "lsprotocol", "specward.server.lsp", "specward.server.cli", "..")):
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_only_convert_module_builds_lsp_positions():
    """UTF-16 arithmetic and lsprotocol Range/Position construction live in lsp/convert.py."""
    offenders = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        if path.name == "convert.py":
            continue
        text = path.read_text("utf-8")
        if re.search(r"\b(lsp|types)\.(Position|Range)\(", text) or "utf-16" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def _codes_in_source() -> set[str]:
    from specward.analyzers.codes import CODES

    found = set(CODES)
    pattern = re.compile(r"Finding\(\s*\"([a-z]+(?:-[a-z]+)+)\"")
    for folder in ("analyzers", "server"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(pattern.findall(path.read_text("utf-8")))
    return found


def test_every_diagnostic_code_has_a_docs_page():
    missing = sorted(c for c in _codes_in_source() if not (ROOT / "docs" / "diagnostics" / f"{c}.md").is_file())
    assert missing == []


def test_every_code_used_is_registered():
    from specward.analyzers.codes import CODES

    assert sorted(_codes_in_source() - set(CODES)) == []


def test_codes_are_kebab_case():
    from specward.analyzers.codes import CODES

    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)+", c) for c in CODES)
