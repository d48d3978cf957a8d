"""The pre-commit hook's file selection (.pre-commit-hooks.yaml) against what specward
analyzes: every source suffix of analyzers/languages.py, contracts and configuration.
(tests/packaging/run.sh runs the hook itself through pre-commit.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from specward.analyzers.languages import EXTENSIONS

HOOKS = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"


@pytest.fixture(scope="module")
def hook() -> dict:
    (only,) = yaml.safe_load(HOOKS.read_text("utf-8"))
    return only


def test_selection_is_by_name_alone(hook):
    # pre-commit requires `files` and `types`/`types_or` to match together, and its file
    # types know no .mts/.cts: a type filter would hide those files from the hook
    assert "types" not in hook and "types_or" not in hook
    assert hook["pass_filenames"] is True and hook["require_serial"] is True


@pytest.mark.parametrize("suffix", sorted(EXTENSIONS))
def test_every_analyzed_suffix_reaches_the_hook(hook, suffix):
    pattern = re.compile(hook["files"])
    assert pattern.search(f"web/src/app{suffix}")
    assert pattern.search(f"web/src/App{suffix.upper()}")  # language_of ignores case too


@pytest.mark.parametrize("name", ["api/openapi.yaml", "api/openapi.yml", "spec/notes.dsl.json", "specward.toml",
                                  "pyproject.toml", "tsconfig.json", "package.json"])
def test_contracts_and_configuration_reach_the_hook(hook, name):
    assert re.compile(hook["files"]).search(name)


@pytest.mark.parametrize("name", ["README.md", "web/logo.png", "web/src/app.ts.orig", "bin/deploy", "src/types.d.tsbuildinfo"])
def test_other_files_do_not(hook, name):
    assert not re.compile(hook["files"]).search(name)
