"""``specward mock CONTRACT [--port N] [--host 127.0.0.1]``: a local HTTP server answering
every endpoint of a SpecDSL or OpenAPI 3.x contract with an example built from its schema
(``analyzers/stages/mock.py``; ``docs/export.md``, "specward mock").

Binds 127.0.0.1 by default; another host is refused unless ``--host`` names it (then a
warning says the mock is reachable from elsewhere). ``--port 0`` (the default) takes a
free port. Prints ``mock: serving CONTRACT on http://HOST:PORT (N endpoints)`` on standard
output once it listens, then one line per request on standard error. Ctrl-C or SIGTERM
stops it with exit 0; an unreadable or invalid contract is exit 2.
"""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from specward.analyzers.lines import LineIndex
from specward.analyzers.stages.mock import Mock, load_mock

from .engine.reading import shown
from .export_cli import read_contract

EXIT_OK, EXIT_USAGE = 0, 2
MAX_BODY = 10_000_000  # a request body larger than this is refused (413)
DEFAULT_HOST = "127.0.0.1"


class _Usage(Exception):
    pass


def add_subparser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("mock", help="serve a contract's endpoints on 127.0.0.1 with examples from its schemas")
    p.add_argument("contract", metavar="CONTRACT", help="a SpecDSL file (*.dsl.json) or an OpenAPI 3.x document")
    p.add_argument("--port", type=int, default=0, help="the port to listen on (0, the default: a free port)")
    p.add_argument("--host", default=None,
                   help="the address to bind (default 127.0.0.1; anything else is reachable from other machines)")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        mock = _load(args.contract)
        host = _host(args.host)
        if not 0 <= args.port <= 65535:
            raise _Usage(f"--port {args.port}: not a port (0-65535)")
        try:
            server = _Server((host, args.port), _Handler)
        except OSError as exc:
            raise _Usage(f"cannot listen on {host}:{args.port}: {exc.strerror or exc}") from None
    except _Usage as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    server.mock = mock
    server.daemon_threads = True
    return _serve(server, args.contract, mock)


def _load(contract: str) -> Mock:
    path = Path(contract)
    name = shown(contract)
    text = read_contract(contract, _Usage)
    loaded = load_mock(path.name, text)
    lines = LineIndex(text.encode("utf-8", "surrogatepass"))
    for f in (*loaded.findings, *loaded.warnings):
        line, col = lines.position(f.span.start)
        print(f"{name}:{line + 1}:{col + 1}: {f.severity}[{f.code}] {shown(f.message)}", file=sys.stderr)
    if loaded.mock is None:
        raise _Usage(f"{name}: {shown(loaded.error)}: nothing served")
    if not loaded.mock.routes:
        raise _Usage(f"{name}: the contract declares no endpoint: nothing to serve")
    return loaded.mock


def _host(given: str | None) -> str:
    if given is None:
        return DEFAULT_HOST
    host = given.strip().strip("[]")
    if not host:
        raise _Usage("--host: empty")
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host.lower() == "localhost"
    if not loopback:
        print(f"specward: warning: --host {shown(host)}: the mock is reachable from other machines on that "
              "address, and answers anyone", file=sys.stderr)
    return host


class _Server(ThreadingHTTPServer):
    mock: Mock

    def __init__(self, address, handler) -> None:
        host = address[0]
        if ":" in host:  # an IPv6 address
            import socket

            self.address_family = socket.AF_INET6
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "specward-mock"
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version

    def _answer(self) -> None:
        length = self.headers.get("Content-Length")
        if length is not None:
            try:
                size = int(length)
            except ValueError:
                size = -1
            if size < 0 or size > MAX_BODY:
                self._send(413 if size > MAX_BODY else 400, (("Content-Type", "text/plain"),),
                           b"bad or too large Content-Length\n", close=True)
                return
            remaining = size
            while remaining > 0:  # read and ignored
                chunk = self.rfile.read(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
        elif "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._send(411, (("Content-Type", "text/plain"),), b"send a Content-Length\n", close=True)
            return
        parts = urlsplit(self.path)
        try:
            status, headers, body = self.server.mock.respond(self.command, parts.path or "/", parts.query,
                                                             list(self.headers.items()))
        except Exception as exc:  # noqa: BLE001 - one bad request never stops the mock
            print(f"specward: mock: internal error on {self.command} {shown(self.path)}: {exc!r}", file=sys.stderr)
            status, headers, body = 500, (("Content-Type", "text/plain"),), b"mock internal error\n"
        self._send(status, headers, body)

    def _send(self, status: int, headers, body: bytes, close: bool = False) -> None:
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if status not in (204, 304) and not 100 <= status < 200:
            self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD" and status not in (204, 304):
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_TRACE = _answer

    def log_request(self, code="-", size="-") -> None:
        print(f"mock: {self.command} {shown(self.path)} -> {code}", file=sys.stderr, flush=True)

    def log_message(self, format, *args) -> None:  # errors of http.server itself (bad request lines)
        print(f"mock: {self.address_string()} {shown(format % args)}", file=sys.stderr, flush=True)


def _serve(server: _Server, contract: str, mock: Mock) -> int:
    host, port = server.server_address[:2]
    shown_host = f"[{host}]" if ":" in host else host
    stop = threading.Event()

    def on_signal(signum, frame) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    print(f"mock: serving {shown(contract)} on http://{shown_host}:{port} ({len(mock.routes)} endpoints)", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.shutdown()
        server.server_close()
    print("mock: stopped", file=sys.stderr, flush=True)
    return EXIT_OK
