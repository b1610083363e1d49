"""A checkpoint decision as Markdown for GitLab: an issue's note, a line of the milestone.

Why here, apart from the trackers: the text is the same wherever it goes, and every
value in it is escaped on one line (:func:`common.untrusted_text.printable_line`) with
``<`` shown as ``&lt;``, so nothing in a reason can open an HTML comment (the hidden
markers that make each record once), a tag, or a line of its own (GitLab quick actions
are neutralised later, for every text sent: :mod:`.gitlab.inert_text`). The file names a
choice holds are the model's: they come quoted, as inert code spans
(:func:`agent.core.run.decision_record.choice_words`), and stay so (:func:`common.
inert_markdown.line`). A marker counts only where the harness writes it, at the end of a
line of the decisions section, so a forged one inside a value or elsewhere in the
description cannot stand for a decision never written.
"""

from __future__ import annotations

import hashlib

from common import inert_markdown
from common.schemas.decision_record import DecisionRecord

MILESTONE_HEADING = "## Checkpoint decisions (recorded by the harness)"
"""The milestone description's section of the run-level decisions."""


def inline(text: str, *, cell: bool = False) -> str:
    """``text`` safe inside one Markdown line (or a table ``cell``): escaped, no ``<`` or
    ``|`` acting, the inert code spans it holds kept (:func:`common.inert_markdown.line`)."""
    return inert_markdown.line(text, cell=cell)


def decision_key(checkpoint_id: str) -> str:
    """The idempotency key of a decision's note (``note-decision-…``: its kind is named
    in it, as for the other notes)."""
    return f"note-decision-{_digest(checkpoint_id)}"


def milestone_marker(checkpoint_id: str) -> str:
    """The hidden marker ending a decision's line in the milestone description."""
    return f"<!-- harness:decision={_digest(checkpoint_id)} -->"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def when(record: DecisionRecord) -> str:
    return record.decided_at.strftime("%Y-%m-%d %H:%M:%S UTC")


def who(record: DecisionRecord) -> str:
    """``cli:alice`` (a person), or the rule's author: ``auto-accept``, ``timeout``."""
    return inline(record.decided_by)


def note(record: DecisionRecord) -> str:
    """The note on the issue a checkpoint was about."""
    lines = [
        f"**Checkpoint decision: {record.checkpoint_type.value}** "
        f"(`{inline(record.checkpoint_id)}`)",
        "",
        f"- Decision: {inline(record.choice)}",
        f"- Decided by: {who(record)}",
        f"- Rule: {inline(record.rule) if record.rule else 'none (a person answered)'}",
    ]
    if record.reason:
        lines.append(f"- Reason: {inline(record.reason)}")
    lines += [f"- When: {when(record)}", "", "_Recorded by the coding harness from its log._"]
    return "\n".join(lines)


def milestone_line(record: DecisionRecord) -> str:
    """One line of the milestone description's decisions, ending with its marker."""
    rule = f"; rule: {inline(record.rule)}" if record.rule else ""
    reason = f"; reason: {inline(record.reason)}" if record.reason else ""
    return (
        f"- {when(record)} · **{record.checkpoint_type.value}** "
        f"(`{inline(record.checkpoint_id)}`): {inline(record.choice)} by {who(record)}"
        f"{rule}{reason} {milestone_marker(record.checkpoint_id)}"
    )


def with_milestone_line(description: str, record: DecisionRecord) -> str:
    """``description`` with the decision's line added to its decisions section (made at
    the end the first time); unchanged when the line is there already."""
    if has_milestone_line(description, record.checkpoint_id):
        return description
    body = description.rstrip()
    if MILESTONE_HEADING not in body:
        body = f"{body}\n\n{MILESTONE_HEADING}\n" if body else f"{MILESTONE_HEADING}\n"
    return f"{body.rstrip()}\n{milestone_line(record)}\n"


def has_milestone_line(description: str, checkpoint_id: str) -> bool:
    """Whether the decisions section of ``description`` ends a line with the checkpoint's
    marker: only the harness writes a marker there (a value's ``<`` is escaped, and in a
    code span the marker would not end the line)."""
    _, found, section = description.rpartition(f"\n{MILESTONE_HEADING}\n")
    if not found:
        _, found, section = description.rpartition(f"{MILESTONE_HEADING}\n")
    marker = milestone_marker(checkpoint_id)
    return bool(found) and any(line.endswith(marker) for line in section.splitlines())
