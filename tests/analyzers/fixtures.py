"""Multi-file fixtures as one string, in the style of rust-analyzer's test fixtures.

    //- contracts/api.dsl.json
    {...}
    //- src/a.ts
    fetch('/api/x')

``analyze(fixture)`` runs the real pure pipeline (extract -> parse contracts -> link ->
match) and returns one line per HTTP call: ``path:line METHOD url status``.
"""

from __future__ import annotations

import textwrap

from specward.analyzers.contracts import parse_contract
from specward.analyzers.extract import extract
from specward.analyzers.http import Linker
from specward.analyzers.languages import language_of
from specward.analyzers.lines import LineIndex
from specward.analyzers.matching import EndpointTable, Matcher
from specward.analyzers.resolve import ResolverConfig, is_resolver_config

CONTRACT_SUFFIXES = (".dsl.json", "openapi.yaml", "openapi.yml", "openapi.json", "swagger.yaml", "swagger.yml", "swagger.json")


def split(fixture: str) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    current = None
    for line in textwrap.dedent(fixture).splitlines():
        if line.startswith("//- "):
            current = line[4:].strip()
            files[current] = []
        elif current is not None:
            files[current].append(line)
    return {k: "\n".join(v) + "\n" for k, v in files.items()}


def analyze(fixture: str, base_paths: tuple[str, ...] = (), case_sensitive: bool = False) -> list[str]:
    """One line per HTTP call: ``path:line METHOD url status``, judged with the evidence of
    every call of the fixture (as the index does)."""
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if not p.endswith(CONTRACT_SUFFIXES) and language_of(p)}
    contracts = [parse_contract(p, t) for p, t in files.items() if p.endswith(CONTRACT_SUFFIXES)]
    endpoints = [ep for c in contracts for ep in c.endpoints]
    table = EndpointTable(endpoints, base_paths, case_sensitive=case_sensitive,
                          unreadable=[c.path for c in contracts if not c.readable],
                          hosts=[h for c in contracts for h in c.hosts])
    config = ResolverConfig.build({p: t for p, t in files.items() if is_resolver_config(p)})
    linker = Linker(facts.get, config)
    linked = {path: linker.link_file(path)[0] for path in sorted(facts)}
    matcher = Matcher(table)
    for path, calls in linked.items():
        matcher.observe(path, calls)
    out = []
    for path, calls in linked.items():
        idx = LineIndex.of_text(files[path])
        for call in calls:
            st = matcher.judge(call)
            line = idx.position(call.span.start)[0] + 1
            text = f"{path}:{line} {call.method} {st.call.template or '?'} {st.status}"
            if st.call.reason:
                text += f" ({st.call.reason})"
            out.append(text)
    return out


def compose_fixture(fixture: str) -> list:
    """``routes.compose`` of a ``//- path`` fixture with the real extractor and the one
    resolver (workspace files only, as the index composes)."""
    from specward.analyzers.analyses import AnalysisInput, Context
    from specward.analyzers.package_entry import in_installed
    from specward.analyzers.resolve import FILE
    from specward.analyzers.routes import compose

    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if language_of(p)}
    config = ResolverConfig.build({p: t for p, t in files.items() if is_resolver_config(p)})
    ctx = Context(AnalysisInput(files=frozenset(p for p in files if p not in facts)), facts.get, config)

    def resolve(importer: str, spec: str, python: bool) -> str | None:
        r = ctx.resolver.resolve(importer, spec, "python" if python else None)
        return r.path if r.kind == FILE and r.path and not in_installed(r.path) else None

    return compose(facts, facts.get, resolve)


def assert_edits_stay_exact(path: str, original: str, pieces: list[str], seeds: int = 4, steps: int = 30) -> None:
    """Random edits of ``original`` (insert a piece, delete a run, or back to the original):
    after each, ``extract_edited`` from the previous state gives exactly ``extract``."""
    import random

    from specward.analyzers.extract import extract_edited

    for seed in range(seeds):
        rng = random.Random(seed)
        text = original
        _, state, _ = extract_edited(path, text, None)
        for step in range(steps):
            i = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.4:
                text = text[:i] + rng.choice(pieces) + text[i:]
            elif op < 0.8:
                text = text[:i] + text[i + rng.choice((1, 3, 20)):]
            else:
                text = original
            got, state, _ = extract_edited(path, text, state)
            assert got == extract(path, text), f"seed {seed}, edit {step}: {text!r}"
