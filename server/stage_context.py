"""Gathering what every stage's prompt includes (``analyzers/stages/prompt_context.py``
packs it): the workspace's architecture rules, the fix-history ledger's "DO NOT REPEAT"
section, the feature's decisions (``specs/<slug>.context.md``), the context manifest's
files and the contract. Every file is read as the index reads workspace files
(``reading.read_data``: never through a link out of the workspace, never a pipe, bounded).

Nothing here fails a stage: a file that cannot be read is left out (and said on stderr).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from specward.analyzers.context import MANIFEST_DIR, parse_manifest
from specward.analyzers.stages.prompt_context import (
    DEFAULT_BUDGET_TOKENS,
    ContextFile,
    prompt_sections,
    relevant_rules,
)

from .engine.config import load_config
from .engine.reading import read_data, shown

MAX_FILE_BYTES = 1_000_000
SECTIONS = ("decisions", "contract", "invariants", "ledger", "files")


def _read(root: Path, rel: str) -> str | None:
    data, _why = read_data(str(root), rel, MAX_FILE_BYTES)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decisions_rel(slug: str) -> str:
    return f"specs/{slug}.context.md"


def manifest_files(root: Path, slug: str | None = None, paths: Sequence[str] | None = None) -> list[ContextFile]:
    """The context files: ``paths`` when the stage captured them (the slice stage), else
    the entries of the feature's manifest ``.specward/context/<slug>.json`` when there is
    one; each read now (a file no longer readable is left out)."""
    if paths is None:
        paths = []
        if slug:
            rel = f"{MANIFEST_DIR}/{slug}.json"
            text = _read(root, rel)
            if text is not None:
                manifest, problems = parse_manifest(rel, text)
                if manifest is None:
                    for p in problems:
                        print(f"specward: note: {rel}: {shown(p.message)}: its files are not in the prompt",
                              file=sys.stderr)
                else:
                    paths = [e.path for e in manifest.entries]
    out = []
    for rel in paths:
        text = _read(root, rel)
        if text is not None:
            out.append(ContextFile(rel, text))
    return out


def invariants(root: Path, targets: Sequence[str] | None):
    """The workspace's architecture rules relevant to ``targets`` (all when unknown)."""
    from .engine.invariants_config import read_rules

    loaded = load_config(root)
    rules, _problems = read_rules(root, list(loaded.settings.invariants or []))
    return relevant_rules(rules, targets)


def ledger_section(root: Path) -> str:
    """The ledger's "DO NOT REPEAT" section, loaded as the MCP tool ``ledger_prompt`` loads it."""
    from specward.analyzers import ledger as core

    from .engine import ledger as store

    patterns, _problems = store.load(root)
    return core.prompt(patterns, core.PROMPT_ITEMS)


def gather(root: Path, *, slug: str | None = None, targets: Sequence[str] | None = None,
           contract_rel: str | None = None, context_paths: Sequence[str] | None = None,
           budget_tokens: int = DEFAULT_BUDGET_TOKENS, include: Sequence[str] = SECTIONS) -> str:
    """The prompt's shared sections for a stage of the feature ``slug`` writing ``targets``
    (None: not known yet), with the contract ``contract_rel`` when the stage has one.
    ``include``: which of ``SECTIONS`` to gather (the spec stage takes only decisions)."""
    contract = _read(root, contract_rel) if contract_rel and "contract" in include else None
    decisions = _read(root, decisions_rel(slug)) if slug and "decisions" in include else None
    return prompt_sections(
        contract=contract, contract_name=contract_rel or "the contract",
        invariants=invariants(root, targets) if "invariants" in include else (),
        ledger=ledger_section(root) if "ledger" in include else "",
        decisions=decisions, decisions_name=decisions_rel(slug) if slug else "the decisions",
        files=manifest_files(root, slug, context_paths) if "files" in include else (), budget_tokens=budget_tokens)


def with_sections(messages: list[dict[str, str]], sections: str) -> list[dict[str, str]]:
    """``messages`` with the shared sections (``gather``'s text) appended to the last one."""
    if sections:
        messages[-1]["content"] += "\n\n" + sections
    return messages
