"""The run's state store: the one place the agent's state changes and is written.

Apart from the rest of the run so that every change, whoever makes it (a phase, the
checkpoint desk, the ledger, later each slot), goes through the same two doors
(:meth:`StateStore.editing` for progress, :meth:`StateStore.moving` for a transition)
and is validated whole and written atomically before it counts: an agent killed
anywhere resumes from a state the harness wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from agent.core.log import AgentLog
from agent.core.run import phases
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase


@dataclass
class StateStore:
    """The agent's state as last written, and the only ways to change it."""

    files: WorkspaceFiles
    state: AgentState
    log: AgentLog

    @contextmanager
    def editing(self) -> Iterator[AgentState]:
        """Change the state within a phase (progress, not a transition), typed.

        The block edits a copy (each assignment checked by the schema and by mypy); when
        it ends, the copy is validated whole and written in one atomic write. An error
        inside the block leaves the state and its file as they were.
        """
        draft = self.state.editable_copy()
        yield draft
        self._persist(draft)

    @contextmanager
    def moving(self, target: Phase, reason: str = "") -> Iterator[AgentState]:
        """Transition (guarded by the table) with the changes the block makes: one write.

        The changes and the move are written together, so a kill never leaves one
        without the other. An illegal move raises before anything is written.
        """
        draft = self.state.editable_copy()
        yield draft
        self._persist(phases.advance(draft, target, reason))
        self.log(f"phase → {target.value}" + (f" ({reason})" if reason else ""))

    def move(self, target: Phase, reason: str = "") -> None:
        """Transition without other changes (see :meth:`moving`)."""
        with self.moving(target, reason):
            pass

    def fail(self, reason: str) -> None:
        """Move to FAILED, recording ``reason`` as the failure."""
        with self.moving(Phase.FAILED, reason) as state:
            state.failure = reason

    def leave_issue(self, reason: str, *, set_aside: bool = False) -> None:
        """Leave the issue in progress (closed, set aside, or left for later) and go on to
        the next: the one way an issue ends, so that every end forgets the same things."""
        with self.moving(Phase.ISSUE_SELECTION, reason) as state:
            state.leave_issue(set_aside=set_aside)

    def _persist(self, state: AgentState) -> None:
        """Validate ``state`` whole (a list appended to in place is checked here) and
        write it atomically; only then is it the run's state."""
        # A wrong value is the validation's error to report, not a serializer warning.
        validated = AgentState.model_validate(state.model_dump(warnings=False))
        write_model(self.files.state, validated)
        self.state = validated
