"""``mr_phase_transition``: a person decides whether the run goes on from the issues to
the merge request, seeing the closed and open issues, the test run and the spec sections
and issues left undone; a plain decision."""

from __future__ import annotations

from typing import Literal

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, IssueRef
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.coverage import SpecCoverage
from common.schemas.gates import TestRun


class MrPhaseTransitionContext(StrictModel):
    closed_issues: list[IssueRef]
    open_issues: list[IssueRef]
    test_run: TestRun | None = None
    skip_mr_creation: bool = False
    coverage: SpecCoverage | None = None
    """Spec sections no closed issue covers and issues left undone (the harness's count)."""


class MrPhaseTransitionCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MR_PHASE_TRANSITION] = CheckpointType.MR_PHASE_TRANSITION
    context: MrPhaseTransitionContext
    decision: Decision | None = None
