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


# ------------------------------------------------------------------------------- Python
import difflib  # noqa: E402
import tomllib  # noqa: E402

from specward.analyzers.manifest_edit import (  # noqa: E402
    add_pyproject_dependency, add_python_dependency, add_requirement_line, pyproject_dependency_place,
    requirement_operator)


def _py(fn, text: str, name: str, version: str) -> tuple[str, str]:
    """The file after the edit, and the requirement the fix names; checks that the edit only
    inserted text (every other byte as it was)."""
    got = fn(text, name, version)
    assert got is not None
    span, new, label = got
    data = text.encode()
    out = (data[:span.start] + new.encode() + data[span.end:]).decode()
    ops = difflib.SequenceMatcher(None, text, out, autojunk=False).get_opcodes()
    assert {op for op, *_ in ops} <= {"equal", "insert"}, ops
    return out, label


def _deps(text: str) -> list[str]:
    return tomllib.loads(text)["project"]["dependencies"]


PEP621 = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "harbor-sync"
version = "0.3.0"
requires-python = ">=3.11"
dependencies = [
    "click>=8.1",
    "httpx>=0.27",
    "rich>=13.7",
]

[project.optional-dependencies]
dev = ["pytest>=8"]
"""


def test_pyproject_sorted_multiline_array_gets_the_requirement_in_place():
    out, label = _py(add_pyproject_dependency, PEP621, "requests", "2.31.0")
    assert label == "requests>=2.31.0"
    assert '    "httpx>=0.27",\n    "requests>=2.31.0",\n    "rich>=13.7",\n' in out
    assert _deps(out) == ["click>=8.1", "httpx>=0.27", "requests>=2.31.0", "rich>=13.7"]
    assert tomllib.loads(out)["project"]["optional-dependencies"] == {"dev": ["pytest>=8"]}
    # and first, when it sorts before every entry
    out, _ = _py(add_pyproject_dependency, PEP621, "anyio", "4.4.0")
    assert _deps(out)[0] == "anyio>=4.4.0"
    # and last, when it sorts after them all
    out, _ = _py(add_pyproject_dependency, PEP621, "zstandard", "0.23.0")
    assert out.count("\n") == PEP621.count("\n") + 1
    assert '    "rich>=13.7",\n    "zstandard>=0.23.0",\n]' in out


def test_pyproject_unsorted_array_gets_it_last_in_the_files_indentation_and_quotes():
    text = "[project]\nname = 'tally'\ndependencies = [\n  'rich>=13',\n  'click>=8',\n]\n"
    out, _ = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert out == "[project]\nname = 'tally'\ndependencies = [\n  'rich>=13',\n  'click>=8',\n  'requests>=2.31.0',\n]\n"


def test_pyproject_last_entry_without_a_trailing_comma_and_with_a_comment():
    text = '[project]\nname = "t"\ndependencies = [\n    "rich>=13",\n    "click>=8"  # the CLI\n]\n'
    out, _ = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert '    "click>=8",  # the CLI\n    "requests>=2.31.0"\n]\n' in out
    assert _deps(out) == ["rich>=13", "click>=8", "requests>=2.31.0"]
    text = '[project]\nname = "t"\ndependencies = [\n    "rich>=13",\n    "click>=8"\n]\n'
    out, _ = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert '    "click>=8",\n    "requests>=2.31.0"\n]\n' in out


def test_pyproject_comments_above_an_entry_stay_with_it():
    text = ('[project]\nname = "t"\ndependencies = [\n    "attrs>=23",\n'
            '    # 3.x drops the sync client\n    "httpx>=0.27,<1",\n]\n')
    out, _ = _py(add_pyproject_dependency, text, "cattrs", "23.2.3")
    assert '"attrs>=23",\n    "cattrs>=23.2.3",\n    # 3.x drops the sync client\n    "httpx' in out


def test_pyproject_one_line_and_empty_arrays():
    text = '[project]\nname = "t"\ndependencies = ["click==8.1.7", "rich==13.7.1"]\n'
    out, label = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert label == "requests==2.31.0"  # the file pins exactly: so does the fix
    assert 'dependencies = ["click==8.1.7", "requests==2.31.0", "rich==13.7.1"]\n' in out
    text = '[project]\nname = "t"\ndependencies = ["rich>=13", "click>=8",]  # keep\n'
    out, _ = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert 'dependencies = ["rich>=13", "click>=8", "requests>=2.31.0",]  # keep\n' in out
    out, _ = _py(add_pyproject_dependency, '[project]\nname = "t"\ndependencies = []\n', "requests", "2.31.0")
    assert 'dependencies = ["requests>=2.31.0"]\n' in out
    out, _ = _py(add_pyproject_dependency, '[project]\nname = "t"\ndependencies = [\n]\n', "requests", "2.31.0")
    assert 'dependencies = [\n    "requests>=2.31.0",\n]\n' in out


def test_the_range_follows_the_files_operator_else_what_uv_writes():
    assert requirement_operator(["a~=1.2", "b~=3.0"], "2.31.0") == "~="
    assert requirement_operator(["a==1.2", "b", "c==3.0 ; python_version < '3.12'"], "2.31.0") == "=="
    assert requirement_operator(["a>=1.2", "b==3.0"], "2.31.0") == ">="  # mixed
    assert requirement_operator(["a>=1.2,<2", "b>=3.0,<4"], "2.31.0") == ">="  # two clauses each
    assert requirement_operator(["a<2"], "2.31.0") == ">="  # not a style the fix writes
    assert requirement_operator(["a~=1.2"], "7") == ">="  # `~=7` is not a valid specifier
    assert requirement_operator([], "2.31.0") == ">="
    text = '[project]\nname = "t"\ndependencies = [\n    "click~=8.1",\n    "rich~=13.7",\n]\n'
    out, label = _py(add_pyproject_dependency, text, "requests", "2.31.0")
    assert label == "requests~=2.31.0" and _deps(out)[1] == "requests~=2.31.0"


def test_pre_releases_and_crlf_files():
    text = '[project]\r\nname = "t"\r\ndependencies = [\r\n    "click>=8",\r\n]\r\n'
    out, label = _py(add_pyproject_dependency, text, "pydantic", "3.0.0rc1")
    assert label == "pydantic>=3.0.0rc1"
    assert out == '[project]\r\nname = "t"\r\ndependencies = [\r\n    "click>=8",\r\n    "pydantic>=3.0.0rc1",\r\n]\r\n'


POETRY = """[tool.poetry]
name = "ledger-bot"
version = "1.2.0"

