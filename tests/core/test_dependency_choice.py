"""Dependencies at spec_to_issues: the model proposes them (refused back when they are no
graph), a person changes them with ``--choice depends=…`` (refused with one line when
the change makes a cycle; nothing changes), and the decision is signed like any other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.core.session.tools import SessionReports
from agent.core.session.toolset import surface_for
from agent.core.stages.spec_to_issues import approved_drafts
from common import decision_mac
from common.errors import CheckpointError
from common.schemas.checkpoint import (
    BlockedIssue,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    ProposalDecision,
    SpecToIssuesCheckpoint,
    SpecToIssuesContext,
)
from common.schemas.issues import IssueDraft, TrackedIssue
from common.workspace.checkpoints import decided
from common.workspace.decisions import choice_decision, default_decision, reject_decision

WHO = "cli:ada"


def proposal(*depends: list[int]) -> SpecToIssuesCheckpoint:
    """A proposal of ``len(depends)`` issues, issue N depending on ``depends[N-1]``."""
    return SpecToIssuesCheckpoint(
        id="si-1",
        what_happened=["proposed"],
        to_decide="Create these issues?",
        if_approved="created",
        if_rejected="again",
        context=SpecToIssuesContext(
            issues=[
                IssueDraft(title=f"Issue {n}", summary="s", depends_on=needs)
                for n, needs in enumerate(depends, start=1)
            ]
        ),
    )


# --- the model's proposal ---------------------------------------------------------------


async def propose(reports: SessionReports, *depends: list[int]) -> dict[str, Any]:
    (tool,) = [t for t in reports._tools() if t.name == "propose_issues"]
    issues = [
        {"title": f"Issue {n}", "summary": "s", "depends_on": needs}
        for n, needs in enumerate(depends, start=1)
    ]
    result: dict[str, Any] = await tool.handler({"issues": issues})
    return result


@pytest.mark.parametrize(
    ("depends", "problem"),
    [
        (([], [1], [4]), "#3 depends on #4, which the proposal does not have"),
        (([], [2], []), "#2 depends on itself"),
        (([3], [1], [2]), "dependency cycle: #1 → #3 → #2 → #1"),
    ],
)
async def test_a_proposal_that_is_no_graph_is_refused_back_to_the_model(
    depends: tuple[list[int], ...], problem: str
) -> None:
    reports = SessionReports(surface=surface_for("initializer"))

    result = await propose(reports, *depends)

    assert result["is_error"] is True
    (text,) = [part["text"] for part in result["content"]]
    assert text == f"invalid input for propose_issues: {problem}"
    assert reports.proposal is None, "nothing recorded: the session is not done"
    mended = await propose(reports, [], [1], [1, 2])
    assert "is_error" not in mended and reports.proposal is not None
    assert [i.depends_on for i in reports.proposal.issues] == [[], [1], [1, 2]]


def test_an_old_proposal_without_dependencies_still_loads() -> None:
    draft = IssueDraft.model_validate({"title": "T", "summary": "s"})
    assert draft.depends_on == []


# --- a person's change ------------------------------------------------------------------


def test_depends_choice_changes_only_the_issues_it_names() -> None:
    checkpoint = proposal([], [], [1], [2])

    decision = choice_decision(checkpoint, "depends=3:1,2;4:", WHO, "3 needs both")

    assert isinstance(decision, ProposalDecision)
    assert (decision.approved, decision.depends_on, decision.reason) == (
        True,
        {3: [1, 2], 4: []},
        "3 needs both",
    )
    answered = decided(checkpoint, decision)
    assert isinstance(answered, SpecToIssuesCheckpoint)
    assert answered.dependencies() == {1: [], 2: [], 3: [1, 2], 4: []}
    assert [d.depends_on for d in approved_drafts(answered)] == [[], [], [1, 2], []]


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("depends=1:3", "dependency cycle: #1 → #3 → #1"),
        ("depends=2:2", "#2 depends on itself"),
        ("depends=2:5", "#2 depends on #5, which the proposal does not have"),
        ("depends=7:1", "#7 is no issue of the proposal"),
        ("depends=2-1", "expected ISSUE:DEPENDENCIES like 3:1,2 — got '2-1'"),
        ("2:1", "spec_to_issues takes depends=ISSUE:DEPENDENCIES"),
    ],
)
def test_a_change_that_is_no_graph_is_refused_with_one_line(choice: str, message: str) -> None:
    checkpoint = proposal([], [1], [1])

    with pytest.raises(CheckpointError) as caught:
        choice_decision(checkpoint, choice, WHO)

    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_cycle_written_into_the_decision_by_hand_does_not_fit_the_checkpoint() -> None:
    """The schema refuses it too: a decision file cannot carry what --choice refuses."""
    checkpoint = proposal([], [1])
    forged = ProposalDecision(approved=True, decided_by=WHO, depends_on={1: [2]})

    with pytest.raises(CheckpointError, match=r"dependency cycle: #1 → #2 → #1"):
        decided(checkpoint, forged)
    rejected = ProposalDecision(approved=False, decided_by=WHO, depends_on={2: []})
    with pytest.raises(CheckpointError, match="a rejected proposal changes no dependency"):
        decided(checkpoint, rejected)


def test_approve_and_reject_keep_the_proposals_dependencies() -> None:
    checkpoint = proposal([], [1])
    for decision in (default_decision(checkpoint, WHO), reject_decision(checkpoint, WHO, "no")):
        assert isinstance(decision, ProposalDecision) and decision.depends_on == {}
        assert decided(checkpoint, decision).dependencies() == {1: [], 2: [1]}  # type: ignore[union-attr]


def test_the_change_is_signed_a_rewritten_one_does_not_count(tmp_path: Path) -> None:
    key = bytes(range(32))
    checkpoint = proposal([], [], [1])
    decision = choice_decision(checkpoint, "depends=3:2", WHO)
    mac = decision_mac.sign_decision(key, tmp_path, checkpoint, decision)
    signed = decided(checkpoint, decision.model_copy(update={"mac": mac}))
    assert decision_mac.decision_problem(key, tmp_path, checkpoint, signed) is None

    assert isinstance(signed.decision, ProposalDecision)
    rewritten = signed.model_copy(
        update={"decision": signed.decision.model_copy(update={"depends_on": {3: [1, 2]}})}
    )
    problem = decision_mac.decision_problem(key, tmp_path, checkpoint, rewritten)
    assert problem is not None and "wrong MAC" in problem


def test_a_blocked_issue_cannot_be_chosen_at_issue_selection() -> None:
    checkpoint = IssueSelectionCheckpoint(
        id="is-1",
        what_happened=["1 of 3 closed"],
        to_decide="Which issue?",
        if_approved="worked on",
        if_rejected="paused",
        context=IssueSelectionContext(
            open_issues=[IssueRef(iid=3, title="Quarter")],
            recommended_iid=3,
            blocked=[BlockedIssue(iid=2, title="Eighth", waiting_for=[3])],
        ),
    )

    with pytest.raises(CheckpointError) as caught:
        choice_decision(checkpoint, "2", WHO)

    assert str(caught.value) == "issue #2 waits for #3; choose one that may start now: 3"
    assert choice_decision(checkpoint, "3", WHO).approved


def test_an_enrichment_session_sees_what_each_issue_depends_on() -> None:
    from agent.core.stages.issue_enrichment import _listed

    first = TrackedIssue(iid=1, title="Add half", description="d")
    third = TrackedIssue(iid=3, title="Add quarter", description="d", depends_on=[1, 2])
    assert [_listed(first), _listed(third)] == [
        "#1 Add half",
        "#3 Add quarter (depends on #1, #2)",
    ]
