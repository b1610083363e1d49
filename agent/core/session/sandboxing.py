"""The agent's choice: sessions in the sandbox, or, only when the spec says so, not; and
the limits every session and gate runs under, either way.

Where bubblewrap cannot run, an agent whose spec asks for the sandbox (the
default) refuses to start with one line instead of quietly running without it.
The limits (:mod:`agent.sandbox.limits`) are probed once at the start: the agent's own
control groups are made and tried, and the log says which limits hold here and which
could not be set.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.core.gates.gates import CommandWrap
from agent.core.log import AgentLog
from agent.sandbox import cgroups, tree_size
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import SessionSandbox, session_sandbox
from agent.sandbox.layout import LayoutKeeper
from agent.sandbox.limits import Entry, machine_limits, shown_kb
from agent.sandbox.protected import ProtectedPlaces
from agent.sandbox.relay import kept_environment
from agent.sandbox.unsandboxed import LimitsWrap, limits_only_cli, private_folder
from common.errors import SandboxError
from common.schemas.limits import DiskBaseline, MachineLimits
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.spec import AgentSpec
from common.workspace import git_jail

BASELINE_SCAN_S = 60.0
"""The time box of the walk that measures the project at the run's start (off the loop)."""
LIMITS_VARIABLE = "HARNESS_LIMITS"
"""``off``: no launcher and no control groups (the limits benchmark's baseline, only)."""
_MB = 1 << 20


class HostAccess(Protocol):
    """The sandbox's filtering proxy, as the run sets it
    (:class:`agent.sandbox.launcher.SessionSandbox`)."""

    def allow_hosts(
        self, entries: tuple[str, ...], by_kind: Mapping[str, tuple[str, ...]] | None = None
    ) -> None:
        """``entries`` reachable always, ``by_kind[kind]`` while such a session runs."""

    def hosts_during(self, kind: str) -> AbstractContextManager[None]:
        """Widens the allowlist by ``kind``'s hosts while the block runs."""


@dataclass(frozen=True)
class SessionLaunch:
    """How the sessions start the CLI: which binary, with which model variables."""

    cli_path: Path | None
    """The sandbox's wrapper, or ``None`` (the bundled CLI, unsandboxed)."""
    env: dict[str, str]
    wrap: CommandWrap | None = None
    """Runs the test gates in the sandbox too (``None``: unsandboxed)."""
    keeper: LayoutKeeper | None = None
    """Compares the recorded layout with the project now (``None``: unsandboxed)."""
    sandbox: SessionSandbox | None = None
    """The sandbox itself: it binds each session's own entrance (``None``: unsandboxed)."""
    host_access: HostAccess | None = None
    """The filtering proxy's allowlist, set by the run (``None``: unsandboxed or on the
    host's network, where there is nothing to filter)."""
    sandboxed: bool = False
    """``cli_path`` starts the CLI in the sandbox (else behind the launcher alone)."""
    limit_reports: Path | None = None
    """A private folder where each session's launcher reports a limit it ended it for
    (``None``: no launcher)."""
    machine: MachineLimits | None = None
    """Which limits hold here and which could not be set (``None``: limits turned off)."""


def check_sandbox(spec: AgentSpec) -> Path | None:
    """The bwrap to use (``None`` when the spec turns the sandbox off).

    Raises:
        SandboxError: the spec wants the sandbox and bubblewrap cannot run here.
    """
    if not spec.sandbox:
        return None
    bwrap = find_bwrap()
    reason = probe(bwrap)
    if reason is not None:
        raise SandboxError(
            f"{reason}; refusing to run the model unsandboxed "
            '(set "sandbox": false in the spec to accept that)'
        )
    assert bwrap is not None
    return bwrap


