"""What the one-line reason of a reject is for, per checkpoint type.

A reject means something different at each checkpoint (a new proposal, enrich none, a
pause, a stop), and only at some does the model ever read the reason. The box that
asks for it must say which, so a person never writes instructions for a model that
will not see them, nor a private remark that the model will. The agent's stages are
the truth each type's rules describe (``reason_use`` in :mod:`common.workspace.kinds`):
``feedback=decision.reason`` goes to the next session at spec_to_issues, issue_closure
and mr_review; everywhere else the reason is only logged with the decision
(``checkpoint … rejected by …: REASON``) and, where the run stops or pauses, in why it did.
"""

from __future__ import annotations

from common.schemas.checkpoint_type import CheckpointType
from common.workspace.kinds import KINDS
from common.workspace.kinds.base import NEVER_READ

__all__ = ["NEVER_READ", "READ_BY_MODEL", "model_reads_reason", "reason_use"]

#: The types whose reject reason the next session reads (as ``feedback``).
READ_BY_MODEL = frozenset(
    {CheckpointType.SPEC_TO_ISSUES, CheckpointType.ISSUE_CLOSURE, CheckpointType.MR_REVIEW}
)


def reason_use(kind: CheckpointType) -> str:
    """What happens to the reason a person gives when rejecting a ``kind`` checkpoint.

    Where the model never reads it and nothing more is to be said (regression_approval has
    no plain reject), it is the plain truth that holds for every type: :data:`NEVER_READ`.
    """
    return KINDS[kind].reason_use


def model_reads_reason(kind: CheckpointType) -> bool:
    """Whether the model is handed the reason of a reject at a ``kind`` checkpoint."""
    return kind in READ_BY_MODEL
