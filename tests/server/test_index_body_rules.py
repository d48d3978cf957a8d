"""The body rules (``pure``, ``no-hardcoded-config``) as the index keeps them: configured in
``specward.toml``, judged at build from the files' texts, judged again when the config
module changes (on disk or in a buffer), judged from an unsaved buffer, kept right by the
cache across a restart, and an invalid rule reported on the configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

from conftest import write_tree

RULES = '''[[invariants]]
id = "payment-config"
type = "no-hardcoded-config"
config = "src/config/paymentConfig.ts"
keys = ["retryCount"]
modules = ["src/payments"]

[[invariants]]
id = "pure-domain"
type = "pure"
modules = ["app.domain"]
'''

CONFIG = "export const paymentConfig = { retryCount: 3, currency: 'EUR' };\n"
CHARGE = ("import { paymentConfig } from '../config/paymentConfig';\n\n"
          "export function charge(amount: number) {\n  return retry(() => pay(amount), 3);\n}\n")
PRICES = ("def _log(message):\n    print(message)\n\n\n@pure\ndef total(items):\n    _log(items)\n"
          "    return sum(items)\n")

FILES = {"specward.toml": RULES, "src/config/paymentConfig.ts": CONFIG, "src/payments/charge.ts": CHARGE,
         "src/other.ts": "export function other() {\n  return 3;\n}\n",
         "app/__init__.py": "", "app/domain/__init__.py": "", "app/domain/prices.py": PRICES}


_ws = write_tree


def _violations(idx: WorkspaceIndex) -> list[tuple[str, str, str]]:
    return [(rel, dict(f.data)["rule"], f.message) for rel in sorted(idx.facts) for f in idx.findings(rel)
            if f.code == "invariant-violation"]


DUPLICATE = ("src/payments/charge.ts", "payment-config",
             "[payment-config] 3 duplicates paymentConfig.retryCount: read it from src/config/paymentConfig.ts")
IMPURE = ("app/domain/prices.py", "pure-domain",
          "[pure-domain] total is pure but has a side effect: print through _log -> print")


def test_found_at_build_and_judged_again_when_the_config_module_changes(tmp_path: Path):
    root = _ws(tmp_path, FILES)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _violations(idx) == [IMPURE, DUPLICATE]  # src/other.ts is not in the rule's modules
    found = next(f for f in idx.findings("src/payments/charge.ts") if f.code == "invariant-violation")
    assert CHARGE.encode()[found.span.start:found.span.end] == b"3"
    assert found.span.start == CHARGE.encode().rindex(b"3")
    # the config module's value changes on disk: the governed file is judged again
    (root / "src/config/paymentConfig.ts").write_text(CONFIG.replace("3", "4"))
    assert "src/payments/charge.ts" in idx.update_from_disk("src/config/paymentConfig.ts")
    assert _violations(idx) == [IMPURE]
    # and in an unsaved buffer of the config module, with an edit that changes no fact
    idx.update("src/config/paymentConfig.ts", CONFIG, incremental=True)
    assert _violations(idx) == [IMPURE, DUPLICATE]
    edited = CONFIG.replace("'EUR'", "'USD'")
    assert "src/payments/charge.ts" in idx.update("src/config/paymentConfig.ts", edited.replace("3", "4"),
                                                  incremental=True)
    assert _violations(idx) == [IMPURE]


def test_an_unsaved_buffer_is_judged_from_its_text(tmp_path: Path):
    root = _ws(tmp_path, FILES)
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    fixed = CHARGE.replace(", 3)", ", paymentConfig.retryCount)")
    idx.update("src/payments/charge.ts", fixed)
    assert _violations(idx) == [IMPURE]
    assert (root / "src/payments/charge.ts").read_text() == CHARGE  # (the disk still has the literal)
    # an edit that moves no fact (a literal in a local) is judged too, from the buffer
    local = fixed.replace("  return", "  const attempts = 2;\n  return")
    idx.update("src/payments/charge.ts", local, incremental=True)
    moved = idx.stats.get("moved_links", 0.0)
    assert "src/payments/charge.ts" in idx.update("src/payments/charge.ts", local.replace("= 2", "= 3"),
                                                  incremental=True)
    assert idx.stats.get("moved_links", 0.0) == moved + 1  # the fast path: no fact changed
    assert [m for _, _, m in _violations(idx)] == [IMPURE[2], DUPLICATE[2]]
    # the pure function's buffer: the helper no longer prints
    idx.update("app/domain/prices.py", PRICES.replace("print(message)", "return message"))
    assert [r for _, r, _ in _violations(idx)] == ["payment-config"]
    # closed without saving: the file follows the disk again
    idx.update_from_disk("src/payments/charge.ts")
    assert _violations(idx) == [DUPLICATE]


def test_the_cache_keeps_the_verdicts_right_across_a_restart(tmp_path: Path):
    root = _ws(tmp_path, FILES)
    idx = WorkspaceIndex(root)
    idx.build()
    assert _violations(idx) == [IMPURE, DUPLICATE]
    idx.facts.wait_stored(10)
    warm = WorkspaceIndex(root)
    warm.build()
    assert warm.stats["relinked_files"] == 0.0 and _violations(warm) == [IMPURE, DUPLICATE]
    (root / "src/config/paymentConfig.ts").write_text(CONFIG.replace("3", "5"))  # while nothing runs
    changed = WorkspaceIndex(root)
    changed.build()
    assert _violations(changed) == [IMPURE]


def test_invalid_rules_are_reported_on_the_configuration(tmp_path: Path):
    root = _ws(tmp_path, {**FILES, "specward.toml": RULES + (
        '\n[[invariants]]\nid = "no-keys"\ntype = "no-hardcoded-config"\nconfig = "src/config/paymentConfig.ts"\n'
        '\n[[invariants]]\nid = "no-modules"\ntype = "pure"\n'
        '\n[[invariants]]\nid = "empty-effects"\ntype = "pure"\nmodules = ["app"]\neffects = []\n'
        '\n[[invariants]]\nid = "typo"\ntype = "pure"\nmodules = ["app"]\nmarkers = "pure"\n'
        '\n[[invariants]]\nid = "nowhere"\ntype = "no-hardcoded-config"\nconfig = "app.settings"\nkeys = ["X"]\n')})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _violations(idx) == [IMPURE, DUPLICATE]  # the valid rules still apply
    problems = [(f.code, f.message) for f in idx.findings("specward.toml")]
    assert problems == [
        ("config-invalid", "invalid architecture rule invariants[2]: a no-hardcoded-config rule needs a config "
                           "module and keys; the rule is not checked"),
        ("config-invalid", "invalid architecture rule invariants[3]: a pure rule needs modules; the rule is not "
                           "checked"),
        ("config-invalid", "invalid architecture rule invariants[4]: a pure rule's effects cannot be empty (leave "
                           "effects out for the default list); the rule is not checked"),
        ("config-invalid", "invalid architecture rule invariants[5] markers: Extra inputs are not permitted; the "
                           "rule is not checked"),
        ("config-invalid", "invalid architecture rule nowhere: no source file is the config module app.settings; "
                           "the rule judges nothing until there is one"),
    ]
    nowhere = idx.findings("specward.toml")[-1]
    assert (root / "specward.toml").read_bytes()[nowhere.span.start:nowhere.span.end] == b"nowhere"


@pytest.mark.parametrize("cache", [True, False], ids=["linking-processes", "extracting-processes"])
def test_a_cold_build_in_parser_processes_judges_the_bodies_too(tmp_path: Path, monkeypatch, cache: bool):
    from specward.server.engine import build as build_mod

    root = _ws(tmp_path, FILES)
    monkeypatch.setattr(build_mod, "PARALLEL_THRESHOLD", 2)
    idx = WorkspaceIndex(root, use_cache=cache, workers=2)
    idx.build()
    assert idx.stats["parser_processes"] == 2.0 and ("linked_in_parsers" in idx.stats) == cache
    assert _violations(idx) == [IMPURE, DUPLICATE]
    assert "src/payments/charge.ts" in idx.update("src/config/paymentConfig.ts", CONFIG.replace("3", "7"))
    assert _violations(idx) == [IMPURE]
