"""Harness commits on a real repository: only the session's files, in the structured format."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest

from agent.core.git import commits
from common.errors import GitError
from common.workspace import git


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on ``main`` with one commit holding README.md, app.py and docs/guide.md."""
    root = tmp_path / "repo"
    root.mkdir()
    sh_git(root, "init", "-q", "-b", "main")
    sh_git(root, "config", "user.name", "Test User")
    sh_git(root, "config", "user.email", "test@example.invalid")
    sh_git(root, "config", "commit.gpgsign", "false")
    (root / "README.md").write_text("# demo\n")
    (root / "app.py").write_text("x = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("guide\n")
    sh_git(root, "add", ".")
    sh_git(root, "commit", "-q", "-m", "initial")
    return root


def committed_files(repo: Path, rev: str = "HEAD") -> list[str]:
    return sh_git(repo, "show", "--name-only", "--format=", rev).split()


def tree(repo: Path) -> list[str]:
    return sh_git(repo, "ls-tree", "-r", "--name-only", "HEAD").split()


# --- git --------------------------------------------------------------------------------


def test_a_clean_repository_has_no_changes(repo: Path) -> None:
    assert git.changed_files(repo) == []
    assert git.current_branch(repo) == "main"
    assert git.branches(repo) == ["main"]
    assert len(git.head_commit(repo)) == 40


def test_changed_files_sees_staged_unstaged_and_untracked_changes(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    (repo / "README.md").write_text("# staged\n")
    sh_git(repo, "add", "README.md")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "fresh file.py").write_text("")
    (repo / "docs" / "guide.md").unlink()

    assert sorted(git.changed_files(repo)) == [
        "README.md",
        "app.py",
        "docs/guide.md",
        "new dir/fresh file.py",
    ]


def test_changed_files_names_both_paths_of_a_staged_rename(repo: Path) -> None:
    sh_git(repo, "mv", "app.py", "main.py")
    (repo / "README.md").write_text("changed\n")

    assert sorted(git.changed_files(repo)) == ["README.md", "app.py", "main.py"]


def test_exclude_path_adds_a_pattern_once(repo: Path) -> None:
    exclude = repo / ".git" / "info" / "exclude"
    exclude.write_text("# comment without newline")

    git.exclude_path(repo, ".claude-agent/")
    git.exclude_path(repo, ".claude-agent/")
    git.exclude_path(repo, "*.log")

    assert exclude.read_text() == "# comment without newline\n.claude-agent/\n*.log\n"
    (repo / ".claude-agent").mkdir()
    (repo / ".claude-agent" / "state.json").write_text("{}")
    assert git.changed_files(repo) == []


def test_branch_helpers_and_repository_root(repo: Path) -> None:
    sh_git(repo, "branch", "feature/x")

    assert git.branch_exists(repo, "feature/x")
    assert not git.branch_exists(repo, "feature/y")
    assert git.branches(repo) == ["feature/x", "main"]
    assert git.is_repository_root(repo)
    assert not git.is_repository_root(repo / "docs")
    assert not git.is_repository_root(repo / "missing")


def test_a_failing_git_command_raises_git_error_with_gits_words(repo: Path) -> None:
    with pytest.raises(GitError, match=r"git checkout no-such-branch: .*no-such-branch"):
        git.git(repo, "checkout", "no-such-branch")

    assert git.git(repo, "checkout", "no-such-branch", check=False) == ""


# --- session_changes --------------------------------------------------------------------


def test_session_changes_leave_out_what_was_dirty_before_unless_touched(repo: Path) -> None:
    (repo / "README.md").write_text("user's own edit\n")
    (repo / "notes.txt").write_text("user's scratch\n")
    (repo / "app.py").write_text("user's edit the model then rewrote\n")
    dirty_before = set(git.changed_files(repo))
    (repo / "app.py").write_text("x = 3\n")
    (repo / "src").mkdir()
    (repo / "src" / "util.py").write_text("")
    (repo / ".claude-agent" / "ws").mkdir(parents=True)
    (repo / ".claude-agent" / "ws" / ".agent_state.json").write_text("{}")

    changes = commits.session_changes(
        repo, touched={"app.py", "src/util.py", "gone.py"}, dirty_before=dirty_before
    ).files

    assert changes == ["app.py", "src/util.py"]


def test_session_changes_include_a_deletion_and_skip_the_workspace(repo: Path) -> None:
    (repo / "docs" / "guide.md").unlink()
    (repo / ".claude-agent").mkdir()
    (repo / ".claude-agent" / "log.txt").write_text("x")

    changes = commits.session_changes(repo, touched={".claude-agent/log.txt"}, dirty_before=set())
    assert changes.files == ["docs/guide.md"]


# --- message ----------------------------------------------------------------------------


def test_message_has_the_structured_format() -> None:
    text = commits.message(
        "feat",
        3,
        "Parse numbers",
        "  Adds the parser.\nHandles commas.\n\n",
        ["a.py", "b.py"],
        "added",
    )

    assert text == (
        "feat(#3): Parse numbers\n"
        "\n"
        "Adds the parser.\nHandles commas.\n"
        "\n"
        "Files: 2 changed\n"
        "Tests: added\n"
        "Issue: #3 - Parse numbers\n"
    )


@pytest.mark.parametrize(
    ("files", "new_files", "line"),
    [
        (["src/a.py", "tests/test_a.py"], {"tests/test_a.py"}, "added"),
        (["src/a.py", "tests/test_a.py"], set(), "updated"),
        (["src/a.py", "test_b.py"], {"src/a.py"}, "updated"),
        (["web/app.spec.ts", "src/x_test.go"], {"src/x_test.go"}, "added"),
        (["src/a.py", "README.md"], {"src/a.py"}, "none"),
        ([], set(), "none"),
    ],
)
def test_tests_line_tells_added_from_updated(
    files: list[str], new_files: set[str], line: str
) -> None:
    assert commits.tests_line(files, new_files) == line


def test_untracked_lists_only_files_git_does_not_know(repo: Path) -> None:
    (repo / "app.py").write_text("changed\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_new.py").write_text("")

    assert commits.untracked(repo) == {"tests/test_new.py"}


# --- commit -----------------------------------------------------------------------------


def test_commit_commits_only_the_given_files(repo: Path) -> None:
    before = git.head_commit(repo)
    (repo / "README.md").write_text("user's uncommitted edit\n")
    sh_git(repo, "add", "README.md")  # even a staged user change stays out
    (repo / "scratch.txt").write_text("user's untracked file\n")
    (repo / "app.py").write_text("x = 2\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_app.py").write_text("def test_x():\n    pass\n")
    (repo / "docs" / "guide.md").unlink()
    files = ["app.py", "docs/guide.md", "tests/test_app.py"]
    text = commits.message("feat", 3, "Title", "Body", files, "added")

    sha = commits.commit(repo, files, text)

    assert sha == git.head_commit(repo) != before
    assert sorted(committed_files(repo)) == sorted(files)
    assert sh_git(repo, "log", "-1", "--format=%B").rstrip("\n") == text.rstrip("\n")
    assert sh_git(repo, "log", "-1", "--format=%an <%ae>").strip() == (
        "Test User <test@example.invalid>"
    )
    assert sorted(git.changed_files(repo)) == ["README.md", "scratch.txt"]
    assert (repo / "README.md").read_text() == "user's uncommitted edit\n"
    assert "docs/guide.md" not in tree(repo)


def test_commit_without_a_configured_identity_uses_the_harness_identity(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sh_git(repo, "config", "--unset", "user.name")
    sh_git(repo, "config", "--unset", "user.email")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (repo / "app.py").write_text("x = 5\n")

    commits.commit(repo, ["app.py"], "fix(#1): t\n")

    assert sh_git(repo, "log", "-1", "--format=%an <%ae>").strip() == (
        "coding-harness <harness@localhost>"
    )


def test_commit_of_a_session_on_a_dirty_tree_end_to_end(repo: Path) -> None:
    (repo / "README.md").write_text("user's work in progress\n")
    dirty_before = set(git.changed_files(repo))
    (repo / "app.py").write_text("x = 42\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_app.py").write_text("")
    new_files = commits.untracked(repo)
    files = commits.session_changes(repo, touched={"app.py"}, dirty_before=dirty_before).files

    commits.commit(
        repo,
        files,
        commits.message("feat", 1, "T", "B", files, commits.tests_line(files, new_files)),
    )

    assert sorted(committed_files(repo)) == ["app.py", "tests/test_app.py"]
    assert "Tests: added" in sh_git(repo, "log", "-1", "--format=%B")
    assert git.changed_files(repo) == ["README.md"]


def test_committing_a_session_that_renamed_a_file_commits_the_whole_rename(repo: Path) -> None:
    sh_git(repo, "mv", "app.py", "main.py")
    files = commits.session_changes(repo, touched=set(), dirty_before=set()).files

    commits.commit(repo, files, "refactor(#2): rename\n")

    assert "app.py" not in tree(repo)
    assert "main.py" in tree(repo)
    assert git.changed_files(repo) == []


def test_committing_no_files_never_commits_the_users_changes(repo: Path) -> None:
    before = git.head_commit(repo)
    (repo / "README.md").write_text("user's uncommitted edit\n")
    (repo / "scratch.txt").write_text("user's untracked file\n")

    with contextlib.suppress(GitError, ValueError):
        commits.commit(repo, [], "chore(#1): nothing\n")

    assert git.head_commit(repo) == before
    assert sorted(git.changed_files(repo)) == ["README.md", "scratch.txt"]
