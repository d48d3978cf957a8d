"""The registry check against a real HTTP server on 127.0.0.1 standing in for both the npm
registry and PyPI. No test here reaches the internet: every connection to anything but
the loopback address fails the test (``_loopback_only``)."""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from specward.analyzers.model import Import, Span
from specward.analyzers.registry_rule import hallucinated_package_findings, names_to_ask
from specward.server.engine import registry as registry_module
from specward.server.engine.registry import USER_AGENT, RegistryCheck

DAY = 86400.0


class FakeRegistry:
    """Answers as the npm registry (``/<name>``) and PyPI's JSON API (``/pypi/<name>/json``,
    with PyPI's redirect of another spelling to the project's own) would, for the names it
    is given; records every request and the most requests it served at once."""

    def __init__(self, npm=(), pypi=(), status=None, delay=0.0, slow=()):
        self.npm = set(npm)
        self.pypi = {urllib.parse.unquote(n).lower().replace("_", "-").replace(".", "-"): n for n in pypi}
        self.status = dict(status or {})  # raw request path -> status to answer
        self.delay = delay  # every answer waits this long
        self.slow = set(slow)  # raw paths that answer only once the test is over
        self.requests: list[dict] = []
        self.active = 0
        self.most_active = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                registry.handle(self)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
            self.requests.append({"path": h.path, "headers": dict(h.headers), "line": h.requestline})
        done = False
        try:
            path = h.path
            if path.startswith("http://"):  # through a proxy: the absolute form
                path = "/" + path.split("/", 3)[3]
            if path in self.slow:
                self.release.wait(10)
            elif self.delay:
                time.sleep(self.delay)
            code, location = self.answer(path)
            # no longer active once the answer starts: the client may send its next request
            # as soon as it has read this one, before this thread gets to the end
            with self.lock:
                self.active -= 1
                done = True
            h.send_response(code)
            if location:
                h.send_header("Location", location)
            body = b"{}" if code == 200 else b""
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            if not done:
                with self.lock:
                    self.active -= 1

    def answer(self, path: str) -> tuple[int, str | None]:
        if path in self.status:
            return self.status[path], None
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "pypi" and parts[3] == "json":
            asked = parts[2]
            canonical = self.pypi.get(asked.lower().replace("_", "-").replace(".", "-"))
            if canonical is None:
                return 404, None
            if canonical != asked:
                return 301, f"/pypi/{canonical}/json"
            return 200, None
        name = urllib.parse.unquote(path[1:])
        return (200, None) if name in self.npm else (404, None)

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch):
    """No proxy from the environment, and no connection to anything but 127.0.0.1."""
    for var in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    real = socket.create_connection

    def loopback(address, *args, **kwargs):
        assert address[0] == "127.0.0.1", f"a test tried to reach {address}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", loopback)


@pytest.fixture
def fake():
    servers: list[FakeRegistry] = []

    def make(**kwargs) -> FakeRegistry:
        servers.append(FakeRegistry(**kwargs))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def check_for(root: Path, server: FakeRegistry, **kwargs) -> RegistryCheck:
    kwargs.setdefault("timeout", 2.0)
    return RegistryCheck(root, npm_url=server.url, pypi_url=server.url, **kwargs)


def cache_doc(root: Path) -> dict:
    return json.loads((root / ".specward" / "registry.json").read_text("utf-8"))


def refused_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there any more
    return port


# ---------------------------------------------------------------- answers
def test_existing_name_is_true_a_404_is_false(tmp_path, fake):
    server = fake(npm={"left-pad"}, pypi={"requests"})
    check = check_for(tmp_path, server)
    got = check.ask_many([("npm", "left-pad"), ("npm", "left-padd"), ("pypi", "requests"), ("pypi", "requestz")])
    assert got == {("npm", "left-pad"): True, ("npm", "left-padd"): False,
                   ("pypi", "requests"): True, ("pypi", "requestz"): False}
    assert sorted(server.paths()) == ["/left-pad", "/left-padd", "/pypi/requests/json", "/pypi/requestz/json"]
    assert check.known("npm", "left-pad") is True and check.known("npm", "left-padd") is False


