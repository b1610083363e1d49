"""Quality checks beyond the test suite: which ones run, as the spec or the repository says.

The harness detects a preset per ecosystem (``agent.core.gates.presets``); these settings
change it. They come from the spec (``quality``) or from the target repository's
``.harness.json`` (``{"quality": {...}}``); the spec wins.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from common.schemas.base import StrictModel
from common.schemas.mcp_server import McpServer, unique_names
from common.schemas.notify import NotifyTargets
from common.schemas.outbound import OutboundSettings
from common.schemas.sandbox_hosts import HostPort

SETTINGS_FILE = ".harness.json"
"""The harness's settings file in the target repository."""


class QualitySettings(StrictModel):
    """Overrides of the detected quality preset."""

    presets: bool = True
    """Detect the ecosystem's checks (lint, type check); ``False`` runs only ``checks``."""
    checks: dict[str, str | None] = Field(default_factory=dict)
    """Check name → shell command; a name the preset has is replaced, ``null`` turns it
    off, a new name is added (e.g. ``{"lint": "ruff check src", "types": null}``)."""


class RepoSettings(StrictModel):
    """``.harness.json`` in the target repository."""

    quality: QualitySettings | None = None
    outbound: OutboundSettings | None = None
    """Protected paths and limits of the outbound review (read once, at
    project_verification: the model may write this file later)."""
    notify: NotifyTargets | None = None
    """The project's webhook (read once, at project_verification, and used only as the
    person approved it there; the spec's ``notify`` wins)."""
    sandbox_hosts: list[HostPort] = Field(default_factory=list)
    """``host:port`` pairs the sandbox may reach (read once, at project_verification,
    shown to the person and used only as approved there)."""
    mcp_servers: list[McpServer] = Field(default_factory=list)
    """MCP servers for the sessions (read once, at project_verification, shown and used
    only as approved there; the spec's entry of the same name wins)."""

    @field_validator("mcp_servers")
    @classmethod
    def _unique_servers(cls, value: list[McpServer]) -> list[McpServer]:
        return unique_names(value)
