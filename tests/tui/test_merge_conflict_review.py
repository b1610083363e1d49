"""merge_conflict in the TUI: the dialog at 80×24 names the issue and the conflicted file,
the review shows the conflicted diff file by file and applies the highlighted action, Y
redoes; each answer is written to the checkpoint file as the CLI's would be."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    MergeConflictAction,
    MergeConflictDecision,
)
from common.schemas.daemon_state import AgentStatus
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog_for, make_app, wait_until, write_checkpoint
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.review.base import ReviewScreen
from tui.widgets.diff_view import DiffView


def decided(workspace: Path) -> Checkpoint | None:
    found = checkpoints.current(WorkspaceFiles(workspace))
    return found if found is not None and found.status == "decided" else None


def decided_action(workspace: Path) -> MergeConflictAction | None:
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, MergeConflictDecision)
    assert result.decision.approved and result.decision.decided_by.startswith("tui:")
    return result.decision.action


async def test_the_dialog_at_80x24_names_the_issue_and_y_redoes(workspace: Path) -> None:
    checkpoint = samples.merge_conflict()
    write_checkpoint(workspace, checkpoint)
    agents = [agent_info("agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.CODING)]
    app, _ = make_app(agents)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "on top")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CheckpointDialog)
        top = str(screen.query_one("#what-happened", Static).render())
        assert "issue #3 was accepted" in top and "conflicted files: textkit/slug.py" in top
        keys = str(screen.query_one("#shortcuts", Static).render())
        assert "approve: redo" in keys and "reject: pause the run" in keys
        await pilot.press("y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    assert decided_action(workspace) is MergeConflictAction.REDO


async def test_the_review_shows_the_conflicted_diff_and_applies_set_aside(
    workspace: Path,
) -> None:
    checkpoint = samples.merge_conflict()
    write_checkpoint(workspace, checkpoint)
    agents = [agent_info("agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.CODING)]
    app, _ = make_app(agents)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.pause()
        review = app.screen
        body = "\n".join(str(s.render()) for s in review.query("#review-body Static"))
        assert "  ✗ textkit/slug.py" in body
        assert "Worktree: ~/.harness/worktrees/textkit/issue-3" in body
        diff = review.query_one(DiffView)
        assert [item.path for item in diff.review.files] == ["textkit/slug.py"]
        assert "++<<<<<<< HEAD" in diff.review.files[0].text
        await pilot.press("down", "down", "enter")  # redo, retry, set_aside
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    assert decided_action(workspace) is MergeConflictAction.SET_ASIDE
