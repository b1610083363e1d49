"""Real bubblewrap: a session's program holding hundreds of connections to the model open.

Each connection from inside reaches the agent through the relay and a Unix socket, and
costs the agent descriptors (the bridge's two, the endpoint's one). Unbounded, 300 held
connections took about 900 of the agent's descriptors (3,000 took 9,000), enough at the
common soft limit of 1,024 to leave the agent unable to open its own state file. The
bridge now carries a bounded number at once and says so once per burst.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.bridge import MAX_OPEN
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
HELD = 300

FLOOD = """
import socket, sys, time
held = []
for _ in range(int(sys.argv[2])):
    try:
        held.append(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5))
    except OSError:
        break
print("holding", len(held), flush=True)
sys.stdin.readline()
"""


def descriptors() -> int:
    return sum(1 for _ in Path("/proc/self/fd").iterdir())


async def test_held_connections_cost_the_agent_a_bounded_number_of_descriptors(
    tmp_path: Path,
) -> None:
    stalled: list[asyncio.StreamWriter] = []

    async def endpoint(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stalled.append(writer)  # an endpoint that keeps every connection open

    server = await asyncio.start_server(endpoint, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "flood.py").write_text(FLOOD)
    lines: list[str] = []
    assert BWRAP is not None
    env = {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
    async with session_sandbox(project, BWRAP, env, log=lines.append) as box:
        command = ["/usr/bin/python3", "-I", str(project / "flood.py"), str(port), str(HELD)]
        before = descriptors()
        flood = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert flood.stdout is not None and flood.stdin is not None
        said = (await asyncio.wait_for(flood.stdout.readline(), 60)).decode()
        await asyncio.sleep(0.5)  # the relay's last connections reach the bridge
        during = descriptors()
        flood.stdin.close()
        await flood.wait()
    server.close()
    for writer in stalled:
        writer.close()

    assert said.startswith("holding"), said
    assert during - before <= 3 * MAX_OPEN + 8, f"{during - before} descriptors for {said}"
    refusals = [line for line in lines if "refused a connection" in line]
    assert len(refusals) == 1, lines  # once per burst, not once per connection
    assert f"{MAX_OPEN} connections are open already" in refusals[0]
