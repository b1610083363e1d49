"""issue_selection: which open issue to work on next.

The default takes the recommended issue; a choice names one that may start now (an
issue still waiting for its dependencies is refused, saying which); a reject pauses
the run (its reason is only logged).
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    IssueSelectionCheckpoint,
    SelectionDecision,
)
from common.workspace.kinds.base import KindRules, parse_iids
from common.workspace.kinds.lines import one


class IssueSelectionKind(KindRules[IssueSelectionCheckpoint]):
    checkpoint_type = CheckpointType.ISSUE_SELECTION
    reason_use = "why the run pauses: logged, the model never reads it"

    def _default(self, checkpoint: IssueSelectionCheckpoint, decided_by: str) -> AnyDecision:
        return SelectionDecision(
            approved=True, decided_by=decided_by, issue_iid=checkpoint.context.recommended_iid
        )

    def _reject(
        self, checkpoint: IssueSelectionCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return SelectionDecision(approved=False, decided_by=decided_by, reason=reason)

    def _choice(
        self,
        checkpoint: IssueSelectionCheckpoint,
        choice: str,
        decided_by: str,
        reason: str | None,
    ) -> AnyDecision:
        iids = parse_iids(choice)
        known = {issue.iid for issue in checkpoint.context.open_issues}
        waiting = {item.iid: item.waiting_for for item in checkpoint.context.blocked}
        if len(iids) == 1 and iids[0] in waiting:
            needs = ", ".join(f"#{iid}" for iid in waiting[iids[0]])
            raise CheckpointError(
                f"issue #{iids[0]} waits for {needs}; choose one that may start now: "
                + ", ".join(str(i) for i in sorted(known))
            )
        if len(iids) != 1 or iids[0] not in known:
            raise CheckpointError(
                f"choose one open issue: {', '.join(str(i) for i in sorted(known))}"
            )
        return SelectionDecision(
            approved=True, decided_by=decided_by, reason=reason, issue_iid=iids[0]
        )

    def _approve_label(self, checkpoint: IssueSelectionCheckpoint) -> str:
        return f"approve: issue #{checkpoint.context.recommended_iid}"

    def _context_lines(self, checkpoint: IssueSelectionCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [f"Open issues ({c.closed_count} closed so far):"]
        for ref in c.open_issues:
            star = "  ← recommended" if ref.iid == c.recommended_iid else ""
            out.append(f"  #{ref.iid} {one(ref.title)}{star}")
        if c.blocked:
            out.append("Blocked (their dependencies are not closed yet):")
        for blocked in c.blocked:
            waits = ", ".join(f"#{iid}" for iid in blocked.waiting_for)
            out.append(f"  #{blocked.iid} {one(blocked.title)}  (waits for {waits})")
        return out


KIND = IssueSelectionKind(IssueSelectionCheckpoint)
