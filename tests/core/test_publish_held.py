"""Publishing the feature branch is refused by ``_publish`` itself while a flagged change
on the branch has no person's approval: no caller can push around the outbound review."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.core.run.orchestrator import Run
from agent.core.stages.merge_request import UnapprovedChanges, _publish
from agent.tracker.file import FileTracker
from common.schemas.outbound import ApprovedChange
from tests.core.runs import make_run, sh_git


class BareRemoteTracker(FileTracker):
    """File-only issues, and a real ``git push`` of the branch to a bare repository."""

    def __init__(self, milestone: Path, project: Path, remote: Path) -> None:
        super().__init__(milestone)
        self._project = project
        self._remote = remote

    async def push_branch(self, branch: str) -> str:
        sh_git(self._project, "push", "-q", str(self._remote), f"{branch}:{branch}")
        return sh_git(self._remote, "rev-parse", branch)


def remote_branches(remote: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(remote), "for-each-ref", "--format=%(refname:short)", "refs/heads"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()


@pytest.fixture
def run(tmp_path: Path) -> Run:
    """A feature branch whose one commit adds a link out of the project (a flagged change),
    and a tracker that really pushes to a bare repository."""
    run = make_run(tmp_path)
    project = run.spec.project_dir
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sh_git(project, "checkout", "-q", "-b", run.info.feature_branch)
    (project / "escape").symlink_to("/etc/passwd")
    sh_git(project, "add", "escape")
    sh_git(project, "commit", "-q", "-m", "feat(#1): a link out")
    run.tracker = BareRemoteTracker(run.files.milestone, project, remote)
    return run


async def test_publish_refuses_a_branch_with_an_unapproved_flagged_change(run: Run) -> None:
    remote = run.spec.project_dir.parent / "remote.git"

    with pytest.raises(UnapprovedChanges) as held:
        await _publish(run)

    assert [item.path for item in held.value.flagged] == ["escape"]
    assert "flagged change(s) no person approved: escape" in str(held.value)
    assert remote_branches(remote) == []


async def test_publish_pushes_once_a_person_approved_the_change(run: Run) -> None:
    project = run.spec.project_dir
    remote = project.parent / "remote.git"
    blob = sh_git(project, "rev-parse", "HEAD:escape")
    with run.store.editing() as state:
        state.approved_changes = [
            ApprovedChange(
                path="escape", reasons=["a link"], approved_by="p", where="mr_review-1", blob=blob
            )
        ]

    assert await _publish(run) == "pushed"
    assert remote_branches(remote) == [run.info.feature_branch]


async def test_an_approval_of_an_older_version_does_not_publish_a_newer_one(run: Run) -> None:
    project = run.spec.project_dir
    remote = project.parent / "remote.git"
    old_blob = sh_git(project, "rev-parse", "HEAD:escape")
    (project / "escape").unlink()
    (project / "escape").symlink_to("/etc/shadow")
    sh_git(project, "commit", "-q", "-am", "feat(#1): the link moves")
    with run.store.editing() as state:
        state.approved_changes = [
            ApprovedChange(
                path="escape", reasons=["a link"], approved_by="p", where="mr_review-1",
                blob=old_blob,
            )
        ]  # fmt: skip

    with pytest.raises(UnapprovedChanges):
        await _publish(run)
    assert remote_branches(remote) == []
