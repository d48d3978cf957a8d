"""Inline suppression comments (analyzers/suppression.py): the comment forms, which line each
covers, and what ``apply`` drops and reports."""

from __future__ import annotations

import pytest

from specward.analyzers.codes import CODES
from specward.analyzers.model import Finding, Span
from specward.analyzers.suppression import Suppression, apply, parse

PATH = "web/src/a.ts"


def b(text: str) -> bytes:
    return text.encode("utf-8")


def at(text: str, needle: str, nth: int = 0) -> int:
    """The byte offset of the ``nth`` occurrence of ``needle`` in ``text``."""
    data, pos = b(text), -1
    for _ in range(nth + 1):
        pos = data.index(b(needle), pos + 1)
    return pos


def covered(text: str, s: Suppression) -> str:
    return b(text)[s.covers.start:s.covers.end].decode("utf-8")


def codes_as_written(text: str, s: Suppression) -> list[str]:
    """Each code as the span says it is written: the span must point at it in the bytes."""
    return [b(text)[span.start:span.end].decode("utf-8") for _, span in s.codes]


def finding(text: str, needle: str, code: str = "phantom-api", nth: int = 0) -> Finding:
    start = at(text, needle, nth)
    return Finding(code, CODES[code].severity, f"{code} here", PATH, Span(start, start + len(b(needle))))


# ------------------------------------------------------------------ parse: the comment forms
@pytest.mark.parametrize("line", [
    "fetch('/x'); // specward: ignore[phantom-api]",
    "fetch('/x'); /* specward: ignore[phantom-api] */",
    "fetch('/x')  # specward: ignore[phantom-api]",
    "<a>{fetch('/x')}</a> {/* specward: ignore[phantom-api] */}",
    "fetch('/x'); //specward:ignore[phantom-api]",
    "fetch('/x'); /** specward: ignore [ phantom-api ] */",
])
def test_trailing_comment_forms_cover_their_own_line(line: str):
    text = f"const a = 1;\n{line}\nconst b = 2;\n"
    (s,) = parse(text)
    assert s.trailing
    assert covered(text, s) == line + "\n"
    assert [c for c, _ in s.codes] == ["phantom-api"]
    assert codes_as_written(text, s) == ["phantom-api"]


@pytest.mark.parametrize("comment", [
    "// specward: ignore[phantom-api]",
    "/* specward: ignore[phantom-api] */",
    "# specward: ignore[phantom-api]",
    "{/* specward: ignore[phantom-api] */}",
    "<!-- specward: ignore[phantom-api] -->",
    "    # specward: ignore[phantom-api]",  # indented (YAML, Python)
])
def test_a_comment_alone_covers_the_next_line(comment: str):
    text = f"first\n{comment}\n  code();\nlast\n"
    (s,) = parse(text)
    assert not s.trailing
    assert covered(text, s) == "  code();\n"
    assert codes_as_written(text, s) == ["phantom-api"]
    assert b(text)[s.comment.start:s.comment.end].decode().strip("{}") == comment.strip().strip("{}")


def test_yaml_contract_comment():
    text = "paths:\n  /users:\n    # specward: ignore[unused-endpoint]\n    get:\n      summary: x\n"
    (s,) = parse(text)
    assert covered(text, s) == "    get:\n"


def test_several_codes_and_spaces():
    text = "x = get('/a')  # specward:  ignore[ phantom-api ,method-mismatch,  unknown-field ]\n"
    (s,) = parse(text)
    assert [c for c, _ in s.codes] == ["phantom-api", "method-mismatch", "unknown-field"]
    assert codes_as_written(text, s) == ["phantom-api", "method-mismatch", "unknown-field"]


