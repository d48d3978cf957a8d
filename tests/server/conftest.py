"""Shared fixtures for the end-to-end tests: the real server over stdio (pytest-lsp) on a
fresh copy of the example workspace."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "specward.server", "serve"])


def copy_example(dest: Path, source: Path = EXAMPLE) -> Path:
    """A copy of the example workspace, without the ``.specward/`` cache a run of
    `specward check examples/fullstack` leaves in it: every test starts cold, whatever the
    checkout has been through."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".specward"))
    return dest


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """``files`` (workspace-relative path -> text) written under ``root``, a repository root
    (an empty ``.git``: the walk's project root); returns ``root``."""
    (root / ".git").mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "ws")


def one_endpoint_workspace(root: Path, path: str) -> Path:
    """A workspace whose only contract (SpecDSL) declares ``GET path``; returns its empty
    ``src`` folder."""
    (root / "contracts").mkdir(parents=True)
    (root / "contracts/api.dsl.json").write_text(
        '{"version": "1.0", "feature": "f", "endpoints": [{"id": "e", "method": "GET", "path": "%s",'
        ' "description": "d", "successStatus": 200}]}\n' % path)
    (root / "src").mkdir()
    return root / "src"


async def wait_for(cond, timeout: float = 60.0, what: str = "condition"):
    """Poll a condition (never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def codes(client: LanguageClient, root: Path, rel: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get((root / rel).as_uri(), []))


def messages(client: LanguageClient, root: Path, rel: str) -> list[str]:
    return sorted(d.message for d in client.diagnostics.get((root / rel).as_uri(), []))


async def _start(lsp_client: LanguageClient, root: Path, caps: lsp.ClientCapabilities):
    lsp_client.workspace_root = root
    lsp_client.registrations = []
    lsp_client.statuses = []

    @lsp_client.feature("specward/status")
    def status(params):
        lsp_client.statuses.append(params)

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams):
        lsp_client.registrations.extend(params.registrations)

    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    lsp_client.encoding = result.capabilities.position_encoding
    # every test starts once the example is indexed (the server says so: specward/status)
    await wait_for(lambda: any((getattr(st, "state", None) or st.get("state")) == "ready" for st in lsp_client.statuses),
                   what="the end of indexing")
    return result


def pushed_client(config: ClientServerConfig = SERVER, workspace: str = "workspace"):
    """A client fixture that takes pushed diagnostics (VS Code's capabilities as pytest-lsp
    records them), on the server ``config`` starts, in the workspace the fixture named
    ``workspace`` gives."""

    @pytest_lsp.fixture(config=config)
    async def fixture(lsp_client: LanguageClient, request):
        await _start(lsp_client, request.getfixturevalue(workspace), client_capabilities("visual-studio-code"))
        yield
        await lsp_client.shutdown_session()

    return fixture


client = pushed_client()


def _pulling(refresh: bool) -> lsp.ClientCapabilities:
    """VS Code's capabilities, pulling diagnostics, with or without refresh support."""
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = lsp.DiagnosticClientCapabilities(related_document_support=True)
    caps.workspace.diagnostics = lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if refresh else None
    return caps


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient, request):
    """A client that pulls diagnostics (and supports refresh), with UTF-8 positions."""
    caps = _pulling(refresh=True)
    caps.general = lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf8])
    await _start(lsp_client, request.getfixturevalue("workspace"), caps)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def pull_no_refresh_client(lsp_client: LanguageClient, request):
    """A client that can pull diagnostics but cannot be asked to pull again (Neovim 0.11)."""
    await _start(lsp_client, request.getfixturevalue("workspace"), _pulling(refresh=False))
    yield
    await lsp_client.shutdown_session()


def code_actions_as_sent(client: LanguageClient) -> None:
    """lsprotocol reads any code action that has a ``command`` as a bare Command (its hook
    tests for the key, not for a string): read them as the server sent them."""
    conv = client.protocol._converter

    def hook(obj, _):
        if isinstance(obj.get("command"), str):
            return conv.structure(obj, lsp.Command)
        return conv.structure(obj, lsp.CodeAction)

    conv.register_structure_hook(lsp.Command | lsp.CodeAction, hook)
    conv.register_structure_hook(Union[lsp.Command, lsp.CodeAction], hook)


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """Run git in ``cwd`` as a test author, with no user or system configuration."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=True, timeout=60)
