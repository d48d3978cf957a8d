"""`specward mock` as a real subprocess answering real HTTP requests (server/mock_cli.py)."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "examples" / "fullstack" / "contracts" / "articles.dsl.json"
USERS = ROOT / "examples" / "fullstack" / "contracts" / "openapi.yaml"
SERVING = re.compile(r"^mock: serving (.+) on http://127\.0\.0\.1:(\d+) \((\d+) endpoints\)$")
# never through a proxy the environment may name
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Mock:
    def __init__(self, contract: Path, *extra: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "specward.server", "mock", str(contract), "--port", "0", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in self.proc.stdout], daemon=True).start()  # type: ignore[union-attr]
        try:
            self.first = lines.get(timeout=30).rstrip("\n")
        except queue.Empty:
            self.stop()
            raise AssertionError("the mock printed nothing in 30 s") from None
        m = SERVING.match(self.first)
        assert m, self.first
        self.port = int(m.group(2))
        self.endpoints = int(m.group(3))

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=body, method=method,
                                     headers=headers or {})
        try:
            with OPENER.open(req, timeout=10) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, exc.headers, exc.read()

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
            raise AssertionError("the mock did not stop within 15 s") from None
        err = self.proc.stderr.read()  # type: ignore[union-attr]
        return self.proc.returncode, err


@pytest.fixture
def articles():
    m = Mock(ARTICLES)
    yield m
    m.stop()


def test_specdsl_contract_over_http(articles: Mock):
    assert articles.endpoints == 7
    status, headers, body = articles.request("GET", "/api/articles?limit=2")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert json.loads(body)[0]["slug"] == "string"
    status, _, body = articles.request("GET", "/api/articles/my-post")
    assert status == 200 and json.loads(body)["slug"] == "my-post"
    # a request body is read and ignored; the connection stays usable
    status, _, body = articles.request("POST", "/api/articles", json.dumps({"title": "t"}).encode(),
                                       {"Content-Type": "application/json"})
    assert status == 201 and "title" in json.loads(body)
    status, _, body = articles.request("GET", "/api/nowhere")
    assert status == 404 and json.loads(body)["error"] == "not found"
    status, headers, _ = articles.request("DELETE", "/api/articles/x")
    assert status == 405 and headers["Allow"] == "GET, HEAD, PUT, OPTIONS"
    status, _, body = articles.request("GET", "/api/articles/x", headers={"Prefer": "code=404"})
    assert status == 404
    status, _, body = articles.request("POST", "/api/articles?__code=422", b"{}")
    assert status == 422
    status, _, body = articles.request("GET", "/api/articles/x?__code=500")
    assert status == 400 and json.loads(body)["declared"] == ["200", "404"]
    status, headers, body = articles.request("HEAD", "/api/tags")
    assert status == 200 and body == b""
    status, headers, body = articles.request("OPTIONS", "/api/articles", headers={
        "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization"})
    assert status == 204 and headers["Access-Control-Allow-Headers"] == "authorization"
    assert "POST" in headers["Access-Control-Allow-Methods"]
    code, err = articles.stop()
    assert code == 0, err
    assert "mock: GET /api/articles?limit=2 -> 200" in err
    assert "mock: DELETE /api/articles/x -> 405" in err


def test_openapi_contract_over_http_and_sigint():
    m = Mock(USERS)
    try:
        assert m.endpoints == 6 and str(USERS) in m.first
        status, _, body = m.request("GET", "/api/users")
        assert status == 200 and json.loads(body) == [{"id": "string", "name": "string", "email": "string"}]
        status, headers, body = m.request("DELETE", "/api/users/3")
        assert status == 204 and body == b""
        assert m.request("GET", "/api/users/3?__code=404")[0] == 404
    finally:
        code, err = m.stop(signal.SIGINT)  # Ctrl-C
    assert code == 0, err


def test_broken_contract_exits_2(tmp_path: Path):
    bad = tmp_path / "broken.dsl.json"
    bad.write_text('{"version": "1.0", "endpoints": 3}', "utf-8")
    run = subprocess.run([sys.executable, "-m", "specward.server", "mock", str(bad), "--port", "0"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and run.stdout == ""
    assert "broken.dsl.json" in run.stderr and "nothing served" in run.stderr
    run = subprocess.run([sys.executable, "-m", "specward.server", "mock", str(tmp_path / "missing.yaml")],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and "cannot read" in run.stderr


def test_explicit_host_other_than_loopback_warns():
    # 0.0.0.0 binds every interface: allowed only because --host names it, with a warning
    m = subprocess.Popen([sys.executable, "-m", "specward.server", "mock", str(ARTICLES), "--port", "0",
                          "--host", "0.0.0.0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    try:
        line = queue.Queue()
        threading.Thread(target=lambda: line.put(m.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
        first = line.get(timeout=30)
        assert first.startswith("mock: serving ") and "http://0.0.0.0:" in first
    finally:
        m.terminate()
        m.wait(timeout=15)
    assert m.returncode == 0
    assert "warning: --host 0.0.0.0" in m.stderr.read()  # type: ignore[union-attr]
