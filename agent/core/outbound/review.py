"""The outbound review: which of a session's files are held for a person, what on the
branch no person approved, and whether the issue's diff is over its budget."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.outbound import classify, facts, secret_scan
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


@dataclass(frozen=True)
class SessionReview:
    """A session's files: the ones to commit and the ones held for a person."""

    clean: list[str]
    flagged: list[FlaggedFile] = field(default_factory=list)


def judge(seen: Observed, settings: OutboundSettings, secrets: Iterable[str]) -> FlaggedFile | None:
    """One change's findings (``None``: nothing to ask a person about)."""
    found = classify.findings(seen.facts, settings)
    scannable = seen.content is not None and not classify.is_binary(seen.content)
    if scannable and seen.content is not None:
        found += secret_scan.credential_findings(seen.facts.path, seen.content)
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
    project: Path, paths: list[str], settings: OutboundSettings, secrets: Iterable[str]
) -> SessionReview:
    """Which of the session's changed ``paths`` may be committed, and which wait."""
    secrets = list(secrets)
    clean: list[str] = []
    flagged: list[FlaggedFile] = []
    for seen in facts.from_work_tree(project, paths, settings.max_file_bytes):
        verdict = judge(seen, settings, secrets)
        if verdict is None:
            clean.append(seen.facts.path)
        else:
            flagged.append(verdict)
    return SessionReview(clean, flagged)


def review_branch(
    project: Path,
    base: str,
    tip: str,
    settings: OutboundSettings,
    secrets: Iterable[str],
    approved: list[ApprovedChange],
) -> list[FlaggedFile]:
    """Every flagged change on the branch (``base...tip``) that no person approved as it
    is now (an approval holds for the object approved: a later change is new)."""
    secrets = list(secrets)
    approved_objects = {(item.path, item.blob) for item in approved}
    unapproved: list[FlaggedFile] = []
    for seen in facts.from_branch(project, base, tip, settings.max_file_bytes):
        if (seen.facts.path, seen.blob) in approved_objects:
            continue
        verdict = judge(seen, settings, secrets)
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
