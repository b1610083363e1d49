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
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from agent.core.gates.gate_output import BoundedOutput, short_line
from common.schemas.gates import TestRun

BaselineOutcome = Literal["passes", "fails", "cannot_run"]

_FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
_PASSED_COUNT = re.compile(r"\b(\d+) passed\b")
_MISSING_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_COMMAND_NOT_FOUND = re.compile(r"(?:command not found|not found|No such file or directory)")
_COMMAND_NOT_FOUND_EXITS = (126, 127)
_PYTEST_NOTHING_COLLECTED = 5
_PYTEST_USAGE_ERROR = 4
_TAIL_LINES = 40
DEFAULT_TIMEOUT_S = 900.0
PYCACHE_VARIABLE = "PYTHONPYCACHEPREFIX"
OUTPUT_DRAIN_S = 5.0


class CommandWrap(Protocol):
    """Turns an argv into one that runs it elsewhere (in the OS sandbox, :mod:`agent.sandbox`),
    bound to ``work_tree`` (``None``: the project's; a slot passes its worktree).

    ``overlay``: an empty folder of the caller's where the work tree's overlay lays out
    its upper and work folders (the gate cannot change the work tree); only where the
    wrap can make one (the caller knows: :attr:`agent.core.gates.gate_runs.GateRunner.overlays`),
    else ignored."""

    def __call__(
        self,
        command: Sequence[str],
        work_tree: Path | None = None,
        *,
        overlay: Path | None = None,
    ) -> list[str]: ...


async def run_tests(
    project_dir: Path,
    command: str,
    env: Mapping[str, str] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    *,
    wrap: CommandWrap | None = None,
    overlay: Path | None = None,
) -> TestRun:
    """Run ``command`` in the project through the shell and summarize the outcome.

    ``env`` is the project's environment (:mod:`common.project_env`), never the
    harness's own. ``wrap`` runs the shell inside the sessions' sandbox: the tests
    are code the model wrote. A run that exceeds ``timeout_s`` is killed and
    reported as failed (exit 124). ``overlay``: the wrap shows the work tree as an
    overlay whose writes land in that folder (:mod:`agent.sandbox.overlay`).

    Python's bytecode is read and written under a fresh, empty ``PYTHONPYCACHEPREFIX``
    for each run: a ``__pycache__/m.cpython-311.pyc`` the model planted with the size
    and time of the reviewed ``m.py`` in its header would otherwise run in its place
    (measured: a planted pyc printed ``FORGED`` for a source that says ``real``;
    ``-B`` still reads it). Costs the run a recompile (about 1 s for pytest itself).
    """
    with tempfile.TemporaryDirectory(prefix="harness-pycache-") as pycache:
        environ = {**(os.environ if env is None else env), PYCACHE_VARIABLE: pycache}
        argv = ["/bin/sh", "-c", command]
        if wrap is not None:
            argv = wrap(argv, project_dir, overlay=overlay) if overlay else wrap(argv, project_dir)
        return await _run(project_dir, command, environ, timeout_s, argv)


async def _run(
    project_dir: Path,
    command: str,
    environ: dict[str, str],
    timeout_s: float,
    argv: list[str],
) -> TestRun:
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=project_dir,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        env=environ,
    )
    kept = BoundedOutput()
    reader = asyncio.create_task(_collect(proc, kept))
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
    return summarize(command, exit_code, kept.text(), time.monotonic() - started)


async def _collect(proc: asyncio.subprocess.Process, kept: BoundedOutput) -> None:
    """Read the run's output as it comes, so a timeout keeps what was printed; only its
    head and tail are kept (:mod:`agent.core.gates.gate_output`), the rest is read and dropped."""
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(1 << 16):
        kept.add(chunk)


