"""Many git objects read with one cat-file process each for sizes and contents."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from agent.core.outbound import blobs, facts
from agent.core.outbound.classify import Kind
from common.errors import GitError

TRICKY = [
    b"",
    b"one line\n",
    b"no newline at the end",
    b"0123456789abcdef0123456789abcdef01234567 blob 3\nabc\n",  # looks like a header
    bytes(range(256)) * 3,
    b"\n\n\n",
]


def store(project: Path, content: bytes) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), "hash-object", "-w", "--stdin"],
        input=content,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path / "p")], check=True)
    return tmp_path / "p"


def test_sizes_and_contents_of_many_objects_in_one_call_each(project: Path) -> None:
    names = [store(project, content) for content in TRICKY]

    assert blobs.sizes(project, names) == {n: len(c) for n, c in zip(names, TRICKY, strict=True)}
    assert blobs.contents(project, names) == dict(zip(names, TRICKY, strict=True))


def test_the_same_object_twice_and_no_objects(project: Path) -> None:
    name = store(project, b"twice\n")

    assert blobs.contents(project, [name, name]) == {name: b"twice\n"}
    assert blobs.sizes(project, []) == {}
    assert blobs.contents(project, []) == {}


def test_a_missing_object_is_a_git_error(project: Path) -> None:
    there = store(project, b"here\n")
    missing = "0" * 40

    with pytest.raises(GitError, match="missing"):
        blobs.sizes(project, [there, missing])
    with pytest.raises(GitError, match="missing"):
        blobs.contents(project, [missing])


@pytest.mark.parametrize("name", ["", "abc def", "abc\nHEAD", "abc\t1"])
def test_a_name_that_would_be_another_request_is_refused(project: Path, name: str) -> None:
    with pytest.raises(GitError, match="not an object name"):
        blobs.contents(project, [name])


@pytest.mark.parametrize(
    "out",
    [
        b"abc blob 10\nshort\n",  # the content is cut short
        b"abc blob 3\nabcX",  # no newline after the content
        b"abc blob 3",  # the header has no end
        b"abc blob three\nabc\n",  # the size is not a number
    ],
)
def test_a_malformed_answer_is_a_git_error(out: bytes) -> None:
    with pytest.raises(GitError):
        blobs.parse_batch(out)


def test_parse_batch_frames_contents_by_their_sizes() -> None:
    out = b"a blob 4\nx\ny\n\nb blob 0\n\nc blob 2\n\n\n\n"

    assert blobs.parse_batch(out) == {"a": b"x\ny\n", "b": b"", "c": b"\n\n"}
    assert blobs.parse_batch_check(b"a blob 4\nb blob 0\n") == {"a": 4, "b": 0}


def test_the_branch_reads_each_change_as_the_work_tree_showed_it(tmp_path: Path) -> None:
    """Every kind of change at once (text, binary, over the limit, a link, an executable
    bit dropped, a deletion): the committed branch, read in one batch, gives the facts the
    work tree gave before the commit (a file over the limit has no head on the branch:
    its content is never read)."""
    project = tmp_path / "p"
    project.mkdir()

    def sh(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(project), *args],
            check=True,
            capture_output=True,
        )

    sh("init", "-q", "-b", "main")
    (project / "run.sh").write_text("echo hi\n")
    (project / "run.sh").chmod(0o755)
    (project / "gone.txt").write_text("bye\n")
    sh("add", "-A")
    sh("commit", "-q", "-m", "base")
    sh("checkout", "-q", "-b", "feature")
    (project / "run.sh").chmod(0o644)
    (project / "gone.txt").unlink()
    (project / "a.txt").write_text("line\n" * 3)
    (project / "bin.dat").write_bytes(b"\x00\x01\n" * 50)
    (project / "big.txt").write_text("x" * 5000)
    (project / "link").symlink_to("a.txt")
    paths = ["a.txt", "big.txt", "bin.dat", "gone.txt", "link", "run.sh"]
    limit = 1000
    before = {seen.facts.path: seen for seen in facts.from_work_tree(project, paths, limit)}
    sh("add", "-A")
    sh("commit", "-q", "-m", "change")

    after = {seen.facts.path: seen for seen in facts.from_branch(project, "main", "feature", limit)}

    assert sorted(after) == paths
    for path in paths:
        expected = before[path].facts
        if path == "big.txt":
            expected = dataclasses.replace(expected, head=b"")
        assert after[path].facts == expected, path
        assert after[path].content == before[path].content, path
    assert after["gone.txt"].facts.kind is Kind.DELETED
    assert after["link"].facts.head == b"a.txt"
