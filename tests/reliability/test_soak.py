"""Edit storm and soak: the real server over stdio (pytest-lsp) on a copy of the example
workspace in a real git repository.

- **Storm**: thousands of ``didChange`` notifications sent as fast as the pipe takes them.
- **Soak**: scripted typing with pauses, and ``git checkout`` between two branches that
  change a file on disk, for a stretch of time.

The edited document holds a row of calls, each ``fetch('/api/tags')`` (declared) or
``fetch('/api/tagz')`` (a phantom), and a comment line that edits fill and empty. So every
version's right diagnostics are known: one ``phantom-api`` per ``'/api/tagz'``, each on
that literal. Every publish is checked against the text of the version it names — the
server's text must equal the editor's, and a publish for an old version after a newer
one is a failure. The server's resident memory is sampled before and after (the bound
asserted and the figures measured are in docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from rsupport import scaled, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "specward.server", "serve"])
SOAK = "web/src/soak.ts"
SLOTS = 24
GOOD, BAD = "'/api/tags'", "'/api/tagz'"
RSS_GROWTH_MB = 60  # the bound asserted on the server's resident memory over a soak
STORM_RSS_MB = 250  # the resident high-water mark two storms may add (tracemalloc on)
STORM_GROWTH_KB = 1.5  # and, per didChange, on what a second storm may add to the first's


def _soak_text() -> str:
    lines = ["// scratch: ", "export async function soak(): Promise<void> {"]
    lines += [f"  await fetch({GOOD});" for _ in range(SLOTS)]
    lines += ["}", ""]
    return "\n".join(lines)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example workspace as a git repository with two branches: ``phantom`` adds a
    phantom call to ``web/src/features/profile.ts`` (a file the editor does not open)."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".specward"))
    (root / SOAK).write_text(_soak_text())
    (root / ".gitignore").write_text(".specward/\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
    _git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "phantom")
    profile = root / "web/src/features/profile.ts"
    profile.write_text(profile.read_text() + "\nexport const extra = () => fetch('/api/nowhere/at/all');\n")
    _git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-am", "phantom")
    _git(root, "checkout", "-q", "main")
    return root


MEMFILE = Path(tempfile.gettempdir()) / f"specward-soak-mem-{os.getpid()}.txt"
TRACED = ClientServerConfig(
    server_command=SERVER.server_command,
    server_env={**os.environ, "SPECWARD_TEST_MEMFILE": str(MEMFILE),
                "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent / "hooks" / "memory"),
                                               os.environ.get("PYTHONPATH", "")])})


@pytest_lsp.fixture(config=TRACED)
async def traced_client(lsp_client: LanguageClient, repo: Path):
    """The same, with the server counting its live allocations (hooks/memory)."""
    MEMFILE.unlink(missing_ok=True)
    async for _ in _session(lsp_client, repo):
        yield


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, repo: Path):
    async for _ in _session(lsp_client, repo):
        yield


async def _session(lsp_client: LanguageClient, repo: Path):
    lsp_client.root = repo
    lsp_client.ready = asyncio.Event()
    lsp_client.publishes = []  # (uri, version, diagnostics) in arrival order

    @lsp_client.feature("specward/status")
    def status(params):
        state = getattr(params, "state", None) or params.get("state")
        published = getattr(params, "published", None) or params.get("published")
        if state == "ready" and published:
            lsp_client.ready.set()

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams):
        return None  # accepted (the disk is watched by the server itself here)

    def published(params: lsp.PublishDiagnosticsParams):
        lsp_client.publishes.append((params.uri, params.version, params.diagnostics))
        lsp_client.diagnostics[params.uri] = params.diagnostics

    # in place of pytest-lsp's own handler, which keeps only the last diagnostics per URI
    lsp_client.protocol.fm._features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = published

    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=repo.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=repo.as_uri(), name="ws")]))
    await asyncio.wait_for(lsp_client.ready.wait(), 120)
    yield
    await lsp_client.shutdown_session()


class Editor:
    """The editor's side of one open document: its text, its versions, and the text of
    every version sent (to check each publish against)."""

    def __init__(self, client: LanguageClient, path: Path, seed: int) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.text = path.read_text()
        self.version = 1
        self.texts = {1: self.text}
        self.rng = random.Random(seed)
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
            uri=self.uri, language_id="typescript", version=1, text=self.text)))

    def _change(self, line: int, start: int, end: int, new: str) -> lsp.TextDocumentContentChangePartial:
        lines = self.text.split("\n")
        row = lines[line]
        lines[line] = row[:start] + new + row[end:]
        self.text = "\n".join(lines)
        return lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=line, character=start), end=lsp.Position(line=line, character=end)),
            text=new)

    def keystroke(self) -> lsp.TextDocumentContentChangePartial:
        """Toggle one call between declared and phantom, or type into / erase from the
        comment line (ASCII only: characters and UTF-16 code units agree)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.35:
            slot = 2 + rng.randrange(SLOTS)
            row = self.text.split("\n")[slot]
            col = row.index("/api/tag") + len("/api/tag")
            return self._change(slot, col, col + 1, "z" if row[col] == "s" else "s")
        comment = self.text.split("\n")[0]
        if roll < 0.7 or len(comment) <= len("// scratch: "):
            col = rng.randrange(len("// scratch: "), len(comment) + 1)
            return self._change(0, col, col, rng.choice("abcxyz_ ({'/"))
        col = rng.randrange(len("// scratch: "), len(comment))
        return self._change(0, col, col + 1, "")

    def send(self, changes: int = 1) -> None:
        content = [self.keystroke() for _ in range(changes)]
        self.version += 1
        self.texts[self.version] = self.text
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=content))

    def check_publishes(self) -> int:
        """Every publish for this document: versions never go back, and each version's
        diagnostics are exactly its phantoms, on their literals. Returns how many."""
        last = 0
        seen = 0
        for uri, version, diags in self.client.publishes:
            if uri != self.uri:
                continue
            seen += 1
            assert version is not None and version >= last, f"publish for version {version} after {last}"
            last = version
            text = self.texts[version].split("\n")
            phantoms = [d for d in diags if d.code == "phantom-api"]
            assert len(phantoms) == self.texts[version].count(BAD), f"version {version}: {len(phantoms)} phantoms"
            for d in phantoms:
                r = d.range
                assert r.start.line == r.end.line
                assert text[r.start.line][r.start.character:r.end.character] == BAD, f"version {version}: range {r}"
        return seen

    async def settled(self, timeout: float = 60.0) -> None:
        """Until the last publish for this document is for the current version."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mine = [p for p in self.client.publishes if p[0] == self.uri]
            if mine and mine[-1][1] == self.version:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"no publish for version {self.version}")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _phantoms(client: LanguageClient, path: Path) -> int:
    return sum(1 for d in client.diagnostics.get(path.as_uri(), []) if d.code == "phantom-api")


async def _live_mb(pid: int, reports: int) -> float:
    """The server's live allocations (MB), asked by SIGUSR1 (hooks/memory)."""
    os.kill(pid, signal.SIGUSR1)
    await wait_for(lambda: MEMFILE.exists() and len(MEMFILE.read_text().split()) >= reports, "a memory report", 30)
    return int(MEMFILE.read_text().split()[reports - 1]) / 1e6


