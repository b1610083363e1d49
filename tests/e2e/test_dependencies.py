"""Dependencies between issues through the real CLI and daemon (issue 17, item 1).

The playbook proposes three issues in the spec's order, where #2 (eighth) needs #3
(quarter) and #3 needs #1 (half): each module imports the one before, so an issue
started before its dependency would fail its own tests. Issue selection takes only issues
whose dependencies are closed, so the work goes #1, #3, #2, and the milestone file keeps
the dependencies as iids.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import IssueSelectionCheckpoint, SpecToIssuesCheckpoint
from common.schemas.milestone import FileMilestone
from common.schemas.spec import LOCAL_MODEL
from common.workspace import checkpoints, git
from tests.e2e.agents import harness
from tests.e2e.test_project_env import calc_project

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"


@pytest.fixture
def daemon_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="hdep", dir="/tmp"))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    yield home
    harness("daemon", "stop")


def test_issues_are_worked_in_an_order_their_dependencies_allow(daemon_home: Path) -> None:
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2d-", dir="/tmp")))
    specs = daemon_home / "specs.json"
    spec = {
        "spec_file": str(DATA / "ordered-spec.md"),
        "project_dir": str(project),
        "target_branch": "main",
        "file_only_mode": True,
        "model": LOCAL_MODEL,
        "playbook": str(DATA / "ordered-playbook.json"),
    }
    specs.write_text(json.dumps([spec]))

    ran = harness("run", "--auto-accept", "--wait", "--specs", f"@{specs}")

    assert ran.returncode == 0, ran.stdout + ran.stderr
    workspace = WorkspaceFiles(next((project / ".claude-agent").iterdir()))
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
