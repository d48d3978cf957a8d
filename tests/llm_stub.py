"""A stand-in LLM provider for tests: a real HTTP server on 127.0.0.1 (standard library,
an ephemeral port) that speaks the OpenAI chat-completions protocol, so litellm reaches it
as it reaches any OpenAI-compatible provider (``openai/<name>`` with an ``api_base``). No
in-process mocking of litellm.

``POST /v1/chat/completions`` takes the next scripted :class:`Answer` (in order; none left
is a 500) and replies with a JSON completion, or with server-sent events when the request
says ``"stream": true`` (``data: {chunk}`` lines, then ``data: [DONE]``). Every request's
JSON body and headers are recorded in :attr:`LLMStub.requests`.

    with LLMStub(["first answer", Answer("slow", chunk_delay=0.5)]) as stub:
        env = stub.env()  # SPECWARD_MODEL, SPECWARD_API_BASE, SPECWARD_API_KEY
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TEST_KEY = "sk-test-stub-3b9d7c21e0f64a58"


@dataclass
class Answer:
    """One scripted reply. ``delay``: seconds before the reply starts; ``chunk_delay``:
    seconds between streamed chunks; ``chunk_size``: characters per chunk; ``status``: an
    HTTP error status instead of an answer (the error message then repeats the request's
    ``Authorization`` header when ``echo_auth``, as careless providers do)."""

    text: str = ""
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunk_size: int = 16
    status: int = 200
    echo_auth: bool = False


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    def text(self) -> str:
        """Every message's content, joined: what the model was told."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


class LLMStub:
    def __init__(self, answers: list[str | Answer], model: str = "test-model"):
        self.answers = [a if isinstance(a, Answer) else Answer(a) for a in answers]
        self.model = model
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with stub._lock:
                    stub.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    answer = stub.answers.pop(0) if stub.answers else None
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._json(404, {"error": {"message": f"no such path {self.path}", "type": "not_found"}})
                if answer is None:
                    return self._json(500, {"error": {"message": "the stub has no scripted answer left",
                                                      "type": "server_error"}})
                if answer.delay:
                    time.sleep(answer.delay)
                if answer.status != 200:
                    msg = "scripted failure"
                    if answer.echo_auth:
                        msg += f" for Authorization: {self.headers.get('Authorization')}"
                    return self._json(answer.status, {"error": {"message": msg, "type": "invalid_request_error",
                                                                "code": "scripted"}})
                try:
                    if body.get("stream"):
                        self._stream(answer)
                    else:
                        self._json(200, stub._completion(answer.text))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away (a cancelled request)

            def _json(self, status: int, obj: dict) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, answer: Answer) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                text = answer.text
                pieces = [text[i:i + answer.chunk_size] for i in range(0, len(text), answer.chunk_size)] or [""]
                for n, piece in enumerate(pieces):
                    if n and answer.chunk_delay:
                        time.sleep(answer.chunk_delay)
                    delta = {"content": piece} if n else {"role": "assistant", "content": piece}
                    self._event(stub._chunk(delta, None))
                self._event(stub._chunk({}, "stop"))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, obj: dict) -> None:
                self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    # ------------------------------------------------------------------ protocol
    def _completion(self, text: str) -> dict:
        return {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": self.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def _chunk(self, delta: dict, finish: str | None) -> dict:
        return {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    # ------------------------------------------------------------------ for tests
    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def env(self, key: str = TEST_KEY) -> dict[str, str]:
        """The environment variables that point specward at this stub."""
        return {"SPECWARD_MODEL": f"openai/{self.model}", "SPECWARD_API_BASE": self.api_base,
                "SPECWARD_API_KEY": key}

    def start(self) -> LLMStub:
        self._thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

    def __enter__(self) -> LLMStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
