"""What changed since a rejected issue_closure: found in the checkpoint log, counted by git,
shown escaped wherever a checkpoint is rendered."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.git.closure_changes import last_rejected_closure, since_rejection
from common.schemas.checkpoint import (
    ChangesSinceRejection,
    Checkpoint,
    ClosureDecision,
    IssueClosureCheckpoint,
)
from common.workspace.render import render_checkpoint, since_rejection_summary
from tests.core.checkpoint_samples import closure, enrichment
from tests.core.runs import sh_git


def decided_closure(checkpoint_id: str, iid: int, sha: str, approved: bool) -> Checkpoint:
    """A closure of issue ``iid`` at ``sha``, decided by a person."""
    base = closure(checkpoint_id)
    assert isinstance(base, IssueClosureCheckpoint)
    context = base.context.model_copy(update={"issue_iid": iid, "commit_sha": sha})
    decision = ClosureDecision(approved=approved, decided_by="cli:ada", reason="more tests")
    return base.model_copy(update={"context": context, "decision": decision, "status": "decided"})


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([], None),
        ([decided_closure("ic-1", 1, "a" * 40, approved=False)], "ic-1"),
        ([decided_closure("ic-1", 2, "a" * 40, approved=False)], None),  # another issue
        (
            [
                decided_closure("ic-1", 1, "a" * 40, approved=False),
                decided_closure("ic-2", 1, "b" * 40, approved=False),
                enrichment("ie-9"),
            ],
            "ic-2",  # the latest rejection is the one to compare with
        ),
        (
            [
                decided_closure("ic-1", 1, "a" * 40, approved=False),
                decided_closure("ic-2", 1, "b" * 40, approved=True),
            ],
            None,  # approved since: no rejection stands
        ),
    ],
    ids=["empty", "rejected", "other-issue", "latest", "approved-since"],
)
def test_the_rejection_to_compare_with(history: list[Checkpoint], expected: str | None) -> None:
    found = last_rejected_closure(history, 1)
    assert (found.id if found is not None else None) == expected


def repository(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose HEAD is the commit a rejected closure showed."""
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    (project / "a.py").write_text("x = 1\n")
    sh_git(project, "add", "a.py")
    sh_git(project, "commit", "-q", "-m", "feat(#1): a")
    return project, sh_git(project, "rev-parse", "HEAD")


def test_commits_and_files_since_the_rejected_commit_come_from_git(tmp_path: Path) -> None:
    project, rejected_at = repository(tmp_path)
    (project / "a.py").write_text("x = 2\n")
    (project / "b.py").write_text("y = 1\n")
    sh_git(project, "add", "a.py", "b.py")
    sh_git(project, "commit", "-q", "-m", "feat(#1): the reviewer's point")
    (project / "c.py").write_text("z = 1\n")
    sh_git(project, "add", "c.py")
    sh_git(project, "commit", "-q", "-m", "feat(#1): one more")
    head = sh_git(project, "rev-parse", "HEAD")
    history = [decided_closure("ic-1", 1, rejected_at, approved=False)]

    changes = since_rejection(project, history, 1, head)

    assert changes is not None
    assert changes.checkpoint_id == "ic-1" and changes.commit_sha == rejected_at
    assert changes.commits == sh_git(project, "rev-list", "--reverse", f"{rejected_at}..").split()
    assert len(changes.commits) == 2
    assert changes.files == ["a.py", "b.py", "c.py"]
    assert changes.shortstat.startswith("3 files changed")
    assert since_rejection_summary(changes) == "since your rejection: 2 commits, 3 files"


def test_nothing_new_since_the_rejection_is_said_so(tmp_path: Path) -> None:
    project, rejected_at = repository(tmp_path)
    history = [decided_closure("ic-1", 1, rejected_at, approved=False)]
    changes = since_rejection(project, history, 1, rejected_at)
    assert changes is not None and changes.commits == [] and changes.files == []
    assert since_rejection_summary(changes) == (
        "since your rejection: no new commit, nothing changed"
    )


def test_a_rejected_commit_git_no_longer_knows_shows_no_comparison(tmp_path: Path) -> None:
    project, head = repository(tmp_path)
    history = [decided_closure("ic-1", 1, "0" * 40, approved=False)]
    assert since_rejection(project, history, 1, head) is None


def test_the_changes_are_rendered_escaped() -> None:
    hostile = "evil\x1b[2J\nname.py"
    changes = ChangesSinceRejection(
        checkpoint_id="ic-1",
        commit_sha="c" * 40,
        commits=["d" * 40],
        files=[hostile, "ok.py"],
        shortstat="2 files changed, 3 insertions(+)",
    )
    base = closure("ic-2")
    assert isinstance(base, IssueClosureCheckpoint)
    shown = render_checkpoint(
        base.model_copy(
            update={"context": base.context.model_copy(update={"since_rejection": changes})}
        ),
        agent="agent_1",
    )
    assert f"Since your rejection (ic-1 at {'c' * 12}): 1 commit, 2 files" in shown
    assert f"  commits: {'d' * 12}" in shown
    assert "  2 files changed, 3 insertions(+)" in shown
    assert "\x1b" not in shown
    files_line = next(line for line in shown.splitlines() if line.startswith("  files: "))
    assert files_line.endswith(", ok.py")  # the hostile name stayed on its line
