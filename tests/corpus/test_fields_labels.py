"""The field labels of the development corpus (``tests/corpus/fields/*.json``, measured by
``bench/fields_corpus.py``): their schema, and, when the corpus is on this machine, that every
label still sits on its line (read with plain JSON and text, not with specward)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIELD_FILES = sorted((REPO / "tests" / "corpus" / "fields").glob("*.json"))
CODES = {"unknown-field", "missing-field", "unknown-parameter", "missing-parameter", "unknown-response-field"}


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


bc = _load("bench_corpus", REPO / "bench" / "corpus.py")
CORPUS_DIR = bc.find_corpus_dir(None)
needs_corpus = pytest.mark.skipif(CORPUS_DIR is None, reason="the development corpus is not on this machine")


def _data(path: Path) -> tuple[dict, dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    calls = json.loads((path.parent / data["calls_labels"]).resolve().read_text(encoding="utf-8"))
    return data, calls


def test_both_corpora_have_field_labels():
    assert {json.loads(p.read_text())["corpus"] for p in FIELD_FILES} == {"sonarr", "karakeep"}


@pytest.mark.parametrize("path", FIELD_FILES, ids=lambda p: p.stem)
def test_field_labels_follow_the_schema(path):
    data, calls = _data(path)
    assert data["corpus"] == calls["corpus"] and data["notes"]
    for f in data["findings"]:
        assert f["code"] in CODES and f["verdict"] in ("true", "false") and f["note"] and f["name"], f
        if f["verdict"] == "false":
            assert f.get("cause"), f  # a false finding says where it comes from
    keys = [(f["file"], f["line"], f["code"], f["name"]) for f in data["findings"]]
    assert len(keys) == len(set(keys))
    matched = {(c["file"], c["line"], c["endpoint"]) for c in calls["calls"] if c["verdict"] == "matched"}
    assert len(data["correct"]) >= 40
    for c in data["correct"]:
        # every call judged correct is a labelled matched call, with the end of its arguments below it
        assert (c["file"], c["line"], c["endpoint"]) in matched, c
        assert c["end_line"] >= c["line"] and c["note"] and c["judged"], c
    for m in data["mutations"]:
        assert m["expect"] in CODES and m["find"] and m["note"], m
        assert m["replace"] is None or m["replace"] != m["find"], m
    for x in data.get("missed", []):
        assert x["code"] in CODES and x["name"] and x["note"], x


def _lines(corpus: str, rel: str) -> list[str]:
    return (CORPUS_DIR / corpus / rel).read_text(encoding="utf-8", errors="replace").split("\n")


@needs_corpus
@pytest.mark.parametrize("path", FIELD_FILES, ids=lambda p: p.stem)
def test_field_labels_sit_on_their_lines(path):
    data, _ = _data(path)
    if not (CORPUS_DIR / data["corpus"]).is_dir():
        pytest.skip(f"{data['corpus']} is not in {CORPUS_DIR}")
    wrong = []
    for c in data["correct"]:
        if not bc._has_code(_lines(data["corpus"], c["file"]), c["line"], c["code"]):
            wrong.append(f"correct {c['file']}:{c['line']} {c['code']}")
    for m in data["mutations"]:
        lines = _lines(data["corpus"], m["file"])
        if not (1 <= m["line"] <= len(lines) and m["find"] in lines[m["line"] - 1]):
            wrong.append(f"mutation {m['file']}:{m['line']} {m['find']}")
    for f in data["findings"] + data.get("missed", []):
        # the field's name is written at the finding or a few lines around it
        lines = _lines(data["corpus"], f["file"])
        near = "\n".join(lines[max(0, f["line"] - 4):f["line"] + 3])
        if not re.search(r"(?<![\w$])" + re.escape(f["name"]) + r"(?![\w$])", near):
            wrong.append(f"{f['code']} {f['file']}:{f['line']} `{f['name']}`")
    assert not wrong, "labels no longer on their lines:\n" + "\n".join(wrong)


def test_finding_names_are_read_from_the_messages():
    fc = _load("bench_fields_corpus", REPO / "bench" / "fields_corpus.py")
    assert fc.finding_names("unknown-field", "`author.nmae` is not a field of `author` in ...") == {"nmae"}
    assert fc.finding_names("missing-field", "The request body of POST /x requires fields `a`, `b.c`") == {"a", "c"}
    assert fc.finding_names("missing-parameter", "GET /x requires the query parameter `q`") == {"q"}
