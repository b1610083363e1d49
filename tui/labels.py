"""How agents, paths and phases read on screen; one place, so every view says the same."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from common.schemas.agent_status import AgentStatus
from common.schemas.exit_state import ExitState

if TYPE_CHECKING:  # the schemas load after the first paint (see tui.main)
    from common.schemas.checkpoint import Checkpoint
    from common.schemas.phase import Phase
    from common.schemas.protocol import AgentInfo, SlotInfo
    from common.schemas.spend import Spend

#: Slots named on an agent's list row; the rest are counted (``+5``).
SLOTS_NAMED = 2


def now() -> datetime:
    """The clock every elapsed time is measured on (tests set it)."""
    return datetime.now(UTC)


def display_path(path: Path) -> str:
    """``path`` with the home folder shown as ``~`` (shorter, and the same on every machine)."""
    home = os.environ.get("HOME")
    if home:
        try:
            relative = path.relative_to(home)
        except ValueError:
            return str(path)
        return "~" if relative == Path() else f"~/{relative}"
    return str(path)


def typed_path(text: str) -> Path:
    """What a person typed as a path: ``~`` expanded, relative to the working folder."""
    return Path(text.strip()).expanduser().absolute()


def mode(info: AgentInfo) -> str:
    """``AUTO`` when checkpoints are answered with their defaults, ``HITL`` otherwise, a
    ``*`` when some types differ (``rules`` names them); ``UNSANDBOXED`` added when its
    sessions run outside the OS sandbox."""
    rules = info.auto_accept_rules
    answers = ("AUTO" if rules.default == "approve" else "HITL") + ("" if rules.uniform else "*")
    return answers if info.sandboxed else f"{answers} UNSANDBOXED"


def rules(info: AgentInfo) -> str:
    """The auto-accept rules in a few words: ``AUTO``, ``HITL``, ``AUTO except issue_closure``;
    ``UNSANDBOXED`` added as in :func:`mode`."""
    answers = info.auto_accept_rules.compact()
    return answers if info.sandboxed else f"{answers} UNSANDBOXED"


def status(info: AgentInfo) -> str:
    """The status column: ``⚑ waits 3m`` says a human is needed, and for how long; an
    ended agent shows its exit state (``broken``: its project's tests could not run;
    ``partial``: done, with work left undone)."""
    if info.status is AgentStatus.WAITING and info.pending_checkpoint is not None:
        since = f" {duration(now() - info.pending_since)}" if info.pending_since else ""
        return f"⚑ waits{since}"
    if info.exit_state in (ExitState.BROKEN, ExitState.PARTIAL):
        return info.exit_state.value
    return info.status.value


def phase(value: Phase | None) -> str:
    """A phase as words (``issue selection``); ``starting`` before the agent reported one."""
    return value.value.replace("_", " ") if value is not None else "starting"


def duration(span: timedelta) -> str:
    """``45s``, ``12m``, ``3h05m``, ``2d04h``: an elapsed time at a glance."""
    seconds = max(0, int(span.total_seconds()))
    if seconds < 60:
        return f"{seconds}s"
    minutes, hours = seconds // 60, seconds // 3600
    if hours == 0:
        return f"{minutes}m"
    if hours < 24:
        return f"{hours}h{minutes % 60:02d}m"
    return f"{hours // 24}d{hours % 24:02d}h"


def elapsed(info: AgentInfo) -> str:
    """How long the agent has run (until it ended, for an ended agent)."""
    live = info.status in (AgentStatus.RUNNING, AgentStatus.WAITING)
    end = info.ended_at if info.ended_at is not None and not live else now()
    return duration(end - info.started_at)


def progress(info: AgentInfo) -> str:
    """``2/5`` issues closed; ``–`` before the issues exist."""
    return f"{info.issues_closed}/{info.issues_total}" if info.issues_total else "–"


def count(value: int) -> str:
    """``950``, ``12k``, ``1.3M``: a token count in four characters or so."""
    if value < 1000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.0f}k" if value >= 10_000 else f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


def tokens(spend: Spend) -> str:
    """``1.3M/42k``: tokens in (cache included) and out."""
    if not spend.sessions:
        return "–"
    return f"{count(spend.tokens_in)}/{count(spend.tokens_out)}"


def cost(spend: Spend) -> str:
    """``$0.42``; a ``+`` when some sessions reported no cost."""
    if not spend.sessions:
        return "–"
    return f"${spend.cost_usd:.2f}"


def title(value: str) -> str:
    """A checkpoint type as a heading: ``ISSUE SELECTION``."""
    return value.replace("_", " ").upper()


def checkpoint_title(checkpoint: Checkpoint) -> str:
    """``ISSUE CLOSURE — ISSUE #3``: the type, and the issue it is about when it is about
    one (with issues in parallel the same type comes back for another issue)."""
    from common.workspace.checkpoint_issue import issue_of  # reads every checkpoint kind

    iid = issue_of(checkpoint)
    about = f" — ISSUE #{iid}" if iid is not None else ""
    return title(checkpoint.type.value) + about


def shown_and_hidden(slots: Sequence[SlotInfo], room: int) -> tuple[list[SlotInfo], list[SlotInfo]]:
    """The slots named in ``room`` places, and those only counted.

    When they do not all fit, one place is the count, and the waiting slot is named
    before any other (the person is asked about it); both keep the issues' order.
    """
    if len(slots) <= room:
        return list(slots), []
    chosen = {id(slot) for slot in sorted(slots, key=lambda s: not s.waiting)[: max(room - 1, 1)]}
    return (
        [slot for slot in slots if id(slot) in chosen],
        [slot for slot in slots if id(slot) not in chosen],
    )


def slot_tag(slots: Sequence[SlotInfo]) -> str:
    """``[#1 coding, #4 closure ⏸]``: the issues worked in parallel on one list row (⏸: the
    waiting checkpoint is about it); more than one past :data:`SLOTS_NAMED` are counted
    (``+6``), so the row stays short at 80 columns."""
    if not slots:
        return ""
    shown, hidden = shown_and_hidden(slots, SLOTS_NAMED + 1)
    named = [f"#{slot.iid} {slot.step.value}{' ⏸' if slot.waiting else ''}" for slot in shown]
    more = f" +{len(hidden)}" if hidden else ""
    return f"[{', '.join(named)}{more}]"
