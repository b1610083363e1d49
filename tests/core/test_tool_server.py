"""The harness's MCP server, reached in-process as the CLI reaches it: the schema the model
sees carries the maxima, and every input is judged by its tool alone, so a refused value
(too long, of the wrong type) is never echoed back."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import SdkMcpTool, tool
from mcp import Client

from agent.core.session import tool_server
from agent.core.session.tools import DONE_SUMMARY_CHARS, SessionReports
from agent.core.session.toolset import surface_for

HUGE = "A" * 140_000


def text_of(result: Any) -> str:
    (part,) = result.content
    assert isinstance(part.text, str)
    return part.text


async def test_the_model_sees_the_maxima_and_a_refusal_quotes_no_value() -> None:
    reports = SessionReports(expected_issue=1, surface=surface_for("coding"))
    async with Client(reports.server()["instance"]) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        summary = listed["report_issue_done"].input_schema["properties"]["summary"]
        assert summary["maxLength"] == DONE_SUMMARY_CHARS

        too_long = await client.call_tool("report_issue_done", {"issue_iid": 1, "summary": HUGE})
        wrong_type = await client.call_tool(
            "report_issue_done", {"issue_iid": "B" * 10_000, "summary": "x"}
        )
        honest = await client.call_tool("report_issue_done", {"issue_iid": 1, "summary": "ok"})

    assert too_long.is_error and wrong_type.is_error and not honest.is_error
    assert text_of(too_long) == (
        "invalid input for report_issue_done: summary: "
        f"String should have at most {DONE_SUMMARY_CHARS} characters"
    )
    assert "BBBB" not in text_of(wrong_type) and len(text_of(wrong_type)) < 200
    assert reports.done is not None and reports.done.summary == "ok"


async def test_a_tool_that_raises_is_one_short_error() -> None:
    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom\n" + "x" * 10_000)

    failing: SdkMcpTool[Any] = tool("fails", "Always fails.", {"type": "object", "properties": {}})(
        handler
    )
    async with Client(tool_server.server("t", [failing])["instance"]) as client:
        raised = await client.call_tool("fails", {})
        unknown = await client.call_tool("nothing", {})

    assert raised.is_error and text_of(raised).startswith("RuntimeError: boom\\nxxx")
    assert len(text_of(raised)) < tool_server.ERROR_CHARS + 40
    assert unknown.is_error and text_of(unknown) == "no tool named nothing"
