"""The gates run on a given work tree, with the cache that spares an unchanged one.

Apart from the run's state so that each work tree (the main one now, one git
worktree per slot later) is tested on its own: the caller names the work tree and
hands over the last run it recorded for it; a run whose work tree fingerprint and
command are the same is reused instead of run again. Recording the result is the
caller's (the state store's) job, so this module never writes the state.

A slot's baseline is the one run shared between work trees: fresh trees of the same
content give the same result (:mod:`agent.core.gates.fresh_trees` says when, and why), so N
slots opened on one commit run the suite once, or not at all when the project's work
tree was tested with that content.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from agent.core.gates import fresh_trees, gate_writes, gates
from agent.core.gates.fresh_trees import Harmless
from agent.core.gates.gates import CommandWrap
from agent.core.log import AgentLog
from agent.core.trace import trace
from agent.sandbox import overlay
from agent.sandbox.overlay import Listing
from common.project_env import ProjectEnv
from common.schemas.gates import GateWrites, TestRun
from common.workspace import git

T = TypeVar("T")

SharedKey = tuple[str, str]
"""A fresh tree's content (its fingerprint) and the test command."""


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
    harmless: Harmless | None = None
    """What may lie ignored in a fresh work tree (the environment, the workspace);
    ``None``: no tree is taken for fresh, each slot's baseline is its own."""
    shared: dict[SharedKey, asyncio.Future[TestRun]] = field(default_factory=dict)
    """The baselines of fresh trees in this agent, by content and command; a run in
    flight is awaited by the slots that need the same one, not started again."""
    pending: dict[Path, asyncio.Task[TestRun | None]] = field(default_factory=dict)
    """Slots' baselines being measured beside their sessions, by the slot's worktree
    (:mod:`agent.core.issue.slot_baselines`)."""
    overlays: bool = False
    """Whether :attr:`command_wrap` shows a gate the work tree as an overlay
    (:mod:`agent.sandbox.overlay`: sandboxed, and the probe found it works). Otherwise
    the gate runs on the work tree itself and the harness puts back what it changed
    (:mod:`agent.core.gates.gate_writes`)."""
    project: Path | None = None
    """The project's work tree: where the environment's folders lie, for naming its
    interpreter by the recorded path (:meth:`common.project_env.ProjectEnv.gate_command`)."""

    async def tests(self, work_tree: Path, command: str, last: TestRun | None) -> TestRun:
        """The test suite on ``work_tree`` as it is now (``last`` when it saw the same)."""
        tree = await asyncio.to_thread(git.worktree_fingerprint, work_tree)
        if last is not None and reusable(last, tree, command):
            self.log(f"tests: {last.summary} (work tree unchanged since the last run)")
            trace.gate(last, reused=True)
            return last
        return await self._logged(work_tree, command, tree)

    async def baseline(
        self, work_tree: Path, command: str, project: Path, project_last: TestRun | None
    ) -> TestRun:
        """The test suite on a worktree the harness has just made (a slot's start), shared
        with every fresh tree of the same content: another slot's baseline (awaited while
        it runs), or ``project_last``, the project's last run, while the project's work
        tree is fresh and still holds what it tested. A tree that is not fresh is tested
        on its own."""
        tree = await asyncio.to_thread(git.worktree_fingerprint, work_tree)
        if not await self._fresh(work_tree):
            return await self._logged(work_tree, command, tree)
        key = (tree, command)
        while (known := self.shared.get(key)) is not None:
            try:
                result = await asyncio.shield(known)
            except asyncio.CancelledError:
                if known.cancelled():
                    continue  # its run failed or was stopped: this slot runs its own
                raise
            self.log(f"tests: {result.summary} (a fresh tree of the same content was tested)")
            trace.gate(result, reused=True)
            return result
        running = asyncio.get_running_loop().create_future()
        self.shared[key] = running
        try:
            if await self._project_holds(project, project_last, tree, command):
                assert project_last is not None  # _project_holds checked it
                self.log(
                    f"tests: {project_last.summary} (the project's work tree was tested with "
                    "the same content)"
                )
                trace.gate(project_last, reused=True)
                result = project_last
            else:
                result = await self._logged(work_tree, command, tree)
        except BaseException:
            del self.shared[key]
            running.cancel()
            raise
        running.set_result(result)
        return result

    async def _project_holds(
        self, project: Path, last: TestRun | None, tree: str, command: str
    ) -> bool:
        """Whether the project's work tree is fresh and its ``last`` run saw ``tree``."""
        if last is None or not reusable(last, tree, command):
            return False
        if await asyncio.to_thread(git.worktree_fingerprint, project) != tree:
            return False
        return await self._fresh(project)

    async def _fresh(self, work_tree: Path) -> bool:
        harmless = self.harmless
        if harmless is None:
            return False
        return await asyncio.to_thread(fresh_trees.is_fresh, work_tree, harmless)

    async def _logged(self, work_tree: Path, command: str, tree: str) -> TestRun:
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
        """``command`` on the tree ``tree`` (the work tree's fingerprint now), which it
        cannot change (:meth:`guarded`), its interpreter the recorded one."""
        environ = self.project_env.gate_environ(os.environ)
        runnable = self.project_env.gate_command(command, self.project or work_tree)

        async def gate(folder: Path | None) -> TestRun:
            return await gates.run_tests(
                work_tree, runnable, environ, wrap=self.command_wrap, overlay=folder
            )

        result, writes = await self.guarded(work_tree, tree, gate, f"`{command}`")
        return result.model_copy(update={"tree": tree, "command": command, "writes": writes})

    async def guarded(
        self,
        work_tree: Path,
        tree: str,
        gate: Callable[[Path | None], Awaitable[T]],
        name: str,
    ) -> tuple[T, GateWrites]:
        """Run ``gate`` on ``work_tree``, whose fingerprint is ``tree``, so that it cannot
        change what the harness commits: given an empty folder for its overlay when the
        wrap can make one (its writes land there and are discarded), else ``None`` (it
        runs on the work tree, and what it changed is put back). Either way the
        fingerprint is compared after it (:func:`agent.core.gates.gate_writes.settle`).
        Returns the gate's result and what it wrote (logged as ``name``)."""
        started_ns = time.time_ns()
        seen: Listing | None = None
        if self.overlays and self.command_wrap is not None:
            folder = Path(tempfile.mkdtemp(prefix="harness-gate-"))
            try:
                result = await gate(folder)
                seen = await asyncio.to_thread(overlay.listing, folder / overlay.UPPER, work_tree)
            finally:
                await asyncio.to_thread(overlay.remove, folder)
        else:
            result = await gate(None)
        writes = await asyncio.to_thread(gate_writes.settle, work_tree, tree, started_ns, seen)
        line = gate_writes.log_line(name, writes)
        if line is not None:
            self.log(line)
        return result, writes
