"""The guarded stdio transport: how frames are read, how each message gets its one reply,
and the watch on the editor's process.

pygls' own loop (``pygls.io_.run_async``) trusts its input: a huge ``Content-Length``
makes it allocate (MemoryError/OverflowError, the server exits), a short body blocks it
for ever, a request whose params do not structure gets no reply, invalid JSON becomes a
``window/showMessage``. Here instead:

- **Frames** are read by a thread of their own (``FrameReader``) from the raw file
  descriptor. A ``Content-Length`` above ``max_message_bytes`` is refused (an
  ``InvalidRequest`` reply with id null) and its body skipped: exactly that many bytes, or
  up to the next header, whichever comes first. A body that stops arriving (no byte for
  ``body_timeout`` seconds) is dropped. A body that is not a JSON value (or not UTF-8) gets
  a ``ParseError`` reply with id null. When a ``Content-Length`` overstates its body, the
  next frames would be swallowed: a body that is one JSON value followed by the next
  frame's header is read as that value, and the rest is read again as frames; a body that
  is garbage but holds a header is read again from that header. Garbage between frames is
  skipped up to the next header. (A header, ``Content-Length: <digits>`` and a line end,
  cannot occur inside valid JSON: raw line ends are not allowed in JSON strings.)
- **Messages** (``SpecwardProtocol.receive``, on the event loop): every request (a message
  with a method and an id) gets exactly one reply: its result, or an error:
  ``InvalidRequest`` (a malformed envelope, a second ``initialize``, anything after
  ``shutdown``, a notification's method asked as a request), ``MethodNotFound``,
  ``InvalidParams`` (params that do not structure into the method's type),
  ``ServerNotInitialized`` (-32002, before ``initialize``), ``InternalError`` (the handler
  raised: the reply says which exception type, the log has the traceback),
  ``RequestCancelled``. A notification never gets a reply; one that fails is a log line.
  Notifications before ``initialize`` are dropped, except ``exit``.
- **The editor's process** (``processId`` of ``initialize``): polled once a second
  (``watch_process``); when it is gone the server exits, pipes open or not.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import re
import select
import sys
import threading
import time
from typing import Any, Callable

import attrs
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import LanguageServerProtocol, lsp_method

log = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024
DEFAULT_BODY_TIMEOUT_S = 30.0
MAX_HEADER_LINE = 8192  # a header line longer than this is garbage
CHUNK = 1 << 20

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

_CL_LINE = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*", re.I)
_ANY_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:[^\r\n]*")
_CL_NAME = re.compile(rb"content-length[ \t]*:", re.I)
_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n", re.I)  # where frames resume
_CL_WORD = b"content-length"
_PARTIAL_REST = re.compile(rb"[ \t]*(?::[ \t]*\d*[ \t]*\r?)?")


class _Closed(Exception):
    """The input ended."""


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def _partial_header_at(data: bytes) -> int | None:
    """Where a header cut short by the end of ``data`` starts in its last bytes, if one does."""
    start = max(0, len(data) - 64)
    for i in range(start, len(data)):
        if data[i] not in b"cC":
            continue
        tail = data[i:]
        if len(tail) <= len(_CL_WORD):
            if _CL_WORD.startswith(tail.lower()):
                return i
        elif tail[:len(_CL_WORD)].lower() == _CL_WORD and _PARTIAL_REST.fullmatch(tail, len(_CL_WORD)):
            return i
    return None


class FrameReader:
    """Reads frames from ``fd`` (on its own thread) and hands each JSON value to
    ``deliver``; ``reject(code, message)`` asks for an error reply with id null; ``closed()``
    is called once the input ends."""

    def __init__(self, fd: int, deliver: Callable[[Any], None], reject: Callable[[int, str], None],
                 closed: Callable[[], None], max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 body_timeout: float = DEFAULT_BODY_TIMEOUT_S) -> None:
        self.fd = fd
        self.deliver, self.reject, self.closed = deliver, reject, closed
        self.max_bytes = max_message_bytes
        self.body_timeout = body_timeout
        self.buf = bytearray()
        self.pos = 0
        self.stats = {"frames": 0, "refused": 0, "parse_errors": 0, "timeouts": 0, "garbage_bytes": 0, "recovered": 0}

    # ---------------------------------------------------------------- bytes
    def _avail(self) -> int:
        return len(self.buf) - self.pos

    def _fill(self, timeout: float | None = None) -> bool:
        """Read what is there (waiting at most ``timeout`` seconds when given); False when
        nothing came in time. Raises _Closed at the end of the input."""
        if self.pos and (self.pos > CHUNK or self.pos * 2 > len(self.buf)):
            del self.buf[:self.pos]
            self.pos = 0
        if timeout is not None:
            try:
                ready, _, _ = select.select([self.fd], [], [], max(timeout, 0.0))
            except (OSError, ValueError):
                ready = [self.fd]  # not selectable: read and block
            if not ready:
                return False
        try:
            data = os.read(self.fd, CHUNK)
        except InterruptedError:
            return True
        except OSError as exc:
            log.error("reading the client's input failed: %s", exc)
            raise _Closed() from None
        if not data:
            raise _Closed()
        self.buf += data
        return True

    def _take(self, n: int) -> bytes:
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def _refeed(self, data: bytes) -> None:
        """Read ``data`` again, before what is still unread."""
        if data:
            self.stats["recovered"] += 1
            self.buf[self.pos:self.pos] = data

    def _garbage(self, n: int, why: str) -> None:
        if n > 0:
            self.stats["garbage_bytes"] += n
            log.warning("dropped %d byte(s) of input that are not a frame (%s)", n, why)

    # ---------------------------------------------------------------- frames
    def run(self) -> None:
        try:
            while True:
                length, refused = self._headers()
                if refused is not None:
                    self._refuse(refused)
                    continue
                body, complete = self._body(length)
                self.stats["frames"] += 1
                self._handle(body, complete)
        except _Closed:
            log.info("the client's input closed")
        except Exception:  # noqa: BLE001 - a reader bug must not leave the server deaf and alive
            log.exception("the frame reader failed")
        finally:
            self.closed()

    def _headers(self) -> tuple[int, bytes | None]:
        """Read one header block: (content length, None), or (0, digits) for a length above
        the limit."""
        length: int | None = None
        refused: bytes | None = None
        seen = False
        while True:
            nl = self.buf.find(b"\n", self.pos)
            if nl < 0:
                if self._avail() > MAX_HEADER_LINE:
                    self._drop_long_line()
                    length, refused, seen = None, None, False
                self._fill()
                continue
            line = bytes(self.buf[self.pos:nl])
            m = _CL_NAME.search(line, 1)
            if m is not None:  # garbage glued to a header: the header starts a new block
                self._garbage(m.start(), "before a header")
                self.pos += m.start()
                length, refused, seen = None, None, False
                continue
            self.pos = nl + 1
            stripped = line.strip(b" \t\r")
            if not stripped:
                if length is not None or refused is not None:
                    return (length or 0), refused
                if seen:
                    log.warning("dropped a header block without Content-Length")
                    seen = False
                continue
            cl = _CL_LINE.fullmatch(stripped)
            if cl is not None:
                digits = cl.group(1)
                significant = digits.lstrip(b"0") or b"0"
                if len(significant) > 19 or int(significant) > self.max_bytes:
                    refused, length = significant, None
                else:
                    length, refused = int(significant), None
                seen = True
            elif _ANY_HEADER.fullmatch(stripped) and len(line) <= MAX_HEADER_LINE:
                seen = True  # Content-Type and the like
            else:
                self._garbage(len(line) + 1, "not a header")
                length, refused, seen = None, None, False

    def _drop_long_line(self) -> None:
        """A "line" longer than any header: keep only a header that may start near its end."""
        end = len(self.buf)
        last = None
        for m in _CL_NAME.finditer(self.buf, self.pos, end):
            last = m.start()
        if last is not None and last > self.pos and end - last <= MAX_HEADER_LINE:
            cut = last
        else:
            cut = max(self.pos, end - 64)
        self._garbage(cut - self.pos, "a line longer than any header")
        self.pos = cut

    def _refuse(self, digits: bytes) -> None:
        """A Content-Length above the limit: say so, and skip that many bytes or up to the
        next header, whichever comes first."""
        self.stats["refused"] += 1
        shown = digits.decode() if len(digits) <= 20 else f"a {len(digits)}-digit number of"
        message = (f"Invalid request: a message of {shown} bytes exceeds the limit of {self.max_bytes} bytes "
                   "(specward serve --max-message-bytes); dropped")
        log.error("%s", message)
        self.reject(INVALID_REQUEST, message)
        remaining = int(digits) if len(digits) <= 30 else None
        skipped = 0
        while True:
            avail = self._avail()
            m = _HEADER.search(self.buf, self.pos)
            at = m.start() - self.pos if m else None
            if remaining is not None and remaining - skipped <= avail and (at is None or remaining - skipped <= at):
                self.pos += remaining - skipped
                self._garbage(remaining, "the body of a refused message")
                return
            if at is not None:
                self.pos += at
                self._garbage(skipped + at, "the body of a refused message, up to the next header")
                return
            drop = max(0, avail - 64)
            self.pos += drop
            skipped += drop
            self._fill()

    def _body(self, length: int) -> tuple[bytes, bool]:
        """The body: (bytes, True), or what came before the body stopped arriving (False)."""
        while self._avail() < length:
            if not self._fill(self.body_timeout):
                self.stats["timeouts"] += 1
                got = self._avail()
                log.error("a message body stopped arriving (%d of %d bytes in %.1f s); dropped",
                          got, length, self.body_timeout)
                return self._take(got), False
        return self._take(length), True

    def _handle(self, body: bytes, complete: bool) -> None:
        try:
            value = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
        except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
            pass
        else:
            # (a body that stopped arriving but is a whole JSON value is taken as well)
            self.deliver(value)
            return
        if self._recover_prefix(body):
            return
        self.stats["parse_errors"] += 1
        why = "the body stopped arriving" if not complete else "not JSON or not UTF-8"
        log.error("dropped a message body of %d bytes: %s", len(body), why)
        self.reject(PARSE_ERROR, f"Parse error: {why}; message dropped")
        m = _HEADER.search(body, 1)
        at = m.start() if m else _partial_header_at(body)
        if at:
            self._refeed(body[at:])

    def _recover_prefix(self, body: bytes) -> bool:
        """A body that is one JSON value followed by the next frame's header (its
        Content-Length overstated it): read the value, then the rest as frames."""
        text = body.decode("utf-8", "surrogateescape")
        start = len(text) - len(text.lstrip())
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            return False
        try:
            head = text[:end].encode("utf-8")  # fails on escaped (invalid) bytes
        except UnicodeEncodeError:
            return False
        rest = body[len(head):].lstrip(b" \t\r\n")
        if rest and not _HEADER.match(rest) and _partial_header_at(rest) != 0:
            return False
        self.deliver(value)
        self._refeed(rest)
        return True


# ============================================================== the protocol
def _has_id(message_type) -> bool:
    try:
        return "id" in attrs.fields_dict(message_type)
    except (TypeError, attrs.exceptions.NotAnAttrsClassError):
        return False


def _params_problem(method: str, exc: BaseException) -> str:
    """A short description of why params did not structure (no values, no traceback)."""
    try:
        from cattrs import transform_error

        problems = transform_error(exc, path="$")
    except Exception:  # noqa: BLE001
        problems = [type(exc).__name__]
    shown = "; ".join(problems[:3])[:300]
    return f"Invalid params for {method[:100]}: {shown}"


class SpecwardProtocol(LanguageServerProtocol):
    """pygls' protocol, with messages taken from ``FrameReader`` (``receive``) and every
    request answered exactly once."""

    def __init__(self, server, converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self._write_lock = threading.Lock()
        self._out = None

    # ---------------------------------------------------------------- input
    def receive(self, data: Any) -> None:
        """One JSON value from the client (on the event loop)."""
        try:
            self._receive(data)
        except Exception:  # noqa: BLE001 - one message never stops the server
            log.exception("handling a message failed")

    def _receive(self, data: Any) -> None:
        if getattr(self._server, "terminating", False):
            return
        if not isinstance(data, dict):
            self.reply_error(None, INVALID_REQUEST, "Invalid request: expected a JSON object (batches are not supported)")
            return
        has_id = "id" in data
        rid = data.get("id")
        good_id = type(rid) in (int, str)
        echo = rid if good_id else None
        if "method" in data:
            method = data["method"]
            if data.get("jsonrpc") != "2.0":
                self.reply_error(echo, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
            elif not isinstance(method, str):
                self.reply_error(echo, INVALID_REQUEST, 'Invalid request: "method" must be a string')
            elif has_id and not good_id:
                self.reply_error(None, INVALID_REQUEST, 'Invalid request: "id" must be an integer or a string')
            elif has_id:
                self._request(rid, method, data)
            else:
                self._notification(method, data)
        elif has_id and ("result" in data or "error" in data):
            if data.get("jsonrpc") != "2.0" or not good_id:
                log.warning("ignored a malformed response")
                return
            self._response(data)
        else:
            self.reply_error(echo, INVALID_REQUEST, "Invalid request: neither a request, a notification nor a response")

    def _known(self, method: str) -> bool:
        return method in self.fm.features or method in self.fm.builtin_features

    def _request(self, rid, method: str, data: dict) -> None:
        if not self.initialize_received and method != lsp.INITIALIZE:
            self.reply_error(rid, SERVER_NOT_INITIALIZED, "Server not initialized: initialize comes first")
            return
        if self._shutdown:
            self.reply_error(rid, INVALID_REQUEST, "Invalid request: the server is shutting down")
            return
        if method == lsp.INITIALIZE and self.initialize_received:
            self.reply_error(rid, INVALID_REQUEST, "Invalid request: the server is already initialized")
            return
        if not self._known(method):
            self.reply_error(rid, METHOD_NOT_FOUND, f"Method not found: {method[:100]}")
            return
        message_type = self.get_message_type(method)
        if message_type is not None and not _has_id(message_type):
            self.reply_error(rid, INVALID_REQUEST, f"Invalid request: {method} is a notification")
            return
        try:
            message = self._converter.structure(data, message_type or JsonRPCRequestMessage)
        except Exception as exc:  # noqa: BLE001
            log.warning("request %r (%s): params do not structure", rid, method)
            self.reply_error(rid, INVALID_PARAMS, _params_problem(method, exc))
            return
        if method == lsp.INITIALIZE:
            self.initialize_received = True
        ctx = contextvars.copy_context()
        ctx.run(self._handle_request, message.id, message.method, message.params)

    def _notification(self, method: str, data: dict) -> None:
        if method == lsp.EXIT:
            self._server.terminate(0 if self._shutdown else 1, "exit notification")
            return
        if not self.initialize_received:
            log.info("dropped notification %s: not initialized yet", method[:100])
            return
        if self._shutdown:
            log.info("dropped notification %s: shutting down", method[:100])
            return
        if method == lsp.CANCEL_REQUEST:
            params = data.get("params")
            if isinstance(params, dict) and type(params.get("id")) in (int, str):
                self._handle_cancel_notification(params["id"])
            else:
                log.warning("ignored a malformed $/cancelRequest")
            return
        if not self._known(method):
            log.log(logging.DEBUG if method.startswith("$/") else logging.WARNING,
                    "ignored notification for unknown method %r", method[:100])
            return
        message_type = self.get_message_type(method)
        if message_type is not None and _has_id(message_type):
            log.warning("ignored %s sent as a notification (it is a request)", method[:100])
            return
        try:
            message = self._converter.structure(data, message_type or JsonRPCNotification)
        except Exception:  # noqa: BLE001
            log.warning("ignored notification %s: params do not structure", method[:100])
            return
        ctx = contextvars.copy_context()
        ctx.run(self._handle_notification, message.method, message.params)

    def _response(self, data: dict) -> None:
        rid = data["id"]
        try:
            if "error" in data:
                message = self._converter.structure(data, lsp.ResponseErrorMessage)
                self._handle_response(rid, None, message.error)
            else:
                response_type = self._result_types.pop(rid, None) or JsonRPCResponseMessage
                message = self._converter.structure(data, response_type)
                self._handle_response(rid, message.result)
        except Exception:  # noqa: BLE001 - whoever waits for it gets an error, not silence
            log.warning("a response from the client (id %r) does not structure", rid)
            future = self._request_futures.pop(rid, None)
            if future is not None and not future.done():
                future.set_exception(JsonRpcException(message="malformed response from the client", code=INTERNAL_ERROR))

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls keeps the future of every handler it runs in ``_request_futures``, and only
        a request's reply takes it out again: the futures of notifications and of the steps
        of its generator handlers (``didChange`` is one) stayed for ever, about 3 KB per
        keystroke (found by tests/reliability/test_soak.py). Here they go when they end."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if getattr(callback, "func", None) == self._send_handler_result:
            return  # a request: its reply removes it
        future = self._request_futures.get(msg_id)
        if future is not None:
            def forget(done, futures=self._request_futures, key=msg_id) -> None:
                if futures.get(key) is done:
                    del futures[key]

            future.add_done_callback(forget)

    # ---------------------------------------------------------------- replies
    def _send_handler_result(self, future, *, msg_id) -> None:
        self._request_futures.pop(msg_id, None)
        try:
            if future.cancelled():
                self.reply_error(msg_id, REQUEST_CANCELLED, "Request cancelled")
                return
            exc = future.exception()
            if exc is None:
                self._send_response(msg_id, result=future.result())
            elif isinstance(exc, JsonRpcException):
                self.reply_error(msg_id, exc.code, exc.message)
            else:
                log.error("request %r failed", msg_id, exc_info=exc)
                self.reply_error(msg_id, INTERNAL_ERROR,
                                 f"Internal error: {type(exc).__name__} (the server log has the details)")
        except Exception:  # noqa: BLE001
            log.exception("replying to %r failed", msg_id)
            self.reply_error(msg_id, INTERNAL_ERROR, "Internal error")

    def _check_handler_result(self, future) -> None:
        if not future.cancelled() and (exc := future.exception()) is not None:
            log.error("a notification handler failed: %s", type(exc).__name__, exc_info=exc)

    def _send_response(self, msg_id, result=None, error=None) -> None:
        if error is not None:
            self.reply_error(msg_id, error.code, error.message)
            return
        response = JsonRPCResponseMessage(id=msg_id, result=result, jsonrpc=self.VERSION)
        try:
            body = json.dumps(response, default=self._serialize_message)
        except Exception:  # noqa: BLE001
            log.exception("the result of %r could not be encoded", msg_id)
            self.reply_error(msg_id, INTERNAL_ERROR, "Internal error: the result could not be encoded")
            return
        self._write(body)

    def reply_error(self, msg_id, code: int, message: str) -> None:
        """An error reply (``msg_id`` None: id null). No data, a short message."""
        message = str(message)
        if len(message) > 500:
            message = message[:497] + "..."
        self._write(json.dumps({"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": int(code), "message": message}}))

    # ---------------------------------------------------------------- output
    def set_output(self, out) -> None:
        """Write frames to the binary stream ``out`` (stdout)."""
        self._out = out
        self.writer = out  # (pygls checks that a writer is set)
        self._include_headers = True

    def _send_data(self, data: Any) -> None:
        if not data:
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception:  # noqa: BLE001
            log.exception("a message to the client could not be encoded")
            return
        self._write(body)

    def _write(self, body: str) -> None:
        payload = body.encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(payload) + payload
        out = self._out
        if out is None:
            log.error("no output to write to")
            return
        with self._write_lock:
            try:
                out.write(data)
                out.flush()
            except (OSError, ValueError) as exc:  # BrokenPipeError, closed
                lost = exc
            else:
                return
        log.error("the client's output is gone (%s)", type(lost).__name__)
        self._server.terminate(0 if self._shutdown else 1, "output closed")

    # ---------------------------------------------------------------- lifecycle
    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls' shutdown, iterating over a copy of the pending requests (cancelling one
        may remove it from the dict)."""
        if (user_handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None


# ============================================================== the editor's process
def _start_time(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields and fields[0] == b"Z":
        return b"zombie"
    return fields[19] if len(fields) > 19 else None


def process_alive(pid: int, start_time: bytes | None = None) -> bool:
    """Whether ``pid`` still runs (and, with ``/proc``, is the same process: a zombie or a
    reused pid is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except (OSError, OverflowError, ValueError):
        return False
    now = _start_time(pid)
    if now == b"zombie":
        return False
    return start_time is None or now is None or now == start_time


def watch_process(pid: int, on_gone: Callable[[], None], interval: float = 1.0) -> threading.Thread | None:
    """Call ``on_gone`` (on a daemon thread) once process ``pid`` has ended. A pid that
    does not run when the watch starts is not watched (a client in another pid namespace,
    a container, names a pid this process cannot see): None."""
    start = _start_time(pid)
    if start == b"zombie" or not process_alive(pid):
        log.warning("processId %d names no running process here: not watched", pid)
        return None

    def watch() -> None:
        while process_alive(pid, start):
            time.sleep(interval)
        log.warning("the editor's process %d is gone", pid)
        on_gone()

    thread = threading.Thread(target=watch, name="specward-parent-watch", daemon=True)
    thread.start()
    return thread


# ============================================================== serving
def claim_stdout():
    """The process' stdout for the protocol alone: its file descriptor duplicated for the
    frames, then fd 1 and ``sys.stdout`` pointed at stderr, so that nothing else — a
    library's log handler, a ``print``, a child process inheriting fd 1 — can write into
    the JSON-RPC channel (litellm's INFO line once broke the editor's connection)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        channel = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no separate stderr to point at: keep stdout as it is
        return sys.stdout.buffer
    sys.stdout = sys.stderr
    return os.fdopen(channel, "wb", buffering=0)


def serve_stdio(server, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                body_timeout: float = DEFAULT_BODY_TIMEOUT_S, stdin=None, stdout=None) -> None:
    """Serve over stdin/stdout until the process exits (``server.terminate``)."""
    fd = (stdin or sys.stdin.buffer).fileno()
    out = stdout or claim_stdout()
    protocol: SpecwardProtocol = server.protocol
    protocol.set_output(out)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server._stop_event = threading.Event()

        def on_loop(fn, *args) -> None:
            try:
                loop.call_soon_threadsafe(fn, *args)
            except RuntimeError:  # the loop is gone: nothing can answer any more
                server.terminate(1, "event loop closed")

        def closed() -> None:
            on_loop(lambda: server.terminate(0 if protocol._shutdown else 1, "stdin closed"))

        reader = FrameReader(fd, lambda value: on_loop(protocol.receive, value),
                             lambda code, message: on_loop(protocol.reply_error, None, code, message),
                             closed, max_message_bytes, body_timeout)
        threading.Thread(target=reader.run, name="specward-stdin", daemon=True).start()
        await asyncio.Event().wait()  # until terminate() ends the process

    try:
        asyncio.run(main())
    finally:
        server.terminate(0 if protocol._shutdown else 1, "event loop ended")
