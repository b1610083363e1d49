"""A stand-in for the daemon link: fixed agents, scripted events, recorded commands.

Tests that are about the TUI itself (dialogs, keys, the log view, snapshots)
use it; the daemon is covered by its own tests and by the end-to-end tests here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

from common.errors import DaemonError
from common.schemas.agent_state import Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentEvent, AgentInfo
from common.schemas.spec import AgentSpec
from tui.services.link import Connection, LinkFrame

STARTED = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


def agent_info(
    name: str,
    workspace: Path,
    *,
    project: Path | None = None,
    spec_name: str = "textkit-helpers.md",
    status: AgentStatus = AgentStatus.RUNNING,
    phase: Phase | None = Phase.CODING,
    auto_accept: bool | AutoAcceptRules = False,
    pending: CheckpointType | None = None,
) -> AgentInfo:
    """An agent as the daemon would report it, with its files under ``workspace``."""
    return AgentInfo(
        name=name,
        spec_file=workspace.parent / spec_name,
        project_dir=project or workspace.parent,
        workspace=workspace,
        log_file=workspace / "logs" / f"{name}-20260115-090000.log",
        pid=4242 if status in (AgentStatus.RUNNING, AgentStatus.WAITING) else None,
        status=status,
        phase=phase,
        auto_accept=bool(AutoAcceptRules.model_validate(auto_accept)),
        auto_accept_rules=AutoAcceptRules.model_validate(auto_accept),
        pending_checkpoint=pending,
        started_at=STARTED,
    )


class FakeLink:
    """Serves ``agents`` as the first snapshot, then whatever :meth:`push` sends."""

    def __init__(self, agents: list[AgentInfo], *, silent: bool = False) -> None:
        """
        Args:
            agents: the daemon's agents.
            silent: the daemon does not answer until :meth:`answer` is called.
        """
        self.agents = {info.name: info for info in agents}
        self._answering = asyncio.Event()
        if not silent:
            self._answering.set()
        self.calls: list[tuple[str, str]] = []
        self.started: list[AgentSpec] = []
        self.refuse_start = ""
        """When set, ``start`` fails with this message, as the daemon would."""
        self._events: asyncio.Queue[LinkFrame | None] = asyncio.Queue()

    async def frames(self) -> AsyncIterator[LinkFrame]:
        await self._answering.wait()
        yield Connection(True, "daemon pid 4242")
        yield list(self.agents.values())
        while (frame := await self._events.get()) is not None:
            yield frame

    def answer(self) -> None:
        """A silent daemon answers at last."""
        self._answering.set()

    def give_up(self, reason: str) -> None:
        """The link lost the daemon for good: it reports why and ends."""
        self._events.put_nowait(Connection(False, reason))
        self._events.put_nowait(None)

    def push(self, info: AgentInfo, *, removed: bool = False) -> None:
        """The daemon reports a change of ``info``."""
        if removed:
            self.agents.pop(info.name, None)
        else:
            self.agents[info.name] = info
        self._events.put_nowait(AgentEvent(id=1, agent=info, removed=removed))

    def report(self, connection: Connection) -> None:
        """The link's connection changed (the daemon went away, say)."""
        self._events.put_nowait(connection)

    async def start(self, spec: AgentSpec, *, fresh: bool = False) -> AgentInfo:
        if self.refuse_start:
            raise DaemonError(self.refuse_start)
        self.started.append(spec)
        self.calls.append(("start fresh" if fresh else "start", str(spec.spec_file)))
        name = f"agent_{len(self.agents) + 1}"
        info = agent_info(name, spec.project_dir / ".claude-agent" / "ws", project=spec.project_dir)
        self.push(info)
        return info

    async def stop(self, name: str) -> AgentInfo:
        self.calls.append(("stop", name))
        info = self.agents[name].model_copy(update={"status": AgentStatus.STOPPED, "pid": None})
        self.push(info)
        return info

    async def resume(self, name: str) -> AgentInfo:
        self.calls.append(("resume", name))
        info = self.agents[name].model_copy(update={"status": AgentStatus.RUNNING, "pid": 4343})
        self.push(info)
        return info

    async def remove(self, name: str) -> None:
        self.calls.append(("remove", name))
        self.push(self.agents[name], removed=True)

    async def set_auto_accept(self, name: str, rules: AutoAcceptRules | bool) -> AgentInfo:
        chosen = AutoAcceptRules.model_validate(rules)
        self.calls.append(("auto_accept", f"{name}={chosen.text()}"))
        info = self.agents[name].model_copy(
            update={"auto_accept": bool(chosen), "auto_accept_rules": chosen}
        )
        self.push(info)
        return info