@pytest.mark.slow
async def test_edit_storm_every_publish_matches_its_version(traced_client: LanguageClient):
    """Two storms of 10,000 didChange (reduced: 5,000) each, sent as fast as the pipe takes
    them, some carrying several changes; then one more edit after a pause, which must be
    answered too. What the server still holds after the second storm must be what it held
    after the first: a leak grows with every storm (resident memory is reported too, but it
    keeps the high-water mark of a storm's messages, all in memory before they coalesce)."""
    client = traced_client
    pid = client._server.pid
    editor = Editor(client, client.root / SOAK, seed=1)
    await editor.settled()
    rss = [_rss_mb(pid)]
    live = [await _live_mb(pid, 1)]
    n = scaled(10_000, 5_000)
    sent_s = 0.0
    for storm in range(2):
        t0 = time.monotonic()
        for i in range(n):
            editor.send(changes=1 + (i % 7 == 0) * 2)
            if i % 50 == 0:
                await asyncio.sleep(0)  # let the client's writer drain
        sent_s = max(sent_s, time.monotonic() - t0)
        await editor.settled(timeout=120)
        rss.append(_rss_mb(pid))
        live.append(await _live_mb(pid, storm + 2))
    assert sent_s < 60, f"the client took {sent_s:.1f} s to send a storm"
    seen = editor.check_publishes()
    assert seen >= 3  # the open, and at least each storm's last version
    assert _phantoms(client, client.root / SOAK) == editor.text.count(BAD)
    editor.send()
    await editor.settled()
    editor.check_publishes()
    print(f"storm: 2 x {n} didChange, each sent in <= {sent_s:.1f} s, {seen} publishes, "
          f"RSS {rss[0]:.0f} -> {rss[1]:.0f} -> {rss[2]:.0f} MB, live {live[0]:.1f} -> {live[1]:.1f} -> {live[2]:.1f} MB")
    # (pygls kept every notification's future: about 3 KB a keystroke)
    assert live[2] - live[1] < n * STORM_GROWTH_KB / 1024
    # resident memory, with tracemalloc's own cost on every allocation: the storms' high-water mark
    assert rss[2] - rss[0] < STORM_RSS_MB


@pytest.mark.slow
async def test_soak_typing_and_checkouts(client: LanguageClient):
    """Typing with pauses for a stretch (full: 30 minutes; reduced: 40 s) while git
    switches branches under the server; after each checkout the changed file's
    diagnostics follow the disk, and the open document's always follow the editor."""
    root: Path = client.root
    pid = client._server.pid
    profile = root / "web/src/features/profile.ts"
    editor = Editor(client, root / SOAK, seed=2)
    await editor.settled()
    base = _phantoms(client, profile)
    assert base >= 1
    rss0 = _rss_mb(pid)
    duration = scaled(30 * 60, 40)
    rng = random.Random(3)
    t0 = time.monotonic()
    branch = "main"
    checkouts = keystrokes = 0
    samples = []
    while time.monotonic() - t0 < duration:
        for _ in range(rng.randrange(5, 40)):  # a burst of typing, ~30 keys a second
            editor.send()
            keystrokes += 1
            await asyncio.sleep(rng.uniform(0.01, 0.06))
        await editor.settled()
        if rng.random() < 0.5:
            branch = "phantom" if branch == "main" else "main"
            _git(root, "checkout", "-q", branch)
            checkouts += 1
            want = base + (branch == "phantom")
            await wait_for(lambda: _phantoms(client, profile) == want, f"profile.ts after checkout of {branch}", 60)
        samples.append(_rss_mb(pid))
        await asyncio.sleep(rng.uniform(0.0, 0.5))  # a pause
    await editor.settled()
    seen = editor.check_publishes()
    assert checkouts >= 2 and keystrokes >= 100
    growth = max(samples) - rss0
    print(f"soak: {time.monotonic() - t0:.0f} s, {keystrokes} keystrokes, {checkouts} checkouts, {seen} publishes, "
          f"RSS {rss0:.0f} MB -> max +{growth:.1f} MB, last +{samples[-1] - rss0:.1f} MB")
    assert growth < RSS_GROWTH_MB
