"""What a run leaves undone, counted by the harness before the merge request: the spec's
sections no closed issue covers, the issues set aside or left open, and how it reads."""

from __future__ import annotations

from typing import Literal

import pytest

from agent.core.gates import coverage
from agent.core.stages.aside import SET_ASIDE_LABEL
from common.schemas.agent_state import AgentState
from common.schemas.coverage import SpecCoverage, gaps_line
from common.schemas.issues import IssueDraft, TrackedIssue

SPEC = (
    "# textkit\n\n## Context\n\nStandard library only.\n\n"
    "## Feature 1: `slugify`\n\nslugs\n\n## Feature 2: `parse`\n\nparsing\n"
)


def tracked(
    iid: int, state: Literal["opened", "closed"], labels: list[str] | None = None
) -> TrackedIssue:
    return TrackedIssue(
        iid=iid, title=f"issue {iid}", description="d", state=state, labels=labels or []
    )


def draft(*sections: str) -> IssueDraft:
    return IssueDraft(title="t", summary="s", spec_sections=list(sections))


def test_a_set_aside_issue_leaves_its_section_uncovered() -> None:
    issues = [tracked(1, "closed"), tracked(2, "opened", [SET_ASIDE_LABEL, "in-progress"])]
    drafts = {1: draft("Context", "Feature 1: slugify"), 2: draft("Context", "Feature 2: parse")}

    found = coverage.measure(SPEC, issues, drafts, SET_ASIDE_LABEL)

    assert found == SpecCoverage(
        sections=["Context", "Feature 1: slugify", "Feature 2: parse"],
        uncovered=["Feature 2: parse"],
        set_aside=[2],
    )
    assert found.has_gaps
    assert gaps_line(found, []) == "#2 set aside; 1 section uncovered: Feature 2: parse"


def test_every_section_closed_is_whole() -> None:
    issues = [tracked(1, "closed"), tracked(2, "closed"), tracked(3, "closed")]
    drafts = {1: draft("Context", "Feature 1: slugify"), 2: draft("Feature 2: parse")}

    found = coverage.measure(SPEC, issues, drafts, SET_ASIDE_LABEL)

    assert not found.has_gaps, "a closed issue the harness filed (#3, no draft) is no gap"
    assert gaps_line(found, [9]) == "", "the count wins over the state's older list"
    assert coverage.gaps_lines(found) == []


def test_an_open_issue_not_set_aside_is_left_open() -> None:
    issues = [tracked(1, "closed"), tracked(2, "opened")]
    drafts = {1: draft("Context", "Feature 1: slugify", "Feature 2: parse"), 2: draft("Context")}

    found = coverage.measure(SPEC, issues, drafts, SET_ASIDE_LABEL)

    assert (found.uncovered, found.set_aside, found.left_open) == ([], [], [2])
    assert gaps_line(found, []) == "#2 left open"


def test_issues_without_a_map_cover_nothing() -> None:
    """A run from before the map (or a model that gave none): every section is uncovered,
    and the exit state cannot say complete."""
    found = coverage.measure(SPEC, [tracked(1, "closed")], {}, SET_ASIDE_LABEL)
    assert found.uncovered == found.sections and len(found.sections) == 3
    assert gaps_line(found, []) == (
        "3 sections uncovered: Context, Feature 1: slugify, Feature 2: parse"
    )


def test_without_a_count_the_states_set_aside_list_is_shown() -> None:
    assert gaps_line(None, [3, 5]) == "#3, #5 set aside"
    assert gaps_line(None, []) == ""


def test_the_merge_requests_first_lines_name_every_gap() -> None:
    found = SpecCoverage(
        sections=["Context", "Feature 3: truncate"],
        uncovered=["Feature 3: truncate"],
        set_aside=[3],
        left_open=[4],
    )
    assert coverage.gaps_lines(found) == [
        "**Partial: this merge request does not implement the whole spec.**",
        "- Set aside for a person (`needs-human`): #3",
        "- Left open: #4",
        "- Spec sections no closed issue covers: `Feature 3: truncate`",
    ]


@pytest.mark.parametrize(
    "payload",
    [
        {"phase": "done"},
        {"phase": "done", "coverage": None},
        {"phase": "done", "coverage": {"sections": ["A"], "uncovered": ["A"]}},
    ],
    ids=["before-coverage", "none", "some"],
)
def test_states_with_and_without_coverage_load(payload: dict[str, object]) -> None:
    state = AgentState.model_validate(payload)
    assert state.coverage is None or state.coverage.uncovered == ["A"]


def test_an_issue_draft_from_before_the_map_loads_with_no_sections() -> None:
    old = IssueDraft.model_validate({"title": "t", "summary": "s"})
    assert old.spec_sections == []
    assert "spec_sections" not in old.description().lower(), "the tracker text is unchanged"
