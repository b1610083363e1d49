"""The running view: agents, the selected agent's log and phase, and the checkpoint dialogs.

Two background workers feed it. One reads the daemon's subscription (the agent
list, then one event per change); the other watches the agents' workspace
folders with watchfiles, so a checkpoint file being written reaches the screen
within milliseconds, independently of the daemon's own watch. Both only post
messages; the handlers here update the widgets and hand checkpoints to the
:class:`CheckpointDesk`. The commands on the selected agent live in
:class:`AgentCommands`.

The screen paints before it connects: both workers start once the first frame is on
the terminal, and what only data needs (the daemon's client, the protocol's and the
checkpoints' schemas, the wizard, a run's summary) is imported when it is first used.
Until the daemon answers, the status bar says "connecting to the daemon…" and the agent
list shows the rows the last TUI kept, marked as the last known state; once it has, the
list is kept for the next TUI (:mod:`tui.services.agent_cache`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from agent.daemon.watcher import FolderWatcher
from common.paths import WorkspaceFiles
from tui import labels
from tui.messages import AgentChanged, AgentsReplaced, CheckpointFilesChanged, ConnectionChanged
from tui.screens.commands import AgentCommands
from tui.screens.desk import CheckpointDesk
from tui.services.agent_cache import read_last_known, write_last_known
from tui.services.git_status import GitSummary, summary
from tui.services.link import AgentLink, Connection
from tui.services.notify import Notifier
from tui.services.pending import LIVE
from tui.widgets.agent_list import COLUMN_KEYS, AgentList
from tui.widgets.log_view import LogView
from tui.widgets.phase_indicator import PhaseIndicator
from tui.widgets.slot_view import SlotView
from tui.widgets.status_bar import StatusBar, StatusLine

if TYPE_CHECKING:
    from common.schemas.protocol import AgentInfo
    from common.schemas.tui_settings import TuiSettings
    from tui.screens.wizard import WizardDefaults

#: watchfiles settings for the checkpoint files: report a write within a few milliseconds.
CHECKPOINT_DEBOUNCE_MS = 30
CHECKPOINT_STEP_MS = 5
#: The agent list is kept for the next TUI at most this often (its changes come in bursts).
KEEP_LIST_EVERY_S = 2.0


class RunningScreen(AgentCommands):
    """The main view; it stays at the bottom of the screen stack for the TUI's life."""

    #: Footer order: what a person needs most first, ``?`` and ``q`` always visible at 80
    #: columns; the rest is in the help screen (``?``) and the command palette.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c,C", "answer", "Checkpoint"),
        Binding("n", "new_agent", "New", tooltip="New agent"),
        Binding("a", "toggle_auto_accept", "Auto", tooltip="Auto-accept"),
        Binding("A", "auto_accept_rules", "Auto-accept rules", show=False),
        Binding("s", "stop_agent", "Stop"),
        Binding("r", "resume_agent", "Resume"),
        Binding("g", "run_again", "Run again", show=False),
        Binding("d,delete", "remove_agent", "Remove"),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
        Binding("D", "remove_finished", "Remove ended", show=False),
        Binding("w", "toggle_wrap", "Wrap log lines", show=False),
        Binding("ctrl+r", "reconnect", "Reconnect", show=False),
    ]

    def __init__(
        self,
        link: AgentLink,
        defaults: WizardDefaults | None = None,
        *,
        settings: TuiSettings | None = None,
        notifier: Notifier | None = None,
        wizard_when_empty: bool = True,
        select: str | None = None,
    ) -> None:
        """
        Args:
            link: the daemon (or a test's stand-in).
            defaults: what the wizard proposes (``None``: read from the environment and
                the TUI's memory each time the wizard opens).
            settings: auto-open and notifications (the defaults when ``None``).
            notifier: tells a person away from the screen that a checkpoint waits.
            wizard_when_empty: open the wizard when the daemon has no agents.
            select: the agent to select first (the first one started by ``--specs``);
                otherwise the one waiting longest for a human.
        """
        super().__init__(link)
        self.defaults = defaults
        self.desk = CheckpointDesk(self, settings, notifier)
        self._wizard_when_empty = wizard_when_empty
        self._select_first = select
        self._first_snapshot = True
        self._answer_when_listed = False
        """``c`` was pressed over the last known rows: answer once the daemon's list came."""
        self._connection = Connection(False, "connecting to the daemon…")
        self._git = GitSummary()
        self._summarised: tuple[str, object] | None = None
        self._keep_list: Timer | None = None
        self._agent_list = AgentList(id="agents", last_known=read_last_known(COLUMN_KEYS))
        """Held here, not queried: the list is kept once more as the screen unmounts."""
        self._watcher = FolderWatcher(
            self._workspace_changed,
            debounce_ms=CHECKPOINT_DEBOUNCE_MS,
            step_ms=CHECKPOINT_STEP_MS,
        )

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield self._agent_list
        yield PhaseIndicator(id="phase")
        yield SlotView(id="slots")
        yield Static("", id="summary", markup=False)
        yield LogView(id="log-view")
        yield StatusBar(id="status")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._show_status()
        self.call_after_refresh(self._connect)

    def _connect(self) -> None:
        """Listen to the daemon and watch the checkpoint files, once the first screen is
        painted (connecting imports the protocol's schemas, the watch its event loop glue)."""
        self._listen()
        self.run_worker(self._watcher.run(), group="checkpoint-watch", exclusive=True)

    def on_unmount(self) -> None:
        self._watcher.stop()
        if self._keep_list is not None:  # a change not kept yet: keep it now
            self._keep_list.stop()
            self._keep_agent_list()

    def _keep_agent_list_soon(self) -> None:
        """Keep the list for the next TUI, once the current burst of changes is over."""
        if self._keep_list is None:
            self._keep_list = self.set_timer(KEEP_LIST_EVERY_S, self._keep_agent_list)

    def _keep_agent_list(self) -> None:
        self._keep_list = None
        write_last_known(self._agent_list.rows_shown(), COLUMN_KEYS)

    def on_resize(self) -> None:
        """The slot rows take at most a quarter of the screen: count them again."""
        self.query_one(SlotView).redraw()

    def on_screen_resume(self) -> None:
        """Back from the wizard or a dialog: show what waited meanwhile."""
        self.desk.sync()

    # --- the selected agent ------------------------------------------------------------

    @on(AgentList.Selected)
    def agent_selected(self, event: AgentList.Selected) -> None:
        info = self.agents.get(event.name) if event.name is not None else None
        self.query_one(LogView).follow(info.log_file if info is not None else None)
        self._git = GitSummary()
        self._show_selected()
        if info is not None:
            self._read_git(info.project_dir)

    @on(AgentList.Activated)
    def agent_activated(self, event: AgentList.Activated) -> None:
        """Enter on an agent: its checkpoint, if one waits."""
        if not self.desk.take_up(event.name):
            self.notify(f"{event.name} has no checkpoint waiting.")

    # --- news from the workers ---------------------------------------------------------

    @work(exclusive=True, group="daemon")
    async def _listen(self) -> None:
        """Turn the link's frames into messages for this screen.

        The link ends only when it gave up on the daemon; ctrl+r starts it again.
        """
        last = Connection(False, "the daemon link ended")
        async for frame in self.link.frames():
            if isinstance(frame, Connection):
                last = frame
                self.post_message(ConnectionChanged(frame.connected, frame.detail))
            elif isinstance(frame, list):
                self.post_message(AgentsReplaced(frame))
            else:
                self.post_message(AgentChanged(frame.agent, removed=frame.removed))
        self.post_message(ConnectionChanged(False, f"{last.detail} — ctrl+r reconnects"))

    def action_reconnect(self) -> None:
        """Subscribe to the daemon again (after the link gave up)."""
        self._first_snapshot = False
        self._listen()

    def _workspace_changed(self, paths: set[Path]) -> None:
        """Called by the folder watch (on the event loop) with every changed path."""
        name = WorkspaceFiles(Path()).checkpoint.name
        touched = frozenset(path.parent for path in paths if path.name == name)
        if touched:
            self.post_message(CheckpointFilesChanged(touched))

    @on(ConnectionChanged)
    def connection_changed(self, event: ConnectionChanged) -> None:
        self._connection = Connection(event.connected, event.detail)
        if not event.connected:
            self.notify(event.detail, title="Daemon", severity="error")
        self._show_status()

    @on(AgentsReplaced)
    def agents_replaced(self, event: AgentsReplaced) -> None:
        gone = set(self.agents) - {info.name for info in event.agents}
        self.agents = {info.name: info for info in event.agents}
        agent_list = self.query_one(AgentList)
        agent_list.replace(event.agents)
        for name in gone:
            self.desk.forget(name)
        self.desk.refresh(*event.agents)  # what waits is announced in one toast
        self._watch_workspaces()
        self._keep_agent_list_soon()  # the daemon's answer: the next TUI starts from it
        if self._first_snapshot:
            self._first_snapshot = False
            first = self._select_first or agent_list.first()
            if first is not None:
                agent_list.select(first)
            elif not event.agents and self._wizard_when_empty:
                self.action_new_agent()
        self._show_selected()
        if self._answer_when_listed:
            self._answer_when_listed = False
            self.action_answer()

    @on(AgentChanged)
    def agent_changed(self, event: AgentChanged) -> None:
        info = event.agent
        agent_list = self.query_one(AgentList)
        if event.removed:
            self.agents.pop(info.name, None)
            agent_list.drop(info.name)
            self.desk.forget(info.name)
        else:
            self.agents[info.name] = info
            agent_list.upsert(info)
            self.desk.refresh(info)
            if info.name == agent_list.selected:
                self._read_git(info.project_dir)
        self._watch_workspaces()
        self._keep_agent_list_soon()
        self._show_selected()

    @on(CheckpointFilesChanged)
    def checkpoint_files_changed(self, event: CheckpointFilesChanged) -> None:
        touched = [info for info in self.agents.values() if info.workspace in event.workspaces]
        if touched:
            self.desk.refresh(*touched)
        self._show_status()

    # --- actions -----------------------------------------------------------------------

    def action_new_agent(self) -> None:
        """Open the setup wizard."""
        from tui.screens.wizard import WizardDefaults, open_wizard
        from tui.services.settings import load_memory

        defaults = self.defaults or WizardDefaults.from_environment(
            last_repository=load_memory().last_repository
        )
        open_wizard(self.app, defaults, self.link.start, self._wizard_closed)

    def action_toggle_wrap(self) -> None:
        """Wrap the log's long lines, or let them run off to the right."""
        view = self.query_one(LogView)
        view.toggle_wrap()
        self.notify("long lines wrap" if view.wrap else "long lines scroll sideways")

    def action_answer(self) -> None:
        """Open the selected agent's waiting checkpoint (or the oldest waiting one).

        Over the last known rows (the daemon has not answered yet) a row may say "waits"
        before the checkpoint is read: the answer waits for the daemon's list, so ``c``
        typed at once is never told that nothing waits."""
        if self._first_snapshot and self._agent_list.last_known:
            self._answer_when_listed = True
            self.notify("Waiting for the daemon's list: the checkpoint opens when it comes.")
            return
        selected = self.selected
        if selected is not None and self.desk.take_up(selected.name):
            return
        for item in self.desk.book.waiting():
            if self.desk.take_up(item.agent):
                return
        self.notify("No checkpoint is waiting.")

    @work(exclusive=True, group="git")
    async def _read_git(self, project: Path) -> None:
        self._git = await summary(project)
        if self.query(StatusBar):  # git may answer while the TUI is closing
            self._show_status()

    # --- view helpers ------------------------------------------------------------------

    def _wizard_closed(self, info: AgentInfo | None) -> None:
        if info is not None:
            self.agents[info.name] = info
            agent_list = self.query_one(AgentList)
            agent_list.upsert(info)
            agent_list.select(info.name)
            self.desk.refresh(info)
            self._watch_workspaces()
            self.notify(f"{info.name} started on {info.spec_file.name}.")

    def _watch_workspaces(self) -> None:
        self._watcher.set_folders(
            info.workspace for info in self.agents.values() if info.status in LIVE
        )

    def _show_selected(self) -> None:
        info = self.selected
        slots = info.slots if info is not None else []
        self.query_one(PhaseIndicator).show(
            info.phase if info else None, visible=info is not None, slots=len(slots)
        )
        ended = info is not None and info.status not in LIVE
        until = (info.ended_at or labels.now()) if info is not None and ended else None
        self.query_one(SlotView).show(slots, until=until)
        panel = self.query_one("#summary", Static)
        panel.display = ended
        if info is not None and ended and self._summarised != (info.name, info.status):
            self._summarised = (info.name, info.status)
            panel.update("reading the run's summary…")
            self._read_summary(info)
        elif not ended:
            self._summarised = None
        self._show_status()

    @work(exclusive=True, group="summary")
    async def _read_summary(self, info: AgentInfo) -> None:
        """A finished agent's summary: branch, commits, issues, MR, tests, spend."""
        from tui.services.run_summary import summary as run_summary  # the workspace's schemas

        text = await run_summary(info)
        if self.query("#summary"):  # the TUI may be closing
            self.query_one("#summary", Static).update(text)

    def _show_status(self) -> None:
        info = self.selected
        self.query_one(StatusBar).show(
            StatusLine(
                agent=info.name if info else "",
                mode=labels.rules(info) if info else "",
                project=info.project_dir.name if info else "",
                git=self._git.describe()
                if info and (self._git.branch or self._git.problem)
                else "",
                waiting=len(self.desk.book.waiting()),
                connection=self._connection.detail,
                connected=self._connection.connected,
            )
        )
