"""The ``harness`` command line as a person uses it: real daemon, real agents, real files."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from watchfiles import awatch

from agent.model.playbook import IGNORES_FEEDBACK
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint, CheckpointType, SpecToIssuesCheckpoint
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints

HARNESS = [sys.executable, "-m", "agent.control"]
REPO = Path(__file__).resolve().parents[2]


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HARNESS, *args], cwd=REPO, capture_output=True, text=True, timeout=120, env=os.environ
    )


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ("not json", "error: --specs is not valid JSON"),
        ('[{"spec_file": "/tmp/s.md"}]', "error: --specs[0].project_dir: field required"),
        (
            '[{"spec_file": "/nonexistent/spec.md", "project_dir": "/tmp",'
            ' "target_branch": "main"}]',
            "error: spec_file /nonexistent/spec.md does not exist",
        ),
        ('{"spec_file": "x", "project_dir": "y", "target_branch": ""}', "error: --specs[0]"),
        (
            '[{"spec_file": "x", "project_dir": "y", "target_branch": "m", "colour": 1}]',
            "error: --specs[0].colour: extra inputs are not permitted",
        ),
    ],
)
def test_bad_specs_get_one_line_and_a_non_zero_exit(
    specs: str, message: str, daemon_home: Path
) -> None:
    done = harness("run", "--specs", specs)

    assert done.returncode == 1
    assert done.stderr.startswith(message)
    assert done.stderr.count("\n") == 1, "one line, no traceback"
    assert not (daemon_home / "daemon.sock").exists(), "nothing started for bad input"


def test_a_folder_without_git_and_an_unknown_branch_are_refused(
    tmp_path: Path, daemon_home: Path
) -> None:
    spec = tmp_path / "spec.md"
    spec.write_text("# spec\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    not_git = harness(
        "run",
        "--specs",
        f'[{{"spec_file": "{spec}", "project_dir": "{plain}", "target_branch": "main"}}]',
    )
    assert not_git.returncode == 1
    assert not_git.stderr == f"error: project_dir {plain} is not a git repository (no .git)\n"

    subprocess.run(["git", "init", "-q", "-b", "main", str(plain)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(plain),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
        check=True,
    )
    no_branch = harness(
        "run",
        "--specs",
        f'[{{"spec_file": "{spec}", "project_dir": "{plain}", "target_branch": "dev"}}]',
    )
    assert no_branch.returncode == 1
    assert no_branch.stderr.startswith("error: target_branch 'dev' does not exist")
    assert not (plain / ".claude-agent").exists(), "nothing half-written"


async def pending_in(files: WorkspaceFiles, timeout: float = 60.0) -> Checkpoint:
    async def watch() -> Checkpoint:
        async for _ in awatch(
            files.root, debounce=20, step=5, rust_timeout=300, yield_on_timeout=True
        ):
            found = checkpoints.pending(files)
            if found is not None:
                return found
        raise AssertionError("watch ended")

    found = checkpoints.pending(files)
    return found if found is not None else await asyncio.wait_for(watch(), timeout)


@pytest.mark.slow
async def test_hitl_demo_is_driven_to_done_with_harness_approve_and_reject(
    daemon_home: Path,
) -> None:
    demo_dir = Path(tempfile.mkdtemp(prefix="hd", dir="/tmp")) / "demo"
    started = harness("demo", "--dir", str(demo_dir))
    assert started.returncode == 0, started.stderr
    assert "agent_1 started" in started.stdout
    workspace = next((demo_dir / "textkit" / ".claude-agent").iterdir())
    files = WorkspaceFiles(workspace)

    answered: list[CheckpointType] = []
    rejected_once = False
    while True:
        status = harness("status", "agent_1").stdout
        if " done " in status.splitlines()[0]:
            break
        pending = await pending_in(files)
        shown = harness("checkpoint", "agent_1")
        assert shown.returncode == 0
        assert f"HITL CHECKPOINT: {pending.type.value.upper()}  ({pending.id})" in shown.stdout
        assert "IF APPROVED:" in shown.stdout and "IF REJECTED:" in shown.stdout
        if isinstance(pending, SpecToIssuesCheckpoint) and not rejected_once:
            done = harness("reject", "agent_1", "--reason", "one issue per feature, please")
            assert done.stdout.strip() == f"agent_1: spec_to_issues ({pending.id}) rejected"
            rejected_once = True
            again = await pending_in(files)
            assert isinstance(again, SpecToIssuesCheckpoint)
            assert again.context.attempt == 2
            assert again.context.feedback == "one issue per feature, please"
            continue
        if not answered:  # two clients answer the first checkpoint at the same time
            racers = [
                subprocess.Popen(
                    [*HARNESS, "approve", "agent_1", "--checkpoint", pending.id],
                    cwd=REPO,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            results = [(r.wait(timeout=60), *r.communicate()) for r in racers]
            assert sorted(code for code, _, _ in results) == [0, 1]
            loser = next(err for code, _, err in results if code == 1)
            assert "already decided" in loser or "no longer current" in loser
        else:
            done = harness("approve", "agent_1", "--checkpoint", pending.id)
            assert done.returncode == 0, done.stderr
        answered.append(pending.type)
        if pending.type is CheckpointType.MR_REVIEW:
            break

    final = harness("status", "agent_1")
    for _ in range(100):
        if " done " in final.stdout.splitlines()[0]:
            break
        await asyncio.sleep(0.1)
        final = harness("status", "agent_1")
    assert " done " in final.stdout.splitlines()[0], final.stdout
    for _ in range(100):  # the phase is done a moment before the process has exited
        if "  exit:      complete\n" in final.stdout:
            break
        await asyncio.sleep(0.1)
        final = harness("status", "agent_1")
    assert "  exit:      complete\n" in final.stdout, final.stdout
    for iid in (1, 2, 3):
        assert f"  issue #{iid}: " in final.stdout and "$0.0000" in final.stdout, final.stdout
    assert rejected_once
    milestone = read_model(files.milestone, FileMilestone)
    assert [issue.state for issue in milestone.issues] == ["closed"] * 3
    assert milestone.merge_request is not None
    logs = harness("logs", "agent_1", "-n", "100000")
    assert "phase → done" in logs.stdout
    # The embedded model is named by its playbook, never as the CLI's default Claude model.
    assert "session initialised (embedded model playing the demo playbook)" in logs.stdout
    assert "claude-opus" not in logs.stdout


@pytest.mark.slow
async def test_auto_accept_switched_on_while_waiting_applies_from_the_next_checkpoint(
    daemon_home: Path,
) -> None:
    demo_dir = Path(tempfile.mkdtemp(prefix="ha", dir="/tmp")) / "demo"
    started = harness("demo", "--dir", str(demo_dir))
    assert started.returncode == 0, started.stderr
    assert f"note: {IGNORES_FEEDBACK}\n" in started.stdout  # the demo says it first
    files = WorkspaceFiles(next((demo_dir / "textkit" / ".claude-agent").iterdir()))
    first = await pending_in(files)
    assert " HITL " in harness("list").stdout

    switched = harness("auto-accept", "agent_1", "on")
    assert switched.returncode == 0
    assert " AUTO " in switched.stdout
    assert checkpoints.pending(files) == first, "the waiting checkpoint still waits for a human"

    assert harness("approve", "agent_1", "--checkpoint", first.id).returncode == 0
    waited = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio; from agent.control.follow import "
            "wait_until_finished; asyncio.run(wait_until_finished(['agent_1'], show_hints=False))",
        ],
        cwd=REPO,
        timeout=120,
    )
    assert waited.returncode == 0
    deciders = [entry.decision.decided_by for entry in checkpoints.history(files) if entry.decision]
    assert deciders[0].startswith("cli:")
    assert set(deciders[1:]) == {"auto-accept"}
    assert len(deciders) >= 7
    status = harness("status", "agent_1").stdout
    assert " done " in status.splitlines()[0]
    assert re.search(r"policy: [1-9]\d* allowed, 0 denied, 0 forgeries rejected", status), status
