"""Sessions with retries: one prompt, run in a given work tree until it delivers.

Apart from the phases so that every session is run the same way whichever phase or
slot asks for it: the repository is checked before and after (``guard``), a failure
another attempt can mend is retried with a growing wait, one it cannot (a refused
key) is raised at once, and each attempt is charged to the ledger, to the run and to
its issue. The work tree is named by the caller, so a slot passes its own worktree.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.session import prompts, session_limits
from agent.core.session.research import research_prompt
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import (
    RESEARCH_KINDS,
    ToolSurface,
    surface_for,
    with_research,
    with_servers,
)
from common.errors import SessionError
from common.workspace import special_files

SESSION_ATTEMPTS = 3
RETRY_DELAY_S = 2.0
"""The wait before the second attempt of a session; it doubles for each later one."""

SessionRunner = Callable[..., Awaitable[SessionResult]]
Guard = Callable[[str], Awaitable[None]]
"""Checks the repository before or after a session (the argument says where); raises
to stop the run (:func:`agent.core.run.integrity.guard`)."""


@dataclass
class Sessions:
    """Runs the model's sessions, retried, each charged to the ledger."""

    config: SessionConfig
    """How sessions reach the model (for the main work tree)."""
    store: StateStore
    ledger: Ledger
    log: AgentLog
    runner: SessionRunner = field(default=run_session)

    def config_for(self, work_tree: Path) -> SessionConfig:
        """The configuration of a session in ``work_tree`` (the main one's as it is).

        Another work tree (a slot's worktree) gets the command policy bound to it (the
        model's commands are judged against the tree they work in, not the project),
        and, sandboxed, a sandbox of its own: only an entrance of its own binds it
        (:meth:`agent.sandbox.launcher.SessionSandbox.own_entrance`); the shared
        wrapper is bound to the project.

        Raises:
            SessionError: sandboxed without an entrance of its own per session.
        """
        if work_tree == self.config.project_dir:
            return self.config
        if self.config.sandboxed and (self.config.entrance is None or self.config.meter is None):
            refused = SessionError(
                f"a session in {work_tree} needs a sandbox of its own: the agent gives "
                "its sessions no entrance of their own (issues in parallel need one)"
            )
            refused.retryable = False  # no attempt mends it
            raise refused
        policy = self.config.policy
        if policy is not None:
            context = dataclasses.replace(policy.context, project_dir=work_tree.resolve())
            policy = dataclasses.replace(policy, context=context)
        return dataclasses.replace(self.config, project_dir=work_tree, policy=policy)

    async def _attempt(
        self,
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
    ) -> SessionResult:
        """One session; after it, ended or failed, what it left in its work tree that the
        harness's git would wait on forever (a FIFO named ``.gitignore``) is removed,
        before any git runs on the tree again (:func:`special_files.defuse`)."""
        try:
            return await self.runner(label, system, prompt, config, reports, self.log)
        finally:
            for line in await asyncio.to_thread(special_files.defuse, config.project_dir):
                self.log(line)

    def with_gate_commands(self, config: SessionConfig) -> SessionConfig:
        """``config`` whose command policy allows the test command and the quality checks
        decided at project_verification, exactly as the harness runs them.

        Why: the policy's context is made at the agent's start from the spec and the
        detected command; the commands approved at project_verification (a person may have
        chosen others, the checks come from the project's presets) are known only from the
        state, and every session kind and every slot must be able to run them.
        """
        policy = config.policy
        state = self.store.state
        if policy is None or (state.test_command is None and not state.quality_checks):
            return config
        context = policy.context.with_commands(state.test_command, *state.quality_checks.values())
        return dataclasses.replace(config, policy=dataclasses.replace(policy, context=context))

    async def run(
        self,
        label: str,
        template: str,
        *,
        work_tree: Path,
        guard: Guard,
        expected_issue: int | None = None,
        done: Callable[[SessionReports], bool] | None = None,
        spec_sections: list[str] | None = None,
        **values: object,
    ) -> tuple[SessionReports, SessionResult]:
        """Run a session from ``prompts/<template>.md`` in ``work_tree``, retrying failures.

        ``done`` says whether the session delivered what the phase needs (for example
        an issue proposal); a session that did not is tried again, told by the harness
        when a limit ended it (:mod:`agent.core.session.session_limits`). An error that another
        attempt cannot mend (a refused key) is raised at once; the error raised is the
        session's own, with the number of attempts, never wrapped. ``spec_sections``:
        the spec's section names a proposal must keep to. A session without ``done``
        that a limit ended comes back with its ``limit``: its caller tells the next one.
        """
        # A resumed run, or one whose venv moved since: the recorded sandbox layout stands.
        await guard(f"before session {label}")
        system = prompts.render("system")
        state = self.store.state
        values.setdefault("feedback", prompts.feedback_block(state.feedback, state.feedback_source))
        told = str(values["feedback"])
        research = self.config.research
        surface = self._surface(template, values)
        prompt = prompts.render(template, project_dir=work_tree, **values)
        base = self.with_gate_commands(self.config_for(work_tree))
        for attempt in range(1, SESSION_ATTEMPTS + 1):
            reports = SessionReports(
                expected_issue=expected_issue,
                surface=surface,
                spec_sections=spec_sections,
                research=research,
            )
            # A session that must deliver a report is not cut at the budget (it would be
            # retried); the others are, and the budget guard asks before the next one.
            config = base if done is not None else self.ledger.budgeted(base)
            scope = config.host_scope(template) if config.host_scope else nullcontext()
            try:
                with scope:  # the hosts of this kind's MCP servers, while it runs
                    result = await self._attempt(label, system, prompt, config, reports)
            except SessionError as e:
                await self._failed(e, label, expected_issue, attempt)
                continue
            self.ledger.account(result, expected_issue)
            await guard(f"after session {label}")
            if done is None or done(reports):
                return reports, result
            self.log(f"session {label} attempt {attempt} ended without its report")
            if result.limit is not None:  # the next attempt is told, as the harness's word
                prompt = _told(result.limit, told, template, work_tree, values)
        ended = f" (the last at a limit: {result.limit.splitlines()[0]})" if result.limit else ""
        raise SessionError(
            f"session {label} ended {SESSION_ATTEMPTS} times without the required report{ended}"
        )

    def _surface(self, template: str, values: dict[str, object]) -> ToolSurface:
        """The tools of a ``template`` session (research and MCP servers included); a
        research kind's prompt gets its research block."""
        research = self.config.research
        offered = research.tools() if research is not None else ()
        surface = with_research(template, surface_for(template), offered)
        if template in RESEARCH_KINDS:
            values.setdefault("research", research_prompt(offered))
        return with_servers(template, surface, self.config.mcp_servers)

    async def _failed(
        self, error: SessionError, label: str, expected_issue: int | None, attempt: int
    ) -> None:
        """Charge a failed attempt; raise when no other can mend it, else wait to retry."""
        self.ledger.account_failed(label, expected_issue)
        if not error.retryable:
            raise error
        if attempt == SESSION_ATTEMPTS:
            raise SessionError(f"{error} (after {attempt} attempts)") from error
        delay = RETRY_DELAY_S * 2 ** (attempt - 1)
        self.log(f"{error} (attempt {attempt} of {SESSION_ATTEMPTS}; again in {delay:g} s)")
        await asyncio.sleep(delay)


def _told(
    limit: str, feedback: str, template: str, work_tree: Path, values: dict[str, object]
) -> str:
    """The prompt again, its feedback followed by the limit that ended the last attempt."""
    told = prompts.feedback_block(session_limits.feedback(limit), "harness")
    values["feedback"] = feedback + told
    return prompts.render(template, project_dir=work_tree, **values)