def test_crlf_line_endings():
    text = "a();\r\n// specward: ignore[phantom-api]\r\nfetch('/x');\r\nb(); // specward: ignore[method-mismatch]\r\n"
    first, second = parse(text)
    assert covered(text, first) == "fetch('/x');\r\n"
    assert covered(text, second) == "b(); // specward: ignore[method-mismatch]\r\n"
    # the comment ends before the line break
    assert b(text)[second.comment.start:second.comment.end] == b"// specward: ignore[method-mismatch]"
    assert codes_as_written(text, second) == ["method-mismatch"]


def test_offsets_are_bytes_after_non_ascii_text():
    text = "// héllo wörld ✓ 😀\nconst s = 'ünïcode'; fetch('/x'); // specward: ignore[phantom-api]\n"
    (s,) = parse(text)
    assert s.covers.start == len(b("// héllo wörld ✓ 😀\n"))
    assert s.covers.start != len("// héllo wörld ✓ 😀\n")  # (characters would be wrong here)
    assert codes_as_written(text, s) == ["phantom-api"]
    assert s.comment.start == at(text, "// specward")


def test_a_marker_in_a_string_without_a_comment_is_not_a_suppression():
    assert parse('const s = "specward: ignore[phantom-api]";\nfetch("/x");\n') == ()
    assert parse("msg = 'specward: ignore[phantom-api]'\n") == ()


def test_other_words_after_specward_are_not_suppressions():
    assert parse("// specward: ignored[phantom-api]\n// specward: ignore-all\n// specward: generated\nx\n") == ()


def test_nothing_without_the_marker():
    assert parse("") == ()
    assert parse("// eslint-disable-next-line\nfetch('/x')\n" * 1000) == ()


def test_stacked_comments_cover_the_same_code_line():
    text = "// specward: ignore[phantom-api]\n// specward: ignore[method-mismatch]\n" \
           "/* specward: ignore[unknown-field] */\nfetch('/x', { body });\nnext();\n"
    sups = parse(text)
    assert len(sups) == 3
    assert {covered(text, s) for s in sups} == {"fetch('/x', { body });\n"}


def test_a_plain_comment_or_blank_line_between_breaks_the_stack():
    text = "// specward: ignore[phantom-api]\n// why: it goes away\nfetch('/x');\n"
    (s,) = parse(text)
    assert covered(text, s) == "// why: it goes away\n"


def test_a_comment_at_the_end_covers_nothing():
    text = "fetch('/x');\n// specward: ignore[phantom-api]"
    (s,) = parse(text)
    assert s.covers.start == s.covers.end == len(b(text))


def test_block_comment_before_code_covers_its_line():
    text = "/* specward: ignore[phantom-api] */ fetch('/x');\n"
    (s,) = parse(text)
    assert s.trailing and covered(text, s) == text


def test_bare_ignore_and_empty_list():
    bare, empty = parse("x() // specward: ignore\ny() // specward: ignore[ ]\n")
    assert not bare.listed and bare.codes == ()
    assert empty.listed and empty.codes == ()


# ------------------------------------------------------------------ apply
TEXT = """import { api } from './api';
// specward: ignore[phantom-api]
api.get('/above');
api.get('/same'); // specward: ignore[phantom-api]
api.get('/kept');
api.get('/other'); // specward: ignore[method-mismatch]
"""


def test_apply_drops_what_is_covered_and_reports_unused():
    found = [finding(TEXT, "'/above'"), finding(TEXT, "'/same'"), finding(TEXT, "'/kept'"),
             finding(TEXT, "'/other'")]
    out = apply(PATH, found, parse(TEXT), CODES)
    kept = [f for f in out if f.code == "phantom-api"]
    # the comment above and the trailing one suppress theirs; the other line lists another code
    assert kept == [found[2], found[3]]
    (unused,) = [f for f in out if f.code == "unused-suppression"]
    assert b(TEXT)[unused.span.start:unused.span.end] == b"method-mismatch"
    assert unused.severity == "warning" and unused.file == PATH
    assert unused.message == "unused suppression: no method-mismatch finding on this line"
    assert len(out) == 3


