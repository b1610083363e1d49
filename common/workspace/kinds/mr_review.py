"""mr_review: the merge request the model drafted, before it is created.

Files the outbound review flagged on the branch keep it from auto-accept; a reject
sends the reason to the next draft.
"""

from __future__ import annotations

from common.schemas.checkpoint import CheckpointType, MrReviewCheckpoint
from common.workspace.kinds.base import CarriedDiff, KindRules
from common.workspace.kinds.lines import description_block, flagged_lines, one


class MrReviewKind(KindRules[MrReviewCheckpoint]):
    checkpoint_type = CheckpointType.MR_REVIEW
    reason_use = "the next draft of the merge request reads this"
    asks_anyway = "asks if a change is flagged"

    def _waits_for_person(self, checkpoint: MrReviewCheckpoint) -> list[str]:
        return [f"flagged on the branch: {item.path}" for item in checkpoint.context.flagged]

    def _context_lines(self, checkpoint: MrReviewCheckpoint) -> list[str]:
        c = checkpoint.context
        return [
            f"Title (the model's words): {one(c.title)}",
            f"{one(c.source_branch)} → {one(c.target_branch)}, {len(c.commits)} commit(s)",
            *flagged_lines(c.flagged, {}),
            "",
            *description_block("Description", c.description),
        ]

    def _diff(self, checkpoint: MrReviewCheckpoint) -> CarriedDiff | None:
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


KIND = MrReviewKind(MrReviewCheckpoint)
