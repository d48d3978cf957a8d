"""Model answers are read tolerantly (issue 15): the first JSON object fenced or bare, files
as a JSON list or as ``path=`` fenced blocks, and a clear error otherwise."""

from __future__ import annotations

import time

import pytest

from specward.analyzers.stages.answers import (AnswerError, GeneratedFile, find_json_object, first_json_object,
                                               generated_files)

F = "```"


# ----------------------------------------------------------------------------- JSON object
def test_fenced_json():
    text = f'Here is the contract:\n\n{F}json\n{{"specdsl": "1.0", "endpoints": []}}\n{F}\nDone.'
    assert first_json_object(text) == {"specdsl": "1.0", "endpoints": []}


def test_bare_fence():
    assert first_json_object(f'{F}\n{{"a": 1}}\n{F}\n') == {"a": 1}


def test_bare_in_prose():
    assert first_json_object('Sure! {"a": [1, 2, {"b": null}]} Hope this helps.') == {"a": [1, 2, {"b": None}]}


def test_braces_inside_strings():
    text = 'x {"msg": "a } and a { and \\" quote }", "n": 1} y'
    assert first_json_object(text) == {"msg": 'a } and a { and " quote }', "n": 1}


def test_two_objects_first_wins():
    assert first_json_object('{"first": true}\n\n{"second": true}') == {"first": True}


def test_brace_that_starts_no_json_is_skipped():
    text = 'In code: function f() { return 1 } and {not json}. Then {"ok": 1}'
    assert first_json_object(text) == {"ok": 1}


def test_object_inside_an_invalid_outer_brace():
    # the outer "{" starts no JSON; the object inside it is the first that does
    assert first_json_object('{ the answer is {"a": 1} }') == {"a": 1}


def test_array_is_not_an_object_but_objects_in_it_are_found():
    # a top-level array is not the format; the scan still finds the first object in it
    assert first_json_object('[{"a": 1}]') == {"a": 1}


def test_crlf():
    text = f'Answer:\r\n{F}json\r\n{{\r\n  "a": "b"\r\n}}\r\n{F}\r\n'
    assert first_json_object(text) == {"a": "b"}


def test_literal_newline_in_a_string_is_accepted():
    assert first_json_object('{"content": "line 1\nline 2\ttab"}') == {"content": "line 1\nline 2\ttab"}


def test_nan_is_not_json():
    with pytest.raises(AnswerError):
        first_json_object('{"a": NaN}')


def test_position_is_reported():
    text = 'ab {"x": 1} cd'
    found = find_json_object(text)
    assert found is not None and text[found.start:found.end] == '{"x": 1}'
    assert find_json_object("no object") is None


def test_no_brace_error():
    with pytest.raises(AnswerError) as exc:
        first_json_object("I cannot do that.")
    assert "expected one JSON object" in str(exc.value)
    assert "no '{' in 17 characters" in str(exc.value)


def test_error_never_contains_the_answer():
    secret = "UNIQUE-ANSWER-TEXT-" * 20
    text = f"{secret} {{broken: json, {secret}}}"
    with pytest.raises(AnswerError) as exc:
        first_json_object(text)
    message = str(exc.value)
    assert "UNIQUE-ANSWER-TEXT" not in message
    assert "1 '{' but none starts a JSON object" in message and "line 1" in message


def test_pathological_nesting_ends_quickly():
    text = '{"a": ' * 20000 + "x"
    t = time.monotonic()
    with pytest.raises(AnswerError) as exc:
        first_json_object(text)
    assert time.monotonic() - t < 5
    assert "none starts a JSON object" in str(exc.value)


def test_deep_valid_nesting_does_not_crash():
    text = '{"a": ' * 5000 + "1" + "}" * 5000
    try:
        value = first_json_object(text)
    except AnswerError:
        return  # deeper than the decoder recurses: an error, not a crash
    assert isinstance(value, dict)


