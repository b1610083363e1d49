"""MCP servers of the user's choice: ``mcp_servers`` in the spec or ``.harness.json``.

One entry names a server the CLI starts (``command``: stdio, inside the session's
sandbox, as the CLI's child) or reaches (``url``: HTTP MCP), the session kinds that
get it and the ``host:port`` pairs it may reach through the sandbox's proxy. The
repository's entries are read once, at project_verification, shown to the person and
pinned in the agent state: the model may write that file later.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from common.schemas.base import StrictModel
from common.schemas.sandbox_hosts import HostPort, split_host_port

SessionKind = Literal["initializer", "enrichment", "coding", "mr"]
"""The kinds of session a server can be given to (the prompt templates' names)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
RESERVED_NAMES = frozenset({"harness"})
"""The harness's own in-process server; no entry may take its name (or its tools)."""
BROWSER_SERVER = "browser"
"""The built-in browser server's name (web projects' coding sessions): a user's entry of
that name would be shadowed by it, so the user's lists refuse it."""

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*(?:_[A-Za-z0-9-]+)*")
MAX_NAME = 40


class McpServer(StrictModel):
    """One MCP server and who gets it."""

    name: str
    """Its tools reach the model as ``mcp__<name>__<tool>``: letters, digits, ``-`` and
    single ``_`` (a double one would blur where the tool's name starts)."""
    command: list[str] | None = None
    """The argv of a stdio server, run by the CLI inside the session's sandbox: its
    program must be visible there (under the project or a system folder)."""
    url: str | None = None
    """An HTTP MCP server's URL (``http`` or ``https``)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Variables for a stdio server (on top of the session's)."""
    sessions: tuple[SessionKind, ...] = ("coding",)
    """The session kinds whose model gets the server's tools."""
    hosts: tuple[HostPort, ...] = ()
    """``host:port`` pairs the sandbox may reach for it, in the sessions that have it."""

    @field_validator("name")
    @classmethod
    def _identifier_safe(cls, value: str) -> str:
        if len(value) > MAX_NAME or not _NAME.fullmatch(value):
            raise ValueError(
                f"MCP server name {value!r} must be letters, digits, '-' and single '_', "
                f"starting with a letter, at most {MAX_NAME} characters"
            )
        if value.lower() in RESERVED_NAMES:
            raise ValueError(f"MCP server name {value!r} is the harness's own")
        return value

    @field_validator("command")
    @classmethod
    def _argv(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not all(value)):
            raise ValueError("an MCP server's command is a non-empty list of non-empty strings")
        return value

    @field_validator("url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"an MCP server's url must be http(s)://host/..., not {value!r}")
        return value

    @field_validator("sessions")
    @classmethod
    def _some_kind(cls, value: tuple[SessionKind, ...]) -> tuple[SessionKind, ...]:
        if not value:
            raise ValueError("an MCP server needs at least one session kind in sessions")
        return tuple(dict.fromkeys(value))

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r} needs either command or url (not both)")
        if self.url is not None and self.env:
            raise ValueError(f"MCP server {self.name!r}: env is for a command, not a url")
        return self

    def tool_prefix(self) -> str:
        """``mcp__<name>__``: every tool of this server starts with it."""
        return f"mcp__{self.name}__"

    def reachable(self) -> list[str]:
        """The ``host:port`` pairs the sandbox may reach while a session that has this
        server runs: its ``hosts``, and its URL's host (the CLI connects to it from
        inside, and so can every command of those sessions)."""
        if self.url is None:
            return list(self.hosts)
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        port = parts.port or _DEFAULT_PORTS[parts.scheme]
        host, port = split_host_port(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
        return [*self.hosts, f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]

    def summary(self) -> str:
        """One line for the person (project_verification) and the log: what runs, for
        whom, and what the sandbox may reach meanwhile, as the entry says it (a
        repository's entry is its text: shown escaped where it is shown)."""
        if self.command is not None:
            what = f"runs `{' '.join(self.command)}` in the sandbox"
        else:
            what = f"is reached at {self.url}"
        reach = ", ".join(self.reachable()) or "nothing outside it"
        kinds = ", ".join(self.sessions)
        return (
            f"MCP server {self.name} {what}, for {kinds} sessions; "
            f"while they run, the sandbox may reach {reach}"
        )


def unique_names(servers: list[McpServer]) -> list[McpServer]:
    """``servers`` (a user's list: the spec's or ``.harness.json``'s) when no two share a
    name and none takes the built-in browser's.

    Raises:
        ValueError: the first name given twice, or the browser's.
    """
    seen: set[str] = set()
    for server in servers:
        if server.name.lower() == BROWSER_SERVER:
            raise ValueError(
                f"MCP server name {server.name!r} is the harness's built-in browser's "
                "(a spec with a web section gets it)"
            )
        if server.name in seen:
            raise ValueError(f"MCP server {server.name!r} is named twice")
        seen.add(server.name)
    return servers


def servers_of_kind(servers: tuple[McpServer, ...], kind: str) -> tuple[McpServer, ...]:
    """The servers whose tools a session of ``kind`` gets (pure)."""
    return tuple(server for server in servers if kind in server.sessions)


def combined(*groups: tuple[McpServer, ...] | list[McpServer]) -> tuple[McpServer, ...]:
    """Every group's servers, the first of a name kept (pure): the spec's entry wins over
    the repository's, a built-in server (the browser) over both."""
    kept: dict[str, McpServer] = {}
    for group in groups:
        for server in group:
            kept.setdefault(server.name, server)
    return tuple(kept.values())
