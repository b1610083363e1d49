"""The agents' lifecycle: spawn, stop, reap, adopt after a restart, and report changes.

Agents run in their own sessions, so they outlive both their clients and the
daemon. Children of this daemon are reaped as soon as they exit (a ``pidfd``
becomes readable); agents adopted from a previous daemon are not our children,
so their exit is noticed by a light liveness check once a second. Everything
else a client sees comes from the workspace files, watched with watchfiles.

Agents get an environment without secrets and without Claude settings; the
GitLab token the daemon was given, and the Claude credentials the starting
client sent for this agent, reach it through a pipe of its own (see
:mod:`common.secrets` and :mod:`common.credentials`). The daemon never lends an
agent Claude credentials of its own environment.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.daemon.agent_view import build_agent_info, ended_line
from agent.daemon.peer_rules import AgentProcess
from agent.daemon.procs import is_alive, signal_group, spawn_detached, start_ticks
from agent.daemon.registry import Registry
from agent.daemon.watcher import FolderWatcher
from common.atomic import read_model_or_none
from common.credentials import check_credentials, without_credentials
from common.errors import DaemonError, SecretsError
from common.harness_code import module_command
from common.paths import (
    AGENT_NAME_VARIABLE,
    WorkspaceFiles,
    daemon_state_path,
    numbered_workspace,
    workspace_number,
)
from common.schemas.agent_state import AgentState, Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import Checkpoint
from common.schemas.daemon_state import AgentRecord, AgentStatus, DaemonState
from common.schemas.protocol import AgentInfo, AnswerRequest
from common.schemas.spec import AgentSpec
from common.secrets import gitlab_secrets, start_with_secrets, without_secrets
from common.telemetry import without_telemetry
from common.workspace import answer as answers
from common.workspace.setup import prepare_workspace, set_auto_accept, validate_spec
from common.workspace.stop_note import write_note

log = logging.getLogger(__name__)

AgentCommand = Callable[[Path], Sequence[str]]
"""Builds an agent's argv from its workspace folder."""

ChangeListener = Callable[[AgentInfo, bool], None]
"""Called with an agent's new view and whether it was removed."""


def default_agent_command(workspace: Path) -> list[str]:
    """``python -P -m agent.process --workspace WORKSPACE`` with this daemon's interpreter
    (:func:`common.harness_code.module_command`: never the project's own ``agent``)."""
    return module_command("agent.process", "--workspace", str(workspace))


