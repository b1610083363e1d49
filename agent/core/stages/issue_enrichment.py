"""ISSUE_ENRICHMENT: a person picks the issues to enrich, one research session enriches
each; a change of scope waits for a person (ENRICHMENT_SCOPE) before it reaches the
tracker."""

from __future__ import annotations

from agent.core import faultpoints
from agent.core.run.orchestrator import Run
from agent.core.session.research import sources_note
from agent.core.words import model_words
from agent.core.words.scope_change import scope_changes, scope_diff
from common import dependencies
from common.schemas.agent_state import PendingEnrichment, Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    EnrichmentDecision,
    EnrichmentScopeCheckpoint,
    EnrichmentScopeContext,
    IssueEnrichmentCheckpoint,
    IssueEnrichmentContext,
    IssueRef,
    ScopeChange,
    ScopeDecision,
)
from common.schemas.issues import TrackedIssue


async def issue_enrichment(run: Run) -> None:
    """The human picks issues to enrich; one research session per picked issue."""
    if not run.state.enrichment_decided:

        async def build(checkpoint_id: str) -> Checkpoint:
            issues = await run.tracker.list_issues()
            return IssueEnrichmentCheckpoint(
                id=checkpoint_id,
                what_happened=[
                    f"{len(issues)} issue(s) created",
                    f"the model recommends enriching {len(run.state.recommended_enrichment)}",
                ],
                to_decide="Which issues should be researched and rewritten?",
                if_approved="The selected issues are enriched, one session each",
                if_rejected="No issue is enriched; coding starts from the spec-faithful issues",
                context=IssueEnrichmentContext(
                    issues=[IssueRef(iid=i.iid, title=i.title, labels=i.labels) for i in issues],
                    recommended=run.state.recommended_enrichment,
                ),
            )

        checkpoint = await run.desk.ask(CheckpointType.ISSUE_ENRICHMENT, build)
        decision = checkpoint.decision
        assert isinstance(decision, EnrichmentDecision)
        selected = decision.selected if decision.approved else []
        with run.store.editing() as state:
            state.enrichment_decided = True
            state.enrichment_queue = selected

    all_issues = await run.tracker.list_issues()
    listing = "\n".join(_listed(issue) for issue in all_issues)
    while run.state.enrichment_queue:
        iid = run.state.enrichment_queue[0]
        issue = await run.tracker.get_issue(iid)
        if "enriched" not in issue.labels:
            reports, _ = await run.session(
                f"enrichment #{iid}",
                "enrichment",
                expected_issue=iid,
                done=lambda r: r.enrichment is not None,
                iid=iid,
                title=issue.title,
                description=issue.description,
                all_issues=listing,
            )
            found = reports.enrichment
            assert found is not None
            if reports.sources:  # recorded by the research tools themselves
                await run.tracker.add_note(iid, "research", sources_note(reports.sources))
            if found.research_notes:
                research = model_words.section("Research notes", found.research_notes)
                await run.tracker.add_note(iid, "research", research)
            if found.dependency_notes:
                dependencies = model_words.section("Dependency notes", found.dependency_notes)
                await run.tracker.add_note(iid, "dependencies", dependencies)
            enriched = PendingEnrichment(
                iid=iid,
                title=found.title,
                description=found.description,
                labels=[
                    "enriched",
                    f"complexity-{found.complexity}",
                    f"time-estimate-{found.time_estimate_hours}h",
                ],
            )
            draft = run.state.spec_drafts.get(iid)
            dropped = (
                scope_changes(draft, found.title, found.description) if draft is not None else []
            )
            if dropped:
                held = enriched.model_copy(update={"dropped": dropped})
                run.log(
                    f"issue #{iid}: the enrichment changes its scope ({len(dropped)} item(s) "
                    "dropped or altered); held for the enrichment_scope checkpoint"
                )
                faultpoints.reached("issue_enrichment.enriched")
                with run.store.editing() as state:
                    state.enrichment_queue = state.enrichment_queue[1:]
                    state.scope_pending = [*state.scope_pending, held]
                continue
            await _apply_enrichment(run, enriched)
            run.log(f"issue #{iid} enriched: {found.title}")
        faultpoints.reached("issue_enrichment.enriched")
        with run.store.editing() as state:
            state.enrichment_queue = state.enrichment_queue[1:]
    if run.state.scope_pending:
        await _enrichment_scope(run)
    run.store.move(Phase.CREATE_BRANCH)


def _listed(issue: TrackedIssue) -> str:
    """``#3 Title (depends on #1)``: another issue as an enrichment session sees it (the
    dependencies a person approved, so its research notes can build on them)."""
    needs = f" ({dependencies.depends_text(issue.depends_on)})" if issue.depends_on else ""
    return f"#{issue.iid} {issue.title}{needs}"


async def _apply_enrichment(run: Run, enriched: PendingEnrichment) -> None:
    """Write an enrichment into the tracker (again, on resume: the same text and labels)."""
    await run.tracker.update_issue(
        enriched.iid,
        title=enriched.title,
        description=enriched.description,
        add_labels=tuple(enriched.labels),
    )


async def _enrichment_scope(run: Run) -> None:
    """One checkpoint for every held enrichment: the diff spec-faithful → enriched and what
    the harness found dropped; the selected ones are applied, the others keep their text."""
    pending = run.state.scope_pending

    async def build(checkpoint_id: str) -> Checkpoint:
        changes = [
            ScopeChange(
                iid=item.iid,
                spec_title=run.state.spec_drafts[item.iid].title,
                enriched_title=item.title,
                dropped=item.dropped,
                diff=_scope_diff(run, item),
            )
            for item in pending
        ]
        listed = ", ".join(f"#{item.iid}" for item in pending)
        return EnrichmentScopeCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"{len(pending)} enrichment(s) dropped or altered what the spec-faithful "
                f"issue said: {listed}",
                "they are not applied: each issue keeps its spec-faithful text for now",
            ],
            to_decide="Apply these enrichments, although they change the issues' scope?",
            if_approved=(
                "The selected enrichments replace their issues' text; the others keep the "
                "spec-faithful text (the default selects none)"
            ),
            if_rejected="Every listed issue keeps its spec-faithful text",
            context=EnrichmentScopeContext(changes=changes),
        )

    checkpoint = await run.desk.ask(CheckpointType.ENRICHMENT_SCOPE, build)
    decision = checkpoint.decision
    assert isinstance(decision, ScopeDecision)
    faultpoints.reached("enrichment_scope.decided")
    selected = set(decision.selected) if decision.approved else set()
    for item in pending:
        if item.iid in selected:
            await _apply_enrichment(run, item)
            run.log(f"issue #{item.iid} enriched (scope change accepted): {item.title}")
        else:
            run.log(f"issue #{item.iid} keeps its spec-faithful text")
    with run.store.editing() as state:
        state.scope_pending = []


def _scope_diff(run: Run, item: PendingEnrichment) -> str:
    draft = run.state.spec_drafts[item.iid]
    return scope_diff(item.iid, draft.title, draft.description(), item.title, item.description)
