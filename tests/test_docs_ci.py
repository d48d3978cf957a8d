"""``docs/ci.md`` is real: its GitHub Actions workflow is valid YAML whose every
``specward check`` line parses with the real command line, and its exit-code table names
the statuses the command returns."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml

from specward.server import check_report, cli

from test_docs import DOCS, blocks

PAGE = DOCS / "ci.md"


def workflow() -> dict:
    block = next(b for b in blocks(PAGE) if b.lang == "yaml" and b.section == "A GitHub Actions workflow")
    return yaml.safe_load(block.text)


def check_lines() -> list[str]:
    steps = workflow()["jobs"]["check"]["steps"]
    runs = [s["run"] for s in steps if "specward check" in s.get("run", "")]
    assert len(runs) == 2
    return runs


def test_the_workflow_is_a_workflow():
    doc = workflow()
    assert set(doc["jobs"]["check"]) >= {"runs-on", "steps"}
    steps = doc["jobs"]["check"]["steps"]
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # what --changed-since needs
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert "git+https://" in install  # not an index: specward is not published there yet


@pytest.mark.parametrize("line", check_lines())
def test_every_check_line_parses(line: str):
    line = line.replace("${{ github.base_ref }}", "main").split(">")[0]
    argv = shlex.split(line)
    assert argv[:2] == ["specward", "check"]
    args = cli._parser().parse_args(argv[1:])
    assert args.format in ("github", "sarif")
    assert args.baseline == "ci/specward-baseline.json"


def test_the_exit_code_table_matches_the_code():
    text = PAGE.read_text("utf-8")
    table = text.split("## Exit codes", 1)[1]
    statuses = {int(m) for m in re.findall(r"(?m)^\| (\d+) \|", table)}
    assert statuses == {check_report.EXIT_OK, check_report.EXIT_FINDINGS, check_report.EXIT_USAGE, 13}
    assert cli.EXIT_ERROR == check_report.EXIT_USAGE  # an internal error shares 2, never 1


def test_no_page_promises_an_index_install_before_specward_is_published():
    """specward is not on PyPI yet: no page or message may tell a user to install it from an
    index (docs/install.md explains this, and is the one page allowed to name the command)."""
    root = DOCS.parent
    promise = re.compile(r"pipx? install (-U )?['\"]?specward\b")
    places = [*DOCS.rglob("*.md"), root / "README.md", root / "client-vscode/README.md",
              root / "client-vscode/package.json", *root.glob("client-vscode/src/*.ts"), *root.glob("server/**/*.py")]
    bad = [f"{p.relative_to(root)}:{n}" for p in places if p.name != "install.md"
           for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
           if promise.search(line) and "git+" not in line]
    assert bad == []
