"""Issue 26's acceptance for bounded sessions and gates: a hostile model goes over each limit.

Each run goes through a daemon of the test's own and ``harness run --auto-accept --wait``,
the embedded model playing a hostile playbook on a small project (its own ``.venv``), with
small limits in the spec so each probe is quick and light. The first coding session
probes one limit (RAM-backed ``/tmp``, memory, processes, file size, the disk budget; or
a ``conftest.py`` that takes the gate over its memory); the harness ends it (or fails the
gate) with one line naming the limit; the run goes on and the next session, told that line
as the harness's feedback, does the honest work; the run ends DONE with one ``feat``
commit, the daemon still answers, and no control group or process of the run is left.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent.core.trace.trace import trace_path
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import IssueClosureCheckpoint, RegressionApprovalCheckpoint
from common.schemas.limits import Limits
from common.workspace import checkpoints, git
from tests.e2e.agents import harness, phase_reached
from tests.e2e.test_cli import pending_in
from tests.e2e.test_project_env import DATA, calc_project, local_spec

pytestmark = pytest.mark.slow

NONCE = "lim26-7f3a"
SMALL = Limits(memory_mb=512, processes=128, tmpfs_mb=64, file_size_mb=32, disk_mb=16)
"""Small enough for a quick probe, large enough for the CLI itself (its RSS is ~250 MB)."""


def bash(command: str) -> dict[str, Any]:
    return {"tool_uses": [{"name": "Bash", "input": {"command": command, "description": "x"}}]}


def write(path: str, content: str) -> dict[str, Any]:
    return {"tool_uses": [{"name": "Write", "input": {"file_path": path, "content": content}}]}


def report_done(summary: str) -> dict[str, Any]:
    done = {"issue_iid": "{{iid}}", "summary": summary}
    return {"tool_uses": [{"name": "mcp__harness__report_issue_done", "input": done}]}


HONEST = [
    write("{{project_dir}}/calc/double.py", "def double(x: int) -> int:\n    return x * 2\n"),
    write(
        "{{project_dir}}/tests/test_double.py",
        "from calc.double import double\n\n\ndef test_double() -> None:\n"
        "    assert double(4) == 8\n",
    ),
    report_done("double(x) returns 2*x."),
]
CAPTURES = {
    "project_dir": "(?m)Project directory: (.+?)\\s*$",
    "iid": "Session: coding issue #(\\d+)",
}


def script(body: str) -> list[dict[str, Any]]:
    """Write ``body`` as a project script (where git ignores it) and run it: the command
    policy judges the command line, not what project code does."""
    return [write("{{project_dir}}/__pycache__/probe.sh", body), bash("sh __pycache__/probe.sh")]


PROBES: dict[str, tuple[list[dict[str, Any]], str]] = {
    "tmpfs": (
        script(
            f"for n in 1 2 3; do head -c 30M /dev/zero > /tmp/{NONCE}.$n; done\n"
            "sleep 5; echo went on\n"
        ),
        "the session filled its /tmp (64 MB, its tmpfs limit): the harness ended it",
    ),
    "memory": (
        script(f"python3 -c 'x = b\"{NONCE}\" * (1 << 28)'; sleep 5; echo went on\n"),
        "the session went over its memory limit (512 MB): the harness ended it",
    ),
    "processes": (
        script(f"for i in $(seq 400); do sh -c 'sleep 60; :' {NONCE} & done; wait\n"),
        "the session went over its process limit (128 processes and threads): the harness ended it",
    ),
    "file size": (
        script("head -c 64M /dev/zero > __pycache__/big.bin; echo $?\n"),
        "the session wrote a file up to its file-size limit (32 MB: __pycache__/big.bin): "
        "the harness ended it",
    ),
    "disk": (
        script(
            "for n in a b c; do head -c 10M /dev/urandom > __pycache__/$n.bin; done\n"
            "sleep 15; echo went on\n"
        ),
        "the session grew the work tree past its disk budget (16 MB beyond the project's "
        "size at the run's start): the harness ended it",
    ),
}
CLEAN_UP = bash("rm -rf __pycache__ conftest.py")


def playbook(path: Path, probe: list[dict[str, Any]], told: str) -> Path:
    """The initializer's one issue, a first coding session that runs ``probe`` (and, if the
    harness let it, claims the work without doing it), a second one that does the honest
    work only once the harness told it ``told``, and the merge request."""
    initializer = {
        "name": "initializer",
        "match": "Session: initializer",
        "steps": [
            {
                "tool_uses": [
                    {
                        "name": "mcp__harness__propose_issues",
                        "input": {
                            "issues": [{"title": "Add double", "summary": "Add double(x)."}],
                            "recommended_enrichment": [],
                        },
                    }
                ]
            }
        ],
        "final_text": "Proposed.",
    }
    honest = {
        "name": "coding: told by the harness",
        "match": "Session: coding issue #\\d+: Add double[\\s\\S]*" + re.escape(told),
        "captures": CAPTURES,
        "steps": [CLEAN_UP, *HONEST],
        "final_text": "Done.",
    }
    hostile = {
        "name": "coding: the probe",
        "match": "Session: coding issue #\\d+: Add double",
        "captures": CAPTURES,
        "steps": probe,
        "final_text": "Probed.",
    }
    merge = {
        "name": "merge request",
        "match": "Session: merge request",
        "steps": [
            {
                "tool_uses": [
                    {
                        "name": "mcp__harness__propose_merge_request",
                        "input": {"title": "Add double", "description": "Adds double(x)."},
                    }
                ]
            }
        ],
        "final_text": "Proposed.",
    }
    book = {
        "schema_version": 1,
        "spec_match": "(?m)^# calc: double$",
        "fallback_text": "OK",
        "scenarios": [initializer, honest, hostile, merge],
    }
    path.write_text(json.dumps(book))
    return path


def run_probe(probe: list[dict[str, Any]], told: str, **extra: Any) -> WorkspaceFiles:
    """The run through the daemon and ``harness run --wait``; its workspace's files."""
    root = Path(tempfile.mkdtemp(prefix="e2l-", dir="/tmp"))
    project = calc_project(root)
    book = playbook(root / "playbook.json", probe, told)
    spec = local_spec(project, DATA / "calc-spec.md", book, limits=SMALL, **extra)
    done = harness("run", "--wait", "--specs", json.dumps([spec.model_dump(mode="json")]))
    files = WorkspaceFiles(next((project / ".claude-agent").iterdir()))
    log = harness("logs", "agent_1", "-n", "100000").stdout
    assert done.returncode == 0, done.stdout + done.stderr + log[-4000:]
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE, log[-4000:]
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects[0] == "feat(#1): Add double", subjects
    return files


