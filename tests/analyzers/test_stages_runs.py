"""The run log's records, its tolerant reading, the text chart and the HTML dashboard
(analyzers/stages/runs.py). Pure: no file, no process."""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser

import pytest

from specward.analyzers.stages import runs
from specward.analyzers.stages.runs import RunRecord, decode_lines, encode, make_record, trend_chart
from specward.analyzers.stages.score import Dimensions, harness_score, verdict

H1 = "sha256:" + "1" * 64
H2 = "sha256:" + "2" * 64


def rec(run_id: str, score: float | None, prompt: str = H1, verdict: str | None = "PASS", **kw) -> RunRecord:
    return RunRecord(run_id, kw.pop("time", "2026-12-01T10:00:00Z"), kw.pop("stage", "slice"),
                     kw.pop("model", "openai/test"), prompt, score=score, verdict=verdict, **kw)


# ---------------------------------------------------------------- records
def test_prompt_hash_is_sha256_of_the_full_text():
    text = "You are specward.\nContract: {...}\nDO NOT REPEAT: x"
    assert runs.prompt_hash(text) == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert runs.prompt_hash(text) != runs.prompt_hash(text + " ")


def test_make_record_from_score_and_verdict_round_trips():
    score = harness_score(Dimensions(compliance=0.9, coverage=0.75, compile=1.0))
    v = verdict(score, "default", ["phantom-api", "stub", "phantom-api"])
    r = make_record("run-1", "2026-12-01T10:00:00.000Z", "slice", "openai/gpt-x", "the prompt",
                    ["api/notes.py", "web/notes.ts"], ["phantom-api", "stub", "phantom-api"], score, v)
    assert r.prompt_hash == runs.prompt_hash("the prompt")
    assert r.findings == (("phantom-api", 2), ("stub", 1))
    assert r.dimensions == (("compliance", 0.9), ("coverage", 0.75), ("compile", 1.0), ("review", None))
    assert r.score == pytest.approx(score.score) and r.verdict == "FAIL"
    line = encode(r)
    assert line.endswith("\n") and line.count("\n") == 1 and line.isascii()
    assert json.loads(line)["v"] == runs.VERSION
    assert decode_lines(line) == ((r,), ())


def test_round_trip_of_many_records_and_odd_text():
    records = [rec("a", 7.5), rec("b\u00e9<&>\"", None, H2, None, files=("x\udcff.py",), model=""),
               rec("c", 0.0, verdict="FAIL", findings=(("invariant-violation", 1),),
                   dimensions=(("coverage", 0.0), ("compile", 0.5)))]
    text = "".join(encode(r) for r in records)
    assert decode_lines(text) == (tuple(records), ())


def test_encode_refuses_what_could_not_be_read_back():
    with pytest.raises(ValueError):
        encode(rec("a", 11.0))
    with pytest.raises(ValueError):
        encode(rec("a", 5.0, prompt="md5:abc"))
    with pytest.raises(ValueError):
        encode(rec("a", 5.0, time="yesterday"))
    with pytest.raises(ValueError):
        encode(rec("a", float("nan")))


# ---------------------------------------------------------------- tolerance
def test_every_kind_of_bad_line_is_a_problem_with_its_line_number():
    good = [encode(rec(f"r{i}", float(i))) for i in range(4)]
    newer = json.loads(good[0])
    newer["v"] = 2
    wrong = json.loads(good[0])
    wrong["score"] = "high"
    text = (good[0] + "this is not json\n" + good[1] + "\n" + json.dumps(newer) + "\n" + "[1, 2]\n"
            + json.dumps(wrong) + "\n" + good[2] + '{"v":1,"run_id":"r9","ti')
    records, problems = decode_lines(text)
    assert [r.run_id for r in records] == ["r0", "r1", "r2"]
    got = {p.line: p.message for p in problems}
    assert sorted(got) == [2, 5, 6, 7, 9]  # line 4 is blank: skipped silently
    assert got[2] == "not JSON: skipped"
    assert "newer specward" in got[5] and "version 2" in got[5]
    assert "not a JSON object" in got[6]
    assert "`score`" in got[7]
    assert got[9].startswith("incomplete last line")
    assert str(problems[0]) == "line 2: not JSON: skipped"


def test_a_whole_last_record_without_newline_is_read():
    line = encode(rec("last", 5.0))
    assert decode_lines(line.rstrip("\n")) == ((rec("last", 5.0),), ())


def test_a_truncated_last_line_that_is_json_but_not_a_record():
    records, problems = decode_lines(encode(rec("a", 1.0)) + '{"v": 1}')
    assert len(records) == 1
    assert problems[0].line == 2 and problems[0].message.startswith("incomplete last line (")


def test_shapes_that_are_refused():
    base = json.loads(encode(rec("a", 5.0)))
    cases = {"v": None, "run_id": "", "model": 3, "files": "a.py", "findings": {"x": -1},
             "dimensions": {"beauty": 1.0}, "verdict": "MAYBE", "prompt_hash": "sha256:xyz"}
    for key, value in cases.items():
        obj = dict(base, **{key: value})
        records, problems = decode_lines(json.dumps(obj) + "\n")
        assert records == () and len(problems) == 1, key
    dims = dict(base, dimensions={"coverage": 1.5})
    assert decode_lines(json.dumps(dims) + "\n")[0] == ()
    assert decode_lines("") == ((), ())
    assert decode_lines("\n\n  \n") == ((), ())
    # unknown fields of the same version are ignored (a later field added compatibly)
    assert decode_lines(json.dumps(dict(base, extra=1)) + "\n")[0] == (rec("a", 5.0),)