def test_apply_without_findings_reports_every_code_unused():
    out = apply(PATH, [], parse(TEXT), CODES)
    assert [f.code for f in out] == ["unused-suppression"] * 3
    assert out[0].message == "unused suppression: no phantom-api finding on the line below"


def test_a_finding_is_judged_by_the_line_it_starts_on():
    text = "api.get(\n  '/x' // specward: ignore[phantom-api]\n);\n"
    call = Finding("phantom-api", "error", "m", PATH, Span(0, len(b(text)) - 1))  # starts on line 1
    out = apply(PATH, [call], parse(text), CODES)
    assert call in out and [f.code for f in out] == ["phantom-api", "unused-suppression"]


def test_stacked_comments_each_suppress():
    text = "// specward: ignore[phantom-api]\n// specward: ignore[unknown-field]\napi.post('/x', { y });\n"
    found = [finding(text, "'/x'"), finding(text, "{ y }", "unknown-field")]
    assert apply(PATH, found, parse(text), CODES) == []


def test_unknown_code_with_the_nearest_one():
    text = "api.get('/x'); // specward: ignore[phantom-apy, no-such-thing-at-all]\n"
    f = finding(text, "'/x'")
    out = apply(PATH, [f], parse(text), CODES)
    assert out[0] == f  # an unknown code suppresses nothing
    near, far = out[1:]
    assert near.code == far.code == "unknown-suppression" and near.severity == "warning"
    assert near.message == "'phantom-apy' is not a specward diagnostic code; did you mean 'phantom-api'?"
    assert b(text)[near.span.start:near.span.end] == b"phantom-apy"
    data = dict(near.data)
    assert data["suggestion"] == "phantom-api"
    assert data["fixes"] == (("Change to 'phantom-api'", PATH, near.span.start, near.span.end, "phantom-api"),)
    assert far.message == "'no-such-thing-at-all' is not a specward diagnostic code" and far.data == ()


def test_bare_ignore_is_unknown_on_the_directive():
    text = "api.get('/x'); // specward: ignore\nb(); // specward: ignore[]\n"
    f = finding(text, "'/x'")
    out = apply(PATH, [f], parse(text), CODES)
    assert out[0] == f
    bare, empty = out[1:]
    assert bare.code == empty.code == "unknown-suppression"
    assert b(text)[bare.span.start:bare.span.end] == b"ignore"
    assert b(text)[empty.span.start:empty.span.end] == b"ignore[]"
    assert bare.message.startswith("'specward: ignore' names no code")
    assert empty.message.startswith("'specward: ignore[]' names no code")


def test_the_suppressions_own_codes_are_never_suppressed():
    text = "x(); // specward: ignore[phantom-api, unused-suppression]\n"
    sup = parse(text)
    own = Finding("unused-suppression", "warning", "from elsewhere", PATH, Span(0, 1))
    out = apply(PATH, [own], sup, CODES)
    assert own in out
    by_code = {f.code: f for f in out if f is not own}
    assert by_code["unknown-suppression"].message.startswith("'unused-suppression' cannot be suppressed")
    assert b(text)[by_code["unused-suppression"].span.start:by_code["unused-suppression"].span.end] == b"phantom-api"


def test_findings_of_another_file_are_left_alone():
    text = "api.get('/x'); // specward: ignore[phantom-api]\n"
    other = Finding("phantom-api", "error", "m", "web/src/b.ts", Span(0, 5))
    out = apply(PATH, [other], parse(text), CODES)
    assert out[0] is other and out[1].code == "unused-suppression"


def test_no_suppressions_is_the_findings_as_they_are():
    f = Finding("phantom-api", "error", "m", PATH, Span(0, 5))
    assert apply(PATH, [f], (), CODES) == [f]


def test_the_comment_must_start_with_the_marker():
    assert parse("fetch('/x'); // TODO specward: ignore[phantom-api]\n") == ()
    assert parse("# note: specward: ignore[phantom-api]\nx = 1\n") == ()
