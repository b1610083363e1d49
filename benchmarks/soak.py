"""Soak: the demo under random SIGKILLs of the agent, its process group and the daemon.

``python -m benchmarks.soak [--kills 200] [--max-kills-per-run 4] [--seed 1]`` runs demo
agents (auto-accept, embedded model) through a daemon in a scratch ``HARNESS_HOME``.
While an agent runs, the script waits a random 0.3–4 s and kills one of: the agent,
the agent's whole process group, or the daemon. A killed agent is resumed
(``harness resume``), a killed daemon is started again (it adopts the agents that
still run). Each run goes on until DONE. Then it checks the run's results:

- duplicates: commits beyond one ``feat`` per issue, issues beyond three, a note twice
  on an issue, a second merge request;
- torn files: any JSON file of the workspace that does not parse or fit its schema;
- orphans: a process of the run (its CLI, embedded model, Bash) alive 5 s after the
  run's agent ended.

It prints kills by kind, recoveries, runs and the three counts (target: 0 each).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.errors import HarnessError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.daemon_state import AgentStatus
from common.schemas.milestone import FileMilestone
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo
from common.workspace import git

KINDS = ("agent", "group", "daemon")
EXPECTED = [
    "feat(#1): Add slugify",
    "feat(#2): Add word_count (case-insensitive word frequencies)",
    "feat(#3): Add truncate",
]


class Soak:
    """Counts of one soak."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.kills: Counter[str] = Counter()
        self.recoveries = 0
        self.runs = 0
        self.done = 0
        self.duplicates = 0
        self.torn = 0
        self.orphans = 0
        self.problems: list[str] = []

    async def status(self, name: str) -> AgentStatus:
        for _ in range(50):
            try:
                async with DaemonClient.connect() as client:
                    return (await client.status(name)).status
            except HarnessError:
                await self.ensure_daemon()
                await asyncio.sleep(0.1)
        raise SystemExit(f"the daemon does not answer about {name}")

    async def ensure_daemon(self) -> None:
        if lifecycle.daemon_running() is None:
            await lifecycle.start_daemon()

    async def one_run(self, spec: AgentSpec, max_kills: int) -> None:
        self.runs += 1
        async with DaemonClient.connect() as client:
            name = (await client.start(spec)).name
        kills = 0
        while True:
            await asyncio.sleep(self.random.uniform(0.3, 4.0))
            status = await self.status(name)
            if status is AgentStatus.DONE:
                self.done += 1
                return
            if status in (AgentStatus.FAILED, AgentStatus.STOPPED):
                async with DaemonClient.connect() as client:
                    await client.resume(name)
                self.recoveries += 1
                continue
            if kills >= max_kills:
                continue
            kills += 1
            await self.kill(name)

    async def kill(self, name: str) -> None:
        kind = self.random.choice(KINDS)
        if kind == "daemon":
            running = lifecycle.daemon_running()
            if running is None:
                return
            os.kill(running.pid, signal.SIGKILL)
            await asyncio.sleep(0.2)
            await self.ensure_daemon()
            self.recoveries += 1
        else:
            async with DaemonClient.connect() as client:
                pid = (await client.status(name)).pid
            if pid is None:
                return
            try:
                if kind == "agent":
                    os.kill(pid, signal.SIGKILL)
                else:
                    os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                return
        self.kills[kind] += 1

    def check(self, spec: AgentSpec) -> None:
        project = spec.project_dir
        workspace = next((project / ".claude-agent").iterdir())
        files = WorkspaceFiles(workspace)
        for path in workspace.glob("*.json"):
            try:
                json.loads(path.read_text())
            except (OSError, ValueError):
                self.torn += 1
                self.problems.append(f"torn: {path}")
        for path, schema in (
            (files.state, AgentState),
            (files.info, WorkspaceInfo),
            (files.milestone, FileMilestone),
        ):
            try:
                read_model(path, schema)
            except HarnessError as e:
                self.torn += 1
                self.problems.append(str(e))
        subjects = git.git(project, "log", "--format=%s", "main..feature/textkit-helpers")
        extra = len(subjects.splitlines()) - len(EXPECTED)
        if sorted(subjects.splitlines()) != EXPECTED:
            self.problems.append(f"commits of {project}: {subjects.splitlines()}")
        self.duplicates += max(0, extra)
        milestone = read_model(files.milestone, FileMilestone)
        self.duplicates += max(0, len(milestone.issues) - 3)
        for issue in milestone.issues:
            notes = [(note.kind, note.body) for note in issue.notes]
            self.duplicates += len(notes) - len(set(notes))

    def count_orphans(self, project: Path) -> None:
        time.sleep(5)
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cwd = str((entry / "cwd").readlink())
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if cwd.startswith(str(project)) or str(project) in cmdline:
                self.orphans += 1
                self.problems.append(f"orphan {entry.name}: {cmdline[:120]}")


async def soak(target_kills: int, max_kills: int, seed: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="soak-", dir="/tmp"))
    os.environ["HARNESS_HOME"] = str(scratch / "h")
    state = Soak(seed)
    started = time.monotonic()
    try:
        await state.ensure_daemon()
        while sum(state.kills.values()) < target_kills:
            spec = prepare_demo(scratch / f"run{state.runs}", auto_accept=True)
            await state.one_run(spec, max_kills)
            state.check(spec)
            await asyncio.to_thread(state.count_orphans, spec.project_dir)
            print(
                f"run {state.runs}: done; kills so far {sum(state.kills.values())}",
                flush=True,
            )
    finally:
        if lifecycle.daemon_running() is not None:
            await lifecycle.stop_daemon()
        shutil.rmtree(scratch, ignore_errors=True)
    minutes = (time.monotonic() - started) / 60
    kinds = ", ".join(f"{kind} {state.kills[kind]}" for kind in KINDS)
    print(f"\nsoak: {state.runs} demo runs in {minutes:.1f} min, {state.done} reached DONE")
    print(f"  kills: {sum(state.kills.values())} ({kinds}); recoveries: {state.recoveries}")
    print(
        f"  duplicates: {state.duplicates}, torn files: {state.torn}, "
        f"orphan processes: {state.orphans}"
    )
    for problem in state.problems[:20]:
        print(f"  ! {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--max-kills-per-run", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(soak(args.kills, args.max_kills_per_run, args.seed))


if __name__ == "__main__":
    main()
