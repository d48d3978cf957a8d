"""The review passes of the harness score (analyzers/stages/review.py): their prompts and the
strict reading of an answer."""

from __future__ import annotations

import json

import pytest

from specward.analyzers.stages import review
from specward.analyzers.stages.score import REVIEW_CRITERIA, ReviewPass, ScoreError, review_dimension
from specward.server.stage_run import JSON_ANSWER_FORMAT


def answer(criterion: str, score: object = 0.75, reason: object = "Fine, one small gap in notes.ts:12.") -> str:
    return "Here is my review:\n```json\n" + json.dumps({"criterion": criterion, "score": score,
                                                         "reason": reason}) + "\n```\n"


def test_three_fixed_passes():
    assert review.CRITERIA == ("architecture", "correctness", "impact")
    assert set(review.CHECKS) == set(REVIEW_CRITERIA)


def test_the_json_answer_format_is_the_stages_wording():
    assert review.JSON_ANSWER_FORMAT == JSON_ANSWER_FORMAT


@pytest.mark.parametrize("criterion", review.CRITERIA)
def test_prompt_states_criterion_checks_anchors_and_format(criterion: str):
    text = review.system_prompt(criterion)
    assert REVIEW_CRITERIA[criterion] in text
    for check in review.CHECKS[criterion]:
        assert check in text
    for value, meaning in review.ANCHORS:
        assert f"- {value:g}: {meaning}" in text
    assert JSON_ANSWER_FORMAT in text
    assert f'"criterion" (the string "{criterion}")' in text and '"score"' in text and '"reason"' in text


def test_prompt_of_an_unknown_criterion():
    with pytest.raises(review.ReviewError, match="unknown review criterion 'style'"):
        review.system_prompt("style")


@pytest.mark.parametrize("score", [0.25, 0.5, 0.75, 1.0, 1])
def test_parse_each_anchor(score: float):
    got = review.parse_review("correctness", answer("correctness", score))
    assert got == ReviewPass("correctness", float(score), "Fine, one small gap in notes.ts:12.")


def test_parse_bare_object_in_prose_and_the_mean():
    passes = [review.parse_review(c, f'I think {{"criterion": "{c}", "score": {s}, "reason": " ok "}} overall.')
              for c, s in zip(review.CRITERIA, (0.75, 0.5, 1.0))]
    assert passes[0].reason == "ok"
    assert review_dimension(passes) == 0.75


@pytest.mark.parametrize("score,found", [
    (0.8, "score 0.8 is not one of the anchors 0.25, 0.5, 0.75, 1"),
    (0, "score 0 is not one of the anchors"),
    ("0.75", "score '0.75' is not one of the anchors"),
    (True, "score true is not one of the anchors"),
    (None, "score null is not one of the anchors"),
])
def test_parse_refuses_other_scores(score: object, found: str):
    with pytest.raises(review.ReviewError, match="the impact review does not fit") as err:
        review.parse_review("impact", answer("impact", score))
    assert found in str(err.value)
    assert isinstance(err.value, ScoreError)


def test_parse_refuses_wrong_criterion_missing_keys_and_empty_reason():
    with pytest.raises(review.ReviewError, match="criterion 'impact' instead of 'architecture'"):
        review.parse_review("architecture", answer("impact"))
    with pytest.raises(review.ReviewError, match=r"no 'reason' key \(keys: 'criterion', 'score'\)"):
        review.parse_review("impact", '{"criterion": "impact", "score": 0.5}')
    with pytest.raises(review.ReviewError, match="an empty reason"):
        review.parse_review("impact", answer("impact", 0.5, "   "))
    with pytest.raises(review.ReviewError, match="reason 3 is not text"):
        review.parse_review("impact", answer("impact", 0.5, 3))


def test_parse_without_json_never_quotes_the_answer():
    secret = "x" * 500
    with pytest.raises(review.ReviewError) as err:
        review.parse_review("correctness", f"I would give it a 0.75. {secret}")
    message = str(err.value)
    assert "the correctness review does not fit" in message and 'expected one JSON object {"criterion"' in message
    assert secret not in message


def test_long_values_are_cut_in_the_message():
    with pytest.raises(review.ReviewError) as err:
        review.parse_review("impact", answer("y" * 300))
    assert "y" * 41 not in str(err.value)


def test_bound_files_whole_cut_and_left_out():
    small = ("a.ts", "export const a = 1;\n")
    big = ("b.ts", "".join(f"line {i}\n" for i in range(2000)))
    rest = ("c.ts", "export const c = 3;\n")
    whole = review.bound_files([small, big, rest], 10_000)
    assert whole.cut == () and whole.left_out == ()
    assert "``` path=a.ts\nexport const a = 1;\n```\n" in whole.text and "line 1999\n" in whole.text
    bounded = review.bound_files([small, big, rest], 500)
    assert bounded.cut == ("b.ts",) and bounded.left_out == ("c.ts",)
    assert len(bounded.text) <= 500 * review.CHARS_PER_TOKEN + 200
    assert "more characters not shown" in bounded.text and "(left out, over the size limit: c.ts)" in bounded.text
    assert "line 1999" not in bounded.text


def test_a_file_with_fences_gets_a_longer_fence():
    got = review.bound_files([("README.md", "```sh\nls\n```\n")], 1000)
    assert got.text.startswith("```` path=README.md\n```sh\nls\n```\n````\n")


def test_review_messages_hold_contract_and_files():
    msgs = review.review_messages("impact", [("server/app.js", "app.get('/x')\n")],
                                  [("specs/x.dsl.json", '{"version": "1.0"}\n')])
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[0]["content"] == review.system_prompt("impact")
    user = msgs[1]["content"]
    assert user.index("path=specs/x.dsl.json") < user.index("path=server/app.js")
    assert "impact and breaking changes" in user
