"""SPEC_TO_ISSUES: a session proposes spec-faithful issues (with their dependencies); the
ones a person approves are created in the tracker."""

from __future__ import annotations

from agent.core import faultpoints
from agent.core.run.orchestrator import Run
from agent.core.words import spec_sections
from common import dependencies
from common.errors import SessionError
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    SpecToIssuesCheckpoint,
    SpecToIssuesContext,
)
from common.schemas.issues import IssueDraft


async def spec_to_issues(run: Run) -> None:
    """A session proposes spec-faithful issues; approved ones are created in the tracker."""
    state = run.state

    async def build(checkpoint_id: str) -> Checkpoint:
        spec_text = run.files.spec_copy.read_text()
        refusal = run.spec_refusal(spec_text) if run.spec_refusal is not None else None
        if refusal is not None:
            raise SessionError(refusal)
        sections = [section.id for section in spec_sections.parse(spec_text)]
        reports, _ = await run.session(
            f"initializer (attempt {state.spec_attempt})",
            "initializer",
            done=lambda r: r.proposal is not None,
            spec_sections=sections,
            target_branch=run.spec.target_branch,
            spec=spec_text,
            section_list="\n".join(f"- {name}" for name in sections) or "(none)",
        )
        proposal = reports.proposal
        if proposal is None:
            raise SessionError("the initializer session proposed no issues")
        count = len(proposal.issues)
        uncovered = spec_sections.uncovered(sections, (i.spec_sections for i in proposal.issues))
        return SpecToIssuesCheckpoint(
            id=checkpoint_id,
            what_happened=[
                "read the specification and the project",
                f"proposed {count} spec-faithful issue(s)",
                spec_sections.coverage_line(sections, uncovered, "proposed"),
                _dependency_line(proposal.issues),
            ],
            to_decide="Create these issues?",
            if_approved=f"{count} issues are created in the {run.tracker.kind} tracker",
            if_rejected="A new proposal is made with your feedback",
            context=SpecToIssuesContext(
                issues=proposal.issues,
                recommended_enrichment=[
                    p for p in proposal.recommended_enrichment if 1 <= p <= count
                ],
                attempt=state.spec_attempt,
                feedback=state.feedback,
                spec_sections=sections,
                uncovered_sections=uncovered,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.SPEC_TO_ISSUES, build)
    assert isinstance(checkpoint, SpecToIssuesCheckpoint)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        with run.store.moving(Phase.SPEC_TO_ISSUES, "proposal rejected") as draft:
            draft.spec_attempt = state.spec_attempt + 1
            draft.feedback = (
                decision.reason or "The proposal was rejected; propose a better breakdown."
            )
            draft.feedback_source = "human"
        return
    first_line = run.files.spec_copy.read_text().strip().splitlines()[:1]
    await run.tracker.ensure_milestone(run.info.spec_slug, first_line[0] if first_line else "")
    approved = approved_drafts(checkpoint)
    created = await run.tracker.create_issues(approved)
    faultpoints.reached("spec_to_issues.created")
    recommended = [created[p - 1].iid for p in checkpoint.context.recommended_enrichment]
    run.log(f"created {len(created)} issue(s): " + ", ".join(f"#{i.iid}" for i in created))
    for issue in created:
        if issue.depends_on:
            run.log(f"issue #{issue.iid} {dependencies.depends_text(issue.depends_on)}")
    drafts = {issue.iid: draft for issue, draft in zip(created, approved, strict=True)}
    with run.store.moving(Phase.ISSUE_ENRICHMENT) as draft:
        draft.recommended_enrichment = recommended
        draft.feedback = None
        draft.spec_drafts = drafts


def approved_drafts(checkpoint: SpecToIssuesCheckpoint) -> list[IssueDraft]:
    """The proposed issues with the dependencies a person approved (the proposal's, with
    the signed decision's edits): what the tracker creates."""
    graph = checkpoint.dependencies()
    return [
        issue.model_copy(update={"depends_on": graph.get(position, [])})
        for position, issue in enumerate(checkpoint.context.issues, start=1)
    ]


def _dependency_line(issues: list[IssueDraft]) -> str:
    """How many proposed issues wait for others (the harness checked they form no cycle)."""
    waiting = sum(1 for issue in issues if issue.depends_on)
    if not waiting:
        return "no issue depends on another: any order will do"
    return f"{waiting} issue(s) depend on others; checked: no cycle, no unknown issue"
