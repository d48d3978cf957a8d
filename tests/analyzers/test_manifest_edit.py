"""The quick fix of an installed but undeclared package: the manifest gets the package in
its own style, and stays valid JSON."""

from __future__ import annotations

import json

from specward.analyzers.manifest_edit import add_dependency


def _apply(text: str, name: str, version: str) -> str:
    got = add_dependency(text, name, version)
    assert got is not None
    span, new = got
    data = text.encode()
    return (data[:span.start] + new.encode() + data[span.end:]).decode()


SORTED = """{
  "name": "shop",
  "dependencies": {
    "axios": "^1.7.2",
    "react": "^18.3.1"
  },
  "devDependencies": {
    "vite": "^5.0.0"
  }
}
"""


def test_a_sorted_object_gets_the_entry_in_alphabetical_place():
    out = _apply(SORTED, "dayjs", "1.11.13")
    assert '    "axios": "^1.7.2",\n    "dayjs": "^1.11.13",\n    "react": "^18.3.1"\n' in out
    assert list(json.loads(out)["dependencies"]) == ["axios", "dayjs", "react"]
    assert json.loads(out)["devDependencies"] == {"vite": "^5.0.0"}


def test_after_the_last_entry_and_with_the_files_indentation():
    text = '{\n\t"dependencies": {\n\t\t"react": "18.3.1",\n\t\t"axios": "1.7.2"\n\t}\n}\n'
    out = _apply(text, "zod", "3.23.8")
    assert out.endswith('\t\t"axios": "1.7.2",\n\t\t"zod": "^3.23.8"\n\t}\n}\n')
    assert json.loads(out)["dependencies"]["zod"] == "^3.23.8"


def test_an_empty_object_and_a_one_line_object():
    out = _apply('{\n  "dependencies": {}\n}\n', "zod", "3.23.8")
    assert out == '{\n  "dependencies": {\n    "zod": "^3.23.8"\n  }\n}\n'
    out = _apply('{ "dependencies": { "a": "1.0.0" } }', "b", "2.0.0")
    assert json.loads(out)["dependencies"] == {"a": "1.0.0", "b": "^2.0.0"}


def test_only_the_top_level_field_and_never_an_invented_version():
    nested = '{\n  "workspaces": {"x": {"dependencies": {"q": "1"}}},\n  "dependencies": {\n    "a": "1.0.0"\n  }\n}\n'
    out = _apply(nested, "b", "2.0.0")
    assert json.loads(out)["workspaces"]["x"]["dependencies"] == {"q": "1"}
    assert json.loads(out)["dependencies"] == {"a": "1.0.0", "b": "^2.0.0"}
    assert add_dependency(SORTED, "dayjs", "latest") is None
    assert add_dependency(SORTED, "axios", "1.7.2") is None  # already declared
    assert add_dependency('{"name": "x"}', "axios", "1.7.2") is None  # no dependencies object
    assert add_dependency("{not json", "axios", "1.7.2") is None
