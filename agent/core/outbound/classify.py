"""A changed file's findings, from its facts: pure, so every class is tested without git.

The facts (:class:`FileFacts`) come from the work tree after a session or from git's
objects before the push (:mod:`.facts`); the secret scan needs the scanner and is
added by :mod:`.review`.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from enum import StrEnum

from agent.core.outbound.protected import protected_reason
from common.schemas.outbound import Finding, FindingKind, OutboundSettings
from common.untrusted_text import printable_line

BINARY_SNIFF = 8000
"""Bytes git looks at for a NUL to call a file binary; the same here."""


class Kind(StrEnum):
    FILE = "file"
    SYMLINK = "symlink"
    GITLINK = "gitlink"
    DELETED = "deleted"


@dataclass(frozen=True)
class FileFacts:
    """What the review needs to know about one changed path."""

    path: str
    kind: Kind
    size: int = 0
    head: bytes = b""
    """The file's first bytes (at least :data:`BINARY_SNIFF`), or a link's target."""
    executable: bool = False
    was_executable: bool = False
    """Whether the path was an executable file before the change (or ``False`` if new)."""


def findings(facts: FileFacts, settings: OutboundSettings) -> list[Finding]:
    """Every finding about one change, except credentials (:mod:`.secret_scan`)."""
    found: list[Finding] = []
    protected = protected_reason(facts.path, settings.protected_paths)
    if protected is not None:
        what = "deleted: " if facts.kind is Kind.DELETED else ""
        found.append(Finding(kind=FindingKind.PROTECTED_PATH, reason=what + protected))
    if facts.kind is Kind.GITLINK:
        found.append(
            Finding(
                kind=FindingKind.NESTED_REPOSITORY,
                reason="a nested git repository (gitlink): its content is not reviewed",
            )
        )
    if facts.kind is Kind.SYMLINK:
        target = facts.head.decode("utf-8", errors="replace")
        escape = link_escape(facts.path, target)
        if escape is not None:
            found.append(Finding(kind=FindingKind.SYMLINK_OUTSIDE, reason=escape))
    if facts.kind is Kind.FILE:
        if facts.size > settings.max_file_bytes:
            found.append(
                Finding(
                    kind=FindingKind.TOO_LARGE,
                    reason=f"{facts.size:,} bytes, over the limit of {settings.max_file_bytes:,}",
                )
            )
        if is_binary(facts.head):
            found.append(Finding(kind=FindingKind.BINARY, reason="binary content"))
        if facts.executable and not facts.was_executable:
            found.append(
                Finding(kind=FindingKind.NEW_EXECUTABLE, reason="made executable by the change")
            )
    return found


def is_binary(head: bytes) -> bool:
    """git's rule: a NUL in the first 8000 bytes."""
    return b"\0" in head[:BINARY_SNIFF]


def link_escape(path: str, target: str) -> str | None:
    """Why a link at ``path`` pointing to ``target`` leaves the project, or ``None``.

    Judged on the link's text, as a checkout anywhere would resolve it: an absolute
    target, one that climbs above the project's top, or one into ``.git``.
    """
    shown = printable_line(target if len(target) <= 200 else target[:200] + "…")
    if target.startswith("/"):
        return f"a symbolic link to an absolute path outside the project ({shown})"
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if joined == ".." or joined.startswith("../"):
        return f"a symbolic link that points outside the project ({shown})"
    if ".git" in joined.lower().split("/"):
        return f"a symbolic link into a .git folder ({shown})"
    return None


def budget_findings(lines: int, files: int, settings: OutboundSettings) -> list[Finding]:
    """The issue's diff over its budget: the whole issue waits for a person."""
    found: list[Finding] = []
    if lines > settings.max_diff_lines:
        found.append(
            Finding(
                kind=FindingKind.DIFF_BUDGET,
                reason=f"{lines:,} changed lines, over the issue's budget of "
                f"{settings.max_diff_lines:,}",
            )
        )
    if files > settings.max_diff_files:
        found.append(
            Finding(
                kind=FindingKind.DIFF_BUDGET,
                reason=f"{files:,} changed files, over the issue's budget of "
                f"{settings.max_diff_files:,}",
            )
        )
    return found
