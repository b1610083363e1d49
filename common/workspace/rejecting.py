"""What the one-line reason of a reject is for, per checkpoint type, in one table.

A reject means something different at each checkpoint (a new proposal, enrich none, a
pause, a stop), and only at some does the model ever read the reason. The box that
asks for it must say which, so a person never writes instructions for a model that
will not see them, nor a private remark that the model will. The agent's stages are
the truth this table describes: ``feedback=decision.reason`` goes to the next session
at spec_to_issues, issue_closure and mr_review; everywhere else the reason is only
logged with the decision (``checkpoint … rejected by …: REASON``) and, where the run
stops or pauses, in why it did.
"""

from __future__ import annotations

from common.schemas.checkpoint import CheckpointType

#: Where the reason goes when the model never reads it (short: it fits an 80-column box).
NEVER_READ = "logged with your decision; the model never reads it"

_TOLD_TO_THE_MODEL: dict[CheckpointType, str] = {
    CheckpointType.SPEC_TO_ISSUES: "the model's next proposal reads this",
    CheckpointType.ISSUE_CLOSURE: "the next session on the issue reads this",
    CheckpointType.MR_REVIEW: "the next draft of the merge request reads this",
}

_ONLY_LOGGED: dict[CheckpointType, str] = {
    CheckpointType.PROJECT_VERIFICATION: "why the run stops: logged, the model never reads it",
    CheckpointType.ISSUE_ENRICHMENT: "nothing is enriched: logged, the model never reads it",
    CheckpointType.ISSUE_SELECTION: "why the run pauses: logged, the model never reads it",
    CheckpointType.MR_PHASE_TRANSITION: "why the run pauses: logged, the model never reads it",
    CheckpointType.BUDGET_REACHED: "why the run stops: logged, the model never reads it",
}


def reason_use(kind: CheckpointType) -> str:
    """What happens to the reason a person gives when rejecting a ``kind`` checkpoint.

    A type missing from the table (regression_approval has no plain reject; a type
    added later) gets the plain truth that holds for every type: it is logged.
    """
    return _TOLD_TO_THE_MODEL.get(kind) or _ONLY_LOGGED.get(kind) or NEVER_READ
