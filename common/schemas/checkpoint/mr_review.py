"""``mr_review``: a person reviews the merge request before it is opened (its title,
description, commits, test run and the branch's diff); approving it also approves the
flagged changes on the branch that no person approved yet; a plain decision."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, DiffExcerpt
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.gates import TestRun
from common.schemas.outbound import FlaggedFile


class MrReviewContext(StrictModel):
    title: str
    description: str
    source_branch: str
    target_branch: str
    commits: list[str]
    test_run: TestRun | None = None
    flagged: list[FlaggedFile] = Field(default_factory=list)
    """Changes on the branch the outbound review flags and no person approved (found by
    scanning the whole branch again before the push): approving the merge request
    approves them, and they are listed in it with who approved them."""
    diff: DiffExcerpt | None = None
    """The branch's diff against the target, as the merge request will carry it."""


class MrReviewCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MR_REVIEW] = CheckpointType.MR_REVIEW
    context: MrReviewContext
    decision: Decision | None = None
