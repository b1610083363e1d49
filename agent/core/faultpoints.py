"""Named points between an agent's steps where a test can kill it, as a crash would.

Why: "killed anywhere, it resumes" is only true where it was tried. Each phase marks
the boundaries between its side effects and its state writes with :func:`reached`;
``HARNESS_FAULT_POINT=NAME`` (or ``NAME:N`` for the N-th time it is reached) makes
the agent SIGKILL itself there. Nothing runs unless that variable is set.
"""

from __future__ import annotations

import os
import signal

VARIABLE = "HARNESS_FAULT_POINT"

POINTS: tuple[str, ...] = (
    "project_verification.decided",
    "spec_to_issues.created",
    "issue_enrichment.enriched",
    "enrichment_scope.decided",
    "create_branch.created",
    "issue_selection.labelled",
    "slot.selected",
    "slot.opened",
    "coding.session_ended",
    "coding.tested",
    "coding.committed",
    "coding.noted",
    "issue_closure.noted",
    "issue_closure.closed",
    "slot.merged",
    "merge_conflict.decided",
    "slot.restarted",
    "mr_phase_transition.tested",
    "mr_review.drafted",
    "mr_create.pushed",
    "mr_create.created",
)
"""Every point the agent marks, in the order a run reaches them."""

_seen: dict[str, int] = {}


def reached(name: str) -> None:
    """Mark the point ``name``; die here if the test asked for it.

    Raises:
        ValueError: ``name`` is not one of :data:`POINTS` (a typo would never fire).
    """
    if name not in POINTS:
        raise ValueError(f"unknown fault point {name!r}")
    wanted = os.environ.get(VARIABLE)
    if not wanted:
        return
    point, _, count = wanted.partition(":")
    if point != name:
        return
    _seen[name] = _seen.get(name, 0) + 1
    if _seen[name] == (int(count) if count else 1):
        os.kill(os.getpid(), signal.SIGKILL)
