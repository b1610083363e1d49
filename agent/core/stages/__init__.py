"""One handler per phase; each does its work and ends with one transition."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.core.run.orchestrator import Run
from agent.core.stages import (
    closure,
    coding,
    create_branch,
    issue_enrichment,
    merge_request,
    parallel,
    project_verification,
    regression,
    selection,
    spec_to_issues,
)
from common.schemas.agent_state import Phase

Handler = Callable[[Run], Awaitable[None]]


async def issue_selection(run: Run) -> None:
    """One issue at a time (``"parallel": 1``), or up to N at once, each in its slot."""
    if run.spec.parallel > 1:
        await parallel.issue_slots(run)
    else:
        await selection.issue_selection(run)


HANDLERS: dict[Phase, Handler] = {
    Phase.PROJECT_VERIFICATION: project_verification.project_verification,
    Phase.SPEC_TO_ISSUES: spec_to_issues.spec_to_issues,
    Phase.ISSUE_ENRICHMENT: issue_enrichment.issue_enrichment,
    Phase.CREATE_BRANCH: create_branch.create_branch,
    Phase.ISSUE_SELECTION: issue_selection,
    Phase.CODING: coding.coding_session,
    Phase.REGRESSION_APPROVAL: regression.regression_approval,
    Phase.ISSUE_CLOSURE: closure.issue_closure,
    Phase.MR_PHASE_TRANSITION: merge_request.mr_phase_transition,
    Phase.MR_REVIEW: merge_request.mr_review,
    Phase.MR_CREATE: merge_request.mr_create,
}
