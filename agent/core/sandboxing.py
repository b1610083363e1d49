"""The agent's choice: sessions in the sandbox, or, only when the spec says so, not.

Where bubblewrap cannot run, an agent whose spec asks for the sandbox (the
default) refuses to start with one line instead of quietly running without it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.core.gates import CommandWrap
from agent.core.log import AgentLog
from agent.core.network_access import HostAccess
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import SessionSandbox, session_sandbox
from agent.sandbox.layout import LayoutKeeper
from agent.sandbox.protected import ProtectedPlaces
from agent.sandbox.relay import kept_environment
from common.errors import SandboxError
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.spec import AgentSpec
from common.workspace import git_jail


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
) -> AsyncIterator[SessionLaunch]:
    """Yield the launch for every session of the run (see :func:`check_sandbox`).

    ``layout`` is the one recorded at project_verification; ``places`` the deny
    list's, taken before the agent dropped ``HARNESS_HOME`` from its environment.
    """
    log(f"git: {git_jail.status()}")
    if bwrap is None:
        log('sandbox: OFF (the spec says "sandbox": false): sessions run unsandboxed')
        yield SessionLaunch(None, dict(model_env))
        return
    places = places or ProtectedPlaces.of_this_process()
    keep = frozenset(spec.sandbox_env)
    async with session_sandbox(
        spec.project_dir,
        bwrap,
        model_env,
        network=spec.sandbox_network,
        layout=layout,
        places=places,
        log=log,
        on_host_refusal=on_host_refusal,
        env_keep=tuple(spec.sandbox_env),
    ) as box:
        network = "host network" if spec.sandbox_network else "no network but the model"
        log(f"sandbox: bubblewrap {bwrap} ({network})")
        left_out = sorted(set(os.environ) - set(kept_environment(dict(os.environ), keep)))
        if left_out:
            log(
                f"sandbox: {len(left_out)} variable(s) of the agent's environment stay outside "
                f"the sessions and gates: {', '.join(left_out)} (name one in the spec's "
                '"sandbox_env" if the project needs it)'
            )
        keeper = LayoutKeeper(spec.project_dir, places, spec.sandbox_network, box.use_layout, log)
        hosts = None if spec.sandbox_network else box
        yield SessionLaunch(box.cli_path, box.env, box.wrap, keeper, box, hosts)
