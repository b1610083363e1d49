"""A session's browser calls, as the regression replay will repeat them."""

from __future__ import annotations

from claude_agent_sdk import AssistantMessage, ToolResultBlock, ToolUseBlock, UserMessage

from agent.core.browser.record import BrowserRecorder
from common.schemas.browser_check import MAX_CALLS


def use(use_id: str, name: str, **given: object) -> AssistantMessage:
    return AssistantMessage(content=[ToolUseBlock(id=use_id, name=name, input=given)], model="m")


def result(use_id: str, *, error: bool = False) -> UserMessage:
    return UserMessage(content=[ToolResultBlock(tool_use_id=use_id, content="x", is_error=error)])


def test_only_page_calls_that_succeeded_are_kept_in_order() -> None:
    recorder = BrowserRecorder()
    for message in [
        use("1", "mcp__browser__browser_navigate", url="http://127.0.0.1:8123/"),
        result("1"),
        use("2", "mcp__browser__browser_take_screenshot"),  # looked at, never replayed
        result("2"),
        use("3", "mcp__browser__browser_click", target="e9"),
        result("3", error=True),  # failed in the session: no check the app passed
        use("4", "Bash", command="ls"),
        result("4"),
        use("5", "mcp__other__browser_snapshot"),  # another server's tool of that name
        result("5"),
        use("6", "mcp__browser__browser_snapshot"),
        result("6"),
    ]:
        recorder.see(message)
    assert [(c.tool, c.input) for c in recorder.calls()] == [
        ("browser_navigate", {"url": "http://127.0.0.1:8123/"}),
        ("browser_snapshot", {}),
    ]


def test_a_session_keeps_at_most_max_calls() -> None:
    recorder = BrowserRecorder()
    for n in range(MAX_CALLS + 5):
        recorder.see(use(str(n), "mcp__browser__browser_snapshot"))
        recorder.see(result(str(n)))
    assert len(recorder.calls()) == MAX_CALLS