# --------------------------------------------------------------------------- files: JSON
def test_files_json_top_level():
    text = '{"files": [{"path": "src/a.ts", "content": "export const a = 1;\\n"}, {"path": "b.py", "content": ""}]}'
    assert generated_files(text) == (GeneratedFile("src/a.ts", "export const a = 1;\n"), GeneratedFile("b.py", ""))


def test_files_json_inside_a_larger_object_and_a_fence():
    text = (f'The slice:\n{F}json\n{{"slice": {{"summary": "notes", '
            f'"files": [{{"path": "x.ts", "content": "let x = \\"{{\\";"}}]}}}}\n{F}\n')
    assert generated_files(text) == (GeneratedFile("x.ts", 'let x = "{";'),)


def test_first_object_with_files_wins():
    text = '{"plan": "first"}\n{"files": [{"path": "a", "content": "1"}]}\n{"files": [{"path": "b", "content": "2"}]}'
    assert generated_files(text) == (GeneratedFile("a", "1"),)


def test_package_json_files_list_of_strings_is_not_the_format():
    with pytest.raises(AnswerError) as exc:
        generated_files('{"name": "x", "files": ["dist"]}')
    assert 'without a "files" list' in str(exc.value)


def test_entry_missing_content_is_an_error():
    with pytest.raises(AnswerError) as exc:
        generated_files('{"files": [{"path": "a.ts", "content": "x"}, {"path": "b.ts"}]}')
    assert "entry 1 ('b.ts') has no \"content\"" in str(exc.value)


def test_entry_missing_path_or_wrong_types():
    with pytest.raises(AnswerError, match='entry 0 has no "path"'):
        generated_files('{"files": [{"content": "x"}]}')
    with pytest.raises(AnswerError, match="has a int as \"content\""):
        generated_files('{"files": [{"path": "a", "content": 3}]}')
    with pytest.raises(AnswerError, match="entry 1 is a str"):
        generated_files('{"files": [{"path": "a", "content": "x"}, "b"]}')


def test_empty_files_list_is_an_error():
    with pytest.raises(AnswerError, match='an empty "files" list'):
        generated_files('{"files": []}')


def test_duplicate_paths_are_an_error():
    with pytest.raises(AnswerError) as exc:
        generated_files('{"files": [{"path": "src/a.ts", "content": "1"}, {"path": "./src/a.ts", "content": "2"}]}')
    assert "twice" in str(exc.value) and "each path once" in str(exc.value)


# ---------------------------------------------------------------------- files: fenced blocks
def test_path_fences():
    text = (f"Backend:\n{F}ts path=src/api/notes.ts\nexport function list() {{\n  return [];\n}}\n{F}\n"
            f"And the test:\n{F}python path=\"tests/test notes.py\"\ndef test():\n    assert True\n{F}\n")
    assert generated_files(text) == (
        GeneratedFile("src/api/notes.ts", "export function list() {\n  return [];\n}\n"),
        GeneratedFile("tests/test notes.py", "def test():\n    assert True\n"))


def test_path_forms_in_the_info_string():
    text = (f"{F}path=a.ts\na\n{F}\n{F}ts {{path=b.ts}}\nb\n{F}\n{F}js title=x path='c.js'\nc\n{F}\n"
            f"~~~ py path=d.py\nd\n~~~\n")
    assert [f.path for f in generated_files(text)] == ["a.ts", "b.ts", "c.js", "d.py"]


def test_crlf_fences_give_lf_content():
    text = f"{F}ts path=a.ts\r\nline 1\r\nline 2\r\n{F}\r\n"
    assert generated_files(text) == (GeneratedFile("a.ts", "line 1\nline 2\n"),)


def test_empty_block_is_an_empty_file():
    assert generated_files(f"{F}py path=pkg/__init__.py\n{F}\n") == (GeneratedFile("pkg/__init__.py", ""),)


