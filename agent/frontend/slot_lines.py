"""How ``harness status`` and ``harness list`` show the issues worked in parallel."""

from __future__ import annotations

from datetime import datetime

from common.schemas.protocol import SlotInfo
from common.untrusted_text import printable_line

#: Marks the slot whose checkpoint waits for a person (the TUI's slot rows say the same).
WAITING = "⏸ waiting for you"


def since(started: datetime, now: datetime) -> str:
    """``2m 05s``, ``1h 03m``: how long a slot has run."""
    seconds = max(int((now - started).total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def status_lines(slots: list[SlotInfo], now: datetime) -> list[str]:
    """One line per slot: its issue, step, time and spend (and conflicts, if any), and
    whether its checkpoint waits; its title (the model's words, escaped) on the next."""
    lines = []
    for slot in slots:
        conflicts = f", {slot.conflicts} merge conflict(s)" if slot.conflicts else ""
        waiting = f" — {WAITING}" if slot.waiting else ""
        lines.append(
            f"  slot #{slot.iid}: {slot.step.value}, {since(slot.started_at, now)}; "
            f"{slot.spend.line()}{conflicts}{waiting}"
        )
        if slot.title:
            lines.append(f"    {printable_line(slot.title)}")
    return lines


def list_tag(slots: list[SlotInfo]) -> str:
    """`` [slots: #1 coding, #4 closure ⏸]`` on the agent's list line (empty without
    slots; ⏸: the waiting checkpoint is about that issue)."""
    if not slots:
        return ""
    named = (f"#{slot.iid} {slot.step.value}{' ⏸' if slot.waiting else ''}" for slot in slots)
    return " [slots: " + ", ".join(named) + "]"
