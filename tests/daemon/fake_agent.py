"""A stand-in agent for the daemon tests: ``python fake_agent.py WORKSPACE [--secrets-fd N]``.

What it does is chosen by the first line of the spec copied into its
workspace, so each test picks a behaviour by naming its spec file's content:

- ``idle``: report phase ``coding``, then wait for signals. SIGUSR1 writes a
  pending checkpoint, SIGUSR2 finishes (exit file ``done``), SIGTERM stops
  (exit file ``stopped``).
- ``family``: like ``idle``, but first starts a ``sleep`` in its process group
  and writes that pid to ``grandchild.pid`` in the workspace.
- ``stubborn``: like ``idle``, but ignores SIGTERM.
- ``crash``: exit with status 3 and no exit file.
- ``corrupt``: write a broken ``.agent_state.json``, then wait.
- ``intruder``: first runs ``intruder.py`` (a hostile client of the daemon's socket) as
  its child, output in ``intruder.out`` of the workspace, then idles; ``orphan-intruder``:
  the same, but the intruder leaves its parent first (reparented, still in the agent's
  session). Either way the phase is written once ``intruder.out`` exists.
- ``fail``: fail in ``coding`` (state FAILED, exit file ``failed``, status 1);
  started with ``--resume``, apply the real resume rule to its state and idle.

Every start with ``--resume`` appends a line to ``resumed.log`` in the workspace.

Secrets handed over through ``--secrets-fd`` are read as the real agent reads
them; their names and SHA-256 digests go to ``received_secrets.json``.

It writes through the real schemas and atomic helpers, as the real agent does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.core.run.phases import advance, resume_after_failure
from common.atomic import read_model, write_bytes_atomic, write_model
from common.paths import WorkspaceFiles, socket_path
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import (
    CheckpointFile,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
)
from common.schemas.exit_status import AgentExit
from common.secrets import add_secrets_fd_option, collect_secrets


def main(workspace: Path, secrets: dict[str, str], resume: bool = False) -> int:
    files = WorkspaceFiles(workspace)
    if resume:
        with (workspace / "resumed.log").open("a") as resumed:
            resumed.write(f"{os.getpid()}\n")
    if secrets:
        digests = {
            name: hashlib.sha256(value.encode()).hexdigest() for name, value in secrets.items()
        }
        write_bytes_atomic(workspace / "received_secrets.json", json.dumps(digests).encode())
    mode = files.spec_copy.read_text().split()[0]
    if mode == "crash":
        return 3
    if mode == "fail" and not resume:
        failed = advance(AgentState(phase=Phase.CODING, failure="broke"), Phase.FAILED, "broke")
        write_model(files.state, failed)
        write_model(files.exit_status, AgentExit(pid=os.getpid(), outcome="failed", exit_code=1))
        return 1
    if mode == "corrupt":
        write_bytes_atomic(files.state, b"{not json")
    if mode in ("intruder", "orphan-intruder"):
        _run_intruder(workspace / "intruder.out", orphan=mode == "orphan-intruder")
    if mode == "family":
        sleeper = subprocess.Popen(["sleep", "1000"])
        (workspace / "grandchild.pid").write_text(str(sleeper.pid))

    def finish(outcome: Literal["done", "stopped"], code: int) -> None:
        exit_status = AgentExit(pid=os.getpid(), outcome=outcome, exit_code=code)
        write_model(files.exit_status, exit_status)
        sys.exit(code)

    def on_usr1(signum: int, frame: FrameType | None) -> None:
        write_model(files.checkpoint, CheckpointFile(_checkpoint()))

    def on_usr2(signum: int, frame: FrameType | None) -> None:
        finish("done", 0)

    def on_term(signum: int, frame: FrameType | None) -> None:
        finish("stopped", 143)

    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGUSR2, on_usr2)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "stubborn" else on_term)
    if mode == "fail":  # resumed
        state = read_model(files.state, AgentState)
        write_model(files.state, resume_after_failure(state))  # "ready for signals"
    elif mode != "corrupt":
        write_model(files.state, AgentState(phase=Phase.CODING))  # "ready for signals"
    while True:
        signal.pause()


def _run_intruder(out: Path, *, orphan: bool) -> None:
    """Run the hostile client as a descendant of this agent; return once it has answered."""
    intruder = Path(__file__).with_name("intruder.py")
    argv = [sys.executable, str(intruder), str(socket_path()), "--out", str(out)]
    subprocess.run([*argv, "--orphan"] if orphan else argv, check=True, timeout=30)
    deadline = time.monotonic() + 30
    while not out.exists() and time.monotonic() < deadline:  # the orphan finishes on its own
        time.sleep(0.02)


def _checkpoint() -> IssueSelectionCheckpoint:
    return IssueSelectionCheckpoint(
        id="cp-1",
        what_happened=["Issue #1 is the next open issue."],
        to_decide="Work on issue #1?",
        if_approved="A coding session starts on #1.",
        if_rejected="Pick another issue.",
        context=IssueSelectionContext(
            open_issues=[IssueRef(iid=1, title="First issue")], recommended_iid=1
        ),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--resume", action="store_true")
    add_secrets_fd_option(parser)
    args = parser.parse_args()
    sys.exit(main(args.workspace, collect_secrets(args.secrets_fds, os.environ), args.resume))
