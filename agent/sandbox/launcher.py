"""The sandbox an agent's sessions run in: a CLI wrapper, a scratch home, a model bridge.

Why the harness starts the CLI inside bubblewrap itself (rather than the SDK's
``sandbox`` option, which wraps only the model's Bash commands): the CLI process
is then inside too, the layout is ours (the workspace and ``.git`` read-only,
``HARNESS_HOME`` and the real home absent, a PID namespace per session), and it
needs no socat. See docs/security.md for the measurements.

The SDK starts ``cli_path`` for every session; here that is a small script that
execs the launcher (:mod:`agent.sandbox.enter`: the spec's limits, nothing left behind),
bwrap, the relay and the bundled CLI with the SDK's arguments. Hooks and
SDK MCP tools keep running in the agent, over the CLI's stdio, which bwrap passes
through. Each session is one bwrap with its own PID namespace, so everything it
started ends when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agent.sandbox import overlay as overlays
from agent.sandbox.bridge import model_forward
from agent.sandbox.git_config import shown_configs
from agent.sandbox.host_access import SOCKET_NAME, proxy_port, with_hosts
from agent.sandbox.host_proxy import HostProxy
from agent.sandbox.limits import Entry
from agent.sandbox.plan import Forward, SandboxPlan, bwrap_argv
from agent.sandbox.protected import PRIVATE_PREFIX, ProtectedPlaces, why_denied
from agent.sandbox.session_plan import (
    extra_read_only,
    git_paths,
    hidden,
    session_plan,
    write_wrapper,
)
from common.bwrap import DEFAULT_TMPFS_BYTES
from common.errors import SandboxError
from common.schemas.sandbox_layout import SandboxLayout


@dataclass(frozen=True)
class OwnEntrance:
    """One session's own way to the model endpoint (see :meth:`SessionSandbox.own_entrance`)."""

    socket: Path
    """Where the proxy serves the session's window, in the agent's private folder."""
    cli_path: Path
    """The session's CLI wrapper: the sandbox with ``socket`` as its only forward."""
    plan: SandboxPlan
    """That sandbox's plan."""


