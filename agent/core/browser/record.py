"""Recording a session's browser calls from its message stream, for the regression replay.

Only the calls that act on the page or read it (:data:`REPLAYED`), and only those the
server answered without an error: a failed call of the session is no check the app
passed. Pure: fed the SDK's messages, no IO.
"""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import AssistantMessage, ToolResultBlock, ToolUseBlock, UserMessage

from agent.core.browser.server import REPLAYED, SERVER
from common.schemas.browser_check import MAX_CALLS, BrowserCall

_PREFIX = f"mcp__{SERVER}__"


class BrowserRecorder:
    """The browser calls of one session, in order, kept once their result came back ok."""

    def __init__(self) -> None:
        self._asked: dict[str, BrowserCall] = {}
        self._order: list[str] = []
        self._ok: set[str] = set()

    def see(self, message: Any) -> None:
        """Take note of one SDK message (any kind; only tool uses and results count)."""
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolUseBlock) and block.name.startswith(_PREFIX):
                    tool = block.name.removeprefix(_PREFIX)
                    if tool in REPLAYED and len(self._order) < MAX_CALLS:
                        self._asked[block.id] = BrowserCall(tool=tool, input=dict(block.input))
                        self._order.append(block.id)
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            for result in message.content:
                if isinstance(result, ToolResultBlock) and not result.is_error:
                    self._ok.add(result.tool_use_id)

    def calls(self) -> list[BrowserCall]:
        """The recorded calls that succeeded, in the order the model made them."""
        return [self._asked[use] for use in self._order if use in self._ok]
