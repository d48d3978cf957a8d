"""The harness score of a generated slice, its verdict and the verification depth (issue 15,
``docs/stages.md``). Pure: numbers, sets and finding codes in, plain data out.

The score (0–10) is ``10 × Σ weight × dimension`` over four dimensions, each in [0, 1]:

============  ==========  ===============  ============  ==========
weighting     compliance  contract cov.    compile       review
============  ==========  ===============  ============  ==========
full          0.30        0.25             0.20          0.25
no-compliance —           0.40             0.30          0.30
no-review     0.35        0.35             0.30          —
neither       —           0.55             0.45          —
============  ==========  ===============  ============  ==========

Contract coverage and compile are required (the issue defines no weighting without them);
compliance and review may be missing (None). The verdict applies a profile's thresholds,
and the must-pass rule first: any finding whose code is in :data:`MUST_PASS_CODES` in the
generated code fails the verdict whatever the score.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Iterable, Literal

from ..codes import CODES

DIMENSIONS = ("compliance", "coverage", "compile", "review")

WEIGHTINGS: dict[str, dict[str, float]] = {
    "full": {"compliance": 0.30, "coverage": 0.25, "compile": 0.20, "review": 0.25},
    "no-compliance": {"coverage": 0.40, "compile": 0.30, "review": 0.30},
    "no-review": {"compliance": 0.35, "coverage": 0.35, "compile": 0.30},
    "neither": {"coverage": 0.55, "compile": 0.45},
}

# A phantom call, a phantom import (of a module, of a name, of a whole package no
# registry knows) or an architecture invariant violation in generated code: FAIL.
MUST_PASS_CODES: frozenset[str] = frozenset(
    {"phantom-api", "phantom-import", "missing-export", "hallucinated-package", "invariant-violation"})
assert MUST_PASS_CODES <= set(CODES)


class ScoreError(ValueError):
    """A dimension, review pass or profile that is not valid input."""


# ---------------------------------------------------------------------------- dimensions
def _unit(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScoreError(f"{name} must be a number in [0, 1], not {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or not 0.0 <= v <= 1.0:
        raise ScoreError(f"{name} must be in [0, 1], not {value!r}")
    return v


@dataclass(frozen=True)
class Dimensions:
    """The four dimensions, each in [0, 1] or None when its signal is missing."""

    compliance: float | None
    coverage: float | None
    compile: float | None
    review: float | None = None


@dataclass(frozen=True)
class HarnessScore:
    score: float  # 0–10, unrounded (display it to one decimal)
    weighting: str  # a key of WEIGHTINGS
    weights: tuple[tuple[str, float], ...]  # (dimension, weight) in DIMENSIONS order
    dimensions: Dimensions


def harness_score(dims: Dimensions) -> HarnessScore:
    """The 0–10 score with the weighting the present dimensions select."""
    values = {name: getattr(dims, name) for name in DIMENSIONS}
    for name in ("coverage", "compile"):
        if values[name] is None:
            raise ScoreError(f"the {name} dimension is required")
    present = {name: _unit(name, v) for name, v in values.items() if v is not None}
    weighting = {(True, True): "full", (False, True): "no-compliance",
                 (True, False): "no-review", (False, False): "neither"}[
        ("compliance" in present, "review" in present)]
    weights = WEIGHTINGS[weighting]
    total = 10.0 * sum(w * present[name] for name, w in weights.items())
    ordered = tuple((name, weights[name]) for name in DIMENSIONS if name in weights)
    return HarnessScore(min(10.0, total), weighting, ordered, dims)


# ---------------------------------------------------------------------- contract coverage
@dataclass(frozen=True)
class Coverage:
    """Contract coverage: ``fraction`` = (declared endpoints implemented + declared
    endpoints called + declared models defined) / (2 × declared endpoints + declared
    models). Found items the contract does not declare count for nothing. None when
    nothing is declared (no coverage to measure). The misses are sorted by ``str``."""

    fraction: float | None
    passed: int
    checks: int
    not_implemented: tuple[Hashable, ...]
    not_called: tuple[Hashable, ...]
    not_defined: tuple[Hashable, ...]


def contract_coverage(endpoints: Iterable[Hashable], implemented: Iterable[Hashable],
                      called: Iterable[Hashable], models: Iterable[Hashable] = (),
                      defined: Iterable[Hashable] = ()) -> Coverage:
    """Coverage of the declared ``endpoints`` (e.g. ``"GET /notes"``) and ``models`` by
    what the index found implemented (a backend route), called (a client call) and
    defined (a model declaration). Pass the slice's own endpoints and models, not the
    whole contract's, when scoring one slice."""
    eps, mods = set(endpoints), set(models)
    impl, call, dfn = set(implemented), set(called), set(defined)
    not_impl = tuple(sorted(eps - impl, key=str))
    not_call = tuple(sorted(eps - call, key=str))
    not_def = tuple(sorted(mods - dfn, key=str))
    checks = 2 * len(eps) + len(mods)
    passed = checks - len(not_impl) - len(not_call) - len(not_def)
    return Coverage(passed / checks if checks else None, passed, checks, not_impl, not_call, not_def)


