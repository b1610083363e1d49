"""A "trace playbook": answers a replayed session's requests with the recorded answers.

Like the playbook, it is keyed by the request itself, not by arrival order: a
request carrying ``k`` assistant turns gets the answer recorded for the request
that carried ``k`` (requests without tools, the CLI's utility calls, get the
recorded ones in turn). So retries and side requests replay cleanly. Paths of the
recorded project are rewritten to the replay's copy of it, so a replay never
touches the original.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from agent.model.playbook import Reply, TextBlock, ToolUseBlock, step_index
from common.schemas.trace import ModelRequest

NO_ANSWER = "replay: the recording has no answer for this request"


def rewrite(value: Any, paths: Mapping[str, str]) -> Any:
    """Every string in ``value`` with each ``paths`` key replaced by its value (recursively)."""
    if isinstance(value, str):
        for old, new in paths.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [rewrite(item, paths) for item in value]
    if isinstance(value, dict):
        return {key: rewrite(item, paths) for key, item in value.items()}
    return value


def to_reply(content: Sequence[dict[str, Any]], paths: Mapping[str, str]) -> Reply:
    """A recorded answer as a playbook reply: text and tool_use blocks (thinking is dropped:
    its signature would not verify)."""
    blocks: list[TextBlock | ToolUseBlock] = []
    for block in content:
        if block.get("type") == "text" and block.get("text"):
            blocks.append(TextBlock(text=rewrite(str(block["text"]), paths)))
        elif block.get("type") == "tool_use":
            blocks.append(
                ToolUseBlock(
                    id=str(block.get("id")),
                    name=str(block.get("name")),
                    input=rewrite(dict(block.get("input") or {}), paths),
                )
            )
    return Reply(content=blocks or [TextBlock(text="")], scenario="trace")


class TraceAnswers:
    """Answers from one recorded session; remembers requests it had no answer for."""

    def __init__(self, requests: Sequence[ModelRequest], paths: Mapping[str, str]) -> None:
        self.paths = dict(paths)
        self.by_step: dict[int, ModelRequest] = {}
        self.plain: list[ModelRequest] = []
        for request in requests:
            if request.status != 200:
                continue  # a failed attempt the CLI retried: its retry holds the answer
            if request.has_tools:
                self.by_step.setdefault(request.step, request)
            else:
                self.plain.append(request)
        self.missing: list[int] = []
        """Steps asked for that the recording lacks."""
        self._plain_served = 0
        self._lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> Reply:
        """The recorded answer to ``request`` (see the module docstring)."""
        if not request.get("tools"):
            with self._lock:
                index, self._plain_served = self._plain_served, self._plain_served + 1
            if index < len(self.plain):
                return to_reply(self.plain[index].content, self.paths)
            return Reply(content=[TextBlock(text="OK")])
        step = step_index(request)
        recorded = self.by_step.get(step)
        if recorded is None:
            with self._lock:
                self.missing.append(step)
            return Reply(content=[TextBlock(text=NO_ANSWER)])
        return to_reply(recorded.content, self.paths)