[tool.poetry.dependencies]
python = "^3.11"
# HTTP
httpx = "^0.27.0"
pydantic = { version = "^2.7", extras = ["email"] }
rich = "^13.7.1"

[tool.poetry.group.dev.dependencies]
pytest = "^8.2"

[build-system]
requires = ["poetry-core"]
build-backend = "poetry.core.masonry.api"
"""


def test_poetry_table_sorted_place_with_a_caret_range():
    assert pyproject_dependency_place(POETRY) == "poetry"
    out, label = _py(add_pyproject_dependency, POETRY, "requests", "2.31.0")
    assert label == "requests@^2.31.0"
    assert 'pydantic = { version = "^2.7", extras = ["email"] }\nrequests = "^2.31.0"\nrich = "^13.7.1"\n' in out
    deps = tomllib.loads(out)["tool"]["poetry"]["dependencies"]
    assert deps["requests"] == "^2.31.0" and deps["python"] == "^3.11"
    assert tomllib.loads(out)["tool"]["poetry"]["group"]["dev"]["dependencies"] == {"pytest": "^8.2"}
    # `python` first is not an order the fix must keep: `anyio` goes after it, above the
    # comment that belongs to httpx
    out, _ = _py(add_pyproject_dependency, POETRY, "anyio", "4.4.0")
    assert 'python = "^3.11"\nanyio = "^4.4.0"\n# HTTP\nhttpx' in out


def test_poetry_unsorted_table_gets_it_last_and_a_dotted_name_is_quoted():
    text = '[tool.poetry]\nname = "x"\n\n[tool.poetry.dependencies]\npython="^3.12"\nrich="^13"\nclick="^8"\n'
    out, _ = _py(add_pyproject_dependency, text, "ruamel.yaml", "0.18.6")
    assert out.endswith('click="^8"\n"ruamel.yaml"="^0.18.6"\n')
    assert tomllib.loads(out)["tool"]["poetry"]["dependencies"]["ruamel.yaml"] == "^0.18.6"
    out, _ = _py(add_pyproject_dependency, text.rstrip("\n"), "tqdm", "4.66.4")  # no final newline
    assert out.endswith('click="^8"\ntqdm="^4.66.4"\n')


def test_project_dependencies_win_over_poetry_tables():
    text = ('[project]\nname = "x"\ndependencies = ["click>=8"]\n\n'
            '[tool.poetry.dependencies]\npython = "^3.11"\n')
    assert pyproject_dependency_place(text) == "project"
    out, _ = _py(add_pyproject_dependency, text, "rich", "13.7.1")
    assert _deps(out) == ["click>=8", "rich>=13.7.1"]
    assert tomllib.loads(out)["tool"]["poetry"]["dependencies"] == {"python": "^3.11"}


def test_pyproject_no_safe_place():
    # declared already, under another spelling, in any list or group
    assert add_pyproject_dependency(PEP621, "Rich", "13.7.1") is None
    assert add_pyproject_dependency(PEP621, "pytest", "8.2.0") is None  # an optional dependency
    assert add_pyproject_dependency(POETRY, "PyTest", "8.2.0") is None  # a Poetry group
    groups = '[project]\nname = "x"\ndependencies = []\n\n[dependency-groups]\ntest = ["Pytest_Cov>=5"]\n'
    assert add_pyproject_dependency(groups, "pytest-cov", "5.0.0") is None
    # no place: no [project] dependencies (dynamic or absent), no Poetry table, not TOML
    assert add_pyproject_dependency('[project]\nname = "x"\ndynamic = ["dependencies"]\n', "rich", "13.7.1") is None
    assert add_pyproject_dependency('[project]\nname = "x"\n', "rich", "13.7.1") is None
    assert add_pyproject_dependency('[tool.ruff]\nline-length = 100\n', "rich", "13.7.1") is None
    assert add_pyproject_dependency('[project\nname = ', "rich", "13.7.1") is None
    assert pyproject_dependency_place('[tool.poetry]\nname = "x"\n') is None
    # a version that is not a plain release: never written
    for bad in ("latest", "2.31", "1.0.0+cpu", "1!2.0.0", "2.31.0-1", ""):
        got = add_pyproject_dependency(PEP621, "requests", bad)
        assert (got is None) == (bad != "2.31"), bad
    assert add_pyproject_dependency(PEP621, "requests; rm", "2.31.0") is None  # not a distribution name


REQUIREMENTS = """# runtime
click==8.1.7
httpx==0.27.0
rich==13.7.1
"""


def test_requirements_sorted_place_and_the_files_pin_style():
    out, label = _py(add_requirement_line, REQUIREMENTS, "requests", "2.31.0")
    assert label == "requests==2.31.0"
    assert out == "# runtime\nclick==8.1.7\nhttpx==0.27.0\nrequests==2.31.0\nrich==13.7.1\n"
    out, _ = _py(add_requirement_line, REQUIREMENTS, "anyio", "4.4.0")
    assert out == "# runtime\nanyio==4.4.0\nclick==8.1.7\nhttpx==0.27.0\nrich==13.7.1\n"  # under the heading


def test_requirements_unsorted_get_it_after_the_last_requirement():
    text = "rich>=13\nclick\n-r base.txt\n\n# optional speedups, see README\n"
    out, label = _py(add_requirement_line, text, "httpx", "0.27.0")
    assert label == "httpx>=0.27.0"
    assert out == "rich>=13\nclick\nhttpx>=0.27.0\n-r base.txt\n\n# optional speedups, see README\n"
    out, _ = _py(add_requirement_line, "zope.interface>=6\nattrs>=23", "click", "8.1.7")  # no final newline
    assert out == "zope.interface>=6\nattrs>=23\nclick>=8.1.7\n"
    out, _ = _py(add_requirement_line, "", "click", "8.1.7")
    assert out == "click>=8.1.7\n"
    out, _ = _py(add_requirement_line, "# nothing yet", "click", "8.1.7")
    assert out == "# nothing yet\nclick>=8.1.7\n"


def test_requirements_continuations_markers_and_crlf():
    text = "attrs>=23\r\nrich>=13 ; python_version >= '3.8' \\\r\n    # why\r\nzope>=6\r\n"
    out, _ = _py(add_requirement_line, text, "tqdm", "4.66.4")
    assert out == "attrs>=23\r\nrich>=13 ; python_version >= '3.8' \\\r\n    # why\r\ntqdm>=4.66.4\r\nzope>=6\r\n"


def test_requirements_no_safe_place():
    assert add_requirement_line(REQUIREMENTS, "HTTPX", "0.27.0") is None
    assert add_requirement_line("Python_Dateutil>=2.8\n", "python-dateutil", "2.9.0") is None
    assert add_requirement_line("requests[socks]>=2 ; python_version >= '3.9'\n", "requests", "2.31.0") is None
    hashed = "click==8.1.7 \\\n    --hash=sha256:ae74fb96c20a0277a1d615f1e4d73c8414f5a98db8b799a7931d1582f3390c28\n"
    assert add_requirement_line(hashed, "rich", "13.7.1") is None
    generated = "#\n# This file is autogenerated by pip-compile with Python 3.12\n#\nclick==8.1.7\n"
    assert add_requirement_line(generated, "rich", "13.7.1") is None
    assert add_requirement_line(REQUIREMENTS, "requests", "dev") is None


def test_add_python_dependency_picks_by_file_name():
    out = add_python_dependency("backend/pyproject.toml", PEP621, "requests", "2.31.0")
    assert out is not None and out[2] == "requests>=2.31.0"
    out = add_python_dependency("requirements-dev.txt", REQUIREMENTS, "requests", "2.31.0")
    assert out is not None and out[2] == "requests==2.31.0"
    assert add_python_dependency("setup.cfg", "[options]\ninstall_requires =\n  click\n", "rich", "13.7.1") is None
