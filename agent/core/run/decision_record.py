"""Each checkpoint decision written on the tracker, once, where the work is.

Why: what a person decided lived only in the workspace's files on one machine;
reviewers look at the tracker. Right after the desk records a decision in the
checkpoint log (:func:`common.workspace.checkpoints.record`), :meth:`DecisionRecorder.
catch_up` writes every logged decision the tracker does not have yet, oldest first:
the one just made, and any whose write failed before (a tracker down, a kill between
the write and the state update) or that had no place yet (the decisions before the
milestone exists). A failed write is logged in one line and never stops the run nor
loses the decision: the log keeps it, the state says it is not on the tracker yet,
and the next decision (or the end of the run) writes it.

Exactly once across kills: the state lists the checkpoint ids written
(``AgentState.decisions_on_tracker``), and the tracker looks for the checkpoint id's
marker before writing, so a write whose state update a kill lost is found, not
repeated. Everything in the record comes from the harness's signed log, never from
what the model reported; the words (a reason, file names) are escaped by the tracker.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.core.log import AgentLog
from agent.core.run.run_state import StateStore
from agent.tracker.base import IssueTracker
from common.errors import HarnessError
from common.inert_markdown import quoted
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import (
    AnyDecision,
    BudgetDecision,
    Checkpoint,
    ClosureDecision,
    EnrichmentDecision,
    MergeConflictDecision,
    ProposalDecision,
    RegressionDecision,
    ScopeDecision,
    SelectionDecision,
)
from common.schemas.decision_record import DecisionRecord
from common.workspace import checkpoints
from common.workspace.checkpoint_issue import issue_of


def choice_words(decision: AnyDecision) -> str:
    """The decision in a few words: ``approve``, ``reject``, ``approve: fix_now``,
    ``approve: issues #2, #3``, ``approve: files `` a.py ``=approve, …``.

    File names are the model's: each is an inert code span (:func:`common.inert_markdown.
    quoted`), the rest the harness's words; whoever shows the choice keeps the spans
    (:func:`common.inert_markdown.line`)."""
    if isinstance(decision, BudgetDecision):
        limits = [
            f"${decision.cost_usd:g}" if decision.cost_usd is not None else "",
            f"{decision.wall_time_min:g} min" if decision.wall_time_min is not None else "",
        ]
        shown = ", ".join(limit for limit in limits if limit)
        verdict = "approve" if decision.approved else "reject"
        return f"{verdict}: {decision.action.value}" + (f" ({shown})" if shown else "")
    if not decision.approved:
        return "reject"
    if isinstance(decision, EnrichmentDecision | ScopeDecision):
        return f"approve: {_issues(decision.selected)}"
    if isinstance(decision, SelectionDecision):
        return f"approve: issue #{decision.issue_iid}"
    if isinstance(decision, RegressionDecision | MergeConflictDecision):
        return f"approve: {decision.action.value if decision.action else '?'}"
    if isinstance(decision, ClosureDecision) and decision.files:
        files = ", ".join(
            f"{quoted(path, name=True)}={choice.value}" for path, choice in decision.files.items()
        )
        return f"approve: files {files}"
    if isinstance(decision, ProposalDecision) and decision.depends_on:
        edits = "; ".join(
            f"{position}:{','.join(map(str, sorted(needs)))}"
            for position, needs in sorted(decision.depends_on.items())
        )
        return f"approve: dependencies changed {edits}"
    return "approve"


def _issues(iids: list[int]) -> str:
    return "issues " + ", ".join(f"#{iid}" for iid in iids) if iids else "no issue"


def record_of(checkpoint: Checkpoint) -> DecisionRecord:
    """The tracker's record of a decided ``checkpoint`` (from the log: harness facts)."""
    decision = checkpoint.decision
    if decision is None:
        raise ValueError(f"checkpoint {checkpoint.id} is not decided")
    return DecisionRecord(
        checkpoint_id=checkpoint.id,
        checkpoint_type=checkpoint.type,
        issue=issue_of(checkpoint),
        approved=decision.approved,
        choice=choice_words(decision),
        decided_by=decision.decided_by,
        rule=decision.rule,
        reason=decision.reason or None,
        decided_at=decision.decided_at,
    )


@dataclass
class DecisionRecorder:
    """Writes the logged decisions the tracker does not have yet."""

    files: WorkspaceFiles
    store: StateStore
    log: AgentLog
    tracker: IssueTracker

    async def catch_up(self) -> int:
        """Write every logged decision not yet on the tracker, oldest first; how many
        were written. The first failure ends the round (the tracker is likely down for
        the rest too); it is logged, and the next round tries again."""
        written = set(self.store.state.decisions_on_tracker)
        count = 0
        for checkpoint in checkpoints.history(self.files):
            if checkpoint.id in written or checkpoint.decision is None:
                continue
            try:
                where = await self.tracker.record_decision(record_of(checkpoint))
            except (HarnessError, OSError) as e:
                self.log(
                    f"decision {checkpoint.id} not written on the tracker yet ({e}); "
                    "tried again at the next decision"
                )
                return count
            if where is None:
                return count  # no milestone yet: the decisions wait for it, in order
            with self.store.editing() as state:
                state.decisions_on_tracker = [*state.decisions_on_tracker, checkpoint.id]
            count += 1
        return count
