"""One request the embedded model received, as the request recorder writes it (JSONL)."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class RequestRecord(StrictModel):
    """One request as the server received it."""

    total_bytes: int
    """The request body's size on the wire."""
    system_bytes: int
    """The ``system`` field, serialised compactly (UTF-8)."""
    messages_bytes: int
    """The ``messages`` field, serialised compactly (UTF-8)."""
    tools_bytes: int
    """The ``tools`` field, serialised compactly (UTF-8); 0 without tools."""
    tool_names: list[str] = Field(default_factory=list)
    """The names of the tools offered, in order."""
    tool_calls: list[str] = Field(default_factory=list)
    """Names of the tool calls in the assistant turns this request carries, in order."""
    message_count: int
    """How many messages the request carries (1 on a session's first request)."""
    model: str
    """The model name the client asked for."""
