"""The checkpoint desk: which dialog is open, and what comes after it.

Every change that may concern a checkpoint (the agent's checkpoint file was
written, the daemon reported the agent) ends in :meth:`CheckpointDesk.refresh`,
which reads the file again and brings the :class:`PendingBook` up to date. Then
:meth:`CheckpointDesk.sync` keeps the one open dialog true: it closes when its
checkpoint no longer waits (decided by the CLI or another TUI, or the agent
stopped) and shows how many more wait.

A new checkpoint announces itself (a toast, the notifier's bell and desktop
notification, the ⚑ in the agent list and status bar) and opens only when the
person asks (``c``, Enter on the agent). With ``auto_open`` set it opens by
itself, only over the running view, and ignores keys for a moment, so a key
meant for something else never answers a checkpoint nobody read.

One toast per event (:mod:`tui.services.announcements`): the checkpoints found at once
(a TUI opening on several, a reconnect) share one toast, and a decision recorded here
waits :data:`DECISION_MERGE_S` for the agent's next checkpoint, to say both in one.

With ``remind_every_minutes`` in the agent's ``checkpoint_timeout``, a checkpoint that
still waits is announced again every R minutes since it was raised (toast and every
notifier channel, saying how long it has waited): also one set aside with Esc, whose
dialog a reminder never forces open again. One timer, set for the earliest reminder
due, so an idle TUI does not tick.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.timer import Timer

from common.errors import StateFileError
from common.paths import WorkspaceFiles
from common.untrusted_text import printable_line
from tui import labels
from tui.services import announcements
from tui.services.announcements import Raised
from tui.services.notify import Notifier
from tui.services.pending import LIVE, PendingBook, Waiting
from tui.services.reminders import next_reminder_at, reminder_text, reminders_due

if TYPE_CHECKING:
    # The schemas load after the first paint (see tui.main); the dialog's module
    # (Markdown, the review modals) when one opens.
    from common.schemas.checkpoint import Checkpoint
    from common.schemas.protocol import AgentInfo
    from common.schemas.tui_settings import TuiSettings
    from tui.modals.checkpoint_dialog import CheckpointDialog, DialogOutcome

log = logging.getLogger(__name__)

#: A reminder timer that fires a hair early (another clock) waits at least this long again.
REMINDER_RETRY_S = 0.05
#: How long a decision's toast waits for the agent's next checkpoint, to be one toast with
#: it: an agent that moves straight on (the next checkpoint is written as the dialog
#: closes) would otherwise stack two toasts for one key press.
DECISION_MERGE_S = 0.8


class CheckpointDesk:
    """Owns the :class:`PendingBook` and the checkpoint dialog of one running view."""

    def __init__(
        self,
        screen: Screen[None],
        settings: TuiSettings | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        """
        Args:
            screen: the running view the dialogs open over.
            settings: auto-open and its key grace (``None``: the defaults, built when
                first needed, so that no schema is built before the TUI's first paint).
            notifier: tells a person away from the screen (``None``: toasts only).
        """
        self.screen = screen
        self._settings = settings
        self.notifier = notifier
        self.book = PendingBook()
        self.dialog: CheckpointDialog | None = None
        self._agents: dict[str, AgentInfo] = {}
        self._announced: set[str] = set()
        self._reminded: dict[str, int] = {}
        """Per checkpoint id, the reminders counted so far (announced, or due before this
        TUI first saw it: a TUI started late announces once, not a burst of old ones)."""
        self._reminder: Timer | None = None
        self._reminder_at: datetime | None = None
        self._problems: dict[str, str] = {}
        self._decided: dict[str, str] = {}
        """Per agent, the toast of a decision recorded here, held for its next checkpoint."""

    @property
    def settings(self) -> TuiSettings:
        """Auto-open and its key grace."""
        if self._settings is None:
            from common.schemas.tui_settings import TuiSettings

            self._settings = TuiSettings()
        return self._settings

    def refresh(self, *infos: AgentInfo) -> None:
        """Read each agent's checkpoint file again, then update the dialogs once (so the
        checkpoints found together are announced together)."""
        for info in infos:
            self._agents[info.name] = info
            self.book.update(info, self._read(info))
        self.sync()

    def forget(self, name: str) -> None:
        """The agent was removed."""
        self._agents.pop(name, None)
        self.book.forget(name)
        self.sync()

    def take_up(self, agent: str) -> bool:
        """Open ``agent``'s waiting checkpoint now (also one set aside with Esc)."""
        item = self.book.take_up(agent)
        if item is None:
            return False
        if self.dialog is None:
            self._open(item)
        return True

    def sync(self) -> None:
        """Announce new checkpoints; close a dialog whose checkpoint stopped waiting.

        With auto-open, also open the next checkpoint when no dialog is open.
        """
        new = [item for item in self.book.waiting() if item.checkpoint.id not in self._announced]
        if len(new) == 1:
            self._announce(new[0])
        elif new:
            self._announce_together(new)
        self._arm_reminder()
        dialog = self.dialog
        if dialog is not None:
            if self.book.is_waiting(dialog.item):
                dialog.set_others(len(self.book.waiting()) - 1)
            else:
                dialog.close_superseded(self._gone_reason(dialog.item))
            return
        item = self.book.next_to_show()
        if item is None or self.screen.app.screen is not self.screen:
            return
        if self.settings.auto_open:
            self._open(item, grace_s=self.settings.key_grace_s)

    def _announce(self, item: Waiting) -> None:
        """One new checkpoint: its toast (with the decision just before it, if one waits
        to be said) and every notifier channel."""
        raised = self._mark_announced(item)
        auto_open = self.settings.auto_open
        decided = self._decided.pop(item.agent, None)
        if decided is not None:
            text = announcements.decided_then_waiting(decided, raised, auto_open=auto_open)
        else:
            text = announcements.waiting_text(raised, auto_open=auto_open)
        self.screen.app.notify(text, title="Checkpoint")

    def _announce_together(self, items: list[Waiting]) -> None:
        """Checkpoints found at once (a TUI opening, a reconnect): one toast names them all;
        the notifier channels still get one announcement each (a chat command may count on
        one call per checkpoint)."""
        raised = [self._mark_announced(item) for item in items]
        text = announcements.summary_text(raised, auto_open=self.settings.auto_open)
        self.screen.app.notify(text, title="Checkpoints")

    def _mark_announced(self, item: Waiting) -> Raised:
        """Count ``item`` as announced (its reminders from now on) and tell the notifier."""
        from common.workspace.checkpoint_issue import issue_of  # reads every checkpoint kind

        self._announced.add(item.checkpoint.id)
        every = self._remind_every(item)
        if every is not None:
            self._reminded[item.checkpoint.id] = reminders_due(
                item.checkpoint.created_at, labels.now(), every
            )
        kind = item.checkpoint.type.value
        if self.notifier is not None:
            self.screen.run_worker(self.notifier.announce(item.agent, kind), group="notify")
        return Raised(item.agent, kind, issue_of(item.checkpoint))

    def _remind_every(self, item: Waiting) -> float | None:
        """R of ``item``'s agent (``None``: its spec asks for no reminders)."""
        info = self._agents.get(item.agent)
        return info.remind_every_minutes if info is not None else None

    def _arm_reminder(self) -> None:
        """Set the one timer for the earliest reminder of a waiting checkpoint (or none)."""
        moments = []
        for item in self.book.waiting():
            every = self._remind_every(item)
            if every is not None:
                sent = self._reminded.get(item.checkpoint.id, 0)
                moments.append(next_reminder_at(item.checkpoint.created_at, sent, every))
        at = min(moments, default=None)
        if at == self._reminder_at:
            return
        if self._reminder is not None:
            self._reminder.stop()
        self._reminder, self._reminder_at = None, at
        if at is not None:
            delay = max(REMINDER_RETRY_S, (at - labels.now()).total_seconds())
            self._reminder = self.screen.app.set_timer(delay, self._remind, name="reminder")

    def _remind(self) -> None:
        """The timer fell: announce again each checkpoint whose next reminder is due."""
        self._reminder, self._reminder_at = None, None
        now = labels.now()
        for item in self.book.waiting():
            every = self._remind_every(item)
            if every is None:
                continue
            due = reminders_due(item.checkpoint.created_at, now, every)
            if due > self._reminded.get(item.checkpoint.id, 0):
                self._reminded[item.checkpoint.id] = due  # missed ones (a suspend) count once
                self._announce_again(item, now - item.checkpoint.created_at)
        self._arm_reminder()

    def _announce_again(self, item: Waiting, waited: timedelta) -> None:
        """A reminder: the toast and every notifier channel, never the dialog itself."""
        from common.workspace.checkpoint_issue import issue_of

        kind = item.checkpoint.type.value
        text = reminder_text(item.agent, kind, issue_of(item.checkpoint), waited)
        showing = self.dialog is not None and self.dialog.item.checkpoint.id == item.checkpoint.id
        how = "" if showing else " — c or Enter answers"
        self.screen.app.notify(f"⚑ {text}{how}", title="Reminder")
        if self.notifier is not None:
            self.screen.run_worker(self.notifier.announce(item.agent, kind, text), group="notify")

    def subtitle(self, agent: str) -> str:
        """``agent_1 · textkit-helpers.md``: who asks."""
        info = self._agents.get(agent)
        return f"{agent} · {info.spec_file.name}" if info is not None else agent

    def _open(self, item: Waiting, *, grace_s: float = 0.0) -> None:
        from tui.modals.checkpoint_dialog import CheckpointDialog

        self.dialog = CheckpointDialog(
            item,
            subtitle=self.subtitle(item.agent),
            others=len(self.book.waiting()) - 1,
            grace_s=grace_s,
        )
        self.screen.app.push_screen(self.dialog, self._closed)

    def _closed(self, outcome: DialogOutcome | None) -> None:
        from tui.modals.checkpoint_dialog import Decided, SetAside, Superseded

        dialog, self.dialog = self.dialog, None
        assert dialog is not None, "only the open dialog reports back"
        match outcome:
            case Decided(checkpoint=decided):
                self.book.decided(dialog.item.agent, decided.id)
                approved = decided.decision is not None and decided.decision.approved
                text = announcements.decided_text(
                    dialog.item.agent, decided.type.value, approved=approved
                )
                self._hold_decided(dialog.item.agent, text)
            case Superseded(reason=reason):
                self.screen.app.notify(f"{dialog.item.agent}: {reason}", severity="warning")
            case SetAside() | None:
                self.book.set_aside(dialog.item)
        self.screen.call_later(self.sync)

    def holds_decision(self, agent: str) -> bool:
        """Whether a decision about ``agent`` is still to be said (with its next checkpoint)."""
        return agent in self._decided

    def _hold_decided(self, agent: str, text: str) -> None:
        """Say ``text`` with ``agent``'s next checkpoint if it comes within
        :data:`DECISION_MERGE_S`, else on its own then."""
        self._decided[agent] = text

        def say_alone() -> None:
            if self._decided.get(agent) == text:
                del self._decided[agent]
                self.screen.app.notify(text)

        self.screen.app.set_timer(DECISION_MERGE_S, say_alone, name="decided")

    def _gone_reason(self, item: Waiting) -> str:
        """Why a dialog closes by itself: who decided, or that the agent is gone."""
        kind = item.checkpoint.type.value
        found = self._read_workspace(item)
        if found is not None and found.id == item.checkpoint.id and found.decision is not None:
            decision = found.decision
            rule = f" ({printable_line(decision.rule)})" if decision.rule else ""
            return f"{kind} was decided by {printable_line(decision.decided_by)}{rule}"
        info = self._agents.get(item.agent)
        if info is not None and info.status not in LIVE:
            return f"{kind} no longer waits: the agent is {info.status.value}"
        return f"{kind} no longer waits"

    def _read(self, info: AgentInfo) -> Checkpoint | None:
        from common.workspace import checkpoints  # the checkpoint schemas, after the first paint

        try:
            return checkpoints.current(WorkspaceFiles(info.workspace))
        except StateFileError as e:
            log.warning("unreadable checkpoint of %s: %s", info.name, e)
            if self._problems.get(info.name) != str(e):  # say it once, not on every event
                self._problems[info.name] = str(e)
                self.screen.app.notify(str(e), title=info.name, severity="error")
            return None

    def _read_workspace(self, item: Waiting) -> Checkpoint | None:
        info = self._agents.get(item.agent)
        return self._read(info) if info is not None else None
