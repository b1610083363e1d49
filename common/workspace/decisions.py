"""Building decisions for a checkpoint: the defaults, a reject, an explicit choice.

Pure functions shared by the agent (auto-accept), the control CLI and the TUI,
so that "approve" means the same thing wherever it is pressed. What each means for a
checkpoint type is that type's rules (:mod:`common.workspace.kinds`); these functions
look them up.
"""

from __future__ import annotations

from common.schemas.checkpoint import AnyDecision, Checkpoint
from common.workspace.kinds import kind_of
from common.workspace.kinds.issue_closure import file_choices
from common.workspace.kinds.spec_to_issues import dependency_edits

__all__ = [
    "choice_decision",
    "default_decision",
    "dependency_edits",
    "file_choices",
    "reject_decision",
    "waits_for_person",
]


def waits_for_person(checkpoint: Checkpoint) -> list[str]:
    """Why no rule may answer ``checkpoint`` (empty: auto-accept or a timeout may).

    These always ask a person, whatever the auto-accept rules say: a flagged change (the
    outbound review's findings at issue_closure and mr_review), a finding about the tree
    the gates ran on (a gate changed it, or a session wrote what they run unseen: under
    the environment, ignored code; issue_closure), a regression
    (regression_approval), a reached budget (budget_reached) and a changed sandbox plan
    (project_verification raised by the integrity guard). The checkpoint stays pending,
    and a person is notified as for any pending one.
    """
    return kind_of(checkpoint).waits_for_person(checkpoint)


def default_decision(checkpoint: Checkpoint, decided_by: str) -> AnyDecision:
    """Approve with the checkpoint's default (what auto-accept and the Y key do).

    issue_enrichment takes the model's recommended selection, regression_approval
    takes ``fix_now``, issue_selection takes the recommended issue, budget_reached takes
    ``merge_request`` (nothing more is spent on new issues), enrichment_scope applies none
    of the enrichments (every issue keeps its spec-faithful text), issue_closure with flagged
    files ``wait`` for each (never approve: the decision cannot be recorded until a person
    chooses, see :func:`waits_for_person`); the rest approve.
    """
    return kind_of(checkpoint).default_decision(checkpoint, decided_by)


def reject_decision(checkpoint: Checkpoint, decided_by: str, reason: str | None) -> AnyDecision:
    """A plain reject (the N key). regression_approval has none: it needs an explicit action.

    Raises:
        CheckpointError: for regression_approval.
    """
    return kind_of(checkpoint).reject_decision(checkpoint, decided_by, reason)


def choice_decision(
    checkpoint: Checkpoint, choice: str, decided_by: str, reason: str | None = None
) -> AnyDecision:
    """Approve with an explicit, non-default choice given as text.

    issue_enrichment: comma-separated iids (empty for none); enrichment_scope: the
    comma-separated iids whose enrichment to apply (empty for none); issue_selection: one iid;
    regression_approval: an action name; budget_reached: ``raise`` (doubles the reached
    budget), ``raise:USD``, ``raise:time=MIN``, ``stop`` or ``merge_request``;
    issue_closure: a choice per flagged file (:func:`file_choices`); spec_to_issues:
    ``depends=3:1,2;4:`` (:func:`dependency_edits`). Other checkpoints take no choice.

    Raises:
        CheckpointError: the choice does not fit the checkpoint.
    """
    return kind_of(checkpoint).choice_decision(checkpoint, choice, decided_by, reason)
