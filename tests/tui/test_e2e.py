"""The TUI against a real daemon and real agents on the demo project (embedded model).

These are the acceptance paths end to end: the wizard starts an agent through
the daemon, dialogs answer it, a review choice reaches it, quitting leaves it
running, a new TUI finds everything again, and a decision from the CLI closes
the open dialog.
"""

from __future__ import annotations

import pytest
from textual import events

from agent.daemon.client import DaemonClient
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import (
    CheckpointType,
    EnrichmentDecision,
    IssueClosureCheckpoint,
    SelectionDecision,
    SpecToIssuesCheckpoint,
)
from common.schemas.daemon_state import AgentStatus
from common.schemas.spec import AgentSpec
from common.schemas.tui_settings import TuiSettings
from common.workspace import answer, checkpoints
from common.workspace.setup import load_info
from tests.tui.helpers import DIALOG_TESTS, dialog, log_lines, status_text, wait_until
from tui.app import HarnessApp
from tui.modals.review.base import ReviewScreen
from tui.screens.wizard import WizardDefaults
from tui.screens.wizard.options import AdvancedStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.services.link import DaemonLink

pytestmark = pytest.mark.slow

#: A real agent between two checkpoints runs sessions and test suites: allow for slow CI.
AGENT_WAIT = 60.0


def tui(spec: AgentSpec, *, wizard: bool, settings: TuiSettings = DIALOG_TESTS) -> HarnessApp:
    defaults = WizardDefaults(start_dir=spec.project_dir, model="local", file_only_mode=True)
    return HarnessApp(
        DaemonLink(autostart=False), defaults, settings=settings, wizard_when_empty=wizard
    )


def waiting_at(app: HarnessApp, kind: CheckpointType) -> bool:
    found = dialog(app)
    return found is not None and found.checkpoint.type is kind


async def test_wizard_dialogs_and_review_choices_drive_a_real_agent(
    daemon: None, demo_spec: AgentSpec
) -> None:
    app = tui(demo_spec, wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the wizard")
        for step in range(4):  # repository, spec (pasted: it starts empty), branch, options
            if step == 1:
                await wait_until(pilot, lambda: isinstance(app.screen, SpecStep), "the spec")
                app.post_message(events.Paste(str(demo_spec.spec_file)))
                await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
        await wait_until(pilot, lambda: isinstance(app.screen, AdvancedStep), "the last step")
        await pilot.press("enter")

        def at(kind: CheckpointType) -> bool:
            return waiting_at(app, kind)

        await wait_until(pilot, lambda: at(CheckpointType.PROJECT_VERIFICATION), "pv", AGENT_WAIT)
        assert app.running.selected is not None
        workspace = app.running.selected.workspace
        await pilot.press("y")
        await wait_until(pilot, lambda: at(CheckpointType.SPEC_TO_ISSUES), "spec", AGENT_WAIT)
        await pilot.press("y")
        await wait_until(pilot, lambda: at(CheckpointType.ISSUE_ENRICHMENT), "enr", AGENT_WAIT)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("down", "space", "ctrl+y")  # untick the model's pick: enrich none
        await wait_until(pilot, lambda: at(CheckpointType.ISSUE_SELECTION), "sel", AGENT_WAIT)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("down", "down", "enter")  # issue #3 instead of the recommended #1
        await wait_until(pilot, lambda: at(CheckpointType.ISSUE_CLOSURE), "closure", AGENT_WAIT)
        closure = dialog(app)
        assert closure is not None and isinstance(closure.checkpoint, IssueClosureCheckpoint)
        assert closure.checkpoint.context.issue_iid == 3  # the agent worked on the chosen issue

    history = checkpoints.history(WorkspaceFiles(workspace))
    assert all(e.decision and e.decision.decided_by.startswith("tui:") for e in history)
    enrichment = next(e for e in history if e.type is CheckpointType.ISSUE_ENRICHMENT)
    assert isinstance(enrichment.decision, EnrichmentDecision)
    assert enrichment.decision.selected == []
    selection = next(e for e in history if e.type is CheckpointType.ISSUE_SELECTION)
    assert isinstance(selection.decision, SelectionDecision)
    assert selection.decision.issue_iid == 3


async def test_quit_reconnect_cli_decision_and_auto_accept(
    daemon: None, demo_spec: AgentSpec
) -> None:
    async with DaemonClient.connect() as client:
        started = await client.start(demo_spec)
    files = WorkspaceFiles(started.workspace)

    first = tui(demo_spec, wizard=False)
    async with first.run_test(size=(120, 36)) as pilot:
        await wait_until(
            pilot, lambda: waiting_at(first, CheckpointType.PROJECT_VERIFICATION), "pv", AGENT_WAIT
        )
        seen_id = dialog(first).checkpoint.id  # type: ignore[union-attr]
        await pilot.press("q")  # quits with the dialog open: nothing is decided
        await wait_until(pilot, lambda: not first.is_running, "the TUI to quit")

    async with DaemonClient.connect() as client:
        assert (await client.status(started.name)).status is AgentStatus.WAITING

    second = tui(demo_spec, wizard=False)
    async with second.run_test(size=(120, 36)) as pilot:
        await wait_until(
            pilot, lambda: waiting_at(second, CheckpointType.PROJECT_VERIFICATION), "pv again"
        )
        assert dialog(second).checkpoint.id == seen_id  # type: ignore[union-attr]
        assert list(second.running.agents) == [started.name]
        await wait_until(
            pilot, lambda: any("HITL CHECKPOINT" in line for line in log_lines(second)), "the log"
        )

        answer.approve(files.root, None, None, client="cli")
        await wait_until(
            pilot, lambda: waiting_at(second, CheckpointType.SPEC_TO_ISSUES), "spec", AGENT_WAIT
        )

        await pilot.press("escape", "a")
        await wait_until(pilot, lambda: "AUTO" in status_text(second), "AUTO")
        assert load_info(files.root).auto_accept  # persisted in the workspace


async def test_a_reason_typed_after_n_reaches_the_models_next_attempt(
    daemon: None, demo_spec: AgentSpec
) -> None:
    """Default settings: ⚑ and ``c`` open the checkpoint; N asks why; the next proposal
    is made with that reason (the checkpoint shows the feedback its session was given)."""
    async with DaemonClient.connect() as client:
        started = await client.start(demo_spec)
    files = WorkspaceFiles(started.workspace)
    app = tui(demo_spec, wizard=False, settings=TuiSettings())
    async with app.run_test(size=(120, 36)) as pilot:

        async def answer_next(kind: CheckpointType, *keys: str) -> None:
            await wait_until(pilot, lambda: "waits" in status_text(app), str(kind), AGENT_WAIT)
            await pilot.press("c")
            await wait_until(pilot, lambda: waiting_at(app, kind), f"the {kind} dialog")
            await pilot.press(*keys)
            await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")

        await answer_next(CheckpointType.PROJECT_VERIFICATION, "Y")
        await answer_next(CheckpointType.SPEC_TO_ISSUES, "N", *"fewer issues please", "enter")
        await wait_until(
            pilot,
            lambda: (
                (found := checkpoints.current(files)) is not None
                and isinstance(found, SpecToIssuesCheckpoint)
                and found.context.attempt == 2
            ),
            "the second proposal",
            AGENT_WAIT,
        )
        # Both proposals' sessions are counted in the agent's spend, shown in its row.
        await wait_until(
            pilot, lambda: app.running.agents[started.name].spend.sessions >= 2, "the spend"
        )
    second = checkpoints.current(files)
    assert isinstance(second, SpecToIssuesCheckpoint)
    assert second.context.feedback == "fewer issues please"
