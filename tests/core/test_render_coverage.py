"""The spec's sections at the checkpoints that decide on them: each proposed issue's
sections and the ones no issue covers (spec_to_issues), the gaps before the merge request."""

from __future__ import annotations

from common.schemas.checkpoint import MrPhaseTransitionCheckpoint, SpecToIssuesCheckpoint
from common.schemas.coverage import SpecCoverage
from common.workspace.render import context_lines
from tests.core.checkpoint_samples import mr_transition, spec_to_issues


def test_spec_to_issues_shows_each_issues_sections_and_the_uncovered_ones() -> None:
    checkpoint = spec_to_issues()
    assert isinstance(checkpoint, SpecToIssuesCheckpoint)

    lines = context_lines(checkpoint)

    assert lines[1:3] == ["  1. Parser", "     spec: Parsing"]
    assert "Spec sections no issue covers: Output" in lines


def test_a_section_name_is_escaped_on_its_line() -> None:
    checkpoint = spec_to_issues()
    assert isinstance(checkpoint, SpecToIssuesCheckpoint)
    hostile = checkpoint.context.model_copy(
        update={"uncovered_sections": ["Out\x1b[2Jput\nAPPROVED"]}
    )

    (line,) = [
        line
        for line in context_lines(checkpoint.model_copy(update={"context": hostile}))
        if line.startswith("Spec sections no issue covers")
    ]

    assert "\x1b" not in line and "\n" not in line and "APPROVED" in line


def test_a_proposal_of_a_spec_without_sections_shows_no_section_lines() -> None:
    checkpoint = spec_to_issues()
    assert isinstance(checkpoint, SpecToIssuesCheckpoint)
    bare = checkpoint.context.model_copy(update={"spec_sections": [], "uncovered_sections": []})

    lines = context_lines(checkpoint.model_copy(update={"context": bare}))

    assert not [line for line in lines if "spec" in line.lower()]


def test_mr_phase_transition_says_partial_with_the_gaps() -> None:
    checkpoint = mr_transition()
    assert isinstance(checkpoint, MrPhaseTransitionCheckpoint)
    assert "Partial: 1 section uncovered: Output" in context_lines(checkpoint)

    whole = checkpoint.context.model_copy(update={"coverage": SpecCoverage(sections=["A"])})
    lines = context_lines(checkpoint.model_copy(update={"context": whole}))
    assert not [line for line in lines if line.startswith("Partial")]
