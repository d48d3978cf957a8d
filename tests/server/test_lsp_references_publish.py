"""Over stdio on the example workspace: references, hover and definition from an OpenAPI
path key (it stands for every operation of its path), and the empty publish a clean
document gets (on open, and after an edit removes its last finding)."""

from __future__ import annotations

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import codes, wait_for
from test_lsp_ide import at

CONTRACT = "contracts/openapi.yaml"


async def references(client: LanguageClient, rel: str, snippet: str, declaration: bool = False):
    uri, pos = at(client, rel, snippet)
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos,
        context=lsp.ReferenceContext(include_declaration=declaration)))
    return refs


def where(client: LanguageClient, locs) -> list[tuple[str, str]]:
    """(file, the text the range covers) of each location."""
    out = []
    for loc in locs or ():
        rel = loc.uri.rsplit("/ws/", 1)[1]
        line = (client.workspace_root / rel).read_text().splitlines()[loc.range.start.line]
        assert loc.range.start.line == loc.range.end.line
        out.append((rel, line[loc.range.start.character:loc.range.end.character]))
    return out


async def test_references_on_a_path_key_list_the_callers_of_all_its_operations(client):
    # /users/{id} declares GET (called from Python) and DELETE (called from TypeScript)
    refs = await references(client, CONTRACT, "  /users/{i$0d}:")
    assert where(client, refs) == [("scripts/sync_users.py", 'f"/users/{user_id}"'),
                                   ("web/src/features/profile.ts", "`/users/${id}`")]
    refs = await references(client, CONTRACT, "  /use$0rs:\n    get:")
    assert where(client, refs) == [("scripts/sync_users.py", 'f"{BASE}/users"')] * 2
    assert sorted(r.range.start.line for r in refs) == [9, 13]  # list_users and create_user
    # with the declarations: the operation keys of the path come first
    refs = await references(client, CONTRACT, "  /users/{i$0d}:", declaration=True)
    assert where(client, refs)[:2] == [(CONTRACT, "get"), (CONTRACT, "delete")]
    assert len(refs) == 4
    # on an operation key, only that operation's callers (unchanged)
    refs = await references(client, CONTRACT, "        description: No such user\n    del$0ete:")
    assert where(client, refs) == [("web/src/features/profile.ts", "`/users/${id}`")]


async def test_references_on_a_specdsl_path_value(client):
    refs = await references(client, "contracts/articles.dsl.json", '"path": "/api/ta$0gs"')
    assert where(client, refs) == [("web/src/components/TagList.tsx", "'/api/tags'")]


async def test_hover_and_definition_on_a_path_key(client):
    uri, pos = at(client, CONTRACT, "  /users/{i$0d}:")
    h = await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                                                position=pos))
    assert h is not None
    lines = h.contents.value.splitlines()
    assert lines[0] == "**/api/users/{id}**"
    assert "- `GET` One user — 1 call" in lines and "  - `scripts/sync_users.py:19`" in lines
    assert "- `DELETE` Delete a user — 1 call" in lines and "  - `web/src/features/profile.ts:15`" in lines
    assert where(client, [lsp.Location(uri=uri, range=h.range)]) == [(CONTRACT, "/users/{id}")]
    locs = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))
    # the backend handlers of both operations
    assert where(client, locs) == [("backend/users.py", '"/users/{user_id}"')] * 2
    assert sorted(loc.range.start.line for loc in locs) == [12, 17]  # get_user and delete_user


def _record_publishes(client: LanguageClient) -> list[lsp.PublishDiagnosticsParams]:
    """Every publishDiagnostics from now on, with its version (``client.diagnostics`` keeps
    only the last list of each document)."""
    seen: list[lsp.PublishDiagnosticsParams] = []
    features = client.protocol.fm.features
    original = features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: lsp.PublishDiagnosticsParams):
        seen.append(params)
        return original(params)

    features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    return seen


def _published(client: LanguageClient) -> bool:
    return any((getattr(st, "published", None) or (isinstance(st, dict) and st.get("published")))
               for st in client.statuses)


async def test_a_clean_document_gets_an_empty_publish_when_opened(client):
    seen = _record_publishes(client)
    root = client.workspace_root
    rel = "web/src/api/http.ts"  # no finding
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=7, text=(root / rel).read_text())))
    first = await wait_for(lambda: next((p for p in seen if p.uri == uri), None), what="the first publish")
    assert list(first.diagnostics) == [] and first.version == 7
    # a document specward does not analyze gets its (empty) first publish too
    notes = (root / "README.md").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=notes, language_id="markdown", version=3, text=(root / "README.md").read_text())))
    first = await wait_for(lambda: next((p for p in seen if p.uri == notes), None), what="the README's publish")
    assert list(first.diagnostics) == [] and first.version == 3


async def test_an_edit_that_removes_the_last_finding_publishes_an_empty_list(client):
    seen = _record_publishes(client)
    root = client.workspace_root
    rel = "scripts/sync_users.py"
    uri = (root / rel).as_uri()
    text = (root / rel).read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    await wait_for(lambda: any(p.uri == uri and p.version == 1 for p in seen), what="the publish of version 1")
    assert codes(client, root, rel) == ["phantom-api"]
    fixed = text.replace('f"{BASE}/users/{user_id}/orders"', 'f"{BASE}/users/{user_id}"')
    assert fixed != text
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)]))
    after = await wait_for(lambda: next((p for p in seen if p.uri == uri and p.version == 2), None),
                           what="the publish of version 2")
    assert list(after.diagnostics) == []


async def test_the_start_up_publication_leaves_clean_unopened_files_alone(client):
    root = client.workspace_root
    await wait_for(lambda: _published(client), what="the whole workspace published")
    published = {uri.rsplit("/ws/", 1)[1] for uri in client.diagnostics}
    assert published == {"contracts/articles.dsl.json", CONTRACT, "scripts/sync_users.py",
                         "web/src/features/articles.ts", "web/src/features/profile.ts", "web/src/features/search.ts"}
    assert (root / "web/src/api/http.ts").as_uri() not in client.diagnostics


async def test_a_client_that_pulls_is_never_pushed_an_empty_list(pull_client):
    client = pull_client
    seen = _record_publishes(client)
    root = client.workspace_root
    rel = "web/src/api/http.ts"
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=(root / rel).read_text())))
    # a pull is answered after the analysis of the opened document: any push came before
    report = await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert report.kind == "full" and list(report.items) == []
    await wait_for(lambda: _published(client), what="the whole workspace published")
    assert seen == [] and client.diagnostics == {}
