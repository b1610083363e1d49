"""The run: what a phase handler works with, composed of parts that each do one job.

Each phase has a handler in ``agent.core.stages``; handlers do the phase's work and
end with exactly one move through the state store (``run.store.move``, ``moving``,
``fail`` or ``leave_issue``). The state is written after every transition, so an
agent killed anywhere resumes where it stopped.

:class:`Run` only names its parts (:mod:`~agent.core.run.run_state`, :mod:`~agent.core.run.desk`,
:mod:`~agent.core.run.ledger`, :mod:`~agent.core.gates.gate_runs`,
:mod:`~agent.core.run.session_retries`) and binds the gates and the sessions to its
work tree; the parts take what they need explicitly, so a slot working an issue in
its own git worktree can bind the same parts to that worktree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent.core.gates.fresh_trees import Harmless
from agent.core.gates.gate_runs import GateRunner
from agent.core.gates.gates import CommandWrap
from agent.core.log import AgentLog
from agent.core.run import integrity
from agent.core.run.decision_record import DecisionRecorder
from agent.core.run.desk import Desk
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.run.session_retries import SessionRunner, Sessions
from agent.core.run.webhook import Webhook
from agent.core.session.result import SessionResult
from agent.core.session.sandboxing import HostAccess
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.words.secrecy import Secrecy
from agent.tracker.base import IssueTracker
from common import decision_mac, paths
from common.paths import WorkspaceFiles
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets
from common.schemas.gates import TestRun
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo

if TYPE_CHECKING:
    from agent.sandbox.layout import LayoutKeeper

Outcome = Literal["done", "failed", "stopped"]
ModelCheck = Callable[[], Awaitable[list[str]]]
"""Probes the model endpoint: its warnings, or a ``ModelEndpointError`` when it cannot work."""
SpecRefusal = Callable[[str], str | None]
"""Given the specification's text, why the chosen model cannot work on it (``None``: it can).

