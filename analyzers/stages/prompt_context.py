"""What every stage's prompt includes besides its own request (issue 15, ``docs/stages.md``,
"What every prompt includes"), as one block of text: the feature's decisions, the
contract, the relevant architecture rules, the ledger's "DO NOT REPEAT" section and the
files of the context manifest, packed under a token budget.

Pure: the caller (``server/stage_context.py``) reads the files; this only chooses, orders
and cuts. The order is fixed (the sections above, files in the order given) and the size
is bounded: the whole block is at most ``budget_tokens × CHARS_PER_TOKEN`` characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from specward.analyzers.invariants import Rule, matches

CHARS_PER_TOKEN = 4
DEFAULT_BUDGET_TOKENS = 12_000
# the most of the budget each section but the files may take (a divisor: 8 is 1/8): the
# files always keep at least 3/8 of it
SHARES = {"decisions": 8, "contract": 4, "invariants": 8, "ledger": 8}


@dataclass(frozen=True)
class ContextFile:
    """One file of the context manifest: its workspace path and its text."""

    path: str
    text: str


def cut_marker(left_out: int) -> str:
    return f"\n[cut: {left_out} more characters left out]\n"


def _cut(text: str, limit: int) -> str:
    """``text`` when it fits ``limit`` characters, else its start and a cut marker, the
    whole at most ``limit`` (``""`` when not even the marker fits)."""
    if len(text) <= limit:
        return text
    # the marker's length depends on the number it names: at most len(str(len(text)))
    marker_room = len(cut_marker(len(text)))
    keep = limit - marker_room
    if keep <= 0:
        return ""
    return text[:keep] + cut_marker(len(text) - keep)


def rule_patterns(rule: Rule) -> list[str]:
    """Every module pattern a rule names (its sources, targets, layers or modules)."""
    out = [p for group in rule.groups() for p in group]
    if rule.kind not in ("layers", "forbidden"):
        out += [p for p in (*rule.sources, *rule.targets) if p not in out]
    if rule.config:
        out.append(rule.config)
    return out


def relevant_rules(rules: Iterable[Rule], targets: Sequence[str] | None) -> list[Rule]:
    """The rules whose patterns match one of the stage's target paths; every rule when the
    targets are unknown (None or empty). A rule that names no pattern (it governs every
    file) is always relevant. Order kept."""
    rules = list(rules)
    if not targets:
        return rules
    out = []
    for rule in rules:
        pats = rule_patterns(rule)
        if not pats or any(matches(p, t) for p in pats for t in targets):
            out.append(rule)
    return out


def describe_rule(rule: Rule) -> str:
    """One line saying what a rule forbids or requires, for a model."""
    head = f"- {rule.id} ({rule.kind})"
    if rule.kind == "layers":
        layers = " > ".join(" | ".join(layer) for layer in rule.layers)
        return f"{head}: layers, highest first: {layers}; a lower layer must not import a higher one"
    if rule.kind == "forbidden":
        return f"{head}: {', '.join(rule.sources)} must not import {', '.join(rule.targets)}"
    if rule.kind == "independence":
        return f"{head}: {', '.join(rule.modules)} must not import each other"
    if rule.kind == "required-symbol":
        return f"{head}: {', '.join(rule.modules)} must define {', '.join(rule.symbols)}"
    if rule.kind == "pure":
        where = ", ".join(rule.modules) or "every module"
        return f"{head}: functions marked {rule.marker or 'pure'} in {where} must not call side-effect APIs"
    if rule.kind == "no-hardcoded-config":
        return f"{head}: no literal repeating a value of {', '.join(rule.keys)} defined in {rule.config}"
    named = ", ".join(rule_patterns(rule))
    return f"{head}: {named}" if named else head


def _more(n: int) -> str:
    return f"\n[{n} more file(s) left out: over the budget]\n"


def _files_block(files: Sequence[ContextFile], room: int) -> str:
    """The files, each headed by ``### path``, in order, within ``room`` characters: a file
    that fits what is left goes in whole; the first that does not is cut (and marked),
    and the files after it are counted on one last line (when that line fits)."""
    out: list[str] = []
    used = 0
    for i, f in enumerate(files):
        head = f"### {f.path}\n"
        body = f.text if f.text.endswith("\n") or not f.text else f.text + "\n"
        left = room - used
        if len(head) + len(body) <= left:
            out.append(head + body)
            used += len(head) + len(body)
            continue
        after = len(files) - i - 1
        line = _more(after) if after else ""
        part = _cut(body, left - len(head) - len(line))
        if part:
            out.append(head + part + line)
        elif used + len(_more(len(files) - i)) <= room:
            out.append(_more(len(files) - i))
        break
    return "".join(out)


def prompt_sections(*, contract: str | None = None, contract_name: str = "the contract",
                    invariants: Sequence[Rule] = (), ledger: str = "", decisions: str | None = None,
                    decisions_name: str = "the decisions", files: Sequence[ContextFile] = (),
                    budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> str:
    """The sections, in this order, each only when it has content: ``## Decisions already
    made`` (the feature's ``specs/<slug>.context.md``), ``## The contract``, ``##
    Architecture rules``, the ledger's section as it is (it has its own heading), and ``##
    Context files``. Every section but the files is cut to its share of the budget
    (``SHARES``: the contract a quarter, the others an eighth); the files get what is left. ``""`` when there is nothing to say."""
    budget = max(0, budget_tokens) * CHARS_PER_TOKEN
    fixed: list[str] = []
    if decisions and decisions.strip():
        head = f"## Decisions already made ({decisions_name}): follow them, do not argue them again\n\n"
        fixed.append(head + _cut(decisions.strip() + "\n", budget // SHARES["decisions"] - len(head)))
    if contract and contract.strip():
        head = f"## The contract ({contract_name})\n\n"
        fixed.append(head + _cut(contract.rstrip() + "\n", budget // SHARES["contract"] - len(head)))
    if invariants:
        head = "## Architecture rules the code must keep\n\n"
        lines = "".join(describe_rule(r) + "\n" for r in invariants)
        fixed.append(head + _cut(lines, budget // SHARES["invariants"] - len(head)))
    if ledger and ledger.strip():
        fixed.append(_cut(ledger.rstrip() + "\n", budget // SHARES["ledger"]))
    fixed = [s for s in fixed if s.strip() and not s.endswith("\n\n")]
    text = "\n".join(fixed)
    if files:
        head = "## Context files (read from the workspace)\n\n"
        room = budget - len(text) - (1 if text else 0) - len(head)
        block = _files_block(list(files), room) if room > 0 else ""
        if block:
            text = (text + "\n" if text else "") + head + block
    return text[:budget]
