"""Fault injection for tests/reliability/test_fault_containment.py, on PYTHONPATH of the
server under test only: every Python process it starts imports this first.

- extraction raises for any text holding ``BOOM_MARKER`` (the build's path and the
  incremental edit path both run ``_Program.run``);
- ``textDocument/hover`` raises for any position on line 0 (the handler module's
  ``handle``, wrapped before the server registers it).
"""

import os

if os.environ.get("SPECWARD_TEST_FAULTS") == "1":
    from specward.analyzers.extract import ecma as _ecma
    from specward.server.lsp.handlers import hover as _hover

    _run = _ecma._Program.run

    def run(self):
        if b"BOOM_MARKER" in self.src:
            raise RuntimeError("injected analyzer fault")
        return _run(self)

    _ecma._Program.run = run
    _handle = _hover.handle

    def handle(ls, params):
        if params.position.line == 0:
            raise RuntimeError("injected handler fault")
        return _handle(ls, params)

    _hover.handle = handle
