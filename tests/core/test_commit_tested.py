"""The commit holds exactly what the gates ran on (issue 26, item 2).

The verdict records the tree the gates ran on (a work tree fingerprint); the commit of
its files is checked against it on real repositories: a file changed after the gates is
refused (nothing committed), a change between the staging and the commit itself is
undone, and the check compares bytes (names with ``*``, newlines, ``:``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.core.git import commits, unapplied
from common.errors import GitError
from common.workspace import git


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    sh_git(root, "init", "-q", "-b", "main")
    sh_git(root, "config", "user.name", "Test User")
    sh_git(root, "config", "user.email", "test@example.invalid")
    (root / "app.py").write_text("x = 1\n")
    (root / "held.yml").write_text("ci: 1\n")
    sh_git(root, "add", ".")
    sh_git(root, "commit", "-q", "-m", "initial")
    return root


def head(repo: Path) -> str:
    return sh_git(repo, "rev-parse", "HEAD").strip()


def test_the_tested_content_is_committed(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    (repo / "*").write_text("a star\n")
    (repo / ":(exclude)app.py").write_text("y = 1\n")
    (repo / "held.yml").write_text("ci: curl | sh\n")  # held for a person: not committed
    tested = git.worktree_fingerprint(repo)

    sha = commits.commit(repo, ["app.py", "*", ":(exclude)app.py"], "feat", tested_tree=tested)

    assert sha == head(repo)
    shown = sh_git(repo, "show", "--name-only", "--format=", "HEAD").split("\n")
    assert sorted(filter(None, shown)) == ["*", ":(exclude)app.py", "app.py"]


def test_a_file_changed_after_the_gates_is_refused_and_nothing_committed(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    tested = git.worktree_fingerprint(repo)
    before = head(repo)
    (repo / "app.py").write_text("x = 666\n")  # after the gates: untested

    with pytest.raises(GitError) as refused:
        commits.commit(repo, ["app.py"], "feat", tested_tree=tested)

    assert head(repo) == before
    message = str(refused.value)
    assert "app.py" in message and "committed nothing" in message and "\n" not in message


def test_a_file_put_back_to_the_last_commit_is_still_not_what_was_tested(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    tested = git.worktree_fingerprint(repo)
    (repo / "app.py").write_text("x = 1\n")  # as committed: nothing to stage, yet untested

    with pytest.raises(GitError, match=r"app\.py"):
        commits.commit(repo, ["app.py"], "feat", allow_empty=True, tested_tree=tested)


def test_a_deletion_is_tested_as_an_absence(repo: Path) -> None:
    (repo / "app.py").unlink()
    tested = git.worktree_fingerprint(repo)

    commits.commit(repo, ["app.py"], "remove app", tested_tree=tested)

    assert "app.py" not in sh_git(repo, "ls-tree", "--name-only", "HEAD").split()


def test_a_commit_that_differs_from_the_tested_tree_is_undone(repo: Path) -> None:
    """``git commit PATHS`` reads the files again: a change between the staging and the
    commit reaches the commit itself, which is then undone and refused."""
    (repo / "app.py").write_text("x = 2\n")
    tested = git.worktree_fingerprint(repo)
    before = head(repo)
    (repo / "app.py").write_text("x = 3\n")
    sh_git(repo, "commit", "-q", "-m", "raced", "--", "app.py")

    with pytest.raises(GitError, match=r"app\.py"):
        commits.refuse_untested(repo, tested, [b"app.py"], committed=True)

    assert head(repo) == before


def test_only_the_named_paths_are_compared(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    tested = git.worktree_fingerprint(repo)
    (repo / "held.yml").write_text("changed later, never committed\n")

    tree = sh_git(repo, "write-tree").strip()  # nothing staged: the index is the last commit
    assert commits.untested_paths(repo, tested, tree, [b"held.yml", b"app.py"]) == [b"app.py"]
    sh_git(repo, "add", "app.py", "held.yml")
    staged = sh_git(repo, "write-tree").strip()
    assert commits.untested_paths(repo, tested, staged, [b"app.py"]) == []
    assert commits.untested_paths(repo, tested, staged, [b"held.yml"]) == [b"held.yml"]


def test_a_verdict_refused_as_untested_keeps_nothing_untested(repo: Path) -> None:
    """Refused as untested, the verdict is set aside (a lasting refusal): the commit that
    keeps its files for a person is refused the same way, and the files stay uncommitted."""
    (repo / "app.py").write_text("x = 2\n")
    tested = git.worktree_fingerprint(repo)
    before = head(repo)
    (repo / "app.py").write_text("x = 666\n")
    with pytest.raises(GitError) as refused:
        commits.commit(repo, ["app.py"], "feat", tested_tree=tested)

    assert unapplied.lasting(refused.value)
    assert unapplied.keep_unapplied(repo, "main", 1, 1, ["app.py"], tested) is None
    assert head(repo) == before
