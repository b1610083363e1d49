"""The MCP servers of an agent's sessions: which ones, and how the CLI is told of them.

The spec's ``mcp_servers`` and the repository's ``.harness.json`` ones as a person
approved them at project_verification (pinned in the agent state, never read from
the file again), plus any the harness builds in (the browser). A session gets the
servers of its kind (:func:`agent.core.session.toolset.with_servers`); the CLI starts a stdio
server as its own child, so in a sandboxed session the server runs inside the same
sandbox as the model's commands and reaches what they reach, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable

from claude_agent_sdk.types import McpHttpServerConfig, McpServerConfig, McpStdioServerConfig

from common.schemas.agent_state import AgentState
from common.schemas.mcp_server import McpServer, combined
from common.schemas.spec import AgentSpec


def agent_servers(
    spec: AgentSpec, state: AgentState, built_in: Iterable[McpServer] = ()
) -> tuple[McpServer, ...]:
    """Every MCP server the agent's sessions may get: built in first, then the spec's,
    then the repository's as approved (the first of a name wins)."""
    return combined(tuple(built_in), spec.mcp_servers, state.repo_mcp_servers)


def sdk_config(server: McpServer) -> McpServerConfig:
    """The entry of ``ClaudeAgentOptions.mcp_servers`` for ``server``."""
    if server.command is not None:
        stdio: McpStdioServerConfig = {
            "type": "stdio",
            "command": server.command[0],
            "args": list(server.command[1:]),
        }
        if server.env:
            stdio["env"] = dict(server.env)
        return stdio
    assert server.url is not None  # one transport, checked by the schema
    http: McpHttpServerConfig = {"type": "http", "url": server.url}
    return http


def failed_servers(init_servers: Iterable[object]) -> list[str]:
    """``name (status)`` of each server the CLI's ``init`` message says is not connected
    (pure): its tools are missing from the session, which goes on without them."""
    failed: list[str] = []
    for entry in init_servers:
        if isinstance(entry, dict) and entry.get("status") != "connected":
            failed.append(f"{entry.get('name', '?')} ({entry.get('status', '?')})")
    return failed
