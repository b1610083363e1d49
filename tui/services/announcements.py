"""What the toasts about checkpoints say: one toast per event a person should notice.

A decision and the checkpoint the agent raises right after it are one event to the
person who pressed Y ("approved; now waits at …"), and the checkpoints a new TUI finds
waiting are one ("3 checkpoints wait: …"): a stack of toasts, one per checkpoint, hides
what is under them and says less. Pure text, so the wording is tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Checkpoints named in a summary; the rest are counted (``+2 more``).
NAMED_IN_SUMMARY = 3


@dataclass(frozen=True)
class Raised:
    """One waiting checkpoint as a toast names it."""

    agent: str
    kind: str
    issue: int | None = None

    @property
    def about(self) -> str:
        """`` (issue #3)`` when the checkpoint is about one issue."""
        return f" (issue #{self.issue})" if self.issue is not None else ""

    def words(self) -> str:
        """``agent_1 at issue_closure (issue #3)``."""
        return f"{self.agent} at {self.kind}{self.about}"


def how_to_answer(*, auto_open: bool, several: bool = False) -> str:
    """What to press, when the dialog does not open by itself."""
    if auto_open:
        return " — shown one after the other" if several else ""
    return " — c opens the oldest" if several else " — c or Enter answers"


def waiting_text(raised: Raised, *, auto_open: bool) -> str:
    """``⚑ agent_1 waits at issue_closure (issue #3) — c or Enter answers``."""
    how = how_to_answer(auto_open=auto_open)
    return f"⚑ {raised.agent} waits at {raised.kind}{raised.about}{how}"


def summary_text(raised: Sequence[Raised], *, auto_open: bool) -> str:
    """Several checkpoints found at once (a TUI opened, the daemon reconnected), oldest first:
    ``⚑ 3 checkpoints wait: agent_1 at issue_closure, agent_2 at mr_review, … — c opens
    the oldest``."""
    named = ", ".join(item.words() for item in raised[:NAMED_IN_SUMMARY])
    more = len(raised) - NAMED_IN_SUMMARY
    rest = f", +{more} more" if more > 0 else ""
    how = how_to_answer(auto_open=auto_open, several=True)
    return f"⚑ {len(raised)} checkpoints wait: {named}{rest}{how}"


def decided_text(agent: str, kind: str, *, approved: bool) -> str:
    """``agent_1: issue_closure approved`` (what this TUI recorded)."""
    return f"{agent}: {kind} {'approved' if approved else 'rejected'}"


def decided_then_waiting(decided: str, raised: Raised, *, auto_open: bool) -> str:
    """A decision and the agent's next checkpoint, in one toast:
    ``agent_1: spec_to_issues approved; ⚑ now waits at issue_enrichment — c or Enter answers``."""
    how = how_to_answer(auto_open=auto_open)
    return f"{decided}; ⚑ now waits at {raised.kind}{raised.about}{how}"
