"""Quality gates the harness runs itself: the project's test suite.

Whether an issue is done is decided here, from exit codes and test names,
never from what the model says.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from pathlib import Path

from common.schemas.gates import TestRun

_FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
_TAIL_LINES = 40
DEFAULT_TIMEOUT_S = 900.0
OUTPUT_DRAIN_S = 5.0


def detect_test_command(project_dir: Path) -> str | None:
    """Guess the project's test command from its files (pytest, npm, go, cargo)."""
    if (project_dir / "package.json").exists():
        return "npm test --silent"
    if (project_dir / "go.mod").exists():
        return "go test ./..."
    if (project_dir / "Cargo.toml").exists():
        return "cargo test"
    python_markers = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "tests")
    if any((project_dir / marker).exists() for marker in python_markers):
        return "python -m pytest -q"
    return None


async def run_tests(
    project_dir: Path, command: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> TestRun:
    """Run ``command`` in the project through the shell and summarize the outcome.

    A run that exceeds ``timeout_s`` is killed and reported as failed (exit 124).
    """
    started = time.monotonic()
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=project_dir,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    chunks: list[bytes] = []
    reader = asyncio.create_task(_collect(proc, chunks))
    try:
        exit_code = await asyncio.wait_for(proc.wait(), timeout_s)
    except TimeoutError:
        _kill_group(proc.pid)
        await proc.wait()
        exit_code = 124
    # A background child may hold the pipe open after the shell exits: bound the wait.
    try:
        await asyncio.wait_for(reader, OUTPUT_DRAIN_S)
    except TimeoutError:
        _kill_group(proc.pid)
    output = b"".join(chunks).decode(errors="replace")
    return summarize(command, exit_code, output, time.monotonic() - started)


async def _collect(proc: asyncio.subprocess.Process, chunks: list[bytes]) -> None:
    """Read the run's output as it comes, so a timeout keeps what was printed."""
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(1 << 16):
        chunks.append(chunk)


def _kill_group(pid: int) -> None:
    """End the test run's whole process group (the shell and everything it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def summarize(command: str, exit_code: int, output: str, duration_s: float) -> TestRun:
    """Turn raw runner output into a :class:`TestRun` (closing line, failed test ids)."""
    lines = [line for line in output.splitlines() if line.strip()]
    summary = lines[-1].strip("= ").strip() if lines else f"exit status {exit_code}"
    if exit_code == 124:
        summary = f"timed out: {summary}"
    failed = sorted(set(_FAILED_LINE.findall(output)))
    return TestRun(
        command=command,
        exit_code=exit_code,
        duration_s=round(duration_s, 3),
        summary=summary,
        failed_tests=failed,
        output_tail="\n".join(lines[-_TAIL_LINES:]),
    )


def newly_failing(before: list[str] | None, after: TestRun, touched: set[str]) -> list[str]:
    """Tests failing now that did not fail before and do not belong to this session's files.

    A failing test in a file the session wrote is unfinished work, not a regression.
    A run that failed without naming a test (a collection error, a crash) counts as a
    regression when the run before it passed.
    """
    if after.passed:
        return []
    previous = set(before or [])
    fresh = [name for name in after.failed_tests if name not in previous]
    foreign = [name for name in fresh if name.split("::", 1)[0] not in touched]
    if not after.failed_tests and before is not None and not before:
        return [f"(test run failed: {after.summary})"]
    return foreign
