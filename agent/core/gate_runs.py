"""The gates run on a given work tree, with the cache that spares an unchanged one.

Apart from the run's state so that each work tree (the main one now, one git
worktree per slot later) is tested on its own: the caller names the work tree and
hands over the last run it recorded for it; a run whose work tree fingerprint and
command are the same is reused instead of run again. Recording the result is the
caller's (the state store's) job, so this module never writes the state.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from agent.core import gates, trace
from agent.core.gates import CommandWrap
from agent.core.log import AgentLog
from agent.core.project_env import ProjectEnv
from common.schemas.gates import TestRun
from common.workspace import git


def reusable(last: TestRun | None, tree: str, command: str) -> bool:
    """Whether ``last`` ran ``command`` on exactly this work tree content."""
    return last is not None and last.tree == tree and last.command == command


@dataclass(frozen=True)
class GateRunner:
    """Runs the test suite and the quality checks in the project's own environment."""

    project_env: ProjectEnv
    """The project's environment: its test runs never use the harness's interpreter."""
    log: AgentLog
    command_wrap: CommandWrap | None = None
    """Puts the command in the sessions' sandbox (it runs code the model wrote);
    ``None`` when the spec turns the sandbox off."""

    async def tests(self, work_tree: Path, command: str, last: TestRun | None) -> TestRun:
        """The test suite on ``work_tree`` as it is now (``last`` when it saw the same)."""
        tree = await asyncio.to_thread(git.worktree_fingerprint, work_tree)
        if last is not None and reusable(last, tree, command):
            self.log(f"tests: {last.summary} (work tree unchanged since the last run)")
            trace.gate(last, reused=True)
            return last
        result = await self._run(work_tree, command, tree)
        trace.gate(result)
        self.log(f"tests: {result.summary}")
        return result

    async def checks(
        self, work_tree: Path, commands: dict[str, str], last: dict[str, TestRun]
    ) -> dict[str, TestRun]:
        """Each quality check (name → command) on ``work_tree``; one whose last run saw
        the same work tree is not run again."""
        if not commands:
            return {}
        tree = await asyncio.to_thread(git.worktree_fingerprint, work_tree)
        results: dict[str, TestRun] = {}
        for name, command in commands.items():
            previous = last.get(name)
            if previous is not None and reusable(previous, tree, command):
                results[name] = previous
                continue
            result = await self._run(work_tree, command, tree)
            results[name] = result
            verdict = "passes" if result.passed else f"fails (exit {result.exit_code})"
            self.log(f"check {name}: `{command}` {verdict}")
        return results

    async def _run(self, work_tree: Path, command: str, tree: str) -> TestRun:
        environ = self.project_env.environ(os.environ)
        result = await gates.run_tests(work_tree, command, environ, wrap=self.command_wrap)
        return result.model_copy(update={"tree": tree})
