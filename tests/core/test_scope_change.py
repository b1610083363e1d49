"""The harness's judgement of an enrichment: kept scope, or what it dropped or altered."""

from __future__ import annotations

import pytest

from agent.core.words.scope_change import (
    normalised,
    scope_changes,
    scope_diff,
    sentence_kept,
    title_kept,
)
from common.schemas.issues import IssueDraft
from common.workspace.diff_text import split_files

OVERLAPS = IssueDraft(
    title="Add Interval.overlaps(other)",
    summary="Add `Interval.overlaps(other) -> bool`: whether two intervals share a point.",
    requirement_details=[
        "Intervals are closed: [1, 2] and [2, 3] overlap.",
        "An empty interval overlaps nothing.",
    ],
    test_criteria=["tests/test_overlaps.py covers each rule."],
)
PARSE = IssueDraft(
    title="Add Interval.parse(text)",
    summary="Add `Interval.parse(text: str) -> Interval`: read `[a, b]` back from its text.",
    requirement_details=[
        "`[1, 2]` gives Interval(1, 2); spaces around the numbers are allowed.",
        "Text that is not an interval raises ValueError naming the text.",
    ],
    technical_notes=["Use one compiled regex."],
    user_facing_behavior=["str(Interval.parse(s)) == s for every canonical s."],
    test_criteria=["tests/test_parse.py covers each rule.", "python -m pytest -q passes."],
    open_questions=["Should `(1, 2)` be accepted? Assumed no."],
)


def test_the_interval_parse_issue_rewritten_into_a_copy_of_overlaps_is_a_scope_change() -> None:
    """The tester's case: #3's enrichment became #2 word for word."""
    dropped = scope_changes(PARSE, OVERLAPS.title, OVERLAPS.description())

    assert dropped == [
        "title: 'Add Interval.parse(text)' became 'Add Interval.overlaps(other)'",
        f"Summary: {PARSE.summary}",
        *(f"Requirement Details: {item}" for item in PARSE.requirement_details),
        *(f"User-Facing Behavior: {item}" for item in PARSE.user_facing_behavior),
        *(f"Test Criteria: {item}" for item in PARSE.test_criteria),
    ]


def test_the_unchanged_text_is_no_scope_change() -> None:
    assert scope_changes(PARSE, PARSE.title, PARSE.description()) == []


def test_additions_alone_are_no_scope_change() -> None:
    """A longer title, extra bullets, a new section and rewritten notes only add."""
    enriched = (
        PARSE.description().replace("Use one compiled regex.", "A regex `\\[(\\S+), (\\S+)\\]`.")
        + "\n- Negative numbers parse too.\n\n## Test Plan\n- Round-trip 100 random intervals."
    )
    title = "Add Interval.parse(text) — the inverse of str()"

    assert scope_changes(PARSE, title, enriched) == []


def test_technical_notes_and_open_questions_may_be_answered_away() -> None:
    """They are advice and questions, not what the issue delivers."""
    text = (
        PARSE.description()
        .replace("- Use one compiled regex.", "")
        .replace("- Should `(1, 2)` be accepted? Assumed no.", "- `(1, 2)` is rejected.")
    )

    assert scope_changes(PARSE, PARSE.title, text) == []


@pytest.mark.parametrize(
    ("bullet", "written"),
    [
        (
            "Text that is not an interval raises ValueError naming the text.",
            "text that is NOT an interval raises   ValueError\nnaming the text",
        ),
        (
            "`[1, 2]` gives Interval(1, 2); spaces around the numbers are allowed.",
            "**[1, 2]** gives _Interval(1, 2)_; spaces around the numbers are allowed;",
        ),
    ],
    ids=["case-whitespace-stop", "emphasis-backticks"],
)
def test_a_bullet_kept_up_to_case_whitespace_and_markdown_is_kept(
    bullet: str, written: str
) -> None:
    assert sentence_kept(bullet, f"## Requirement Details\n- {written}\n")


