"""Start-up on a workspace with many findings: a document opened right after indexing
gets its diagnostics before the whole workspace has been published."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import one_endpoint_workspace, wait_for

FILES = 1500


class _Ordered(dict):
    """The client's diagnostics, remembering the order in which files were published."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.order: list[str] = []

    def __setitem__(self, uri, value) -> None:
        self.order.append(uri)
        super().__setitem__(uri, value)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "many"
    src = one_endpoint_workspace(root, "/api/items")
    for i in range(FILES):
        (src / f"f{i:04d}.ts").write_text(f"export const load{i} = () => fetch('/api/missing/{i}');\n")
    (root / "src/opened.ts").write_text("export const mine = () => fetch('/api/nope');\n")
    return root


async def test_a_document_opened_after_indexing_is_not_queued_behind_the_workspace(client: LanguageClient,
                                                                                    workspace: Path):
    client.diagnostics = _Ordered(client.diagnostics)
    uri = (workspace / "src/opened.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text="export const mine = () => fetch('/api/nope/2');\n")))
    await wait_for(lambda: any("/api/nope/2" in d.message for d in client.diagnostics.get(uri, [])),
                   what="the opened document's diagnostics")
    last = (workspace / f"src/f{FILES - 1:04d}.ts").as_uri()
    await wait_for(lambda: last in client.diagnostics, what="the whole workspace's diagnostics")
    order = client.diagnostics.order
    first_of_open = next(i for i, u in enumerate(order) if u == uri and any(
        "/api/nope/2" in d.message for d in client.diagnostics[uri]))
    # its diagnostics came before most of the workspace's (publishing goes in chunks)
    assert order.index(last) > order.index(uri)
    assert first_of_open < len(order) // 2, (first_of_open, len(order))
    assert [str(d.code) for d in client.diagnostics[last]] == ["phantom-api"]
