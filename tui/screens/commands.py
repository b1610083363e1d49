"""The actions on agents that go through the daemon: auto-accept, stop, resume, run again,
remove.

Each command runs in its own worker on its own short connection, so a slow
``stop`` never freezes the screen; what the daemon answers is applied at once
(the subscription's event follows and changes nothing further). Errors are the
daemon's one-line reasons, shown as notifications.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.screen import Screen

from common.errors import HarnessError
from common.schemas.agent_status import AgentStatus
from tui import labels
from tui.messages import AgentChanged
from tui.modals.confirm import ConfirmScreen
from tui.services.link import AgentLink
from tui.services.pending import LIVE
from tui.widgets.agent_list import AgentList

if TYPE_CHECKING:  # the schemas load after the first paint (see tui.main)
    from common.schemas.auto_accept import AutoAcceptRules
    from common.schemas.protocol import AgentInfo
    from common.schemas.spec import AgentSpec

#: What ``resume`` accepts: a done agent has nothing left to do.
RESUMABLE = frozenset({AgentStatus.STOPPED, AgentStatus.FAILED})
#: What "remove ended" clears.
ENDED = frozenset({AgentStatus.DONE, AgentStatus.FAILED, AgentStatus.STOPPED})


class AgentCommands(Screen[None]):
    """A screen with an :class:`AgentList`; these actions act on its selected agent.

    The keys are bound by the screen that uses them, in the order its footer shows.
    """

    def __init__(self, link: AgentLink) -> None:
        super().__init__()
        self.link = link
        self.agents: dict[str, AgentInfo] = {}
        """Every agent the daemon reported, by name."""

    @property
    def selected(self) -> AgentInfo | None:
        """The agent under the list's cursor."""
        name = self.query_one(AgentList).selected
        return self.agents.get(name) if name is not None else None

    def action_toggle_auto_accept(self) -> None:
        """Switch between AUTO and HITL for the selected agent (kept in its workspace):
        rules that approve anything become all HITL, all HITL becomes all AUTO."""
        from common.schemas.auto_accept import AutoAcceptRules

        if (info := self._need_selected()) is not None:
            rules = AutoAcceptRules.off() if info.auto_accept else AutoAcceptRules.on()
            self._set_auto_accept(info.name, rules)

    def action_auto_accept_rules(self) -> None:
        """Edit the selected agent's rules per checkpoint type; saved ones are signed by
        the daemon like the switch."""
        from tui.modals.auto_accept_rules import AutoAcceptRulesScreen

        info = self._need_selected()
        if info is None:
            return

        def saved(rules: AutoAcceptRules | None) -> None:
            if rules is not None and rules != info.auto_accept_rules:
                self._set_auto_accept(info.name, rules)

        self.app.push_screen(AutoAcceptRulesScreen(info.name, info.auto_accept_rules), saved)

    def action_stop_agent(self) -> None:
        """Stop the selected agent; it can be started again and resumes."""
        info = self._need_selected()
        if info is None:
            return
        if info.status not in LIVE:
            self.notify(f"{info.name} is not running ({info.status.value}).")
            return
        self.notify(f"stopping {info.name}…")
        self._stop(info.name)

    def action_resume_agent(self) -> None:
        """Start the selected stopped or failed agent again, where it ended."""
        info = self._need_selected()
        if info is None:
            return
        if info.status not in RESUMABLE:
            self.notify(
                f"{info.name} is {info.status.value}; only a stopped or failed agent resumes"
                + (" (g runs its spec again)." if info.status in ENDED else ".")
            )
            return
        self.notify(f"resuming {info.name}…")
        self._resume(info.name)

    def action_run_again(self) -> None:
        """Run the selected ended agent's spec again, in a new workspace (the old one is
        kept), as ``harness run --fresh`` does: a done agent has nothing left to resume."""
        info = self._need_selected()
        if info is None:
            return
        if info.status not in ENDED or info.spec is None:
            self.notify(f"{info.name} is {info.status.value}; only an ended agent runs again.")
            return
        self.notify(f"running {info.spec_file.name} again in a new workspace…")
        self._run_again(info.spec)

    def action_remove_finished(self) -> None:
        """Forget every ended (done, failed or stopped) agent, after a confirmation."""
        ended = [info.name for info in self.agents.values() if info.status in ENDED]
        if not ended:
            self.notify("No agent has ended.")
            return
        question = f"Remove {len(ended)} ended agent(s) from the agent list: {', '.join(ended)}?"
        detail = "Their workspaces and logs stay where they are."

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove_all(ended)

        self.app.push_screen(ConfirmScreen(question, detail), confirmed)

    def action_remove_agent(self) -> None:
        """Forget the selected agent, after a confirmation."""
        info = self._need_selected()
        if info is None:
            return
        question = f"Remove {info.name} ({info.spec_file.name}) from the agent list?"
        detail = f"Its workspace and log stay in {labels.display_path(info.workspace)}."
        if info.status in LIVE:
            detail = f"{info.name} is running: it is stopped first. {detail}"

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove(info.name, stop_first=info.status in LIVE)

        self.app.push_screen(ConfirmScreen(question, detail), confirmed)

    # --- daemon commands (workers) -----------------------------------------------------

    @work(group="command")
    async def _set_auto_accept(self, name: str, rules: AutoAcceptRules) -> None:
        from common.schemas.auto_accept import AutoAcceptRules

        try:
            info = await self.link.set_auto_accept(name, rules)
        except HarnessError as e:
            self.notify(str(e), title="Auto-accept", severity="error")
            return
        self.post_message(AgentChanged(info))
        if rules == AutoAcceptRules.on():
            mode = "AUTO: checkpoints get their defaults"
        elif rules == AutoAcceptRules.off():
            mode = "HITL: you answer"
        else:
            mode = rules.compact()
        self.notify(f"{name} is {mode} from its next checkpoint on.")

    @work(group="command")
    async def _stop(self, name: str) -> None:
        try:
            info = await self.link.stop(name)
        except HarnessError as e:
            self.notify(str(e), title="Stop", severity="error")
            return
        self.post_message(AgentChanged(info))
        self.notify(f"{name} stopped.")

    @work(group="command")
    async def _resume(self, name: str) -> None:
        try:
            info = await self.link.resume(name)
        except HarnessError as e:
            self.notify(str(e), title="Resume", severity="error")
            return
        self.post_message(AgentChanged(info))
        self.notify(f"{name} resumed.")

    @work(group="command")
    async def _run_again(self, spec: AgentSpec) -> None:
        try:
            info = await self.link.start(spec, fresh=True)
        except HarnessError as e:
            self.notify(str(e), title="Run again", severity="error")
            return
        self.post_message(AgentChanged(info))
        self.notify(f"{info.name} started: {spec.spec_file.name} again, in a new workspace.")

    @work(group="command")
    async def _remove_all(self, names: list[str]) -> None:
        removed: list[str] = []
        for name in names:
            try:
                await self.link.remove(name)
            except HarnessError as e:
                self.notify(str(e), title="Remove", severity="error")
                continue
            removed.append(name)
        if removed:
            self.notify(f"removed {', '.join(removed)}.")

    @work(group="command")
    async def _remove(self, name: str, *, stop_first: bool) -> None:
        try:
            if stop_first:
                await self.link.stop(name)
            await self.link.remove(name)
        except HarnessError as e:
            self.notify(str(e), title="Remove", severity="error")
            return
        self.notify(f"{name} removed.")

    def _need_selected(self) -> AgentInfo | None:
        info = self.selected
        if info is None:
            self.notify("Select an agent first (or press n to start one).")
        return info
