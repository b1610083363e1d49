"""A session that breaks an existing test: regression_approval, its blocked reject, its actions."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.errors import CheckpointError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import (
    CheckpointType,
    MrReviewCheckpoint,
    RegressionApprovalCheckpoint,
)
from common.schemas.milestone import FileMilestone
from common.workspace import answer, checkpoints
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, next_pending, start_agent

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"


def regression_workspace() -> tuple[Path, WorkspaceFiles]:
    root = Path(tempfile.mkdtemp(prefix="e2r-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=False)
    spec_file = root / "shout-spec.md"
    shutil.copyfile(DATA / "shout-spec.md", spec_file)
    spec = demo.model_copy(
        update={"spec_file": spec_file, "playbook": DATA / "regression-playbook.json"}
    )
    return spec.project_dir, WorkspaceFiles(prepare_workspace(spec))


@pytest.mark.parametrize("action", ["fix_now", "defer"])
async def test_a_regression_stops_at_regression_approval_until_an_action_is_chosen(
    action: str,
) -> None:
    project, files = regression_workspace()
    agent = start_agent(files)
    regression: RegressionApprovalCheckpoint | None = None
    try:
        while agent.poll() is None:
            try:
                pending = await next_pending(files, agent)
            except AssertionError:
                break
            if isinstance(pending, RegressionApprovalCheckpoint) and regression is None:
                regression = pending
                with pytest.raises(CheckpointError, match="fix_now, defer, abort"):
                    answer.reject(files.root, "no")
                assert checkpoints.pending(files) == pending, "a blocked reject changes nothing"
                answer.approve(files.root, action, None, checkpoint_id=pending.id)
            else:
                answer.approve(files.root, None, None, checkpoint_id=pending.id)
        assert finish(agent) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()

    assert regression is not None, "breaking an existing test must stop at regression_approval"
    assert regression.context.newly_failing == [
        "tests/test_normalize.py::test_collapses_inner_whitespace",
        "tests/test_normalize.py::test_trims_both_ends",
    ]
    shown = regression.context.diff  # the code that broke the tests, to review
    assert shown is not None and shown.cut_at is None
    committed = subprocess.run(
        ["git", "-C", str(project), "diff", "--text", shown.range],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.text == committed.rstrip("\n") and "+" in shown.text
    mr = next(e for e in checkpoints.history(files) if isinstance(e, MrReviewCheckpoint))
    assert mr.context.diff is not None and mr.context.diff.range.endswith("...HEAD")
    assert read_model(files.state, AgentState).phase is Phase.DONE
    issues = read_model(files.milestone, FileMilestone).issues
    if action == "defer":
        assert [i.title.split(":")[0] for i in issues] == ["Add shout", "Regression after #1"]
    else:
        assert [i.title for i in issues] == ["Add shout"]
    assert all(issue.state == "closed" for issue in issues)
    kinds = [entry.type for entry in checkpoints.history(files)]
    assert kinds.count(CheckpointType.REGRESSION_APPROVAL) == 1
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=project, capture_output=True)
    assert tests.returncode == 0, "the regression was fixed before the run ended"
