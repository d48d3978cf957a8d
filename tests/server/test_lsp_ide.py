"""The contract inside the editor, end to end over stdio on the example workspace.

Cursor positions are written as ``$0`` markers inside a snippet of the real file (or of an
inline fixture), never as hand-counted line/column pairs."""

from __future__ import annotations

from lsprotocol import types as lsp

import pytest_lsp
from pytest_lsp import LanguageClient

from conftest import SERVER, codes, wait_for


def marker(text: str, snippet: str) -> lsp.Position:
    """The position of ``$0`` in ``snippet``, which occurs once in ``text`` without it."""
    before, after = snippet.split("$0")
    at = text.index(before + after) + len(before)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return lsp.Position(line=line, character=len(text[at - col:at].encode("utf-16-le")) // 2)


def at(client: LanguageClient, rel: str, snippet: str) -> tuple[str, lsp.Position]:
    path = client.workspace_root / rel
    return path.as_uri(), marker(path.read_text(), snippet)


async def hover(client, rel, snippet) -> str | None:
    uri, pos = at(client, rel, snippet)
    h = await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                                                position=pos))
    return h.contents.value if h else None


async def test_hover_on_a_matched_call_shows_the_contract_card(client):
    text = await hover(client, "web/src/features/articles.ts", "get(`/articles/${sl$0ug}`)")
    assert text.startswith("**GET /api/articles/{slug}** — `EP-003`")
    assert "One article" in text and "- auth: none" in text and "`slug: string`" in text
    assert "error 404 `NOT_FOUND`" in text and "Declared in `contracts/articles.dsl.json:" in text


async def test_hover_on_phantom_and_unresolved_calls_explains(client):
    text = await hover(client, "web/src/features/profile.ts", "api.get('/user/profile/ava$0tar')")
    assert "not in the contract" in text and "`GET /api/user/profile`" in text
    root = client.workspace_root
    fixture = "const u = buildUrl();\nfetch(u$0);\n"
    uri = (root / "web/src/dyn.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=fixture.replace("$0", ""))))
    h = await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                                                position=marker(fixture.replace("$0", ""), "fetch(u$0)")))
    assert h is not None and "unresolved" in h.contents.value and "never guesses" in h.contents.value


async def test_hover_on_a_contract_endpoint_lists_callers(client):
    text = await hover(client, "contracts/articles.dsl.json", '"path": "/api/articles/:s$0lug/comments"')
    # GET and POST of the same path are separate endpoints: each has its own caller
    assert text.startswith("**GET /api/articles/{slug}/comments**") and "1 call:" in text
    assert "web/src/features/articles.ts:7" in text
    text = await hover(client, "contracts/articles.dsl.json", '"path": "/api/ta$0gs"')
    assert text.startswith("**GET /api/tags**") and "1 call:" in text and "web/src/components/TagList.tsx:6" in text


async def test_definition_goes_to_the_contract_declaration(client):
    uri, pos = at(client, "web/src/features/profile.ts", "api.get('/user/pro$0file')")
    locs = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))
    assert len(locs) == 1 and locs[0].uri.endswith("contracts/openapi.yaml")
    line = (client.workspace_root / "contracts/openapi.yaml").read_text().splitlines()[locs[0].range.start.line]
    assert line[locs[0].range.start.character:locs[0].range.end.character] == "get"
    assert (client.workspace_root / "contracts/openapi.yaml").read_text().splitlines()[locs[0].range.start.line - 1] == "  /user/profile:"


async def test_references_of_an_endpoint_span_languages(client):
    uri, pos = at(client, "contracts/openapi.yaml", "  /users:\n    g$0et:")
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos,
        context=lsp.ReferenceContext(include_declaration=False)))
    assert [r.uri.rsplit("/ws/", 1)[1] for r in refs] == ["scripts/sync_users.py"]


async def test_completion_offers_declared_paths_method_first(client):
    root = client.workspace_root
    fixture = "import { api } from '../api/http';\nexport const x = () => api.post('/$0');\n"
    text = fixture.replace("$0", "")
    uri = (root / "web/src/features/new.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=text)))
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=marker(text, "api.post('/$0')")))
    items = sorted(result.items, key=lambda i: i.sort_text)
    labels = [i.label for i in items]
    assert labels[0] == "/articles" and items[0].label_details.description == "POST"
    first_other = next(i for i in items if not i.sort_text.startswith("0"))
    assert all(i.label_details.description == "POST" for i in items if i.sort_text.startswith("0"))
    assert first_other.label_details.description != "POST"
    comments = next(i for i in items if i.label == "/articles/{slug}/comments" and i.label_details.description == "POST")
    assert comments.text_edit.new_text == "/articles/${1:slug}/comments"  # the base /api comes from the client
    assert comments.insert_text_format == lsp.InsertTextFormat.Snippet


