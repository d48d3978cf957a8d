"""The one registration module: every LSP method specward answers, each handled by its own
module under ``handlers/``, in two tables: ``REQUESTS`` (method -> handler and its server
options) and ``NOTIFICATIONS`` (method -> handler), plus the commands (``specward.applyFix``, the exports, the LLM stages of
``handlers/stage_command.py``, ``handlers/stage_more.py`` and ``handlers/slice_command.py``).
The tables are read when this module is imported (``server.create_server``, after any
``sitecustomize`` of the reliability tests has patched a handler). Every handler is guarded: a request whose handler raises gets an
``InternalError`` reply (``transport.SpecwardProtocol`` writes it: the exception's type, no
message or traceback; the log has those), a notification whose handler raises is a log
line; either way the server keeps serving."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types as lsp

from .handlers import (
    code_action,
    code_lens,
    completion,
    definition,
    diagnostic,
    did_change,
    did_change_watched_files,
    did_close,
    did_open,
    did_save,
    document_symbol,
    execute_command,
    export_command,
    hover,
    initialize,
    initialized,
    references,
    shutdown,
    slice_command,
    stage_command,
    stage_more,
    workspace_symbol,
)

if TYPE_CHECKING:
    from .server import SpecwardServer

log = logging.getLogger(__name__)

Handler = Callable[..., Any]  # handle(ls, params), plain or async: its own module types it


def is_request(method: str) -> bool:
    """Whether the client sends ``method`` as a request (it has an id), not a notification."""
    message_type = lsp.METHOD_TO_TYPES.get(method, (None,))[0]
    return message_type is not None and "id" in attrs.fields_dict(message_type)


def _guarded(fn: Handler, method: str) -> Handler:
    request = is_request(method)

    def failed() -> None:
        if not request:
            log.exception("%s failed", fn.__module__)

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def wrapper(ls, params):
            try:
                return await fn(ls, params)
            except Exception:  # noqa: BLE001
                failed()
                if request:
                    raise  # an InternalError reply (and a log line with the traceback)
                return None
    else:
        @functools.wraps(fn)
        def wrapper(ls, params):
            try:
                return fn(ls, params)
            except Exception:  # noqa: BLE001
                failed()
                if request:
                    raise
                return None
    return wrapper


# requests: the client waits for a reply (an error reply when the handler raises)
REQUESTS: dict[str, tuple[Handler, Any]] = {
    lsp.INITIALIZE: (initialize.handle, None),
    lsp.SHUTDOWN: (shutdown.handle, None),
    lsp.TEXT_DOCUMENT_HOVER: (hover.handle, None),
    lsp.TEXT_DOCUMENT_DEFINITION: (definition.handle, None),
    lsp.TEXT_DOCUMENT_REFERENCES: (references.handle, None),
    lsp.TEXT_DOCUMENT_COMPLETION: (completion.handle, lsp.CompletionOptions(trigger_characters=["/", "'", '"', "`"])),
    lsp.TEXT_DOCUMENT_CODE_LENS: (code_lens.handle, lsp.CodeLensOptions(resolve_provider=False)),
    lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL: (document_symbol.handle, None),
    lsp.WORKSPACE_SYMBOL: (workspace_symbol.handle, None),
    lsp.TEXT_DOCUMENT_DIAGNOSTIC: (diagnostic.document, lsp.DiagnosticOptions(
        identifier="specward", inter_file_dependencies=True, workspace_diagnostics=True)),
    lsp.WORKSPACE_DIAGNOSTIC: (diagnostic.workspace, None),
    lsp.TEXT_DOCUMENT_CODE_ACTION: (code_action.handle, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Refactor, lsp.CodeActionKind.Source])),
}

# notifications: no reply; a handler that raises is a log line
NOTIFICATIONS: dict[str, Handler] = {
    lsp.INITIALIZED: initialized.handle,
    lsp.TEXT_DOCUMENT_DID_OPEN: did_open.handle,
    lsp.TEXT_DOCUMENT_DID_CHANGE: did_change.handle,
    lsp.TEXT_DOCUMENT_DID_CLOSE: did_close.handle,
    lsp.TEXT_DOCUMENT_DID_SAVE: did_save.handle,
    lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES: did_change_watched_files.handle,
}


# workspace/executeCommand: command id -> ``async fn(ls, argument)`` (the first argument
# the client sent, as JSON: pygls unpacks a command's arguments)
COMMANDS: dict[str, Callable[..., Awaitable[Any]]] = {
    code_action.APPLY_COMMAND: execute_command.apply_fix,
    execute_command.RECAPTURE_COMMAND: execute_command.recapture_context,
    export_command.EXPORT_COMMAND: export_command.export_contract,
    stage_command.GENERATE_SPEC: stage_command.generate_spec,
    stage_command.GENERATE_CONTRACT: stage_command.generate_contract,
    stage_more.DISCUSS: stage_more.discuss,
    stage_more.UPDATE_AFFECTED: stage_more.update_affected,
    stage_more.RESUME_RUN: stage_more.resume_run,
    slice_command.GENERATE_SLICE: slice_command.generate_slice,
    slice_command.IMPLEMENT_ENDPOINT: slice_command.implement_endpoint,
    code_action.SHOW_COMMAND: execute_command.show_location,
}


def register(server: SpecwardServer) -> None:
    """Register every entry of ``REQUESTS`` and ``NOTIFICATIONS``, guarded, and the
    ``specward.applyFix`` command."""
    def feature(method: str, fn: Handler, options: Any = None) -> None:
        guarded = _guarded(fn, method)

        @server.feature(method, options) if options is not None else server.feature(method)
        async def handler(params):
            result = guarded(server, params)
            if inspect.isawaitable(result):
                result = await result
            return result

    def command(name: str, fn) -> None:
        @server.command(name)
        async def run(ls, arg: Any = None):
            return await fn(ls, arg)

    for method, (fn, options) in REQUESTS.items():
        feature(method, fn, options)
    for method, fn in NOTIFICATIONS.items():
        feature(method, fn)

    # a command is a request: its failure is an error reply, never the server's end
    for name, fn in COMMANDS.items():
        command(name, fn)
