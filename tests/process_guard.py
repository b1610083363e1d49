"""No test leaves a process behind: the test run adopts every orphan and names what is left.

Why: a process a test started and forgot (a served app, a daemon never stopped, a
``sleep`` a sandbox escapee forked) used to be reparented to PID 1 and run on unseen; two
``python -m http.server`` of the replay tests were found an hour after their run. The
pytest process makes itself a child subreaper, so every orphan of a test becomes its
child: after each test the living descendants are noted with the test they were first
seen after, zombies nobody else will wait for are reaped, and when the session ends
whatever still runs (once fixtures are torn down and a short grace has passed) is named,
killed and fails the run.

Under xdist each worker guards its own tests and hands what was left to the controller,
which reports it. The hooks at the end are the plugin (``tests/conftest.py`` takes them; ``-p
tests.process_guard`` loads them into any run). Cheap: a walk of
``/proc/PID/task/*/children`` from the pytest process after each test (a handful of
files); the objects are searched for live ``Popen`` handles only when a zombie child is
found.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

_PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 5.0
"""How long a process may take to end after the last test (a daemon told to stop)."""


def adopt_orphans() -> bool:
    """Make this process a child subreaper; whether the kernel agreed."""
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    """``pid``'s children, as every thread of it lists them."""
    found: list[int] = []
    try:
        threads = [entry.name for entry in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return found
    for thread in threads:
        found += [int(child) for child in _read(f"/proc/{pid}/task/{thread}/children").split()]
    return found


def state(pid: int) -> str:
    """``R``, ``S``, ``Z``… (field 3 of ``/proc/PID/stat``); ``""`` once it is gone."""
    text = _read(f"/proc/{pid}/stat")
    return text.rsplit(")", 1)[1].split()[0] if ")" in text else ""


def living_descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` that has not exited, parents first."""
    found: list[int] = []
    pending = children(pid)
    while pending:
        child = pending.pop(0)
        if state(child) not in ("", "Z", "X"):
            found.append(child)
            pending += children(child)
    return found


def described(pid: int) -> str:
    """``pid`` and its command line, escaped (it may be anything a test ran)."""
    raw = _read(f"/proc/{pid}/cmdline").replace("\0", " ").strip()
    return f"{pid} ({raw[:160].encode('unicode_escape').decode() or '?'})"


def reap_adopted() -> None:
    """Reap the zombie children no ``Popen`` of this process will wait for: orphans it
    adopted. A child a live ``Popen`` owns is left to it (its exit code is the test's)."""
    zombies = [pid for pid in children(os.getpid()) if state(pid) == "Z"]
    if not zombies:
        return
    owned = {
        handle.pid
        for handle in gc.get_objects()
        if isinstance(handle, subprocess.Popen) and handle.returncode is None
    }
    for pid in zombies:
        if pid not in owned:
            with contextlib.suppress(ChildProcessError):  # reaped meanwhile by its waiter
                os.waitpid(pid, os.WNOHANG)


@dataclass
class Guard:
    """The descendants seen so far, each with the test it was first seen after."""

    enabled: bool = False
    first_seen: dict[int, str] = field(default_factory=dict)

    def after_test(self, nodeid: str) -> None:
        """Note the processes this test left running (they may be a fixture's, legitimately
        running until its scope ends) and reap the orphans that ended."""
        if not self.enabled:
            return
        reap_adopted()
        for pid in living_descendants(os.getpid()):
            self.first_seen.setdefault(pid, nodeid)

    def at_end(self) -> list[str]:
        """Name and kill what is still running once every fixture is gone (after a grace);
        one line per process, empty when nothing was left."""
        if not self.enabled:
            return []
        deadline = time.monotonic() + GRACE_S
        while (left := living_descendants(os.getpid())) and time.monotonic() < deadline:
            reap_adopted()
            time.sleep(0.05)
        lines = []
        for pid in left:
            since = self.first_seen.get(pid, "the session's end")
            lines.append(f"process {described(pid)} was left behind by {since}")
            with contextlib.suppress(OSError):  # ended meanwhile
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
        reap_adopted()
        return lines


GUARD = Guard()


LEFT_KEY = "processes_left"
"""Where an xdist worker hands what its tests left to the controller, which reports it."""
_FROM_WORKERS: list[str] = []


def _controller(config: pytest.Config) -> bool:
    """Whether this process only hands tests to xdist workers (and runs none itself)."""
    workers = getattr(config.option, "numprocesses", None)
    return bool(workers) and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # Each worker guards its own tests (their orphans come to it); the controller's own
    # descendants are the workers.
    GUARD.enabled = not _controller(config) and adopt_orphans()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """A worker ended: take the lines it left (xdist calls this in the controller only)."""
    output = getattr(node, "workeroutput", None) or {}
    _FROM_WORKERS.extend(output.get(LEFT_KEY, []))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield  # the item's fixtures (and those whose scope ends with it) are torn down by now
    GUARD.after_test(item.nodeid)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    lines = GUARD.at_end() + _FROM_WORKERS
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # an xdist worker: its controller reports them
        worker_output[LEFT_KEY] = lines
        return
    if not lines:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for line in lines:
        text = f"no test may leave a process: {line}; killed"
        if reporter is not None:
            reporter.write_line(text, red=True)
        else:
            print(text)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
