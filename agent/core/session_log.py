"""One readable line (or a few) per message of a session, in the agent log.

Every line of the model's text is marked as the model's (:meth:`AgentLog.model`); tool
calls and results are cut to a preview, so a huge tool output never floods the log.
"""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from agent.core.log import AgentLog

_PREVIEW = 300


def log_message(log: AgentLog, message: Any) -> None:
    """One readable line (or a few) per SDK message."""
    if isinstance(message, AssistantMessage):
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                log.model(block.text.strip())  # every line marked as the model's
            elif isinstance(block, ThinkingBlock):
                log.model(_short(block.thinking), "[thinking]")
            elif isinstance(block, ToolUseBlock):
                log.model(f"{block.name} {_short(json.dumps(block.input))}", "[tool]")
    elif isinstance(message, UserMessage) and isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                mark = "error" if block.is_error else "ok"
                log.model(_short(_text(block.content)), f"[result:{mark}]")
    elif isinstance(message, SystemMessage) and message.subtype == "init":
        log(f"[system] session initialised ({message.data.get('model', '?')})")


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return " ".join(str(part.get("text", "")) for part in content)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW else flat[:_PREVIEW] + "…"