# --------------------------------------------------------------------------------- review
REVIEW_CRITERIA: dict[str, str] = {
    "architecture": "architecture and contract compliance",
    "correctness": "correctness and edge cases",
    "impact": "impact and breaking changes",
}
REVIEW_ANCHORS = (0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class ReviewPass:
    criterion: str  # a key of REVIEW_CRITERIA
    score: float  # one of REVIEW_ANCHORS
    reason: str


def review_dimension(passes: Iterable[ReviewPass]) -> float:
    """The mean of the three review passes, one per criterion, each an anchored score
    with a non-empty reason; :class:`ScoreError` otherwise."""
    passes = tuple(passes)
    criteria = sorted(p.criterion for p in passes)
    if criteria != sorted(REVIEW_CRITERIA):
        raise ScoreError(f"the review needs one pass per criterion {sorted(REVIEW_CRITERIA)}, got {criteria}")
    for p in passes:
        if isinstance(p.score, bool) or not isinstance(p.score, (int, float)) or p.score not in REVIEW_ANCHORS:
            raise ScoreError(f"review pass {p.criterion!r}: score {p.score!r} is not one of {REVIEW_ANCHORS}")
        if not isinstance(p.reason, str) or not p.reason.strip():
            raise ScoreError(f"review pass {p.criterion!r} gives no reason")
    return sum(float(p.score) for p in passes) / len(passes)


# ------------------------------------------------------------------------------- profiles
@dataclass(frozen=True)
class Profile:
    """Must-pass thresholds: a minimum score and minimum values of dimensions. A minimum
    on a dimension that is missing (None) is not applied."""

    name: str
    min_score: float
    minimums: tuple[tuple[str, float], ...]


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("lenient", 5.0, (("coverage", 0.5),)),
    Profile("default", 7.0, (("coverage", 0.75), ("compile", 0.8))),
    Profile("strict", 8.5, (("compliance", 0.9), ("coverage", 1.0), ("compile", 1.0), ("review", 0.75))),
    # a frontend slice calls endpoints that a backend elsewhere (or `specward mock`)
    # implements: coverage is held less, the type check (the typed client) fully
    Profile("frontend", 6.5, (("coverage", 0.5), ("compile", 1.0))),
)}


@dataclass(frozen=True)
class Verdict:
    passed: bool
    profile: str
    score: HarnessScore
    blocking: tuple[tuple[str, int], ...]  # (must-pass code, count), sorted
    reasons: tuple[str, ...]  # why it failed; empty when it passed


def verdict(score: HarnessScore, profile: str | Profile = "default",
            finding_codes: Iterable[str] = ()) -> Verdict:
    """PASS or FAIL: the must-pass rule over the codes of the findings in the generated
    files first, then the profile's thresholds."""
    prof = profile if isinstance(profile, Profile) else PROFILES.get(profile)
    if prof is None:
        raise ScoreError(f"unknown evaluation profile {profile!r} (known: {', '.join(PROFILES)})")
    counts = Counter(c for c in finding_codes if c in MUST_PASS_CODES)
    blocking = tuple(sorted(counts.items()))
    reasons = [f"must-pass: {n} {code} finding(s) in the generated code" for code, n in blocking]
    if score.score < prof.min_score:
        reasons.append(f"score {score.score:.1f} is below {prof.name}'s {prof.min_score:.1f}")
    for name, minimum in prof.minimums:
        value = getattr(score.dimensions, name)
        if value is not None and value < minimum:
            reasons.append(f"{name} {value:.2f} is below {prof.name}'s {minimum:.2f}")
    return Verdict(not reasons, prof.name, score, blocking, tuple(reasons))


