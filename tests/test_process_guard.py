"""The guard that no test leaves a process behind, on a pytest run of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.process_guard import living_descendants

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


def pytest_run(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_it.py").write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.process_guard", "-p",
         "no:cacheprovider", str(tmp_path / "test_it.py")],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def nonce_processes() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # not a process, or gone
        if NONCE.encode() in cmdline:
            found.append(cmdline.decode(errors="replace"))
    return found


def test_what_a_test_left_is_named_killed_and_fails_the_run(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, LEAKY)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    lines = [line for line in done.stdout.splitlines() if "no test may leave" in line]
    assert any(f"{NONCE}-child" in line and "test_leaves_a_child" in line for line in lines)
    assert any(f"{NONCE}-orphan" in line and "test_leaves_an_orphan" in line for line in lines)
    assert nonce_processes() == []


def test_a_session_fixtures_process_and_orphans_that_end_pass(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, TIDY)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no test may leave" not in done.stdout
    assert nonce_processes() == []


def test_this_run_adopts_orphans_and_keeps_none_alive() -> None:
    subprocess.run(["sh", "-c", "(sh -c 'exit 0' &)"], check=True)
    assert [pid for pid in living_descendants(__import__("os").getpid())] == []
