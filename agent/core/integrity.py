"""Repository integrity: ``.git/config``, the branches and the sandbox layout stay as recorded.

At project_verification the harness records ``.git/config``, where the target
branch points and the sandbox layout (the folders the project's venv needs, see
:mod:`agent.sandbox.layout`). Before and after every session, before issue_closure
and before the merge request is pushed, :func:`guard` compares: a changed config (a
new hook path, an ``insteadOf``, a filter…), a harness commit no longer on the
feature branch, a moved target branch, or a venv that now asks for other folders
stops the run at a checkpoint that shows what moved. Nothing is pushed or opened
meanwhile, and the sandbox keeps the recorded layout until a person approves.

The checkpoint reuses the project_verification type (its ``warnings`` carry the
difference): it asks the same question, "go on with this repository as it is
now?", without a ninth type through TUI, CLI and schemas.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from agent.sandbox import layout
from common.errors import GitError
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
)
from common.workspace import git

if TYPE_CHECKING:
    from agent.core.orchestrator import Run

MAX_DIFF_LINES = 60


def config_text(project: Path) -> str:
    """The repository's ``.git/config`` as it is now (empty when it cannot be read)."""
    try:
        common = Path(git.git(project, "rev-parse", "--path-format=absolute", "--git-common-dir"))
        return (common / "config").read_text(errors="replace")
    except (GitError, OSError):
        return ""


def config_diff(before: str, after: str) -> list[str]:
    """The unified diff of two ``.git/config`` texts, cut to a reviewable size."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), "recorded", "now", lineterm="", n=1
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more line(s)"]
    return lines


def head_of(project: Path, branch: str) -> str | None:
    """The commit ``branch`` points at, or ``None`` when it does not exist."""
    found = git.git(
        project, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False
    )
    return found or None


def branch_moves(
    project: Path,
    feature: str,
    made: list[str],
    target: str,
    target_head: str | None,
) -> list[str]:
    """What moved: harness commits gone from ``feature``, ``target`` not at ``target_head``."""
    moves: list[str] = []
    feature_head = head_of(project, feature)
    for sha in made:
        on_branch = feature_head is not None and _is_ancestor(project, sha, feature_head)
        if not on_branch:
            moves.append(f"commit {sha[:12]} made by the harness is no longer on {feature}")
    if target_head is not None:
        now = head_of(project, target)
        if now != target_head:
            moves.append(
                f"target branch {target} moved from {target_head[:12]} to "
                f"{now[:12] if now else 'nowhere (deleted)'}"
            )
    return moves


def _is_ancestor(project: Path, sha: str, head: str) -> bool:
    try:
        git.git(project, "merge-base", "--is-ancestor", sha, head)
    except GitError:
        return False
    return True


def problems(run: Run) -> list[str]:
    """Everything that changed behind the harness's back since it was recorded."""
    state = run.state
    project = run.spec.project_dir
    found: list[str] = []
    if state.git_config is not None:
        diff = config_diff(state.git_config, config_text(project))
        if diff:
            found.append(".git/config changed during the session:")
            found.extend(f"    {line}" for line in diff)
    found.extend(
        branch_moves(
            project,
            run.info.feature_branch,
            list(state.harness_commits),
            run.spec.target_branch,
            state.target_head,
        )
    )
    found.extend(layout_changes(run))
    return found


def layout_changes(run: Run) -> list[str]:
    """How the sandbox layout the project asks for now differs from the recorded one."""
    keeper, recorded = run.layout_keeper, run.state.sandbox_layout
    if keeper is None or recorded is None:
        return []
    now = keeper.now()
    changes = layout.diff(recorded, now)
    if not changes:
        return []
    return [
        "the sandbox layout the project's venv asks for changed (the sandbox keeps the "
        "recorded one until you approve):",
        *(f"    {line}" for line in changes),
        *(f"    left out whatever you decide: {note}" for note in now.left_out),
    ]


def record(run: Run, state: AgentState) -> None:
    """Record in ``state`` the repository as it is now (config, target head and the
    sandbox layout, checked against the deny list as it is resolved)."""
    project = run.spec.project_dir
    state.git_config = config_text(project)
    state.target_head = head_of(project, run.spec.target_branch)
    if run.layout_keeper is not None:
        state.sandbox_layout = run.layout_keeper.now()


async def guard(run: Run, where: str) -> None:
    """Stop at a checkpoint when something moved; go on only when a person approves.

    Approving records the repository as it is now; rejecting pauses the run
    (``harness resume`` asks again).

    Raises:
        StopRun: the person rejected.
    """
    found = problems(run)
    if not found:
        return
    run.log(f"integrity check {where}: " + "; ".join(line.strip() for line in found[:3]))
    project = run.spec.project_dir

    async def build(checkpoint_id: str) -> Checkpoint:
        return ProjectVerificationCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"the harness checked the repository {where}",
                "something changed that the harness did not do (see the warnings)",
            ],
            to_decide="Go on with the repository as it is now?",
            if_approved="The change is recorded as the new state and the run continues",
            if_rejected="The run pauses; nothing is pushed or opened (`harness resume` asks again)",
            context=ProjectVerificationContext(
                project_dir=str(project),
                current_branch=git.current_branch(project),
                target_branch=run.spec.target_branch,
                feature_branch=run.info.feature_branch,
                head_commit=git.head_commit(project),
                tracker=run.tracker.kind,
                test_command=run.state.test_command,
                warnings=found,
            ),
        )

    checkpoint = await run.ask(CheckpointType.PROJECT_VERIFICATION, build)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        raise run.pause(checkpoint)
    # Approved: what is there now becomes the record; the id may be asked again later.
    with run.editing() as state:
        record(run, state)
        state.harness_commits = [
            sha
            for sha in state.harness_commits
            if _is_ancestor(project, sha, head_of(project, run.info.feature_branch) or "HEAD")
        ]
        state.dismissed_checkpoints = [*state.dismissed_checkpoints, checkpoint.id]

    approved_layout = run.state.sandbox_layout
    if run.layout_keeper is not None and approved_layout is not None:
        run.layout_keeper.apply(approved_layout)  # checked against the deny list again
