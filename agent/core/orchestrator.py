"""The orchestrator: runs the phase machine to DONE or FAILED, persisting every step.

Each phase has a handler in ``agent.core.stages``; handlers do the phase's work
and end with exactly one :meth:`Run.move`. The state is written after every
transition, so an agent killed anywhere resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from agent.core import checkpoints, gates, git, phases, prompts
from agent.core.decisions import default_decision
from agent.core.log import AgentLog
from agent.core.project_env import ProjectEnv
from agent.core.render import render_checkpoint
from agent.core.session import SessionConfig, SessionResult, run_session
from agent.core.tools import SessionReports
from agent.core.toolset import surface_for
from agent.core.workspace import load_info
from agent.tracker.base import IssueTracker
from common.atomic import write_model
from common.errors import HarnessError, SessionError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.schemas.gates import TestRun
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo

SESSION_ATTEMPTS = 3
RETRY_DELAY_S = 2.0
"""The wait before the second attempt of a session; it doubles for each later one."""
Outcome = Literal["done", "failed", "stopped"]
ModelCheck = Callable[[], Awaitable[list[str]]]
"""Probes the model endpoint: its warnings, or a ``ModelEndpointError`` when it cannot work."""


class StopRun(HarnessError):
    """The human paused the run (a reject that means "not now"); a restart resumes."""


@dataclass
class Run:
    """Everything a phase handler works with: workspace, state, tracker, sessions, log."""

    files: WorkspaceFiles
    info: WorkspaceInfo
    state: AgentState
    tracker: IssueTracker
    sessions: SessionConfig
    log: AgentLog
    project_env: ProjectEnv
    """The project's own environment: its test runs never use the harness's interpreter."""
    sessions_this_run: int = 0
    session_runner: Callable[..., Awaitable[SessionResult]] = field(default=run_session)
    model_check: ModelCheck | None = None
    """Run at project_verification; ``None`` for the embedded model."""

    @property
    def spec(self) -> AgentSpec:
        return self.info.spec

    def save(self, **changes: object) -> None:
        """Persist field changes that are not a transition (progress within a phase)."""
        self.state = self.state.model_validate({**self.state.model_dump(), **changes})
        write_model(self.files.state, self.state)

    def move(self, target: Phase, reason: str = "", **changes: object) -> None:
        """Transition (guarded by the table), persist, and log it."""
        self.state = phases.advance(self.state, target, reason, **changes)
        write_model(self.files.state, self.state)
        self.log(f"phase → {target.value}" + (f" ({reason})" if reason else ""))

    async def tests(self, command: str | None = None) -> TestRun | None:
        """The project's test suite on the work tree as it is now.

        ``command`` defaults to the decided test command; ``None`` comes back when there
        is none or the spec skips the suite. A run on a work tree identical to the last
        run's (same content, committed or not) is reused instead of run again.
        """
        command = command or self.state.test_command
        if command is None or self.spec.skip_test_suite:
            return None
        project = self.spec.project_dir
        tree = await asyncio.to_thread(git.worktree_fingerprint, project)
        last = self.state.last_test_run
        if last is not None and last.tree == tree and last.command == command:
            self.log(f"tests: {last.summary} (work tree unchanged since the last run)")
            return last
        result = await gates.run_tests(project, command, self.project_env.environ(os.environ))
        result = result.model_copy(update={"tree": tree})
        self.save(last_test_run=result)
        self.log(f"tests: {result.summary}")
        return result

    async def ask(
        self, kind: CheckpointType, build: Callable[[str], Awaitable[Checkpoint]]
    ) -> Checkpoint:
        """Open a checkpoint (or find the one a killed agent left) and return it decided.

        The id is derived from the state, so a resumed agent recognises its own
        pending or decided-but-unapplied checkpoint instead of building a new one.
        Auto-accept is read from the workspace at every checkpoint.
        """
        checkpoint_id = f"{kind.value}-{len(self.state.history)}"
        found = checkpoints.current(self.files)
        if (
            found is not None
            and found.id == checkpoint_id
            and checkpoint_id not in self.state.dismissed_checkpoints
        ):
            checkpoint = found
            self.log(f"resuming checkpoint {checkpoint_id} ({checkpoint.status})")
        else:
            checkpoint = await build(checkpoint_id)
            self.info = load_info(self.files.root)
            if self.info.auto_accept:
                checkpoint = checkpoints.decided(
                    checkpoint, default_decision(checkpoint, "auto-accept")
                )
            checkpoints.write(self.files, checkpoint)
            self.log.block(render_checkpoint(checkpoint))
        if checkpoint.status == "pending":
            self.log(f"waiting for a decision on {checkpoint.id}")
            checkpoint = await checkpoints.wait_for_decision(self.files, checkpoint.id)
        checkpoints.record(self.files, checkpoint)
        decision = checkpoint.decision
        assert decision is not None
        verdict = "approved" if decision.approved else "rejected"
        why = f": {decision.reason}" if decision.reason else ""
        self.log(f"checkpoint {checkpoint.id} {verdict} by {decision.decided_by}{why}")
        return checkpoint

    def pause(self, checkpoint: Checkpoint) -> StopRun:
        """Remember that ``checkpoint`` was answered "stop here" and build the stop."""
        self.save(dismissed_checkpoints=[*self.state.dismissed_checkpoints, checkpoint.id])
        decision = checkpoint.decision
        who = decision.decided_by if decision is not None else "?"
        why = f": {decision.reason}" if decision is not None and decision.reason else ""
        return StopRun(
            f"paused at {checkpoint.type.value} by {who}{why}; `harness resume` continues"
        )

    async def session(
        self,
        label: str,
        template: str,
        *,
        expected_issue: int | None = None,
        done: Callable[[SessionReports], bool] | None = None,
        **values: object,
    ) -> tuple[SessionReports, SessionResult]:
        """Run a session from ``prompts/<template>.md``, retrying failures.

        ``done`` says whether the session delivered what the phase needs (for example
        an issue proposal); a session that did not is tried again. An error that
        another attempt cannot mend (a refused key) is raised at once; the error
        raised is the session's own, with the number of attempts, never wrapped.
        """
        system = prompts.render("system")
        values.setdefault(
            "feedback", prompts.feedback_block(self.state.feedback, self.state.feedback_source)
        )
        surface = surface_for(template)
        prompt = prompts.render(template, project_dir=self.spec.project_dir, **values)
        for attempt in range(1, SESSION_ATTEMPTS + 1):
            reports = SessionReports(expected_issue=expected_issue, surface=surface)
            try:
                result = await self.session_runner(
                    label, system, prompt, self.sessions, reports, self.log
                )
            except SessionError as e:
                if not e.retryable:
                    raise
                if attempt == SESSION_ATTEMPTS:
                    raise SessionError(f"{e} (after {attempt} attempts)") from e
                delay = RETRY_DELAY_S * 2 ** (attempt - 1)
                self.log(f"{e} (attempt {attempt} of {SESSION_ATTEMPTS}; again in {delay:g} s)")
                await asyncio.sleep(delay)
                continue
            self.save(
                spend=self.state.spend.plus(
                    input_tokens=result.input_tokens,
                    output_tokens=result.output_tokens,
                    cache_read_tokens=result.cache_read_tokens,
                    cache_creation_tokens=result.cache_creation_tokens,
                    cost_usd=result.cost_usd,
                )
            )
            if done is None or done(reports):
                return reports, result
            self.log(f"session {label} attempt {attempt} ended without its report")
        raise SessionError(
            f"session {label} ended {SESSION_ATTEMPTS} times without the required report"
        )


async def run_to_end(run: Run) -> tuple[Outcome, str]:
    """Drive the phase machine until DONE, FAILED or a pause."""
    from agent.core.stages import HANDLERS

    while run.state.phase not in phases.TERMINAL:
        handler = HANDLERS[run.state.phase]
        try:
            await handler(run)
        except StopRun as stop:
            run.log(str(stop))
            return "stopped", str(stop)
        except HarnessError as e:
            run.log(f"error in {run.state.phase.value}: {e}")
            run.move(Phase.FAILED, str(e), failure=str(e))
    if run.state.phase is Phase.DONE:
        return "done", ""
    return "failed", run.state.failure or "failed"
