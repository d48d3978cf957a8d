"""Hostile protocol input: the real server over stdio, fed raw bytes (pytest-lsp cannot send
a broken frame). Every request with an id gets exactly one reply, the server never exits,
and it still answers a real hover afterwards.

``RawServer`` (the raw-frame client) is imported by ``test_lifecycle.py`` as well."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from rsupport import scaled

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fullstack"
LIVENESS_S = float(os.environ.get("SPECWARD_TEST_LIVENESS_S", "60"))  # generous: only a dead or stuck server reaches it

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
SERVER_NOT_INITIALIZED = -32002


# ============================================================== the raw-frame client
def frame(body: bytes | str | dict, length: int | str | None = None) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    n = len(body) if length is None else length
    return b"Content-Length: " + str(n).encode() + b"\r\n\r\n" + body


def request(id_, method: str, params=None, with_params: bool = True) -> dict:
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if with_params:
        msg["params"] = params
    return msg


def notification(method: str, params=None) -> dict:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def copy_example(dest: Path) -> Path:
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns(".specward"))
    return dest


class RawServer:
    """``python -m specward.server serve`` over pipes; every message it writes is parsed and
    kept in order (``messages``). Requests the server makes are answered with null."""

    def __init__(self, *args: str, cwd: Path | None = None, env: dict | None = None) -> None:
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "specward.server", "serve", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     cwd=cwd, env=env)
        self.messages: list[dict] = []
        self.cond = threading.Condition()
        self.closed = False
        self._next_id = 1_000_000
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ---------------------------------------------------------------- output
    def _read(self) -> None:
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                body = out.read(length)
                msg = json.loads(body)
                if "method" in msg and "id" in msg:  # a request of the server's: answer it
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None}, quiet=True)
                with self.cond:
                    self.messages.append(msg)
                    self.cond.notify_all()
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def wait_for(self, pred, timeout: float = LIVENESS_S, what: str = "a message"):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"no {what} (server {'exited' if self.closed else 'silent'}; "
                                         f"stderr tail: {self.stderr()[-2000:]!r})")
                self.cond.wait(min(left, 0.5))

    def replies(self, id_) -> list[dict]:
        with self.cond:
            return [m for m in self.messages if "method" not in m and m.get("id") == id_ and type(m.get("id")) is type(id_)]

    def reply(self, id_, timeout: float = LIVENESS_S) -> dict:
        return self.wait_for(lambda m: "method" not in m and m.get("id") == id_ and type(m.get("id")) is type(id_),
                             timeout, f"reply to {id_!r}")

    def null_id_errors(self) -> list[dict]:
        with self.cond:
            return [m for m in self.messages if "error" in m and m.get("id") is None]

    def notifications(self, method: str) -> list[dict]:
        with self.cond:
            return [m for m in self.messages if m.get("method") == method and "id" not in m]

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    # ---------------------------------------------------------------- input
    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg: dict, quiet: bool = False) -> None:
        try:
            self.send_raw(frame(msg))
        except (BrokenPipeError, ValueError):
            if not quiet:
                raise

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def call(self, method: str, params=None, timeout: float = LIVENESS_S) -> dict:
        id_ = self.new_id()
        self.send(request(id_, method, params))
        return self.reply(id_, timeout)

    def initialize(self, root: Path | None, process_id: int | None = None, wait_ready: bool = True,
                   capabilities: dict | None = None) -> dict:
        params = {"processId": process_id, "capabilities": capabilities or {}}
        if root is not None:
            params["rootUri"] = root.as_uri()
            params["workspaceFolders"] = [{"uri": root.as_uri(), "name": "ws"}]
        result = self.call("initialize", params)
        assert "result" in result, result
        self.send(notification("initialized", {}))
        if wait_ready:
            self.wait_for(lambda m: m.get("method") == "specward/status" and m["params"].get("published"),
                          what="the end of indexing")
        return result["result"]

    def close_stdin(self) -> None:
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    def exit_code(self, timeout: float = LIVENESS_S) -> int:
        return self.proc.wait(timeout)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.err.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "ws")


@pytest.fixture
def start():
    servers: list[RawServer] = []

    def make(*args: str, **kw) -> RawServer:
        s = RawServer(*args, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


def hover_params(root: Path, rel: str, snippet: str) -> dict:
    """Hover params at ``$0`` in ``snippet`` (which occurs once in the file without it)."""
    text = (root / rel).read_text()
    before, after = snippet.split("$0")
    at = text.index(before + after) + len(before)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return {"textDocument": {"uri": (root / rel).as_uri()}, "position": {"line": line, "character": col}}


def assert_real_hover(server: RawServer, root: Path) -> None:
    r = server.call("textDocument/hover", hover_params(root, "web/src/features/articles.ts", "get(`/articles/${sl$0ug}`)"))
    assert r.get("result"), r
    assert r["result"]["contents"]["value"].startswith("**GET /api/articles/{slug}**"), r


def error_code(reply: dict) -> int | None:
    return (reply.get("error") or {}).get("code")


# ============================================================== the reproductions
def test_a_huge_content_length_is_dropped_and_the_server_keeps_serving(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace)
    for n, length in enumerate([b"1000000000000", b"99999999999999999999", b"9223372036854775808"], 1):
        s.send_raw(b"Content-Length: " + length + b"\r\n\r\n{}")
        # refused with an error that has no id (the body was never read), then back in step
        s.wait_for(lambda _: len(s.null_id_errors()) >= n, what="the refusal of the frame")
        refused = s.null_id_errors()[-1]
        assert error_code(refused) == INVALID_REQUEST and length.decode() in refused["error"]["message"], refused
        assert_real_hover(s, workspace)
    assert s.alive()


def test_the_message_size_limit_is_configurable(start, workspace):
    s = start("--max-message-bytes", "4096", cwd=workspace)
    s.initialize(workspace)
    big = request(7, "workspace/symbol", {"query": "x" * 5000})
    s.send(big)
    refused = s.wait_for(lambda m: "error" in m and m.get("id") is None, what="the refusal of the frame")
    assert error_code(refused) == INVALID_REQUEST and "4096" in refused["error"]["message"], refused
    assert s.replies(7) == []
    assert "result" in s.call("workspace/symbol", {"query": "x" * 1000})
    assert_real_hover(s, workspace)


def test_a_body_shorter_than_its_content_length_does_not_stall_the_server(start, workspace):
    s = start("--body-timeout", "1", cwd=workspace)
    s.initialize(workspace)
    s.send_raw(b"Content-Length: 500\r\n\r\n" + b'{"jsonrpc": "2.0", "id": 9, "method"')  # and nothing more
    dropped = s.wait_for(lambda m: "error" in m and m.get("id") is None, what="the end of the wait for the body")
    assert error_code(dropped) == PARSE_ERROR
    assert_real_hover(s, workspace)


def test_a_content_length_too_large_does_not_swallow_the_next_frames(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace)
    first = json.dumps(request(11, "workspace/symbol", {"query": "zz"}))
    second = frame(request(12, "workspace/symbol", {"query": "zzz"}))
    third = frame(request(13, "workspace/symbol", {"query": "zzzz"}))
    # the first frame claims its body runs into the second frame and half of the third
    s.send_raw(frame(first, len(first) + len(second) + len(third) // 2) + second + third)
    for id_ in (11, 12, 13):
        assert "result" in s.reply(id_), id_
    assert_real_hover(s, workspace)


def test_requests_whose_params_do_not_structure_get_invalid_params(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace, wait_ready=False)
    s.send_raw(frame(b'{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":5}}'))
    s.send(request(6, "textDocument/hover", with_params=False))
    s.send(request(8, "textDocument/definition", {"textDocument": {"uri": 5}, "position": {"line": "a"}}))
    # rename is not a method specward serves: method not found, whatever its params
    s.send(request(10, "textDocument/rename", {}))
    for id_, code in ((5, INVALID_PARAMS), (6, INVALID_PARAMS), (8, INVALID_PARAMS), (10, METHOD_NOT_FOUND)):
        r = s.reply(id_)
        assert error_code(r) == code, r
    assert "result" in s.call("workspace/symbol", {"query": ""})  # still serving
    for id_ in (5, 6, 8, 10):
        assert len(s.replies(id_)) == 1
    assert not s.notifications("window/showMessage")


def test_invalid_json_and_invalid_utf8_get_a_parse_error_not_a_message(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace, wait_ready=False)
    for body in (b'{"jsonrpc": "2.0", "id": 3, "method": ', b'\xff\xfe{"jsonrpc":"2.0","id":4,"method":"shutdown"}',
                 b"[" * 100_000, b'{"jsonrpc":"2.0","id":1,"method":"x","params":"\xed\xa0\x80"}'):
        s.send_raw(frame(body))
    assert "result" in s.call("workspace/symbol", {"query": ""})  # still serving
    errors = s.null_id_errors()
    assert [error_code(m) for m in errors] == [PARSE_ERROR] * 4, errors
    assert not s.notifications("window/showMessage")
    assert s.replies(3) == [] and s.replies(4) == []


def test_unknown_methods_and_malformed_envelopes_get_one_error_each(start, workspace):
    s = start(cwd=workspace)
    s.initialize(workspace, wait_ready=False)
    s.send(request(20, "specward/noSuchThing", {}))
    s.send(notification("specward/noSuchNotification", {}))
    s.send({"jsonrpc": "1.0", "id": 21, "method": "workspace/symbol", "params": {"query": ""}})
    s.send({"jsonrpc": "2.0", "id": 22, "method": 5})
    s.send({"jsonrpc": "2.0", "id": 23, "method": "initialized", "params": {}})  # a notification, asked as a request
    s.send_raw(frame(b"[1, 2]") + frame(b'"hello"') + frame(b"{}"))
    expected = {20: METHOD_NOT_FOUND, 21: INVALID_REQUEST, 22: INVALID_REQUEST, 23: INVALID_REQUEST}
    for id_, code in expected.items():
        assert error_code(s.reply(id_)) == code, (id_, s.replies(id_))
    assert "result" in s.call("workspace/symbol", {"query": ""})  # still serving
    null_id = s.null_id_errors()
    assert [error_code(m) for m in null_id] == [INVALID_REQUEST] * 3, null_id
    for id_ in expected:
        assert len(s.replies(id_)) == 1


def test_requests_before_initialize_and_after_shutdown_are_refused(start, workspace):
    s = start(cwd=workspace)
    r = s.call("textDocument/hover", {"textDocument": {"uri": "file:///x.ts"}, "position": {"line": 0, "character": 0}})
    assert error_code(r) == SERVER_NOT_INITIALIZED, r
    s.send(notification("textDocument/didOpen", {"textDocument": {"uri": "file:///x.ts", "languageId": "typescript",
                                                                    "version": 1, "text": ""}}))
    s.initialize(workspace)
    assert "result" in s.call("shutdown")
    r = s.call("workspace/symbol", {"query": ""})
    assert error_code(r) == INVALID_REQUEST, r
    r = s.call("shutdown")
    assert error_code(r) == INVALID_REQUEST, r
    assert not s.notifications("textDocument/publishDiagnostics") or all(
        m["params"]["uri"] != "file:///x.ts" for m in s.notifications("textDocument/publishDiagnostics"))


FAULTS = '''
import os
from specward.server.lsp.handlers import did_save, hover

_hover = hover.handle

async def handle(ls, params):
    if params.position.line == 4242:
        raise RuntimeError("secret-token-4242 at /home/someone/.ssh")
    return await _hover(ls, params)

def save(ls, params):
    raise ValueError("notification fault")

hover.handle = handle
did_save.handle = save
'''


def test_an_exception_in_a_handler_becomes_an_internal_error(start, workspace, tmp_path):
    """Faults injected by a ``sitecustomize`` (the server process imports it at start-up)."""
    (tmp_path / "faults").mkdir()
    (tmp_path / "faults/sitecustomize.py").write_text(FAULTS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "faults"), os.environ.get("PYTHONPATH", "")]))
    s = start(cwd=workspace, env=env)
    s.initialize(workspace)
    uri = (workspace / "web/src/features/articles.ts").as_uri()
    r = s.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4242, "character": 0}})
    assert error_code(r) == INTERNAL_ERROR, r
    message = r["error"]["message"]
    assert "secret" not in json.dumps(r) and ".ssh" not in json.dumps(r) and "Traceback" not in json.dumps(r), r
    assert len(message) < 200
    s.send(notification("textDocument/didSave", {"textDocument": {"uri": uri}}))
    assert_real_hover(s, workspace)
    assert "notification fault" in s.stderr()
    assert not s.notifications("window/showMessage")
    assert len(s.replies(r["id"])) == 1


# ============================================================== fuzzing
# what each capability the server advertises makes a client send (requests and notifications)
CAPABILITY_METHODS = {
    "textDocumentSync": ["textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
                         "textDocument/didSave"],
    "hoverProvider": ["textDocument/hover"],
    "definitionProvider": ["textDocument/definition"],
    "referencesProvider": ["textDocument/references"],
    "completionProvider": ["textDocument/completion"],
    "codeLensProvider": ["textDocument/codeLens"],
    "documentSymbolProvider": ["textDocument/documentSymbol"],
    "workspaceSymbolProvider": ["workspace/symbol"],
    "diagnosticProvider": ["textDocument/diagnostic", "workspace/diagnostic"],
    "codeActionProvider": ["textDocument/codeAction"],
    "executeCommandProvider": ["workspace/executeCommand"],
    "positionEncoding": [],
    "workspace": ["workspace/didChangeWatchedFiles"],
}
NOTIFICATIONS = {"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave",
                 "workspace/didChangeWatchedFiles"}


def advertised_methods(capabilities: dict) -> list[str]:
    unknown = set(capabilities) - set(CAPABILITY_METHODS)
    assert not unknown, f"capabilities the fuzzer does not know how to exercise: {unknown}"
    return sorted({m for cap in capabilities for m in CAPABILITY_METHODS[cap]})


def _junk(rng: random.Random, depth: int = 0):
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 2**31, 2**63, -(2**53), 1.5, 1e308])
    if choice == 3:
        return rng.choice(["", "x", "file:///", "\u0000", "é" * 3, "%zz", "\U0001f600"])
    if choice == 4:
        return rng.choice(["file:///etc/passwd", "untitled:Untitled-1", "http://example.com/a.ts", "file://host/x.ts"])
    if choice == 5:
        return rng.choice([[], {}, "null"])
    if choice == 6:
        return [_junk(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(["textDocument", "position", "uri", "query", "context", "range", "text", "version",
                        "contentChanges", "changes", "identifier", "previousResultIds", "command"]): _junk(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def fuzz_uris(root: Path) -> list[str]:
    """Unknown files, files outside the workspace, other schemes, and two real files."""
    return [(root / "nope/missing.ts").as_uri(), "file:///etc/hosts", "file:///nonexistent/deep/x.py",
            "untitled:Untitled-1", (root / "web/src/features/articles.ts").as_uri(), "file:///",
            (root / "contracts/openapi.yaml").as_uri(), "file:///tmp/%E2%82%AC.ts", "file:///%zz/a.ts",
            "http://example.com/a.ts", (root / "..").as_uri() + "/outside.ts"]


def _params_for(method: str, rng: random.Random, root: Path):
    """Parameters for ``method``: most of the time wrong (types, shapes, missing), sometimes
    right but about files that do not exist or lie outside the workspace."""
    uri = rng.choice(fuzz_uris(root))
    pos = {"line": rng.choice([0, 3, 10**6, 2**31 - 1]), "character": rng.choice([0, 5, 10**6])}
    doc = {"uri": uri}
    rng_ = {"start": pos, "end": pos}
    shaped = {
        "textDocument/hover": {"textDocument": doc, "position": pos},
        "textDocument/definition": {"textDocument": doc, "position": pos},
        "textDocument/references": {"textDocument": doc, "position": pos, "context": {"includeDeclaration": True}},
        "textDocument/completion": {"textDocument": doc, "position": pos},
        "textDocument/codeLens": {"textDocument": doc},
        "textDocument/documentSymbol": {"textDocument": doc},
        "workspace/symbol": {"query": rng.choice(["", "a", "/api/", "\u0000"])},
        "textDocument/diagnostic": {"textDocument": doc},
        "workspace/diagnostic": {"previousResultIds": [{"uri": uri, "value": "x"}]},
        "textDocument/codeAction": {"textDocument": doc, "range": rng_, "context": {"diagnostics": []}},
        "workspace/executeCommand": {"command": "specward.nothing", "arguments": [1]},
        "textDocument/didOpen": {"textDocument": {"uri": uri, "languageId": "typescript", "version": 1,
                                                  "text": rng.choice(["", "fetch('/api/x')\n", "\u0000\ud7ff"])}},
        "textDocument/didChange": {"textDocument": {"uri": uri, "version": 2},
                                   "contentChanges": [{"range": rng_, "text": "x"}]},
        "textDocument/didClose": {"textDocument": doc},
        "textDocument/didSave": {"textDocument": doc},
        "workspace/didChangeWatchedFiles": {"changes": [{"uri": uri, "type": rng.choice([1, 2, 3])}]},
    }.get(method, {})
    r = rng.random()
    if r < 0.25:
        return shaped, True
    if r < 0.5:  # one field of the right shape replaced by junk
        broken = json.loads(json.dumps(shaped))
        if broken:
            key = rng.choice(sorted(broken))
            broken[key] = _junk(rng)
        return broken, False
    return _junk(rng), False


class Fuzz:
    """A stream of frames, hostile and not. ``expected`` holds the ids of the well-formed
    requests (each must be answered exactly once); every other id must be answered at most
    once."""

    def __init__(self, rng: random.Random, root: Path, methods: list[str]) -> None:
        self.rng, self.root, self.methods = rng, root, methods
        self.expected: dict[object, str] = {}
        self.all_ids: set = set()
        self.counts: dict[str, int] = {}
        self._n = 0

    def _id(self):
        self._n += 1
        return self._n if self._n % 3 else f"fz-{self._n}"

    def one(self) -> bytes:
        rng = self.rng
        kind = rng.choices(
            ["random", "random-body", "short-length", "long-length", "huge-length", "bad-utf8", "nested",
             "not-object", "bad-envelope", "advertised", "unknown-method", "lifecycle"],
            weights=[4, 4, 3, 3, 2, 3, 2, 3, 4, 30, 6, 2])[0]
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind == "random":
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        if kind == "random-body":
            return frame(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
        if kind == "bad-utf8":
            text = json.dumps(request(self._mark(), "workspace/symbol", {"query": "@@"}))
            return frame(text.replace("@@", "").encode().replace(b'""', b'"\xc3\x28\xff"'))
        if kind == "nested":
            n = rng.choice([2000, 20_000, 100_000])
            return frame(rng.choice([b"[" * n, b"[" * n + b"]" * n, b'{"a":' * n + b"1" + b"}" * n]))
        if kind == "not-object":
            return frame(rng.choice([b"1", b"null", b'"x"', b"[]", b'[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]',
                                     b"true", b"  ", b""]))
        if kind == "bad-envelope":
            id_ = self._mark()
            msg = rng.choice([
                {"jsonrpc": "2.0", "id": id_},
                {"jsonrpc": "3.0", "id": id_, "method": "workspace/symbol", "params": {"query": ""}},
                {"id": id_, "method": "workspace/symbol", "params": {"query": ""}},
                {"jsonrpc": "2.0", "id": id_, "method": None},
                {"jsonrpc": "2.0", "id": [id_], "method": "workspace/symbol"},
                {"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"},
                {"jsonrpc": "2.0", "id": True, "method": "textDocument/hover"},
                {"jsonrpc": "2.0", "id": None, "method": "textDocument/hover"},
                {"jsonrpc": "2.0", "id": id_, "result": {"x": 1}},
                {"jsonrpc": "2.0", "id": id_, "error": "nope"},
                {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id_}},
                {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": "x"},
                {"jsonrpc": "2.0", "id": id_, "method": "textDocument/didOpen", "params": {}},
                {"jsonrpc": "2.0", "id": id_, "method": "window/showMessage", "params": {"type": 1, "message": "x"}},
            ])
            return frame(msg)
        if kind == "advertised":
            method = rng.choice(self.methods)
            params, _ = _params_for(method, rng, self.root)
            if method in NOTIFICATIONS:
                return frame(notification(method, params))
            return frame(self._request(method, params, with_params=rng.random() > 0.1))
        if kind == "unknown-method":
            method = rng.choice(["textDocument/rename", "foo", "", "$/nothing", "textDocument/hover/", "a" * 500,
                                 "textDocument/formatting", "workspace/willRenameFiles"])
            if rng.random() < 0.5:
                return frame(notification(method, _junk(rng)))
            return frame(self._request(method, _junk(rng)))
        if kind == "lifecycle":  # a second initialize (refused) or another initialized (ignored)
            if rng.random() < 0.5:
                return frame(notification("initialized", {}))
            return frame(self._request("initialize", {"processId": None, "capabilities": {},
                                                      "rootUri": "file:///"}))
        # frames whose Content-Length lies
        body = json.dumps(request(self._mark(), "workspace/symbol", {"query": "q"})).encode()
        if kind == "short-length":
            return frame(body, rng.randrange(0, len(body)))
        if kind == "long-length":
            return frame(body, len(body) + rng.randrange(1, 400))
        return frame(body, rng.choice(["1000000000000", "99999999999999999999", "9223372036854775808",
                                       str(2**40), "0" * 30 + "5", "1" * 300]))

    def _mark(self):
        id_ = self._id()
        self.all_ids.add(id_)
        return id_

    def _request(self, method: str, params, with_params: bool = True) -> dict:
        id_ = self._mark()
        self.expected[id_] = method
        return request(id_, method, params, with_params)


def test_fuzzing_the_protocol_never_kills_the_server(start, workspace):
    s = start("--body-timeout", "2", cwd=workspace)
    caps = s.initialize(workspace)["capabilities"]
    methods = advertised_methods(caps)
    assert "textDocument/hover" in methods and "workspace/diagnostic" in methods
    fuzz = Fuzz(random.Random(int(os.environ.get("SPECWARD_FUZZ_SEED", "20261201"))), workspace, methods)
    frames = scaled(3000, 300)
    t0 = time.monotonic()
    sent = 0
    for i in range(frames):
        data = fuzz.one()
        sent += len(data)
        s.send_raw(data)
        if i % 100 == 99:  # in step now and then: every request so far answered
            s.reply(s.call("workspace/symbol", {"query": "sync"})["id"])
    # (a frame whose Content-Length lies may still be waiting for its body: the timeout ends it)
    s.reply(s.call("workspace/symbol", {"query": "sync"})["id"])
    # the fuzzer opened and edited real files too: back to their text on disk (the hover
    # runs after the re-analysis the close starts)
    for uri in fuzz_uris(workspace):
        s.send(notification("textDocument/didClose", {"textDocument": {"uri": uri}}))
    assert_real_hover(s, workspace)
    elapsed = time.monotonic() - t0  # from the first frame to the hover's answer
    lost = [(i, m) for i, m in fuzz.expected.items() if len(s.replies(i)) != 1]
    assert not lost, f"requests not answered exactly once: {lost[:10]} (of {len(fuzz.expected)})"
    twice = [i for i in fuzz.all_ids if len(s.replies(i)) > 1]
    assert not twice, twice
    internal = [m for m in s.messages if error_code(m) == INTERNAL_ERROR]
    assert not internal, internal[:5]
    assert s.alive()
    assert not s.notifications("window/showMessage")
    replies = sum(1 for m in s.messages if "method" not in m)
    null_errors = sum(1 for m in s.messages if "error" in m and m.get("id") is None)
    print(f"\nfuzz: {frames} frames ({sent:,} bytes), {len(fuzz.expected)} well-formed requests, "
          f"{replies} replies ({null_errors} with id null), kinds {sorted(fuzz.counts.items())}, {elapsed:.1f} s")
