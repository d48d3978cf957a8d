"""The harness score against hand-computed cases for all four weightings, the must-pass
rule, contract coverage, the review dimension, profiles and the verification depth."""

from __future__ import annotations

import pytest

from specward.analyzers.codes import CODES
from specward.analyzers.stages.score import (MUST_PASS_CODES, PROFILES, WEIGHTINGS, DepthChoice, Dimensions,
                                             ReviewPass, ScoreError, contract_coverage, harness_score,
                                             profile_for, raise_depth, review_dimension, risk_keywords,
                                             select_depth, verdict)


# ------------------------------------------------------------------------------ weightings
def test_weights_are_the_issues_and_sum_to_one():
    assert WEIGHTINGS["full"] == {"compliance": 0.30, "coverage": 0.25, "compile": 0.20, "review": 0.25}
    assert WEIGHTINGS["no-compliance"] == {"coverage": 0.40, "compile": 0.30, "review": 0.30}
    assert WEIGHTINGS["no-review"] == {"compliance": 0.35, "coverage": 0.35, "compile": 0.30}
    assert WEIGHTINGS["neither"] == {"coverage": 0.55, "compile": 0.45}
    for weights in WEIGHTINGS.values():
        assert sum(weights.values()) == pytest.approx(1.0)


def test_full_weighting():
    # 10 × (0.30×0.9 + 0.25×0.8 + 0.20×1.0 + 0.25×0.75) = 10 × (0.27 + 0.20 + 0.20 + 0.1875) = 8.575
    s = harness_score(Dimensions(compliance=0.9, coverage=0.8, compile=1.0, review=0.75))
    assert s.weighting == "full"
    assert s.score == pytest.approx(8.575)
    assert s.weights == (("compliance", 0.30), ("coverage", 0.25), ("compile", 0.20), ("review", 0.25))


def test_without_compliance():
    # 10 × (0.40×0.5 + 0.30×1.0 + 0.30×0.5) = 10 × (0.20 + 0.30 + 0.15) = 6.5
    s = harness_score(Dimensions(compliance=None, coverage=0.5, compile=1.0, review=0.5))
    assert s.weighting == "no-compliance"
    assert s.score == pytest.approx(6.5)


def test_without_review():
    # 10 × (0.35×1.0 + 0.35×0.6 + 0.30×0.5) = 10 × (0.35 + 0.21 + 0.15) = 7.1
    s = harness_score(Dimensions(compliance=1.0, coverage=0.6, compile=0.5, review=None))
    assert s.weighting == "no-review"
    assert s.score == pytest.approx(7.1)


def test_with_neither():
    # 10 × (0.55×0.8 + 0.45×0.4) = 10 × (0.44 + 0.18) = 6.2
    s = harness_score(Dimensions(compliance=None, coverage=0.8, compile=0.4))
    assert s.weighting == "neither"
    assert s.score == pytest.approx(6.2)
    assert s.weights == (("coverage", 0.55), ("compile", 0.45))


@pytest.mark.parametrize("compliance,review", [(1.0, 1.0), (None, 1.0), (1.0, None), (None, None)])
def test_bounds_in_every_weighting(compliance, review):
    assert harness_score(Dimensions(compliance, 1.0, 1.0, review)).score == pytest.approx(10.0)
    zero = None if compliance is None else 0.0, None if review is None else 0.0
    assert harness_score(Dimensions(zero[0], 0.0, 0.0, zero[1])).score == 0.0


def test_a_missing_dimension_is_not_a_zero():
    # the same three values: without review the weights renormalise, they do not count 0
    # full with review 0.0: 10 × (0.30×1 + 0.25×1 + 0.20×1 + 0) = 7.5; without review: 10.0
    assert harness_score(Dimensions(1.0, 1.0, 1.0, 0.0)).score == pytest.approx(7.5)
    assert harness_score(Dimensions(1.0, 1.0, 1.0, None)).score == pytest.approx(10.0)


@pytest.mark.parametrize("dims", [
    Dimensions(0.5, None, 1.0, 0.5),
    Dimensions(0.5, 1.0, None, 0.5),
])
def test_coverage_and_compile_are_required(dims):
    with pytest.raises(ScoreError, match="required"):
        harness_score(dims)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), True, "0.5"])
def test_out_of_range_dimension_is_rejected(bad):
    with pytest.raises(ScoreError):
        harness_score(Dimensions(bad, 1.0, 1.0, None))


# -------------------------------------------------------------------------- coverage
def test_contract_coverage_by_hand():
    # 3 endpoints × 2 checks + 2 models = 8 checks; implemented 2 (PUT /x undeclared counts
    # for nothing), called 1, defined 1: 4 / 8 = 0.5
    cov = contract_coverage(
        endpoints={"GET /notes", "POST /notes", "DELETE /notes/{id}"},
        implemented={"GET /notes", "POST /notes", "PUT /x"},
        called={"GET /notes"},
        models={"Note", "User"},
        defined={"Note", "Extra"})
    assert (cov.fraction, cov.passed, cov.checks) == (0.5, 4, 8)
    assert cov.not_implemented == ("DELETE /notes/{id}",)
    assert cov.not_called == ("DELETE /notes/{id}", "POST /notes")
    assert cov.not_defined == ("User",)


