"""A real agent's reminder period reaches the TUI through the daemon, and the TUI reminds.

The demo agent (embedded model) waits at project_verification with
``remind_every_minutes`` of 1.2 s: the agent logs its reminders, and the TUI, which
learns R from the daemon's agent info alone, rings and notifies again on the same beat.
"""

from __future__ import annotations

import pytest

from agent.daemon.client import DaemonClient
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus
from common.schemas.notify import CheckpointTimeout
from common.schemas.spec import AgentSpec
from tests.tui.helpers import ASK_FIRST, dialog, wait_until
from tui.app import HarnessApp
from tui.screens.wizard import WizardDefaults
from tui.services.link import DaemonLink

pytestmark = pytest.mark.slow

#: The agent reaches its first checkpoint after checking the project: allow for slow CI.
AGENT_WAIT = 60.0


async def test_a_real_agents_waiting_checkpoint_is_reminded_in_the_tui(
    daemon: None, demo_spec: AgentSpec
) -> None:
    patience = CheckpointTimeout(minutes=30, then="stop", remind_every_minutes=0.02)
    spec = demo_spec.model_copy(update={"checkpoint_timeout": patience})
    async with DaemonClient.connect() as client:
        started = await client.start(spec)
    written: list[str] = []
    defaults = WizardDefaults(start_dir=spec.project_dir, model="local", file_only_mode=True)
    app = HarnessApp(
        DaemonLink(autostart=False),
        defaults,
        settings=ASK_FIRST,
        terminal=written.append,
        wizard_when_empty=False,
    )

    def reminders() -> int:
        return sum(f"{started.name} has waited" in chunk for chunk in written)

    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: reminders() >= 2, "two reminders", AGENT_WAIT)
        info = app.running.agents[started.name]
        assert info.status is AgentStatus.WAITING
        assert info.pending_checkpoint is CheckpointType.PROJECT_VERIFICATION
        assert info.remind_every_minutes == 0.02
        assert dialog(app) is None  # reminded, never opened under the person's fingers
    first = f"{started.name} waits at project_verification"
    assert sum(first in chunk for chunk in written) == 1
    log = started.log_file.read_text()
    assert "(reminder)" in log  # the agent reminds on its own channels as well
