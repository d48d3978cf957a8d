"""Architecture rules through the real server over stdio: an import-linter contract the
project already has gives a diagnostic while the user types the import that breaks it,
and an edit of the contract file judges it again under the new contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import codes, messages, pushed_client, wait_for

CONTRACTS = """[importlinter]
root_package = garden

[importlinter:contract:layers]
name = Views over logic over storage
type = layers
layers =
    garden.views
    garden.logic
    garden.storage
"""

PLANTS = "from garden.storage.beds import all_beds\n\n\ndef watering_plan() -> list:\n    return all_beds()\n"
BEDS = "def all_beds() -> list:\n    return []\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "garden-app"
    for rel, text in {".importlinter": CONTRACTS, "garden/__init__.py": "", "garden/views/__init__.py": "",
                      "garden/views/page.py": "from garden.logic.plants import watering_plan\n",
                      "garden/logic/__init__.py": "", "garden/logic/plants.py": PLANTS,
                      "garden/storage/__init__.py": "", "garden/storage/beds.py": BEDS}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".git").mkdir()
    return root


client = pushed_client()


async def test_typing_an_import_that_breaks_a_contract_and_editing_the_contract(client: LanguageClient):
    root = client.workspace_root
    rel = "garden/storage/beds.py"
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=BEDS)))
    await wait_for(lambda: uri in client.diagnostics, what="beds.py published")
    assert codes(client, root, rel) == []
    typed = "from garden.views.page import watering_plan\n\n" + BEDS
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=typed)]))
    await wait_for(lambda: codes(client, root, rel) == ["invariant-violation"], what="the violation while typing")
    assert messages(client, root, rel) == [
        "[layers] (Views over logic over storage) garden.storage.beds must not import garden.views: "
        "garden.views is a higher layer"]
    diag = client.diagnostics[uri][0]
    assert typed.splitlines()[0][diag.range.start.character:diag.range.end.character] == "garden.views.page"
    # the contract no longer names the views layer: the import is judged again, and now
    # breaks the rule through the views' own import of the logic layer
    (root / ".importlinter").write_text(CONTRACTS.replace("    garden.views\n", ""))
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=(root / ".importlinter").as_uri(), type=lsp.FileChangeType.Changed)]))
    chain = ("[layers] (Views over logic over storage) garden.storage.beds must not import garden.logic through "
             "garden.views.page -> garden.logic.plants: garden.logic is a higher layer")
    await wait_for(lambda: messages(client, root, rel) == [chain], what="the verdict under the edited contract")
