"""Atomic JSON files: whole or not at all, read through a schema, locked across processes."""

from __future__ import annotations

import fcntl
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel

from common.atomic import (
    cleanup_orphans,
    locked,
    read_model,
    read_model_or_none,
    write_bytes_atomic,
    write_model,
)
from common.errors import StateFileError
from common.schemas.issues import TrackedIssue
from common.schemas.milestone import FileMilestone

ROOT = Path(__file__).resolve().parents[2]
WHEN = datetime(2025, 1, 2, tzinfo=UTC)


class Note(BaseModel):
    title: str
    count: int


def python_env() -> dict[str, str]:
    """The environment for a child python that imports the harness from this checkout."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


class LineReader:
    """Reads a child's stdout line by line with a timeout (no sleeps, no blocking forever)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self.fd = proc.stdout.fileno()
        self.buffer = b""

    def line(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                return None
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\n", 1)
        return head.decode()


@pytest.fixture
def child_processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Children started by a test; any still alive at the end are killed by pid."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=5)


def spawn_python(
    code: str, started: list[subprocess.Popen[bytes]], *args: str
) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=python_env(),
        cwd=ROOT,
    )
    started.append(proc)
    return proc


# --- write and read ---------------------------------------------------------------------


def test_written_model_reads_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "note.json"
    note = Note(title="héllo", count=3)

    write_model(path, note)

    assert read_model(path, Note) == note
    assert path.read_text() == '{\n  "title": "héllo",\n  "count": 3\n}\n'
    assert [p.name for p in path.parent.iterdir()] == ["note.json"]


def test_a_second_write_replaces_the_first_whole(tmp_path: Path) -> None:
    path = tmp_path / "note.json"
    write_model(path, Note(title="a long first title", count=1))

    write_model(path, Note(title="b", count=2))

    assert read_model(path, Note) == Note(title="b", count=2)


def test_reading_a_missing_file_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"

    with pytest.raises(StateFileError, match="does not exist") as caught:
        read_model(path, Note)

    assert caught.value.path == path
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"\xff\xfe\x00", "not valid JSON"),
        (b'{"title": "x"}', "does not match Note: count: Field required"),
        (b'{"title": 1, "count": "many"}', "does not match Note"),
        (b"[1, 2]", "does not match Note"),
    ],
    ids=["garbage", "empty", "binary", "missing-field", "wrong-types", "not-an-object"],
)
def test_reading_a_broken_file_raises_state_file_error_naming_the_path(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)

    with pytest.raises(StateFileError) as caught:
        read_model(path, Note)

    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in caught.value.problem


def test_schema_error_counts_the_other_problems(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"title": 1, "count": "many"}')

    with pytest.raises(StateFileError, match=r"\(and 1 more\)"):
        read_model(path, Note)


def test_read_model_or_none_is_none_only_for_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "maybe.json"
    assert read_model_or_none(path, Note) is None

    write_model(path, Note(title="t", count=1))
    assert read_model_or_none(path, Note) == Note(title="t", count=1)

    path.write_text("{")
    with pytest.raises(StateFileError):
        read_model_or_none(path, Note)


def test_a_failed_replace_leaves_no_temp_file_and_raises(tmp_path: Path) -> None:
    target = tmp_path / "is_a_folder"
    target.mkdir()
    (target / "child").write_text("keep")

    with pytest.raises(OSError):
        write_bytes_atomic(target, b"data")

    assert sorted(p.name for p in tmp_path.iterdir()) == ["is_a_folder"]
    assert (target / "child").read_text() == "keep"


def test_cleanup_orphans_removes_only_temp_files(tmp_path: Path) -> None:
    orphans = [tmp_path / ".tmp-state.json.abc123", tmp_path / ".tmp-x"]
    keep = [
        tmp_path / "state.json",
        tmp_path / "tmp-state.json",
        tmp_path / "state.json.tmp-1",
        tmp_path / ".hidden",
    ]
    for path in [*orphans, *keep]:
        path.write_text("x")
    nested = tmp_path / "sub"
    nested.mkdir()
    (nested / ".tmp-nested").write_text("x")

    removed = cleanup_orphans(tmp_path)

    assert sorted(removed) == sorted(orphans)
    assert all(path.exists() for path in keep)
    assert not any(path.exists() for path in orphans)
    assert (nested / ".tmp-nested").exists()


def test_cleanup_orphans_of_a_missing_folder_removes_nothing(tmp_path: Path) -> None:
    assert cleanup_orphans(tmp_path / "nowhere") == []


# --- locking across processes -----------------------------------------------------------

