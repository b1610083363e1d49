"""The agent list: one row per agent, the ones waiting for a human first, updated in place.

Per agent it shows what a person running many agents needs at a glance: phase
(or, with issues in parallel, the slots: ``[#1 coding, #4 closure ⏸]``),
status (``⚑ waits 3m`` when a checkpoint waits, and for how long), issues done of
total, elapsed time, tokens and cost. A one-second tick keeps the times true.
Enter on an agent asks for its checkpoint (:class:`AgentList.Activated`).

Before the daemon answers, the list shows the rows the last TUI kept
(:mod:`tui.services.agent_cache`), dimmed and marked "last known" under the list, so
the first paint already shows the agents; the daemon's list replaces them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable

from common.schemas.agent_status import AgentStatus
from common.schemas.exit_state import ExitState
from common.untrusted_text import printable_line
from tui import labels
from tui.services.agent_cache import LastKnownRow

if TYPE_CHECKING:  # the protocol's schemas load after the first paint (see tui.main)
    from common.schemas.protocol import AgentInfo

COLUMNS = (
    ("agent", "Agent"),
    ("status", "Status"),
    ("phase", "Phase"),
    ("issues", "Issues"),
    ("elapsed", "Time"),
    ("tokens", "Tokens in/out"),
    ("cost", "Cost"),
    ("mode", "Mode"),
    ("spec", "Spec"),
)
COLUMN_KEYS = tuple(key for key, _ in COLUMNS)
#: The columns that change with the clock alone.
TIMED = ("status", "elapsed")
#: Under the list while it shows the last TUI's rows.
LAST_KNOWN = "last known state · waiting for the daemon"

STATUS_STYLES = {
    AgentStatus.RUNNING: "green",
    AgentStatus.WAITING: "bold reverse yellow",
    AgentStatus.STOPPED: "dim",
    AgentStatus.FAILED: "bold red",
    AgentStatus.DONE: "cyan",
}
#: Sort order: who needs a human, then who works, then who ended.
RANK = {
    AgentStatus.WAITING: 0,
    AgentStatus.RUNNING: 1,
    AgentStatus.FAILED: 2,
    AgentStatus.STOPPED: 3,
    AgentStatus.DONE: 4,
}


def _status_style(info: AgentInfo) -> str:
    if info.exit_state is ExitState.BROKEN:
        return "bold magenta"
    if info.exit_state is ExitState.PARTIAL:
        return "bold yellow"
    return STATUS_STYLES[info.status]


def cells(info: AgentInfo) -> dict[str, Text]:
    """The row of one agent, by column key (Text, so names are never read as markup; escaped)."""
    return {
        "agent": Text(printable_line(info.name), style="bold"),
        "status": Text(labels.status(info), style=_status_style(info)),
        "phase": Text(labels.slot_tag(info.slots) or labels.phase(info.phase)),
        "issues": Text(labels.progress(info), justify="right"),
        "elapsed": Text(labels.elapsed(info), justify="right"),
        "tokens": Text(labels.tokens(info.spend), justify="right"),
        "cost": Text(labels.cost(info.spend), justify="right"),
        "mode": Text(labels.mode(info), style=_mode_style(info)),
        "spec": Text(printable_line(info.spec_file.name)),
    }


def _mode_style(info: AgentInfo) -> str:
    if not info.sandboxed:
        return "bold red"
    return "bold magenta" if info.auto_accept else ""


def order(info: AgentInfo) -> tuple[int, float, str]:
    """Waiting first (longest waiting on top), then running, then ended; then oldest first."""
    since = info.pending_since or info.started_at
    return (RANK[info.status], since.timestamp(), info.name)


class AgentList(DataTable[Text]):
    """A row per agent; moving the cursor selects the agent the other views follow."""

    class Selected(Message):
        """The highlighted agent changed (``None``: the list is empty)."""

        def __init__(self, name: str | None) -> None:
            super().__init__()
            self.name = name

    class Activated(Message):
        """Enter on an agent: answer its checkpoint, if one waits."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(
        self, *, id: str | None = None, last_known: list[LastKnownRow] | None = None
    ) -> None:
        """
        Args:
            id: the widget's id.
            last_known: the rows the last TUI showed, shown until the daemon answers.
        """
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._selected: str | None = None
        self._infos: dict[str, AgentInfo] = {}
        self._last_known = list(last_known or [])

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)
        self.set_interval(1.0, self._tick)
        for row in self._last_known:
            self.add_row(*(Text(cell, style="dim") for cell in row.cells), key=row.name)
        if self._last_known:  # not announced: nothing follows a row the daemon did not send
            self.border_subtitle = LAST_KNOWN

    @property
    def last_known(self) -> bool:
        """Whether the rows are the last TUI's, not yet the daemon's."""
        return bool(self._last_known)

    def rows_shown(self) -> list[LastKnownRow]:
        """The daemon's rows as shown, top to bottom (what the next TUI starts with)."""
        shown: list[LastKnownRow] = []
        for row in self.ordered_rows:
            info = self._infos.get(str(row.key.value))
            if info is not None:
                texts = cells(info)
                shown.append(
                    LastKnownRow(info.name, tuple(texts[key].plain for key in COLUMN_KEYS))
                )
        return shown

    def _forget_last_known(self) -> None:
        """The daemon answered: its rows, not the last TUI's."""
        if self._last_known:
            self._last_known = []
            self.clear()
            self.border_subtitle = ""
            self._selected = None  # the daemon's agent is new to the views: announce it

    @property
    def selected(self) -> str | None:
        """The agent under the cursor."""
        return self._selected

    def first(self) -> str | None:
        """The agent at the top (the longest waiting one, if any waits)."""
        if not self.row_count:
            return None
        return str(self.coordinate_to_cell_key(Coordinate(0, 0)).row_key.value)

    def replace(self, agents: Iterable[AgentInfo]) -> None:
        """Show exactly ``agents``; the cursor stays on the same agent when it still exists."""
        keep = self._selected
        self._forget_last_known()
        self.clear()
        self._infos = {}
        for info in agents:
            self._add(info)
        self._reorder(keep)

    def upsert(self, info: AgentInfo) -> None:
        """Add a new agent or update its row in place."""
        self._forget_last_known()
        if info.name not in self.rows:
            self._add(info)
        else:
            self._infos[info.name] = info
            for key, cell in cells(info).items():
                self.update_cell(info.name, key, cell, update_width=True)
        self._reorder(self._selected)

    def drop(self, name: str) -> None:
        """Remove an agent's row."""
        self._infos.pop(name, None)
        if name in self.rows:
            self.remove_row(name)
            self._announce()

    def select(self, name: str) -> None:
        """Move the cursor to ``name``'s row."""
        if name in self.rows:
            self.move_cursor(row=self.get_row_index(name))
            self._announce()

    def _add(self, info: AgentInfo) -> None:
        self._infos[info.name] = info
        row = cells(info)
        self.add_row(*(row[key] for key, _ in COLUMNS), key=info.name)

    def _reorder(self, keep: str | None) -> None:
        """Sort by :func:`order`; the cursor follows the agent it was on, not the row number."""
        infos = self._infos
        self.sort("agent", key=lambda name: order(infos[name.plain]))
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))
        self._announce()

    def _tick(self) -> None:
        for name, info in self._infos.items():
            row = cells(info)
            for key in TIMED:
                self.update_cell(name, key, row[key], update_width=True)

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

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Activated(str(event.row_key.value)))