def test_the_rule_over_the_real_check(tmp_path, fake):
    server = fake(npm={"react"}, pypi={"PyYAML"})
    text = "import React from 'react';\nimport { fmt } from 'react-date-fmt-utils';\n"

    def at(s: str) -> Span:
        return Span(text.index(s), text.index(s) + len(s))

    react = Import("react", "default", "React", at("React"), module_span=at("'react'"))
    invented = Import("react-date-fmt-utils", "fmt", "fmt", at("fmt }"), module_span=at("'react-date-fmt-utils'"))
    missing = [(react, "npm", "react"), (invented, "npm", "react-date-fmt-utils")]
    check = check_for(tmp_path, server)
    check.ask_many(names_to_ask(missing))
    findings = hallucinated_package_findings("web/app.ts", missing, check.known)
    assert [(f.code, f.severity, f.span) for f in findings] == [("hallucinated-package", "error", at("'react-date-fmt-utils'"))]
    assert findings[0].message == ("'react-date-fmt-utils' is not on the npm registry: "
                                   "it may be a hallucinated package name")
    # Python: `import yaml` is PyYAML's module, asked under the distribution's name
    yaml = Import("yaml", "*", "yaml", Span(7, 11), module_span=Span(7, 11))
    check.ask_many(names_to_ask([(yaml, "pypi", "yaml")]))
    assert "/pypi/pyyaml/json" in server.paths()
    assert hallucinated_package_findings("tool.py", [(yaml, "pypi", "yaml")], check.known) == []


@pytest.mark.parametrize("failure", ["500", "timeout", "refused", "garbage"])
def test_a_failure_is_unknown_and_not_cached_as_missing(tmp_path, fake, failure):
    server = fake(status={"/flaky-pkg": 500} if failure == "500" else {},
                  slow={"/flaky-pkg"} if failure == "timeout" else ())
    url = server.url
    if failure == "refused":
        url = f"http://127.0.0.1:{refused_port()}"
    elif failure == "garbage":  # something answers, but not HTTP
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"

        def babble():
            conn, _ = listener.accept()
            conn.recv(1024)
            conn.sendall(b"this is not http\r\n\r\n")
            conn.close()
            listener.close()

        threading.Thread(target=babble, daemon=True).start()
    check = RegistryCheck(tmp_path, npm_url=url, pypi_url=url, timeout=0.3)
    t0 = time.monotonic()
    assert check.ask_many([("npm", "flaky-pkg")]) == {("npm", "flaky-pkg"): None}
    assert time.monotonic() - t0 < 3
    assert check.known("npm", "flaky-pkg") is None
    assert not (tmp_path / ".specward" / "registry.json").exists()
    missing = [(Import("flaky-pkg", "*", "x", Span(0, 1)), "npm", "flaky-pkg")]
    assert hallucinated_package_findings("a.js", missing, check.known) == []
    # the registry works again: the name is asked again (nothing was remembered), and now it is missing
    if failure in ("500", "timeout"):
        server.status.pop("/flaky-pkg", None)
        server.slow.clear()
        again = check_for(tmp_path, server)
        assert again.ask_many([("npm", "flaky-pkg")]) == {("npm", "flaky-pkg"): False}
        assert server.paths().count("/flaky-pkg") == 2


def test_an_unreachable_registry_is_not_asked_again_for_a_while(tmp_path, fake):
    server = fake(slow={"/first-pkg"})
    check = check_for(tmp_path, server, timeout=0.3, retry_after=60)
    assert check.ask("npm", "first-pkg") is None
    t0 = time.monotonic()
    assert check.ask_many([("npm", "second-pkg"), ("npm", "third-pkg")]) == {
        ("npm", "second-pkg"): None, ("npm", "third-pkg"): None}
    assert time.monotonic() - t0 < 0.2
    assert server.paths() == ["/first-pkg"]
    # PyPI is another registry: still asked
    assert check.ask("pypi", "nothing-here") is False
    # once the wait is over, asked again
    check.retry_after = 0
    check._down_until.clear()
    assert check.ask("npm", "second-pkg") is False


def test_a_registry_asking_to_slow_down_is_left_alone_for_a_while(tmp_path, fake):
    server = fake(status={"/busy-pkg": 429})
    check = check_for(tmp_path, server)
    assert check.ask("npm", "busy-pkg") is None
    assert check.ask("npm", "other-pkg") is None
    assert server.paths() == ["/busy-pkg"]
    assert not (tmp_path / ".specward" / "registry.json").exists()


