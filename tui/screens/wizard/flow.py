"""The wizard's flow: five steps, forward with Enter, back with Esc, then start the agent.

Steps replace each other with ``switch_screen`` so the running view never
flashes between them; going back rebuilds the earlier step from the answers
collected so far, so nothing typed is lost.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from textual.app import App
from textual.screen import Screen

from common.schemas.protocol import AgentInfo
from common.schemas.spec import AgentSpec
from tui.screens.wizard.state import WizardDefaults, WizardState
from tui.services.settings import remember_repository

StartAgent = Callable[[AgentSpec], Awaitable[AgentInfo]]
"""Hands the finished spec to the daemon; raises ``HarnessError`` with the daemon's reason."""

Step = Callable[["Wizard"], Screen[None]]
"""Makes a step's screen for the wizard (a :class:`tui.screens.wizard.base.WizardStep`
class): the flow knows its steps only so, and the steps know the flow."""

Finished = Callable[[AgentInfo | None], None]
"""Called once the wizard is closed: the started agent, or ``None`` when cancelled."""


class Wizard:
    """Which step is on screen, and what to do after the last one."""

    def __init__(
        self,
        app: App[Any],
        steps: Sequence[Step],
        defaults: WizardDefaults,
        start: StartAgent,
        finished: Finished,
    ) -> None:
        self.app = app
        self.state = WizardState(defaults)
        self.steps = steps
        self.index = 0
        self._start = start
        self._finished = finished

    @property
    def total(self) -> int:
        return len(self.steps)

    def begin(self) -> None:
        """Show the first step on top of the current screen."""
        self.index = 0
        self.app.push_screen(self.steps[0](self))

    def next(self) -> None:
        """Go to the following step (the last step calls :meth:`start` instead)."""
        self.index += 1
        self.app.switch_screen(self.steps[self.index](self))

    def back(self) -> None:
        """Go to the previous step; from the first, close the wizard."""
        if self.index == 0:
            self.app.pop_screen()
            self._finished(None)
            return
        self.index -= 1
        self.app.switch_screen(self.steps[self.index](self))

    async def start(self) -> AgentInfo:
        """Start the agent; the wizard closes only when the daemon accepted it.

        Raises:
            HarnessError: the daemon refused (the step shows the reason and stays).
        """
        spec = self.state.to_spec()
        info = await self._start(spec)
        remember_repository(spec.project_dir)
        self.app.pop_screen()
        self._finished(info)
        return info
