"""The agent list: one row per agent the daemon knows, updated in place as events arrive."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from tui import labels

COLUMNS = (
    ("agent", "Agent"),
    ("spec", "Spec"),
    ("phase", "Phase"),
    ("status", "Status"),
    ("exit", "Exit"),
)
MODE_COLUMN = ("mode", "Mode")

STATUS_STYLES = {
    AgentStatus.RUNNING: "green",
    AgentStatus.WAITING: "bold yellow",
    AgentStatus.STOPPED: "dim",
    AgentStatus.FAILED: "bold red",
    AgentStatus.DONE: "cyan",
}


EXIT_STYLES = {
    ExitState.CONTINUING: "",
    ExitState.COMPLETE: "cyan",
    ExitState.FAILED: "bold red",
    ExitState.BROKEN: "bold magenta",
}


def cells(info: AgentInfo) -> dict[str, Text]:
    """The row of one agent, by column key (Text, so names are never read as markup)."""
    return {
        "agent": Text(info.name, style="bold"),
        "spec": Text(info.spec_file.name),
        "phase": Text(labels.phase(info.phase)),
        "status": Text(labels.status(info), style=STATUS_STYLES[info.status]),
        "exit": Text(info.exit_state.value, style=EXIT_STYLES[info.exit_state]),
        "mode": Text(labels.mode(info), style=_mode_style(info)),
    }


def _mode_style(info: AgentInfo) -> str:
    if not info.sandboxed:
        return "bold red"
    return "bold magenta" if info.auto_accept else ""


class AgentList(DataTable[Text]):
    """A row per agent; moving the cursor selects the agent the other views follow."""

    class Selected(Message):
        """The highlighted agent changed (``None``: the list is empty)."""

        def __init__(self, name: str | None) -> None:
            super().__init__()
            self.name = name

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._selected: str | None = None

    def on_mount(self) -> None:
        for key, label in (*COLUMNS, MODE_COLUMN):
            self.add_column(label, key=key)

    @property
    def selected(self) -> str | None:
        """The agent under the cursor."""
        return self._selected

    def replace(self, agents: Iterable[AgentInfo]) -> None:
        """Show exactly ``agents``; the cursor stays on the same agent when it still exists."""
        keep = self._selected
        self.clear()
        for info in agents:
            self._add(info)
        if keep is not None and keep in self.rows:
            self.select(keep)
        self._announce()

    def upsert(self, info: AgentInfo) -> None:
        """Add a new agent or update its row in place."""
        if info.name not in self.rows:
            self._add(info)
            self._announce()
            return
        for key, cell in cells(info).items():
            self.update_cell(info.name, key, cell, update_width=True)

    def drop(self, name: str) -> None:
        """Remove an agent's row."""
        if name in self.rows:
            self.remove_row(name)
            self._announce()

    def select(self, name: str) -> None:
        """Move the cursor to ``name``'s row."""
        if name in self.rows:
            self.move_cursor(row=self.get_row_index(name))
            self._announce()

    def _add(self, info: AgentInfo) -> None:
        row = cells(info)
        self.add_row(*(row[key] for key, _ in (*COLUMNS, MODE_COLUMN)), key=info.name)

    def _announce(self) -> None:
        """Tell the screen which agent is selected, once per change."""
        current: str | None = None
        if self.row_count:
            current = str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        if current != self._selected:
            self._selected = current
            self.post_message(self.Selected(current))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._announce()
