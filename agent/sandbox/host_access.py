"""What a sandbox plan gains when some hosts are allowed: the proxy's forward and variables.

Pure. The filtering proxy (:mod:`agent.sandbox.host_proxy`) listens on a Unix socket
outside; inside, the relay serves it on a loopback port, and the proxy variables
send every HTTP client that honours them there (pip, requests, urllib, curl, git,
npm's fetch, the CLI for an HTTP MCP server). ``NO_PROXY`` keeps the sandbox's own
loopback direct: the model entrance, and the app a session serves itself.
"""

from __future__ import annotations

from dataclasses import replace

from agent.sandbox.plan import Forward, SandboxPlan

PROXY_PORT = 3128
"""The proxy's port on the sandbox's loopback (the next one if the model's is this)."""
SOCKET_NAME = "hosts.sock"
NO_PROXY = "127.0.0.1,localhost,::1"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


def proxy_port(taken: set[int]) -> int:
    """The first port from :data:`PROXY_PORT` up that no other forward uses inside."""
    port = PROXY_PORT
    while port in taken:
        port += 1
    return port


def proxy_env(port: int) -> dict[str, str]:
    """The variables that lead HTTP clients inside to the proxy at ``port``."""
    url = f"http://127.0.0.1:{port}"
    return {
        **dict.fromkeys(PROXY_VARIABLES, url),
        "NO_PROXY": NO_PROXY,
        "no_proxy": NO_PROXY,
    }


def with_hosts(plan: SandboxPlan, forward: Forward, *, allowed: bool) -> SandboxPlan:
    """``plan`` with the proxy's forward and variables when some host is ``allowed``,
    without them otherwise (a sandbox that may reach no host has no way out to show)."""
    forwards = tuple(f for f in plan.forwards if f != forward)
    env = {k: v for k, v in plan.env.items() if k not in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy")}
    if allowed:
        forwards = (*forwards, forward)
        env |= proxy_env(forward.port)
    return replace(plan, forwards=forwards, env=env)