def test_a_redirect_to_another_host_is_not_followed(tmp_path, fake):
    elsewhere = fake(npm={"moved-pkg"})
    server = fake(status={})
    server.answer = lambda path: (302, f"{elsewhere.url}{path}")
    check = check_for(tmp_path, server)
    assert check.ask("npm", "moved-pkg") is None
    assert elsewhere.requests == []


# ---------------------------------------------------------------- what is sent
def test_only_the_name_is_sent_with_specwards_user_agent(tmp_path, fake):
    server = fake(npm={"lodash"}, pypi={"Django"})
    check = check_for(tmp_path, server)
    check.ask_many([("npm", "lodash"), ("pypi", "django")])
    by_path = {r["path"]: r for r in server.requests}
    assert set(by_path) == {"/lodash", "/pypi/django/json", "/pypi/Django/json"}  # PyPI's redirect followed
    for r in server.requests:
        assert r["line"].startswith("GET ")
        headers = {k.lower(): v for k, v in r["headers"].items()}
        assert headers["user-agent"] == USER_AGENT
        assert USER_AGENT.startswith("specward/") and USER_AGENT != "specward/"
        assert not {"cookie", "authorization", "proxy-authorization", "referer"} & set(headers)
        assert set(headers) <= {"host", "user-agent", "accept", "accept-encoding", "connection"}
    assert by_path["/lodash"]["headers"]["Accept"] == "application/vnd.npm.install-v1+json"
    assert check.known("pypi", "django") is True


def test_scoped_npm_names_are_encoded_as_the_registry_expects(tmp_path, fake):
    server = fake(npm={"@acme/ui-kit"})
    check = check_for(tmp_path, server)
    got = check.ask_many([("npm", "@acme/ui-kit"), ("npm", "@acme/ui-kitt")])
    assert got == {("npm", "@acme/ui-kit"): True, ("npm", "@acme/ui-kitt"): False}
    assert sorted(server.paths()) == ["/@acme%2fui-kit", "/@acme%2fui-kitt"]


def test_pypi_names_are_normalized_and_invalid_names_never_sent(tmp_path, fake):
    server = fake(pypi={"Flask-Login", "zope.interface"})
    check = check_for(tmp_path, server)
    # what the rule asks: normalized (PEP 503)
    missing = [(Import("flask_login", "*", "flask_login", Span(0, 1)), "pypi", "flask_login"),
               (Import("zope.interface", "*", "zope", Span(2, 3)), "pypi", "Zope.Interface"),
               (Import("x", "*", "x", Span(4, 5)), "npm", "../../etc/passwd"),
               (Import("y", "*", "y", Span(6, 7)), "npm", "has space")]
    pairs = names_to_ask(missing)
    assert pairs == [("pypi", "flask-login"), ("pypi", "zope")]
    # a name not in the registry's form is never sent either, whoever asks
    got = check.ask_many(pairs + [("pypi", "Flask_Login"), ("npm", "../admin"), ("rubygems", "rails")])
    assert got[("pypi", "flask-login")] is True
    assert got[("pypi", "zope")] is False
    assert got[("pypi", "Flask_Login")] is None and got[("npm", "../admin")] is None and got[("rubygems", "rails")] is None
    assert sorted(server.paths()) == ["/pypi/Flask-Login/json", "/pypi/flask-login/json", "/pypi/zope/json"]


def test_proxies_from_the_environment_are_used(tmp_path, fake, monkeypatch):
    proxy = fake(npm={"left-pad"})
    monkeypatch.setenv("http_proxy", proxy.url)
    check = RegistryCheck(tmp_path, npm_url="http://registry.example.invalid", pypi_url="http://pypi.example.invalid",
                          timeout=2.0)
    assert check.ask("npm", "left-pad") is True
    assert proxy.paths() == ["http://registry.example.invalid/left-pad"]


def test_the_users_environment_may_name_other_registries(tmp_path, fake):
    server = fake(npm={"left-pad"}, pypi={"requests"})
    env = {"SPECWARD_NPM_REGISTRY": server.url + "/", "SPECWARD_PYPI_URL": server.url}
    check = RegistryCheck.from_environment(tmp_path, env, timeout=2.0)
    assert check.ask_many([("npm", "left-pad"), ("pypi", "requests")]) == {("npm", "left-pad"): True,
                                                                            ("pypi", "requests"): True}
    assert sorted(server.paths()) == ["/left-pad", "/pypi/requests/json"]
    default = RegistryCheck.from_environment(tmp_path, {})
    assert default.url_for("npm", "@a/b") == "https://registry.npmjs.org/@a%2fb"
    assert default.url_for("pypi", "flask-login") == "https://pypi.org/pypi/flask-login/json"


