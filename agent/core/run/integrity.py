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
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.core.git import agit
from agent.core.log import AgentLog
from agent.core.run.desk import Desk
from agent.core.run.run_state import StateStore
from agent.sandbox import layout
from agent.tracker.base import IssueTracker
from common import safe_read
from common.errors import GitError
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
)
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo
from common.workspace import git


class Run(Protocol):
    """The parts of the run (:class:`agent.core.run.orchestrator.Run`) the guard uses:
    named here, so the run can call the guard without the two importing each other."""

    @property
    def state(self) -> AgentState: ...
    @property
    def spec(self) -> AgentSpec: ...
    @property
    def info(self) -> WorkspaceInfo: ...
    @property
    def tracker(self) -> IssueTracker: ...
    @property
    def log(self) -> AgentLog: ...
    @property
    def desk(self) -> Desk: ...
    @property
    def store(self) -> StateStore: ...
    @property
    def project_env(self) -> ProjectEnv: ...
    @property
    def layout_keeper(self) -> layout.LayoutKeeper | None: ...
    def pin_environment(self, root: str | None) -> None:
        """The gates run the project environment at ``root`` from now on."""


MAX_DIFF_LINES = 60
MAX_CONFIG_BYTES = 1 << 20
"""The largest ``.git/config`` read; a bigger one reads as its refusal (a change)."""


def config_text(project: Path) -> str:
    """The repository's ``.git/config`` as it is now (empty when it is missing or cannot
    be read; a line saying why when it is not a regular file of at most
    :data:`MAX_CONFIG_BYTES`, so the guard shows the change to a person)."""
    try:
        common = Path(git.git(project, "rev-parse", "--path-format=absolute", "--git-common-dir"))
        return safe_read.read_text(common / "config", MAX_CONFIG_BYTES)
    except safe_read.Refused as e:
        return f"# (the harness did not read it: {e.what})\n"
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


async def problems(run: Run) -> list[str]:
    """Everything that changed behind the harness's back since it was recorded (git
    runs off the event loop)."""
    state = run.state
    found = await agit.off_loop(
        repository_problems,
        run.spec.project_dir,
        state.git_config,
        run.info.feature_branch,
        list(state.harness_commits),
        run.spec.target_branch,
        state.target_head,
    )
    return [*found, *layout_changes(run)]


def repository_problems(
    project: Path,
    git_config: str | None,
    feature: str,
    made: list[str],
    target: str,
    target_head: str | None,
) -> list[str]:
    """How ``.git/config`` and the branches differ from the record (git only)."""
    found: list[str] = []
    if git_config is not None:
        diff = config_diff(git_config, config_text(project))
        if diff:
            found.append(".git/config changed during the session:")
            found.extend(f"    {line}" for line in diff)
    found.extend(branch_moves(project, feature, made, target, target_head))
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


@dataclass(frozen=True)
class Record:
    """The repository as it is now: what :func:`record` writes in the state."""

    git_config: str
    target_head: str | None
    sandbox_layout: SandboxLayout | None
    """``None``: unsandboxed (the state's layout is kept as it is)."""


async def now(run: Run) -> Record:
    """The repository as it is now (config, target head and the sandbox layout, checked
    against the deny list as it is resolved); git runs off the event loop."""
    project = run.spec.project_dir
    git_config = await agit.off_loop(config_text, project)
    target_head = await agit.off_loop(head_of, project, run.spec.target_branch)
    keeper = run.layout_keeper
    return Record(git_config, target_head, keeper.now() if keeper is not None else None)


def record(state: AgentState, found: Record) -> None:
    """Record ``found`` in ``state`` as the repository the harness goes on with."""
    state.git_config = found.git_config
    state.target_head = found.target_head
    if found.sandbox_layout is not None:
        state.sandbox_layout = found.sandbox_layout


def still_on(project: Path, made: list[str], branch: str) -> list[str]:
    """The commits of ``made`` still on ``branch`` (its ``HEAD`` when it is gone)."""
    head = head_of(project, branch) or "HEAD"
    return [sha for sha in made if _is_ancestor(project, sha, head)]


async def guard(run: Run, where: str) -> None:
    """Stop at a checkpoint when something moved; go on only when a person approves.

    Approving records the repository as it is now; rejecting pauses the run
    (``harness resume`` asks again).

    Raises:
        StopRun: the person rejected.
    """
    found = await problems(run)
    if not found:
        return
    run.log(f"integrity check {where}: " + "; ".join(line.strip() for line in found[:3]))
    project = run.spec.project_dir
    venv_changed = bool(layout_changes(run))
    approved = "The change is recorded as the new state and the run continues"
    approved += "; the gates run the project's environment as it is now" if venv_changed else ""

    async def build(checkpoint_id: str) -> Checkpoint:
        return ProjectVerificationCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"the harness checked the repository {where}",
                "something changed that the harness did not do (see the warnings)",
            ],
            to_decide="Go on with the repository as it is now?",
            if_approved=approved,
            if_rejected="The run pauses; nothing is pushed or opened (`harness resume` asks again)",
            context=ProjectVerificationContext(
                project_dir=str(project),
                current_branch=await agit.current_branch(project),
                target_branch=run.spec.target_branch,
                feature_branch=run.info.feature_branch,
                head_commit=await agit.head_commit(project),
                tracker=run.tracker.kind,
                test_command=run.state.test_command,
                warnings=found,
                sandbox_changes=layout_changes(run),
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.PROJECT_VERIFICATION, build)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        raise run.desk.pause(checkpoint)
    # Approved: what is there now becomes the record; the id may be asked again later.
    found_now = await now(run)
    made = list(run.state.harness_commits)
    kept = await agit.off_loop(still_on, project, made, run.info.feature_branch)
    with run.store.editing() as state:
        record(state, found_now)
        state.harness_commits = kept
        state.dismissed_checkpoints = [*state.dismissed_checkpoints, checkpoint.id]
    if venv_changed:
        _pin_approved_environment(run)

    approved_layout = run.state.sandbox_layout
    if run.layout_keeper is not None and approved_layout is not None:
        run.layout_keeper.apply(approved_layout)  # checked against the deny list again


def _pin_approved_environment(run: Run) -> None:
    """The person approved the project's venv as it is now: the gates run it from now on
    (until then they ran the recorded one, never one a session put in its place unasked)."""
    root = run.project_env.root_now()
    with run.store.editing() as state:
        state.project_env_root = root
    if root != run.project_env.root:
        run.pin_environment(root)
        run.log(f"project environment: the gates run {root} from now on (approved)")