@contextlib.asynccontextmanager
async def session_launch(
    spec: AgentSpec,
    bwrap: Path | None,
    model_env: Mapping[str, str],
    log: AgentLog,
    layout: SandboxLayout | None = None,
    places: ProtectedPlaces | None = None,
    on_host_refusal: Callable[[], None] | None = None,
    baseline_kb: int | None = None,
) -> AsyncIterator[SessionLaunch]:
    """Yield the launch for every session of the run (see :func:`check_sandbox`).

    ``layout`` is the one recorded at project_verification; ``places`` the deny
    list's, taken before the agent dropped ``HARNESS_HOME`` from its environment;
    ``baseline_kb`` the project's size at the run's start (the disk budget counts from
    it; ``None``: not measured, no budget).
    """
    log(f"git: {git_jail.status()}")
    with agent_limits(spec, bwrap is not None, baseline_kb, log) as (entry, machine):
        if bwrap is None:
            log('sandbox: OFF (the spec says "sandbox": false): sessions run unsandboxed')
            with unsandboxed(entry, model_env, machine) as launch:
                yield launch
            return
        places = places or ProtectedPlaces.of_this_process()
        async with session_sandbox(
            spec.project_dir,
            bwrap,
            model_env,
            network=spec.sandbox_network,
            layout=layout,
            places=places,
            log=log,
            on_host_refusal=on_host_refusal,
            entry=entry,
            tmpfs_bytes=spec.limits.tmpfs_mb * _MB,
            env_keep=tuple(spec.sandbox_env),
        ) as box:
            network = "host network" if spec.sandbox_network else "no network but the model"
            log(f"sandbox: bubblewrap {bwrap} ({network})")
            _say_left_out(spec, log)
            keeper = LayoutKeeper(
                spec.project_dir, places, spec.sandbox_network, box.use_layout, log
            )
            hosts = None if spec.sandbox_network else box
            reports = box.cli_path.parent if entry is not None else None
            yield SessionLaunch(
                box.cli_path,
                box.env,
                box.wrap,
                keeper,
                box,
                hosts,
                sandboxed=True,
                limit_reports=reports,
                machine=machine,
            )


def _say_left_out(spec: AgentSpec, log: AgentLog) -> None:
    """Name (never show) the variables of the agent's environment the sandbox leaves out
    (:func:`agent.sandbox.relay.kept_environment`), so a person can pass one the project's
    tests need with the spec's ``sandbox_env``."""
    kept = kept_environment(dict(os.environ), frozenset(spec.sandbox_env))
    left_out = sorted(set(os.environ) - set(kept))
    if left_out:
        log(
            f"sandbox: {len(left_out)} variable(s) of the agent's environment stay outside "
            f"the sessions and gates: {', '.join(left_out)} (name one in the spec's "
            '"sandbox_env" if the project needs it)'
        )


@contextlib.contextmanager
def unsandboxed(
    entry: Entry | None, model_env: Mapping[str, str], machine: MachineLimits | None
) -> Iterator[SessionLaunch]:
    """The launch without the sandbox: the launcher alone in front of the bundled CLI and
    the gates (nothing at all with the limits turned off)."""
    if entry is None:
        yield SessionLaunch(None, dict(model_env))
        return
    with private_folder() as private:
        cli = limits_only_cli(entry, private)
        yield SessionLaunch(
            cli, dict(model_env), LimitsWrap(entry), limit_reports=private, machine=machine
        )


@contextlib.contextmanager
def agent_limits(
    spec: AgentSpec, sandboxed: bool, baseline_kb: int | None, log: AgentLog
) -> Iterator[tuple[Entry | None, MachineLimits | None]]:
    """The launcher's entry with the spec's limits and what holds of them here, the
    agent's control groups made (one probe) and removed when the block ends.

    ``HARNESS_LIMITS=off`` gives neither (a benchmark's baseline: it says so)."""
    if os.environ.get(LIMITS_VARIABLE) == "off":
        log(f"limits: OFF ({LIMITS_VARIABLE}=off, for a benchmark's baseline only)")
        yield None, None
        return
    found = cgroups.prepare(spec.limits)
    try:
        machine = machine_limits(spec.limits, found, sandboxed=sandboxed, baseline_kb=baseline_kb)
        log(f"limits: {'; '.join(machine.held)}")
        for line in machine.not_set:
            log(f"limits: not set here: {line}")
        yield Entry.for_agent(spec.limits, found, baseline_kb), machine
    finally:
        found.release()


def disk_baseline(project: Path, log: AgentLog) -> DiskBaseline | None:
    """The project's size now, for the disk budget (``None``, said in one line, when the
    walk cannot finish in :data:`BASELINE_SCAN_S`: a partial count would make the budget
    smaller than the spec's)."""
    found = tree_size.scan(str(project), deadline_s=BASELINE_SCAN_S)
    if not found.complete:
        log(f"limits: the project is too large to measure in {BASELINE_SCAN_S:g} s: no disk budget")
        return None
    log(f"limits: the project takes {shown_kb(found.kb)} at the run's start")
    return DiskBaseline(kb=found.kb)