def test_crlf_and_deep_nesting_do_not_break_reading():
    text = encode(rec("a", 5.0)).replace("\n", "\r\n") + "[" * 100000 + "\n"
    records, problems = decode_lines(text)
    assert [r.run_id for r in records] == ["a"] and [p.line for p in problems] == [2]


# ---------------------------------------------------------------- chart
def test_chart_of_hand_made_records():
    records = [rec("r1", 10.0), rec("r2", 5.0), rec("r3", 0.0, H2), rec("r4", 7.5, H2), rec("r5", None, H1, None)]
    chart = trend_chart(records, width=10, height=4)
    assert chart == (
        "harness score, runs 1-5 of 5 (oldest left)\n"
        " 10 |#\n"
        "    |#  #\n"
        "  5 |## #\n"
        "    |## #\n"
        "  0 +----?\n"
        "       ^ ^\n"
        "^ prompt changed since the previous run (2 in view); ? no score\n"
        "last: r5  slice  score -\n")


def test_chart_width_keeps_the_last_runs_and_marks_a_change_at_the_cut():
    records = [rec(f"r{i}", float(i), H1 if i < 6 else H2) for i in range(10)]
    chart = trend_chart(records, width=4, height=10).splitlines()
    assert chart[0] == "harness score, runs 7-10 of 10 (oldest left)"
    bars = chart[1:11]
    assert all(len(line) <= 5 + 4 for line in bars)  # the axis, then one column a run
    # the first run shown (r6) changed the prompt from r5, which is cut off
    assert chart[12] == "     ^"
    assert bars[-1] == "    |####" and bars[-8] == "    |  ##" and bars[-9] == "    |   #" and bars[-10] == " 10 |"
    assert "r9" in chart[-1]


def test_chart_unicode_blocks_and_colors():
    records = [rec("a", 2.5, verdict="PASS"), rec("b", 6.0, H2, verdict="FAIL")]
    chart = trend_chart(records, width=10, height=2, unicode=True)
    lines = chart.splitlines()
    assert lines[1] == " 10 ┤ ▂" and lines[2] == "  5 ┤▄█" and lines[3] == "  0 └──"
    assert lines[4] == "      ▲" and lines[5].startswith("▲ prompt changed")
    assert "\x1b[" not in chart
    colored = trend_chart(records, width=10, height=2, color=True)
    assert "\x1b[32m#\x1b[0m" not in colored.splitlines()[1]  # a 2.5 has no cell in the top row
    assert "\x1b[31m#\x1b[0m" in colored and "\x1b[33m^\x1b[0m" in colored


def test_chart_never_prints_control_characters_from_the_log():
    chart = trend_chart([rec("evil\x1b]0;pwned\x07", 5.0)], width=5, height=2)
    assert "\x1b" not in chart and "\x07" not in chart and "evil\\x1b]0;pwned\\x07" in chart


def test_chart_edges():
    assert trend_chart([], 10, 5) == "no runs\n"
    with pytest.raises(ValueError):
        trend_chart([rec("a", 1.0)], 0, 5)
    with pytest.raises(ValueError):
        trend_chart([rec("a", 1.0)], 5, 1)


# ---------------------------------------------------------------- dashboard
class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    return p


def test_dashboard_has_one_point_per_run_and_the_prompt_changes():
    records = [rec("r1", 3.0), rec("r2", 6.5, H2, "FAIL"), rec("r3", None, H2, None), rec("r4", 9.0, H1)]
    page = runs.dashboard_html(records)
    parsed = _parse(page)
    circles = [a for t, a in parsed.tags if t == "circle" and "run" in a.get("class", "").split()]
    assert [c["data-run-id"] for c in circles] == ["r1", "r2", "r3", "r4"]
    assert "no-score" in circles[2]["class"] and "fail" in circles[1]["class"]
    dashed = [a for t, a in parsed.tags if t == "line" and a.get("class") == "prompt-change"]
    assert len(dashed) == 2
    rows = [a for t, a in parsed.tags if t == "tr"]
    assert len(rows) == 1 + 4  # the header and one row per run
    assert "Problems of the log" not in page


def test_dashboard_is_self_contained():
    page = runs.dashboard_html([rec("r1", 3.0)])
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page and "@import" not in page and "url(" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page
    assert "default-src 'none'" in page


def test_dashboard_escapes_every_value_from_the_log():
    evil = '<script>alert("x")</script>'
    records = [rec(evil, 5.0, model=evil, stage=f"s{evil}", time="2026-12-01T10:00:00Z",
                   findings=((f"c{evil}", 1),), files=(evil,))]
    problems = (runs.RunProblem(3, f"not a run record: {evil}"),)
    page = runs.dashboard_html(records, problems, source=f"{evil}/runs.jsonl")
    assert "<script" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    parsed = _parse(page)
    circle = next(a for t, a in parsed.tags if t == "circle")
    assert circle["data-run-id"] == evil  # the attribute holds the value, escaped in the source
    assert "Problems of the log" in page and "line 3: not a run record" in "".join(parsed.text)
    assert not re.search(r"<(?!/?(html|head|meta|title|style|body|h1|h2|p|code|svg|line|text|polyline|circle|"
                         r"table|thead|tbody|tr|th|td|ul|li)\b)[a-z!]", page.replace("<!DOCTYPE html>", ""))


def test_dashboard_without_runs():
    page = runs.dashboard_html([])
    assert "No runs yet." in page and "<svg" not in page
