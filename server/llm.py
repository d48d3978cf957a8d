"""The one place specward talks to a model (issue 15, ``docs/stages.md``): configuration
and :func:`complete`, through litellm (the optional extra ``specward[llm]``).

Configuration, first found wins, key by key:

1. the environment: ``SPECWARD_MODEL`` (a litellm model name, ``openai/gpt-4o-mini``),
   ``SPECWARD_API_BASE``, ``SPECWARD_API_KEY`` (an empty value counts as unset);
2. the user's settings, ``$XDG_CONFIG_HOME/specward/settings.toml`` (by default
   ``~/.config/specward/settings.toml``), top-level keys ``model``, ``api_base``,
   ``api_key``;
3. for the model only, a name the workspace's configuration gives (``workspace_model``:
   the caller passes it, and passes nothing for an untrusted workspace). A workspace never
   supplies an API base or a key: a repository would otherwise send the user's key, or
   the prompts, wherever it likes.

Without an API key litellm uses the provider's own variable (``OPENAI_API_KEY``, ...).

Keys are never logged, never part of an exception's message (any text from litellm or the
provider has the key replaced by ``***`` before it is shown, and the original exception is
not chained) and never written anywhere. litellm is imported lazily, inside
:func:`complete`, never when this module is imported (the plain server and an untrusted
workspace never load it), with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that importing it
fetches nothing.

:func:`complete` runs the request in a worker thread and waits for it in short steps; when
``cancel`` is set it stops waiting at once (within a poll interval, 50 ms), tells the worker
to stop reading and close the stream, and raises :class:`LLMCancelled`. The caller then
writes nothing.
"""

from __future__ import annotations

import os
import threading
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_MODEL, ENV_API_BASE, ENV_API_KEY = "SPECWARD_MODEL", "SPECWARD_API_BASE", "SPECWARD_API_KEY"
SETTINGS_KEYS = ("model", "api_base", "api_key")
DEFAULT_TIMEOUT = 300.0
_POLL = 0.05
_MAX_MESSAGE = 600  # longest provider text an error message quotes

HOW_TO_CONFIGURE = (
    "set SPECWARD_MODEL to a litellm model name (e.g. openai/gpt-4o-mini), and SPECWARD_API_BASE and "
    "SPECWARD_API_KEY as the provider needs, in the environment or as model, api_base and api_key in "
    "{settings}")
HOW_TO_INSTALL = 'install the LLM extra: pip install "specward[llm] @ git+https://github.com/specward/specward" (docs/install.md)'


class LLMError(Exception):
    """A model could not be asked or did not answer. The message is safe to show: it never
    contains the API key."""


class LLMNotConfigured(LLMError):
    """No model configured, or litellm not installed: the message says how to fix it."""


class LLMCancelled(LLMError):
    """The caller set ``cancel`` before the answer was complete."""


def settings_path(env: dict[str, str] | None = None) -> Path:
    """The user-level settings file: ``$XDG_CONFIG_HOME/specward/settings.toml``, by default
    under ``~/.config``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "specward" / "settings.toml"


@dataclass(frozen=True)
class LLMConfig:
    """Where the model is. ``api_key`` is left out of ``repr`` so that no log or traceback
    shows it; ``sources`` says where each value came from (``env``, ``settings``,
    ``workspace``)."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    sources: tuple[tuple[str, str], ...] = ()


def _read_settings(path: Path) -> dict[str, str]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise LLMError(f"{path}: cannot read the settings: {exc.strerror or exc}") from None
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        # tomllib's messages give a position, never the text (which may hold the key)
        raise LLMError(f"{path}: not valid TOML: {exc}") from None
    out = {}
    for key in SETTINGS_KEYS:
        value = table.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise LLMError(f"{path}: `{key}` must be a string")
        if value.strip():
            out[key] = value.strip()
    return out


def load_config(env: dict[str, str] | None = None, workspace_model: str | None = None) -> LLMConfig:
    """The configuration (see the module's docstring), or :class:`LLMNotConfigured` when no
    model is named anywhere, :class:`LLMError` for unreadable settings."""
    env = os.environ if env is None else env
    path = settings_path(env)
    values: dict[str, str] = {}
    sources: dict[str, str] = {}
    from_env = {"model": env.get(ENV_MODEL), "api_base": env.get(ENV_API_BASE), "api_key": env.get(ENV_API_KEY)}
    for key, value in from_env.items():
        if value and value.strip():
            values[key], sources[key] = value.strip(), "env"
    if len(values) < len(SETTINGS_KEYS):
        for key, value in _read_settings(path).items():
            if key not in values:
                values[key], sources[key] = value, "settings"
    if "model" not in values and workspace_model and workspace_model.strip():
        values["model"], sources["model"] = workspace_model.strip(), "workspace"
    if "model" not in values:
        raise LLMNotConfigured("no model configured: " + HOW_TO_CONFIGURE.format(settings=path)
                               + "; the LLM extra must be installed too: " + HOW_TO_INSTALL.split(': ', 1)[1])
    return LLMConfig(values["model"], values.get("api_base"), values.get("api_key"),
                     tuple(sorted(sources.items())))


