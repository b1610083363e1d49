"""The selected agent's slots: one row per issue worked in parallel.

Why a view of its own: in parallel the run's phase stays at issue selection while each
slot takes its issue through its own steps, so the phase line cannot say where the
work is. Each row gives the issue, its step, how long it has run (ticking), its spend,
its merge conflicts, and whether the waiting checkpoint is about it (which one ``c``
answers). It takes no room when the agent has no slots, and never more than a quarter
of the screen: rows past that are counted on a last ``+3 more`` line, the waiting
slot's row always among those shown. Titles are the model's words: escaped, and never
read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from common.schemas.slot_step import SlotStep
from common.untrusted_text import printable_line
from tui import labels

if TYPE_CHECKING:  # the protocol's schemas load after the first paint (see tui.main)
    from common.schemas.protocol import SlotInfo

#: The width of the step column (the longest step's name).
STEP_WIDTH = max(len(step.value) for step in SlotStep)
#: Fewest rows the view may use, whatever the screen's height.
MIN_ROWS = 3


def conflicts(count: int) -> str:
    """``⚠ 1 conflict``, ``⚠ 2 conflicts``; empty without one."""
    if not count:
        return ""
    return f"⚠ {count} conflict" + ("s" if count > 1 else "")


def slot_row(slot: SlotInfo, now: datetime, iid_width: int) -> Content:
    """One slot as a row: ``⏸ #3  closure     2m 05s  $0.12  12k/3.4k  …  its title``."""
    from agent.frontend.slot_lines import WAITING, since  # builds the protocol's schemas

    parts: list[Content | str] = [
        Content.styled("⏸ " if slot.waiting else "  ", "bold $warning"),
        Content.styled(f"#{slot.iid}".ljust(iid_width), "bold"),
        "  ",
        slot.step.value.ljust(STEP_WIDTH),
        "  ",
        since(slot.started_at, now).rjust(7),
        "  ",
        labels.cost(slot.spend).rjust(5),
        "  ",
        labels.tokens(slot.spend).rjust(9),
    ]
    if slot.conflicts:
        parts += ["  ", Content.styled(conflicts(slot.conflicts), "bold $warning")]
    if slot.waiting:
        parts += ["  ", Content.styled(WAITING.removeprefix("⏸ "), "bold reverse $warning")]
    if slot.title:
        parts += ["  ", Content.styled(printable_line(slot.title), "dim")]
    return Content.assemble(*parts)


def more_row(hidden: Sequence[SlotInfo]) -> Content:
    """``  +3 more: #5 coding, #6 coding, #8 closure``: the slots without a row, named."""
    named = ", ".join(f"#{slot.iid} {slot.step.value}" for slot in hidden)
    return Content.styled(f"  +{len(hidden)} more: {named}", "italic")


def slot_rows(slots: Sequence[SlotInfo], now: datetime, limit: int) -> Content:
    """Every slot's row, in at most ``limit`` rows (:func:`tui.labels.shown_and_hidden`)."""
    shown, hidden = labels.shown_and_hidden(slots, limit)
    width = max(len(f"#{slot.iid}") for slot in slots) if slots else 0
    rows = [slot_row(slot, now, width) for slot in shown]
    if hidden:
        rows.append(more_row(hidden))
    return Content("\n").join(rows)


class SlotView(Static):
    """Under the phase line; hidden (no room taken) when the agent has no slots."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._slots: list[SlotInfo] = []
        self._until: datetime | None = None

    def on_mount(self) -> None:
        self.display = False
        self.set_interval(1.0, self.redraw)

    @property
    def slots(self) -> list[SlotInfo]:
        """The slots shown now."""
        return list(self._slots)

    def show(self, slots: Sequence[SlotInfo], *, until: datetime | None = None) -> None:
        """Show ``slots``; ``until``: when the agent ended (its slots' clocks stop there)."""
        self._slots = list(slots)
        self._until = until
        self.display = bool(self._slots)
        self.redraw()

    def rows_allowed(self) -> int:
        """A quarter of the screen's height, and at least :data:`MIN_ROWS`."""
        return max(MIN_ROWS, self.screen.size.height // 4)

    def redraw(self) -> None:
        """Draw the rows again (the clock moved, the screen was resized)."""
        if not self._slots:
            self.update("")
            return
        now = self._until or labels.now()
        self.update(slot_rows(self._slots, now, self.rows_allowed()))