def test_coverage_of_models_only_and_of_nothing():
    assert contract_coverage((), (), (), {"A", "B", "C", "D"}, {"A"}).fraction == 0.25  # 1 / 4
    assert contract_coverage((), (), ()).fraction is None


def test_coverage_feeds_the_score():
    # endpoints 1, both checks pass; models 1, not defined: 2 / 3
    cov = contract_coverage({"GET /a"}, {"GET /a"}, {"GET /a"}, {"M"}, set())
    assert cov.fraction == pytest.approx(2 / 3)
    # 10 × (0.55×(2/3) + 0.45×1.0) = 10 × (0.36667 + 0.45) = 8.1667
    assert harness_score(Dimensions(None, cov.fraction, 1.0)).score == pytest.approx(8.16667, abs=1e-4)


# --------------------------------------------------------------------------- review
def _passes(a: float, c: float, i: float) -> list[ReviewPass]:
    return [ReviewPass("architecture", a, "follows the layout"), ReviewPass("correctness", c, "misses empty input"),
            ReviewPass("impact", i, "no public change")]


def test_review_is_the_mean():
    assert review_dimension(_passes(0.75, 0.5, 1.0)) == pytest.approx(0.75)  # 2.25 / 3
    assert review_dimension(_passes(0.25, 0.25, 0.5)) == pytest.approx(1 / 3)  # 1.0 / 3
    assert review_dimension(_passes(1, 1, 1)) == 1.0


def test_review_in_the_full_score():
    review = review_dimension(_passes(0.75, 0.5, 1.0))  # 0.75
    # 10 × (0.30×0.9 + 0.25×0.8 + 0.20×1.0 + 0.25×0.75) = 8.575 (the docs' worked example)
    assert harness_score(Dimensions(0.9, 0.8, 1.0, review)).score == pytest.approx(8.575)


@pytest.mark.parametrize("bad", [0.6, 0.0, 0.3, 1.25, "0.5", True, None])
def test_review_rejects_unanchored_scores(bad):
    with pytest.raises(ScoreError, match="not one of"):
        review_dimension(_passes(bad, 0.5, 0.5))


def test_review_needs_three_passes_one_per_criterion_with_reasons():
    with pytest.raises(ScoreError, match="one pass per criterion"):
        review_dimension(_passes(0.5, 0.5, 0.5)[:2])
    with pytest.raises(ScoreError, match="one pass per criterion"):
        review_dimension(_passes(0.5, 0.5, 0.5)[:2] + [ReviewPass("architecture", 0.5, "again")])
    with pytest.raises(ScoreError, match="no reason"):
        review_dimension(_passes(0.5, 0.5, 0.5)[:2] + [ReviewPass("impact", 0.5, "  ")])


# ------------------------------------------------------------------- verdict and must-pass
def test_must_pass_codes_are_registered_codes():
    assert {"phantom-api", "phantom-import", "invariant-violation"} <= MUST_PASS_CODES
    assert MUST_PASS_CODES <= set(CODES)


def test_perfect_score_with_a_phantom_call_fails():
    perfect = harness_score(Dimensions(1.0, 1.0, 1.0, 1.0))  # 10.0
    for profile in PROFILES:
        assert verdict(perfect, profile).passed
        v = verdict(perfect, profile, ["unused-endpoint", "phantom-api", "phantom-api"])
        assert not v.passed
        assert v.blocking == (("phantom-api", 2),)
        assert v.reasons == ("must-pass: 2 phantom-api finding(s) in the generated code",)


@pytest.mark.parametrize("code", ["phantom-api", "phantom-import", "invariant-violation"])
def test_each_must_pass_code_fails_alone(code):
    assert not verdict(harness_score(Dimensions(1.0, 1.0, 1.0)), "lenient", [code]).passed


def test_other_findings_do_not_block():
    v = verdict(harness_score(Dimensions(1.0, 1.0, 1.0)), "default", ["stale-context", "unknown-field"])
    assert v.passed and v.blocking == () and v.reasons == ()


def test_profiles_thresholds():
    s = harness_score(Dimensions(0.9, 0.8, 1.0, 0.75))  # 8.575 (hand-computed above)
    assert verdict(s, "default").passed  # 8.575 ≥ 7.0, coverage 0.8 ≥ 0.75, compile 1.0 ≥ 0.8
    assert verdict(s, "lenient").passed
    assert verdict(s, "frontend").passed  # 8.575 ≥ 6.5, coverage ≥ 0.5, compile 1.0
    strict = verdict(s, "strict")  # score 8.575 ≥ 8.5 but coverage 0.8 < 1.0
    assert not strict.passed and strict.reasons == ("coverage 0.80 is below strict's 1.00",)


