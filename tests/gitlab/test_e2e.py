"""The demo in GitLab mode, through the real agent, against the local GitLab (with faults).

The model's Bash tool also runs ``environ_probe.py``: the token must be in no
``/proc/PID/environ`` it can read (daemon, agent, embedded model, Claude CLI).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.assets import asset_path
from agent.control.follow import wait_until_finished
from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import stop_daemon
from agent.frontend.demo import GitLabTarget, attach_local_gitlab, prepare_demo
from agent.gitlab_local.faults import FaultPlan
from agent.gitlab_local.server import LocalGitLab
from agent.tracker.gitlab import split_marker
from common.atomic import read_model
from common.paths import WorkspaceFiles, daemon_log_path, harness_home, workspace_dir
from common.schemas.agent_state import AgentState, Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import AgentExit
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.spec import AgentSpec
from common.secrets import SECRET_VARIABLES, SECRETS_FD_OPTION
from common.workspace.setup import prepare_workspace
from tests.daemon.helpers import until_answering
from tests.gitlab.environ_probe import LAUNCHER, SEEN, install

from .conftest import git

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BRANCH = "feature/textkit-helpers"
#: The agent's timeout and the time a ``timeout`` fault hangs, in seconds.
AGENT_TIMEOUT, HANG = 0.5, 1.0
CLAUDE_CLI = "/claude --output-format"
"""How the SDK starts the Claude CLI (its executable's name, then its first option)."""


@pytest.fixture
def root() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="e2g", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(root: Path, request: pytest.FixtureRequest) -> Iterator[LocalGitLab]:
    rate = float(getattr(request, "param", 0.0))
    plan = FaultPlan(rate=rate, seed=11, hang=HANG, retry_after=1)
    with LocalGitLab(root / "gitlab", faults=plan) as local:
        yield local


def demo_spec(
    root: Path, server: LocalGitLab, **spec_changes: object
) -> tuple[AgentSpec, GitLabTarget]:
    spec = prepare_demo(root / "demo", auto_accept=True, file_only=False)
    spec = spec.model_copy(update=spec_changes)
    return spec, attach_local_gitlab(spec, server)


def start_demo(
    root: Path, server: LocalGitLab, **spec_changes: object
) -> tuple[AgentSpec, WorkspaceFiles, GitLabTarget]:
    spec, target = demo_spec(root, server, **spec_changes)
    return spec, WorkspaceFiles(prepare_workspace(spec)), target


def probing_playbook(root: Path) -> Path:
    """The demo's playbook whose first ``pytest`` by the model runs the probe first.

    The probe (through its launcher, put in the project by :func:`install`) writes
    what it read to ``PROJECT/.pytest_cache/seen.json``.
    """
    playbook = json.loads(asset_path("demo", "playbook.json").read_text())
    bash = next(
        use
        for scenario in playbook["scenarios"]
        for step in scenario["steps"]
        for use in step.get("tool_uses", [])
        if use["name"] == "Bash" and use["input"]["command"] == "python -m pytest -q"
    )
    bash["input"]["command"] = f"python3 {LAUNCHER} {SEEN}; python -m pytest -q"
    path = root / "playbook.json"
    path.write_text(json.dumps(playbook))
    return path


def probing(root: Path) -> dict[str, object]:
    """Spec changes for a run whose model probes every environ of the harness's processes.

    Unsandboxed: inside the sandbox the probe sees no harness process at all; here the
    second wall (no secret in any environ) is measured on its own.
    """
    return {"playbook": probing_playbook(root), "sandbox": False}


def assert_no_environ_held_a_secret(project: Path, token: str, *expected: str) -> None:
    """What the probe read holds no secret, and covers a process running each of ``expected``."""
    seen = json.loads((project / SEEN).read_text())
    processes = seen["processes"]
    assert seen["probe"] in [process["pid"] for process in processes]
    for process in processes:
        assert token not in process["environ"], process["cmdline"]
        for name in SECRET_VARIABLES:
            assert f"{name}=" not in process["environ"], process["cmdline"]
    commands = [" ".join(process["cmdline"]) for process in processes]
    for program in expected:
        assert any(program in command for command in commands), (program, commands)


def run_agent(files: WorkspaceFiles, target: GitLabTarget, timeout: float = 150.0) -> int:
    """``python -m agent.process`` started by hand, GitLab settings (and token) in its
    environment."""
    env = {**os.environ, **target.environment(), "GITLAB_TIMEOUT": str(AGENT_TIMEOUT)}
    with (files.logs / "e2e.log").open("ab") as log:
        agent = subprocess.run(
            [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            timeout=timeout,
            check=False,
        )
    return agent.returncode


def log_tail(files: WorkspaceFiles, log: Path | None = None) -> str:
    return (log or files.logs / "e2e.log").read_text(errors="replace")[-5000:]


def token_found_in(token: str, *roots: Path) -> list[Path]:
    """Every file under ``roots`` (git objects decompressed by reading them whole) holding it."""
    needle = token.encode()
    hits = [
        p for root in roots for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()
    ]
    for root in roots:
        for git_dir in [root, *root.rglob("*.git"), *root.rglob(".git")]:
            if (git_dir / "objects").is_dir() or (git_dir / "HEAD").is_file():
                dump = subprocess.run(
                    ["git", "--git-dir", str(git_dir), "log", "--all", "-p", "--format=%B"],
                    capture_output=True,
                    check=False,
                ).stdout
                if needle in dump:
                    hits.append(git_dir)
    return hits


def assert_the_traceability(description: str, spec: AgentSpec) -> None:
    """The MR's traceability names every ``feat`` commit's short SHA and every issue, each
    in its row of the table (harness facts: the state's commits, git, the tracker)."""
    section = description.split("## Traceability (from the harness's records)\n")[1]
    table = next(block for block in section.split("\n\n") if block.startswith("|"))
    rows = table.splitlines()[2:]  # below the legend, the header and its rule
    feats = git(spec.project_dir, "log", "--format=%h %s", f"main..{BRANCH}").splitlines()
    feats = [line.split()[0] for line in feats if line.split()[1].startswith("feat(#")]
    assert len(feats) == 3, feats
    for sha in feats:
        assert any(f"`{sha}`" in row for row in rows), (sha, rows)
    for iid in (1, 2, 3):
        assert any(f"| #{iid} " in row for row in rows), (iid, rows)
    assert "### Decisions that shaped the run" in description
    assert "| issue_closure | #1 | approve | auto-accept |" in description


def assert_the_demo_state(server: LocalGitLab, spec: AgentSpec, files: WorkspaceFiles) -> None:
    store = server.store
    assert [(m.title, m.state) for m in store.milestones] == [("textkit-helpers", "active")]
    issues = sorted(store.issues, key=lambda issue: issue.iid)
    assert [(i.iid, i.state) for i in issues] == [(1, "closed"), (2, "closed"), (3, "closed")]
    assert [i.labels for i in issues] == [
        [],
        ["enriched", "complexity-low", "time-estimate-1h"],
        [],
    ]
    kinds = {
        i.iid: [
            (split_marker(n.body)[1] or "?").split("-")[1]
            for n in store.notes
            if n.issue_iid == i.iid and not n.system
        ]
        for i in issues
    }
    assert kinds == {
        1: ["spec", "decision", "closure"],
        2: ["spec", "research", "dependencies", "decision", "closure"],
        3: ["spec", "decision", "closure"],
    }
    for issue in issues:  # each closure's decision on its issue, who decided it and why
        (record,) = [
            n.body
            for n in store.notes
            if n.issue_iid == issue.iid and "Checkpoint decision: issue_closure" in n.body
        ]
        assert "- Decision: approve\n- Decided by: auto-accept\n" in record, record
    project = store.projects[0]
    local_head = git(spec.project_dir, "rev-parse", BRANCH)
    assert git(project.repo, "rev-parse", f"refs/heads/{BRANCH}") == local_head
    assert git(project.repo, "rev-list", "--count", "main") == "1"
    assert git(project.repo, "rev-parse", "main") == git(spec.project_dir, "rev-parse", "main")
    assert read_model(files.state, AgentState).phase is Phase.DONE


@pytest.mark.parametrize("server", [0.3], indirect=True)
async def test_demo_with_30_percent_of_requests_faulted_ends_with_one_of_everything(
    root: Path, server: LocalGitLab
) -> None:
    spec, files, target = start_demo(root, server, **probing(root))
    install(spec.project_dir)
    for path in (r"/milestones$", r"/issues$", r"/notes$", r"/merge_requests$"):
        server.faults.script("POST", path, "drop")  # each kind of creation loses an answer
    assert run_agent(files, target) == 0, log_tail(files)

    assert_the_demo_state(server, spec, files)
    store = server.store
    assert len(store.merge_requests) == 1
    mr = store.merge_requests[0]
    assert (mr.source_branch, mr.target_branch, mr.state) == (BRANCH, "main", "opened")
    assert "## Verification" in mr.description and "## Agent Evidence" in mr.description
    assert_the_traceability(mr.description, spec)

    faults = server.faults
    assert set(faults.injected) == {"429", "500", "timeout", "drop", "late"}
    stats = read_model(files.gitlab_milestone, GitLabMilestone).stats
    assert stats.retries == sum(faults.injected.values())
    assert stats.recovered >= 4
    print(f"\n{faults.summary()}; agent: {stats}")  # the figures, with pytest -s
    assert (
        token_found_in(target.token, spec.project_dir, root / "gitlab", Path(os.environ["HOME"]))
        == []
    )
    # Started by hand with the token in its environment, the agent re-exec'd without it.
    assert_no_environ_held_a_secret(
        spec.project_dir,
        target.token,
        f"agent.process --workspace {files.root} {SECRETS_FD_OPTION}",
        "agent.model",
        CLAUDE_CLI,
    )


async def test_through_a_daemon_started_with_the_token_no_process_environ_shows_it(
    root: Path, server: LocalGitLab
) -> None:
    spec, target = demo_spec(root, server, **probing(root))
    install(spec.project_dir)
    home = harness_home()
    env = {**os.environ, **target.environment(), "GITLAB_TIMEOUT": str(AGENT_TIMEOUT)}
    with daemon_log_path(home).open("ab") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-m", "agent.daemon"],
            cwd=REPO,
            env={**env, "PYTHONPATH": str(REPO)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        await until_answering(home, daemon)
        async with DaemonClient.connect() as client:
            started = await client.start(spec)
        finished = await asyncio.wait_for(
            wait_until_finished([started.name], show_hints=False), 150
        )
    finally:
        await stop_daemon()
        daemon.wait(10)

    files = WorkspaceFiles(workspace_dir(spec.project_dir, spec.spec_file))
    assert finished[started.name].status is AgentStatus.DONE, log_tail(files, started.log_file)
    assert_the_demo_state(server, spec, files)  # so the agent had the token
    assert_no_environ_held_a_secret(
        spec.project_dir,
        target.token,
        f"agent.daemon {SECRETS_FD_OPTION}",
        f"agent.process --workspace {files.root} {SECRETS_FD_OPTION}",
        "agent.model",
        CLAUDE_CLI,
    )
    everywhere = (spec.project_dir, root / "gitlab", Path(os.environ["HOME"]))  # HOME holds home
    assert token_found_in(target.token, *everywhere) == []


async def test_skip_mr_creation_pushes_the_branch_and_stops(
    root: Path, server: LocalGitLab
) -> None:
    spec, files, target = start_demo(root, server, skip_mr_creation=True)
    assert run_agent(files, target) == 0, log_tail(files)
    assert_the_demo_state(server, spec, files)
    assert server.store.merge_requests == []
    state = read_model(files.state, AgentState)
    assert state.history[-1].reason == f"skip_mr_creation: changes pushed on {BRANCH}"
    assert token_found_in(target.token, spec.project_dir, root / "gitlab") == []


@pytest.mark.parametrize("problem", ["401", "403", "404", "unreachable"])
async def test_access_problems_fail_at_project_verification_with_nothing_created(
    root: Path, server: LocalGitLab, problem: str
) -> None:
    spec, files, target = start_demo(root, server)
    if problem == "401":
        target.token = "glpat-revoked"
        expected = "GitLab rejected the token (401 Unauthorized)"
    elif problem == "403":
        target.token = server.store.add_token(server.store.users[0], ("read_api",)).value
        expected = "the token lacks the api scope (it has read_api)"
    elif problem == "404":
        git(spec.project_dir, "remote", "set-url", "origin", f"{server.url}/demo/gone.git")
        expected = "GitLab project demo/gone not found at"
    else:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            target.api_url = f"http://127.0.0.1:{probe.getsockname()[1]}/api/v4"
        expected = f"cannot reach GitLab at {target.api_url} (connection refused)"
    assert run_agent(files, target) == 1
    ended = read_model(files.exit_status, AgentExit)
    assert ended.reason.startswith(expected) and "\n" not in ended.reason, ended.reason
    state = read_model(files.state, AgentState)
    assert (state.phase, state.history[-1].from_phase) == (Phase.FAILED, Phase.PROJECT_VERIFICATION)
    store = server.store
    assert (store.milestones, store.issues, store.notes, store.merge_requests) == ([], [], [], [])


def test_harness_demo_gitlab_reports_what_the_server_holds(root: Path) -> None:
    demo = root / "cli"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.control",
            "demo",
            "--gitlab",
            "--auto-accept",
            "--dir",
            str(demo),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    report = done.stdout[done.stdout.index("holds:") :]
    for expected in (
        "milestones: textkit-helpers (active)",
        "issues: 3 (3 closed, 0 open)",
        "[labels: complexity-low, enriched, time-estimate-1h] "
        "[notes: spec, research, dependencies, decision, closure]",
        "merge requests: 1",
        f"!1 opened {BRANCH} → main",
        "with ## Verification",
        f"branches: {BRANCH}",
        "duplicates: 0",
        "0 faulted",
    ):
        assert expected in report, report
    home = done.stdout.split("HARNESS_HOME=")[1].split()[0]
    assert not Path(home).exists()  # the demo's own daemon is gone, and its folder with it
    bare = demo / "gitlab" / "demo" / "textkit.git"
    assert git(bare, "rev-parse", f"refs/heads/{BRANCH}") == git(
        demo / "textkit", "rev-parse", BRANCH
    )
