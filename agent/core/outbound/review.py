"""The outbound review: which of a session's files are held for a person, what on the
branch no person approved, and whether the issue's diff is over its budget.

Both reviews are bounded. A session that changed more files than it may
(``limits.changed_files``) is not reviewed one by one: its files are held whole, by
folder (:mod:`.bulk`). Each review stops reading after its time (:data:`SESSION_BUDGET_S`,
:data:`BRANCH_BUDGET_S`); what it did not come to is held for a person, never passed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.outbound import bulk, classify, facts, secret_scan
from agent.core.outbound.facts import Observed
from common.schemas.outbound import (
    ApprovedChange,
    Finding,
    FindingKind,
    FlaggedFile,
    OutboundSettings,
)
from common.untrusted_text import printable
from common.workspace import git

PREVIEW_CHARS = 2_000
PREVIEW_LINES = 40
SESSION_BUDGET_S = 120.0
"""How long the review of one session's files may take (a thousand files of a few KB
take about a second; a thousand of 1 MB each, half an hour of scanning)."""
BRANCH_BUDGET_S = 300.0
"""How long the review of the whole branch before the push may take."""


@dataclass(frozen=True)
class SessionReview:
    """A session's files: the ones to commit and the ones held for a person."""

    clean: list[str]
    flagged: list[FlaggedFile] = field(default_factory=list)


def judge(
    seen: Observed,
    settings: OutboundSettings,
    secrets: Iterable[str],
    scan: secret_scan.Scanner | None = None,
) -> FlaggedFile | None:
    """One change's findings (``None``: nothing to ask a person about); ``scan`` is the
    review's scanner (default: one for this change alone)."""
    found = classify.findings(seen.facts, settings)
    if seen.unread is not None:
        found.append(
            Finding(kind=FindingKind.NOT_REVIEWED, reason=f"not read by the review: {seen.unread}")
        )
    scannable = seen.content is not None and not classify.is_binary(seen.content)
    if scannable and seen.content is not None:
        if scan is None:
            found += secret_scan.credential_findings(seen.facts.path, seen.content)
        else:
            found += scan.credential_findings(seen.facts.path, seen.content)
        found += secret_scan.exact_findings(seen.content, secrets)
    if not found:
        return None
    return FlaggedFile(path=seen.facts.path, findings=found, preview=_preview(seen, found))


def _preview(seen: Observed, found: list[Finding]) -> str:
    """The start of what a person is asked to approve (escaped); nothing of a file that
    holds a secret, is binary or too large."""
    if seen.facts.kind is classify.Kind.SYMLINK:
        return "→ " + printable(seen.facts.head.decode("utf-8", errors="replace"))
    if seen.facts.kind is classify.Kind.DELETED:
        return "(deleted)"
    hidden = {FindingKind.SECRET, FindingKind.BINARY, FindingKind.TOO_LARGE}
    if seen.content is None or any(item.kind in hidden for item in found):
        return ""
    text = seen.content.decode("utf-8", errors="replace")
    lines = text.splitlines()
    cut = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    more = "\n…" if len(cut) < len(text.rstrip("\n")) else ""
    return printable(cut) + more


def review_session(
    project: Path,
    paths: list[str],
    settings: OutboundSettings,
    secrets: Iterable[str],
    *,
    max_files: int | None = None,
    budget_s: float = SESSION_BUDGET_S,
) -> SessionReview:
    """Which of the session's changed ``paths`` may be committed, and which wait.

    More than ``max_files`` paths: none is read, all wait, by folder. Paths the review
    had no time for (after ``budget_s``) wait too, by folder.
    """
    if max_files is not None and len(paths) > max_files:
        why = (
            f"the session changed {len(paths):,} files, more than the {max_files:,} a session "
            "may (limits.changed_files): held unread, for a person"
        )
        return SessionReview([], bulk.held(paths, FindingKind.TOO_MANY_FILES, why))
    secrets = list(secrets)
    deadline = time.monotonic() + budget_s
    clean: list[str] = []
    flagged: list[FlaggedFile] = []
    done = 0
    with secret_scan.scanner() as scan:
        for seen in facts.from_work_tree(project, paths, settings.max_file_bytes):
            if time.monotonic() > deadline:
                break
            done += 1
            verdict = judge(seen, settings, secrets, scan)
            if verdict is None:
                clean.append(seen.facts.path)
            else:
                flagged.append(verdict)
    rest = paths[done:]
    if rest:
        why = f"the review stops after {budget_s:g} s and did not come to them: held unread"
        flagged += bulk.held(rest, FindingKind.NOT_REVIEWED, why)
    return SessionReview(clean, flagged)


def review_branch(
    project: Path,
    base: str,
    tip: str,
    settings: OutboundSettings,
    secrets: Iterable[str],
    approved: list[ApprovedChange],
    *,
    budget_s: float = BRANCH_BUDGET_S,
) -> list[FlaggedFile]:
    """Every flagged change on the branch (``base...tip``) that no person approved as it
    is now (an approval holds for the object approved: a later change is new).

    After ``budget_s`` the rest is not scanned: each change it did not come to is flagged
    (a person approves it with the merge request, by its object, so the next review
    passes it)."""
    secrets = list(secrets)
    approved_objects = {(item.path, item.blob) for item in approved}
    deadline = time.monotonic() + budget_s
    unapproved: list[FlaggedFile] = []
    late = Finding(
        kind=FindingKind.NOT_REVIEWED,
        reason=f"not scanned: the branch's review stops after {budget_s:g} s",
    )
    with secret_scan.scanner() as scan:
        for seen in facts.from_branch(project, base, tip, settings.max_file_bytes):
            if (seen.facts.path, seen.blob) in approved_objects:
                continue
            if time.monotonic() > deadline:
                unapproved.append(FlaggedFile(path=seen.facts.path, findings=[late]))
                continue
            verdict = judge(seen, settings, secrets, scan)
            if verdict is not None:
                unapproved.append(verdict)
    return unapproved


def diff_budget(project: Path, span: str, settings: OutboundSettings) -> list[Finding]:
    """The issue's diff (``span``) against its budget of changed lines and files."""
    out = git.git(project, "diff", "--numstat", "--no-renames", span)
    lines = files = 0
    for row in out.splitlines():
        added, removed, _path = [*row.split("\t", 2), "", ""][:3]
        files += 1
        lines += int(added) if added.isdigit() else 0
        lines += int(removed) if removed.isdigit() else 0
    return classify.budget_findings(lines, files, settings)
