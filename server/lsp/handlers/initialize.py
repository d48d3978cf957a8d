"""``initialize``: keep the client's ``initializationOptions`` (editor settings) for the
session, and watch the editor's process (``processId``): the server exits once it is gone.
pygls answers the request itself; this runs first. A second ``initialize`` never gets here
(``transport.SpecwardProtocol`` refuses it)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers.codes import CODES

if TYPE_CHECKING:
    from ..server import SpecwardServer

log = logging.getLogger(__name__)
LEVELS = ("error", "warning", "information", "hint", "off")


def handle(ls: SpecwardServer, params: lsp.InitializeParams) -> None:
    ls.editor_options = parse_options(params.initialization_options)
    ls.watch_parent(params.process_id)


def parse_options(raw: object) -> dict:
    """``{"contracts": [glob, ...], "severity": {code: level}, "registryCheck": bool, "userLedger": bool}``; anything else is ignored
    with a log line. These never name executables or hosts: nothing here can make the
    server run or fetch anything."""
    out: dict = {}
    if not isinstance(raw, dict):
        if raw is not None:
            log.warning("initializationOptions ignored: expected an object, got %s", type(raw).__name__)
        return out
    contracts = raw.get("contracts")
    if contracts is not None:
        if isinstance(contracts, list) and all(isinstance(c, str) and c for c in contracts):
            out["contracts"] = list(contracts) or None
        else:
            log.warning("initializationOptions.contracts ignored: expected a list of globs")
    severity = raw.get("severity")
    if isinstance(severity, dict):
        good = {k: v for k, v in severity.items() if k in CODES and v in LEVELS}
        for k in sorted(set(severity) - set(good)):
            log.warning("initializationOptions.severity.%s ignored: unknown code or level", k)
        out["severity"] = good
    # user/editor settings only (the VS Code extension sends registryCheck only in a trusted
    # workspace); a workspace's own specward.toml cannot turn them on
    for key, name in (("registryCheck", "registry_check"), ("userLedger", "user_ledger")):
        value = raw.get(key)
        if isinstance(value, bool):
            out[name] = value
        elif value is not None:
            log.warning("initializationOptions.%s ignored: expected true or false", key)
    for key in sorted(set(raw) - {"contracts", "severity", "registryCheck", "userLedger"}):
        log.warning("initializationOptions.%s ignored: unknown setting", key)
    return out
