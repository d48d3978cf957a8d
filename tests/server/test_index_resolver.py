"""The index and the module resolver's configuration: read at build time (also by parser
processes), and a change to it re-links the workspace."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

CONTRACT = ("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n"
            "  /api/items: {get: {responses: {'200': {description: ok}}}}\n")


def _workspace(root: Path, alias: str) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "openapi.yaml").write_text(CONTRACT)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"%s/*": ["src/lib/*"]}}}\n' % alias)
    (root / "src/lib").mkdir(parents=True)
    (root / "src/lib/http.ts").write_text("export const get = (path: string) => fetch(`/api${path}`);\n")
    (root / "src/items.ts").write_text("import { get } from '@lib/http';\nexport const items = () => get('/items');\n"
                                       "export const nope = () => get('/itemz');\n")
    return root


def statuses(idx: WorkspaceIndex) -> list[tuple[str, str | None, str]]:
    return sorted((st.call.file, st.call.template, st.status) for st in idx.all_statuses())


def test_a_tsconfig_alias_is_followed_and_a_change_to_it_relinks(tmp_path: Path):
    ws = _workspace(tmp_path / "ws", "@lib")
    idx = WorkspaceIndex(ws, use_cache=False, workers=1)
    idx.build()
    assert statuses(idx) == [("src/items.ts", "/api/items", "matched"), ("src/items.ts", "/api/itemz", "phantom")]
    # the alias no longer names the folder: the wrapper is not found, so neither are its calls
    text = (ws / "tsconfig.json").read_text().replace("@lib/*", "#lib/*")
    (ws / "tsconfig.json").write_text(text)
    affected = idx.update("tsconfig.json", text)
    assert "src/items.ts" in affected
    assert statuses(idx) == []
    assert idx.tracked("tsconfig.json") and idx.tracked("src/package.json")


def test_parser_processes_link_with_the_same_configuration(tmp_path: Path):
    ws = _workspace(tmp_path / "ws", "@lib")
    for i in range(450):  # enough files for the parser processes
        (ws / f"src/page{i}.ts").write_text(f"import {{ get }} from '@lib/http';\nexport const p{i} = () => get('/items');\n")
    idx = WorkspaceIndex(ws, workers=2)  # a cold cache: the parser processes link
    idx.build()
    assert idx.stats.get("linked_in_parsers", 0) > 0
    found = statuses(idx)
    assert ("src/page449.ts", "/api/items", "matched") in found and len(found) == 452
