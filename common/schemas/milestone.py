"""``.file_milestone.json``: the whole tracker state in file-only mode."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now
from common.schemas.decision_record import DecisionRecord
from common.schemas.issues import MergeRequestRecord, TrackedIssue


class FileMilestone(StrictModel):
    """One milestone per spec, with its issues and (at the end) its merge request."""

    schema_version: Literal[1] = 1
    title: str
    description: str = ""
    state: Literal["active", "closed"] = "active"
    issues: list[TrackedIssue] = Field(default_factory=list)
    merge_request: MergeRequestRecord | None = None
    decisions: list[DecisionRecord] = Field(default_factory=list)
    """Every checkpoint decision of the run, once each (by checkpoint id), oldest first."""
    created_at: datetime = Field(default_factory=utc_now)