# -------------------------------------------------------------------------- depth
Depth = Literal["minimal", "standard", "thorough"]
DEPTHS: tuple[Depth, ...] = ("minimal", "standard", "thorough")
MAX_RAISES = 2

RISK_KEYWORDS: dict[str, re.Pattern[str]] = {
    "auth": re.compile(r"\b(auth|authn|authz|authenticat\w*|authori[sz]\w*|log-?in|logout|sign-?in|sign-?up|"
                       r"passwords?|oauth\w*|jwt|sessions?|credentials?)\b", re.I),
    "payment": re.compile(r"\b(payments?|billing|checkout|invoices?|refunds?|stripe)\b", re.I),
    "security": re.compile(r"\b(security|secure|permissions?|encrypt\w*|secrets?|csrf|xss|"
                           r"vulnerab\w*)\b", re.I),
    "migration": re.compile(r"\b(migrations?|migrate[ds]?|migrating)\b", re.I),
    "public API": re.compile(r"\b(public[ -]api|public endpoints?|breaking changes?)\b", re.I),
}


@dataclass(frozen=True)
class DepthChoice:
    depth: Depth
    reasons: tuple[str, ...]
    raises: int = 0  # how often a failed gate raised it (at most MAX_RAISES)


def risk_keywords(*texts: str) -> tuple[str, ...]:
    """The risk families (keys of :data:`RISK_KEYWORDS`) that any of ``texts`` mentions."""
    return tuple(name for name, pattern in RISK_KEYWORDS.items() if any(pattern.search(t) for t in texts))


def select_depth(files: int, domains: int, *texts: str) -> DepthChoice:
    """The verification depth of a change of ``files`` files touching ``domains`` domains
    (backend, frontend, data, tests, ...), whose request, spec or paths are ``texts``:

    - ``thorough``: a risk keyword, or more than 8 files, or 3 domains or more;
    - ``standard``: 3 to 8 files, or 2 domains;
    - ``minimal``: 1 or 2 files in one domain, no risk keyword.
    """
    if files < 0 or domains < 0:
        raise ScoreError("file and domain counts cannot be negative")
    risks = risk_keywords(*texts)
    reasons: list[str] = [f"mentions {r}" for r in risks]
    if files > 8:
        reasons.append(f"{files} files (more than 8)")
    if domains >= 3:
        reasons.append(f"{domains} domains (3 or more)")
    if reasons:
        return DepthChoice("thorough", tuple(reasons))
    if files >= 3:
        reasons.append(f"{files} files (3 or more)")
    if domains == 2:
        reasons.append("2 domains")
    if reasons:
        return DepthChoice("standard", tuple(reasons))
    return DepthChoice("minimal", (f"{files} file(s) in {domains} domain(s), no risk keyword",))


def raise_depth(choice: DepthChoice, why: str) -> DepthChoice:
    """One level up after a failed gate, at most :data:`MAX_RAISES` times; unchanged
    when already ``thorough`` or raised twice."""
    level = DEPTHS.index(choice.depth)
    if choice.raises >= MAX_RAISES or level == len(DEPTHS) - 1:
        return choice
    return DepthChoice(DEPTHS[level + 1], choice.reasons + (f"raised: {why}",), choice.raises + 1)


def profile_for(depth: Depth, configured: str = "default") -> str:
    """The evaluation profile of a run: ``strict`` at ``thorough`` depth whatever is
    configured, else the configured one."""
    if configured not in PROFILES:
        raise ScoreError(f"unknown evaluation profile {configured!r} (known: {', '.join(PROFILES)})")
    return "strict" if depth == "thorough" else configured