def _kill_group(pid: int) -> None:
    """End the test run's whole process group (the shell and everything it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def summarize(command: str, exit_code: int, output: str, duration_s: float) -> TestRun:
    """Turn raw runner output into a :class:`TestRun` (closing line, failed test ids)."""
    lines = [short_line(line) for line in output.splitlines() if line.strip()]
    summary = lines[-1].strip("= ").strip() if lines else f"exit status {exit_code}"
    if exit_code == 124:
        summary = f"timed out: {summary}"
    failed = sorted({short_line(name) for name in _FAILED_LINE.findall(output)})
    return TestRun(
        command=command,
        exit_code=exit_code,
        duration_s=round(duration_s, 3),
        summary=summary,
        failed_tests=failed,
        output_tail="\n".join(lines[-_TAIL_LINES:]),
    )


def newly_failing(baseline: TestRun | None, after: TestRun, touched: set[str]) -> list[str]:
    """Regressions: what :func:`blocking_failures` finds, outside this session's files.

    A failing test in a file the session wrote is unfinished work, not a regression.
    """
    return [
        name for name in blocking_failures(baseline, after) if name.split("::", 1)[0] not in touched
    ]


@dataclass(frozen=True)
class Baseline:
    """What the test run before any change says about the project."""

    outcome: BaselineOutcome
    reason: str = ""
    """Why the runner cannot run (``cannot_run`` only), in words a user can act on."""


def classify_baseline(run: TestRun) -> Baseline:
    """Tell a passing suite from a failing one and from a runner that cannot run at all.

    Cannot run: the command or its interpreter is missing (exit 126/127), the runner's
    module is missing (``No module named pytest``), a module the tests import is
    missing during collection, pytest collected nothing (exit 5) or was called wrongly
    (exit 4). Anything else that is not exit 0 is a suite that runs and fails.
    """
    if run.passed:
        return Baseline("passes")
    output = run.output_tail
    if run.exit_code in _COMMAND_NOT_FOUND_EXITS:
        line = _first_line(output, _COMMAND_NOT_FOUND) or run.summary
        return Baseline("cannot_run", f"the command is not found ({line})")
    missing = _MISSING_MODULE.search(output)
    collection_only = all("::" not in name for name in run.failed_tests)  # no test ran
    if missing is not None and (collection_only or "pytest" in missing.group(1)):
        return Baseline("cannot_run", f"No module named {missing.group(1)}")
    if "pytest" in run.command and run.exit_code == _PYTEST_NOTHING_COLLECTED:
        return Baseline("cannot_run", "no tests were collected")
    if "pytest" in run.command and run.exit_code == _PYTEST_USAGE_ERROR:
        return Baseline("cannot_run", f"pytest was called wrongly ({run.summary})")
    if "Missing script" in output:
        return Baseline("cannot_run", _first_line(output, re.compile("Missing script")))
    return Baseline("fails")


def _first_line(output: str, pattern: re.Pattern[str]) -> str:
    for line in output.splitlines():
        if pattern.search(line):
            return line.strip()
    return ""


def blocking_failures(baseline: TestRun | None, after: TestRun) -> list[str]:
    """What in ``after`` stands against an issue being done.

    Failures the issue's baseline already had are not the session's doing (they are
    pre-existing or deferred); everything else is. A run that failed without naming a
    test counts unless the baseline failed without naming one too (only then can the
    two not be told apart): after a baseline that named its failing tests, a run that
    names none did not even run them (the model's ``conftest.py`` calling
    ``sys.exit(3)`` or breaking collection), which is no pre-existing failure.
    """
    if after.passed:
        return []
    before = set(baseline.failed_tests) if baseline is not None else set()
    fresh = [name for name in after.failed_tests if name not in before]
    if fresh:
        return fresh
    if not after.failed_tests and (baseline is None or baseline.passed or before):
        return [f"(the test run failed: {after.summary})"]
    return []


def passed_count(run: TestRun) -> int | None:
    """How many tests the run's closing line says passed (pytest's ``N passed``), if it says."""
    found = _PASSED_COUNT.search(run.summary)
    return int(found.group(1)) if found is not None else None


def fewer_passing(baseline: TestRun | None, after: TestRun) -> list[str]:
    """One line when some of the baseline's passing tests neither pass nor fail now.

    Failures are compared by name; a test that no longer runs has none. A
    ``collect_ignore``, a ``-k``/``--deselect`` in the project's ``addopts``, a
    ``skip``/``xfail`` marker or a ``conftest.py`` hook makes the baseline's tests
    vanish from a run that still exits 0 (or fails only where the baseline failed).
    Every test that passed at the baseline either passes now, fails now, or vanished. A
    run with failures of its own (:func:`blocking_failures`) is refused on those already
    (a collection error in the session's new test file stops every test: unfinished
    work, not a person's call); without any, ``passed before - passed now`` is at least
    the number that vanished (new tests only make it smaller). Above zero is never
    accepted silently: a person sees it as a regression (tests the issue deleted on
    purpose included: deleting tests is a person's call).
    """
    if baseline is None:
        return []
    before = passed_count(baseline)
    if before is None or blocking_failures(baseline, after):
        return []  # failures named or counted already: the issue is not accepted as it is
    # A pytest that said "N passed" before and now says nothing of the kind passed none
    # (``addopts = --collect-only`` exits 0 with "2 tests collected").
    now = passed_count(after) or 0
    vanished = before - now
    if vanished <= 0:
        return []
    return [
        f"(at least {vanished} test(s) that passed before no longer run: "
        f"{before} passed then, {now} now)"
    ]


def failing_checks(baseline: dict[str, TestRun], now: dict[str, TestRun]) -> dict[str, TestRun]:
    """Quality checks that fail now and did not fail before any change.

    A check that already failed at the baseline is reported, never blamed; one with
    no baseline (added later) counts like one that passed.
    """
    return {
        name: run
        for name, run in now.items()
        if not run.passed and (name not in baseline or baseline[name].passed)
    }
