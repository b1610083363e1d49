"""merge_conflict: an issue's branch conflicts with the feature branch again, after a redo.

The default (auto-accept, the Y key) is ``redo``: what the harness does with a first
conflict. ``--choice`` names an action: ``redo``, ``retry`` (merge again the branch
as a person left it) or ``set_aside``. A plain reject pauses the run; a resume asks
again. The file names and the conflicted diff come from files sessions wrote: shown
escaped, one name per line.
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictDecision,
)
from common.workspace.kinds.base import CarriedDiff, KindRules
from common.workspace.kinds.lines import one

ACTION_TEXT = {
    MergeConflictAction.REDO: "reset the branch onto the feature branch, code the issue again",
    MergeConflictAction.RETRY: "merge the branch again as committed now (resolve it there first)",
    MergeConflictAction.SET_ASIDE: "leave the issue for a person (needs-human), branch kept",
}
"""What each action does, in a few words (the checkpoint's lines and the TUI's list)."""


class MergeConflictKind(KindRules[MergeConflictCheckpoint]):
    checkpoint_type = CheckpointType.MERGE_CONFLICT
    reason_use = "why the run pauses: logged, the model never reads it"
    reject_text = "reject: pause the run"

    def _default(self, checkpoint: MergeConflictCheckpoint, decided_by: str) -> AnyDecision:
        return MergeConflictDecision(
            approved=True, decided_by=decided_by, action=MergeConflictAction.REDO
        )

    def _reject(
        self, checkpoint: MergeConflictCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return MergeConflictDecision(approved=False, decided_by=decided_by, reason=reason)

    def _choice(
        self,
        checkpoint: MergeConflictCheckpoint,
        choice: str,
        decided_by: str,
        reason: str | None,
    ) -> AnyDecision:
        offered = checkpoint.context.actions
        names = "|".join(action.value for action in offered)
        try:
            action = MergeConflictAction(choice.strip())
        except ValueError as e:
            raise CheckpointError(
                f"unknown merge_conflict action {choice!r}; choose {names}"
            ) from e
        if action not in offered:
            raise CheckpointError(f"{action.value} is not offered here; choose {names}")
        return MergeConflictDecision(
            approved=True, decided_by=decided_by, reason=reason, action=action
        )

    def _approve_label(self, checkpoint: MergeConflictCheckpoint) -> str:
        return "approve: redo"

    def _context_lines(self, checkpoint: MergeConflictCheckpoint) -> list[str]:
        c = checkpoint.context
        return [
            f"Issue #{c.issue_iid}: {one(c.issue_title)}",
            f"Branch {one(c.branch)} into {one(c.feature_branch)}: conflicted merge "
            f"#{c.conflicts_so_far}",
            f"Worktree: {one(c.worktree)}",
            "Conflicted files:",
            *(f"  ✗ {one(name)}" for name in c.conflicts),
            "Actions:",
            *(f"  {action.value}: {ACTION_TEXT[action]}" for action in c.actions),
        ]

    def _choice_hints(self, checkpoint: MergeConflictCheckpoint, agent: str) -> list[str]:
        names = "|".join(action.value for action in checkpoint.context.actions)
        return [f"    harness approve {agent} --choice {names}"]

    def _issue(self, checkpoint: MergeConflictCheckpoint) -> int | None:
        return checkpoint.context.issue_iid

    def _diff(self, checkpoint: MergeConflictCheckpoint) -> CarriedDiff | None:
        excerpt = checkpoint.context.diff
        return CarriedDiff(
            excerpt.stat,
            excerpt.text,
            excerpt.cut_at,
            f"git diff {excerpt.range}",
            excerpt.long_lines,
        )


KIND = MergeConflictKind(MergeConflictCheckpoint)
