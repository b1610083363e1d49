"""Which tools each kind of session gets, and the check that the CLI offers exactly those.

The tool set is passed to the CLI as ``tools=`` (not only as ``allowed_tools``):
without it the CLI sends every tool it knows with its full definition (Agent,
Workflow, Skill, … 35–52 KB per request, plus skill and agent listings) and, for a
real model name, hides our MCP tools behind ToolSearch. With an exact set the
MCP tools are offered directly and the first request stays under 30 KB.

Each kind gets the least it needs. Sessions that only read the project and
report (initializer, enrichment) get no Bash, Write or Edit: Bash's definition
alone is 12.6 KB, and a session that must not change files had better not be
able to. Sessions with Bash get no Grep (3.7 KB; ``grep`` runs in Bash): with
it the demo's coding sessions measured 29.1–29.6 KB, too close to the 30 KB
budget for issues longer than the demo's; without it 25.5–26.0 KB.

The CLI drops names it does not know without a word (``MultiEdit`` and
``TodoWrite`` were in the harness's list and never existed in this CLI), so the
names offered are checked against what the CLI reports in its ``init`` message.

MCP servers of the user's choice (``mcp_servers`` in the spec or ``.harness.json``)
add their tools to the sessions of the kinds they name. Their tool names are known
only when the CLI has started them, so the check accepts any ``mcp__<server>__*``
of a server the session was given, and ``allowed_tools`` names each such server
(``mcp__<server>``: measured, the CLI then lets each of its tools run once the
hooks allowed it; without it the call is refused as never granted).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from common.errors import SessionError
from common.schemas.mcp_server import McpServer, servers_of_kind

SERVER_NAME = "harness"
"""The in-process MCP server's name; its tools reach the model as ``mcp__harness__<tool>``."""

READ_ONLY = ("Read", "Glob", "Grep")
CODING = ("Read", "Write", "Edit", "Bash", "Glob")


def mcp_name(tool: str) -> str:
    """``propose_issues`` → ``mcp__harness__propose_issues``, as the model sees it."""
    return f"mcp__{SERVER_NAME}__{tool}"


@dataclass(frozen=True)
class ToolSurface:
    """The built-in tools and harness tools one session is given, nothing else."""

    builtin: tuple[str, ...]
    """Built-in CLI tools, passed as ``tools=``."""
    harness: tuple[str, ...]
    """Harness MCP tools by short name (``propose_issues``)."""
    servers: tuple[McpServer, ...] = ()
    """MCP servers of the user's choice (or built in, such as the browser) whose every
    tool the session is offered."""

    def harness_names(self) -> list[str]:
        """The harness tools as the model sees them."""
        return [mcp_name(tool) for tool in self.harness]

    def names(self) -> list[str]:
        """Every tool name the session is offered and allowed to call."""
        return [*self.builtin, *self.harness_names()]

    def server_prefixes(self) -> list[str]:
        """``mcp__<server>__`` of each server the session is given: its tools' names."""
        return [server.tool_prefix() for server in self.servers]

    def allowed(self) -> list[str]:
        """What ``allowed_tools`` takes: every named tool, and each server as a whole
        (``mcp__<server>``), whose tool names only the server knows."""
        return [*self.names(), *(f"mcp__{server.name}" for server in self.servers)]

    def without_servers(self) -> ToolSurface:
        """The same surface with no MCP server of the user's: what the session kind is."""
        return ToolSurface(self.builtin, self.harness)


SURFACES: dict[str, ToolSurface] = {
    "initializer": ToolSurface(READ_ONLY, ("propose_issues",)),
    "enrichment": ToolSurface(READ_ONLY, ("enrich_issue",)),
    "coding": ToolSurface(CODING, ("report_issue_done", "record_handoff")),
    "mr": ToolSurface(("Read", "Glob", "Bash"), ("propose_merge_request",)),
}
"""Session kind (the prompt template's name) → its tools."""

RESEARCH_TOOLS = ("web_search", "library_docs")
"""The harness tools that call an outside service (:mod:`agent.core.session.research`)."""
RESEARCH_KINDS = frozenset({"enrichment"})
"""Session kinds that get the research tools (``web_search``, ``library_docs``) when the
agent has the services configured: research only, no session that writes code."""


def with_research(kind: str, surface: ToolSurface, research: Iterable[str]) -> ToolSurface:
    """``surface`` with the configured research tools added when ``kind`` may research."""
    extra = tuple(research) if kind in RESEARCH_KINDS else ()
    return ToolSurface(surface.builtin, (*surface.harness, *extra)) if extra else surface


def with_servers(kind: str, surface: ToolSurface, servers: Iterable[McpServer]) -> ToolSurface:
    """``surface`` with the MCP servers a session of ``kind`` gets (pure)."""
    given = servers_of_kind(tuple(servers), kind)
    if not given:
        return surface
    return ToolSurface(surface.builtin, surface.harness, (*surface.servers, *given))


FULL_SURFACE = ToolSurface(
    (*CODING, "Grep"),
    (
        "propose_issues",
        "enrich_issue",
        "record_handoff",
        "report_issue_done",
        "propose_merge_request",
    ),
)
"""Every tool the harness knows: for a session whose kind is not given."""


def surface_for(kind: str) -> ToolSurface:
    """The tool surface of one session kind.

    Raises:
        SessionError: no surface is defined for ``kind`` (a new prompt template
            needs an entry in :data:`SURFACES`).
    """
    try:
        return SURFACES[kind]
    except KeyError:
        known = ", ".join(sorted(SURFACES))
        raise SessionError(f"no tool set for session kind {kind!r} (known: {known})") from None


def missing_tools(wanted: Iterable[str], offered: Iterable[str]) -> list[str]:
    """The wanted names the CLI does not offer, in the order they were wanted (pure)."""
    available = set(offered)
    return [name for name in wanted if name not in available]


def unexpected_tools(
    wanted: Iterable[str], offered: Iterable[str], prefixes: Iterable[str] = ()
) -> list[str]:
    """The offered names nobody asked for, in the CLI's order (pure); a name under one
    of ``prefixes`` (``mcp__<server>__`` of a server the session was given) was asked for."""
    asked = set(wanted)
    starts = tuple(prefixes)
    return [name for name in offered if name not in asked and not name.startswith(starts)]


def check_offered(
    label: str, wanted: Iterable[str], offered: Iterable[str], prefixes: Iterable[str] = ()
) -> None:
    """Fail the session when the CLI offers a different tool set from the one asked for.
    ``prefixes``: the tool-name prefixes of the MCP servers the session was given (any
    tool of theirs is expected; none is required, a server may offer none).

    Raises:
        SessionError: names the tools the CLI lacks, or the extra ones it offers.
    """
    wanted, offered = list(wanted), list(offered)
    missing = missing_tools(wanted, offered)
    if missing:
        raise SessionError(
            f"session {label}: the Claude CLI does not offer {', '.join(missing)} "
            f"(it offers {', '.join(offered) or 'no tools'})"
        )
    extra = unexpected_tools(wanted, offered, prefixes)
    if extra:
        raise SessionError(
            f"session {label}: the Claude CLI offers tools the harness did not ask for: "
            f"{', '.join(extra)}"
        )
