"""How long a checkpoint waits: its reminders and its timeout (``checkpoint_timeout``).

The arithmetic is pure (when the next reminder or the timeout falls, what the timeout
does, the rule it records), tested without a clock; :func:`wait_patiently` is the one
place that sleeps on it. The clock starts when this agent starts waiting: a stopped
agent resumed waits the full time again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal

from common.schemas.checkpoint import Checkpoint
from common.schemas.notify import CheckpointTimeout

Moment = Literal["reminder", "timeout"]
Outcome = Literal["default", "stop"]


def minutes_text(minutes: float) -> str:
    """``5``, ``0.05``: the minutes as the spec gave them, without a trailing ``.0``."""
    return f"{minutes:g}"


def next_moment(timeout: CheckpointTimeout, reminders_sent: int) -> tuple[Moment, float]:
    """What comes next and when, in seconds since the wait began.

    The ``n``-th reminder falls at ``n × R`` minutes; one at or after the timeout is
    not sent (the timeout's own announcement says it).
    """
    limit = timeout.minutes * 60
    every = timeout.remind_every_minutes
    if every is not None:
        due = (reminders_sent + 1) * every * 60
        if due < limit:
            return "reminder", due
    return "timeout", limit


def outcome(timeout: CheckpointTimeout, for_person: list[str]) -> Outcome:
    """What the timeout does: a checkpoint that always asks a person never times out into
    an approval, so with ``then: default`` it stops too."""
    return "default" if timeout.then == "default" and not for_person else "stop"


def rule(timeout: CheckpointTimeout) -> str:
    """The :attr:`Decision.rule` of a timeout's decision, e.g. ``timeout after 5 min: default``."""
    return f"timeout after {minutes_text(timeout.minutes)} min: default"


def stop_reason(timeout: CheckpointTimeout, checkpoint: Checkpoint, for_person: list[str]) -> str:
    """The one line the agent stops with when nobody answered ``checkpoint``."""
    waited = f"nobody answered {checkpoint.type.value} in {minutes_text(timeout.minutes)} min"
    if timeout.then == "default" and for_person:
        why = f"; it always asks a person ({len(for_person)} reason(s)), never a timeout"
    else:
        why = ""
    return f"{waited}{why}; `harness resume` asks it again"


async def wait_patiently(
    decided: asyncio.Future[Checkpoint],
    patience: CheckpointTimeout,
    remind: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> Checkpoint | None:
    """``decided``'s checkpoint, or ``None`` once the timeout passed with no answer.

    ``patience``: the spec's ``checkpoint_timeout``; ``remind`` gets the seconds waited
    at each reminder. ``decided`` is never cancelled here: the caller still owns it (a
    person's answer racing the timeout is read there).
    """
    start = clock()
    sent = 0
    while True:
        moment, at = next_moment(patience, sent)
        left = max(0.0, at - (clock() - start))
        done, _ = await asyncio.wait({decided}, timeout=left)
        if done:
            return decided.result()
        if moment == "timeout":
            return None
        sent += 1
        remind(clock() - start)
