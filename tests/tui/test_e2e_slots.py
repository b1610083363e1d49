"""The TUI answers the right slot: a real daemon, a real agent working issues in parallel.

The four issues of the parallel end-to-end test (#3 needs #1) with ``"parallel": 3`` on
the embedded model, every checkpoint answered in the TUI at 80×24. Each time a
checkpoint about an issue opens, its dialog names that issue in its title and the
daemon's slot rows mark that issue's slot (and no other) as the one waiting; every
issue's closure is answered once, and the run ends done.
"""

from __future__ import annotations

from functools import partial

import pytest

from agent.daemon.client import DaemonClient
from common.schemas.daemon_state import AgentStatus
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.workspace.checkpoint_issue import issue_of
from tests.e2e.test_parallel_issues import DATA, ops_project
from tests.tui.helpers import DIALOG_TESTS, dialog, wait_until
from tests.tui.test_e2e import AGENT_WAIT
from tests.tui.test_small_terminal import SMALL
from tui.app import HarnessApp
from tui.screens.wizard import WizardDefaults
from tui.services.link import DaemonLink
from tui.widgets.slot_view import SlotView

pytestmark = pytest.mark.slow


def waiting_slots(app: HarnessApp) -> list[int]:
    """The issues whose slot row the running view marks as waiting."""
    return [slot.iid for slot in app.running.query_one(SlotView).slots if slot.waiting]


def marked_alone(app: HarnessApp, iid: int) -> bool:
    """Issue ``iid``'s slot row, and no other, is marked as the one waiting."""
    return waiting_slots(app) == [iid]


def answered_or_gone(app: HarnessApp, checkpoint_id: str) -> bool:
    """The dialog of ``checkpoint_id`` has closed (another may be open)."""
    shown = dialog(app)
    return shown is None or shown.checkpoint.id != checkpoint_id


async def test_each_slots_checkpoint_names_its_issue_and_marks_its_row(daemon: None) -> None:
    project = ops_project()
    spec = AgentSpec(
        spec_file=DATA / "parallel-spec.md",
        project_dir=project,
        target_branch="main",
        file_only_mode=True,
        model=LOCAL_MODEL,
        playbook=DATA / "parallel-playbook.json",
        parallel=3,
    )
    async with DaemonClient.connect() as client:
        name = (await client.start(spec)).name
    defaults = WizardDefaults(start_dir=project, model="local", file_only_mode=True)
    app = HarnessApp(DaemonLink(autostart=False), defaults, settings=DIALOG_TESTS)
    answered: list[int] = []
    seen_slots: set[int] = set()
    async with app.run_test(size=SMALL) as pilot:

        def ended() -> bool:
            info = app.running.agents.get(name)
            return info is not None and info.status not in (
                AgentStatus.RUNNING,
                AgentStatus.WAITING,
            )

        while True:
            await wait_until(
                pilot, lambda: dialog(app) is not None or ended(), "a dialog", AGENT_WAIT
            )
            shown = dialog(app)
            if shown is None:
                break
            checkpoint = shown.checkpoint
            iid = issue_of(checkpoint)
            if iid is not None:
                title = str(shown.query_one("#dialog").border_title)
                assert title.endswith(f"— ISSUE #{iid}"), title
                await wait_until(
                    pilot,
                    partial(marked_alone, app, iid),
                    f"#{iid}'s row marked",
                    AGENT_WAIT,
                )
                answered.append(iid)
            seen_slots.update(slot.iid for slot in app.running.query_one(SlotView).slots)
            await pilot.press("y")
            await wait_until(
                pilot,
                partial(answered_or_gone, app, checkpoint.id),
                "the answer",
            )
        assert app.running.agents[name].status is AgentStatus.DONE, app.running.agents[name]
    assert sorted(answered) == [1, 2, 3, 4], "one closure per issue, each marked"
    assert len(seen_slots) >= 2, "issues were worked side by side"
