"""The one registration module: every LSP method specward answers, each handled by its own
module under ``handlers/``. Every handler is guarded: a request whose handler raises gets an
``InternalError`` reply (``transport.SpecwardProtocol`` writes it: the exception's type, no
message or traceback; the log has those), a notification whose handler raises is a log
line; either way the server keeps serving."""

from __future__ import annotations

import functools
import inspect
import logging

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
    hover,
    initialize,
    initialized,
    references,
    shutdown,
    workspace_symbol,
)

log = logging.getLogger(__name__)


def is_request(method: str) -> bool:
    """Whether the client sends ``method`` as a request (it has an id), not a notification."""
    message_type = lsp.METHOD_TO_TYPES.get(method, (None,))[0]
    return message_type is not None and "id" in attrs.fields_dict(message_type)


def _guarded(fn, method: str):
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


def register(server) -> None:
    def feature(method, fn, options=None):
        guarded = _guarded(fn, method)

        @server.feature(method, options) if options is not None else server.feature(method)
        async def handler(params):
            result = guarded(server, params)
            if inspect.isawaitable(result):
                result = await result
            return result

    feature(lsp.INITIALIZE, initialize.handle)
    feature(lsp.INITIALIZED, initialized.handle)
    feature(lsp.TEXT_DOCUMENT_DID_OPEN, did_open.handle)
    feature(lsp.TEXT_DOCUMENT_DID_CHANGE, did_change.handle)
    feature(lsp.TEXT_DOCUMENT_DID_CLOSE, did_close.handle)
    feature(lsp.TEXT_DOCUMENT_DID_SAVE, did_save.handle)
    feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, did_change_watched_files.handle)
    feature(lsp.SHUTDOWN, shutdown.handle)
    feature(lsp.TEXT_DOCUMENT_HOVER, hover.handle)
    feature(lsp.TEXT_DOCUMENT_DEFINITION, definition.handle)
    feature(lsp.TEXT_DOCUMENT_REFERENCES, references.handle)
    feature(lsp.TEXT_DOCUMENT_COMPLETION, completion.handle,
            lsp.CompletionOptions(trigger_characters=["/", "'", '"', "`"]))
    feature(lsp.TEXT_DOCUMENT_CODE_LENS, code_lens.handle, lsp.CodeLensOptions(resolve_provider=False))
    feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, document_symbol.handle)
    feature(lsp.WORKSPACE_SYMBOL, workspace_symbol.handle)
    feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC, diagnostic.document,
            lsp.DiagnosticOptions(identifier="specward", inter_file_dependencies=True, workspace_diagnostics=True))
    feature(lsp.WORKSPACE_DIAGNOSTIC, diagnostic.workspace)
    feature(lsp.TEXT_DOCUMENT_CODE_ACTION, code_action.handle,
            lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))

    @server.command(code_action.APPLY_COMMAND)
    async def apply_fix(ls, payload: dict):
        # a command is a request: its failure is an error reply, never the server's end
        return await execute_command.apply_fix(ls, payload)
