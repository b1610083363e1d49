"""``enrichment_scope``: an enrichment dropped or altered what an issue's spec-faithful
text said; a person chooses which of these enrichments to apply, and every other listed
issue keeps its spec-faithful text (the default, and a reject)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision
from common.schemas.checkpoint_type import CheckpointType


class ScopeDecision(Decision):
    """enrichment_scope: which enrichments that change an issue's scope to apply; every
    other listed issue keeps its spec-faithful text (the default, and a reject)."""

    selected: list[int] = Field(default_factory=list)


class ScopeChange(StrictModel):
    """One issue whose enrichment dropped or altered what the spec-faithful text said."""

    iid: int
    spec_title: str
    """The title approved at spec_to_issues."""
    enriched_title: str
    """The title the enrichment session wrote (the model's words)."""
    dropped: list[str]
    """The harness's list of what the enriched text no longer says (quoting the model)."""
    diff: str
    """Unified diff of the issue's text, spec-faithful → enriched, headed ``issue-N.md``."""


class EnrichmentScopeContext(StrictModel):
    changes: list[ScopeChange]


class EnrichmentScopeCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ENRICHMENT_SCOPE] = CheckpointType.ENRICHMENT_SCOPE
    context: EnrichmentScopeContext
    decision: ScopeDecision | None = None

    @model_validator(mode="after")
    def _selected_are_listed(self) -> EnrichmentScopeCheckpoint:
        decision = self.decision
        if decision is None:
            return self
        unknown = sorted(set(decision.selected) - {change.iid for change in self.context.changes})
        if unknown:
            raise ValueError(f"not an issue of this checkpoint: {unknown}")
        if not decision.approved and decision.selected:
            raise ValueError("a rejected enrichment_scope checkpoint applies no enrichment")
        return self