async def test_code_lens_and_symbols_of_a_contract(client):
    uri = (client.workspace_root / "contracts/articles.dsl.json").as_uri()
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    titles = [lens.command.title for lens in lenses]
    assert titles.count("unused") == 2 and "1 call" in titles and len(titles) == 7
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    names = [s.name for s in symbols]
    assert names[:2] == ["Article", "Comment"] and "GET /api/articles/{slug}" in names
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="get usersid"))
    # the contract's entry, and the backend's route that implements it (docs/routes.md, Navigation)
    assert [(s.name, s.kind) for s in found] == [("GET /api/users/{id}", lsp.SymbolKind.Method),
                                                 ("GET /api/users/{user_id}", lsp.SymbolKind.Function)]


async def test_quick_fixes_replace_the_path_and_change_the_method(client):
    root = client.workspace_root
    rel = "web/src/features/profile.ts"
    path = root / rel
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=path.read_text())))
    await wait_for(lambda: codes(client, root, rel) == ["method-mismatch", "phantom-api"], what="diagnostics")
    diags = client.diagnostics[uri]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags))))
    titles = [a.title for a in actions]
    assert "Replace with GET /api/user/profile" in titles
    assert "Change the method to GET" in titles and "Change the method to DELETE" in titles
    add = next(a for a in actions if a.title == "Add GET /api/user/profile/avatar to contracts/openapi.yaml")
    contract_edit = add.edit.document_changes[0]
    assert contract_edit.text_document.uri.endswith("contracts/openapi.yaml")
    assert contract_edit.edits[0].new_text.startswith("\n  /user/profile/avatar:\n    get:\n")
    fix = next(a for a in actions if a.title == "Replace with GET /api/user/profile")
    assert fix.edit.document_changes[0].edits[0].new_text == "'/user/profile'"
    change = next(a for a in actions if a.title == "Change the method to GET")
    assert change.edit.document_changes[0].edits[0].new_text == "get"
    # apply both edits as the editor would, and the diagnostics go away
    text = path.read_text().replace("api.get('/user/profile/avatar')", "api.get('/user/profile')").replace(
        "api.patch(`/users/${id}`", "api.get(`/users/${id}`")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
    await wait_for(lambda: codes(client, root, rel) == [], what="fixed")


async def test_pull_diagnostics_with_result_ids_and_no_push(pull_client):
    client = pull_client
    assert client.encoding == lsp.PositionEncodingKind.Utf8
    root = client.workspace_root
    uri = (root / "web/src/features/profile.ts").as_uri()

    async def pull(previous=None):
        return await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), previous_result_id=previous))

    report = await wait_for_report(pull)
    assert sorted(d.code for d in report.items) == ["method-mismatch", "phantom-api"]
    again = await pull(report.result_id)
    assert again.kind == "unchanged" and again.result_id == report.result_id
    ws = await client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=[
        lsp.PreviousResultId(uri=uri, value=report.result_id)]))
    by_uri = {item.uri: item for item in ws.items}
    assert by_uri[uri].kind == "unchanged"
    assert by_uri[(root / "scripts/sync_users.py").as_uri()].kind == "full"
    # a change makes the server ask for a pull, and the new report differs
    refreshes = client.diagnostic_refresh_count
    path = root / "web/src/features/profile.ts"
    path.write_text(path.read_text().replace("'/user/profile/avatar'", "'/user/profile'"))
    await wait_for(lambda: client.diagnostic_refresh_count > refreshes, what="workspace/diagnostic/refresh")
    fresh = await pull(report.result_id)
    assert fresh.kind == "full" and [d.code for d in fresh.items] == ["method-mismatch"]
    assert client.diagnostics.get(uri) is None  # nothing was pushed to a pulling client


