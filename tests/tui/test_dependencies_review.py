"""spec_to_issues in the TUI: each issue's dependencies are shown and can be changed in the
review screen (one field per issue); a change that makes a cycle is refused with one line
and nothing is decided; the change is recorded as the person's signed decision."""

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
        fields = {f.id: f.value for f in app.screen.query(".depends-row Input").results(Input)}
        assert fields == {"depends-1": "", "depends-2": "", "depends-3": "1"}

        app.screen.query_one("#depends-1", Input).value = "3"  # 1 → 3 → 1: a cycle
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: dialog(app) is not None, "back at the dialog")
        notice = app.screen.query_one("#notice", Static)
        await wait_until(pilot, lambda: "cycle" in str(notice.content), "the refusal")
        assert str(notice.content) == "dependency cycle: #1 → #3 → #1"
        assert decided(workspace) is None, "nothing is decided"

        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        app.screen.query_one("#depends-3", Input).value = "1, 2"
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert isinstance(result, SpecToIssuesCheckpoint)
    decision = result.decision
    assert isinstance(decision, ProposalDecision)
    assert decision.approved and decision.decided_by.startswith("tui:")
    assert decision.depends_on == {3: [1, 2]}
    assert decision.mac is not None
    assert result.dependencies() == {1: [], 2: [], 3: [1, 2]}


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
