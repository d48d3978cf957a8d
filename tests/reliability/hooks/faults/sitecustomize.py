"""Fault injection for tests/reliability/test_fault_containment.py, on PYTHONPATH of the
server under test only: every Python process it starts imports this first.

- extraction raises for any text holding ``BOOM_MARKER`` (the build's path and the
  incremental edit path both run ``_Program.run``);
- ``textDocument/hover`` raises for any position on line 0 (its work on the index
  thread, ``handlers.hover._hover``).
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
    _work = _hover._hover

    def work(session, params):  # the request's work, on the index thread
        if params.position.line == 0:
            raise RuntimeError("injected handler fault")
        return _work(session, params)

    _hover._hover = work
