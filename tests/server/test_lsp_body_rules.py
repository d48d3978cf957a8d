"""The body rules through the real server over stdio: a literal that repeats a config value
is a diagnostic at the literal (UTF-16 columns past a non-ASCII character), it goes when the
user types the config read instead, and an unsaved edit of the config module judges the
file again; a pure function's side effect through a helper is a diagnostic at its call."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import codes, messages, pushed_client, wait_for

RULES = '''[[invariants]]
id = "payment-config"
type = "no-hardcoded-config"
config = "src/config/paymentConfig.ts"
keys = ["retryCount"]

[[invariants]]
id = "pure-domain"
type = "pure"
modules = ["app.domain"]
'''

CONFIG = "export const paymentConfig = { retryCount: 3 };\n"
CHARGE = ("import { paymentConfig } from './config/paymentConfig';\n\n"
          "export function charge(amount: number) {\n"
          "  log('💳 charging'); return retry(() => pay(amount), 3, 2);\n"
          "}\n")
PRICES = ("def _log(message):\n    print(message)\n\n\n@pure\ndef total(items):\n    _log(items)\n"
          "    return sum(items)\n")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for rel, text in {"specward.toml": RULES, "src/config/paymentConfig.ts": CONFIG, "src/charge.ts": CHARGE,
                      "app/__init__.py": "", "app/domain/__init__.py": "", "app/domain/prices.py": PRICES}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".git").mkdir()
    return root


client = pushed_client()


def _open(client: LanguageClient, root: Path, rel: str, text: str, language: str) -> str:
    uri = (root / rel).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


def _column(line: str, index: int, encoding: str | None) -> int:
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(line[:index].encode())
    if encoding == lsp.PositionEncodingKind.Utf32:
        return index
    return len(line[:index].encode("utf-16-le")) // 2


async def test_hardcoded_config_while_typing_and_a_pure_function_with_a_side_effect(client: LanguageClient):
    root = client.workspace_root
    charge = _open(client, root, "src/charge.ts", CHARGE, "typescript")
    duplicate = ("[payment-config] 3 duplicates paymentConfig.retryCount: read it from "
                 "src/config/paymentConfig.ts")
    await wait_for(lambda: messages(client, root, "src/charge.ts") == [duplicate], what="the hard-coded 3")
    diag = client.diagnostics[charge][0]
    assert diag.code == "invariant-violation"
    line = CHARGE.splitlines()[3]
    start = _column(line, line.index("3, 2"), client.encoding)
    assert (diag.range.start.line, diag.range.start.character, diag.range.end.character) == (3, start, start + 1)
    # the user reads the config instead: the diagnostic goes
    fixed = CHARGE.replace(", 3, 2)", ", paymentConfig.retryCount, 2)")
    _change(client, charge, 2, fixed)
    await wait_for(lambda: codes(client, root, "src/charge.ts") == [], what="the literal replaced")
    # an unsaved edit of the config module: the 2 left in charge.ts now repeats it
    config = _open(client, root, "src/config/paymentConfig.ts", CONFIG, "typescript")
    _change(client, config, 2, CONFIG.replace("3", "2"))
    await wait_for(lambda: messages(client, root, "src/charge.ts") == [duplicate.replace("3", "2", 1)],
                   what="the file judged under the edited config")
    # a pure function of the domain prints through a helper of its file
    prices = _open(client, root, "app/domain/prices.py", PRICES, "python")
    await wait_for(lambda: messages(client, root, "app/domain/prices.py") == [
        "[pure-domain] total is pure but has a side effect: print through _log -> print"], what="the impure call")
    diag = client.diagnostics[prices][0]
    assert (diag.range.start.line, diag.range.start.character, diag.range.end.character) == (6, 4, 8)  # _log