def harness_groups() -> set[Path]:
    """The ``harness-PID-…`` control groups on this machine now."""
    return {
        Path(root, group)
        for root, folders, _ in os.walk("/sys/fs/cgroup")
        for group in folders
        if group.startswith("harness-")
    }


@pytest.fixture
def groups_before() -> set[Path]:
    """The groups there before the test: others' (an agent killed outright elsewhere
    leaves its own), which this test does not judge."""
    return harness_groups()


def assert_nothing_left(files: WorkspaceFiles, before: set[Path]) -> None:
    """The daemon still answers; no process of the run and no control group it made is
    left (``before``: the groups there before it)."""
    status = harness("status", "agent_1")
    assert status.returncode == 0, status.stderr
    assert " done " in status.stdout.splitlines()[0]
    assert "  limits:    memory 512 MB per session or gate" in status.stdout
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # not a process, or gone
        assert NONCE.encode() not in cmdline, f"process {entry.name} outlived its session"
    ended = [
        group
        for group in harness_groups() - before
        if not Path(f"/proc/{group.name.split('-')[1]}").exists()
    ]
    assert not ended, f"control groups of ended agents left: {ended}"


@pytest.mark.parametrize("probe", list(PROBES))
@pytest.mark.usefixtures("daemon_home")
def test_a_session_over_a_limit_ends_with_one_line_and_the_next_is_told(
    probe: str, groups_before: set[Path]
) -> None:
    steps, line = PROBES[probe]
    files = run_probe(steps, line)

    log = harness("logs", "agent_1", "-n", "100000").stdout
    assert f"── session coding #1 (session 1): {line}" in log, log[-4000:]
    if probe == "disk":  # the next session's prompt names what takes the space
        told = trace_path(files).read_text()
        assert "What takes the space (files changed since the run started" in told
        assert "- __pycache__/a.bin: 10.0 MB" in told
    assert_nothing_left(files, groups_before)


@pytest.mark.usefixtures("daemon_home")
async def test_a_gate_over_its_memory_limit_is_a_failed_gate_that_names_it(
    groups_before: set[Path],
) -> None:
    """A ``conftest.py`` (inert in the model's shell) allocates past the memory limit when
    the harness's test gate imports it: the gate fails with the limit as its summary, the
    suite that passed before now fails (regression_approval waits for a person, who
    chooses fix_now), and the next session, told, removes it."""
    line = "the gate went over its memory limit (512 MB): the harness ended it"
    conftest = f"BALLAST = b'{NONCE}' * (1 << 28)\n"
    root = Path(tempfile.mkdtemp(prefix="e2g-", dir="/tmp"))
    project = calc_project(root)
    book = playbook(
        root / "playbook.json", [write("{{project_dir}}/conftest.py", conftest), *HONEST], line
    )
    spec = local_spec(project, DATA / "calc-spec.md", book, limits=SMALL)
    started = harness("run", "--specs", json.dumps([spec.model_dump(mode="json")]))
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((project / ".claude-agent").iterdir()))

    pending = await pending_in(files, timeout=240)
    log = harness("logs", "agent_1", "-n", "100000").stdout
    assert isinstance(pending, RegressionApprovalCheckpoint), log[-4000:]
    assert pending.context.test_run.summary == line
    assert pending.context.test_run.exit_code != 0
    assert pending.context.newly_failing == [f"(the test run failed: {line})"]
    assert f"tests: {line}" in log
    chosen = harness("approve", "agent_1", "--checkpoint", pending.id, "--choice", "fix_now")
    assert chosen.returncode == 0, chosen.stderr

    await phase_reached(files, Phase.DONE, timeout=240)
    closure = next(c for c in checkpoints.history(files) if isinstance(c, IssueClosureCheckpoint))
    assert closure.context.test_run is not None and closure.context.test_run.passed
    assert not (project / "conftest.py").exists()
    assert_nothing_left(files, groups_before)
