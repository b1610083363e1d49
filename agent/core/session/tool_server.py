"""The harness's tools as an in-process MCP server whose only judge of an input is the tool.

Why not the SDK's ``create_sdk_mcp_server``: it checks every call against the tool's JSON
schema first (``jsonschema.validate``) and answers a failure with jsonschema's own message,
which quotes the value: a 140 KB summary over the summary's ``maxLength`` came back whole
into the model's session ("Input validation error: 'AAAA…' is too long"), and so would any
value of the wrong type. The schema still goes to the model as it is (types and maxima
tell an honest model what fits), but the input is judged once, by the tool's own pydantic
model (:mod:`agent.core.session.tools`), whose refusal names the field and its maximum and never
the value.

The server is built with the SDK's own helper for the installed ``mcp`` (the SDK is pinned
exactly: ``requirements.txt``), as the SDK documents for bringing one's own server
(``McpSdkServerConfig(type="sdk", instance=…)``); a tool that raises is one short error
result, as the SDK's would be.
"""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import McpSdkServerConfig, SdkMcpTool
from claude_agent_sdk._internal._mcp_compat import build_tool_server
from mcp.types import CallToolResult, Tool

from common.untrusted_text import printable_line

VERSION = "1.0.0"
ERROR_CHARS = 300
"""Most characters of a tool's exception told to the model."""


def server(name: str, tools: list[SdkMcpTool[Any]]) -> McpSdkServerConfig:
    """``tools`` served in-process as ``name``, each input judged by its handler alone."""
    by_name = {tool.name: tool for tool in tools}
    listed = [
        Tool.model_validate(
            {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
        )
        for tool in tools
    ]

    async def run_tool(tool_name: str, arguments: dict[str, Any]) -> CallToolResult:
        found = by_name.get(tool_name)
        if found is None:
            return _error(f"no tool named {printable_line(tool_name)[:80]}")
        try:
            result = await found.handler(arguments)
        except Exception as e:  # the SDK's contract: a failing tool is an error result
            return _error(f"{type(e).__name__}: {printable_line(str(e))[:ERROR_CHARS]}")
        texts = [part for part in result.get("content", []) if part.get("type") == "text"]
        return CallToolResult.model_validate(
            {
                "content": [{"type": "text", "text": part["text"]} for part in texts],
                "isError": bool(result.get("is_error", False)),
            }
        )

    instance = build_tool_server(name, VERSION, listed, run_tool)
    return McpSdkServerConfig(type="sdk", name=name, instance=instance)


def _error(text: str) -> CallToolResult:
    return CallToolResult.model_validate(
        {"content": [{"type": "text", "text": text}], "isError": True}
    )
