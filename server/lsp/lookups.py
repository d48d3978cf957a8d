"""The contract inside the editor: shared lookups for the request handlers (hover,
definition, references, completion, code lens, symbols, code actions). Runs on the index
thread (``Session.request``), reading the index without racing its writer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.matching import CallStatus, endpoint_id
from specward.analyzers.model import ContractFacts, Endpoint, Finding, Model, Span

from . import convert

if TYPE_CHECKING:
    from ..engine.index import WorkspaceIndex
    from .session import Session


def models(index: WorkspaceIndex) -> dict[str, Model]:
    return {m.name: m for c in index.contracts.values() for m in c.models}


def callers_by_endpoint(index: WorkspaceIndex) -> dict[tuple[str, str, str], list[CallStatus]]:
    """Every matched call, grouped by endpoint: one pass over the statuses."""
    out: dict[tuple[str, str, str], list[CallStatus]] = {}
    for rel in sorted(index.statuses):
        for st in index.statuses[rel]:
            if st.status == "matched" and st.endpoint is not None:
                out.setdefault(endpoint_id(st.endpoint), []).append(st)
    return out


def callers(index: WorkspaceIndex, ep: Endpoint) -> list[CallStatus]:
    return callers_by_endpoint(index).get(endpoint_id(ep), [])


def offset(session: Session, rel: str, pos: lsp.Position) -> int:
    lines, _ = session.text_of(rel)
    return convert.offset_of(lines, pos, session.encoding)


_PATH_KEYS: dict[str, tuple[bytes, tuple[ide.PathKey, ...]]] = {}  # rel -> (text, its path keys)


def path_keys(session: Session, rel: str, contract: ContractFacts) -> tuple[ide.PathKey, ...]:
    """The path keys of a contract's text (as the editor has it), parsed once per text."""
    if not ide.has_path_keys(contract):
        return ()
    lines, _ = session.text_of(rel)
    hit = _PATH_KEYS.get(rel)
    if hit is not None and hit[0] == lines.data:
        return hit[1]
    keys = ide.path_keys(rel, lines.data.decode("utf-8", "surrogatepass"))
    if len(_PATH_KEYS) >= 8:
        _PATH_KEYS.clear()
    _PATH_KEYS[rel] = (lines.data, keys)
    return keys


def callers_of_all(index: WorkspaceIndex, eps: Iterable[Endpoint]) -> list[CallStatus]:
    """The matched calls of several endpoints, each once, by file and position."""
    by_ep = callers_by_endpoint(index)
    seen: dict[tuple[str, int, int], CallStatus] = {}
    for ep in eps:
        for st in by_ep.get(endpoint_id(ep), []):
            seen.setdefault((st.call.file, st.call.span.start, st.call.span.end), st)
    return [seen[k] for k in sorted(seen)]


# ----------------------------------------------------------------- what is under the cursor


@dataclass(frozen=True)
class CallTarget:
    """An HTTP call in a source file, with its verdict."""

    status: CallStatus


@dataclass(frozen=True)
class EndpointTarget:
    """One operation of a contract (an OpenAPI method key, a SpecDSL endpoint's path)."""

    endpoint: Endpoint


@dataclass(frozen=True)
class PathTarget:
    """An OpenAPI/Swagger path key: it stands for every operation of that path."""

    designated: ide.Designated


@dataclass(frozen=True)
class ModelTarget:
    """A model (schema) of a contract."""

    model: Model


@dataclass(frozen=True)
class FindingTarget:
    """A finding of a registered analysis (an import) in a source file."""

    finding: Finding


Target = CallTarget | EndpointTarget | PathTarget | ModelTarget | FindingTarget


def target(session: Session, uri: str, pos: lsp.Position) -> tuple[str | None, Target | None]:
    """What is under the cursor, with the file's relative path."""
    rel = session.rel_of_uri(uri)
    if rel is None:
        return None, None
    index = session.index
    at = offset(session, rel, pos)
    contract = index.contracts.get(rel)
    if contract is not None:
        hit = ide.endpoints_at(contract, at, path_keys(session, rel, contract))
        if hit is not None:
            return rel, (PathTarget(hit) if hit.kind == "path" else EndpointTarget(hit.endpoints[0]))
        m = ide.model_at(contract, at)
        if m is not None:
            return rel, ModelTarget(m)
        return rel, None
    st = ide.call_at(index.statuses.get(rel, ()), at)
    if st is not None:
        return rel, CallTarget(st)
    found = next((x for x in index.analysis_findings.get(rel, ()) if x.span.start <= at <= x.span.end), None)
    return rel, (FindingTarget(found) if found is not None else None)


def line_of(session: Session, rel: str, span: Span) -> int:
    lines, _ = session.text_of(rel)
    return lines.position(span.start)[0] + 1
