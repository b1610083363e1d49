"""Browser verification for coding sessions of a project with a web UI.

Playwright's MCP server (npm ``@playwright/mcp``, pinned) drives the system's Chromium
headless inside the session's sandbox; what it can reach is the sandbox's own loopback,
that is what the session serves itself. The harness installs the server into its own
cache (:mod:`.install`), gives it to coding sessions as a built-in MCP server
(:mod:`.server`), and takes the screenshots it saved into the workspace (:mod:`.screenshots`).
"""
