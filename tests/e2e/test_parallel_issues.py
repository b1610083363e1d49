"""Issues in parallel through the real CLI and daemon (issue 17, items 2 and 3).

Four issues: #3 needs #1, and #2 edits the same file as #1 in another function. With
``"parallel": 3`` the embedded model works #1, #2 and #4 at once, each session in its
own sandbox bound to its own worktree; #3 starts only once #1 is merged into the feature
branch (its test needs #1's change). All four are merged, and the tests pass on the
feature branch.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from agent.core.faultpoints import VARIABLE
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.milestone import FileMilestone
from common.schemas.spec import LOCAL_MODEL
from common.workspace import checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, harness, log_text, start_agent
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
OPS = "def one() -> int:\n    return 1\n\n\ndef two() -> int:\n    return 2\n"


def ops_project() -> Path:
    """The calc project with ``calc/ops.py`` (two functions) committed."""
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2p-", dir="/tmp")))
    (project / "calc" / "ops.py").write_text(OPS)
    git.git(project, "add", "calc/ops.py")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "ops")
    return project


def run_parallel(home: Path, project: Path, parallel: int, latency: float = 0.0) -> str:
    """``harness run --auto-accept --wait`` of the four issues; the agent's log."""
    specs = home / f"specs-{parallel}.json"
    spec = {
        "spec_file": str(DATA / "parallel-spec.md"),
        "project_dir": str(project),
        "target_branch": "main",
        "file_only_mode": True,
        "model": LOCAL_MODEL,
        "playbook": str(DATA / "parallel-playbook.json"),
        "parallel": parallel,
        "model_latency_s": latency,
    }
    specs.write_text(json.dumps([spec]))
    ran = harness("run", "--auto-accept", "--wait", "--specs", f"@{specs}")
    workspace = next((project / ".claude-agent").iterdir())
    log = "\n".join(path.read_text() for path in sorted((workspace / "logs").glob("*.log")))
    assert ran.returncode == 0, ran.stdout + ran.stderr + log
    return log


def test_three_issues_at_once_the_fourth_after_its_dependency(daemon_home: Path) -> None:
    project = ops_project()

    log = run_parallel(daemon_home, project, 3)

    workspace = WorkspaceFiles(next((project / ".claude-agent").iterdir()))
    state = read_model(workspace.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    milestone = read_model(workspace.milestone, FileMilestone)
    assert [(i.iid, i.depends_on, i.state) for i in milestone.issues] == [
        (1, [], "closed"),
        (2, [], "closed"),
        (3, [1], "closed"),
        (4, [], "closed"),
    ]
    assert re.search(r"slots: #1, #2, #4 running \(at most 3\)", log), log
    trees = re.findall(r"issue #\d: worktree (\S+) on ", log)
    assert len(trees) == 4 and all(Path(tree).is_relative_to(daemon_home) for tree in trees)
    feature = git.current_branch(project)
    ops = (project / "calc" / "ops.py").read_text()
    assert ops == OPS.replace("return 1\n", "return 10\n").replace("return 2\n", "return 20\n")
    merges = git.git(project, "log", "--merges", "--format=%s", f"main..{feature}").splitlines()
    assert len(merges) == 4
    feats = git.git(project, "log", "--no-merges", "--format=%s", f"main..{feature}").splitlines()
    assert sorted(feats) == [
        "feat(#1): Make one ten",
        "feat(#2): Make two twenty",
        "feat(#3): Add three",
        "feat(#4): Add four",
    ]
    assert git.git(project, "worktree", "list").count("\n") == 0, "every worktree removed"
    assert re.search(r"final tests: 5 passed", log), log[-3000:]
    # Each slot's gates ran the project's tests in its worktree (its environment linked).
    slot_runs = re.findall(r"^\S+ tests: (.*)$", log, re.MULTILINE)
    assert slot_runs and all("passed" in line for line in slot_runs), slot_runs


#: Points of the parallel path, each with the time it is reached that kills the agent
#: while other slots are in flight (``NAME:N``: the N-th time).
PARALLEL_POINTS = [
    "slot.selected:2",
    "issue_selection.labelled:2",
    "slot.opened:3",
    "coding.session_ended:2",
    "coding.tested:2",
    "coding.committed:3",
    "slot.merged:1",
    "issue_closure.noted:2",
    "issue_closure.closed:1",
]


@pytest.mark.parametrize("point", PARALLEL_POINTS)
def test_killed_in_the_parallel_path_every_slot_resumes_once(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = ops_project()
    spec = local_spec(
        project, DATA / "parallel-spec.md", DATA / "parallel-playbook.json", parallel=3
    )
    files = WorkspaceFiles(prepare_workspace(spec))
    monkeypatch.setenv(VARIABLE, point)
    killed = finish(start_agent(files), timeout=180)
    assert killed == -9, f"{point} was not reached (exit {killed}):\n{log_text(files)}"

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    milestone = read_model(files.milestone, FileMilestone)
    assert [issue.state for issue in milestone.issues] == ["closed"] * 4
    for issue in milestone.issues:
        assert [note.kind for note in issue.notes].count("closure") == 1, issue.notes
    logged = [entry.id for entry in checkpoints.history(files)]
    assert [decision.checkpoint_id for decision in milestone.decisions] == logged
    closures = [d.issue for d in milestone.decisions if d.checkpoint_type == "issue_closure"]
    assert sorted(iid or 0 for iid in closures) == [1, 2, 3, 4]
    feature = git.current_branch(project)
    feats = git.git(project, "log", "--no-merges", "--format=%s", f"main..{feature}").splitlines()
    assert sorted(feats) == [
        "feat(#1): Make one ten",
        "feat(#2): Make two twenty",
        "feat(#3): Add three",
        "feat(#4): Add four",
    ]
    assert git.git(project, "worktree", "list").count("\n") == 0, "every worktree removed"
