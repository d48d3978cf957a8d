"""Encoding of analyzer facts for the SQLite cache and for worker processes.

The cache lives inside the workspace, so its rows are untrusted input: a planted cache
file must never run code. Rows are pickles read with a *restricted* unpickler that
resolves only the frozen dataclasses of ``analyzers.model`` (and ``HttpCall``); any other
global (``os.system``, ``builtins.eval``, ...) is refused and the row is dropped. Pickle
is used because it is an order of magnitude faster than a Python-level JSON decoder on
the ~500 small objects a file's facts consist of, and cold indexing moves every file's
facts between processes.
"""

from __future__ import annotations

import io
import pickle

from . import model

PROTOCOL = 5


def _allowed() -> dict[tuple[str, str], type]:
    from .http_call import HttpCall

    out = {(HttpCall.__module__, "HttpCall"): HttpCall}
    for name, obj in vars(model).items():
        if isinstance(obj, type) and obj.__module__ == model.__name__ and hasattr(obj, "__dataclass_fields__"):
            out[(obj.__module__, name)] = obj
    return out


_ALLOWED: dict[tuple[str, str], type] | None = None


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        global _ALLOWED
        if _ALLOWED is None:
            _ALLOWED = _allowed()
        cls = _ALLOWED.get((module, name))
        if cls is None:
            raise pickle.UnpicklingError(f"refusing {module}.{name} in cached data")
        return cls


def dumps(obj: object) -> bytes:
    return pickle.dumps(obj, protocol=PROTOCOL)


def loads(data: bytes) -> object:
    """Decode cached data; raises ``pickle.UnpicklingError`` (or another error) for
    anything that is not plain analyzer data."""
    return _Restricted(io.BytesIO(data)).load()