def test_nested_fences_in_a_markdown_file():
    text = (f"{F}md path=README.md\n# Notes\n\nRun:\n\n{F}bash\nnpm test\n{F}\n\nThat's it.\n{F}\n"
            f"{F}ts path=a.ts\nexport {{}};\n{F}\n")
    files = generated_files(text)
    assert files[0] == GeneratedFile("README.md", f"# Notes\n\nRun:\n\n{F}bash\nnpm test\n{F}\n\nThat's it.\n")
    assert files[1] == GeneratedFile("a.ts", "export {};\n")


def test_longer_outer_fence_holds_a_bare_inner_fence():
    text = f"````md path=doc.md\nx\n{F}\ncode\n{F}\n````\n"
    assert generated_files(text) == (GeneratedFile("doc.md", f"x\n{F}\ncode\n{F}\n"),)


def test_indented_fence_strips_its_indentation():
    text = f"  {F}ts path=a.ts\n  const a = 1;\n    nested;\n  {F}\n"
    assert generated_files(text) == (GeneratedFile("a.ts", "const a = 1;\n  nested;\n"),)


def test_unclosed_path_block_is_an_error():
    with pytest.raises(AnswerError, match="never closed"):
        generated_files(f"{F}ts path=a.ts\nexport const a = 1;\n")


def test_duplicate_path_blocks_are_an_error():
    with pytest.raises(AnswerError, match="'a.ts' twice"):
        generated_files(f"{F}ts path=a.ts\n1\n{F}\n{F}ts path=a.ts\n2\n{F}\n")


def test_backslash_duplicate_is_a_duplicate():
    with pytest.raises(AnswerError, match=r"also as 'src/a.ts'"):
        generated_files(f"{F}ts path=src/a.ts\n1\n{F}\n{F}ts path=src\\a.ts\n2\n{F}\n")


def test_path_blocks_win_over_a_plan_object():
    # a plan listing paths without content, then the files as blocks: the blocks are read
    text = (f'{F}json\n{{"files": [{{"path": "a.ts", "purpose": "client"}}]}}\n{F}\n'
            f"{F}ts path=a.ts\nexport {{}};\n{F}\n")
    assert generated_files(text) == (GeneratedFile("a.ts", "export {};\n"),)


def test_json_file_content_in_a_path_block_is_content():
    text = f'{F}json path=package.json\n{{"files": [{{"path": "x", "content": "y"}}]}}\n{F}\n'
    assert generated_files(text) == (GeneratedFile("package.json", '{"files": [{"path": "x", "content": "y"}]}\n'),)


def test_neither_format_error_says_what_was_found():
    text = f'Here you go:\n{F}ts\nconst a = 1;\n{F}\n{{"summary": "done"}}\n'
    with pytest.raises(AnswerError) as exc:
        generated_files(text)
    message = str(exc.value)
    assert "path=FILE" in message and '"files" list' in message
    assert "1 fenced block(s) without path= ('ts')" in message
    assert "1 JSON object(s) without a \"files\" list (keys: 'summary')" in message
    assert "const a" not in message
    assert exc.value.expected and exc.value.found


def test_plain_prose_error():
    with pytest.raises(AnswerError) as exc:
        generated_files("I am sorry, I cannot help with that.")
    assert "no fenced block, and no JSON object (no '{' in" in str(exc.value)


def test_answers_in_the_words_the_docs_prompt_asks_for():
    # the shapes docs/stages.md's prompt wording describes, including a Markdown file
    # whose own fences sit inside a four-backtick block
    text = (f"````md path=docs/notes.md\nUse:\n{F}bash\nnpm test\n{F}\n````\n"
            f"{F}ts path=src/api/notes.ts\nexport const x = 1;\n{F}\n")
    assert [f.path for f in generated_files(text)] == ["docs/notes.md", "src/api/notes.ts"]
    assert generated_files('{"files": [{"path": "a.ts", "content": "x"}]}') == (GeneratedFile("a.ts", "x"),)
