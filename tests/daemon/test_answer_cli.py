"""``harness approve`` and ``checkpoint`` as a person types them, against a daemon: the
checkpoint on screen is never refused, an ended agent is said to have ended, and
``checkpoint --full`` ends with the answer box."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from agent.daemon.client import DaemonClient
from agent.daemon.procs import started_at, started_by
from agent.daemon.server import DaemonServer
from common.paths import WorkspaceFiles
from common.schemas.base import utc_now
from common.workspace import checkpoints
from tests.core.checkpoint_samples import closure

from .conftest import REPO_ROOT, MakeSpec
from .helpers import WAIT
from .test_answer_client import waiting_agent

#: Each round, the old process start (cut down to a clock tick) came out before the
#: checkpoint written a moment earlier far more often than not.
ROUNDS = 8


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.control", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )


def test_a_process_started_after_an_instant_is_never_placed_before_it() -> None:
    """The mechanism of the race: ``/proc`` counts a start in whole ticks, cut down."""
    placed_before = 0
    for _ in range(20):
        instant = utc_now()
        child = subprocess.Popen(["sleep", "5"])
        try:
            bound, cut_down = started_by(child.pid), started_at(child.pid)
        finally:
            child.kill()
            child.wait()
        assert bound is not None and cut_down is not None
        assert bound >= instant
        placed_before += cut_down < instant
    assert placed_before > 0, "the cut-down start is the race this bound closes"


async def test_an_approve_typed_as_the_checkpoint_appears_decides_that_checkpoint(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, workspace, _ = await waiting_agent(client, make_spec)
    files = WorkspaceFiles(workspace)
    for round_no in range(ROUNDS):
        shown = closure(f"ic-{round_no}")
        checkpoints.write(files, shown)  # the agent puts it up; the person answers at once

        done = await asyncio.to_thread(harness, "approve", name)

        assert (done.returncode, done.stderr) == (0, ""), f"round {round_no}"
        assert done.stdout == f"{name}: issue_closure (ic-{round_no}) approved\n"


async def test_an_ended_agent_is_said_to_have_ended(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, _, shown = await waiting_agent(client, make_spec)
    await client.stop(name)
    ended = (
        f"{name} has ended (stopped: stopped by user): nothing waits for a decision; "
        f"`harness resume {name}` continues it"
    )

    for args in (["approve", name], ["approve", name, "--checkpoint", shown.id]):
        refused = await asyncio.to_thread(harness, *args)
        assert (refused.returncode, refused.stderr) == (1, f"error: {ended}\n")
    shown_now = await asyncio.to_thread(harness, "checkpoint", name)
    assert (shown_now.returncode, shown_now.stdout) == (1, f"{ended}\n")


async def test_checkpoint_full_prints_the_diff_before_the_answer_box(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, workspace, _ = await waiting_agent(client, make_spec)
    checkpoints.write(WorkspaceFiles(workspace), closure("ic-1"))

    full = await asyncio.to_thread(harness, "checkpoint", name, "--full")

    assert full.returncode == 0, full.stderr
    out = full.stdout
    assert out.index("DIFF (") < out.index("IF APPROVED:") < out.index("ANSWER WITH:")
    assert out.rstrip().splitlines()[-2] == f"    harness reject {name} --reason TEXT"