async def test_a_client_that_pulls_without_refresh_gets_pushed_diagnostics(pull_no_refresh_client):
    """Without refresh support a pulling client would keep an open document's diagnostics
    stale after a change elsewhere (a contract edit): the server pushes instead, and
    answers its pulls empty so that nothing shows twice."""
    client = pull_no_refresh_client
    root = client.workspace_root
    rel = "web/src/features/profile.ts"
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=(root / rel).read_text())))
    await wait_for(lambda: codes(client, root, rel) == ["method-mismatch", "phantom-api"], what="pushed diagnostics")
    pulled = await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert pulled.kind == "full" and not pulled.items
    ws = await client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert not ws.items
    # a contract edit on disk reaches the open document (the watcher re-reads the contract)
    contract = root / "contracts/openapi.yaml"
    contract.write_text(contract.read_text().replace(
        "  /user/profile:\n", "  /user/profile/avatar:\n    get:\n      responses:\n"
        "        \"200\":\n          description: The avatar\n  /user/profile:\n"))
    await wait_for(lambda: codes(client, root, rel) == ["method-mismatch"], what="the open document re-checked")


async def test_utf8_positions_on_non_ascii_text(pull_client):
    client = pull_client
    root = client.workspace_root
    text = "// é — 😀 ünïcode\nconst lbl = 'café'; fetch('/api/tagz');\n"
    uri = (root / "web/src/uni.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=text)))

    async def pull(previous=None):
        return await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri)))

    report = await wait_for_report(pull)
    (d,) = report.items
    line = text.splitlines()[1].encode("utf-8")
    assert line[d.range.start.character:d.range.end.character] == b"'/api/tagz'"


async def wait_for_report(pull):
    import asyncio
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        report = await pull()
        if getattr(report, "items", None):
            return report
        await asyncio.sleep(0.1)
    raise AssertionError("no diagnostics pulled")


async def test_definition_from_a_contract_endpoint_to_backend_handlers(client):
    root = client.workspace_root
    yaml = (root / "contracts/openapi.yaml").read_text()
    get_user = yaml[:yaml.index("get:", yaml.index("  /users/{id}:")) + 1] + "$0"  # the `get` key of /users/{id}
    for rel, snippet, expected_file, expected_text in (
        ("contracts/openapi.yaml", get_user, "backend/users.py", '"/users/{user_id}"'),
        ("contracts/articles.dsl.json", '"path": "/api/articles/:s$0lug"', "backend/articles.js", "'/api/articles/:slug'"),
    ):
        uri, pos = at(client, rel, snippet)
        locs = await client.text_document_definition_async(lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))
        assert locs and all(loc.uri.endswith(expected_file) for loc in locs), (rel, locs)
        line = (root / expected_file).read_text().splitlines()[locs[0].range.start.line]
        assert line[locs[0].range.start.character:locs[0].range.end.character] == expected_text


async def test_hover_on_an_imported_model_type_shows_its_fields(client):
    root = client.workspace_root
    text = "import type { Article } from './generated/models';\nexport const a: Article | null = null;\n"
    uri = (root / "web/src/typed.ts").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=text)))
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=marker(text, "{ Art$0icle }")))
    assert h is not None and h.contents.value.startswith("**Article**")
    assert "- `slug`: String" in h.contents.value and "contracts/articles.dsl.json" in h.contents.value
    text2 = (root / "contracts/articles.dsl.json").read_text()
    h2 = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=(root / "contracts/articles.dsl.json").as_uri()),
        position=marker(text2, '"name": "Comm$0ent"')))
    assert h2 is not None and "- `articleSlug`: String" in h2.contents.value


@pytest_lsp.fixture(config=SERVER)
async def configured_client(lsp_client: LanguageClient, request):
    """Editor settings through initializationOptions: one contract only, a severity."""
    from pytest_lsp import client_capabilities

    root = request.getfixturevalue("workspace")
    lsp_client.workspace_root = root

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params):
        return None

    @lsp_client.feature("specward/status")
    def status(params):
        return None

    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        initialization_options={"contracts": ["contracts/openapi.yaml"], "severity": {"phantom-api": "warning"},
                                "serverPath": "/bin/should-be-ignored"},
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    yield
    await lsp_client.shutdown_session()


async def test_initialization_options_choose_contracts_and_severities(configured_client):
    client = configured_client
    root = client.workspace_root
    tags = (root / "web/src/components/TagList.tsx").as_uri()
    # /api/tags is declared only in the SpecDSL contract, which the settings leave out
    await wait_for(lambda: client.diagnostics.get(tags), what="TagList diagnostics")
    (d,) = client.diagnostics[tags]
    assert d.code == "phantom-api" and d.severity == lsp.DiagnosticSeverity.Warning
