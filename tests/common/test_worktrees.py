"""Issue worktrees through real git (guarded and jailed): created off the feature branch,
merged back, a conflict reported and aborted, redone on top, removed; and a worktree's
git folders read from its ``.git`` file without running git."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from common.errors import GitError
from common.workspace import git, gitdirs, worktrees

IDENTITY = ("-c", "user.name=coding-harness", "-c", "user.email=harness@localhost")


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *IDENTITY, *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit_file(repo: Path, name: str, text: str, message: str) -> None:
    (repo / name).write_text(text)
    sh_git(repo, "add", name)
    sh_git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A project on its feature branch, with one file of two functions."""
    root = tmp_path / "project"
    root.mkdir()
    sh_git(root, "init", "-q", "-b", "main")
    commit_file(root, "calc.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n", "init")
    sh_git(root, "checkout", "-q", "-b", "feature/x")
    return root


def test_an_issue_worktree_is_a_branch_off_the_feature_branch(repo: Path, tmp_path: Path) -> None:
    place = tmp_path / "trees" / "issue-1"
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    assert sh_git(place, "rev-parse", "--abbrev-ref", "HEAD") == "feature/x-issue-1"
    assert sh_git(place, "rev-parse", "HEAD") == sh_git(repo, "rev-parse", "feature/x")
    assert [p.resolve() for p in worktrees.listed(repo)] == [place.resolve()]
    assert git.current_branch(repo) == "feature/x"  # the main tree keeps its branch


def test_adding_again_after_a_kill_checks_the_branch_out_as_it_is(
    repo: Path, tmp_path: Path
) -> None:
    place = tmp_path / "trees" / "issue-1"
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    commit_file(place, "new.py", "x = 1\n", "wip")
    tip = sh_git(place, "rev-parse", "HEAD")
    worktrees.remove(repo, place)
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    assert sh_git(place, "rev-parse", "HEAD") == tip
    with pytest.raises(GitError, match="already exists"):
        worktrees.add(repo, place, "feature/x-issue-1", "feature/x")


