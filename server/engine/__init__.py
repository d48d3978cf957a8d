"""The engine the command line and the language server share: the workspace walk and
safe reading, configuration, the facts cache, the parser processes, the facts store and
the index. Nothing here knows LSP (``server/lsp/``) or the command line (``server/cli.py``)."""
