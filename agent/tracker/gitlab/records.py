"""What GitLab sends, as the harness's models; the settings; the idempotency markers.

GitLab's answers are kept as plain dicts (``Attrs``, python-gitlab's ``asdict()``)
until they become :class:`TrackedIssue`, :class:`IssueNote` or
:class:`MergeRequestRecord` here.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tracker.base import NoteKind
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue

Attrs = dict[str, Any]

_MARKER = re.compile(r"\s*<!-- harness:key=(?P<key>[a-z0-9-]+) -->\s*$")
_NOTE_KINDS: tuple[NoteKind, ...] = (
    "research",
    "dependencies",
    "handoff",
    "closure",
    "comment",
    "spec",
    "decision",
)


@dataclass(frozen=True)
class GitLabSettings:
    """Where the project is and how to reach it; ``problem`` is shown at project_verification."""

    api_url: str
    """``https://gitlab.com/api/v4``, or a self-hosted one (``GITLAB_API_URL``)."""
    project_path: str
    """``group/name``, from the ``origin`` remote."""
    token: str | None
    project_dir: Path
    target_branch: str
    milestone_title: str
    timeout: float = 20.0
    """Seconds to wait for each answer (python-gitlab waits forever by default)."""
    remote: str = "origin"
    """Where pushes go: the origin URL read when the tracker was set up (a later
    ``remote.origin.pushurl`` or URL change in ``.git/config`` does not move them)."""
    problem: str | None = None
    """Why GitLab mode cannot work with this configuration, if it cannot."""
    warnings: tuple[str, ...] = ()


@dataclass
class Inventory:
    """What the GitLab project holds, for the demo's report."""

    milestones: list[Attrs]
    issues: list[tuple[Attrs, list[IssueNote]]]
    labels: list[str]
    merge_requests: list[Attrs]
    branches: list[tuple[str, str]]


def with_marker(text: str, key: str) -> str:
    """``text`` ending with the hidden marker of ``key``."""
    return f"{text.rstrip()}\n\n<!-- harness:key={key} -->"


def split_marker(text: str) -> tuple[str, str | None]:
    """The text without its marker, and the marker's key."""
    match = _MARKER.search(text)
    if match is None:
        return text, None
    return text[: match.start()], match["key"]


def issue_key(milestone: str, title: str) -> str:
    """The key of the issue a draft with ``title`` becomes (titles change; keys do not)."""
    return f"issue-{_digest(milestone, title)}"


def note_key(iid: int, kind: NoteKind, body: str) -> str:
    """The key of a note: the same text of the same kind on one issue is one note."""
    return f"note-{kind}-{_digest(str(iid), kind, body)}"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def spec_note(draft: IssueDraft) -> str:
    """The note that keeps an issue's spec-faithful text on GitLab, where enrichment may
    rewrite the description (made inert like every note: :mod:`.inert_text`)."""
    return (
        "**Spec-faithful text** (approved at spec_to_issues; kept by the harness, "
        "whatever an enrichment makes of the description)\n\n"
        f"### {draft.title}\n\n{draft.description()}"
    )


def dependency_block(iids: list[int]) -> str:
    """The harness's "Depends on #N" lines (GitLab shows each reference as a link)."""
    return "\n".join(f"Depends on #{iid}" for iid in iids)


def with_dependency_block(text: str, iids: list[int]) -> str:
    """``text`` ending with the dependency lines of ``iids`` (once; none: ``text``)."""
    if not iids:
        return text
    block = dependency_block(iids)
    body = text.rstrip()
    return body if body.endswith(block) else f"{body}\n\n{block}"


def blocked_by(links: list[Attrs]) -> list[int]:
    """The iids an issue's links say it is blocked by."""
    return sorted(int(link["iid"]) for link in links if link.get("link_type") == "is_blocked_by")


def note_kind(key: str | None) -> NoteKind:
    """The kind a note's key names; notes without a key are someone's comments."""
    if key is not None and key.startswith("note-"):
        named = key.split("-")[1]
        for kind in _NOTE_KINDS:
            if kind == named:
                return kind
    return "comment"


def tracked(attrs: Attrs, notes: list[IssueNote]) -> TrackedIssue:
    description, _ = split_marker(attrs.get("description") or "")
    return TrackedIssue.model_validate(
        {
            "iid": attrs["iid"],
            "title": attrs["title"],
            "description": description,
            "state": "closed" if attrs.get("state") == "closed" else "opened",
            "labels": list(attrs.get("labels") or []),
            "notes": notes,
            "created_at": attrs["created_at"],
            "closed_at": attrs.get("closed_at"),
        }
    )


def user_notes(raw: list[Attrs]) -> list[IssueNote]:
    """The notes people and the harness wrote (GitLab's system notes left out)."""
    notes = []
    for attrs in raw:
        if attrs.get("system"):
            continue  # GitLab's own notes: "closed", "changed the description"
        body, key = split_marker(attrs.get("body") or "")
        notes.append(
            IssueNote.model_validate(
                {"kind": note_kind(key), "body": body, "created_at": attrs["created_at"]}
            )
        )
    return notes


def merge_request(attrs: Attrs) -> MergeRequestRecord:
    state = attrs.get("state")
    return MergeRequestRecord.model_validate(
        {
            key: attrs[key]
            for key in ("iid", "title", "source_branch", "target_branch", "web_url", "created_at")
        }
        | {
            "description": attrs.get("description") or "",
            "state": state if state in ("merged", "closed") else "opened",  # "locked" too
        }
    )


def find_issue(issues: list[Attrs], key: str, title: str | None) -> Attrs | None:
    """The issue with the marker ``key`` or (failing that) with ``title``."""
    for attrs in issues:
        if split_marker(attrs.get("description") or "")[1] == key:
            return attrs
    if title is not None:
        for attrs in issues:
            if attrs.get("title") == title:
                return attrs
    return None
