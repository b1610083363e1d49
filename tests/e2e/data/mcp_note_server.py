"""A tiny stdio MCP server (standard library only): one tool, ``write_note``.

Newline-delimited JSON-RPC on stdin/stdout, as MCP's stdio transport speaks it. The
tool appends its text to ``notes.txt`` in the server's working folder and answers with
that folder and its own pid, so a test sees where it ran (the sandbox's PID namespace
numbers from 1).
"""

import json
import os
import sys
from pathlib import Path
from typing import Any

TOOLS = [
    {
        "name": "write_note",
        "description": "Append a line to notes.txt in the working folder.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }
]


def answer(request: dict[str, Any]) -> dict[str, Any]:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "notes", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        text = str((params.get("arguments") or {}).get("text", ""))
        with Path("notes.txt").open("a") as f:
            f.write(text + "\n")
        where = f"noted in {Path.cwd()}/notes.txt pid {os.getpid()}"
        return {"content": [{"type": "text", "text": where}]}
    if method == "ping":
        return {}
    raise KeyError(method)


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request:
            continue
        try:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}
        except KeyError as e:
            error = {"code": -32601, "message": f"no method {e}"}
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": error}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
