"""regression_approval: tests that passed before fail now; the person picks an action.

There is no plain reject, only an action (``fix_now``, the default, ``defer`` or
``abort``); the issue's (or the branch's) diff is the code that broke the tests.
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionDecision,
)
from common.workspace.kinds.base import CarriedDiff, KindRules
from common.workspace.kinds.lines import one

ACTIONS = ", ".join(action.value for action in RegressionAction)


class RegressionApprovalKind(KindRules[RegressionApprovalCheckpoint]):
    checkpoint_type = CheckpointType.REGRESSION_APPROVAL
    reject_blocked = "reject is blocked: choose fix_now, defer or abort"
    always_asks = True
    asks_anyway = "always asks a person"

    def _waits_for_person(self, checkpoint: RegressionApprovalCheckpoint) -> list[str]:
        failing = len(checkpoint.context.newly_failing)
        return [f"a regression: {failing} test(s) that passed before fail now"]

    def _default(self, checkpoint: RegressionApprovalCheckpoint, decided_by: str) -> AnyDecision:
        return RegressionDecision(
            approved=True, decided_by=decided_by, action=RegressionAction.FIX_NOW
        )

    def _reject(
        self, checkpoint: RegressionApprovalCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        raise CheckpointError(
            f"regression_approval cannot be rejected; choose an action: {ACTIONS}"
        )

    def _choice(
        self,
        checkpoint: RegressionApprovalCheckpoint,
        choice: str,
        decided_by: str,
        reason: str | None,
    ) -> AnyDecision:
        try:
            action = RegressionAction(choice.strip())
        except ValueError as e:
            raise CheckpointError(f"unknown regression action {choice!r}; choose: {ACTIONS}") from e
        return RegressionDecision(
            approved=True, decided_by=decided_by, reason=reason, action=action
        )

    def _approve_label(self, checkpoint: RegressionApprovalCheckpoint) -> str:
        return "approve: fix_now"

    def _context_lines(self, checkpoint: RegressionApprovalCheckpoint) -> list[str]:
        c = checkpoint.context
        where = (
            f"Issue #{c.issue_iid}: {one(c.issue_title)}"
            if c.issue_iid is not None
            else "Before the merge request (every issue done)"
        )
        out = [where, "Newly failing:"]
        out += [f"  ✗ {one(name)}" for name in c.newly_failing]
        out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
        return out

    def _choice_hints(self, checkpoint: RegressionApprovalCheckpoint, agent: str) -> list[str]:
        return [f"    harness approve {agent} --choice fix_now|defer|abort"]

    def _diff(self, checkpoint: RegressionApprovalCheckpoint) -> CarriedDiff | None:
        excerpt = checkpoint.context.diff
        if excerpt is None:
            return None
        return CarriedDiff(
            excerpt.stat,
            excerpt.text,
            excerpt.cut_at,
            f"git diff {excerpt.range}",
            excerpt.long_lines,
        )

    def _issue(self, checkpoint: RegressionApprovalCheckpoint) -> int | None:
        return checkpoint.context.issue_iid


KIND = RegressionApprovalKind(RegressionApprovalCheckpoint)