HOLD_LOCK = """
import sys
from pathlib import Path
from common.atomic import locked
print("started", flush=True)
with locked(Path(sys.argv[1])):
    print("acquired", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


def test_locked_makes_a_second_process_wait(
    tmp_path: Path, child_processes: list[subprocess.Popen[bytes]]
) -> None:
    lock = tmp_path / "locks" / "state.lock"

    with locked(lock):
        proc = spawn_python(HOLD_LOCK, child_processes, str(lock))
        out = LineReader(proc)
        assert out.line(timeout=10) == "started"
        assert out.line(timeout=0.4) is None, "the child got the lock while we held it"

    assert out.line(timeout=10) == "acquired"
    assert proc.stdin is not None
    proc.stdin.write(b"\n")
    proc.stdin.flush()
    assert out.line(timeout=10) == "released"
    assert proc.wait(timeout=10) == 0


def test_a_lock_held_by_another_process_cannot_be_taken(
    tmp_path: Path, child_processes: list[subprocess.Popen[bytes]]
) -> None:
    lock = tmp_path / "state.lock"
    proc = spawn_python(HOLD_LOCK, child_processes, str(lock))
    out = LineReader(proc)
    assert out.line(timeout=10) == "started"
    assert out.line(timeout=10) == "acquired"

    fd = os.open(lock, os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert proc.stdin is not None
        proc.stdin.write(b"\n")
        proc.stdin.flush()
        assert out.line(timeout=10) == "released"
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again once the child let go
    finally:
        os.close(fd)


def test_locked_releases_the_lock_when_the_body_raises(tmp_path: Path) -> None:
    lock = tmp_path / "state.lock"

    with pytest.raises(RuntimeError), locked(lock):
        raise RuntimeError("boom")

    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


# --- SIGKILL in the middle of writes ----------------------------------------------------

#: Reads the two contents once, then forks one writer per line on stdin. The writer loops
#: write_model(B), write_model(A) on the target until the test SIGKILLs it; the launcher
#: reports the writer's pid, then how it died.
WRITER_LAUNCHER = """
import os, sys, time
from pathlib import Path
from common.atomic import read_model, write_model
from common.schemas.milestone import FileMilestone

target = Path(sys.argv[1])
contents = [read_model(Path(name), FileMilestone) for name in sys.argv[2:4]]
started = time.monotonic()
write_model(target, contents[0])
write_model(target, contents[0])
print("ready", time.monotonic() - started, flush=True)  # two writes, on this machine now
for _ in sys.stdin:
    pid = os.fork()
    if pid == 0:
        while True:
            write_model(target, contents[1])
            write_model(target, contents[0])
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(os.WTERMSIG(status) if os.WIFSIGNALED(status) else -1, flush=True)
"""

KILLS = 40


def big_milestone(letter: str) -> FileMilestone:
    """About 1.2 MB of JSON; the two variants have the same shape and size."""
    return FileMilestone(
        title=f"milestone {letter}",
        issues=[
            TrackedIssue(iid=i, title=f"{letter}{i}", description=letter * 400, created_at=WHEN)
            for i in range(1, 2001)
        ],
        created_at=WHEN,
    )


def test_sigkill_during_writes_never_leaves_a_torn_file(
    tmp_path: Path, child_processes: list[subprocess.Popen[bytes]]
) -> None:
    first, second = big_milestone("a"), big_milestone("b")
    assert len(first.model_dump_json(indent=2)) > 1_000_000
    write_model(tmp_path / "a.json", first)
    write_model(tmp_path / "b.json", second)
    state = tmp_path / "state"
    target = state / "milestone.json"
    write_model(target, first)
    seed = int.from_bytes(os.urandom(4), "big")
    moments = random.Random(seed)
    launcher = spawn_python(
        WRITER_LAUNCHER,
        child_processes,
        str(target),
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    )
    out = LineReader(launcher)
    assert launcher.stdin is not None
    ready = out.line(timeout=30)
    assert ready is not None and ready.startswith("ready "), ready
    # Kills spread over two writes as long as they take here: a loaded machine's slower
    # writes are still cut inside and between them.
    cycle = float(ready.split()[1])
    seen: list[str] = []
    orphans = 0

    for kill in range(KILLS):
        launcher.stdin.write(b"go\n")
        launcher.stdin.flush()
        pid_line = out.line(timeout=30)
        assert pid_line is not None
        time.sleep(moments.uniform(0.0, 2 * cycle))
        os.kill(int(pid_line), signal.SIGKILL)
        assert out.line(timeout=30) == str(int(signal.SIGKILL))

        found = read_model(target, FileMilestone)

        assert found in (first, second), f"kill {kill} (seed {seed}) left a third content"
        seen.append(found.title)
        orphans += len(cleanup_orphans(state))

    launcher.stdin.close()
    assert launcher.wait(timeout=5) == 0
    assert set(seen) == {"milestone a", "milestone b"}, f"writers never alternated (seed {seed})"
    assert orphans > 0, f"no kill landed inside a write (seed {seed}); the test proved nothing"
    assert sorted(p.name for p in state.iterdir()) == ["milestone.json"]
