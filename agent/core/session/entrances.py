"""Each session's own way to the model endpoint, for sessions that run at once.

Why: every request that reaches the model proxy is charged to a session's window, and
the model's own commands send requests the CLI does not. With one session at a time,
the shared entrance (the proxy's port, reached through the sandbox's bridge) leads to
the one open window. With several at once the proxy must know whose a request is, by
something the model cannot forge: the socket it came in by. So each session's window
is served on a socket of its own (:meth:`agent.core.endpoint.model_proxy.ModelProxy.entrance`),
in the agent's private folder, and that socket alone is bound into the session's
sandbox (:meth:`agent.sandbox.launcher.SessionSandbox.own_entrance`): no other
session's sandbox holds it, and none reaches the host's loopback.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from agent.core.endpoint.endpoint_meter import EndpointSpend
from agent.core.endpoint.model_proxy import ModelProxy
from agent.core.session.session import EntranceOpener
from agent.sandbox.launcher import SessionSandbox


def own_entrances(proxy: ModelProxy, sandbox: SessionSandbox) -> EntranceOpener:
    """What :attr:`agent.core.session.session.SessionConfig.entrance` takes: for each session's
    window, a socket served by ``proxy`` and a CLI wrapper of ``sandbox`` bound to it and
    to the session's work tree (a slot's worktree in place of the project).

    Raises (when a session starts):
        SandboxError: the sandbox shares the host's network.
        SessionError: the socket cannot be served.
    """

    @contextlib.asynccontextmanager
    async def entrance(window: EndpointSpend, work_tree: Path) -> AsyncIterator[Path]:
        own = sandbox.own_entrance(work_tree)
        try:
            async with proxy.entrance(window, own.socket):
                yield own.cli_path
        finally:
            own.cli_path.unlink(missing_ok=True)

    return entrance
