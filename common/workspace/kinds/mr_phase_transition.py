"""mr_phase_transition: every issue is done (or set aside); the run moves on to the
merge request. A plain approve or reject (a reject pauses; its reason is only logged).
"""

from __future__ import annotations

from common.schemas.checkpoint import CheckpointType, MrPhaseTransitionCheckpoint
from common.schemas.coverage import gaps_line
from common.workspace.kinds.base import KindRules
from common.workspace.kinds.lines import one


class MrPhaseTransitionKind(KindRules[MrPhaseTransitionCheckpoint]):
    checkpoint_type = CheckpointType.MR_PHASE_TRANSITION
    reason_use = "why the run pauses: logged, the model never reads it"

    def _context_lines(self, checkpoint: MrPhaseTransitionCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [f"Closed issues: {len(c.closed_issues)}, open: {len(c.open_issues)}"]
        if c.test_run is not None:
            out.append(f"Final tests: {one(c.test_run.summary)}")
        if c.skip_mr_creation:
            out.append("skip_mr_creation: the run stops on the feature branch")
        if c.coverage is not None and c.coverage.has_gaps:
            out.append(f"Partial: {one(gaps_line(c.coverage, []))}")
        return out


KIND = MrPhaseTransitionKind(MrPhaseTransitionCheckpoint)
