"""The Discuss stage's pure parts (analyzers/stages/discuss.py) on hand-written answers."""

from __future__ import annotations

import json

import pytest
from specward.analyzers.stages.answers import AnswerError
from specward.analyzers.stages.discuss import (
    MAX_OPTIONS,
    MAX_QUESTIONS,
    Decision,
    Question,
    context_markdown,
    decide,
    discuss_messages,
    merge,
    parse_questions,
    prompt_section,
    read_decisions,
    undecided,
)

SESSIONS = {"id": "sessions", "question": "How are user sessions kept?",
            "options": ["A signed cookie", "A JWT bearer token", "Server-side sessions"],
            "recommended": "A signed cookie"}
ERRORS = {"id": "errors", "question": "What is the error format?",
          "options": [{"label": "RFC 7807 problem+json"}, {"label": "{error: {code, message}}", "recommended": True}]}


def answer(*questions: dict, prose: str = "Here are the open questions:\n\n") -> str:
    return prose + "```json\n" + json.dumps({"questions": list(questions)}, indent=2) + "\n```\n"


# ------------------------------------------------------------------------------ parsing
def test_questions_with_string_and_label_options():
    qs = parse_questions(answer(SESSIONS, ERRORS))
    assert qs == [
        Question("sessions", "How are user sessions kept?",
                 ("A signed cookie", "A JWT bearer token", "Server-side sessions"), "A signed cookie"),
        Question("errors", "What is the error format?", ("RFC 7807 problem+json", "{error: {code, message}}"),
                 "{error: {code, message}}"),
    ]


def test_options_cleaned_and_bounded():
    q = {"question": "  Page   size? ", "options": ["", " 20 ", "20", "50", {"text": "100"}, None, 3, "200", "500",
                                                     "1000", {"label": ""}], "recommended": "nope"}
    [parsed] = parse_questions(json.dumps({"questions": [q]}))
    assert parsed.question == "Page size?"
    assert parsed.options == ("20", "50", "100", "3", "200")  # deduplicated, empty dropped, at most 5
    assert len(parsed.options) == MAX_OPTIONS
    assert parsed.recommended is None  # not one of the options
    assert parsed.id == "page-size"  # made from the question


def test_at_most_eight_questions_and_unusable_entries_dropped():
    many = [{"id": "q", "question": f"Question {i}?", "options": ["yes", "no"]} for i in range(12)]
    bad = [{"question": "One option?", "options": ["only"]}, {"options": ["a", "b"]}, "a string",
           {"question": "Question 0?", "options": ["again", "repeated"]}]
    qs = parse_questions(json.dumps({"questions": [bad[0], bad[1], bad[2], many[0], bad[3], *many[1:]]}))
    assert len(qs) == MAX_QUESTIONS
    assert [q.question for q in qs] == [f"Question {i}?" for i in range(8)]
    assert [q.id for q in qs] == ["q", "q-2", "q-3", "q-4", "q-5", "q-6", "q-7", "q-8"]  # ids unique


def test_nothing_open_is_an_empty_list():
    assert parse_questions('{"questions": []}') == []


@pytest.mark.parametrize("text, found", [
    ("I have no questions.", "no '{'"),
    ('```json\n{"questions": [{"question": "x?",}]}\n```', "none starts a JSON object"),
    ('{"gray_areas": ["a", "b"]}', "without a \"questions\" list (keys: 'gray_areas')"),
    ('{"questions": [{"question": "x?", "options": ["a"]}, 3]}', "2 question entries, none with a question"),
])
def test_nothing_usable_is_a_clear_error(text: str, found: str):
    with pytest.raises(AnswerError) as info:
        parse_questions(text)
    assert found in str(info.value) and '"questions"' in str(info.value)


# ------------------------------------------------------------------------------ the prompt
def test_prompt_names_the_format_and_the_decisions():
    decided = [Decision("sessions", "How are user sessions kept?", "A signed cookie")]
    system, user = discuss_messages("Let users log in", "The feature request", decided, "FORMAT WORDS")
    assert system["role"] == "system" and user["role"] == "user"
    text = user["content"]
    assert "Let users log in" in text and text.endswith("FORMAT WORDS")
    assert "do not ask these again" in text and "- How are user sessions kept? -> A signed cookie" in text
    for topic in ("session handling", "error format", "pagination", "validation", "limits"):
        assert topic in text
    assert "Already decided" not in discuss_messages("x", "The feature request", [], "F")[1]["content"]


