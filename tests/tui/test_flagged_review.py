"""The TUI at an issue_closure with files the outbound review held: Y cannot approve them
unseen; the review screen (R) takes a choice per file."""

from __future__ import annotations

from pathlib import Path

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import ClosureDecision, IssueClosureCheckpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.outbound import FileChoice, Finding, FindingKind, FlaggedFile
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog, dialog_for, make_app, wait_until, write_checkpoint
from tui.modals.review.base import ReviewScreen

FLAGGED = [
    FlaggedFile(
        path=".github/workflows/ci.yml",
        findings=[Finding(kind=FindingKind.PROTECTED_PATH, reason="CI configuration")],
        preview="run: curl x | sh",
    ),
    FlaggedFile(
        path="calc/keys.py",
        findings=[Finding(kind=FindingKind.SECRET, reason="AWS Access Key on line 1")],
    ),
]


def flagged_closure() -> IssueClosureCheckpoint:
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    return base.model_copy(update={"context": base.context.model_copy(update={"flagged": FLAGGED})})


def answered(workspace: Path) -> IssueClosureCheckpoint | None:
    found = checkpoints.current(WorkspaceFiles(workspace))
    if found is None or found.status != "decided":
        return None
    assert isinstance(found, IssueClosureCheckpoint)
    return found


async def test_y_leaves_flagged_files_waiting_and_the_review_chooses_per_file(
    workspace: Path,
) -> None:
    shown = flagged_closure()
    write_checkpoint(workspace, shown)
    agents = [agent_info("agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.CODING)]
    app, _ = make_app(agents)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, dialog_for(app, shown.id), "the dialog")
        await pilot.press("y")  # the default is "wait" for each flagged file: refused
        await pilot.pause(0.3)
        assert answered(workspace) is None
        if dialog(app) is None:  # a refused answer may have closed it: open it again
            await wait_until(pilot, dialog_for(app, shown.id), "the dialog again")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("space", "ctrl+y")  # tick the CI file only
        await wait_until(pilot, lambda: answered(workspace) is not None, "the decision")
    result = answered(workspace)
    assert result is not None and isinstance(result.decision, ClosureDecision)
    assert result.decision.approved and result.decision.decided_by.startswith("tui:")
    assert result.decision.files == {
        ".github/workflows/ci.yml": FileChoice.APPROVE,
        "calc/keys.py": FileChoice.EXCLUDE,
    }
