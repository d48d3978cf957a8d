"""Talk to an installed ``specward serve`` over stdio, as an editor would, with nothing but
the standard library: initialize on a workspace, open one file, wait until the server
publishes its diagnostics, then shut down and exit.

    python lsp_smoke.py SPECWARD_EXECUTABLE WORKSPACE RELATIVE_FILE EXPECTED_CODE

Exits 0 when the file's diagnostics contain EXPECTED_CODE and the server exits 0 after
shutdown/exit; prints what it saw either way. Used by tests/packaging/run.sh to prove that
the language server of a wheel starts (grammars, queries) outside the checkout.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

TIMEOUT = 60.0


def send(proc: subprocess.Popen, message: dict) -> None:
    body = json.dumps(message).encode("utf-8")
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def reader(stream, out: queue.Queue) -> None:
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                out.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            continue
        out.put(json.loads(stream.read(length)))


def main() -> int:
    exe, workspace, rel, expected = sys.argv[1:5]
    root = Path(workspace).resolve()
    path = root / rel
    uri = path.as_uri()
    proc = subprocess.Popen([exe, "serve"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    messages: queue.Queue = queue.Queue()
    threading.Thread(target=reader, args=(proc.stdout, messages), daemon=True).start()
    deadline = time.monotonic() + TIMEOUT

    def wait_for(predicate) -> dict | None:
        while time.monotonic() < deadline:
            try:
                msg = messages.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if msg is None:
                return None
            if msg.get("method") in ("window/workDoneProgress/create", "client/registerCapability",
                                     "workspace/configuration") and "id" in msg:
                send(proc, {"jsonrpc": "2.0", "id": msg["id"],
                            "result": [None] * len(msg.get("params", {}).get("items", []))
                            if msg["method"] == "workspace/configuration" else None})
            if predicate(msg):
                return msg
        return None

    try:
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                               "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]}})
        init = wait_for(lambda m: m.get("id") == 1 and ("result" in m or "error" in m))
        if init is None or "error" in init:
            print(f"no initialize result: {init}")
            return 1
        send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        language = "python" if rel.endswith(".py") else "typescript"
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": uri, "languageId": language, "version": 1,
                                                "text": path.read_text("utf-8")}}})
        published = wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri and m["params"]["diagnostics"])
        codes = sorted({d.get("code") for d in published["params"]["diagnostics"]}) if published else []
        print(f"{rel}: {codes}")
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        wait_for(lambda m: m.get("id") == 2)
        send(proc, {"jsonrpc": "2.0", "method": "exit", "params": None})
        rc = proc.wait(timeout=30)
        print(f"server exit status: {rc}")
        return 0 if expected in codes and rc == 0 else 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    raise SystemExit(main())
