"""When the TUI announces a checkpoint that still waits again (``remind_every_minutes``).

The spec's ``checkpoint_timeout.remind_every_minutes`` makes the agent log and POST a
reminder every R minutes; a person at the TUI gets the bell, the desktop notification
and the tmux message again on the same beat. The TUI counts from the checkpoint's
``created_at`` (written by the agent, so every TUI and a restarted one agree), with
whole microseconds so that a reminder's moment and the count at that moment never
disagree by a float's rounding. Pure: the clock is an argument.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tui.labels import duration

_MICROSECOND = timedelta(microseconds=1)


def _period(every_minutes: float) -> timedelta:
    """R minutes, at least a microsecond (the schema only promises ``> 0``)."""
    return max(_MICROSECOND, timedelta(microseconds=round(every_minutes * 60_000_000)))


def reminders_due(created_at: datetime, now: datetime, every_minutes: float) -> int:
    """How many reminders have fallen due by ``now``: the ``n``-th at ``created_at + n×R``.

    0 before the first, and 0 when ``now`` is behind ``created_at`` (another machine's
    clock): a reminder never comes early.
    """
    waited = now - created_at
    if waited <= timedelta(0):
        return 0
    return waited // _period(every_minutes)


def next_reminder_at(created_at: datetime, announced: int, every_minutes: float) -> datetime:
    """When the reminder after the ``announced``-th falls (the first: ``announced=0``)."""
    return created_at + (announced + 1) * _period(every_minutes)


def reminder_text(agent: str, kind: str, issue: int | None, waited: timedelta) -> str:
    """``agent_1 has waited 1h02m: issue_closure of #3`` (the issue only when it is about one)."""
    about = f" of #{issue}" if issue is not None else ""
    return f"{agent} has waited {duration(waited)}: {kind}{about}"