def test_issues_on_different_functions_both_merge(repo: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "t" / "issue-1", tmp_path / "t" / "issue-2"
    worktrees.add(repo, first, "b1", "feature/x")
    worktrees.add(repo, second, "b2", "feature/x")
    commit_file(first, "calc.py", "def one():\n    return 11\n\n\ndef two():\n    return 2\n", "1")
    commit_file(second, "calc.py", "def one():\n    return 1\n\n\ndef two():\n    return 22\n", "2")

    one = worktrees.merge(repo, "b1", "Merge issue #1", IDENTITY)
    two = worktrees.merge(repo, "b2", "Merge issue #2", IDENTITY)

    assert one.merged and two.merged
    assert two.commit == sh_git(repo, "rev-parse", "HEAD")
    assert "return 11" in (repo / "calc.py").read_text()
    assert "return 22" in (repo / "calc.py").read_text()
    assert worktrees.is_merged(repo, "b1") and worktrees.is_merged(repo, "b2")
    assert sh_git(repo, "log", "-1", "--format=%s") == "Merge issue #2"


def test_a_conflict_is_reported_aborted_and_redone_on_top(repo: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "t" / "issue-1", tmp_path / "t" / "issue-2"
    worktrees.add(repo, first, "b1", "feature/x")
    worktrees.add(repo, second, "b2", "feature/x")
    commit_file(first, "calc.py", "def one():\n    return 'first'\n", "1")
    commit_file(second, "calc.py", "def one():\n    return 'second'\n", "2")
    assert worktrees.merge(repo, "b1", "Merge issue #1", IDENTITY).merged
    before = sh_git(repo, "rev-parse", "HEAD")

    outcome = worktrees.merge(repo, "b2", "Merge issue #2", IDENTITY)

    assert not outcome.merged and outcome.commit is None
    assert outcome.conflicts == ("calc.py",)
    assert "'first'" in outcome.excerpt and "'second'" in outcome.excerpt
    assert sh_git(repo, "rev-parse", "HEAD") == before
    assert sh_git(repo, "status", "--porcelain") == ""  # aborted: the tree as it was
    assert not worktrees.is_merged(repo, "b2")

    (second / "scratch.txt").write_text("left behind")
    worktrees.restart_on(second, "feature/x")
    assert sh_git(second, "rev-parse", "HEAD") == before
    assert not (second / "scratch.txt").exists()
    commit_file(second, "calc.py", "def one():\n    return 'first and second'\n", "2 again")
    assert worktrees.merge(repo, "b2", "Merge issue #2", IDENTITY).merged


def test_conflicted_names_and_text_are_escaped(repo: Path, tmp_path: Path) -> None:
    name = "esc\x1b[2Jname.py"
    commit_file(repo, name, "a\n", "add")
    first, second = tmp_path / "t" / "issue-1", tmp_path / "t" / "issue-2"
    worktrees.add(repo, first, "b1", "feature/x")
    worktrees.add(repo, second, "b2", "feature/x")
    commit_file(first, name, "\x1b]0;pwned\x07 one\n", "1")
    commit_file(second, name, "two\n", "2")
    assert worktrees.merge(repo, "b1", "m1", IDENTITY).merged

    outcome = worktrees.merge(repo, "b2", "m2", IDENTITY)

    assert outcome.conflicts == ("esc\\x1b[2Jname.py",)
    assert "\x1b" not in outcome.excerpt and "\\x1b]0;pwned" in outcome.excerpt


def test_removing_a_worktree_forgets_it_and_keeps_the_branch(repo: Path, tmp_path: Path) -> None:
    place = tmp_path / "t" / "issue-1"
    worktrees.add(repo, place, "b1", "feature/x")
    (place / "untracked.txt").write_text("x")
    worktrees.remove(repo, place)
    assert not place.exists()
    assert worktrees.listed(repo) == []
    assert git.branch_exists(repo, "b1")
    worktrees.remove(repo, place)  # absent: nothing to do


def test_a_worktree_git_folders_are_read_from_its_dot_git_file(repo: Path, tmp_path: Path) -> None:
    place = tmp_path / "t" / "issue-1"
    worktrees.add(repo, place, "b1", "feature/x")
    folders = gitdirs.git_folders(place)
    assert folders is not None
    assert folders.common_dir == (repo / ".git").resolve()
    assert folders.git_dir == (repo / ".git" / "worktrees" / "issue-1").resolve()
    assert folders.outside(place) == (folders.git_dir, folders.common_dir)
    main = gitdirs.git_folders(repo)
    assert main is not None and main.outside(repo) == ()


@pytest.mark.parametrize(
    "content",
    [b"", b"not a pointer\n", b"gitdir:\n", b"gitdir: a\nsecond line\n", b"\xff\xfe", b"g" * 5000],
)
def test_a_dot_git_file_that_is_not_a_pointer_names_no_folder(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / ".git").write_bytes(content)
    assert gitdirs.git_folders(tmp_path) is None


def test_a_relative_pointer_is_relative_to_the_worktree(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text("gitdir: ../main/.git/worktrees/wt\n")
    folders = gitdirs.git_folders(tree)
    assert folders is not None
    assert (folders.git_dir, folders.common_dir) == (gitdir.resolve(), common.resolve())


def test_removing_one_worktree_keeps_the_others_and_the_users_own(
    repo: Path, tmp_path: Path
) -> None:
    """Git runs jailed, seeing only the repository: a habitual prune there once forgot
    every other worktree (a second slot's, or one the user made elsewhere)."""
    one, two = tmp_path / "trees" / "issue-1", tmp_path / "trees" / "issue-2"
    users = tmp_path / "elsewhere" / "mine"
    worktrees.add(repo, one, "feature/x-issue-1", "feature/x")
    worktrees.add(repo, two, "feature/x-issue-2", "feature/x")
    sh_git(repo, "worktree", "add", "-q", "-b", "mine", str(users), "feature/x")

    worktrees.remove(repo, one)

    assert not one.exists()
    assert {p.resolve() for p in worktrees.listed(repo)} == {two.resolve(), users.resolve()}
    commit_file(two, "new.py", "x = 1\n", "still a worktree")  # its git folder is intact


def test_a_removal_cut_short_is_finished_by_removing_again(repo: Path, tmp_path: Path) -> None:
    place, other = tmp_path / "trees" / "issue-1", tmp_path / "trees" / "issue-2"
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    worktrees.add(repo, other, "feature/x-issue-2", "feature/x")
    shutil.rmtree(place)  # killed after the folder went, before git forgot it

    worktrees.remove(repo, place)

    assert [p.resolve() for p in worktrees.listed(repo)] == [other.resolve()]


def test_the_merge_commit_is_the_users_when_only_their_global_config_names_them(
    repo: Path, tmp_path: Path
) -> None:
    """The harness's git has the global config switched off: a merge once failed there
    ("the branch is not in HEAD") where only ~/.gitconfig named the user."""
    sh_git(repo, "config", "--global", "user.name", "Alice")
    sh_git(repo, "config", "--global", "user.email", "alice@example.org")
    place = tmp_path / "trees" / "issue-1"
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    commit_file(place, "new.py", "x = 1\n", "feat #1")

    outcome = worktrees.merge(repo, "feature/x-issue-1", "Merge issue #1")

    assert outcome.merged
    assert sh_git(repo, "log", "-1", "--format=%an <%ae> %s") == (
        "Alice <alice@example.org> Merge issue #1"
    )


def test_a_model_written_union_attribute_cannot_merge_a_conflict_away(
    repo: Path, tmp_path: Path
) -> None:
    """``* merge=union`` (git's built-in driver) would keep both sides' lines and report
    no conflict: the feature branch would get code nobody reviewed. It conflicts instead."""
    commit_file(repo, ".gitattributes", "* merge=union\n", "an earlier issue's attributes")
    first, second = tmp_path / "t" / "issue-1", tmp_path / "t" / "issue-2"
    worktrees.add(repo, first, "b1", "feature/x")
    worktrees.add(repo, second, "b2", "feature/x")
    commit_file(first, "calc.py", "def one():\n    return 'first'\n", "1")
    commit_file(second, "calc.py", "def one():\n    return 'second'\n", "2")
    assert worktrees.merge(repo, "b1", "m1", IDENTITY).merged

    outcome = worktrees.merge(repo, "b2", "m2", IDENTITY)

    assert not outcome.merged and outcome.conflicts == ("calc.py",)
    assert (repo / "calc.py").read_text() == "def one():\n    return 'first'\n"


def test_a_merge_killed_after_its_commit_leaves_nothing_in_the_way(
    repo: Path, tmp_path: Path
) -> None:
    place = tmp_path / "trees" / "issue-1"
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    commit_file(place, "one.py", "ONE = 1\n", "one")
    assert worktrees.merge(repo, "feature/x-issue-1", "Merge issue #1", IDENTITY).merged
    merged_at = sh_git(repo, "rev-parse", "HEAD")
    tip = sh_git(repo, "rev-parse", "feature/x-issue-1")
    git_dir = Path(sh_git(repo, "rev-parse", "--absolute-git-dir"))
    (git_dir / "MERGE_HEAD").write_text(tip + "\n")  # killed before git dropped its note

    assert "commit was made" in (worktrees.settle_cut_merge(repo) or "")

    assert sh_git(repo, "rev-parse", "HEAD") == merged_at
    assert not (git_dir / "MERGE_HEAD").exists()
    assert sh_git(repo, "status", "--porcelain") == ""
    assert worktrees.settle_cut_merge(repo) is None


def test_a_merge_killed_before_its_commit_is_aborted_and_made_again(
    repo: Path, tmp_path: Path
) -> None:
    place = tmp_path / "trees" / "issue-2"
    worktrees.add(repo, place, "feature/x-issue-2", "feature/x")
    commit_file(place, "two.py", "TWO = 2\n", "two")
    before = sh_git(repo, "rev-parse", "HEAD")
    sh_git(repo, "merge", "--no-ff", "--no-commit", "feature/x-issue-2")  # killed mid-way

    assert "aborted" in (worktrees.settle_cut_merge(repo) or "")

    assert sh_git(repo, "rev-parse", "HEAD") == before
    assert sh_git(repo, "status", "--porcelain") == ""
    outcome = worktrees.merge(repo, "feature/x-issue-2", "Merge issue #2", IDENTITY)
    assert outcome.merged and (repo / "two.py").read_text() == "TWO = 2\n"


def test_an_index_lock_left_by_a_killed_git_is_removed_a_newer_one_kept(
    repo: Path, tmp_path: Path
) -> None:
    place = tmp_path / "trees" / "issue-3"
    worktrees.add(repo, place, "feature/x-issue-3", "feature/x")
    own = Path(sh_git(place, "rev-parse", "--absolute-git-dir"))
    (own / "index.lock").write_text("")
    started = time.time() + 1  # the lock was made before the agent started its slots

    assert worktrees.clear_stale_lock(place, started) == own / "index.lock"
    commit_file(place, "three.py", "THREE = 3\n", "three")  # git works again there

    (own / "index.lock").write_text("")
    assert worktrees.clear_stale_lock(place, time.time() - 60) is None  # a live git's
    assert (own / "index.lock").exists()


def test_a_link_named_like_the_workspace_in_a_worktree_does_not_stop_its_git(
    repo: Path, tmp_path: Path
) -> None:
    place = tmp_path / "trees" / "issue-4"
    worktrees.add(repo, place, "feature/x-issue-4", "feature/x")
    (place / ".claude-agent").symlink_to("../..")  # a session's, aimed at the harness's area
    commit_file(place, "four.py", "FOUR = 4\n", "four")

    assert "four.py" in git.git(place, "show", "--stat", "HEAD")
    worktrees.remove(repo, place)
    assert not place.exists() and (tmp_path / "trees").is_dir()


def test_worktrees_added_and_removed_while_another_thread_lists_them(
    repo: Path, tmp_path: Path
) -> None:
    """Slots run their git in threads: a baseline's worktree being added while another
    slot lists the worktrees once failed the run ("failed to read …/commondir")."""
    errors: list[GitError] = []
    done = threading.Event()

    def churn(number: int) -> None:
        try:
            for round_ in range(40):
                place = tmp_path / "trees" / f"scratch-{number}-{round_}"
                worktrees.add_detached(repo, place, "feature/x")
                worktrees.remove(repo, place)
        except GitError as e:
            errors.append(e)

    def watch() -> None:
        try:
            while not done.is_set():
                worktrees.listed(repo)
        except GitError as e:
            errors.append(e)

    watcher = threading.Thread(target=watch)
    watcher.start()
    churners = [threading.Thread(target=churn, args=(n,)) for n in range(3)]
    for thread in churners:
        thread.start()
    for thread in churners:
        thread.join()
    done.set()
    watcher.join()
    assert errors == []
    assert worktrees.listed(repo) == []


def cut_add(repo: Path, place: Path, *, dot_git_written: bool) -> None:
    """What a kill during ``git worktree add`` leaves: the entry registered and locked
    ("initializing"), the folder there, its ``.git`` file written or not yet."""
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    folders = gitdirs.git_folders(place)
    assert folders is not None
    (folders.git_dir / "locked").write_text("initializing\n")
    if not dot_git_written:
        (place / ".git").unlink()


@pytest.mark.parametrize("dot_git_written", [True, False])
def test_a_worktree_whose_add_was_killed_is_not_ready_and_is_made_again(
    repo: Path, tmp_path: Path, dot_git_written: bool
) -> None:
    place = tmp_path / "trees" / "issue-1"
    cut_add(repo, place, dot_git_written=dot_git_written)
    assert [p.resolve() for p in worktrees.listed(repo)] == [place.resolve()]
    assert worktrees.ready(repo) == []

    worktrees.remove(repo, place)
    assert not place.exists()
    assert worktrees.listed(repo) == []
    worktrees.add(repo, place, "feature/x-issue-1", "feature/x")
    assert [p.resolve() for p in worktrees.ready(repo)] == [place.resolve()]
    assert sh_git(place, "rev-parse", "--abbrev-ref", "HEAD") == "feature/x-issue-1"