def redact(text: str, secret: str | None) -> str:
    """``text`` without ``secret`` (nor its longer fragments) and cut to a readable length."""
    text = text[:20 * _MAX_MESSAGE]
    if secret:
        text = text.replace(secret, "***")
        if len(secret) >= 12:  # a provider may echo part of it ("sk-test-...abcd")
            for size in range(len(secret) - 1, 7, -1):
                for start in range(0, len(secret) - size + 1):
                    piece = secret[start:start + size]
                    if piece in text:
                        text = text.replace(piece, "***")
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."


def _import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # importing it fetches nothing
    try:
        import litellm  # noqa: PLC0415 - lazily, never at module import
    except ImportError:
        raise LLMNotConfigured(f"litellm is not installed: {HOW_TO_INSTALL}") from None
    litellm.suppress_debug_info = True
    _keep_stdout_clean()
    return litellm


def _keep_stdout_clean() -> None:
    """litellm's own log handler writes records below WARNING to *stdout*, which is the
    language server's JSON-RPC channel (one INFO line per request broke the editor's
    connection): its loggers are held at WARNING and their handlers write to stderr only."""
    import logging  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import types  # noqa: PLC0415

    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.WARNING:
            logger.setLevel(logging.WARNING)
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                handler.setStream(sys.stderr)
                handler.emit = types.MethodType(logging.StreamHandler.emit, handler)  # no routing back to stdout


def _content(obj: Any, kind: str) -> str:
    try:
        part = getattr(obj.choices[0], kind)
        return part.content or "" if part is not None else ""
    except (AttributeError, IndexError, TypeError):
        return ""


class _Worker(threading.Thread):
    def __init__(self, call: Callable[[], Any], stream: bool):
        super().__init__(name="specward-llm", daemon=True)
        self.call, self.stream = call, stream
        self.parts: list[str] = []
        self.chars = 0
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.response: Any = None

    def run(self) -> None:
        try:
            self.response = self.call()
            if self.stop.is_set():
                return
            if not self.stream:
                text = _content(self.response, "message")
                self.parts.append(text)
                self.chars = len(text)
                return
            for chunk in self.response:
                if self.stop.is_set():
                    break
                piece = _content(chunk, "delta")
                if piece:
                    self.parts.append(piece)
                    self.chars += len(piece)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            self.error = exc
        finally:
            if self.stop.is_set():
                close_stream(self.response)


def close_stream(response: Any) -> None:
    """Best effort: close a litellm stream (and the HTTP response under it)."""
    for obj in (response, getattr(response, "completion_stream", None), getattr(response, "response", None)):
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass


def complete(messages: Sequence[dict[str, str]], *, config: LLMConfig | None = None, stream: bool = True,
             cancel: threading.Event | None = None, on_progress: Callable[[int], None] | None = None,
             timeout: float = DEFAULT_TIMEOUT) -> str:
    """The model's answer to ``messages`` (``{"role", "content"}`` dicts) as text.

    ``on_progress(characters_received)`` is called in the caller's thread whenever more of
    the answer has arrived. Raises :class:`LLMNotConfigured`, :class:`LLMCancelled` (soon
    after ``cancel`` is set) or :class:`LLMError` (the request failed; the message is
    redacted)."""
    config = load_config() if config is None else config
    litellm = _import_litellm()
    kwargs: dict[str, Any] = {"model": config.model, "messages": [dict(m) for m in messages], "stream": stream,
                              "timeout": timeout, "max_retries": 0}
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    worker = _Worker(lambda: litellm.completion(**kwargs), stream)
    worker.start()
    seen = 0
    deadline = time.monotonic() + timeout + 5
    try:
        while worker.is_alive():
            if cancel is not None and cancel.is_set():
                raise LLMCancelled("cancelled: the request was abandoned and nothing was written")
            if time.monotonic() > deadline:
                raise LLMError(f"{config.model}: no complete answer within {timeout:g} s")
            worker.join(_POLL)
            if on_progress is not None and worker.chars != seen:
                seen = worker.chars
                on_progress(seen)
    except BaseException:  # cancelled, timed out, or Ctrl-C in the caller: stop reading
        worker.stop.set()
        close_stream(worker.response)
        raise
    if cancel is not None and cancel.is_set():
        raise LLMCancelled("cancelled: the request was abandoned and nothing was written")
    if worker.error is not None:
        exc = worker.error
        what = redact(f"{type(exc).__name__}: {exc}", config.api_key)
        raise LLMError(f"{config.model}: the request failed: {what}") from None
    if on_progress is not None and worker.chars != seen:
        on_progress(worker.chars)
    return "".join(worker.parts)
