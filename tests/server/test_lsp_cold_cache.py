"""A first start on a workspace large enough for parser processes, with the cache on and
empty: the parser processes link, and their facts reach the cache only after the index is
ready. An edit made right away still re-checks every file that reads the edited one (the
index waits for the facts it needs), and the cache ends up complete."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import one_endpoint_workspace, wait_for

FILES = 450  # above the 400 files from which parser processes are used


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "cold"
    src = one_endpoint_workspace(root, "/api/v1/items/:id")
    (src / "api.ts").write_text("export const BASE = '/api/v1';\n")
    for i in range(FILES):
        (src / f"f{i:03d}.ts").write_text(
            f"import {{ BASE }} from './api';\nexport const load{i} = () => fetch(`${{BASE}}/items/{i}`);\n")
    return root


def _phantoms(client: LanguageClient) -> set[str]:
    return {uri for uri, diags in client.diagnostics.items() if any(str(d.code) == "phantom-api" for d in diags)}


async def test_an_edit_right_after_a_cold_start_rechecks_every_reader(client: LanguageClient, workspace: Path):
    assert not _phantoms(client)  # every call matches GET /api/v1/items/{id}
    uri = (workspace / "src/api.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text="export const BASE = '/api/v1';\n")))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text="export const BASE = '/api/v2';\n")]))
    await wait_for(lambda: len(_phantoms(client)) == FILES, what="every reader of api.ts re-checked")
    last = (workspace / f"src/f{FILES - 1:03d}.ts").as_uri()
    assert [d.message.split(" (")[0] for d in client.diagnostics[last]] == [
        f"GET /api/v2/items/{FILES - 1} is not in the contract"]
    # the parser processes' facts are all in the cache
    db = workspace / ".specward/cache.sqlite"
    stored = lambda: sqlite3.connect(db).execute("SELECT count(*) FROM facts").fetchone()[0]  # noqa: E731
    await wait_for(lambda: stored() >= FILES + 1, what="every file's facts in the cache")
