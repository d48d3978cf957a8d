"""What every prompt includes (analyzers/stages/prompt_context.py), against hand-computed
texts: the order of the sections, the relevant invariants, the token budget and cuts."""

from __future__ import annotations

from specward.analyzers.invariants import Rule
from specward.analyzers.stages.prompt_context import (
    ContextFile,
    cut_marker,
    describe_rule,
    prompt_sections,
    relevant_rules,
)

FORBIDDEN = Rule("no-db", "forbidden", sources=("app.web",), targets=("app.db",))
LAYERS = Rule("tiers", "layers", layers=(("app.web",), ("app.db",)), independent=(False, False))
INDEPENDENT = Rule("apart", "independence", modules=("billing", "shipping"))
FILES_HEAD = "## Context files (read from the workspace)\n\n"


def test_nothing_to_say_is_empty():
    assert prompt_sections() == ""
    assert prompt_sections(decisions="  \n", contract="", ledger="") == ""


def test_sections_in_their_fixed_order():
    text = prompt_sections(ledger="## DO NOT REPEAT\n- `import x`\n", invariants=[FORBIDDEN],
                           contract='{"a": 1}', contract_name="specs/n.dsl.json", decisions="Use JWT.")
    assert text == (
        "## Decisions already made (the decisions): follow them, do not argue them again\n\nUse JWT.\n"
        "\n"
        "## The contract (specs/n.dsl.json)\n\n{\"a\": 1}\n"
        "\n"
        "## Architecture rules the code must keep\n\n- no-db (forbidden): app.web must not import app.db\n"
        "\n"
        "## DO NOT REPEAT\n- `import x`\n")


def test_relevant_invariants_match_the_targets():
    rules = [FORBIDDEN, LAYERS, INDEPENDENT]
    assert relevant_rules(rules, ["app/web/views.py"]) == [FORBIDDEN, LAYERS]
    assert relevant_rules(rules, ["billing/api.py"]) == [INDEPENDENT]
    assert relevant_rules(rules, ["docs/readme.md"]) == []
    assert relevant_rules(rules, None) == rules and relevant_rules(rules, []) == rules  # unknown: all
    assert describe_rule(LAYERS) == ("- tiers (layers): layers, highest first: app.web > app.db; "
                                     "a lower layer must not import a higher one")
    assert describe_rule(INDEPENDENT) == "- apart (independence): billing, shipping must not import each other"


def test_files_headed_by_their_path_and_cut_under_the_budget():
    # 40 tokens = 160 characters: the heading (44), a.py whole (9 + 6), b.py's heading (9)
    # and 92 characters for its 101: 55 kept, then the 36-character marker naming the 46 cut
    files = [ContextFile("a.py", "x = 1\n"), ContextFile("b.py", "y" * 100)]
    text = prompt_sections(files=files, budget_tokens=40)
    assert text == FILES_HEAD + "### a.py\nx = 1\n" + "### b.py\n" + "y" * 55 + "\n[cut: 46 more characters left out]\n"
    assert len(text) == 159  # within the 160


def test_files_after_the_budget_is_spent_are_counted():
    # 30 tokens = 120 characters: heading 44, a.py 15; b.py cannot keep a character (its
    # heading, the marker and the count line of c.py need more than the 61 left): b.py and
    # c.py are counted, 44 characters
    files = [ContextFile("a.py", "x = 1\n"), ContextFile("b.py", "y" * 100), ContextFile("c.py", "z\n")]
    text = prompt_sections(files=files, budget_tokens=30)
    assert text == FILES_HEAD + "### a.py\nx = 1\n" + "\n[2 more file(s) left out: over the budget]\n"
    assert len(text) == 103


def test_a_section_is_cut_to_its_share_of_the_budget():
    # 200 tokens = 800 characters, the ledger's eighth is 100: its 201 characters become 63
    # and the 37-character marker of the 138 left out
    text = prompt_sections(ledger="L" * 200, budget_tokens=200)
    assert text == "L" * 63 + "\n[cut: 138 more characters left out]\n"
    assert len(cut_marker(138)) == 37
    # the contract's share is a quarter: 200 characters, its heading (36) included: 164 for 301 characters, 127 kept
    text = prompt_sections(contract="C" * 300, contract_name="specs/n.dsl.json", budget_tokens=200)
    assert text == "## The contract (specs/n.dsl.json)\n\n" + "C" * 127 + "\n[cut: 174 more characters left out]\n"


def test_bounded_whatever_the_input():
    big = "w" * 100_000
    files = [ContextFile(f"f{i}.py", big) for i in range(20)]
    text = prompt_sections(decisions=big, contract=big, invariants=[FORBIDDEN] * 500, ledger=big, files=files,
                           budget_tokens=1000)
    assert len(text) <= 4000
    assert text == prompt_sections(decisions=big, contract=big, invariants=[FORBIDDEN] * 500, ledger=big,
                                   files=files, budget_tokens=1000)  # deterministic
    assert text.index("## Decisions") < text.index("## The contract") < text.index("## Architecture") \
        < text.index("## Context files")
