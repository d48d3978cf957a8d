"""The real server over stdio, driven by pytest-lsp, on a copy of the example workspace."""

from __future__ import annotations

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import codes, messages, wait_for


async def test_example_diagnostics_are_published(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="profile.ts diagnostics")
    assert codes(client, root, "web/src/features/profile.ts") == ["method-mismatch", "phantom-api"]
    assert codes(client, root, "web/src/features/articles.ts") == ["phantom-api", "phantom-api"]
    assert codes(client, root, "scripts/sync_users.py") == ["phantom-api"]
    assert "unused-endpoint" in codes(client, root, "contracts/articles.dsl.json")
    avatar = [d for d in client.diagnostics[(root / "web/src/features/profile.ts").as_uri()] if d.code == "phantom-api"][0]
    assert "GET /api/user/profile/avatar" in avatar.message and "nearest: GET /api/user/profile" in avatar.message
    # the range covers the URL literal on its line (0-based line 10: `api.get('/user/profile/avatar')`)
    line = (root / "web/src/features/profile.ts").read_text().splitlines()[avatar.range.start.line]
    assert line[avatar.range.start.character:avatar.range.end.character] == "'/user/profile/avatar'"
    assert avatar.severity == lsp.DiagnosticSeverity.Error
    assert avatar.code_description is not None and avatar.code_description.href.endswith("phantom-api.md")
    # clean files get nothing
    assert codes(client, root, "web/src/components/TagList.tsx") == []


async def test_indexing_reports_progress(client: LanguageClient):
    await wait_for(lambda: any(isinstance(v, lsp.WorkDoneProgressEnd) for vs in client.progress_reports.values() for v in vs),
                   what="progress end")
    values = [v for vs in client.progress_reports.values() for v in vs]
    assert isinstance(values[0], lsp.WorkDoneProgressBegin)
    reports = [v.message for v in values if isinstance(v, lsp.WorkDoneProgressReport)]
    assert any(m and m.startswith("Indexing ") and " files" in m for m in reports)
    # the custom status notification brackets indexing
    await wait_for(lambda: len(client.statuses) >= 2, what="specward/status")
    states = [getattr(st, "state", None) or st["state"] for st in client.statuses]
    assert states[:2] == ["indexing", "ready"]
    # and the server asked the client to report file changes too
    await wait_for(lambda: client.registrations, what="file-watch registration")
    assert client.registrations[0].method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES


async def test_edit_adds_then_fix_removes_a_phantom(client: LanguageClient):
    root = client.workspace_root
    path = root / "web/src/components/TagList.tsx"
    uri = path.as_uri()
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    text = path.read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="typescriptreact", version=1, text=text)))
    line = text.splitlines().index("    fetch('/api/tags')")
    # incremental edit: '/api/tags' -> '/api/tagz'
    col = len("    fetch('/api/tag")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=line, character=col), end=lsp.Position(line=line, character=col + 1)),
            text="z")]))
    await wait_for(lambda: codes(client, root, "web/src/components/TagList.tsx") == ["phantom-api"], what="phantom after edit")
    assert "GET /api/tagz is not in the contract (nearest: GET /api/tags)" in messages(client, root, "web/src/components/TagList.tsx")[0]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=line, character=col), end=lsp.Position(line=line, character=col + 1)),
            text="s")]))
    await wait_for(lambda: codes(client, root, "web/src/components/TagList.tsx") == [], what="diagnostic cleared")


async def test_contract_edit_rechecks_callers(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    contract = root / "contracts/openapi.yaml"
    uri = contract.as_uri()
    text = contract.read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    added = text.replace("  /user/profile:\n", "  /user/profile/avatar:\n    get:\n      responses:\n"
                         "        \"200\":\n          description: The avatar\n  /user/profile:\n")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=added)]))
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts") == ["method-mismatch"],
                   what="avatar phantom gone after the contract edit")


async def test_disk_changes_of_closed_files_are_followed(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    new = root / "web/src/features/orders.ts"
    new.write_text("export const orders = () => fetch('/api/orders');\n")
    await wait_for(lambda: codes(client, root, "web/src/features/orders.ts") == ["phantom-api"], what="new file checked")
    new.write_text("export const orders = () => fetch('/api/tags');\n")
    await wait_for(lambda: codes(client, root, "web/src/features/orders.ts") == [], what="fixed on disk")


async def test_broken_contract_and_bad_files_do_not_stop_the_server(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    (root / "web/src/blob.ts").write_bytes(b"\x00\x01\x02binary")
    (root / "web/src/latin1.ts").write_bytes("fetch('/api/caf\xe9')".encode("latin-1"))
    (root / "contracts/broken.dsl.json").write_text('{"version": "1.0", "endpoints": [ {"method": "GET", ')
    await wait_for(lambda: "contract-invalid" in codes(client, root, "contracts/broken.dsl.json"), what="contract-invalid")
    # a contract that cannot be read judges no call: the phantoms wait until it can be read
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts") == [], what="no judgement")
    # still serving: the repaired contract and an edit are analyzed
    (root / "contracts/broken.dsl.json").unlink()
    new = root / "web/src/after.ts"
    new.write_text("fetch('/api/nothing-here');\n")
    await wait_for(lambda: codes(client, root, "web/src/after.ts") == ["phantom-api"], what="server still serving")


async def test_watched_files_notification_and_vanishing_files(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    # an unsaved new buffer: analyzed from the editor's text although the file does not exist
    ghost = root / "web/src/ghost.ts"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=ghost.as_uri(), language_id="typescript", version=1, text="fetch('/api/ghost');\n")))
    await wait_for(lambda: codes(client, root, "web/src/ghost.ts") == ["phantom-api"], what="unsaved buffer checked")
    # closed without saving: the file never existed, its diagnostics go away
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=ghost.as_uri())))
    await wait_for(lambda: codes(client, root, "web/src/ghost.ts") == [], what="ghost cleared")
    # a change to a document that was never opened is ignored, not fatal
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=(root / "nope.ts").as_uri(), version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text="fetch('/x')")]))
    # the client reports a deletion: the file's diagnostics are withdrawn
    profile = root / "web/src/features/profile.ts"
    profile.unlink()
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=profile.as_uri(), type=lsp.FileChangeType.Deleted)]))
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts") == [], what="deleted file cleared")


async def test_config_changes_are_applied_and_invalid_config_reported(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, "web/src/features/profile.ts"), what="initial index")
    (root / "specward.toml").write_text('[severity]\nphantom-api = "warning"\n')
    profile = (root / "web/src/features/profile.ts").as_uri()
    await wait_for(lambda: any(d.code == "phantom-api" and d.severity == lsp.DiagnosticSeverity.Warning
                               for d in client.diagnostics.get(profile, [])), what="severity override applied")
    (root / "specward.toml").write_text('[severity]\nphantom-api = "loud"\n')
    await wait_for(lambda: codes(client, root, "specward.toml") == ["config-invalid"], what="config-invalid published")
    bad = client.diagnostics[(root / "specward.toml").as_uri()][0]
    assert bad.range.start.line == 1 and "phantom-api" in bad.message
    # defaults again: phantom-api is an error
    await wait_for(lambda: any(d.code == "phantom-api" and d.severity == lsp.DiagnosticSeverity.Error
                               for d in client.diagnostics.get(profile, [])), what="defaults used")