@dataclass
class SessionSandbox:
    """What the sessions are given: the CLI to start and the variables to set."""

    cli_path: Path
    """A wrapper that starts the bundled CLI inside bwrap."""
    env: dict[str, str]
    """The CLI's model variables, with the base URL as seen from inside."""
    plan: SandboxPlan
    bwrap: Path
    places: ProtectedPlaces
    log: Callable[[str], None]
    _entrances: int = 0
    """Own entrances handed out (each gets its own socket and wrapper name)."""
    slot_read_only: tuple[Path, ...] = ()
    """The project's own folders a slot's sandbox shows read-only beside its worktree:
    the project's environment (its ``.venv``, which git ignores, so no worktree has it)."""
    hosts: HostProxy | None = None
    """The filtering proxy, the one way to the hosts of ``sandbox_hosts`` (``None``: the
    sandbox shares the host's network)."""
    hosts_forward: Forward | None = None
    """The proxy's forward into the sandbox, in the plan while some host is allowed."""
    entry: Entry | None = None
    """The launcher in front of every bwrap, with the spec's limits (``None``: none, only
    for a benchmark's baseline)."""
    overlays: bool = False
    """Whether a gate can see the work tree as an overlay (:meth:`wrap`'s ``overlay``),
    as probed at the start (:func:`agent.sandbox.overlay.probe`)."""

    def in_work_tree(self, work_tree: Path | None) -> SandboxPlan:
        """The plan for sessions and gates in ``work_tree`` (``None`` or the project's:
        the plan as it is).

        Why: a slot's issue is worked in its own git worktree (parallel issues). Its
        sandbox binds that worktree writable in place of the project, and only it: the
        project's work tree (and every other slot's worktree) is not in it at all. The
        worktree's ``.git`` file, its git folder and the repository's shared one are
        read-only (:func:`git_paths`), as the project's ``.git`` is.
        """
        if work_tree is None or work_tree == self.plan.project_dir:
            return self.plan
        folders = git_paths(work_tree)
        return replace(
            self.plan,
            project_dir=work_tree,
            read_only=(*self.plan.read_only, *self.slot_read_only),
            read_only_in_project=folders,
            hidden_in_project=hidden(work_tree),
            covered_files=shown_configs(work_tree, folders, self.cli_path.parent),
        )

    def wrap(
        self, command: Sequence[str], work_tree: Path | None = None, *, overlay: Path | None = None
    ) -> list[str]:
        """``command`` in the same layout without the model endpoint: for the test gates,
        which run code the model wrote. ``work_tree``: a slot's worktree in place of the
        project (:meth:`in_work_tree`). ``overlay``: an empty folder of the caller's, where
        the work tree's overlay lays out its upper and work folders
        (:mod:`agent.sandbox.overlay`): the gate sees the work tree and cannot change it.

        The home is a fresh empty one (``fresh_home``), like each session's: a home that
        lasted the agent's life is in no commit, so a ``usercustomize.py`` under
        ``~/.local`` or an ``~/.npmrc`` with ``node-options`` a session left there ran at
        every later gate, unseen (measured).

        Raises:
            SandboxError: ``overlay`` where the probe found that none can be made
                (:attr:`overlays`).
        """
        plan = self.in_work_tree(work_tree)
        if overlay is not None:
            if not self.overlays:
                raise SandboxError("a gate's overlay was asked for where none can be made")
            overlays.lay_out(overlay)
        # Nor the browser's output folder: only a session's browser writes there.
        gate = replace(plan, forwards=self._gate_forwards(), writable=(), overlay=overlay)
        return [*self.launcher("gate", gate), *bwrap_argv(gate, self.bwrap, command)]

    def launcher(self, what: str, plan: SandboxPlan) -> list[str]:
        """The launcher in front of a sandbox of ``plan`` (:mod:`agent.sandbox.enter`):
        its limits, its watch of the sandbox's tmpfs mounts, nothing left behind."""
        return [] if self.entry is None else self.entry.argv(what, tmpfs=plan.tmpfs_inside())

    def write_cli(self, wrapper: Path, plan: SandboxPlan) -> None:
        """The CLI wrapper of ``plan``: the launcher, bwrap, the relay and the CLI."""
        sandbox = bwrap_argv(plan, self.bwrap, [str(plan.cli)])
        write_wrapper(wrapper, [*self.launcher("session", plan), *sandbox])

    def own_entrance(self, work_tree: Path | None = None) -> OwnEntrance:
        """A fresh socket path for one session's own model entrance, and a CLI wrapper
        like :attr:`cli_path` whose one way to the endpoint is that socket (at the same
        port inside, so ``ANTHROPIC_BASE_URL`` stays as it is).

        Why: with several sessions at once, what each one's commands send must be
        charged to that session alone. The proxy serves the socket for one window
        (:meth:`agent.core.endpoint.model_proxy.ModelProxy.entrance`); bound into this one
        sandbox, whose network namespace is its own, it is the only endpoint the
        session reaches, and no other session reaches it. ``work_tree``: the session's,
        a slot's worktree in place of the project (:meth:`in_work_tree`).

        Raises:
            SandboxError: the sandbox shares the host's network, where every session
                reaches every port (``"sandbox_network": true``).
        """
        entrances = [f for f in self.plan.forwards if f != self.hosts_forward]
        if self.plan.network or not entrances:
            raise SandboxError(
                "a session's own model entrance needs a sandbox without the host's network: "
                'with "sandbox_network": true every session reaches every other\'s'
            )
        self._entrances += 1
        private = self.cli_path.parent
        socket = private / f"model-{self._entrances}.sock"
        bound = self.in_work_tree(work_tree)
        if bound.writable and work_tree is not None:  # the slot's own browser output
            inside = self.browser_output()
            bound = replace(bound, writable=((self.browser_output_for(work_tree), inside),))
        model = Forward(entrances[0].port, socket)
        plan = replace(bound, forwards=(model, *self._gate_forwards()))
        wrapper = private / f"claude-{self._entrances}"
        self.write_cli(wrapper, plan)
        return OwnEntrance(socket, wrapper, plan)

    def browser_output(self) -> Path:
        """A new empty folder for the browser's output, in the agent's private folder
        (only that folder is bound into the sessions, never the private folder)."""
        folder = self.cli_path.parent / "browser-output"
        folder.mkdir(mode=0o700, exist_ok=True)
        return folder

    def browser_output_for(self, work_tree: Path) -> Path:
        """Where the browser's output of a session in ``work_tree`` lands outside: the
        project's folder (:meth:`browser_output`), or one of a slot's own, so that
        sessions side by side never take each other's screenshots."""
        main = self.browser_output()
        if work_tree == self.plan.project_dir:
            return main
        digest = hashlib.sha256(str(work_tree).encode()).hexdigest()[:12]
        folder = main.with_name(f"{main.name}-{digest}")
        folder.mkdir(mode=0o700, exist_ok=True)
        return folder

    def show_browser(self, read_only: tuple[Path, ...], writable: Path) -> None:
        """Show the browser server's install read-only and its output folder writable in
        every session from now on (the test gates get neither: see :meth:`wrap`).

        The install is the harness's own cache, checked against the deny list like any
        folder the sandbox shows; the output folder is the agent's, made for this run.

        Raises:
            SandboxError: the install lies in a place the deny list keeps out.
        """
        for path in read_only:
            refused = why_denied(Path(os.path.realpath(path)), self.places)
            if refused is not None:
                raise SandboxError(f"the browser's install {path} cannot be shown: {refused}")
        shown = tuple(p for p in read_only if p not in self.plan.read_only)
        self.plan = replace(
            self.plan,
            read_only=(*self.plan.read_only, *shown),
            writable=(*self.plan.writable, (writable, writable)),
        )
        self.write_cli(self.cli_path, self.plan)

    def allow_hosts(
        self,
        entries: tuple[str, ...],
        by_kind: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """From the next session and test gate on, the sandbox reaches exactly ``entries``
        (``host:port``) through the filtering proxy, and ``by_kind[kind]`` too while a
        session of that kind runs (:meth:`hosts_during`); none at all: the proxy's forward
        and variables are left out. Approved at project_verification (or in the spec).

        Raises:
            SandboxError: the sandbox shares the host's network: nothing to filter.
        """
        if self.hosts is None or self.hosts_forward is None:
            raise SandboxError(
                'sandbox_hosts needs the sandbox without the host network ("sandbox_network")'
            )
        self.hosts.allow(entries, by_kind)
        self.plan = with_hosts(self.plan, self.hosts_forward, allowed=self.hosts.any_host())
        self.write_cli(self.cli_path, self.plan)
        self.log(f"sandbox: hosts reachable through the filtering proxy: {self.hosts.shown()}")

    def hosts_during(self, kind: str) -> contextlib.AbstractContextManager[None]:
        """While the block runs (a session of ``kind``), its MCP servers' hosts too."""
        if self.hosts is None:
            return contextlib.nullcontext()
        return self.hosts.during(kind)

    def _gate_forwards(self) -> tuple[Forward, ...]:
        """The forwards a test gate keeps: the proxy's (when in the plan), never the model's."""
        return tuple(f for f in self.plan.forwards if f == self.hosts_forward)

    def use_layout(self, layout: SandboxLayout) -> None:
        """Show ``layout``'s folders (checked again) from the next session and test gate on:
        a person approved it at a checkpoint."""
        read_only = extra_read_only(self.plan.project_dir, layout, self.places, self.log)
        self.plan = replace(self.plan, read_only=read_only)
        self.write_cli(self.cli_path, self.plan)


@contextlib.asynccontextmanager
async def session_sandbox(
    project_dir: Path,
    bwrap: Path,
    model_env: Mapping[str, str],
    *,
    network: bool = False,
    layout: SandboxLayout | None = None,
    places: ProtectedPlaces | None = None,
    log: Callable[[str], None] = lambda _line: None,
    on_host_refusal: Callable[[], None] | None = None,
    entry: Entry | None = None,
    tmpfs_bytes: int = DEFAULT_TMPFS_BYTES,
    env_keep: tuple[str, ...] = (),
) -> AsyncIterator[SessionSandbox]:
    """Prepare the wrapper, the scratch home and the model bridge for every session.

    ``model_env`` holds the CLI's model variables (``ANTHROPIC_BASE_URL`` on the
    host's loopback). Without ``network`` the sandbox has a network namespace of
    its own and the endpoint is reached through the bridge and the relay.
    ``layout`` is the one recorded at project_verification (``None``: no project
    venv folders); ``places`` the deny list's (default: this process's);
    ``on_host_refusal`` is told of each connection the filtering proxy refuses;
    ``entry`` the launcher with the spec's limits, in front of every sandbox;
    ``tmpfs_bytes`` the size of each of the sandbox's RAM-backed folders; ``env_keep``
    names the variables kept inside beyond the sandbox's own list (the spec's
    ``sandbox_env``).
    """
    places = places or ProtectedPlaces.of_this_process()
    private = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))  # short: it holds a Unix socket
    try:
        (private / "home").mkdir(mode=0o700)
        env = dict(model_env)
        async with contextlib.AsyncExitStack() as stack:
            forwards = () if network else await model_forward(stack, private, env, log)
            hosts: HostProxy | None = None
            hosts_forward: Forward | None = None
            if not network:  # the one way out to the hosts of sandbox_hosts, none at first
                proxy = HostProxy(private / SOCKET_NAME, log, on_host_refusal)
                hosts = await stack.enter_async_context(proxy)
                port = proxy_port({forward.port for forward in forwards})
                hosts_forward = Forward(port, hosts.path)
            plan = session_plan(project_dir, private, layout, places, log, network)
            plan = replace(plan, forwards=forwards, tmpfs_bytes=tmpfs_bytes, env_keep=env_keep)
            box = SessionSandbox(
                private / "claude",
                env,
                plan,
                bwrap,
                places,
                log,
                hosts=hosts,
                hosts_forward=hosts_forward,
                entry=entry,
                overlays=await asyncio.to_thread(overlays.usable, bwrap, log),
            )
            box.write_cli(box.cli_path, plan)
            yield box
    finally:
        shutil.rmtree(private, ignore_errors=True)
