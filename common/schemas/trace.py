"""One line of an agent's trace (``trace.jsonl`` in its workspace), one model per event kind.

The trace is what an agent did, in order, with figures: sessions, each model
request and its answer, tool calls and results (redacted), policy decisions,
gate runs, commits, checkpoints and decisions. ``harness trace`` shows it and
``harness replay`` answers a session's requests from it, so the answers are
kept whole (content blocks), not only their sizes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from common.schemas.base import StrictModel, utc_now

TRACE_SCHEMA_VERSION = 1


class _Event(StrictModel):
    at: datetime = Field(default_factory=utc_now)
    """When the event happened (UTC)."""
    session: int | None = None
    """The agent's session (1-based, counted over the whole trace) it belongs to;
    ``None`` for the harness's own events (gates, commits, checkpoints). Sessions that
    run at the same time interleave their events: this, not the order, tells them apart."""


class SessionStart(_Event):
    """A session begins: everything needed to run its harness side again."""

    type: Literal["session_start"] = "session_start"
    schema_version: int = TRACE_SCHEMA_VERSION
    label: str
    """The session's label (``coding issue #2``)."""
    kind: str | None = None
    """The session kind (prompt template) whose tool surface it had, when known."""
    builtin_tools: list[str]
    harness_tools: list[str]
    """The tool surface: built-in tools and harness MCP tools by short name."""
    mcp_servers: list[str] = Field(default_factory=list)
    """The MCP servers of the user's (or built in) the session was given, by name."""
    expected_issue: int | None = None
    system_prompt: str
    prompt: str
    model: str | None = None
    project_dir: str
    head: str | None = None
    """The project's commit when the session began (``None`` outside a git repository)."""
    dirty: bool = False
    """Whether the work tree had uncommitted changes then (a replay starts from ``head``)."""


class ModelRequest(_Event):
    """One ``/v1/messages`` request and the answer to it."""

    type: Literal["model_request"] = "model_request"
    index: int = Field(ge=1)
    """The request's position among its session's requests (1-based); requests of no
    session (the endpoint probe) are counted among themselves."""
    step: int = Field(ge=0)
    """Assistant turns the request already carried: the same key the playbook uses."""
    has_tools: bool
    request_bytes: int
    system_bytes: int
    messages_bytes: int
    tools_bytes: int
    message_count: int
    tool_names: list[str] = Field(default_factory=list)
    system_sha: str = ""
    """SHA-256 (16 hex digits) of the system prompt: a changed prompt shows in a replay."""
    status: int
    """The HTTP status of the answer."""
    stop_reason: str | None = None
    content: list[dict[str, Any]] = Field(default_factory=list)
    """The answer's content blocks (text, tool_use, thinking), strings redacted."""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    duration_ms: int = 0
    cost_usd: float | None = None
    """What the agent's model endpoint charged the session for it (``None``: not metered)."""


class ToolCall(_Event):
    """The model called a tool (as the SDK reported it)."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any]
    """The input, strings redacted."""


class ToolResult(_Event):
    """What the tool answered (the CLI ran it, or a hook refused it)."""

    type: Literal["tool_result"] = "tool_result"
    id: str
    is_error: bool
    preview: str
    """The first characters of the result, redacted."""
    chars: int
    """The whole result's length."""


class PolicyDecision(_Event):
    """The PreToolUse policy's answer for one tool call."""

    type: Literal["policy"] = "policy"
    tool: str
    decision: Literal["allow", "deny"]
    reason: str | None = None


class SessionEnd(_Event):
    """A session ended: its figures, what it reported and the files it wrote."""

    type: Literal["session_end"] = "session_end"
    label: str
    error: str | None = None
    """Why the session failed; ``None`` when it ended normally."""
    turns: int = 0
    cost_usd: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    duration_ms: int = 0
    denials: int = 0
    touched: list[str] = Field(default_factory=list)
    reports: list[str] = Field(default_factory=list)
    """The harness tools the model called, in order (:attr:`SessionReports.calls`)."""


class GateRun(_Event):
    """The harness ran a gate (the project's test command)."""

    type: Literal["gate"] = "gate"
    command: str
    exit_code: int
    summary: str
    duration_s: float
    reused: bool = False
    """The work tree had not changed since the last run, whose result was reused."""


class CommitMade(_Event):
    """The harness committed the session's work."""

    type: Literal["commit"] = "commit"
    sha: str
    subject: str
    files: int


class ScreenshotTaken(_Event):
    """The harness took a screenshot the session's browser saved into the workspace."""

    type: Literal["screenshot"] = "screenshot"
    issue: int
    path: str
    """Where it is now, in the workspace (the harness's name for it)."""
    width: int
    height: int


class CheckpointOpened(_Event):
    """A checkpoint was opened (or found again after a restart)."""

    type: Literal["checkpoint"] = "checkpoint"
    id: str
    kind: str


class DecisionMade(_Event):
    """A checkpoint was decided."""

    type: Literal["decision"] = "decision"
    checkpoint: str
    approved: bool
    by: str
    choice: str | None = None
    reason: str | None = None


TraceEvent = Annotated[
    SessionStart
    | ModelRequest
    | ToolCall
    | ToolResult
    | PolicyDecision
    | SessionEnd
    | GateRun
    | CommitMade
    | ScreenshotTaken
    | CheckpointOpened
    | DecisionMade,
    Field(discriminator="type"),
]
TRACE_EVENT: TypeAdapter[TraceEvent] = TypeAdapter(TraceEvent)
"""Parses one trace line into its event model."""
