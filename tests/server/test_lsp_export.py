"""The LLM-free exports as code actions, through the real server over stdio: on a SpecDSL
contract, "Export OpenAPI 3.1" and "Generate TypeScript types and client" are offered;
executing one, the server asks the editor to apply one edit whose changes all need the
user's confirmation, and the file it creates is what `specward export` prints."""

from __future__ import annotations

import subprocess
import sys

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import code_actions_as_sent, wait_for

CONTRACT = "contracts/articles.dsl.json"


async def _actions(client: LanguageClient, uri: str, only=None) -> list:
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        context=lsp.CodeActionContext(diagnostics=[], only=only)))


async def test_a_contract_is_exported_once_the_user_confirms(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: client.diagnostics, what="the first publish")
    uri = (root / CONTRACT).as_uri()
    code_actions_as_sent(client)
    actions = await _actions(client, uri)
    titles = [a.title for a in actions]
    assert "Export OpenAPI 3.1 (contracts/articles.openapi.yaml)" in titles
    assert "Generate TypeScript types and client (contracts/articles.client.ts)" in titles
    assert not await _actions(client, uri, only=[lsp.CodeActionKind.QuickFix])  # not a quick fix
    # not offered on an OpenAPI contract or a source file (other actions may be: a slice)
    assert not [a for a in await _actions(client, (root / "contracts/openapi.yaml").as_uri())
                if a.command and a.command.command == "specward.exportContract"]

    requests: list[lsp.WorkspaceEdit] = []
    answer = {"applied": False}

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams):
        requests.append(params.edit)
        if answer["applied"]:  # this editor applies it: the file is created with the text
            create, change = params.edit.document_changes
            path = root / create.uri[len(root.as_uri()) + 1:]
            path.write_text(change.edits[0].new_text)
        return lsp.ApplyWorkspaceEditResult(applied=answer["applied"])

    client_action = next(a for a in actions if a.title.startswith("Generate TypeScript"))
    # the user declines: nothing is written
    done = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=client_action.command.command, arguments=client_action.command.arguments))
    assert done is False and not (root / "contracts/articles.client.ts").exists()
    edit = requests[-1]
    assert all(note.needs_confirmation for note in edit.change_annotations.values())
    create, change = edit.document_changes
    assert isinstance(create, lsp.CreateFile) and create.annotation_id in edit.change_annotations
    assert all(e.annotation_id in edit.change_annotations for e in change.edits)
    # the user confirms: the file is the command line's export of the same contract
    answer["applied"] = True
    done = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=client_action.command.command, arguments=client_action.command.arguments))
    assert done is True
    printed = subprocess.run([sys.executable, "-m", "specward.server", "export", "client", str(root / CONTRACT),
                              "--lang", "ts"], capture_output=True, text=True, check=True).stdout
    assert (root / "contracts/articles.client.ts").read_text() == printed
    assert "export function createClient" in printed
    # up to date now: no edit is asked for, a message says so
    before = len(requests)
    done = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=client_action.command.command, arguments=client_action.command.arguments))
    assert done is False and len(requests) == before


async def test_a_broken_contract_is_not_exported(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: client.diagnostics, what="the first publish")
    uri = (root / CONTRACT).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="json", version=1, text='{"version": "1.0", "endpoints": [ {"method": 7} ]}')))
    asked: list = []

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams):
        asked.append(params)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    done = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="specward.exportContract", arguments=[{"contract": CONTRACT, "kind": "openapi"}]))
    assert done is False and asked == []
    await wait_for(lambda: any("nothing was exported" in m.message for m in client.messages),
                   what="the message saying why")
    assert not (root / "contracts/articles.openapi.yaml").exists()


def test_an_exported_openapi_file_is_not_a_second_contract(workspace):
    from specward.server.engine.index import WorkspaceIndex

    exported = workspace / "contracts/articles.openapi.yaml"
    exported.write_text(subprocess.run(
        [sys.executable, "-m", "specward.server", "export", "openapi", str(workspace / CONTRACT)],
        capture_output=True, text=True, check=True).stdout)
    idx = WorkspaceIndex(workspace, use_cache=False)
    idx.build()
    assert "contracts/articles.openapi.yaml" not in idx.contracts and CONTRACT in idx.contracts
    # the same file without its first line is discovered (and declares the endpoints again)
    exported.write_text(exported.read_text().split("\n", 1)[1])
    idx = WorkspaceIndex(workspace, use_cache=False)
    idx.build()
    assert "contracts/articles.openapi.yaml" in idx.contracts