def test_score_below_the_minimum():
    # 10 × (0.55×0.8 + 0.45×0.4) = 6.2: fails default (7.0), passes lenient (5.0);
    # frontend: 6.2 < 6.5 and compile 0.4 < 1.0
    s = harness_score(Dimensions(None, 0.8, 0.4))
    assert verdict(s, "default").reasons == ("score 6.2 is below default's 7.0", "compile 0.40 is below default's 0.80")
    assert verdict(s, "lenient").passed
    assert verdict(s, "frontend").reasons == ("score 6.2 is below frontend's 6.5", "compile 0.40 is below frontend's 1.00")


def test_minimum_on_a_missing_dimension_is_not_applied():
    # strict wants review ≥ 0.75, but there is no review: 10 × (0.35 + 0.35 + 0.30) = 10.0
    assert verdict(harness_score(Dimensions(1.0, 1.0, 1.0)), "strict").passed


def test_unknown_profile():
    with pytest.raises(ScoreError, match="unknown evaluation profile"):
        verdict(harness_score(Dimensions(None, 1.0, 1.0)), "relaxed")


# ------------------------------------------------------------------------------ depth
@pytest.mark.parametrize("files,domains,texts,depth", [
    (1, 1, ("rename a label",), "minimal"),
    (2, 1, ("fix the typo in the notes list",), "minimal"),
    (3, 1, ("add a notes list",), "standard"),
    (2, 2, ("add a notes list",), "standard"),
    (8, 2, ("notes CRUD",), "standard"),
    (9, 2, ("notes CRUD",), "thorough"),
    (4, 3, ("notes CRUD",), "thorough"),
    (1, 1, ("add a login form",), "thorough"),
    (1, 1, ("Stripe checkout",), "thorough"),
    (1, 1, ("tighten the CSRF check",), "thorough"),
    (1, 1, ("a database migration for notes",), "thorough"),
    (1, 1, ("document the public API",), "thorough"),
    (1, 1, ("notes", "src/auth/session.ts"), "thorough"),
])
def test_select_depth(files, domains, texts, depth):
    assert select_depth(files, domains, *texts).depth == depth


def test_keywords_are_words():
    assert risk_keywords("the author of a post", "payday", "migrated notes") == ("migration",)
    assert risk_keywords("OAuth2 sign-in", "encrypting secrets") == ("auth", "security")


def test_depth_reasons():
    choice = select_depth(9, 1, "payment refunds")
    assert choice.reasons == ("mentions payment", "9 files (more than 8)")


def test_raise_depth_one_level_at_most_twice():
    c = select_depth(1, 1, "rename")
    assert c.depth == "minimal"
    c = raise_depth(c, "stub check failed")
    assert (c.depth, c.raises) == ("standard", 1)
    c = raise_depth(c, "build failed")
    assert (c.depth, c.raises) == ("thorough", 2)
    assert raise_depth(c, "again") == c
    assert c.reasons[-2:] == ("raised: stub check failed", "raised: build failed")


def test_raise_depth_stops_after_two_raises_even_below_thorough():
    c = DepthChoice("minimal", (), raises=2)
    assert raise_depth(c, "x") == c
    t = select_depth(1, 1, "auth")
    assert raise_depth(t, "x") == t


def test_thorough_uses_strict():
    assert profile_for("thorough") == "strict"
    assert profile_for("thorough", "lenient") == "strict"
    assert profile_for("standard", "frontend") == "frontend"
    assert profile_for("minimal") == "default"
    with pytest.raises(ScoreError):
        profile_for("minimal", "nope")


def test_the_docs_worked_example():
    # docs/stages.md: 3 endpoints all implemented, 2 called; 2 models defined: 7/8 = 0.875
    eps = {"GET /notes", "POST /notes", "DELETE /notes/{id}"}
    cov = contract_coverage(eps, eps, {"GET /notes", "POST /notes"}, {"Note", "User"}, {"Note", "User"})
    assert cov.fraction == 0.875
    review = review_dimension(_passes(0.75, 0.5, 1.0))  # 0.75
    # 10 × (0.27 + 0.21875 + 0.20 + 0.1875) = 8.7625
    full = harness_score(Dimensions(0.9, cov.fraction, 1.0, review))
    assert full.score == pytest.approx(8.7625)
    # 10 × (0.315 + 0.30625 + 0.30) = 9.2125
    assert harness_score(Dimensions(0.9, cov.fraction, 1.0)).score == pytest.approx(9.2125)
    assert [p for p in PROFILES if verdict(full, p).passed] == ["lenient", "default", "frontend"]
