"""enrichment_scope in the TUI: Y keeps the spec-faithful text, the review applies ticked ones."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import SelectionList

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import Checkpoint, ScopeDecision
from common.schemas.daemon_state import AgentStatus
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog, make_app, wait_until, write_checkpoint
from tui.modals.review.base import ReviewScreen
from tui.widgets.diff_view import DiffView


def decided(workspace: Path) -> Checkpoint | None:
    found = checkpoints.current(WorkspaceFiles(workspace))
    return found if found is not None and found.status == "decided" else None


async def answered(workspace: Path, *keys: str, review: bool) -> ScopeDecision:
    write_checkpoint(workspace, samples.enrichment_scope())
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.ISSUE_ENRICHMENT
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        if review:
            await pilot.press("r")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
            view = app.screen.query_one(DiffView)
            assert [item.path for item in view.review.files] == ["issue-3.md"]
        await pilot.press(*keys)
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, ScopeDecision)
    assert result.decision.decided_by.startswith("tui:")
    return result.decision


async def test_y_keeps_every_issues_spec_faithful_text(workspace: Path) -> None:
    decision = await answered(workspace, "y", review=False)

    assert (decision.approved, decision.selected) == (True, [])


async def test_the_review_applies_the_ticked_enrichment(workspace: Path) -> None:
    decision = await answered(workspace, "space", "ctrl+y", review=True)

    assert (decision.approved, decision.selected) == (True, [3])


async def test_reject_in_the_review_applies_none(workspace: Path) -> None:
    decision = await answered(workspace, "space", "ctrl+n", review=True)

    assert (decision.approved, decision.selected) == (False, [])


async def test_a_ticked_enrichment_reads_x_without_colour(workspace: Path) -> None:
    write_checkpoint(workspace, samples.enrichment_scope())
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.ISSUE_ENRICHMENT
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        apply = app.screen.query_one("#apply", SelectionList)
        assert str(apply.get_option_at_index(0).prompt) == "[ ] #3 Add word_count"
        await pilot.press("space")
        await wait_until(
            pilot, lambda: str(apply.get_option_at_index(0).prompt).startswith("[x] "), "[x]"
        )
    assert decided(workspace) is None