class Supervisor:
    """Owns the registry and the agent processes; tells listeners what changed."""

    def __init__(
        self,
        home: Path,
        agent_command: AgentCommand = default_agent_command,
        *,
        secrets: Mapping[str, str] | None = None,
        stop_timeout: float = 10.0,
        kill_timeout: float = 5.0,
        adopted_check_interval: float = 1.0,
        watch_debounce_ms: int = 50,
        watch_step_ms: int = 10,
    ) -> None:
        """Nothing runs until :meth:`start`.

        Args:
            home: the daemon's folder (holds ``daemon_state.json``).
            agent_command: builds the argv of an agent; tests pass a small script.
            secrets: the GitLab tokens, handed to every agent through a pipe
                (``--secrets-fd N`` is appended to its argv), never through its
                environment. Claude secrets among them are dropped: those come
                per agent from the client that starts it.
            stop_timeout: seconds between SIGTERM and SIGKILL when stopping.
            kill_timeout: seconds to wait for the exit after SIGKILL.
            adopted_check_interval: seconds between liveness checks of adopted agents.
            watch_debounce_ms: watchfiles' debounce for the workspace folders.
            watch_step_ms: watchfiles' step for the workspace folders.
        """
        self._home = home
        self._agent_command = agent_command
        self._secrets = gitlab_secrets(secrets or {})
        self._stop_timeout = stop_timeout
        self._kill_timeout = kill_timeout
        self._adopted_check_interval = adopted_check_interval
        self._registry = Registry(daemon_state_path(home), DaemonState())
        self._infos: dict[str, AgentInfo] = {}
        self._listeners: list[ChangeListener] = []
        self._children: dict[str, subprocess.Popen[bytes]] = {}
        self._pidfds: dict[str, int] = {}
        self._exited: dict[str, asyncio.Event] = {}
        self._polled: set[str] = set()
        self._poll_task: asyncio.Task[None] | None = None
        self._start_lock = asyncio.Lock()
        self._watcher = FolderWatcher(
            self._workspace_files_changed, debounce_ms=watch_debounce_ms, step_ms=watch_step_ms
        )
        self._watch_task: asyncio.Task[None] | None = None

    # --- lifecycle of the supervisor itself ---------------------------------------------

    async def start(self) -> None:
        """Load the registry, adopt the agents still alive and start watching.

        Raises:
            StateFileError: ``daemon_state.json`` is corrupted.
        """
        self._registry = Registry.load(daemon_state_path(self._home))
        for record in self._registry.records:
            if self._is_alive(record):
                log.info("adopting %s (pid %s)", record.name, record.pid)
                self._track_exit(record.name, child=None)
        self._refresh(record.name for record in self._registry.records)
        self._watch_task = _background(self._watcher.run(), "workspace watcher")
        self._update_watched_folders()

    async def close(self) -> None:
        """Stop watching and reaping; the agents themselves keep running."""
        self._watcher.stop()
        loop = asyncio.get_running_loop()
        for fd in self._pidfds.values():
            loop.remove_reader(fd)
            os.close(fd)
        self._pidfds.clear()
        if self._poll_task is not None:
            self._poll_task.cancel()
        tasks = {task for task in (self._watch_task, self._poll_task) if task is not None}
        if tasks:
            await asyncio.wait(tasks)  # a failure was logged by _log_failure
        self._listeners.clear()

    def add_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener`` on every change; returns the function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def agent_processes(self) -> list[AgentProcess]:
        """The live agents' processes: what a client connection must not come from.

        Only live ones: a dead agent's pid may belong to an unrelated process by now
        (its start time tells, but a session or group id carries none).
        """
        return [
            AgentProcess(name=record.name, pid=record.pid, start_ticks=record.pid_start_ticks)
            for record in self._registry.records
            if record.pid is not None and self._is_alive(record)
        ]

    # --- commands --------------------------------------------------------------------

    def agents(self) -> list[AgentInfo]:
        """Every agent, oldest first, freshly read."""
        self._refresh(record.name for record in self._registry.records)
        return [self._infos[record.name] for record in self._registry.records]

    def agent(self, name: str) -> AgentInfo:
        """One agent (by name or unique prefix), freshly read."""
        return self._refresh_one(self._registry.resolve(name).name)

    async def start_agent(
        self,
        spec: AgentSpec,
        credentials: Mapping[str, str] | None = None,
        *,
        fresh: bool = False,
        telemetry: Mapping[str, str] | None = None,
    ) -> AgentInfo:
        """Validate ``spec``, prepare its workspace and spawn its agent.

        The agent works in the spec's newest workspace, or with ``fresh`` in a new one
        next to it. A workspace that already has a run is refused (see
        :meth:`_check_workspace_free`), so no start rewrites another agent's record.
        ``credentials`` are the client's Claude credentials, for this agent alone, and
        ``telemetry`` its ``OTEL_*`` settings (:mod:`common.telemetry`): both reach the
        agent through its secrets pipe.

        Raises:
            CredentialsError: the spec names a Claude model and no credentials came.
            SpecError: the spec points at something that does not exist.
            DaemonError: the workspace is taken by another run, or the spawn failed.
        """
        credentials = dict(credentials or {})
        await asyncio.to_thread(validate_spec, spec)  # a bad spec is the first thing to say
        check_credentials(spec, credentials)
        async with self._start_lock:
            newest = await asyncio.to_thread(workspace_number, spec.project_dir, spec.spec_file)
            number = newest + 1 if fresh else max(newest, 1)
            planned = numbered_workspace(spec.project_dir, spec.spec_file, number)
            self._check_workspace_free(spec, planned)
            workspace = await asyncio.to_thread(prepare_workspace, spec, number)
            name = self._registry.next_name()
            argv = list(self._agent_command(workspace))
            piped = {**credentials, **(telemetry or {})}
            child, log_file = self._launch(name, workspace, spec.project_dir, argv, piped)
            record = AgentRecord(
                name=name,
                spec=spec,
                workspace=workspace,
                log_file=log_file,
                pid=child.pid,
                pid_start_ticks=start_ticks(child.pid),
            )
            self._registry.add(record)
            log.info("started %s (pid %d) on %s", name, child.pid, workspace)
            self._track_exit(name, child=child)
            self._update_watched_folders()
            return self._refresh_one(name)

    async def resume_agent(
        self,
        name: str,
        credentials: Mapping[str, str] | None = None,
        *,
        telemetry: Mapping[str, str] | None = None,
    ) -> AgentInfo:
        """Start a stopped or failed agent again, under its name, in its workspace.

        The agent gets ``--resume``: a failed run goes back to the phase it failed in
        with a fresh chance (the agent applies the rule; the daemon never writes its
        state). ``credentials`` and ``telemetry`` reach the agent through its secrets pipe.

        Raises:
            DaemonError: the agent runs, is done, its workspace is gone, or the spawn failed.
        """
        async with self._start_lock:
            record = self._registry.resolve(name)
            check_credentials(record.spec, credentials or {})
            if self._is_alive(record):
                raise DaemonError(f"{record.name} is already running")
            status = self._refresh_one(record.name).status
            if status is AgentStatus.DONE:
                raise DaemonError(
                    f"{record.name} is done; nothing to resume "
                    "(`harness run --fresh` starts a new run of its spec)"
                )
            if not record.workspace.is_dir():
                raise DaemonError(f"{record.name}'s workspace {record.workspace} no longer exists")
            argv = [*self._agent_command(record.workspace), "--resume"]
            piped = {**(credentials or {}), **(telemetry or {})}
            child, log_file = self._launch(
                record.name, record.workspace, record.spec.project_dir, argv, piped
            )
            resumed = record.model_copy(
                update={
                    "log_file": log_file,
                    "pid": child.pid,
                    "pid_start_ticks": start_ticks(child.pid),
                    "stopped_by_user": False,
                }
            )
            self._registry.replace(resumed)
            log.info("resumed %s (pid %d, was %s) on %s", name, child.pid, status, record.workspace)
            self._track_exit(record.name, child=child)
            return self._refresh_one(record.name)

    async def stop_agent(self, name: str, by: str = "a client") -> AgentInfo:
        """SIGTERM the agent's process group, SIGKILL it if it outlasts ``stop_timeout``.

        ``by``: who asked (``<client>:<user>``), left in the workspace for the agent to
        say (:mod:`common.workspace.stop_note`).

        Raises:
            DaemonError: the agent is not running, or survived SIGKILL.
        """
        record = self._registry.resolve(name)
        if not self._is_alive(record) or record.pid is None:
            raise DaemonError(f"{record.name} is not running")
        pid = record.pid
        exited = self._exited.get(record.name) or self._track_exit(record.name, child=None)
        self._registry.mark_stopped_by_user(record.name)
        await asyncio.to_thread(write_note, record.workspace, pid, by)
        log.info("stopping %s (pid %d)", record.name, pid)
        signal_group(pid, signal.SIGTERM)
        if not await _wait(exited, self._stop_timeout):
            log.warning(
                "%s ignored SIGTERM for %.1f s; killing it", record.name, self._stop_timeout
            )
            signal_group(pid, signal.SIGKILL)
            if not await _wait(exited, self._kill_timeout):
                raise DaemonError(f"{record.name} (pid {pid}) did not exit after SIGKILL")
        # End what is left of its group, such as commands the agent started.
        signal_group(pid, signal.SIGKILL)
        return self._refresh_one(record.name)

    def remove_agent(self, name: str) -> None:
        """Forget a finished agent (its workspace is kept).

        Raises:
            DaemonError: the agent is still running.
        """
        record = self._registry.resolve(name)
        if self._is_alive(record):
            raise DaemonError(f"{record.name} is running; stop it before removing it")
        self._registry.remove(record.name)
        info = self._infos.pop(record.name, None) or build_agent_info(record, alive=False)
        log.info("removed %s", record.name)
        self._update_watched_folders()
        self._notify(info, removed=True)

    async def set_auto_accept(self, name: str, rules: AutoAcceptRules) -> AgentInfo:
        """Set the auto-accept rules in the agent's workspace; they apply from its next
        checkpoint."""
        record = self._registry.resolve(name)
        await asyncio.to_thread(set_auto_accept, record.workspace, rules)
        return self._refresh_one(record.name)

    async def answer(self, request: AnswerRequest) -> tuple[str, Checkpoint]:
        """Decide the checkpoint an agent waits at, as ``request`` asks; signed here.

        For ``harness approve``/``reject``: a command that sends this is acting in a few
        tens of milliseconds, where signing and writing the decision itself would first
        build every checkpoint schema. The rules are those of any client
        (:mod:`common.workspace.answer`): first answer wins, a checkpoint nobody saw yet
        is not decided.

        Returns:
            The agent's name and the checkpoint as decided.

        Raises:
            DaemonError: the agent has ended (done, failed or stopped): its last
                checkpoint's file is no question to anyone.
            CheckpointError: nothing waits, it was decided already, or the choice does
                not fit the checkpoint.
        """
        record = self._registry.resolve(request.agent)
        if not self._is_alive(record):
            raise DaemonError(ended_line(self._refresh_one(record.name)))
        decided = await asyncio.to_thread(
            answers.decide,
            record.workspace,
            approve=request.approve,
            choice=request.choice,
            reason=request.reason,
            client=request.client,
            checkpoint_id=request.checkpoint_id,
            not_after=request.not_after,
        )
        return record.name, decided

    # --- processes -------------------------------------------------------------------

    def _check_workspace_free(self, spec: AgentSpec, workspace: Path) -> None:
        """Refuse a start on a workspace that already has a run: the one place that decides.

        A live agent there, or any agent record on it (a person resumes that agent or
        starts ``--fresh``), or a finished or failed run left without a record.

        Raises:
            DaemonError: one line that says what to run instead.
        """
        on_it = [record for record in self._registry.records if record.workspace == workspace]
        for record in on_it:
            if self._is_alive(record):
                raise DaemonError(f"{record.name} is already running on workspace {workspace}")
        fresh = "`harness run --fresh` for a new workspace"
        if on_it:
            info = self._refresh_one(on_it[-1].name)
            again = "" if info.status is AgentStatus.DONE else f"`harness resume {info.name}`, or "
            raise DaemonError(
                f"{spec.spec_file.name} already has a {_ran(info.status)} run in {info.name} "
                f"(workspace {workspace}); run {again}{fresh}"
            )
        state = read_model_or_none(WorkspaceFiles(workspace).state, AgentState)
        if state is not None and state.phase in (Phase.DONE, Phase.FAILED):
            ended = "finished" if state.phase is Phase.DONE else "failed"
            raise DaemonError(
                f"{spec.spec_file.name} already has a {ended} run in workspace {workspace} "
                f"(no agent record); run {fresh}"
            )

    def _launch(
        self,
        name: str,
        workspace: Path,
        cwd: Path,
        argv: list[str],
        credentials: Mapping[str, str],
    ) -> tuple[subprocess.Popen[bytes], Path]:
        """Spawn ``argv`` with a new log file in ``workspace``; returns the child and the log.

        Raises:
            DaemonError: the spawn failed.
        """
        stamp = time.strftime("%Y%m%d-%H%M%S")
        log_file = WorkspaceFiles(workspace).logs / f"{name}-{stamp}.log"
        try:
            return self._spawn(name, argv, cwd, log_file, credentials), log_file
        except OSError as e:
            raise DaemonError(f"cannot start {name} ({argv[0]}): {e.strerror or e}") from e
        except SecretsError as e:
            raise DaemonError(f"cannot start {name}: {e}") from e

    def _spawn(
        self,
        name: str,
        argv: list[str],
        cwd: Path,
        log_file: Path,
        credentials: Mapping[str, str],
    ) -> subprocess.Popen[bytes]:
        """Start an agent detached; its secrets go through a pipe, written once it runs.

        The pipe carries the daemon's GitLab token and ``credentials`` (the starting
        client's Claude credentials and ``OTEL_*`` settings); the environment carries
        none of them, nor the daemon's own Claude or ``OTEL_*`` settings.
        It carries the agent's ``name``, which its webhook messages give.
        """
        env = {
            **without_telemetry(without_credentials(without_secrets(os.environ))),
            AGENT_NAME_VARIABLE: name,
        }
        return start_with_secrets(
            lambda args, fds: spawn_detached(
                args, cwd=cwd, log_file=log_file, env=env, pass_fds=fds
            ),
            argv,
            {**self._secrets, **credentials},
        )

    def _is_alive(self, record: AgentRecord) -> bool:
        return is_alive(record.pid, record.pid_start_ticks)

    def _track_exit(self, name: str, child: subprocess.Popen[bytes] | None) -> asyncio.Event:
        """Arrange to notice the agent's exit; the returned event is set then.

        A child gets a pidfd, readable the moment it exits. An adopted agent (or a
        child on a kernel without pidfd) goes to the once-a-second liveness check.
        """
        exited = self._exited[name] = asyncio.Event()
        if child is not None:
            self._children[name] = child
            try:
                fd = os.pidfd_open(child.pid)
            except OSError as e:
                log.warning("no pidfd for %s (%s); checking it every second", name, e)
            else:
                self._pidfds[name] = fd
                asyncio.get_running_loop().add_reader(fd, self._child_exited, name)
                return exited
        self._polled.add(name)
        if self._poll_task is None or self._poll_task.done():
            self._poll_task = _background(self._check_polled(), "liveness check")
        return exited

    def _child_exited(self, name: str) -> None:
        fd = self._pidfds.pop(name)
        asyncio.get_running_loop().remove_reader(fd)
        os.close(fd)
        child = self._children.pop(name)
        code = child.poll()  # reaps it
        log.info("%s (pid %d) exited with status %s", name, child.pid, code)
        self._exit_observed(name)

    async def _check_polled(self) -> None:
        """The one polling loop, for agents without a pidfd (adopted from an earlier daemon)."""
        while self._polled:
            await asyncio.sleep(self._adopted_check_interval)
            for name in sorted(self._polled):
                child = self._children.get(name)
                if child is not None:
                    child.poll()  # reaps it if it has exited
                record = self._registry.find(name)
                if record is None or not self._is_alive(record):
                    self._children.pop(name, None)
                    log.info("%s has exited", name)
                    self._exit_observed(name)

    def _exit_observed(self, name: str) -> None:
        """The agent has exited, however it ended: what it started ends too.

        The agent leads its own process group (it was spawned in a session of its own),
        and the Claude CLI, the embedded model and the commands the model ran belong to
        it unless they left it; a killed agent cannot end them itself.
        """
        record = self._registry.find(name)
        if (
            record is not None
            and record.pid is not None
            and signal_group(record.pid, signal.SIGKILL)
        ):
            log.info("ended what was left of %s's process group (pgid %d)", name, record.pid)
        self._polled.discard(name)
        exited = self._exited.pop(name, None)
        if exited is not None:
            exited.set()
        self._refresh([name])

    # --- change detection ------------------------------------------------------------

    def _update_watched_folders(self) -> None:
        self._watcher.set_folders(record.workspace for record in self._registry.records)

    def _workspace_files_changed(self, paths: set[Path]) -> None:
        folders = {path.parent for path in paths} | paths
        self._refresh(
            record.name
            for record in self._registry.records
            if record.workspace in folders or record.workspace.resolve() in folders
        )

    def _refresh_one(self, name: str) -> AgentInfo:
        self._refresh([name])
        return self._infos[name]

    def _refresh(self, names: Iterable[str]) -> None:
        """Recompute the named agents' views and notify listeners of those that changed."""
        for name in names:
            record = self._registry.find(name)
            if record is None:
                continue
            info = build_agent_info(record, alive=self._is_alive(record))
            if info != self._infos.get(name):
                self._infos[name] = info
                self._notify(info, removed=False)

    def _notify(self, info: AgentInfo, *, removed: bool) -> None:
        for listener in list(self._listeners):
            listener(info, removed)


def _ran(status: AgentStatus) -> str:
    """``finished``, ``failed`` or ``stopped``: how a run ended, as a refusal says it."""
    return "finished" if status is AgentStatus.DONE else status.value


async def _wait(event: asyncio.Event, seconds: float) -> bool:
    """Whether ``event`` was set within ``seconds``."""
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except TimeoutError:
        return False
    return True


def _background(coro: Coroutine[Any, Any, None], what: str) -> asyncio.Task[None]:
    """Run ``coro`` as a task whose unexpected death is logged, never silent."""
    task = asyncio.create_task(coro, name=what)
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("%s failed", task.get_name(), exc_info=error)
