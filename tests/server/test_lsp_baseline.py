"""The configuration's baseline in the editor: the real server over stdio (pytest-lsp) on a
copy of the example workspace whose findings ``specward check --write-baseline`` recorded.
Baselined findings are published as hints marked "(baseline)", new ones at their own
severity; lines typed above a baselined finding keep it baselined; a rewritten baseline
file is read again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import copy_example, pushed_client, wait_for

REL = "web/src/features/profile.ts"
BASELINE = "ci/specward-baseline.json"


def write_baseline(root: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "specward.server", "check", "--no-cache", "--write-baseline",
                          BASELINE], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.fixture
def baselined(tmp_path: Path) -> Path:
    root = copy_example(tmp_path / "ws")
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace("[tool.specward]\n", f'[tool.specward]\nbaseline = "{BASELINE}"\n'))
    write_baseline(root)
    return root


client = pushed_client(workspace="baselined")


def shown(client: LanguageClient, rel: str) -> list[tuple[str, lsp.DiagnosticSeverity, bool]]:
    uri = (client.workspace_root / rel).as_uri()
    return sorted((str(d.code), d.severity, d.message.endswith(" (baseline)")) for d in client.diagnostics.get(uri, ()))


HINT, ERROR = lsp.DiagnosticSeverity.Hint, lsp.DiagnosticSeverity.Error


async def test_baselined_findings_are_hints_and_new_ones_are_not(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: shown(client, REL), what="profile.ts diagnostics")
    assert shown(client, REL) == [("method-mismatch", HINT, True), ("phantom-api", HINT, True)]
    uri = (root / REL).as_uri()
    text = (root / REL).read_text()
    # lines typed on top: still the baseline's; a new phantom below: an error
    edited = "// profile calls\n\n" + text + \
        "\nexport async function loadBanner() {\n  return (await api.get('/user/profile/banner')).data;\n}\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=edited)))
    await wait_for(lambda: len(shown(client, REL)) == 3, what="the new phantom")
    assert shown(client, REL) == [("method-mismatch", HINT, True), ("phantom-api", ERROR, False),
                                  ("phantom-api", HINT, True)]
    new = next(d for d in client.diagnostics[uri] if d.severity == ERROR)
    assert new.range.start.line == edited.splitlines().index("  return (await api.get('/user/profile/banner')).data;")

    # the baseline written again with the new finding (on disk too), and the client says so
    (root / REL).write_text(edited)
    write_baseline(root)
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=(root / BASELINE).as_uri(), type=lsp.FileChangeType.Changed)]))
    await wait_for(lambda: all(s == HINT for _, s, _ in shown(client, REL)), what="every finding baselined")
    assert len(shown(client, REL)) == 3


async def test_a_broken_baseline_shows_every_finding_as_new(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: shown(client, REL), what="profile.ts diagnostics")
    (root / BASELINE).write_text('{"specward_baseline": 1, "findings": [')
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=(root / BASELINE).as_uri(), type=lsp.FileChangeType.Changed)]))
    await wait_for(lambda: shown(client, REL) == [("method-mismatch", ERROR, False), ("phantom-api", ERROR, False)],
                   what="every finding new")
    await wait_for(lambda: any("baseline" in m.message and "cannot be used" in m.message
                               for m in client.messages), what="the warning")
