"""Fault containment: an exception in an analyzer or a handler stays with its file or its
request, and hostile text never takes the in-process parser down.

The faults are injected into the real server by ``hooks/faults/sitecustomize.py`` (on
the server's PYTHONPATH only): extraction raises for any text holding ``BOOM_MARKER``,
and hover raises on line 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from rsupport import scaled, wait_for

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "fullstack"
HOOK = HERE / "hooks" / "faults"
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "specward.server", "serve"],
    server_env={**os.environ, "SPECWARD_TEST_FAULTS": "1",
                "PYTHONPATH": os.pathsep.join([str(HOOK), os.environ.get("PYTHONPATH", "")])})
BROKEN = "web/src/features/broken.ts"
PROFILE = "web/src/features/profile.ts"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".specward"))
    (root / BROKEN).write_text("// BOOM_MARKER\nexport const broken = () => fetch('/api/nowhere');\n")
    lsp_client.root = root
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    await wait_for(lambda: lsp_client.diagnostics.get((root / PROFILE).as_uri()), "the example's diagnostics")
    yield
    await lsp_client.shutdown_session()


def _codes(client: LanguageClient, rel: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get((client.root / rel).as_uri(), []))


async def test_an_analyzer_fault_stays_with_its_file(client: LanguageClient):
    root: Path = client.root
    # the build: the faulty file gets one finding saying so, the others are analyzed
    await wait_for(lambda: _codes(client, BROKEN), "the broken file's finding")
    assert _codes(client, BROKEN) == ["file-skipped"]
    (msg,) = [d.message for d in client.diagnostics[(root / BROKEN).as_uri()]]
    assert "internal error" in msg and "injected analyzer fault" in msg
    assert _codes(client, PROFILE) == ["method-mismatch", "phantom-api"]
    # the edit path: an open document that gains the marker, then loses it again
    uri = (root / PROFILE).as_uri()
    text = (root / PROFILE).read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="typescript", version=1, text=text)))

    def change(version: int, start: int, end: int, new: str) -> None:
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(
                start=lsp.Position(line=0, character=start), end=lsp.Position(line=0, character=end)), text=new)]))

    change(2, 0, 0, "// BOOM_MARKER\n")
    await wait_for(lambda: _codes(client, PROFILE) == ["file-skipped"], "the edited file's fault finding")
    change(3, 0, len("// BOOM_MARKER"), "")  # leaves an empty first line
    await wait_for(lambda: _codes(client, PROFILE) == ["method-mismatch", "phantom-api"], "the file analyzed again")
    # and the rest of the server is unaffected: a hover on a call answers
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=4, character=30)))
    assert hover is not None and "/user/profile" in str(hover.contents)


async def test_a_handler_fault_is_an_error_reply_and_the_next_request_answers(client: LanguageClient):
    root: Path = client.root
    uri = (root / PROFILE).as_uri()
    try:
        got = await client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=0, character=3)))
    except JsonRpcException as exc:  # the reply is an error, as it must be
        assert "injected handler fault" not in str(exc) or "Traceback" not in str(exc)
    else:
        raise AssertionError(f"a failing handler answered {got!r} instead of an error")
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=3, character=30)))
    assert hover is not None and "/user/profile" in str(hover.contents)
    assert _codes(client, PROFILE) == ["method-mismatch", "phantom-api"]


# ---------------------------------------------------------------- the in-process parser

FUZZ = textwrap.dedent("""
    import random, sys
    from pathlib import Path
    from specward.analyzers.extract import extract, extract_edited
    from specward.analyzers.model import FileFacts
    from specward.server.engine.parsing import extract_safely

    rng = random.Random(int(sys.argv[1]))
    rounds = int(sys.argv[2])
    seeds = [(p.name, p.read_bytes()) for p in sorted(Path(sys.argv[3]).rglob("*"))
             if p.suffix in (".ts", ".tsx", ".js", ".py")]
    hostile = [b"(" * 100_000, b"[" * 50_000 + b"]" * 10, b"{" * 30_000, b"`${" * 20_000,
               b"'" + b"a" * 2_000_000, b"\\0" * 10_000, b"\\xff\\xfe" * 5_000, b"f(" * 40_000,
               b"/*" + b"*" * 100_000, b"x = " + b"+".join([b"a"] * 100_000)]
    done = 0
    for i in range(rounds):
        name, data = seeds[i % len(seeds)]
        data = bytearray(data)
        for _ in range(rng.randrange(1, 30)):  # byte mutations
            at = rng.randrange(len(data) + 1)
            op = rng.random()
            if op < 0.4:
                data[at:at] = bytes([rng.randrange(256)])
            elif op < 0.7 and data:
                del data[at:at + rng.randrange(1, 20)]
            else:
                data[at:at] = rng.choice(hostile)[: rng.randrange(1, 3000)]
        text = bytes(data).decode("utf-8", "surrogateescape")
        for suffix in (".ts", ".tsx", ".js", ".py"):
            facts = extract_safely("f" + suffix, text)
            assert isinstance(facts, FileFacts)
        state = None
        for _ in range(3):  # the incremental edit path, on the hostile text and edits of it
            try:
                _, state, _ = extract_edited("f.ts", text, state)
            except Exception:
                state = None  # the index falls back to extract_safely, as above
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(["(", ")", "{", "'", "`", "\\n", "fetch('/a')"]) + text[at:]
        done += 1
    for blob in hostile:
        for suffix in (".ts", ".py"):
            assert isinstance(extract_safely("h" + suffix, blob.decode("utf-8", "surrogateescape")), FileFacts)
    print("FUZZ-DONE", done)
""")


def test_hostile_text_never_crashes_the_in_process_parser(tmp_path: Path):
    """The small-workspace build and the edit path parse in the server's own process (a
    round trip to a parser process would cost an edit more than the whole incremental
    extraction). So instead of isolating them, this shows they hold: mutated real files
    and pathological text, through the extractors and the incremental edit path, in a
    child process so that a native crash shows as its exit status."""
    rounds = scaled(3000, 100)
    proc = subprocess.run([sys.executable, "-c", FUZZ, "20261201", str(rounds),
                           str(EXAMPLE)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    assert f"FUZZ-DONE {rounds}" in proc.stdout
