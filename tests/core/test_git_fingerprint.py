"""The work tree's fingerprint names its content, even right after a commit.

The gates reuse a test run whose fingerprint is the work tree's now
(:mod:`agent.core.gates.gate_runs`): a fingerprint that names older content reuses a run
on code that is no longer there.
"""

from __future__ import annotations

from pathlib import Path

from common.workspace import git
from tests.core.runs import sh_git


def work_tree(path: Path) -> Path:
    path.mkdir()
    sh_git(path, "init", "-q", "-b", "main")
    (path / "app.py").write_text("x = 1\n")
    sh_git(path, "add", "app.py")
    sh_git(path, "commit", "-q", "-m", "x")
    return path


def test_a_same_size_change_right_after_a_commit_changes_the_fingerprint(tmp_path: Path) -> None:
    """Written in the clock tick of the index's last write (file times are coarse), a
    change of the same size has the stat data git cached: only git's racy-entry check,
    which needs the index's own time, sees it. Without it, this failed in one run of three."""
    for attempt in range(25):
        tree = work_tree(tmp_path / f"tree-{attempt}")
        (tree / "app.py").write_text("x = 2\n")  # same size as the committed "x = 1\n"
        env = {"GIT_INDEX_FILE": str(tree / ".git" / "fresh-index")}
        git.git(tree, "add", "--all", env=env)
        expected = git.git(tree, "write-tree", env=env)  # no stat cache: the content's tree
        assert git.worktree_fingerprint(tree) == expected, attempt
