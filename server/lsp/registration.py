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
from collections.abc import Callable
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

    for method, (fn, options) in REQUESTS.items():
        feature(method, fn, options)
    for method, fn in NOTIFICATIONS.items():
        feature(method, fn)

    @server.command(code_action.APPLY_COMMAND)
    async def apply_fix(ls, payload: dict):
        # a command is a request: its failure is an error reply, never the server's end
        return await execute_command.apply_fix(ls, payload)

    @server.command(execute_command.RECAPTURE_COMMAND)
    async def recapture_context(ls, payload: dict):
        return await execute_command.recapture_context(ls, payload)

    @server.command(export_command.EXPORT_COMMAND)
    async def export_contract(ls, payload: dict):
        return await export_command.export_contract(ls, payload)

    @server.command(stage_command.GENERATE_SPEC)
    async def generate_spec(ls, arg: Any):
        return await stage_command.generate_spec(ls, arg)

    @server.command(stage_command.GENERATE_CONTRACT)
    async def generate_contract(ls, arg: Any):
        return await stage_command.generate_contract(ls, arg)

    @server.command(stage_more.DISCUSS)
    async def discuss(ls, arg: Any):
        return await stage_more.discuss(ls, arg)

    @server.command(stage_more.UPDATE_AFFECTED)
    async def update_affected(ls, arg: Any):
        return await stage_more.update_affected(ls, arg)

    @server.command(stage_more.RESUME_RUN)
    async def resume_run(ls, arg: Any = None):
        return await stage_more.resume_run(ls, arg)

    @server.command(slice_command.GENERATE_SLICE)
    async def generate_slice(ls, arg: Any):
        return await slice_command.generate_slice(ls, arg)

    @server.command(slice_command.IMPLEMENT_ENDPOINT)
    async def implement_endpoint(ls, arg: Any):
        return await slice_command.implement_endpoint(ls, arg)

    @server.command(code_action.SHOW_COMMAND)
    async def show_location(ls, payload: dict):
        return await execute_command.show_location(ls, payload)
