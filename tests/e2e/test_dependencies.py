"""Dependencies between issues through the real CLI and daemon (issue 17, item 1).

The first playbook proposes three issues in the spec's order, where #2 (eighth) needs #3
(quarter) and #3 needs #1 (half): each module imports the one before, so an issue
started before its dependency would fail its own tests. Issue selection takes only issues
whose dependencies are closed, so the work goes #1, #3, #2, and the milestone file keeps
the dependencies as iids. In the second, #1 is never right and is set aside: #2, which
needs it, is set aside with the reason instead of waiting for ever, and #3 is done.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import tempfile
import time
from pathlib import Path

import pytest

from agent.core.faultpoints import VARIABLE
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import (
    IssueSelectionCheckpoint,
    ProjectVerificationCheckpoint,
    ProposalDecision,
    SpecToIssuesCheckpoint,
)
from common.schemas.issues import SET_ASIDE_LABEL
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, harness, log_text, phase_reached, run_local_spec, start_agent
from tests.e2e.test_cli import pending_in
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"


def run_to_the_end(home: Path, name: str) -> tuple[Path, WorkspaceFiles]:
    """Run the spec and playbook ``name`` with auto-accept; the project and its workspace."""
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2d-", dir="/tmp")))
    ran = run_local_spec(home, project, DATA / f"{name}-spec.md", DATA / f"{name}-playbook.json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return project, WorkspaceFiles(next((project / ".claude-agent").iterdir()))


def test_issues_are_worked_in_an_order_their_dependencies_allow(daemon_home: Path) -> None:
    project, workspace = run_to_the_end(daemon_home, "ordered")

    state = read_model(workspace.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    milestone = read_model(workspace.milestone, FileMilestone)
    assert [(i.iid, i.title, i.depends_on, i.state) for i in milestone.issues] == [
        (1, "Add half", [], "closed"),
        (2, "Add eighth", [3], "closed"),
        (3, "Add quarter", [1], "closed"),
    ]
    history = checkpoints.history(workspace)
    (proposal,) = (c for c in history if isinstance(c, SpecToIssuesCheckpoint))
    assert "2 issue(s) depend on others; checked: no cycle, no unknown issue" in (
        proposal.what_happened
    )
    selections = [c for c in history if isinstance(c, IssueSelectionCheckpoint)]
    chosen = [c.decision.issue_iid for c in selections if c.decision is not None]
    assert chosen == [1, 3, 2], "each issue only after what it depends on is closed"
    first, second, third = (c.context for c in selections)
    assert [ref.iid for ref in first.open_issues] == [1]
    assert [(b.iid, b.waiting_for) for b in first.blocked] == [(2, [3]), (3, [1])]
    assert [ref.iid for ref in second.open_issues] == [3]
    assert [(b.iid, b.waiting_for) for b in second.blocked] == [(2, [3])]
    assert ([ref.iid for ref in third.open_issues], third.blocked) == ([2], [])
    subjects = git.git(project, "log", "--format=%s", "--reverse", "main..HEAD").splitlines()
    feats = [line for line in subjects if line.startswith("feat")]
    assert [line.split(":")[0] for line in feats] == ["feat(#1)", "feat(#3)", "feat(#2)"], subjects
    logged = "".join(log.read_text() for log in workspace.logs.glob("*.log"))
    assert "issue #2 depends on #3" in logged and "issue #3 depends on #1" in logged


def test_an_issue_whose_dependency_is_set_aside_is_set_aside_not_waited_for(
    daemon_home: Path,
) -> None:
    _, workspace = run_to_the_end(daemon_home, "stuck")

    state = read_model(workspace.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    assert state.set_aside == [1, 2]
    milestone = read_model(workspace.milestone, FileMilestone)
    assert [
        (i.iid, i.depends_on, i.state, SET_ASIDE_LABEL in i.labels) for i in milestone.issues
    ] == [
        (1, [], "opened", True),
        (2, [1], "opened", True),
        (3, [], "closed", False),
    ]
    (note,) = (n.body for n in milestone.issues[1].notes if n.kind == "comment")
    assert note == "## Set aside for a person\nissue #2 depends on #1, which is set aside."
    selections = [
        c for c in checkpoints.history(workspace) if isinstance(c, IssueSelectionCheckpoint)
    ]
    chosen = [c.decision.issue_iid for c in selections if c.decision is not None]
    assert chosen == [1, 3], "#2 is never started"
    assert [(b.iid, b.waiting_for) for b in selections[0].context.blocked] == [(2, [1])]
    record = milestone.merge_request
    assert record is not None
    assert "- Set aside for a person (`needs-human`): #1, #2" in record.description


async def test_a_person_changes_the_dependencies_with_harness_approve_choice(
    daemon_home: Path,
) -> None:
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2d-", dir="/tmp")))
    spec = local_spec(project, DATA / "ordered-spec.md", DATA / "ordered-playbook.json")
    spec = spec.model_copy(update={"auto_accept": AutoAcceptRules.off()})
    started = harness("run", "--specs", json.dumps([spec.model_dump(mode="json")]))
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((project / ".claude-agent").iterdir()))
    assert isinstance(await pending_in(files, timeout=120), ProjectVerificationCheckpoint)
    assert harness("approve", "agent_1").returncode == 0

    pending = await pending_in(files, timeout=120)
    while not isinstance(pending, SpecToIssuesCheckpoint):
        await asyncio.sleep(0.2)
        pending = await pending_in(files, timeout=120)
    shown = harness("checkpoint", "agent_1").stdout
    assert "  2. Add eighth\n     spec: eighth\n     depends on #3\n" in shown, shown
    assert "  3. Add quarter\n     spec: quarter\n     depends on #1\n" in shown
    assert "--choice 'depends=3:1,2;4:'" in shown
    as_json = json.loads(harness("checkpoint", "agent_1", "--json").stdout)
    assert [i["depends_on"] for i in as_json["context"]["issues"]] == [[], [3], [1]]

    cycle = harness("approve", "agent_1", "--choice", "depends=1:3")
    assert cycle.returncode == 1
    assert cycle.stderr == "error: dependency cycle: #1 → #3 → #1\n", cycle.stderr
    assert checkpoints.pending(files) == pending, "refused: nothing changes"
    chosen = harness("approve", "agent_1", "--choice", "depends=2:1,3", "--reason", "both")
    assert chosen.returncode == 0, chosen.stderr
    deadline = time.monotonic() + 240
    while read_model(files.state, AgentState).phase not in (Phase.DONE, Phase.FAILED):
        assert time.monotonic() < deadline, harness("logs", "agent_1").stdout[-3000:]
        waiting = checkpoints.pending(files)  # the rest: a person approves each default
        if waiting is not None:
            harness("approve", "agent_1", "--checkpoint", waiting.id)
        await asyncio.sleep(0.2)
    await phase_reached(files, Phase.DONE, timeout=10)
    (proposal,) = (c for c in checkpoints.history(files) if isinstance(c, SpecToIssuesCheckpoint))
    decision = proposal.decision
    assert isinstance(decision, ProposalDecision)
    assert (decision.depends_on, decision.decided_by) == ({2: [1, 3]}, f"cli:{getpass.getuser()}")
    milestone = read_model(files.milestone, FileMilestone)
    assert [i.depends_on for i in milestone.issues] == [[], [1, 3], [1]]


@pytest.mark.parametrize("point", ["spec_to_issues.created", "issue_selection.labelled"])
def test_killed_after_the_issues_are_created_the_dependencies_are_kept_once(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent SIGKILLs itself right after the tracker wrote the issues (and their
    dependencies), or after the first issue was labelled; started again it creates
    nothing twice and still works in the order the dependencies allow."""
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2k-", dir="/tmp")))
    spec = local_spec(project, DATA / "ordered-spec.md", DATA / "ordered-playbook.json")
    files = WorkspaceFiles(prepare_workspace(spec))
    monkeypatch.setenv(VARIABLE, point)
    assert finish(start_agent(files), timeout=180) == -9, log_text(files)

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    milestone = read_model(files.milestone, FileMilestone)
    assert [(i.iid, i.depends_on, i.state) for i in milestone.issues] == [
        (1, [], "closed"),
        (2, [3], "closed"),
        (3, [1], "closed"),
    ]
    subjects = git.git(project, "log", "--format=%s", "--reverse", "main..HEAD").splitlines()
    assert [s.split(":")[0] for s in subjects] == ["feat(#1)", "feat(#3)", "feat(#2)"]
