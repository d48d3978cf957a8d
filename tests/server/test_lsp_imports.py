"""Phantom imports and the fix-history ledger through the real server over stdio, on a
copy of the example workspace: the diagnostics while typing, a quick fix that records
itself in the ledger, and the same mistake caught on sight in another file."""

from __future__ import annotations

import json

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import code_actions_as_sent, codes, messages, wait_for

FEATURE = "web/src/features/tags.ts"
OTHER = "web/src/features/feed.ts"
MISTAKE = "import { gett } from '../api/request';\n\nexport const tags = () => gett('/tags');\n"


def _open(client: LanguageClient, root, rel: str, text: str, version: int = 1) -> str:
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="typescript", version=version, text=text)))
    return uri


async def test_the_examples_import_mistakes_are_published(client: LanguageClient):
    root = client.workspace_root
    rel = "web/src/features/search.ts"
    await wait_for(lambda: codes(client, root, rel), what="search.ts diagnostics")
    assert codes(client, root, rel) == ["missing-export", "phantom-import"]
    assert any("'API_ROOT' is not exported by web/src/api/request.ts" in m for m in messages(client, root, rel))
    diag = next(d for d in client.diagnostics[(root / rel).as_uri()] if d.code == "phantom-import")
    line = (root / rel).read_text().splitlines()[diag.range.start.line]
    assert "../utils/timing" in line[diag.range.start.character:diag.range.end.character]
    assert diag.code_description is not None and diag.code_description.href.endswith("phantom-import.md")


async def test_a_typed_phantom_name_its_fix_and_the_ledger(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    uri = _open(client, root, FEATURE, MISTAKE)
    await wait_for(lambda: codes(client, root, FEATURE) == ["missing-export"], what="missing-export while typing")
    assert "did you mean 'get'?" in messages(client, root, FEATURE)[0]
    diag = client.diagnostics[uri][0]
    code_actions_as_sent(client)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))
    fix = next(a for a in actions if a.title == "Change to 'get'")
    assert isinstance(fix, lsp.CodeAction) and fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
    command = fix.command
    assert command is not None and command.command == "specward.applyFix"
    # executing it, the server asks the editor to apply the edit; this editor applies it
    applied: list[lsp.WorkspaceEdit] = []

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams):
        applied.append(params.edit)
        edit = params.edit.document_changes[0].edits[0]
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
        return lsp.ApplyWorkspaceEditResult(applied=True)

    done = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=command.command, arguments=command.arguments))
    assert done is True
    assert applied[0].document_changes[0].edits[0].new_text == "get as gett"  # the code using it still compiles
    await wait_for(lambda: codes(client, root, FEATURE) == [], what="the fix clears the diagnostic")
    ledger = root / ".specward/fix-history.jsonl"
    records = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(records) == 1
    assert records[0]["brokenImport"]["source"] == "../api/request"
    assert records[0]["brokenImport"]["names"] == ["gett"]
    assert records[0]["fix"]["stage"] == "editor"
    # the same mistake, written again elsewhere: caught on sight, with its history on hover
    other = _open(client, root, OTHER, MISTAKE)
    await wait_for(lambda: "repeated-hallucination" in codes(client, root, OTHER), what="repeated-hallucination")
    repeated = next(d for d in client.diagnostics[other] if d.code == "repeated-hallucination")
    assert repeated.severity == lsp.DiagnosticSeverity.Warning
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=other), position=repeated.range.start))
    assert hover is not None and "gett" in hover.contents.value
    # and the ledger is what git keeps of .specward/
    assert "!fix-history.jsonl" in (root / ".specward/.gitignore").read_text()


async def test_an_installed_but_undeclared_package_is_added_to_the_manifest_with_its_version(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    installed = root / "node_modules/dayjs"
    installed.mkdir(parents=True)
    (installed / "package.json").write_text('{"name": "dayjs", "version": "1.11.13", "main": "dayjs.min.js"}\n')
    (installed / "dayjs.min.js").write_text("module.exports = function dayjs() {};\n")
    # the environment is read when the index builds: a manifest change makes it read again
    (root / "package.json").write_text((root / "package.json").read_text())
    rel = "web/src/features/dates.ts"
    uri = _open(client, root, rel, "import dayjs from 'dayjs';\n\nexport const today = () => dayjs();\n")
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(
        uri=(root / "package.json").as_uri(), type=lsp.FileChangeType.Changed)]))
    await wait_for(lambda: codes(client, root, rel) == ["undeclared-dependency"], what="undeclared-dependency")
    diag = client.diagnostics[uri][0]
    assert diag.severity == lsp.DiagnosticSeverity.Warning
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))
    fix = next(a for a in actions if a.title == "Add dayjs@^1.11.13 to package.json")
    change = fix.edit.document_changes[0]
    assert change.text_document.uri == (root / "package.json").as_uri()
    assert '"dayjs": "^1.11.13"' in change.edits[0].new_text


def test_the_network_and_the_user_ledger_are_editor_options_only():
    from specward.server.lsp.handlers.initialize import parse_options

    assert parse_options({"registryCheck": True, "userLedger": True}) == {"registry_check": True, "user_ledger": True}
    assert parse_options({"registryCheck": "yes", "userLedger": 1}) == {}
    # a workspace's configuration has no such keys: they are invalid there
    from specward.server.engine.config import Settings

    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError):
        Settings(registryCheck=True)
