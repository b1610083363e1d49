"""One readable line (or a few) per message of a session, in the agent log.

Every line of the model's text is marked as the model's (:meth:`AgentLog.model`); tool
calls and results are cut to a preview, so a huge tool output never floods the log.
"""

from __future__ import annotations

import json
import re
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
from common.untrusted_text import printable_name

_PREVIEW = 300
_ASCII_BLANKS = re.compile("[ \t\n\r\f\v]+")


def init_line(reported: object, model_name: str | None) -> str:
    """The session's first log line: the model by ``model_name`` when the harness knows
    better than the CLI (the embedded model), else as the CLI ``reported`` it."""
    return f"[system] session initialised ({model_name or reported or '?'})"


def log_message(log: AgentLog, message: Any, model_name: str | None = None) -> None:
    """One readable line (or a few) per SDK message; ``model_name``: see :func:`init_line`."""
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
        log(init_line(message.data.get("model"), model_name))


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return " ".join(str(part.get("text", "")) for part in content)


def _short(text: str) -> str:
    """One line of at most :data:`_PREVIEW` characters. Only ASCII whitespace is folded: a
    tool's output names files, and folding an NBSP or U+3000 into a space would show a
    look-alike name as the plain one; such blanks are escaped instead (``printable_name``)."""
    flat = printable_name(" ".join(_ASCII_BLANKS.split(text)).strip())
    return flat if len(flat) <= _PREVIEW else flat[:_PREVIEW] + "…"
