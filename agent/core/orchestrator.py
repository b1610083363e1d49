"""The orchestrator: runs the phase machine to DONE or FAILED, persisting every step.

Each phase has a handler in ``agent.core.stages``; handlers do the phase's work
and end with exactly one move (:meth:`Run.move`, :meth:`Run.moving`, :meth:`Run.fail`
or :meth:`Run.leave_issue`). The state is written after every
transition, so an agent killed anywhere resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from agent.core import gates, integrity, phases, prompts, trace
from agent.core.gates import CommandWrap
from agent.core.log import AgentLog
from agent.core.policy import audit
from agent.core.project_env import ProjectEnv
from agent.core.secrecy import Secrecy
from agent.core.session import SessionConfig, SessionResult, run_session
from agent.core.tools import SessionReports
from agent.core.toolset import surface_for
from agent.tracker.base import IssueTracker
from common import decision_mac
from common.atomic import write_model
from common.errors import HarnessError, SessionError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.budget import Budgets
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.schemas.gates import TestRun
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo
from common.workspace import checkpoints, git
from common.workspace.decisions import default_decision, waits_for_person
from common.workspace.render import render_checkpoint
from common.workspace.setup import load_info

if TYPE_CHECKING:
    from agent.sandbox.layout import LayoutKeeper

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
    decision_key: bytes = field(default_factory=decision_mac.load_key, repr=False)
    """Read once at agent start and held in memory: only client-signed decisions count."""
    auto_accept_floor: int = 0
    """The newest auto-accept setting seen; an older one put back is a forgery."""
    secrecy: Secrecy | None = None
    """Redacts checkpoints before they are written (``None``: nothing to hide)."""
    command_wrap: CommandWrap | None = None
    """Puts the project's test command in the sessions' sandbox (it runs code the model
    wrote); ``None`` when the spec turns the sandbox off."""
    layout_keeper: LayoutKeeper | None = None
    """The sandbox layout now and how to apply an approved one (``None``: unsandboxed);
    :mod:`agent.core.integrity` compares it with the recorded layout."""

    @property
    def spec(self) -> AgentSpec:
        return self.info.spec

    @property
    def budgets(self) -> Budgets:
        """The budgets in force: the spec's, or those a person raised at budget_reached."""
        return self.state.budgets or self.spec.budgets

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
            trace.gate(last, reused=True)
            return last
        environ = self.project_env.environ(os.environ)
        result = await gates.run_tests(project, command, environ, wrap=self.command_wrap)
        result = result.model_copy(update={"tree": tree})
        with self.editing() as state:
            state.last_test_run = result
        trace.gate(result)
        self.log(f"tests: {result.summary}")
        return result

    async def checks(self) -> dict[str, TestRun]:
        """Run every quality check decided at project_verification (not the tests).

        Like :meth:`tests`, a check whose last run saw the same work tree is not run again.
        """
        if not self.state.quality_checks:
            return {}
        project = self.spec.project_dir
        tree = await asyncio.to_thread(git.worktree_fingerprint, project)
        environ = self.project_env.environ(os.environ)
        results: dict[str, TestRun] = {}
        for name, command in self.state.quality_checks.items():
            last = self.state.last_checks.get(name)
            if last is not None and last.tree == tree and last.command == command:
                results[name] = last
                continue
            result = await gates.run_tests(project, command, environ, wrap=self.command_wrap)
            results[name] = result.model_copy(update={"tree": tree})
            verdict = "passes" if result.passed else f"fails (exit {result.exit_code})"
            self.log(f"check {name}: `{command}` {verdict}")
        with self.editing() as state:
            state.last_checks = results
        return results

    def account(self, result: SessionResult, issue: int | None) -> Spend:
        """Add a session's figures to the run's spend and to its issue's; return them."""
        spent = Spend(
            tokens_in=result.input_tokens,
            tokens_out=result.output_tokens,
            cache_read=result.cache_read_tokens,
            cache_creation=result.cache_creation_tokens,
            cost_usd=result.cost_usd or 0.0,
            sessions=1,
            session_s=result.duration_ms / 1000,
        )
        self._add_spend(spent, issue)
        return spent

    def budgeted_sessions(self) -> SessionConfig:
        """The session configuration with what the cost budget has left (if it has a limit)."""
        limit = self.budgets.cost_usd
        if limit is None:
            return self.sessions
        left = max(limit - self.state.spend.cost_usd, 0.0)
        return dataclasses.replace(self.sessions, cost_limit_usd=left)

    def account_failed(self, label: str, issue: int | None) -> None:
        """Add what the model endpoint forwarded for a session that failed to the spend.

        A failed session has no figures of its own, but its requests were billed.
        """
        meter = self.sessions.meter
        spent = meter.take_last(f"session {label}") if meter is not None else None
        if spent is None or spent.requests == 0:
            return
        self.log(f"session {label} failed after the model endpoint forwarded {spent.line()}")
        self._add_spend(
            Spend(
                tokens_in=spent.input_tokens,
                tokens_out=spent.output_tokens,
                cache_read=spent.cache_read_tokens,
                cache_creation=spent.cache_creation_tokens,
                cost_usd=spent.cost_usd,
            ),
            issue,
        )

    def _add_spend(self, spent: Spend, issue: int | None) -> None:
        with self.editing() as state:
            if issue is not None:
                state.issue_spend[issue] = state.issue_spend.get(issue, Spend()).plus(spent)
            state.spend = state.spend.plus(spent)

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
            if checkpoint.status == "decided":
                shown = checkpoint.model_copy(update={"status": "pending", "decision": None})
                problem = decision_mac.decision_problem(
                    self.decision_key, self.files.root, shown, checkpoint
                )
                if problem is not None:
                    self.forgery(problem)
                    checkpoint = shown
                    checkpoints.write(self.files, checkpoint)
        else:
            checkpoint = await build(checkpoint_id)
            if self.secrecy is not None:
                checkpoint = self.secrecy.checkpoint(checkpoint)
            self.info = load_info(self.files.root)
            for_person = waits_for_person(checkpoint)
            auto_accept = self.auto_accept_on()
            if auto_accept and for_person:
                self.log(
                    f"auto-accept never approves a flagged change: {checkpoint.id} waits for "
                    f"a person ({len(for_person)} finding(s))"
                )
            elif auto_accept:
                checkpoint = checkpoints.signed(
                    self.decision_key,
                    self.files,
                    checkpoints.decided(checkpoint, default_decision(checkpoint, "auto-accept")),
                )
            checkpoints.write(self.files, checkpoint)
            self.log.block(render_checkpoint(checkpoint))
            trace.checkpoint(checkpoint)
        if checkpoint.status == "pending":
            self.log(f"waiting for a decision on {checkpoint.id}")
            checkpoint = await checkpoints.wait_for_signed_decision(
                self.files, checkpoint, self.decision_key, self.forgery
            )
        checkpoints.record(self.files, checkpoint)
        trace.decision(checkpoint)
        decision = checkpoint.decision
        assert decision is not None
        verdict = "approved" if decision.approved else "rejected"
        why = f": {decision.reason}" if decision.reason else ""
        self.log(f"checkpoint {checkpoint.id} {verdict} by {decision.decided_by}{why}")
        return checkpoint

    def forgery(self, detail: str) -> None:
        """Log and count a decision or switch that no client made; it is ignored."""
        self.log(f"forgery attempt: {detail}; ignored")
        audit.record_forgery(self.files, detail, log=lambda _line: None)  # logged above

    def auto_accept_on(self) -> bool:
        """Whether a client switched auto-accept on (a switch without a valid MAC is off)."""
        info = self.info
        valid = decision_mac.auto_accept_valid(
            self.decision_key,
            self.files.root,
            info.auto_accept,
            info.auto_accept_serial,
            info.auto_accept_mac,
        )
        if not valid:
            if info.auto_accept or info.auto_accept_mac is not None:
                state = "on" if info.auto_accept else "off"
                self.forgery(f"auto-accept switched {state} without a valid MAC")
            return False
        if info.auto_accept_serial < self.auto_accept_floor:
            self.forgery(
                f"an older auto-accept setting (#{info.auto_accept_serial}) was put back "
                f"over #{self.auto_accept_floor}"
            )
            return False
        self.auto_accept_floor = info.auto_accept_serial
        return info.auto_accept

    def pause(self, checkpoint: Checkpoint) -> StopRun:
        """Remember that ``checkpoint`` was answered "stop here" and build the stop."""
        with self.editing() as state:
            state.dismissed_checkpoints.append(checkpoint.id)
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
        spec_sections: list[str] | None = None,
        **values: object,
    ) -> tuple[SessionReports, SessionResult]:
        """Run a session from ``prompts/<template>.md``, retrying failures.

        ``done`` says whether the session delivered what the phase needs (for example
        an issue proposal); a session that did not is tried again. An error that
        another attempt cannot mend (a refused key) is raised at once; the error
        raised is the session's own, with the number of attempts, never wrapped.
        ``spec_sections``: the spec's section names a proposal must keep to.
        """
        # A resumed run, or one whose venv moved since: the recorded sandbox layout stands.
        await integrity.guard(self, f"before session {label}")
        system = prompts.render("system")
        values.setdefault(
            "feedback", prompts.feedback_block(self.state.feedback, self.state.feedback_source)
        )
        surface = surface_for(template)
        prompt = prompts.render(template, project_dir=self.spec.project_dir, **values)
        for attempt in range(1, SESSION_ATTEMPTS + 1):
            reports = SessionReports(
                expected_issue=expected_issue, surface=surface, spec_sections=spec_sections
            )
            # A session that must deliver a report is not cut at the budget (it would be
            # retried); the others are, and the budget guard asks before the next one.
            config = self.sessions if done is not None else self.budgeted_sessions()
            try:
                result = await self.session_runner(label, system, prompt, config, reports, self.log)
            except SessionError as e:
                self.account_failed(label, expected_issue)
                if not e.retryable:
                    raise
                if attempt == SESSION_ATTEMPTS:
                    raise SessionError(f"{e} (after {attempt} attempts)") from e
                delay = RETRY_DELAY_S * 2 ** (attempt - 1)
                self.log(f"{e} (attempt {attempt} of {SESSION_ATTEMPTS}; again in {delay:g} s)")
                await asyncio.sleep(delay)
                continue
            self.account(result, expected_issue)
            await integrity.guard(self, f"after session {label}")
            if done is None or done(reports):
                return reports, result
            self.log(f"session {label} attempt {attempt} ended without its report")
        raise SessionError(
            f"session {label} ended {SESSION_ATTEMPTS} times without the required report"
        )
