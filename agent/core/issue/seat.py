"""``Seat``: where one issue is worked, the project's work tree or a slot's worktree.

Why: the per-issue steps (a coding session, its gates and commit, the regression
check, the closure review, setting aside) are the same whether one issue is worked
at a time or several in parallel. What differs is where they act and how they move
on: worked alone, the issue is the state's only one, its work tree is the project's
and each step is a transition of the run's phase; in a slot, the issue is named by
its iid, its work tree is its worktree and each step moves only its slot (the run's
phase stays at issue selection while slots run). A stage takes a seat and asks it,
so the same code serves both and the serial path stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent.core.run.orchestrator import Run
from common.schemas.agent_state import AgentState, Phase
from common.schemas.gates import TestRun
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.schemas.issue_work import IssueWork

STEP_OF: dict[Phase, SlotStep] = {
    Phase.CODING: SlotStep.CODING,
    Phase.REGRESSION_APPROVAL: SlotStep.REGRESSION,
    Phase.ISSUE_CLOSURE: SlotStep.CLOSURE,
}
"""The run's per-issue phases and the slot steps they are inside a slot."""


@dataclass(frozen=True)
class Seat:
    """One issue's place in the run: alone (``iid`` ``None``) or in its slot."""

    run: Run
    iid: int | None = None
    """The slot's issue; ``None``: the one issue worked alone, in the project."""

    @property
    def in_slot(self) -> bool:
        return self.iid is not None

    def work(self, state: AgentState | None = None) -> IssueWork:
        """The seat's issue in ``state`` (default: the run's state as last written)."""
        return (state if state is not None else self.run.state).work(self.iid)

    @property
    def slot(self) -> IssueSlot | None:
        """The slot's worktree, branch and step (``None`` when worked alone)."""
        return self.work().slot if self.in_slot else None

    @property
    def work_tree(self) -> Path:
        """Where the issue's sessions, gates and commits act."""
        slot = self.slot
        return Path(slot.worktree) if slot is not None else self.run.spec.project_dir

    @contextmanager
    def moving(self, target: Phase, reason: str) -> Iterator[AgentState]:
        """Move the issue on to ``target`` with the block's changes, in one write.

        Alone: a transition of the run (:meth:`StateStore.moving`). In a slot: the
        slot's step (the run's phase is not the slot's to move).
        """
        if not self.in_slot:
            with self.run.store.moving(target, reason) as state:
                yield state
            return
        step = STEP_OF.get(target)
        if step is None:
            raise ValueError(f"a slot does not move to {target.value}")
        with self.run.store.editing() as state:
            yield state
            slot = self.work(state).slot
            assert slot is not None  # in_slot: the state validated it
            slot.step = step
            slot.moves += 1
        self.run.log(f"issue #{self.iid}: {step.value}" + (f" ({reason})" if reason else ""))

    def leave(self, reason: str, *, set_aside: bool = False) -> None:
        """The issue ends (closed, set aside, left for later): forget all of it.

        In a slot its worktree is removed by the scheduler once the slot's task ends.
        """
        if not self.in_slot:
            self.run.store.leave_issue(reason, set_aside=set_aside)
            return
        with self.run.store.editing() as state:
            state.leave_issue(self.iid, set_aside=set_aside)
        self.run.log(f"issue #{self.iid}: {reason}")

    def last_tests(self) -> TestRun | None:
        """The latest test run on the seat's work tree: the run's alone (reused while the
        work tree is unchanged), the issue's own in a slot (another tree's run says
        nothing about this one)."""
        if not self.in_slot:
            return self.run.state.last_test_run
        return self.work().tests

    async def tests(self) -> TestRun | None:
        """The test suite on the seat's work tree as it is now."""
        if not self.in_slot:
            return await self.run.tests()
        command = self.run.state.test_command
        if command is None or self.run.spec.skip_test_suite:
            return None
        return await self.run.gates.tests(self.work_tree, command, self.last_tests())

    async def checks(self) -> dict[str, TestRun]:
        """Every quality check on the seat's work tree."""
        if not self.in_slot:
            return await self.run.checks()
        quality = self.run.state.quality_checks
        if not quality:
            return {}
        return await self.run.gates.checks(self.work_tree, quality, {})
