"""One model session: the SDK client, its tools, hooks, MCP servers, sandbox and prompts."""
