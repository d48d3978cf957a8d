"""Baseline identities and the split into new and baselined findings (``analyzers/baseline.py``)."""

from __future__ import annotations

import pytest

from specward.analyzers import baseline as bl
from specward.analyzers.model import Finding, Span

CALL = b"export const load = () => fetch('/api/nope');\n"


def fp_of(data: bytes, needle: bytes, code: str = "phantom-api") -> str:
    start = data.index(needle)
    return bl.fingerprint(code, data, start, start + len(needle))


def test_identity_survives_lines_above_and_whitespace_but_not_an_edit_of_its_line():
    first = fp_of(CALL, b"'/api/nope'")
    assert fp_of(b"// notes\n\n\n" + CALL, b"'/api/nope'") == first
    assert fp_of(CALL.replace(b"() =>", b"()   =>"), b"'/api/nope'") == first  # whitespace only
    assert fp_of(b"  " + CALL, b"'/api/nope'") == first  # indentation
    assert fp_of(CALL.replace(b"load", b"loadAll"), b"'/api/nope'") != first  # its line changed
    assert fp_of(CALL, b"'/api/nope'", code="method-mismatch") != first  # another code
    assert fp_of(CALL.replace(b"nope", b"nah"), b"'/api/nah'") != first


def test_a_file_level_finding_is_identified_by_its_code_alone():
    assert bl.fingerprint("file-skipped", b"anything", 0, 0) == bl.fingerprint("file-skipped", b"", 0, 0)
    assert bl.fingerprint("file-skipped", b"", 0, 0) != bl.fingerprint("config-invalid", b"", 0, 0)
    assert bl.fingerprint("phantom-api", b"ab", 5, 9)  # positions beyond the text are clamped


def keyed(file: str, fp: str, line: int, code: str = "phantom-api") -> bl.Keyed:
    return bl.Keyed(Finding(code, "error", f"m{line}", file, Span(line, line + 1)), file, fp, line)


def test_split_counts_identical_findings_and_keeps_order():
    recorded = bl.entries([keyed("a.ts", "x", 1), keyed("a.ts", "x", 5), keyed("b.ts", "y", 2)])
    assert [(e.file, e.fingerprint, e.count, e.line) for e in recorded] == [("a.ts", "x", 2, 1), ("b.ts", "y", 1, 2)]
    now = [keyed("a.ts", "x", 1), keyed("a.ts", "x", 4), keyed("a.ts", "x", 9), keyed("b.ts", "z", 2)]
    new, old = bl.split(now, recorded)
    assert [k.line for k in old] == [1, 4]
    assert [(k.file, k.line) for k in new] == [("a.ts", 9), ("b.ts", 2)]
    # the same identity in another file, or with another code, is not the baseline's
    new, _ = bl.split([keyed("c.ts", "x", 1), keyed("a.ts", "x", 1, code="missing-export")], recorded)
    assert len(new) == 2


def test_render_and_parse_round_trip():
    items = bl.entries([keyed("web/é.ts", "x", 3), keyed("a.ts", "y", 1)])
    assert bl.parse(bl.render(items)) == items


@pytest.mark.parametrize("text, says", [
    ("", "not valid JSON"),
    ("[]", "not a specward baseline"),
    ('{"specward_baseline": 2, "findings": []}', "baseline format 2"),
    ('{"specward_baseline": 1}', "`findings` must be a list"),
    ('{"specward_baseline": 1, "findings": [3]}', "findings[0] is not an object"),
    ('{"specward_baseline": 1, "findings": [{"file": "a", "code": "c", "fingerprint": "f", "count": 0}]}',
     "`count` must be a positive integer"),
])
def test_parse_refuses_what_is_not_a_baseline(text: str, says: str):
    with pytest.raises(bl.BaselineError, match=None) as err:
        bl.parse(text)
    assert says in str(err.value)
