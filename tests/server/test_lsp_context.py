"""Context manifests through the real server over stdio, on a real git repository: an
active task's manifest marks the entry a user edits in an unsaved buffer as stale, the
file typed outside the context as an out-of-context edit, and the code action captures
the manifest again from the editor's text, which clears the staleness."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import code_actions_as_sent, codes, pushed_client, wait_for
from test_index_context import FILES, make_repo, specward

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop")
    out = specward(root, "context", "capture", "src/payments/charge.ts", "--task", "pay", "--activate")
    assert out.returncode == 0, out.stdout + out.stderr
    return root


client = pushed_client()

MANIFEST = ".specward/context/pay.json"


def open_doc(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=text)))


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


async def test_stale_entries_out_of_context_edits_and_the_recapture_action(client: LanguageClient):
    root = client.workspace_root
    manifest_uri = (root / MANIFEST).as_uri()
    # a file the task was not given, typed in
    rel = "src/reports/summary.ts"
    uri = (root / rel).as_uri()
    open_doc(client, uri, FILES[rel])
    change(client, uri, 2, "export const summary = () => 'typed';\n")
    await wait_for(lambda: codes(client, root, rel) == ["out-of-context-edit"], what="the out-of-context edit")
    # an entry of the context, edited in an unsaved buffer: stale on the manifest and on the file
    money = "src/payments/money.ts"
    money_uri = (root / money).as_uri()
    open_doc(client, money_uri, FILES[money])
    change(client, money_uri, 2, FILES[money].replace("2", "5"))
    await wait_for(lambda: "stale-context" in codes(client, root, MANIFEST), what="the stale entry")
    await wait_for(lambda: codes(client, root, money) == ["stale-context"], what="the stale file")
    stale = next(d for d in client.diagnostics[manifest_uri] if d.code == "stale-context")
    assert "src/payments/money.ts changed since task 'pay' read it: edited in an unsaved buffer" in stale.message
    # the code action on the manifest's finding captures it again, from the buffer's text
    code_actions_as_sent(client)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=manifest_uri), range=stale.range,
        context=lsp.CodeActionContext(diagnostics=[stale])))
    (action,) = actions
    assert isinstance(action, lsp.CodeAction) and action.title == "Re-capture the context manifest"
    assert action.command is not None and action.command.command == "specward.recaptureContext"
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command=action.command.command,
                                                                          arguments=action.command.arguments))
    await wait_for(lambda: "stale-context" not in codes(client, root, MANIFEST), what="the manifest captured again")
    await wait_for(lambda: codes(client, root, money) == [], what="the file fresh again")
    assert "toFixed(5)" not in (root / money).read_text()  # the buffer was read, nothing was written to it
    assert codes(client, root, rel) == ["out-of-context-edit"]  # still outside the context