def test_prompt_section():
    assert prompt_section([]) == ""
    section = prompt_section([Decision("a", "Q one?", "yes\nreally"), Decision("b", "Q two?", "no")], "Decided")
    assert section == "Decided:\n- Q one? -> yes really\n- Q two? -> no"


# ------------------------------------------------------------------------------ deciding, merging
def test_decide_keeps_the_option_spelling_and_the_others():
    q = Question("s", "Sessions?", ("Cookie", "JWT", "Server"), "Cookie")
    assert decide(q, "  jwt ") == Decision("s", "Sessions?", "JWT", ("Cookie", "Server"))
    assert decide(q, "Whatever the gateway does") == Decision("s", "Sessions?", "Whatever the gateway does",
                                                              ("Cookie", "JWT", "Server"))


def test_undecided_matches_question_text_not_ids():
    decided = [Decision("q1", "How are user sessions kept?", "Cookie")]
    qs = [Question("q1", "What is the page size?", ("20", "50")),
          Question("other", "how are user sessions KEPT", ("a", "b"))]
    assert undecided(qs, decided) == [qs[0]]


def test_merge_keeps_earlier_decisions_unless_re_answered():
    old = [Decision("sessions", "Sessions?", "Cookie", ("JWT",)), Decision("errors", "Error format?", "RFC 7807")]
    new = [Decision("errors", "error format", "Custom", ("RFC 7807",)), Decision("sessions", "Page size?", "50")]
    merged = merge(old, new)
    assert merged == [Decision("sessions", "Sessions?", "Cookie", ("JWT",)),
                      Decision("errors", "error format", "Custom", ("RFC 7807",)),
                      Decision("sessions-2", "Page size?", "50")]  # another question: its own id
    assert merge(old, []) == old and merge([], new)[0] == new[0]


# ------------------------------------------------------------------------------ the file
DECISIONS = [Decision("sessions", "How are user sessions kept?", "A signed cookie",
                      ("A JWT bearer token", "Server-side sessions")),
             Decision("page-size", "What is the page size?", "Whatever the client asks, at most 100")]


def test_context_markdown_and_round_trip():
    text = context_markdown("notes", "specs/notes.md", DECISIONS)
    assert text.startswith("# Decisions: notes\n")
    assert "`specward generate discuss`" in text and "Subject: specs/notes.md" in text
    assert ("## How are user sessions kept?\n\n<!-- id: sessions -->\n\n**Decision:** A signed cookie\n\n"
            "Options not chosen:\n\n- A JWT bearer token\n- Server-side sessions\n") in text
    assert "## What is the page size?\n\n<!-- id: page-size -->\n\n**Decision:** Whatever" in text
    assert read_decisions(text) == DECISIONS
    assert read_decisions(context_markdown("x", "a request", [])) == []


def test_read_decisions_tolerates_hand_edits():
    edited = """# Decisions for notes

Some prose the user wrote. Decision: this line is not in a section.

## How are user sessions kept?

We talked about it on Monday.

Decision: A JWT bearer token,
kept in memory only

Alternatives:
* A signed cookie

### 2. What is the page size?
- **Answer**: 50

## Is deletion soft or hard?

No decision yet.

## How are user sessions kept
<!-- id: again -->
**Decision:** duplicate

```md
## Not a heading inside a fence
Decision: no
```
"""
    assert read_decisions(edited) == [
        Decision("how-are-user-sessions-kept", "How are user sessions kept?", "A JWT bearer token, kept in memory only",
                 ("A signed cookie",)),
        Decision("what-is-the-page-size", "What is the page size?", "50"),
        Decision("again", "How are user sessions kept", "duplicate"),
    ]


def test_the_documented_example_is_what_is_rendered():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs/stages.md").read_text()
    example = docs.split("## Discuss\n", 1)[1].split("```text\n")[2].split("```\n")[0]
    decision = Decision("sessions", "How are user sessions kept?", "A signed cookie",
                        ("A JWT bearer token", "Server-side sessions"))
    assert example in context_markdown("notes", "specs/notes.md", [decision])
    assert read_decisions(example) == [decision]