def test_a_bullet_kept_only_inside_an_html_comment_is_dropped() -> None:
    """GitLab and every Markdown viewer show nothing of a comment: hidden is not kept."""
    bullet = "Text that is not an interval raises ValueError naming the text."
    text = PARSE.description().replace(f"- {bullet}", f"<!-- - {bullet} -->")
    unclosed = PARSE.description().replace(f"- {bullet}", f"<!-- - {bullet}")

    assert scope_changes(PARSE, PARSE.title, text) == [f"Requirement Details: {bullet}"]
    assert f"Requirement Details: {bullet}" in scope_changes(PARSE, PARSE.title, unclosed)


@pytest.mark.parametrize(
    "struck",
    [
        "~~{bullet}~~",
        "~~first words\n{bullet}~~",
        "<del>{bullet}</del>",
        "<S class='x'>{bullet}</s>",
        "<strike>{bullet}</strike >",
    ],
)
def test_a_bullet_kept_only_struck_out_is_dropped(struck: str) -> None:
    """A struck-out requirement reads as dropped, though every word of it is there."""
    bullet = "Text that is not an interval raises ValueError naming the text."
    text = PARSE.description().replace(f"- {bullet}", "- " + struck.format(bullet=bullet))

    assert scope_changes(PARSE, PARSE.title, text) == [f"Requirement Details: {bullet}"]


def test_an_unclosed_strikethrough_drops_all_that_follows() -> None:
    bullet = "Text that is not an interval raises ValueError naming the text."
    text = PARSE.description().replace(f"- {bullet}", f"- <strike>{bullet}")

    dropped = scope_changes(PARSE, PARSE.title, text)

    assert dropped[0] == f"Requirement Details: {bullet}"
    assert "Test Criteria: python -m pytest -q passes." in dropped


def test_one_dropped_bullet_is_named_with_its_section() -> None:
    text = (
        PARSE.description()
        .replace("- python -m pytest -q passes.\n", "")
        .replace("- python -m pytest -q passes.", "")
    )

    assert scope_changes(PARSE, PARSE.title, text) == ["Test Criteria: python -m pytest -q passes."]


def test_a_reworded_requirement_is_altered() -> None:
    """Rephrasing is not trusted as equivalent: the person reads the diff and decides."""
    text = PARSE.description().replace("raises ValueError naming the text", "returns None")

    assert scope_changes(PARSE, PARSE.title, text) == [
        "Requirement Details: Text that is not an interval raises ValueError naming the text."
    ]


@pytest.mark.parametrize(
    ("original", "enriched", "kept"),
    [
        ("Add slugify", "add  SLUGIFY!", True),
        ("Add slugify", "Add slugify (URL slugs, accents folded)", True),
        ("Add Interval.parse(text)", "Add Interval parse text", True),
        ("Add Interval.parse(text)", "Add Interval.overlaps(other)", False),
        ("Add word_count", "Add word count", True),
        ("Add truncate", "Add truncation", False),
        ("Add truncate", "truncate: add it", False),
        ("!!!", "anything", True),
    ],
)
def test_the_title_is_kept_when_its_words_stay_together_in_order(
    original: str, enriched: str, kept: bool
) -> None:
    assert title_kept(original, enriched) is kept


def test_normalised_drops_case_emphasis_backticks_and_runs_of_whitespace() -> None:
    assert normalised("  **Add**  `slug`\n\t_now_ ~~x~~ ") == "add slug now x"


def test_the_diff_is_one_file_per_issue_from_the_spec_text_to_the_enriched() -> None:
    diff = scope_diff(3, PARSE.title, PARSE.description(), OVERLAPS.title, OVERLAPS.description())

    (section,) = split_files(diff)
    assert section.path == "issue-3.md"
    assert "-# Add Interval.parse(text)" in section.text
    assert "+# Add Interval.overlaps(other)" in section.text
    assert section.removed > 0 and section.added > 0
