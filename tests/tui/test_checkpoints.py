"""The eight checkpoint dialogs against real checkpoint files: approve, reject, review, Esc.

Each test writes a pending checkpoint into a workspace exactly as the agent
does; the TUI finds it through its file watch and the decision must end up in
the file, signed ``tui:<user>``, through the same decision rules as the CLI.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    EnrichmentDecision,
    RegressionAction,
    RegressionDecision,
    SelectionDecision,
)
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from common.workspace import answer, checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import (
    dialog,
    dialog_for,
    make_app,
    status_text,
    wait_until,
    write_checkpoint,
)
from tui.modals.reason_prompt import ReasonPrompt
from tui.modals.review.base import ReviewScreen
from tui.screens.wizard.base import WizardStep

ALL_TYPES = list(CheckpointType)
REJECTABLE = [kind for kind in ALL_TYPES if kind is not CheckpointType.REGRESSION_APPROVAL]


def waiting_agent(workspace: Path, name: str = "agent_1") -> list[AgentInfo]:
    return [agent_info(name, workspace, status=AgentStatus.WAITING, phase=Phase.CODING)]


def decided(workspace: Path) -> Checkpoint | None:
    """The checkpoint file, once it holds a decision."""
    found = checkpoints.current(WorkspaceFiles(workspace))
    return found if found is not None and found.status == "decided" else None


@pytest.mark.parametrize("kind", ALL_TYPES)
async def test_y_approves_with_the_checkpoint_default(
    workspace: Path, kind: CheckpointType
) -> None:
    checkpoint = samples.BUILDERS[kind]()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert result.decision.approved
    assert result.decision.decided_by.startswith("tui:")
    match result.decision:
        case EnrichmentDecision(selected=selected):
            assert selected == [2]  # the model's recommendation
        case SelectionDecision(issue_iid=iid):
            assert iid == 1  # the recommended issue
        case RegressionDecision(action=action):
            assert action is RegressionAction.FIX_NOW


@pytest.mark.parametrize(
    ("kind", "key"), [(kind, "nNxX0"[n % 5]) for n, kind in enumerate(REJECTABLE)]
)
async def test_n_x_and_0_reject_after_asking_why(
    workspace: Path, kind: CheckpointType, key: str
) -> None:
    checkpoint = samples.BUILDERS[kind]()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonPrompt), "the reason prompt")
        assert decided(workspace) is None, "nothing is written before the reason is sent"
        await pilot.press(*"not now", "enter")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert not result.decision.approved
    assert result.decision.reason == "not now"
    assert result.decision.decided_by.startswith("tui:")
    if isinstance(result.decision, EnrichmentDecision):
        assert result.decision.selected == []  # reject skips every enrichment


async def test_1_approves_too(workspace: Path) -> None:
    checkpoint = samples.mr_phase_transition()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("1")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None and result.decision.approved


@pytest.mark.parametrize("key", ["n", "x", "0"])
async def test_regression_reject_is_blocked_and_names_the_actions(
    workspace: Path, key: str
) -> None:
    checkpoint = samples.regression_approval()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press(key)
        await pilot.pause()
        found = dialog(app)
        assert found is not None, "the dialog stays open"
        notice = str(found.query_one("#notice").render())
        assert "cannot be rejected" in notice
        assert all(action in notice for action in ("fix_now", "defer", "abort"))
    assert decided(workspace) is None


async def test_escape_sets_the_checkpoint_aside_and_c_brings_it_back(workspace: Path) -> None:
    checkpoint = samples.issue_closure()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        assert "1 checkpoint waits" in status_text(app)
        await pilot.press("c")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog again")
    assert decided(workspace) is None  # Esc decides nothing


async def test_enrichment_review_with_a_changed_selection(workspace: Path) -> None:
    write_checkpoint(workspace, samples.issue_enrichment())  # recommends #2
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("space", "down", "space", "ctrl+y")  # tick #1, untick #2
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, EnrichmentDecision)
    assert result.decision.approved and result.decision.selected == [1]


async def test_selection_review_picks_another_issue(workspace: Path) -> None:
    write_checkpoint(workspace, samples.issue_selection())  # recommends #1
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, SelectionDecision)
    assert result.decision.issue_iid == 3


async def test_regression_review_applies_another_action(workspace: Path) -> None:
    write_checkpoint(workspace, samples.regression_approval())
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, RegressionDecision)
    assert result.decision.action is RegressionAction.DEFER


async def test_spec_review_rejects_with_feedback(workspace: Path) -> None:
    write_checkpoint(workspace, samples.spec_to_issues())
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.click("#reason")
        await pilot.press(*"merge 2 and 3", "ctrl+n")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert not result.decision.approved and result.decision.reason == "merge 2 and 3"


async def test_escape_in_the_review_returns_to_the_dialog(workspace: Path) -> None:
    checkpoint = samples.mr_review()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("escape")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog again")
    assert decided(workspace) is None


async def test_several_waiting_agents_are_answered_in_turn(scratch: Path) -> None:
    agents = []
    for number, kind in ((1, CheckpointType.ISSUE_CLOSURE), (2, CheckpointType.MR_REVIEW)):
        workspace = scratch / f"p{number}" / ".claude-agent" / "ws"
        (workspace / "logs").mkdir(parents=True)
        write_checkpoint(workspace, samples.BUILDERS[kind]())
        agents += waiting_agent(workspace, f"agent_{number}")
    app, _ = make_app(agents)
    async with app.run_test(size=(120, 36)) as pilot:
        # Oldest first: the closure sample was created before the MR review sample.
        await wait_until(pilot, dialog_for(app, "issue_closure-0"), "the first dialog")
        first = dialog(app)
        assert first is not None
        assert "1 more checkpoint waits" in str(first.query_one("#others").render())
        await pilot.press("y")
        await wait_until(pilot, dialog_for(app, "mr_review-0"), "the second dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: decided(agents[1].workspace) is not None, "decision 2")
    assert decided(agents[0].workspace) is not None


async def test_a_decision_made_elsewhere_closes_the_dialog_and_the_review(
    workspace: Path,
) -> None:
    checkpoint = samples.issue_selection()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        answer.approve(workspace, "2", None, client="cli")
        await wait_until(pilot, lambda: app.screen is app.running, "the dialog to close")
        await pilot.press("y")  # on the running view: decides nothing
    result = decided(workspace)
    assert result is not None and isinstance(result.decision, SelectionDecision)
    assert result.decision.decided_by.startswith("cli:") and result.decision.issue_iid == 2


async def test_a_checkpoint_written_while_running_opens_its_dialog(workspace: Path) -> None:
    app, _ = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.agents != {}, "the agent list")
        checkpoint = samples.mr_phase_transition()
        write_checkpoint(workspace, checkpoint)
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")


async def test_the_dialog_closes_when_its_agent_stops(workspace: Path) -> None:
    checkpoint = samples.project_verification()
    write_checkpoint(workspace, checkpoint)
    agents = waiting_agent(workspace)
    app, link = make_app(agents)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        link.push(agents[0].model_copy(update={"status": AgentStatus.STOPPED, "pid": None}))
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
    assert decided(workspace) is None


async def test_a_key_pressed_on_a_stale_dialog_never_decides_the_next_checkpoint(
    workspace: Path,
) -> None:
    first = samples.issue_closure("issue_closure-1")
    write_checkpoint(workspace, first)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, first.id), "the dialog")
        stale = dialog(app)
        assert stale is not None
        # The CLI decides, the agent writes its next checkpoint at once, and Y arrives
        # before the TUI has seen either change.
        answer.approve(workspace, None, None, client="cli")
        second = samples.issue_selection("issue_selection-2")
        write_checkpoint(workspace, second)
        stale.action_approve()
        await wait_until(pilot, dialog_for(app, second.id), "the next checkpoint's dialog")
    found = checkpoints.current(WorkspaceFiles(workspace))
    assert found is not None and found.id == second.id and found.status == "pending"


async def test_a_checkpoint_waits_for_the_wizard_to_close(workspace: Path) -> None:
    app, _ = make_app([agent_info("agent_1", workspace)], start_dir=workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, WizardStep), "the wizard")
        checkpoint = samples.mr_review()
        write_checkpoint(workspace, checkpoint)
        await wait_until(pilot, lambda: "1 checkpoint waits" in status_text(app), "the news")
        assert isinstance(app.screen, WizardStep)  # no dialog over the wizard
        await pilot.press("escape")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
