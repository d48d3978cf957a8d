"""The corpus labels and the scoring of bench/corpus.py.

The labels are checked against the corpus when it is present (each label's code is on its
line, each verdict agrees with the contract read independently of specward); the scoring and
the mutation planner are checked on small inputs written here.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LABEL_FILES = sorted((REPO / "tests" / "corpus").glob("*.json"))


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_corpus", REPO / "bench" / "corpus.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_corpus"] = mod
    spec.loader.exec_module(mod)
    return mod


bc = _load_bench()
CORPUS_DIR = bc.find_corpus_dir(None)


def test_there_are_two_labelled_corpora():
    assert {json.loads(p.read_text())["corpus"] for p in LABEL_FILES} == {"sonarr", "karakeep"}


@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.stem)
def test_labels_follow_the_schema(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert bc.validate_labels(data) == []
    calls = [c for c in data["calls"] if c["verdict"] != "wrapper-body"]
    assert len(calls) >= 200
    assert data["notes"]
    keys = [(c["file"], c["line"], c["method"], c.get("endpoint") or c.get("path")) for c in data["calls"]]
    assert len(keys) == len(set(keys)), "two labels for the same request at the same line"


def test_validate_labels_rejects_what_it_should():
    bad = {"corpus": "x", "contracts": [], "roots": [], "notes": [], "calls": [
        {"file": "a.ts", "line": 1, "code": "'/a'", "method": "GET", "verdict": "matched"},
        {"file": "a.ts", "line": 2, "code": "'/b'", "method": "GET", "verdict": "method-mismatch"},
        {"file": "a.ts", "line": 3, "code": "'/c'", "method": "GET", "verdict": "phantom"},
        {"file": "a.ts", "line": 4, "code": "'/d'", "method": "GET", "verdict": "maybe"},
    ]}
    problems = bc.validate_labels(bad)
    assert len(problems) == 4


needs_corpus = pytest.mark.skipif(CORPUS_DIR is None, reason="the development corpus is not on this machine")


@needs_corpus
@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.stem)
def test_labels_agree_with_the_corpus_and_its_contract(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    root = CORPUS_DIR / data["corpus"]
    if not root.is_dir():
        pytest.skip(f"{root} is not here")
    contract = bc.Contract.load([root / c for c in data["contracts"]], bool(data.get("case_insensitive")))
    texts: dict[str, list[str]] = {}
    wrong = []
    for c in data["calls"]:
        lines = texts.setdefault(c["file"], (root / c["file"]).read_text(encoding="utf-8").split("\n"))
        where = f"{c['file']}:{c['line']}"
        if not bc._has_code(lines, c["line"], c["code"]):
            wrong.append(f"{where}: {c['code']!r} is not on that line")
        if not bc.in_roots(c["file"], data["roots"]):
            wrong.append(f"{where}: outside the roots")
        v = c["verdict"]
        if v == "matched":
            method, _, p = c["endpoint"].partition(" ")
            if method != c["method"] or contract.verdict(method, p) != "matched":
                wrong.append(f"{where}: {c['endpoint']} is not declared")
        elif v in ("phantom", "method-mismatch"):
            got = contract.verdict(c["method"], c["path"])
            if got != v:
                wrong.append(f"{where}: {c['method']} {c['path']} is {got}, labelled {v}")
    assert wrong == []


# --- scoring, on labels and rows written here


def _labels(calls, ci=True):
    score = bc.Score("t")
    data = {"calls": calls}
    return bc.make_labels(data, Path("/nonexistent"), score)


def _call(line, verdict, method="GET", endpoint=None, **kw):
    c = {"file": "src/api.ts", "line": line, "code": "x", "method": method, "verdict": verdict}
    if endpoint:
        c["endpoint"] = endpoint
    c.update(kw)
    return c


def _row(line, status, method="GET", endpoint=None, file="src/api.ts"):
    return {"file": file, "line": line, "method": method, "url": "/x", "status": status, "endpoint": endpoint}


def test_scoring_counts_right_wrong_missed_and_false_alarms():
    labels = _labels([
        _call(10, "matched", endpoint="GET /api/v5/episodeFile/{id}"),
        _call(20, "matched", "POST", endpoint="POST /api/v5/tag"),
        _call(30, "phantom", path="/api/v5/stats", note="n"),
        _call(40, "wrapper-body"),
        _call(50, "external"),
        _call(60, "dynamic", note="n"),
    ])
    rows = [
        _row(11, "matched", endpoint="GET /api/v5/episodefile/{episodeFileId}"),  # one line off, other case
        _row(20, "method-mismatch", "POST"),  # wrong verdict, and a false alarm
        _row(30, "phantom"),  # true finding
        _row(40, "phantom"), _row(40, "matched"),  # a wrapper body absorbs both
        _row(90, "phantom"),  # an extra with a finding: false alarm
    ]
    score = bc.Score("t")
    bc.score_run(score, labels, bc.Run(rows, {}, 0.0), ci=True)
    assert score.labelled == 5
    assert score.right == 3  # line 10 (matched), 30 (phantom), 50 (external, not reported)
    assert [w["line"] for w in score.wrong] == [20]
    assert [m["line"] for m in score.missed] == [60]
    assert score.findings == 3 and score.true_findings == 1
    assert sorted(f["line"] for f in score.false_alarms) == [20, 90]
    assert [e["line"] for e in score.extras] == [90]


def test_endpoints_compare_case_sensitively_unless_the_corpus_says_otherwise():
    labels = _labels([_call(10, "matched", endpoint="GET /api/v1/Lists")])
    rows = [_row(10, "matched", endpoint="GET /api/v1/lists")]
    for ci, right in ((True, 1), (False, 0)):
        score = bc.Score("t")
        bc.score_run(score, labels, bc.Run(rows, {}, 0.0), ci=ci)
        assert score.right == right


def test_also_accepts_a_second_reading_and_a_finding_there_is_true():
    labels = _labels([_call(10, "phantom", path="/api/health", note="n", also=["dynamic"])])
    for status, right, true in (("unresolved", 1, 0), ("phantom", 1, 1), ("matched", 0, 0)):
        score = bc.Score("t")
        bc.score_run(score, labels, bc.Run([_row(10, status)], {}, 0.0), ci=False)
        assert (score.right, score.true_findings) == (right, true)


def test_two_requests_at_one_line_are_told_apart_by_method():
    labels = _labels([
        _call(10, "matched", "POST", endpoint="POST /api/v5/customfilter"),
        _call(10, "matched", "PUT", endpoint="PUT /api/v5/customfilter/{id}"),
    ])
    rows = [_row(10, "matched", "PUT", endpoint="PUT /api/v5/customfilter/{id}"),
            _row(10, "matched", "POST", endpoint="POST /api/v5/customfilter")]
    score = bc.Score("t")
    bc.score_run(score, labels, bc.Run(rows, {}, 0.0), ci=True)
    assert score.right == 2 and not score.extras


# --- the mutation planner


CONTRACT = bc.Contract([("GET", ["api", "v5", "episode"]), ("PUT", ["api", "v5", "episode", "{id}"]),
                        ("GET", ["api", "v5", "episode", "{id}"]), ("GET", ["api", "v5", "wanted", "cutoff"])], True)


def test_rename_breaks_the_last_literal_segment_into_an_undeclared_path():
    lines = ["const q = useApiQuery({", "  path: `/wanted/cutoff`,", "});"]
    lab = _labels([dict(_call(2, "matched", endpoint="GET /api/v5/wanted/cutoff"), call_line=1)])[0]
    mut = bc.plan_mutation(lab, lines, CONTRACT, "rename", random.Random(3))
    assert mut is not None and mut.kind == "rename" and mut.expect == "phantom"
    assert mut.new.startswith("  path: `/wanted/") and "cutoff" in mut.new and mut.new != mut.old
    assert CONTRACT.verdict("GET", "/api/v5/wanted/" + mut.new.split("/wanted/")[1].split("`")[0]) == "phantom"


def test_rename_skips_words_that_a_parameter_route_would_still_match():
    # GET /wanted/{kind} takes any word after /wanted: no rename of `cutoff` makes the call undeclared
    contract = bc.Contract([("GET", ["api", "v5", "wanted", "cutoff"]), ("GET", ["api", "v5", "wanted", "{kind}"])], True)
    lines = ["get(`/wanted/cutoff`)"]
    lab = _labels([_call(1, "matched", endpoint="GET /api/v5/wanted/cutoff")])[0]
    assert bc.plan_mutation(lab, lines, contract, "rename", random.Random(1)) is None
    assert bc.plan_mutation(lab, lines, CONTRACT, "rename", random.Random(1)) is not None


def test_method_mutation_changes_the_written_method_to_an_undeclared_one():
    lines = ["useApiMutation({", "  path: `/episode/${id}`,", "  method: 'PUT',", "});"]
    lab = _labels([dict(_call(2, "matched", "PUT", endpoint="PUT /api/v5/episode/{id}"), call_line=1)])[0]
    mut = bc.plan_mutation(lab, lines, CONTRACT, "method", random.Random(1))
    assert mut is not None and mut.line == 3 and mut.expect == "method-mismatch"
    assert mut.new in ("  method: 'POST',", "  method: 'DELETE',")  # the wrapper's type allows only these


def test_method_mutation_of_an_openapi_fetch_call():
    lines = ["await client.GET(\"/episode\", {});"]
    lab = _labels([_call(1, "matched", endpoint="GET /api/v5/episode")])[0]
    mut = bc.plan_mutation(lab, lines, CONTRACT, "method", random.Random(1))
    assert mut is not None and mut.new == "await client.PATCH(\"/episode\", {});"


def test_last_literal_segment_ignores_parameters_queries_and_hosts():
    body = "http://localhost:${port}/api/v1/assets/${id}?token=${t}"
    s, e = bc._last_literal_segment(body)
    assert body[s:e] == "assets"
    body = "/lists/{listId}/bookmarks/{bookmarkId}"
    s, e = bc._last_literal_segment(body)
    assert body[s:e] == "bookmarks"
    assert bc._last_literal_segment("${PATH}") is None


def test_syntax_check_sees_a_broken_file():
    good = b"const a = fetch('/x', { method: 'PUT' });\n"
    bad = b"const a = fetch('/x', { method: 'PUT' );\n"
    assert bc.syntax_errors("a.ts", good) == 0
    assert bc.syntax_errors("a.ts", bad) > 0


def test_a_call_reported_where_its_url_is_built_is_that_call():
    labels = _labels([_call(12, "matched", endpoint="GET /api/v1/tags", defined_line=5)])
    for line, found in ((5, 1), (8, 1), (12, 1), (15, 0), (2, 0)):
        score = bc.Score("t")
        bc.score_run(score, labels, bc.Run([_row(line, "matched", endpoint="GET /api/v1/tags")], {}, 0.0), ci=False)
        assert score.found == found, line
