"""One module per LSP method, each with a ``handle(ls, params)`` (``diagnostic.py``: two),
registered by ``registration.py``.

Requests (the client waits for a reply): ``initialize``, ``shutdown``, ``hover``,
``definition``, ``references``, ``completion``, ``code_lens``, ``document_symbol``,
``workspace_symbol``, ``diagnostic`` (``document`` and ``workspace``), ``code_action``, and
the commands: ``specward.applyFix`` (``execute_command``), the exports (``export_command``),
the LLM stages ``specward.generateSpec``/``generateContract`` (``stage_command``). Most do their work on the index
thread through ``Session.request``.

Notifications (no reply): ``initialized`` (the start-up: ``startup.py``), ``did_open``,
``did_change``, ``did_close``, ``did_save``, ``did_change_watched_files``. They run on the
event loop and only tell the session what changed.
"""
