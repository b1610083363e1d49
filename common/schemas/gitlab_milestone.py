"""``.gitlab_milestone.json``: what the GitLab tracker last saw, mirrored for people and tools.

GitLab stays the source of truth; this file is rewritten (atomically) after every
change the tracker makes, so the TUI, a resumed agent or a person can see the
milestone, its issues and the merge request without asking GitLab. It never holds
the token.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now
from common.schemas.issues import MergeRequestRecord, TrackedIssue


class GitLabApiStats(StrictModel):
    """How the API calls of this workspace went, across agent restarts."""

    requests: int = 0
    """API requests sent (every attempt counts)."""
    retries: int = 0
    """Requests sent again after a 429, a 5xx, a timeout or a dropped connection."""
    recovered: int = 0
    """Creations whose answer was lost but whose result was found instead of created twice."""
    already_existed: int = 0
    """Creations GitLab answered with "already exists" (409, or 400 for a milestone title)."""
    failed: dict[str, int] = Field(default_factory=dict)
    """Requests that failed, by the kind of failure (``rate_limited``, ``server_error``,
    ``timeout``…: :data:`agent.tracker.retry.FailureKind`), retried or not."""


class GitLabMilestone(StrictModel):
    """The spec's milestone in one GitLab project, with its issues and merge request.

    The field names shared with ``FileMilestone`` mean the same thing.
    """

    schema_version: Literal[1] = 1
    api_url: str
    """The GitLab API the tracker talks to (``https://gitlab.com/api/v4`` by default)."""
    project_path: str
    """``group/name`` of the project, resolved from the repository's ``origin`` remote."""
    project_id: int
    milestone_id: int
    title: str
    description: str = ""
    state: Literal["active", "closed"] = "active"
    web_url: str | None = None
    issues: list[TrackedIssue] = Field(default_factory=list)
    merge_request: MergeRequestRecord | None = None
    pushed_branch: str | None = None
    """The feature branch as last pushed to ``origin``."""
    pushed_commit: str | None = None
    """The commit ``pushed_branch`` pointed at on GitLab after the push."""
    stats: GitLabApiStats = Field(default_factory=GitLabApiStats)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
