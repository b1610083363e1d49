"""What a sandboxed agent's sessions may reach, and the MCP servers they get, as approved.

Both come from the spec and from the repository's ``.harness.json``. The file is a
repository file the model can write, so its entries are read once, at
project_verification, shown to the person, recorded in the agent state when approved
and never read again (:func:`repo_entries`, :func:`pin`); from then on every session
and test gate uses the approved ones (:func:`apply`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from agent.core import presets
from agent.core.session_retries import Sessions
from common.schemas.agent_state import AgentState
from common.schemas.mcp_server import McpServer, combined
from common.schemas.sandbox_hosts import split_host_port
from common.schemas.spec import AgentSpec

HostsApplier = Callable[[tuple[str, ...]], None]
"""Gives the sandbox's filtering proxy its allowlist (``host:port`` entries)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


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


def url_host(url: str) -> str:
    """``https://mcp.example.com/mcp`` → ``mcp.example.com:443``: what an HTTP MCP
    server's URL needs the sandbox to reach (the CLI, inside, connects to it)."""
    parts = urlsplit(url)
    port = parts.port or _DEFAULT_PORTS[parts.scheme]
    host = parts.hostname or ""
    host, port = split_host_port(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def allowed_hosts(
    spec: AgentSpec, state: AgentState, servers: Iterable[McpServer]
) -> tuple[str, ...]:
    """Every ``host:port`` the sandbox may reach: the spec's, the repository's as
    approved, and each MCP server's (its ``hosts``, and its URL's host) (pure)."""
    hosts = [*spec.sandbox_hosts, *state.repo_sandbox_hosts]
    for server in servers:
        hosts += server.hosts
        if server.url is not None:
            hosts.append(url_host(server.url))
    return tuple(dict.fromkeys(hosts))


def apply(
    sessions: Sessions, spec: AgentSpec, state: AgentState, hosts: HostsApplier | None
) -> None:
    """The approved servers for the sessions from now on, and the allowlist for the
    sandbox (``hosts``: ``None`` when unsandboxed, where nothing filters)."""
    servers = combined(sessions.config.mcp_servers, spec.mcp_servers, state.repo_mcp_servers)
    sessions.config = replace(sessions.config, mcp_servers=servers)
    if hosts is not None:
        hosts(allowed_hosts(spec, state, servers))