Decided where the model is chosen (the embedded model plays only the demo), never in
the core: the core only asks."""


@dataclass
class Run:
    """Everything a phase handler works with: the workspace, the tracker and the parts."""

    files: WorkspaceFiles
    info: WorkspaceInfo
    tracker: IssueTracker
    log: AgentLog
    project_env: ProjectEnv
    """The project's own environment: its test runs never use the harness's interpreter."""
    store: StateStore
    """The state, and the only ways to change it."""
    desk: Desk
    """The checkpoint protocol (ask, pause)."""
    ledger: Ledger
    """The spend and the budgets in force."""
    gates: GateRunner
    """The test suite and the quality checks, on a given work tree."""
    sessions: Sessions
    """The model's sessions, retried, on a given work tree."""
    model_check: ModelCheck | None = None
    """Run at project_verification; ``None`` for the embedded model."""
    spec_refusal: SpecRefusal | None = None
    """Asked at spec_to_issues before any session; ``None``: any spec will do."""
    layout_keeper: LayoutKeeper | None = None
    """The sandbox layout now and how to apply an approved one (``None``: unsandboxed);
    :mod:`agent.core.run.integrity` compares it with the recorded layout."""
    host_access: HostAccess | None = None
    """The sandbox's filtering proxy, given the ``host:port`` pairs approved at
    project_verification (``None``: unsandboxed, or on the host's network)."""
    worktrees: Path | None = None
    """Where this agent's issue worktrees live (parallel issues): named at the agent's
    start, while ``HARNESS_HOME`` is still in its environment
    (:func:`common.paths.worktrees_dir`)."""
    sessions_this_run: int = 0

    @classmethod
    def create(
        cls,
        *,
        files: WorkspaceFiles,
        info: WorkspaceInfo,
        state: AgentState,
        tracker: IssueTracker,
        sessions: SessionConfig,
        log: AgentLog,
        project_env: ProjectEnv,
        session_runner: SessionRunner = run_session,
        model_check: ModelCheck | None = None,
        spec_refusal: SpecRefusal | None = None,
        decision_key: bytes | None = None,
        secrecy: Secrecy | None = None,
        command_wrap: CommandWrap | None = None,
        layout_keeper: LayoutKeeper | None = None,
        worktrees: Path | None = None,
        webhook: Webhook | None = None,
        host_access: HostAccess | None = None,
        gate_overlays: bool = False,
    ) -> Run:
        """Compose a run from the workspace, the state and how sessions reach the model.

        ``decision_key`` defaults to the key on disk (read once, held in memory: only
        client-signed decisions count); ``command_wrap`` puts the project's test command
        in the sessions' sandbox (``None`` when the spec turns the sandbox off);
        ``webhook`` hears of waiting checkpoints, reminders and timeouts;
        ``gate_overlays``: ``command_wrap`` shows each gate the work tree as an overlay
        (:attr:`GateRunner.overlays`).
        """
        key = decision_key if decision_key is not None else decision_mac.load_key()
        project = info.spec.project_dir
        store = StateStore(files, state, log)
        ledger = Ledger(store, log, info.spec.budgets, meter=sessions.meter)
        return cls(
            files=files,
            info=info,
            tracker=tracker,
            log=log,
            project_env=project_env,
            store=store,
            desk=Desk(
                files,
                store,
                log,
                key,
                secrecy=secrecy,
                timeout=info.spec.checkpoint_timeout,
                webhook=webhook,
                recorder=DecisionRecorder(files, store, log, tracker),
            ),
            ledger=ledger,
            gates=GateRunner(
                project_env,
                log,
                command_wrap,
                Harmless(project, project_env.folders_in(project), files.root),
                overlays=gate_overlays and command_wrap is not None,
                project=project,
            ),
            sessions=Sessions(sessions, store, ledger, log, runner=session_runner),
            model_check=model_check,
            spec_refusal=spec_refusal,
            layout_keeper=layout_keeper,
            worktrees=worktrees or paths.worktrees_dir(files.root),
            host_access=host_access,
        )

    @property
    def state(self) -> AgentState:
        """The state as last written (changed only through :attr:`store`)."""
        return self.store.state

    @property
    def spec(self) -> AgentSpec:
        return self.info.spec

    @property
    def budgets(self) -> Budgets:
        """The budgets in force: the spec's, or those a person raised at budget_reached."""
        return self.ledger.budgets

    @property
    def secrecy(self) -> Secrecy | None:
        """What checkpoints and outbound reviews redact (``None``: nothing to hide)."""
        return self.desk.secrecy

    @property
    def work_tree(self) -> Path:
        """The work tree this run's gates and sessions act on: the project's."""
        return self.spec.project_dir

    async def tests(self, command: str | None = None) -> TestRun | None:
        """The project's test suite on the work tree as it is now, recorded in the state.

        ``command`` defaults to the decided test command; ``None`` comes back when there
        is none or the spec skips the suite. A run on a work tree identical to the last
        run's (same content, committed or not) is reused instead of run again.
        """
        command = command or self.state.test_command
        if command is None or self.spec.skip_test_suite:
            return None
        last = self.state.last_test_run
        result = await self.gates.tests(self.work_tree, command, last)
        if result is not last:
            with self.store.editing() as state:
                state.last_test_run = result
        return result

    async def checks(self) -> dict[str, TestRun]:
        """Every quality check decided at project_verification (not the tests), recorded.

        Like :meth:`tests`, a check whose last run saw the same work tree is not run again.
        """
        if not self.state.quality_checks:
            return {}
        results = await self.gates.checks(
            self.work_tree, self.state.quality_checks, self.state.last_checks
        )
        with self.store.editing() as state:
            state.last_checks = results
        return results

    def pin_environment(self, root: str | None) -> None:
        """The gates run the project environment at ``root`` from now on: a person
        approved the environment as the project has it now (see
        :attr:`common.project_env.ProjectEnv.root`)."""
        self.project_env = dataclasses.replace(self.project_env, root=root)
        self.gates = dataclasses.replace(self.gates, project_env=self.project_env)

    async def guard(self, where: str) -> None:
        """Stop at a checkpoint when the repository moved behind the harness's back."""
        await integrity.guard(self, where)

    async def session(
        self,
        label: str,
        template: str,
        *,
        work_tree: Path | None = None,
        expected_issue: int | None = None,
        done: Callable[[SessionReports], bool] | None = None,
        spec_sections: list[str] | None = None,
        **values: object,
    ) -> tuple[SessionReports, SessionResult]:
        """A session in ``work_tree`` (default: this run's; a slot names its worktree)
        (see :meth:`Sessions.run`)."""
        return await self.sessions.run(
            label,
            template,
            work_tree=work_tree or self.work_tree,
            guard=self.guard,
            expected_issue=expected_issue,
            done=done,
            spec_sections=spec_sections,
            **values,
        )
