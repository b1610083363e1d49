"""The pieces every type's ``harness checkpoint`` lines are made of, escaped.

A person decides on these lines, and much of them the model wrote (issue titles, file
names, its summary, its claim, the merge request). Every value goes through
:mod:`common.untrusted_text`: one-line values stay on their line, and the model's prose
is a block whose every line starts with :data:`~common.untrusted_text.MODEL_MARK`.
"""

from __future__ import annotations

from common.schemas.checkpoint import ChangesSinceRejection
from common.schemas.outbound import FlaggedFile
from common.untrusted_text import (
    MODEL_MARK,
    marked_lines,
    printable,
    printable_line,
    printable_name,
)


def one(value: object) -> str:
    """A value shown inside one line: escaped, ``\\n`` too."""
    return printable_line(str(value))


def name(value: str) -> str:
    """A file's name inside one line: escaped, its look-alike blanks too."""
    return printable_name(value)


def names(values: list[str]) -> str:
    """Spec section names on one line, escaped; ``(none)`` for none."""
    return ", ".join(one(name) for name in values) or "(none)"


def model_block(label: str, text: str) -> list[str]:
    """The model's prose under ``label``, every line marked as the model's."""
    return [f"{label} (the model's words):", *(f"  {line}" for line in marked_lines(text))]


def description_block(label: str, text: str) -> list[str]:
    """A text the harness wrote around the model's words (the merge request's
    description): its own lines as they are, each line of the model's marked.

    The harness puts every word of the model's prose into a Markdown block quote whose
    every line starts with ``>`` (:mod:`agent.core.words.model_words`); its tables
    (traceability, decisions, cost) and verification are its own and are not marked as
    the model's. A line the harness wrote starting with ``>`` would be marked: the safe
    way round.
    """
    out = [f"{label} (the harness's text; the model's words marked {MODEL_MARK}):"]
    for line in printable(text).split("\n"):
        if line.startswith(">"):
            out.append(f"  {MODEL_MARK} {line[1:].removeprefix(' ')}".rstrip())
        else:
            out.append(f"  {line}".rstrip())
    return out


def first_line(text: str) -> str:
    """The first line of ``text`` (empty for none), unescaped."""
    lines = text.splitlines()
    return lines[0] if lines else ""


def since_rejection_summary(changes: ChangesSinceRejection) -> str:
    """``since your rejection: 2 commits, 3 files`` (one line; the agent's WHAT HAPPENED)."""
    return f"since your rejection: {_change_counts(changes)}"


def since_rejection_lines(changes: ChangesSinceRejection) -> list[str]:
    """What changed since the rejected closure, as git counts it: commits, files, stat."""
    at = f"{one(changes.checkpoint_id)} at {one(changes.commit_sha[:12])}"
    out = [f"Since your rejection ({at}): {_change_counts(changes)}"]
    if changes.commits:
        out.append(f"  commits: {', '.join(one(sha[:12]) for sha in changes.commits)}")
    if changes.files:
        out.append(f"  files: {', '.join(name(path) for path in changes.files)}")
    if changes.shortstat:
        out.append(f"  {one(changes.shortstat)}")
    return out


def _change_counts(changes: ChangesSinceRejection) -> str:
    if not changes.commits and not changes.files:
        return "no new commit, nothing changed"
    commits = f"{len(changes.commits)} commit" + ("" if len(changes.commits) == 1 else "s")
    files = f"{len(changes.files)} file" + ("" if len(changes.files) == 1 else "s")
    return f"{commits}, {files}"


def flagged_lines(flagged: list[FlaggedFile], choices: dict[str, str]) -> list[str]:
    """The outbound review's findings, file by file (a secret is never in them), with
    the start of each file as the model's words and the person's choice once made."""
    if not flagged:
        return []
    out = [f"FLAGGED by the outbound review ({len(flagged)} file(s); never auto-accepted):"]
    for item in flagged:
        chosen = f"  [{one(choices[item.path])}]" if item.path in choices else ""
        out.append(f"  ⚑ {name(item.path)}{chosen}")
        out += [
            f"      {one(finding.kind.value)}: {one(finding.reason)}" for finding in item.findings
        ]
        if item.preview:
            out += [f"      {line}" for line in marked_lines(item.preview)[:12]]
    return out
