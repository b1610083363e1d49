"""spec_to_issues: the person judges the model's proposed issues and their dependencies.

The one choice is an edit of the dependencies (``depends=3:1,2;4:``), refused whole on
a cycle; a reject sends the reason to the model's next proposal.
"""

from __future__ import annotations

from common import dependencies
from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    ProposalDecision,
    SpecToIssuesCheckpoint,
)
from common.workspace.kinds.base import KindRules
from common.workspace.kinds.lines import names, one

DEPENDS_CHOICE = "depends=ISSUE:DEPENDENCIES;… with proposal positions, e.g. depends=3:1,2;4:"


class SpecToIssuesKind(KindRules[SpecToIssuesCheckpoint]):
    checkpoint_type = CheckpointType.SPEC_TO_ISSUES
    reason_use = "the model's next proposal reads this"

    def _default(self, checkpoint: SpecToIssuesCheckpoint, decided_by: str) -> AnyDecision:
        return ProposalDecision(approved=True, decided_by=decided_by)

    def _reject(
        self, checkpoint: SpecToIssuesCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return ProposalDecision(approved=False, decided_by=decided_by, reason=reason)

    def _choice(
        self, checkpoint: SpecToIssuesCheckpoint, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        edits = dependency_edits(checkpoint, choice)
        return ProposalDecision(
            approved=True, decided_by=decided_by, reason=reason, depends_on=edits
        )

    def _context_lines(self, checkpoint: SpecToIssuesCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [f"Proposed issues (attempt {c.attempt}):"]
        graph = checkpoint.dependencies()
        for position, issue in enumerate(c.issues, start=1):
            star = " *" if position in c.recommended_enrichment else ""
            out.append(f"  {position}. {one(issue.title)}{star}")
            if c.spec_sections:
                out.append(f"     spec: {names(issue.spec_sections)}")
            if graph.get(position):
                out.append(f"     {dependencies.depends_text(graph[position])}")
        if c.recommended_enrichment:
            out.append("  (* recommended for enrichment)")
        if c.uncovered_sections:
            out.append(f"Spec sections no issue covers: {names(c.uncovered_sections)}")
        if c.feedback:
            out.append(f"Previous feedback: {one(c.feedback)}")
        return out

    def _choice_hints(self, checkpoint: SpecToIssuesCheckpoint, agent: str) -> list[str]:
        if len(checkpoint.context.issues) <= 1:
            return []
        return [
            f"    harness approve {agent} --choice 'depends=3:1,2;4:'   "
            "(3 depends on 1 and 2, 4 on none; the others as shown)"
        ]


def dependency_edits(checkpoint: SpecToIssuesCheckpoint, choice: str) -> dict[int, list[int]]:
    """``depends=3:1,2;4:`` as the person's edits of the proposal's dependencies: issue 3
    depends on 1 and 2, issue 4 on none, the others as proposed (``depends=`` alone: none
    changed). Positions are the proposal's 1-based numbers, as every view shows them.

    Raises:
        CheckpointError: not ``depends=…``, an unknown position, a self-dependency, or a
            cycle (one line naming it: ``dependency cycle: #2 → #3 → #2``); nothing changes.
    """
    name, sep, rest = choice.strip().partition("=")
    if not sep or name.strip() != "depends":
        raise CheckpointError(f"spec_to_issues takes {DEPENDS_CHOICE}; got {choice!r}")
    try:
        edits = dependencies.parse_edits(rest)
    except ValueError as e:
        raise CheckpointError(f"{e}; give {DEPENDS_CHOICE}") from e
    proposed = dependencies.positions([issue.depends_on for issue in checkpoint.context.issues])
    known = range(1, len(checkpoint.context.issues) + 1)
    problem = dependencies.graph_problem(dependencies.edited(proposed, edits), known)
    if problem is not None:
        raise CheckpointError(problem)
    return edits


KIND = SpecToIssuesKind(SpecToIssuesCheckpoint)
