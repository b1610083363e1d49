"""spec_to_issues in the TUI: each issue's dependencies are shown and can be changed in the
review screen (one field per issue); a change that makes a cycle is refused with one line
beside its field, the review stays open with every edit and the typed feedback, and
nothing is decided; the change is recorded as the person's signed decision."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import Checkpoint, ProposalDecision, SpecToIssuesCheckpoint
from common.schemas.daemon_state import AgentStatus
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog, make_app, wait_until, write_checkpoint
from tui.app import HarnessApp
from tui.modals.review.base import ReviewScreen
from tui.modals.review.plain import field_problems


def details(app: HarnessApp) -> str:
    """The dialog's context lines, once it shows them."""
    shown = dialog(app)
    found = shown.query("#details").results(Static) if shown is not None else []
    return "".join(str(item.content) for item in found)


def decided(workspace: Path) -> Checkpoint | None:
    found = checkpoints.current(WorkspaceFiles(workspace))
    return found if found is not None and found.status == "decided" else None


async def test_the_review_changes_what_an_issue_depends_on(workspace: Path) -> None:
    write_checkpoint(workspace, samples.spec_to_issues())
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.SPEC_TO_ISSUES
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "     depends on #1" in details(app), "the details")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        review = app.screen
        fields = {f.id: f.value for f in review.query(".depends-row Input").results(Input)}
        assert fields == {"depends-1": "", "depends-2": "", "depends-3": "1"}

        await pilot.press(*"split slugify")  # the cursor starts in the feedback field
        review.query_one("#depends-2", Input).focus()
        await pilot.press("1")  # 2 → 1: fine on its own
        review.query_one("#depends-1", Input).focus()
        await pilot.press("3")  # 1 → 3 → 1: a cycle
        await pilot.press("ctrl+y")
        error = review.query_one("#depends-1-error", Static)
        await wait_until(pilot, lambda: "cycle" in str(error.content), "the error beside #1")

        assert app.screen is review, "the review stays open"
        assert str(error.content) == "✗ dependency cycle: #1 → #3 → #1"
        assert error.region.y == review.query_one("#depends-1").region.bottom  # right under it
        assert str(review.query_one("#depends-2-error", Static).content) == ""
        assert review.focused is review.query_one("#depends-1", Input)
        notice = str(review.query_one("#review-notice", Static).content)
        assert notice.startswith("dependency cycle: #1 → #3 → #1 (fix the field of #1")
        kept = {f.id: f.value for f in review.query(Input).results(Input)}
        assert kept == {
            "depends-1": "3",
            "depends-2": "1",
            "depends-3": "1",
            "reason": ("split slugify"),
        }
        assert decided(workspace) is None, "nothing is decided"

        await pilot.press("backspace")  # the fix clears the error
        await wait_until(pilot, lambda: str(error.content) == "", "the error to go")
        review.query_one("#depends-3", Input).value = "1, 2"
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert isinstance(result, SpecToIssuesCheckpoint)
    decision = result.decision
    assert isinstance(decision, ProposalDecision)
    assert decision.approved and decision.decided_by.startswith("tui:")
    assert decision.depends_on == {2: [1], 3: [1, 2]}
    assert decision.reason == "split slugify"
    assert decision.mac is not None
    assert result.dependencies() == {1: [], 2: [1], 3: [1, 2]}


async def test_what_was_typed_is_there_again_after_esc_and_r(workspace: Path) -> None:
    write_checkpoint(workspace, samples.spec_to_issues())
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.SPEC_TO_ISSUES
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press(*"one issue per helper")
        app.screen.query_one("#depends-2", Input).focus()
        await pilot.press("3")
        await pilot.press("escape")
        await wait_until(pilot, lambda: dialog(app) is not None, "back at the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.pause()
        kept = {f.id: f.value for f in app.screen.query(Input).results(Input)}
    assert kept["reason"] == "one issue per helper"
    assert kept["depends-2"] == "3"


def test_a_cycle_through_two_edited_fields_marks_both() -> None:
    checkpoint = samples.spec_to_issues()
    assert isinstance(checkpoint, SpecToIssuesCheckpoint)
    edits = {1: ["2"], 2: ["1"]}
    problem = "dependency cycle: #1 → #2 → #1"
    assert field_problems(checkpoint, edits, problem) == {1: problem, 2: problem}
    unknown = field_problems(checkpoint, {2: ["7"]}, "whatever the whole said")
    assert unknown == {2: "#2 depends on #7, which the proposal does not have"}


async def test_y_keeps_the_proposals_dependencies(workspace: Path) -> None:
    write_checkpoint(workspace, samples.spec_to_issues())
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.SPEC_TO_ISSUES
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert isinstance(result, SpecToIssuesCheckpoint)
    assert isinstance(result.decision, ProposalDecision) and result.decision.depends_on == {}
    assert result.dependencies() == {1: [], 2: [], 3: [1]}
