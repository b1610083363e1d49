"""File names cross the harness as bytes: a hostile name is kept out and shown escaped,
and the honest files are committed; a stale list never fails the commit (resume)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.core.git import commits
from common.workspace import git, pathnames

HOSTILE = [
    (b"cr\rname.py", "cr\\rname.py"),
    (b"nl\nname.py", "nl\\nname.py"),
    (b"esc\x1b[32mGREEN.py", "esc\\x1b[32mGREEN.py"),
    ("bidi\u202egnp.py".encode(), "bidi<U+202E>gnp.py"),
    ("zero\u200bwidth.py".encode(), "zero<U+200B>width.py"),
    (b"tab\tname.py", "tab\\tname.py"),
    (b"del\x7fname.py", "del\\x7fname.py"),
    (b"bell\x07.py", "bell\\x07.py"),
    (b"invalid\xff\xfe.py", "invalid\\xff\\xfe.py"),
]


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
    sh_git(root, "add", ".")
    sh_git(root, "commit", "-q", "-m", "initial")
    return root


def write(repo: Path, raw: bytes, text: bytes = b"x\n") -> None:
    (repo / os.fsdecode(raw)).write_bytes(text)


@pytest.mark.parametrize(("raw", "shown"), HOSTILE, ids=[s for _, s in HOSTILE])
def test_a_hostile_name_is_kept_out_shown_escaped_and_the_honest_files_commit(
    repo: Path, raw: bytes, shown: str
) -> None:
    write(repo, raw)
    (repo / "app.py").write_text("x = 2\n")
    (repo / "new.py").write_text("y = 1\n")

    assert raw in git.changed_paths(repo)
    changes = commits.session_changes(repo, touched={"app.py"}, dirty_before=set())
    sha = commits.commit(repo, changes.files, "feat(#1): honest\n", allow_empty=True)

    assert changes.files == ["app.py", "new.py"]
    assert [item.path for item in changes.kept_out] == [shown]
    line = commits.kept_out_line(changes.kept_out)
    assert shown in line and line.isprintable()
    assert sh_git(repo, "show", "--name-only", "--format=", sha).split() == ["app.py", "new.py"]
    # What is left is the hostile file only, still there, still uncommitted.
    assert git.changed_paths(repo) == [raw]


def test_the_changed_files_text_is_storable_and_stable(repo: Path) -> None:
    for raw, _ in HOSTILE:
        write(repo, raw)
    keys = git.changed_files(repo)
    assert sorted(keys) == sorted(shown for _, shown in HOSTILE)
    for key in keys:
        key.encode("utf-8")  # JSON-safe: no lone surrogate
    # A key taken before the session counts as "dirty before": never reported again.
    changes = commits.session_changes(repo, touched=set(), dirty_before=set(keys))
    assert changes.files == [] and changes.kept_out == []


def test_a_glob_like_name_commits_that_file_only(repo: Path) -> None:
    (repo / "*").write_text("star\n")
    (repo / "other.py").write_text("o\n")
    sha = commits.commit(repo, ["*"], "feat(#1): star\n")
    assert sh_git(repo, "show", "--name-only", "--format=", sha).split() == ["*"]
    assert "other.py" in sh_git(repo, "status", "--porcelain")


def test_a_stale_file_list_never_fails_the_commit(repo: Path) -> None:
    """A verdict saved before a restart names paths that are gone or cannot be committed
    (the old text reading turned ``\\r`` into ``\\n``); the resumed commit still succeeds."""
    (repo / "app.py").write_text("x = 5\n")
    stale = ["app.py", "deleted-since.py", "cr\nname.py", "vendor/lib/", "esc\x1b.py"]

    sha = commits.commit(repo, stale, "feat(#1): resumed\n", allow_empty=True)

    assert sh_git(repo, "show", "--name-only", "--format=", sha).split() == ["app.py"]


def test_a_stale_list_with_nothing_left_makes_an_empty_commit_that_takes_nothing_staged(
    repo: Path,
) -> None:
    (repo / "users.txt").write_text("the user's own staged work\n")
    sh_git(repo, "add", "users.txt")

    sha = commits.commit(repo, ["gone.py", "cr\rname.py"], "feat(#1): verdict\n", allow_empty=True)

    assert sh_git(repo, "show", "--name-only", "--format=", sha).split() == []
    assert "A  users.txt" in sh_git(repo, "status", "--porcelain")
    with pytest.raises(ValueError, match="at least one file"):
        commits.commit(repo, ["gone.py"], "feat(#1): nothing\n")


def test_a_deleted_hostile_name_leaves_nothing_behind(repo: Path) -> None:
    write(repo, b"cr\rname.py")
    first = commits.session_changes(repo, touched=set(), dirty_before=set())
    (repo / "cr\rname.py").unlink()
    (repo / "app.py").write_text("x = 9\n")

    second = commits.session_changes(repo, touched=set(), dirty_before=set())
    sha = commits.commit(repo, second.files, "feat(#1)\n")

    assert [item.path for item in first.kept_out] == ["cr\\rname.py"]
    assert second.kept_out == [] and second.files == ["app.py"]
    assert sh_git(repo, "show", "--name-only", "--format=", sha).split() == ["app.py"]


def test_a_failing_git_names_the_hostile_path_escaped(repo: Path) -> None:
    with pytest.raises(Exception, match=r"esc\\x1b") as failed:
        git.git(repo, "show", "HEAD:esc\x1b.py")
    assert "\x1b" not in str(failed.value)


@pytest.mark.parametrize(
    ("raw", "refused"),
    [
        (b"src/app.py", False),
        ("caf\u00e9/na\u00efve.py".encode(), False),
        (b"with space.py", False),
        (b"a\\rb.py", False),
        *((raw, True) for raw, _ in HOSTILE),
    ],
)
def test_refusal_takes_plain_printable_utf8_names_only(raw: bytes, refused: bool) -> None:
    assert (pathnames.refusal(raw) is not None) is refused
    key = pathnames.key(raw)
    assert key.isprintable()
    if not refused:
        assert pathnames.encoded(key) == raw
