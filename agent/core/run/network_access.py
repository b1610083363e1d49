"""What a sandboxed agent's sessions may reach, and the MCP servers they get, as approved.

Both come from the spec and from the repository's ``.harness.json``. The file is a
repository file the model can write, so its entries are read once, at
project_verification, shown to the person, recorded in the agent state when approved
and never read again (:func:`repo_entries`; the state's ``repo_sandbox_hosts`` and
``repo_mcp_servers``); from then on every session and test gate uses the approved ones
(:func:`apply`). The hosts of ``sandbox_hosts`` are reachable from every session and
test gate; an MCP server's hosts only while a session of its kinds runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from agent.core.gates import presets
from agent.core.run.session_retries import Sessions
from agent.core.session.sandboxing import HostAccess
from common.schemas.agent_state import AgentState
from common.schemas.mcp_server import McpServer, combined
from common.schemas.spec import AgentSpec


def repo_entries(project_dir: Path) -> tuple[list[str], list[McpServer]]:
    """``.harness.json``'s ``sandbox_hosts`` and ``mcp_servers`` as the file says now,
    to be shown at project_verification (empty when it has none).

    Raises:
        ProjectSettingsError: the file is malformed (one line).
    """
    repo = presets.load_repo_settings(project_dir)
    if repo is None:
        return [], []
    return list(repo.sandbox_hosts), list(repo.mcp_servers)


def unseen_paths(server: McpServer, project_dir: Path, visible: Iterable[Path]) -> list[str]:
    """The absolute paths in a stdio server's command that its sandbox does not show
    (pure): the CLI starts it inside, where only the project, the system folders and the
    recorded layout exist, so a program under the home would fail to start there.
    A bare name is looked up on the sandbox's ``PATH`` and a relative path is the
    project's: neither is judged here."""
    roots = [project_dir.absolute(), *(Path(root) for root in visible)]
    unseen: list[str] = []
    for word in server.command or []:
        if not word.startswith("/"):
            continue
        path = Path(word)
        if not any(path == root or path.is_relative_to(root) for root in roots):
            unseen.append(word)
    return unseen


def allowed_hosts(spec: AgentSpec, state: AgentState) -> tuple[str, ...]:
    """The ``host:port`` pairs every session and test gate may reach: the spec's and the
    repository's as approved (pure)."""
    return tuple(dict.fromkeys([*spec.sandbox_hosts, *state.repo_sandbox_hosts]))


def hosts_by_kind(servers: Iterable[McpServer]) -> dict[str, tuple[str, ...]]:
    """Per session kind, the hosts its MCP servers need (pure): reachable only while a
    session of that kind runs (:meth:`HostAccess.hosts_during`)."""
    by_kind: dict[str, list[str]] = {}
    for server in servers:
        for kind in server.sessions:
            by_kind.setdefault(kind, []).extend(server.reachable())
    return {kind: tuple(dict.fromkeys(hosts)) for kind, hosts in by_kind.items() if hosts}


def apply(
    sessions: Sessions, spec: AgentSpec, state: AgentState, access: HostAccess | None
) -> None:
    """The approved servers for the sessions from now on, and the allowlist for the
    sandbox (``access``: ``None`` when unsandboxed or on the host's network, where
    nothing filters): the hosts of ``sandbox_hosts`` always, each kind's servers' hosts
    while a session of that kind runs."""
    servers = combined(sessions.config.mcp_servers, spec.mcp_servers, state.repo_mcp_servers)
    scope = access.hosts_during if access is not None else None
    sessions.config = replace(sessions.config, mcp_servers=servers, host_scope=scope)
    if access is not None:
        access.allow_hosts(allowed_hosts(spec, state), hosts_by_kind(servers))
