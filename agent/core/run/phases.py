"""The phase machine: a transition table and a guard, nothing else.

Pure logic, no IO: the orchestrator asks :func:`advance` for every move and
persists the returned state. An illegal move raises :class:`TransitionError`.
"""

from __future__ import annotations

from common.errors import TransitionError
from common.schemas.agent_state import AgentState, Phase, Transition
from common.schemas.base import utc_now

P = Phase

#: Every legal move. FAILED is reachable from every live phase (see :func:`advance`).
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    P.PROJECT_VERIFICATION: frozenset({P.SPEC_TO_ISSUES}),
    # A rejected proposal leads to a new proposal: SPEC_TO_ISSUES → SPEC_TO_ISSUES.
    P.SPEC_TO_ISSUES: frozenset({P.SPEC_TO_ISSUES, P.ISSUE_ENRICHMENT}),
    P.ISSUE_ENRICHMENT: frozenset({P.CREATE_BRANCH}),
    P.CREATE_BRANCH: frozenset({P.ISSUE_SELECTION}),
    P.ISSUE_SELECTION: frozenset({P.CODING, P.MR_PHASE_TRANSITION}),
    # A session that did not finish its issue hands off to another: CODING → CODING;
    # an issue out of sessions (or a budget's "go to the MR") is set aside: → ISSUE_SELECTION.
    P.CODING: frozenset({P.CODING, P.REGRESSION_APPROVAL, P.ISSUE_CLOSURE, P.ISSUE_SELECTION}),
    # Before the MR (no current issue): a bug issue to fix, or on to the MR.
    P.REGRESSION_APPROVAL: frozenset(
        {P.CODING, P.ISSUE_CLOSURE, P.ISSUE_SELECTION, P.MR_PHASE_TRANSITION}
    ),
    P.ISSUE_CLOSURE: frozenset({P.ISSUE_SELECTION, P.CODING}),
    P.MR_PHASE_TRANSITION: frozenset({P.MR_REVIEW, P.DONE, P.REGRESSION_APPROVAL}),
    P.MR_REVIEW: frozenset({P.MR_REVIEW, P.MR_CREATE}),
    P.MR_CREATE: frozenset({P.DONE, P.MR_REVIEW}),  # a flagged change no person approved
    P.DONE: frozenset(),
    P.FAILED: frozenset(),
}

TERMINAL: frozenset[Phase] = frozenset({P.DONE, P.FAILED})


def can_move(source: Phase, target: Phase) -> bool:
    """Whether the table allows ``source → target``."""
    if target is P.FAILED:
        return source not in TERMINAL
    return target in TRANSITIONS[source]


def advance(state: AgentState, target: Phase, reason: str = "") -> AgentState:
    """Return ``state`` moved to ``target`` with the move recorded (``state`` is not changed).

    The move's other changes are made on the state before (typed, see
    :meth:`agent.core.run.run_state.StateStore.moving`), so that both are one write.

    Raises:
        TransitionError: the table does not allow the move.
    """
    if not can_move(state.phase, target):
        raise TransitionError(f"illegal transition {state.phase.value} → {target.value}")
    move = Transition(from_phase=state.phase, to_phase=target, reason=reason)
    moved = state.editable_copy()
    moved.phase = target
    moved.history = [*state.history, move]
    moved.updated_at = utc_now()
    return moved


def resume_after_failure(state: AgentState, reason: str = "resumed") -> AgentState:
    """Give a FAILED run a fresh chance in the phase it failed in; other states are returned as is.

    FAILED stays terminal for the phase machine: only a person (``harness resume``)
    reopens a run, and this is the one place that says how. The rule:

    - the run goes back to the phase of its last move to FAILED (recorded in the
      history by :func:`advance`); without such a move, to project_verification;
    - budgets the harness counts per phase start again: the sessions spent on the
      current issue (``issue.sessions``), so "issue #N is not done after 3 sessions"
      gets three new sessions on that issue;
    - ``failure`` (and ``broken``) are cleared, so the old reason is not reported again;
    - everything else (issues, commits, the test baseline, the files that were dirty
      before a session, feedback) is kept: the work done so far is not thrown away.

    The move back is recorded in the history like any other transition.
    """
    if state.phase is not P.FAILED:
        return state
    failed_in = next(
        (move.from_phase for move in reversed(state.history) if move.to_phase is P.FAILED),
        P.PROJECT_VERIFICATION,
    )
    move = Transition(from_phase=P.FAILED, to_phase=failed_in, reason=reason)
    resumed = state.editable_copy()
    resumed.phase = failed_in
    resumed.failure = None
    resumed.broken = False
    for work in resumed.issues.values():
        work.sessions = 0
    resumed.history = [*state.history, move]
    resumed.updated_at = utc_now()
    return resumed