def test_registry_urls_with_credentials_are_refused(tmp_path):
    with pytest.raises(ValueError):
        RegistryCheck(tmp_path, npm_url="https://user:secret@registry.example")
    with pytest.raises(ValueError):
        RegistryCheck(tmp_path, pypi_url="file:///etc")


# ---------------------------------------------------------------- concurrency
@pytest.mark.parametrize("concurrency", [2, 4])
def test_concurrency_is_bounded(tmp_path, fake, concurrency):
    server = fake(delay=0.3)
    check = check_for(tmp_path, server, concurrency=concurrency)
    names = [("npm", f"made-up-{i}") for i in range(10)]
    got = check.ask_many(names)
    assert set(got.values()) == {False}
    assert len(server.requests) == 10
    assert server.most_active == concurrency


def test_at_most_max_names_are_asked_per_call(tmp_path, fake):
    server = fake()
    check = check_for(tmp_path, server, max_names=3)
    names = [("npm", f"made-up-{i}") for i in range(5)] + [("npm", "made-up-0")]
    got = check.ask_many(names)
    assert [got[n] for n in names[:5]] == [False, False, False, None, None]
    assert len(server.requests) == 3
    got = check.ask_many(names)  # the next call asks the rest
    assert [got[n] for n in names[:5]] == [False] * 5
    assert len(server.requests) == 5


# ---------------------------------------------------------------- the cache
def test_a_cached_answer_is_not_asked_again_even_by_a_new_process(tmp_path, fake):
    server = fake(npm={"express"})
    first = check_for(tmp_path, server)
    first.ask_many([("npm", "express"), ("npm", "expresss")])
    assert len(server.requests) == 2
    first.ask_many([("npm", "express"), ("npm", "expresss")])
    assert len(server.requests) == 2
    second = check_for(tmp_path, server)  # a new run reads the file
    assert second.known("npm", "express") is True and second.known("npm", "expresss") is False
    assert second.ask_many([("npm", "express"), ("npm", "expresss")]) == {
        ("npm", "express"): True, ("npm", "expresss"): False}
    assert len(server.requests) == 2
    doc = cache_doc(tmp_path)
    entry = doc["entries"]["npm:expresss"]
    assert doc["version"] == 1 and entry["exists"] is False
    assert entry["expires"] == pytest.approx(entry["checked"] + 7 * DAY)
    assert (tmp_path / ".specward" / ".gitignore").read_text() == "*\n"
    assert [p.name for p in (tmp_path / ".specward").iterdir() if p.name.endswith(".tmp")] == []


def test_expired_entries_are_asked_again(tmp_path, fake):
    server = fake(npm={"now-exists"})
    now = time.time()
    (tmp_path / ".specward").mkdir()
    entries = {
        "npm:now-exists": {"exists": False, "checked": now - 8 * DAY, "expires": now - DAY},  # expired
        "npm:planted": {"exists": True, "checked": now - 8 * DAY, "expires": now + 100 * DAY},  # past the ttl
        "npm:from-the-future": {"exists": True, "checked": now + 30 * DAY, "expires": now + 37 * DAY},
        "npm:recent": {"exists": False, "checked": now - DAY, "expires": now + 6 * DAY},
    }
    (tmp_path / ".specward" / "registry.json").write_text(json.dumps({"version": 1, "entries": entries}))
    check = check_for(tmp_path, server)
    assert check.known("npm", "recent") is False
    assert [check.known("npm", n) for n in ("now-exists", "planted", "from-the-future")] == [None, None, None]
    got = check.ask_many([("npm", n) for n in ("now-exists", "planted", "from-the-future", "recent")])
    assert got == {("npm", "now-exists"): True, ("npm", "planted"): False, ("npm", "from-the-future"): False,
                   ("npm", "recent"): False}
    assert sorted(server.paths()) == ["/from-the-future", "/now-exists", "/planted"]
    assert cache_doc(tmp_path)["entries"]["npm:now-exists"]["exists"] is True
    # a shorter ttl of this run expires older answers
    short = check_for(tmp_path, server, ttl_days=0.5)
    assert short.known("npm", "recent") is None and short.known("npm", "now-exists") is True


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe", b"[1, 2]", b'{"version": 99, "entries": {}}',
                                     b'{"version": 1, "entries": {"npm:x": {"exists": "no"}}}'])
