"""FIFOs, sockets and devices in a work tree: found without following links or opening
anything, and the ones git would wait on removed before the harness's git runs."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.paths import WORKSPACE_ROOT_NAME
from common.workspace import git, special_files
from tests.common.test_safe_read import within


@pytest.fixture
def tree() -> Iterator[Path]:
    """A git work tree in a short folder (a socket's path must fit in 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="sf", dir="/tmp") as name:
        root = Path(name)
        git.git(root, "init", "-q", "-b", "main")
        (root / "a.txt").write_text("a\n")
        git.git(root, "add", "a.txt")
        git.git(root, "-c", "user.name=t", "-c", "user.email=t@l", "commit", "-qm", "start")
        yield root


def test_scan_names_fifos_sockets_and_devices_never_following_links(tree: Path) -> None:
    (tree / "data").mkdir()
    os.mkfifo(tree / "data" / "pipe")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tree / "data" / "sock"))
        outside = Path(tempfile.mkdtemp(prefix="sfo", dir="/tmp"))
        os.mkfifo(outside / "elsewhere")
        (tree / "link").symlink_to(outside)
        (tree / "zero").symlink_to("/dev/zero")
        os.mkfifo(tree / ".git" / "hidden")
        (tree / WORKSPACE_ROOT_NAME).mkdir()
        os.mkfifo(tree / WORKSPACE_ROOT_NAME / "own")
        (tree / "nested" / ".git").mkdir(parents=True)
        os.mkfifo(tree / "nested" / ".git" / "inside")

        found = within(10, lambda: special_files.scan(tree))

    assert isinstance(found, special_files.Scan)
    assert [item.line() for item in found.found] == ["data/pipe (a FIFO)", "data/sock (a socket)"]
    assert found.cut is None


def test_a_name_with_escapes_is_shown_escaped(tree: Path) -> None:
    os.mkfifo(tree / "p\x1b[2Jipe\r")
    (item,) = special_files.scan(tree).found
    assert item.line() == "p\\x1b[2Jipe\\r (a FIFO)"


def test_the_walk_is_bounded_in_entries_and_time(tree: Path) -> None:
    for index in range(20):
        (tree / f"f{index}").write_text("")
    os.mkfifo(tree / "pipe")
    assert special_files.scan(tree, max_entries=5).cut == "stopped after 5 entries"
    slow = special_files.scan(tree, budget_s=-1.0)
    assert slow.cut is None, "the clock is read every few thousand entries only"
    many = tree / "many"
    many.mkdir()
    for index in range(5000):
        (many / str(index)).write_text("")
    assert special_files.scan(tree, budget_s=-1.0).cut == "stopped after -1 s"


def test_defuse_removes_the_fifos_git_would_wait_on_and_git_runs_again(tree: Path) -> None:
    (tree / "sub").mkdir()
    for name in (".gitignore", ".gitattributes", ".mailmap", "sub/.gitignore", "sub/pipe"):
        os.mkfifo(tree / name)
    (tree / "a.txt").write_text("changed\n")

    lines = within(10, lambda: special_files.defuse(tree))

    assert lines == [
        "removed .gitattributes (a FIFO): git reads a file of that name and would wait forever",
        "removed .gitignore (a FIFO): git reads a file of that name and would wait forever",
        "removed .mailmap (a FIFO): git reads a file of that name and would wait forever",
        "removed sub/.gitignore (a FIFO): git reads a file of that name and would wait forever",
    ]
    assert (tree / "sub" / "pipe").exists(), "only what git would wait on is removed"
    assert within(30, lambda: git.changed_paths(tree)) == [b"a.txt"]
    assert "a.txt" in str(within(30, lambda: git.git(tree, "diff", "--stat")))
    assert "start" in str(within(30, lambda: git.git(tree, "log", "--oneline")))


def test_a_regular_gitignore_is_kept(tree: Path) -> None:
    (tree / ".gitignore").write_text("build/\n")
    assert special_files.defuse(tree) == []
    assert (tree / ".gitignore").read_text() == "build/\n"
