"""``issue_enrichment``: a person chooses which issues to enrich (the model suggests
some); a reject is the empty selection."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, IssueRef
from common.schemas.checkpoint_type import CheckpointType


class EnrichmentDecision(Decision):
    """Which issues to enrich; a reject is the empty selection."""

    selected: list[int] = Field(default_factory=list)


class IssueEnrichmentContext(StrictModel):
    issues: list[IssueRef]
    recommended: list[int] = Field(default_factory=list)
    """Issue iids the model suggests enriching."""


class IssueEnrichmentCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ISSUE_ENRICHMENT] = CheckpointType.ISSUE_ENRICHMENT
    context: IssueEnrichmentContext
    decision: EnrichmentDecision | None = None
