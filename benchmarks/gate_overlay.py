"""What keeping the tested tree costs a gate: the overlay, and the fingerprint after it.

Usage: ``.venv/bin/python -m benchmarks.gate_overlay [ROUNDS]``

On the demo project (its ``.venv`` linked into the environment cache) and on a copy of
the harness's own checkout (about 700 tracked files), a gate runs first in the sandbox
bound writable (as before issue 26), then in an overlay (:mod:`agent.sandbox.overlay`),
each with the after-gate work (the fingerprint compared, the upper folder listed and
removed: :meth:`agent.core.gates.gate_runs.GateRunner.guarded`). The command is ``true`` (the
layout's own cost) and the demo's test command. Medians of ``ROUNDS`` (default 9).
The figures are recorded in docs/security.md.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent.core.gates import gate_writes, gates
from agent.core.gates.gate_runs import GateRunner
from agent.core.log import AgentLog
from agent.frontend.demo import prepare_demo
from agent.sandbox import overlay
from agent.sandbox.binary import find_bwrap
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.layout import LayoutKeeper
from agent.sandbox.protected import ProtectedPlaces
from common.project_env import detect
from common.schemas.gates import TestRun
from common.workspace import git

REPO = Path(__file__).resolve().parents[1]


async def median_ms(rounds: int, step: Callable[[], Awaitable[object]]) -> float:
    times: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        await step()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def checkout_copy(root: Path) -> Path:
    """The harness's tracked files in a new repository (no venv, no caches)."""
    copy = root / "checkout"
    files = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.split(b"\0")
    for raw in filter(None, files):
        source = REPO / raw.decode()
        if source.is_file() and not source.is_symlink():
            target = copy / raw.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    subprocess.run(["git", "-C", str(copy), "add", "--all"], check=True)
    git_id = ["-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run(["git", "-C", str(copy), *git_id, "commit", "-qm", "copy"], check=True)
    return copy


async def measure(project: Path, command: str, rounds: int) -> None:
    bwrap = find_bwrap()
    assert bwrap is not None
    env = detect(project, {"PATH": "/usr/bin:/bin"})
    places = ProtectedPlaces.of_this_process()
    layout = LayoutKeeper(project, places, False, lambda _layout: None, lambda _line: None).now()
    async with session_sandbox(project, bwrap, {}, layout=layout, places=places) as box:
        assert box.overlays, overlay.probe(bwrap)
        log = AgentLog(io.StringIO())
        bound = GateRunner(env, log, box.wrap, project=project)
        layered = GateRunner(env, log, box.wrap, overlays=True, project=project)
        tree = await asyncio.to_thread(git.worktree_fingerprint, project)
        environ = env.gate_environ({"PATH": "/usr/bin:/bin"})

        async def plain() -> object:
            return await gates.run_tests(project, command, environ, wrap=box.wrap)

        ran = await plain()
        assert isinstance(ran, TestRun) and ran.passed, ran
        fingerprint = await median_ms(
            rounds, lambda: asyncio.to_thread(git.worktree_fingerprint, project)
        )
        before = await median_ms(rounds, plain)
        settle = await median_ms(
            rounds,
            lambda: asyncio.to_thread(gate_writes.settle, project, tree, 0, overlay.Listing()),
        )

        async def layered_only() -> object:
            folder = Path(tempfile.mkdtemp(prefix="bench-gate-overlay-"))
            try:
                return await gates.run_tests(
                    project, command, environ, wrap=box.wrap, overlay=folder
                )
            finally:
                overlay.remove(folder)

        view = await median_ms(rounds, layered_only)
        kept = await median_ms(rounds, lambda: bound._run(project, command, tree))
        layered_ms = await median_ms(rounds, lambda: layered._run(project, command, tree))
    print(
        f"{project.name:10} `{command[:32]:32}` bound, as before: {before:7.1f} ms | bound + "
        f"fingerprint after: {kept:7.1f} ms | overlay + fingerprint after: {layered_ms:7.1f} ms"
        f" | fingerprint alone: {fingerprint:6.1f} ms | overlay alone: {view:7.1f} ms"
        f" | after-gate check alone: {settle:6.1f} ms"
    )


async def main(rounds: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    try:
        demo = prepare_demo(root / "demo", auto_accept=True).project_dir
        checkout = checkout_copy(root)
        for project, command in (
            (demo, "true"),
            (demo, ".venv/bin/python -m pytest -q"),
            (checkout, "true"),
        ):
            await measure(project, command, rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9))