def test_a_corrupt_cache_starts_empty(tmp_path, fake, caplog, content):
    server = fake(npm={"vue"})
    (tmp_path / ".specward").mkdir()
    (tmp_path / ".specward" / "registry.json").write_bytes(content)
    check = check_for(tmp_path, server)
    with caplog.at_level(logging.WARNING, logger=registry_module.__name__):
        assert check.known("npm", "vue") is None
        assert check.known("npm", "x") is None
    if not content.startswith(b'{"version": 1'):
        assert any("registry cache" in r.getMessage() and "starting empty" in r.getMessage() for r in caplog.records)
    assert check.ask("npm", "vue") is True
    assert cache_doc(tmp_path)["entries"]["npm:vue"]["exists"] is True


def test_answers_of_another_process_are_kept(tmp_path, fake):
    server = fake(npm={"a-pkg", "b-pkg"})
    one, two = check_for(tmp_path, server), check_for(tmp_path, server)
    one.known("npm", "a-pkg"), two.known("npm", "b-pkg")  # both have read the (empty) cache
    one.ask("npm", "a-pkg")
    two.ask("npm", "b-pkg")
    assert set(cache_doc(tmp_path)["entries"]) == {"npm:a-pkg", "npm:b-pkg"}


def test_without_persistence_nothing_is_written(tmp_path, fake):
    server = fake()
    check = check_for(tmp_path, server, persist=False)
    assert check.ask("npm", "ghost-pkg") is False
    assert check.known("npm", "ghost-pkg") is False
    assert not (tmp_path / ".specward").exists()


# ---------------------------------------------------------------- never outside the workspace
def test_a_specward_link_out_of_the_workspace_gets_nothing_written(tmp_path, fake, caplog):
    server = fake()
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (root / ".specward").symlink_to(outside)
    check = check_for(root, server)
    with caplog.at_level(logging.WARNING, logger=registry_module.__name__):
        assert check.ask("npm", "ghost-pkg") is False
    assert list(outside.iterdir()) == []
    assert check.known("npm", "ghost-pkg") is False  # remembered in memory all the same
    assert any("is a link" in r.getMessage() for r in caplog.records)


def test_a_dangling_specward_link_is_not_created_through(tmp_path, fake):
    server = fake()
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    (root / ".specward").symlink_to(outside)
    check_for(root, server).ask("npm", "ghost-pkg")
    assert not outside.exists()


def test_a_registry_json_link_is_neither_read_nor_written_through(tmp_path, fake):
    server = fake(npm={"planted-pkg"})
    root, outside = tmp_path / "repo", tmp_path / "elsewhere.json"
    (root / ".specward").mkdir(parents=True)
    now = time.time()
    planted = json.dumps({"version": 1, "entries": {
        "npm:planted-pkg": {"exists": False, "checked": now, "expires": now + DAY}}})
    outside.write_text(planted)
    (root / ".specward" / "registry.json").symlink_to(outside)
    check = check_for(root, server)
    assert check.known("npm", "planted-pkg") is None  # the link is not read
    assert check.ask("npm", "planted-pkg") is True
    assert outside.read_text() == planted  # nor written through
    written = root / ".specward" / "registry.json"
    assert not written.is_symlink() and json.loads(written.read_text())["entries"]["npm:planted-pkg"]["exists"]


def test_a_specward_folder_inside_the_workspace_reached_through_a_linked_root_is_used(tmp_path, fake):
    server = fake()
    real = tmp_path / "real-repo"
    real.mkdir()
    (tmp_path / "linked-repo").symlink_to(real)
    check_for(tmp_path / "linked-repo", server).ask("npm", "ghost-pkg")
    assert json.loads((real / ".specward" / "registry.json").read_text())["entries"]["npm:ghost-pkg"]["exists"] is False
    assert os.path.isdir(real / ".specward") and not os.path.islink(real / ".specward")
