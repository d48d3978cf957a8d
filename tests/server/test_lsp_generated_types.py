"""A framework's generated folder changing while the server runs, through the real server
over stdio and its real file watcher: `nuxi prepare` adding a block to `.nuxt/`, and
`nuxi cleanup` removing the folder. The diagnostics of files nobody opened follow."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from conftest import codes, pushed_client, wait_for, write_tree
from test_index_generated_types import APP, REGENERATED


@pytest.fixture
def nuxt_app(tmp_path: Path) -> Path:
    return write_tree(tmp_path, APP)


client = pushed_client(workspace="nuxt_app")


async def test_the_generated_folder_is_followed_while_the_server_runs(client: LanguageClient):
    root = client.workspace_root
    links, page = "app/utils/links.ts", "app/pages/guide.vue"
    await wait_for(lambda: codes(client, root, links) == ["missing-export", "undeclared-dependency"],
                   what="the typo in links.ts")
    assert codes(client, root, page) == []
    (root / ".nuxt/pages/types.d.ts").write_text(REGENERATED)  # the block now declares GuideItm
    await wait_for(lambda: codes(client, root, links) == ["undeclared-dependency"], what="the regenerated block")
    shutil.rmtree(root / ".nuxt")  # its names and its mappings are gone: what tsc says then
    await wait_for(lambda: codes(client, root, page) == ["missing-export", "undeclared-dependency"],
                   what="the verdicts without the folder")
    assert codes(client, root, links) == ["missing-export", "undeclared-dependency"]
