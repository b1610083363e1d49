"""The guard that no test leaves a process behind, on a pytest run of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.process_guard import children, described, reap_adopted, state

REPO = Path(__file__).resolve().parents[1]
NONCE = "guard-3e8b51"

LEAKY = f"""
import subprocess


def test_leaves_a_child() -> None:
    subprocess.Popen(["sh", "-c", "sleep 300; : {NONCE}-child"], start_new_session=True)


def test_leaves_an_orphan() -> None:
    subprocess.run(["sh", "-c", "(setsid sh -c 'sleep 301; : {NONCE}-orphan' &)"], check=True)


def test_waits_for_its_own() -> None:
    assert subprocess.run(["sh", "-c", "exit 3"]).returncode == 3
"""
TIDY = f"""
import os
import signal
import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def daemon() -> Iterator[int]:
    process = subprocess.Popen(
        ["sh", "-c", "sleep 300; : {NONCE}-daemon"], start_new_session=True
    )
    yield process.pid
    os.killpg(process.pid, signal.SIGKILL)  # the shell and its sleep
    process.wait()


def test_one(daemon: int) -> None:
    assert daemon


def test_two(daemon: int) -> None:
    orphan = subprocess.run(["sh", "-c", "(sh -c 'exit 0' &)"], check=True)
    assert orphan.returncode == 0
"""


def pytest_run(tmp_path: Path, source: str, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_it.py").write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.process_guard", "-p",
         "no:cacheprovider", *options, str(tmp_path / "test_it.py")],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def nonce_processes(nonce: str = NONCE) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # not a process, or gone
        if nonce.encode() in cmdline:
            found.append(cmdline.decode(errors="replace"))
    return found


@pytest.mark.parametrize("options", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_what_a_test_left_is_named_killed_and_fails_the_run(
    tmp_path: Path, options: list[str]
) -> None:
    """Serial, and under xdist (each worker guards its tests, the controller reports)."""
    nonce = f"guard{len(options)}-3e8b51"  # its own: the other cases may run beside it
    done = pytest_run(tmp_path, LEAKY.replace(NONCE, nonce), *options)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    lines = [line for line in done.stdout.splitlines() if "no test may leave" in line]
    assert any(f"{nonce}-child" in line and "test_leaves_a_child" in line for line in lines)
    assert any(f"{nonce}-orphan" in line and "test_leaves_an_orphan" in line for line in lines)
    assert nonce_processes(nonce) == []


def test_a_session_fixtures_process_and_orphans_that_end_pass(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, TIDY)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no test may leave" not in done.stdout
    assert nonce_processes() == []


def test_this_run_adopts_orphans_and_keeps_none_alive() -> None:
    """An orphan of this test becomes this pytest's child (not init's), and is reaped.
    Only its own orphan is looked at: the run's session fixtures may have processes."""
    marked = "adopt-3e8b51"  # not NONCE: the other tests here look for theirs
    subprocess.run(["sh", "-c", f"(sh -c 'sleep 2; : {marked}' &)"], check=True)
    me = os.getpid()
    deadline = time.monotonic() + 10
    adopted: list[int] = []
    while not adopted and time.monotonic() < deadline:  # until the fork has exec'd
        adopted = [pid for pid in children(me) if marked in described(pid)]
    assert len(adopted) == 1, "the orphan's new parent is this pytest"
    while state(adopted[0]) not in ("", "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    reap_adopted()
    assert state(adopted[0]) == "", "the ended orphan is reaped, not left a zombie"
