"""Inline suppression in the editor: the real server over stdio (pytest-lsp) on a copy of the
example workspace publishes what ``specward check`` prints, as the comments are typed."""

from __future__ import annotations

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import codes, messages, wait_for

REL = "web/src/features/profile.ts"
AVATAR = "  const res = await api.get('/user/profile/avatar');\n"


async def test_a_suppressed_phantom_is_not_published_until_the_comment_goes(client: LanguageClient):
    root = client.workspace_root
    await wait_for(lambda: codes(client, root, REL), what="profile.ts diagnostics")
    assert codes(client, root, REL) == ["method-mismatch", "phantom-api"]
    disk = (root / REL).read_text()
    assert AVATAR in disk
    suppressed = disk.replace(AVATAR, "  // specward: ignore[phantom-api]\n" + AVATAR)
    uri = (root / REL).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="typescript", version=1, text=suppressed)))
    await wait_for(lambda: codes(client, root, REL) == ["method-mismatch"], what="the phantom suppressed")
    # the comment removed by an edit: the phantom is published again
    line = suppressed.splitlines().index("  // specward: ignore[phantom-api]")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=line, character=0), end=lsp.Position(line=line + 1, character=0)),
            text="")]))
    await wait_for(lambda: codes(client, root, REL) == ["method-mismatch", "phantom-api"], what="the phantom back")
    # a typo in a trailing comment: the phantom stays, and the comment is reported on its code
    avatar_line = disk.splitlines().index(AVATAR.rstrip("\n"))
    end = len(AVATAR.rstrip("\n"))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=avatar_line, character=end),
                            end=lsp.Position(line=avatar_line, character=end)),
            text=" // specward: ignore[phantom-apy]")]))
    await wait_for(lambda: "unknown-suppression" in codes(client, root, REL), what="unknown-suppression")
    assert codes(client, root, REL) == ["method-mismatch", "phantom-api", "unknown-suppression"]
    assert any("did you mean 'phantom-api'?" in m for m in messages(client, root, REL))
    diag = next(d for d in client.diagnostics[uri] if d.code == "unknown-suppression")
    assert diag.severity == lsp.DiagnosticSeverity.Warning
    shown = disk.splitlines()[avatar_line] + " // specward: ignore[phantom-apy]"
    assert diag.range.start.line == avatar_line
    assert shown[diag.range.start.character:diag.range.end.character] == "phantom-apy"
    assert diag.code_description is not None and diag.code_description.href.endswith("unknown-suppression.md")
    # its quick fix: the nearest known code
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))
    fix = next(a for a in actions if isinstance(a, lsp.CodeAction) and a.title == "Change to 'phantom-api'")
    (change,) = fix.edit.document_changes
    assert change.text_document.uri == uri
    (edit,) = change.edits
    assert edit.range == diag.range and edit.new_text == "phantom-api"
