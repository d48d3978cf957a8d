"""The documentation's examples are real: every configuration example in ``docs/`` loads
through the real ``load_config`` without a problem, and every diagnostics page's example,
run through the real ``specward check``, prints exactly the lines the page shows.

A diagnostics page's ``## Example`` section is a set of files, each a fenced block right
after a line naming it (`` `web/src/users.ts`: ``), and one fenced block right after a
line naming the command (`` `specward check` prints: ``, optionally "(and exits with status N)").
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from specward.server.engine.config import Settings, load_config
from specward.server.lsp.handlers.initialize import parse_options

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted((DOCS / "diagnostics").glob("*.md"))

FENCE = re.compile(r"^```(\S*)\s*$")
FINDING = re.compile(r"^\S+:\d+:\d+: (error|warning|information|hint)\[[a-z-]+\] ")
FILE_CAPTION = re.compile(r"^`([^`\s]+)`:$")
RUN_CAPTION = re.compile(r"^`(specward check[^`]*)` prints(?:.*exits with status (\d))?")


@dataclass
class Block:
    line: int
    lang: str
    text: str
    caption: str  # the last non-empty line before the fence
    section: str  # the "## " heading it is under


def blocks(page: Path) -> list[Block]:
    lines = page.read_text("utf-8").splitlines()
    out: list[Block] = []
    section = caption = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            out.append(Block(i + 1, m.group(1), "\n".join(lines[i + 1:j]) + "\n", caption, section))
            caption = ""
            i = j + 1
            continue
        if line.startswith("## "):
            section = line[3:].strip()
        if line.strip():
            caption = line.strip()
        i += 1
    return out


def run_check(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    if "--registry-check" not in args:
        return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=120)
    # a page showing the registry check runs against a local stand-in registry that knows
    # no package at all (a test never reaches the real npm registry or PyPI)
    import os
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Unknown(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Unknown)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {**os.environ, "SPECWARD_NPM_REGISTRY": url, "SPECWARD_PYPI_URL": url}
    try:
        return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=120, env=env)
    finally:
        server.shutdown()


# ---------------------------------------------------------------- diagnostics pages
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_diagnostic_page_example_is_what_specward_prints(page: Path, tmp_path: Path):
    example = [b for b in blocks(page) if b.section == "Example"]
    files = {m.group(1): b.text for b in example if (m := FILE_CAPTION.match(b.caption))}
    runs = [(m, b) for b in example if (m := RUN_CAPTION.match(b.caption))]
    assert files, f"{page.name}: the example names no file"
    assert len(runs) == 1, f"{page.name}: the example shows no (or more than one) `specward check` output"
    match, shown = runs[0]
    expected = shown.text.splitlines()
    assert any(f"[{page.stem}]" in line for line in expected), f"{page.name}: the output shows no {page.stem}"

    root = tmp_path / "example"
    (root / ".git").mkdir(parents=True)  # the project root, whatever lies above the temp folder
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    command = shlex.split(match.group(1))
    out = run_check(command[1:], root)
    assert out.stdout.splitlines() == expected, f"{page.name}:{shown.line}: stderr: {out.stderr}"
    if match.group(2):
        assert out.returncode == int(match.group(2))
    # a finding shown anywhere else on the page is one of the example's
    for line in page.read_text("utf-8").splitlines():
        if FINDING.match(line):
            assert line in expected, f"{page.name}: {line!r} is not what the example prints"


def test_the_readme_output_is_what_specward_prints():
    readme = blocks(ROOT / "README.md")
    shown = next(b for b in readme if any(FINDING.match(line) for line in b.text.splitlines()))
    command = next(b for b in readme if "specward check examples/fullstack" in b.text).text
    assert command.rstrip().endswith("specward check examples/fullstack")
    out = run_check(["check", "examples/fullstack", "--no-cache"], ROOT)  # nothing written into the checkout
    assert out.stdout.splitlines() == shown.text.splitlines(), out.stderr


# ---------------------------------------------------------------- configuration examples
def config_examples() -> list[tuple[str, Block, str]]:
    """(page, block, file name) of every specward configuration example in docs/: a toml
    block with a [tool.specward] table, or one right after a line naming specward.toml.
    Diagnostics examples (deliberately invalid, for config-invalid) are run above instead."""
    out = []
    for page in sorted(DOCS.rglob("*.md")):
        for b in blocks(page):
            if b.lang != "toml" or (page.parent.name == "diagnostics" and b.section == "Example"):
                continue
            name = page.relative_to(DOCS).as_posix()
            if "[tool.specward" in b.text:
                out.append((name, b, "pyproject.toml"))
            elif "specward.toml" in b.caption:
                out.append((name, b, "specward.toml"))
    return out


EXAMPLES = config_examples()


def test_the_configuration_examples_are_found():
    pages = {page for page, _, _ in EXAMPLES}
    assert {"configuration.md", "diagnostics/phantom-api.md", "diagnostics/unused-endpoint.md"} <= pages
    assert {form for page, _, form in EXAMPLES if page == "configuration.md"} == {"pyproject.toml", "specward.toml"}


@pytest.mark.parametrize("page,block,form", EXAMPLES, ids=[f"{p}:{b.line}" for p, b, _ in EXAMPLES])
def test_configuration_example_loads(page: str, block: Block, form: str, tmp_path: Path):
    (tmp_path / form).write_text(block.text, "utf-8")
    cfg = load_config(tmp_path)
    assert cfg.source is not None and cfg.source.name == form
    assert [p.message for p in cfg.problems] == []
    assert cfg.settings != Settings(), "the example sets nothing"
    if form == "pyproject.toml":
        # pasted as it is into specward.toml, the table is the same configuration
        pasted = tmp_path / "pasted"
        pasted.mkdir()
        (pasted / "specward.toml").write_text(block.text, "utf-8")
        again = load_config(pasted)
        assert [p.message for p in again.problems] == [] and again.settings == cfg.settings


def test_editor_settings_example_is_taken_whole():
    block = next(b for b in blocks(DOCS / "configuration.md") if b.lang == "json" and b.section == "Editor settings")
    raw = json.loads(block.text)
    assert parse_options(raw) == raw
