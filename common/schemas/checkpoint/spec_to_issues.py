"""``spec_to_issues``: a person reads the issues the model proposes for the spec (with the
spec's sections no proposed issue covers, the harness's count) and creates them, possibly
changing what depends on what, or rejects the proposal with a reason the next attempt
is given."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from common import dependencies
from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.issues import IssueDraft


class ProposalDecision(Decision):
    """spec_to_issues: create the proposed issues, with a person's changes to what depends
    on what (signed with the rest of the decision, so the model cannot make them)."""

    depends_on: dict[int, list[int]] = Field(default_factory=dict)
    """Position → the positions it depends on, replacing the proposal's for each position
    named (the others keep the model's); empty: the proposal's dependencies as shown."""


class SpecToIssuesContext(StrictModel):
    issues: list[IssueDraft]
    recommended_enrichment: list[int] = Field(default_factory=list)
    """1-based positions in ``issues`` the model suggests enriching."""
    attempt: int = 1
    feedback: str | None = None
    """The reason the previous proposal was rejected, if any."""
    spec_sections: list[str] = Field(default_factory=list)
    """Every section of the spec, as the harness names them."""
    uncovered_sections: list[str] = Field(default_factory=list)
    """Sections no proposed issue covers (the harness's count)."""


class SpecToIssuesCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.SPEC_TO_ISSUES] = CheckpointType.SPEC_TO_ISSUES
    context: SpecToIssuesContext
    decision: ProposalDecision | None = None

    def dependencies(self) -> dict[int, list[int]]:
        """Position → the positions it depends on: the proposal's, with the decision's edits."""
        proposed = dependencies.positions([issue.depends_on for issue in self.context.issues])
        edits = self.decision.depends_on if self.decision is not None else {}
        return dependencies.edited(proposed, edits)

    @model_validator(mode="after")
    def _dependencies_are_a_graph(self) -> SpecToIssuesCheckpoint:
        decision = self.decision
        if decision is None or not decision.depends_on:
            return self
        if not decision.approved:
            raise ValueError("a rejected proposal changes no dependency")
        known = range(1, len(self.context.issues) + 1)
        problem = dependencies.graph_problem(self.dependencies(), known)
        if problem is not None:
            raise ValueError(problem)
        return self
