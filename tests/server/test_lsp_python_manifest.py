"""The quick fix of a Python ``undeclared-dependency`` through the real server over stdio:
a package installed in the project's ``.venv`` (its ``*.dist-info``) is added to the
nearest manifest with the installed version's range; a package whose version cannot be
read, or that is not installed at all, gets no fix."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from conftest import codes, pushed_client, wait_for

# the server must find the workspace's own environment, never the one running the tests
_ENV = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "specward.server", "serve"], server_env=_ENV)

PYPROJECT = """[project]
name = "harbor"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
    "click>=8.1",
    "rich>=13.7",
]
"""

FETCH = """import requests
import yaml


def load_manifest(url: str) -> dict:
    response = requests.get(url, timeout=10)
    response.raise_for_status()
    return yaml.safe_load(response.text)
"""

SYNC = """import requests


def ping(host: str) -> int:
    return requests.head(f"https://{host}/", timeout=5).status_code
"""


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _venv(root: Path) -> Path:
    """A project virtualenv as ``python -m venv`` and pip leave it, with requests 2.31.0
    installed and a stray ``yaml`` package copied in without any metadata."""
    _write(root, ".venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.4\n")
    site = root / ".venv/lib/python3.12/site-packages"
    _write(site, "requests/__init__.py", "__version__ = '2.31.0'\n")
    _write(site, "requests/api.py", "def get(url, **kw): ...\n")
    info = "requests-2.31.0.dist-info"
    _write(site, f"{info}/METADATA", "Metadata-Version: 2.1\nName: requests\nVersion: 2.31.0\n"
                                     "Summary: Python HTTP for Humans.\nRequires-Python: >=3.7\n\n"
                                     "Version: 9.9.9 is in the description, not a header\n")
    _write(site, f"{info}/top_level.txt", "requests\n")
    _write(site, f"{info}/RECORD", f"requests/__init__.py,,\nrequests/api.py,,\n{info}/METADATA,,\n")
    _write(site, "yaml/__init__.py", "def safe_load(text): ...\n")
    return site


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "harbor"
    _write(root, "pyproject.toml", PYPROJECT)
    _write(root, "harbor/__init__.py", "")
    _write(root, "harbor/fetch.py", FETCH)
    _write(root, "tools/requirements.txt", "click==8.1.7\nrich==13.7.1\n")
    _write(root, "tools/sync.py", SYNC)
    _venv(root)
    return root


client = pushed_client(SERVER, "workspace")


async def _actions(client: LanguageClient, uri: str, diag: lsp.Diagnostic) -> list:
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=lsp.CodeActionContext(diagnostics=[diag])))


def _undeclared(client: LanguageClient, uri: str, package: str) -> lsp.Diagnostic:
    return next(d for d in client.diagnostics[uri] if d.code == "undeclared-dependency" and f"'{package}'" in d.message)


def _applied(text: str, edit: lsp.TextEdit) -> str:
    """The edit applied to ``text`` (positions in UTF-16 units; these files are ASCII)."""
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[:edit.range.start.line]) + edit.range.start.character
    end = sum(len(x) for x in lines[:edit.range.end.line]) + edit.range.end.character
    return text[:start] + edit.new_text + text[end:]


async def test_an_installed_package_is_added_to_pyproject_with_its_installed_version(client: LanguageClient,
                                                                                     workspace: Path):
    rel = "harbor/fetch.py"
    uri = (workspace / rel).as_uri()
    await wait_for(lambda: codes(client, workspace, rel) == ["undeclared-dependency", "undeclared-dependency"],
                   what="both imports undeclared")
    actions = await _actions(client, uri, _undeclared(client, uri, "requests"))
    assert [a.title for a in actions] == ["Add requests>=2.31.0 to pyproject.toml"]
    change = actions[0].edit.document_changes[0]
    assert change.text_document.uri == (workspace / "pyproject.toml").as_uri()
    assert change.text_document.version is None  # not open: the disk's text
    edit = change.edits[0]
    assert edit.new_text == '    "requests>=2.31.0",\n'
    assert (edit.range.start.line, edit.range.start.character) == (6, 0)  # between click and rich
    after = _applied(PYPROJECT, edit)
    assert tomllib.loads(after)["project"]["dependencies"] == ["click>=8.1", "requests>=2.31.0", "rich>=13.7"]
    # the stray `yaml` folder is importable, but nothing says which version it is: no fix
    assert not await _actions(client, uri, _undeclared(client, uri, "yaml"))


async def test_the_manifest_open_in_the_editor_is_edited_as_the_editor_has_it(client: LanguageClient,
                                                                             workspace: Path):
    rel = "harbor/fetch.py"
    uri = (workspace / rel).as_uri()
    await wait_for(lambda: "undeclared-dependency" in codes(client, workspace, rel), what="undeclared-dependency")
    diag = _undeclared(client, uri, "requests")
    manifest = (workspace / "pyproject.toml").as_uri()
    unsaved = PYPROJECT.replace('    "click>=8.1",\n', '    "attrs>=23.2",\n    "click>=8.1",\n')
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=manifest, language_id="toml", version=4, text=unsaved)))

    async def edit_of_open_manifest():
        actions = await _actions(client, uri, diag)
        change = actions[0].edit.document_changes[0] if actions else None
        return change if change is not None and change.text_document.version == 4 else None

    change = None
    for _ in range(100):  # the open is a notification: wait until the server has it
        change = await edit_of_open_manifest()
        if change is not None:
            break
    assert change is not None
    after = _applied(unsaved, change.edits[0])
    assert tomllib.loads(after)["project"]["dependencies"] == [
        "attrs>=23.2", "click>=8.1", "requests>=2.31.0", "rich>=13.7"]
    assert change.edits[0].range.start.line == 7


async def test_a_subprojects_requirements_file_gets_the_line_in_its_pin_style(client: LanguageClient,
                                                                             workspace: Path):
    rel = "tools/sync.py"
    uri = (workspace / rel).as_uri()
    await wait_for(lambda: codes(client, workspace, rel) == ["undeclared-dependency"], what="sync.py undeclared")
    actions = await _actions(client, uri, _undeclared(client, uri, "requests"))
    assert [a.title for a in actions] == ["Add requests==2.31.0 to tools/requirements.txt"]
    change = actions[0].edit.document_changes[0]
    assert change.text_document.uri == (workspace / "tools/requirements.txt").as_uri()
    assert _applied("click==8.1.7\nrich==13.7.1\n", change.edits[0]) == "click==8.1.7\nrequests==2.31.0\nrich==13.7.1\n"


@pytest.fixture
def bare_workspace(tmp_path: Path) -> Path:
    """The same project before anyone created its virtualenv."""
    root = tmp_path / "fresh"
    _write(root, "pyproject.toml", PYPROJECT)
    _write(root, "harbor/__init__.py", "")
    _write(root, "harbor/fetch.py", FETCH)
    return root


bare_client = pushed_client(SERVER, "bare_workspace")


async def test_a_package_that_is_not_installed_gets_no_fix(bare_client: LanguageClient, bare_workspace: Path):
    rel = "harbor/fetch.py"
    uri = (bare_workspace / rel).as_uri()
    await wait_for(lambda: "undeclared-dependency" in codes(bare_client, bare_workspace, rel),
                   what="undeclared-dependency")
    diag = _undeclared(bare_client, uri, "requests")
    assert "is not installed" in diag.message
    assert not await _actions(bare_client, uri, diag)
    assert (bare_workspace / "pyproject.toml").read_text() == PYPROJECT


def test_the_installed_version_is_read_from_the_dist_info_metadata(tmp_path: Path):
    from specward.server.engine.packages import _installed_distribution

    site = tmp_path / "site-packages"
    _write(site, "PyYAML-6.0.1.dist-info/METADATA", "Metadata-Version: 2.1\r\nName: PyYAML\r\nVersion: 6.0.1\r\n\r\n")
    _write(site, "python_dateutil-2.9.0.post0.dist-info/METADATA", "Name: python-dateutil\nVersion: 2.9.0.post0\n")
    _write(site, "attrs-23.2.0.dist-info/RECORD", "attrs/__init__.py,,\n")  # no METADATA
    _write(site, "six-1.16.0.egg-info/PKG-INFO", "Name: six\nVersion: 1.16.0\n")
    for version in ("1.26.18", "2.2.1"):  # two copies left by a broken upgrade
        _write(site, f"urllib3-{version}.dist-info/METADATA", f"Name: urllib3\nVersion: {version}\n")
    assert _installed_distribution(site, "pyyaml") == ("PyYAML", "6.0.1")  # PEP 503 match, the real spelling
    assert _installed_distribution(site, "Python_Dateutil") == ("python-dateutil", "2.9.0.post0")
    assert _installed_distribution(site, "attrs") is None
    assert _installed_distribution(site, "six") is None  # only dist-info metadata is read
    assert _installed_distribution(site, "urllib3") is None  # which one is used? no guess
    assert _installed_distribution(site, "requests") is None
    assert _installed_distribution(tmp_path / "missing", "pyyaml") is None
