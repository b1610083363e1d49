"""CREATE_BRANCH, the Initializer's last phase: the feature branch from the target branch."""

from __future__ import annotations

from agent.core import faultpoints
from agent.core.git import agit
from agent.core.run.orchestrator import Run
from common.schemas.agent_state import Phase


async def create_branch(run: Run) -> None:
    """Create the feature branch from the target branch (or check it out again)."""
    project = run.spec.project_dir
    branch = run.info.feature_branch
    if await agit.branch_exists(project, branch):
        if await agit.current_branch(project) != branch:
            await agit.git(project, "checkout", branch)
        run.log(f"feature branch {branch} checked out")
    else:
        await agit.git(project, "checkout", "-b", branch, run.spec.target_branch)
        faultpoints.reached("create_branch.created")
        run.log(f"feature branch {branch} created from {run.spec.target_branch}")
    run.store.move(Phase.ISSUE_SELECTION)
