"""How ``harness status`` and ``harness list`` show the issues worked in parallel."""

from __future__ import annotations

from datetime import datetime

from common.schemas.protocol import SlotInfo


def since(started: datetime, now: datetime) -> str:
    """``2m 05s``, ``1h 03m``: how long a slot has run."""
    seconds = max(int((now - started).total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def status_lines(slots: list[SlotInfo], now: datetime) -> list[str]:
    """One line per slot: its issue, step, time and spend (and conflicts, if any)."""
    lines = []
    for slot in slots:
        conflicts = f", {slot.conflicts} merge conflict(s)" if slot.conflicts else ""
        lines.append(
            f"  slot #{slot.iid}: {slot.step.value}, {since(slot.started_at, now)}; "
            f"{slot.spend.line()}{conflicts}"
        )
    return lines


def list_tag(slots: list[SlotInfo]) -> str:
    """`` [slots: #1 coding, #4 closure]`` on the agent's list line (empty without slots)."""
    if not slots:
        return ""
    return " [slots: " + ", ".join(f"#{slot.iid} {slot.step.value}" for slot in slots) + "]"
