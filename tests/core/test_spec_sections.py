"""The spec's sections as the harness names them: headings outside code fences, each with
text of its own, stable and unique ids."""

from __future__ import annotations

import pytest

from agent.assets import asset_path
from agent.core.words import spec_sections
from agent.core.words.spec_sections import PREAMBLE, WHOLE_SPEC, SpecSection, parse

DEMO_SPEC = asset_path("demo", "spec.md")


def ids(text: str) -> list[str]:
    return [section.id for section in parse(text)]


def test_the_demo_spec_has_its_context_and_three_features() -> None:
    sections = parse(DEMO_SPEC.read_text())

    assert [s.id for s in sections] == [
        "Context",
        "Feature 1: slugify",
        "Feature 2: word_count",
        "Feature 3: truncate",
    ], "the title heading has no text of its own; backticks are dropped, underscores kept"
    lines = DEMO_SPEC.read_text().splitlines()
    for section in sections:
        assert lines[section.first - 1].startswith("## ")
    assert sections[-1].last == len(lines)
    assert [s.last + 1 for s in sections[:-1]] == [s.first for s in sections[1:]]


def test_hash_lines_inside_code_fences_are_no_headings() -> None:
    text = (
        "# Tool\n\nIntro.\n\n"
        "```python\n# a comment, not a heading\nx = 1\n```\n\n"
        "~~~~\n## neither\n~~~\nstill fenced (a shorter fence does not close it)\n~~~~\n\n"
        "## Usage\n\nRun it.\n"
    )

    assert ids(text) == ["Tool", "Usage"]
    tool = parse(text)[0]
    assert (tool.first, tool.last) == (1, 15), "the fenced lines belong to the section above"


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert ids("# A\n\ntext\n\n```\n# B\n") == ["A"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#NoSpace\ntext\n", [WHOLE_SPEC]),
        ("    # indented four: code\ntext\n", [WHOLE_SPEC]),
        ("   ### three spaces\ntext\n", ["three spaces"]),
        ("## Closing hashes ##\ntext\n", ["Closing hashes"]),
        ("## C# is a language\ntext\n", ["C# is a language"]),
        ("####### seven\ntext\n", [WHOLE_SPEC]),
        ("#\ntext\n", ["Untitled section"]),
        ("##   `spaced`    name  \ntext\n", ["spaced name"]),
    ],
    ids=["no-space", "indented", "three-spaces", "closing", "inner-hash", "seven", "empty", "ws"],
)
def test_atx_headings_only(text: str, expected: list[str]) -> None:
    assert ids(text) == expected


def test_setext_underlines_are_plain_text() -> None:
    """Only ATX headings count: a setext heading stays text of the section it is in."""
    assert ids("# Spec\n\nTitle\n=====\n\nMore\n-----\n") == ["Spec"]


def test_a_heading_without_text_of_its_own_is_no_section() -> None:
    text = "# Title\n\n## Part A\n\ndo a\n\n## Empty\n\n\n## Part B\ndo b\n"
    assert ids(text) == ["Part A", "Part B"]


def test_a_spec_without_headings_is_one_section_and_an_empty_one_none() -> None:
    assert parse("Add double(x).\n\nWith a test.\n") == [SpecSection(WHOLE_SPEC, 0, 1, 3)]
    assert parse("") == [] and parse("\n  \n") == []


def test_text_before_the_first_heading_is_the_preamble() -> None:
    assert ids("Some context.\n\n# Feature\n\ndo it\n") == [PREAMBLE, "Feature"]
    assert ids("\n\n# Feature\n\ndo it\n") == ["Feature"]


def test_duplicate_names_are_numbered_in_document_order() -> None:
    text = "## Examples\na\n## examples\nb\n## Examples (2)\nc\n## Examples\nd\n"
    assert ids(text) == ["Examples", "examples (3)", "Examples (2)", "Examples (4)"], (
        "case-insensitive; a number already taken by a real heading is skipped"
    )
    assert len({i.casefold() for i in ids(text)}) == 4


def test_ids_are_stable_when_text_inside_a_section_changes() -> None:
    before = "# A\n\none\n\n# B\n\ntwo\n"
    after = "# A\n\none, longer\nand more\n\n# B\n\ntwo\n"
    assert ids(before) == ids(after)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Context", "Feature 3: truncate"], (["Context", "Feature 3: truncate"], [])),
        (["feature 3: `truncate`", "  CONTEXT "], (["Feature 3: truncate", "Context"], [])),
        (["Context", "context"], (["Context"], [])),
        (["Feature 4: pad", "Context"], (["Context"], ["Feature 4: pad"])),
        ([], ([], [])),
    ],
    ids=["exact", "normalised", "once", "unknown", "none"],
)
def test_resolve_maps_names_to_known_ids(
    names: list[str], expected: tuple[list[str], list[str]]
) -> None:
    known = ["Context", "Feature 1: slugify", "Feature 3: truncate"]
    assert spec_sections.resolve(names, known) == expected


def test_uncovered_keeps_the_spec_order() -> None:
    sections = ["Context", "A", "B", "C"]
    assert spec_sections.uncovered(sections, [["C", "Context"], []]) == ["A", "B"]
    assert spec_sections.uncovered(sections, []) == sections


def test_the_coverage_line() -> None:
    line = spec_sections.coverage_line
    assert line(["A", "B"], [], "closed") == "every spec section (2) is covered by a closed issue"
    assert line(["A", "B"], ["B"], "proposed") == (
        "1 of 2 spec section(s) no proposed issue covers: B"
    )
    assert line([], [], "closed") == "the spec has no text to map to issues"


def test_many_repeats_stay_unique_and_numbered_in_order() -> None:
    text = "".join(f"## Step\nline {n}\n" for n in range(300))
    found = ids(text)
    assert found[:3] == ["Step", "Step (2)", "Step (3)"] and found[-1] == "Step (300)"
    assert len(set(found)) == 300
