"""Plain-data (JSON-compatible) encoding of analyzer facts, for the SQLite cache.

Not pickle: the cache lives inside the workspace, and a workspace file must never be able
to run code. Decoding accepts only the dataclasses of ``analyzers.model``.
"""

from __future__ import annotations

import dataclasses
import json

from . import model

_TYPES = {
    cls.__name__: cls
    for cls in (model.Span, model.Lit, model.Ref, model.Param, model.Arg, model.Env, model.Unknown,
                model.StrVal, model.ObjVal, model.OtherVal, model.CallSite, model.FunctionDef,
                model.ClientDef, model.Import, model.Export, model.Definition, model.Route,
                model.Finding, model.FileFacts, model.Endpoint, model.Model, model.ContractFacts)
}
_FIELDS = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in _TYPES.items()}


def _enc(obj: object) -> object:
    name = type(obj).__name__
    if name in _TYPES and dataclasses.is_dataclass(obj):
        return {"$": name, "v": [_enc(getattr(obj, f)) for f in _FIELDS[name]]}
    if isinstance(obj, (tuple, list)):
        return [_enc(x) for x in obj]
    if isinstance(obj, dict):
        return {"$d": [[_enc(k), _enc(v)] for k, v in obj.items()]}
    return obj


def _dec(obj: object) -> object:
    if isinstance(obj, list):
        return tuple(_dec(x) for x in obj)
    if isinstance(obj, dict):
        if "$" in obj:
            cls = _TYPES[obj["$"]]  # KeyError for anything else: the caller drops the row
            return cls(*(_dec(x) for x in obj["v"]))
        if "$d" in obj:
            return {_dec(k): _dec(v) for k, v in obj["$d"]}
        raise ValueError("unexpected object in cached facts")
    return obj


def dumps_calls(calls: list) -> bytes:
    """``HttpCall`` lists, flat (they are read back for every file at a warm start)."""
    return json.dumps([[c.file, c.span.start, c.span.end, c.call_span.start, c.call_span.end, c.method,
                        c.template, c.relative, c.host, c.reason, c.via, c.base_unknown] for c in calls],
                      separators=(",", ":")).encode()


def loads_calls(data: bytes) -> list:
    from .http import HttpCall

    Span = model.Span
    return [HttpCall(f, Span(s0, s1), Span(c0, c1), m, t, r, h, why, via, bool(bu))
            for f, s0, s1, c0, c1, m, t, r, h, why, via, bu in json.loads(data)]


def dumps(obj: object) -> bytes:
    return json.dumps(_enc(obj), separators=(",", ":")).encode()


def loads(data: bytes) -> object:
    return _dec(json.loads(data))
