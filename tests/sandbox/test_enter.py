"""The launcher in front of every session, gate and replay (:mod:`agent.sandbox.enter`).

Its options and lines are pure; then the real launcher, started as the agent starts it,
in front of real commands: nothing it started outlives it (with or without a cgroup), it
passes signals and exit codes on, and each limit ends the command with one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox import cgroups, enter
from agent.sandbox.limits import REPORT_VARIABLE, Entry, bare_argv, launcher_python
from common.bwrap import find_bwrap, isolated_base, probe, sized_tmpfs
from common.schemas.limits import Limits

NONCE = "enter-9d41c2"
NO_LIMITS = Limits(memory_mb=None, processes=None, cpus=None, file_size_mb=None, disk_mb=None)


def test_the_options_and_the_command_after_the_separator() -> None:
    options = enter.parse(
        ["--what", "gate", "--group", "/a", "--group", "/b", "--memory-mb", "256",
         "--cpus", "0.5", "--tmpfs", "/tmp", "--tmpfs-mb", "64", "--", "sh", "-c", "x --y"]
    )  # fmt: skip

    assert options.what == "gate"
    assert options.groups == ["/a", "/b"]
    assert (options.memory_mb, options.cpus, options.processes) == (256, 0.5, None)
    assert (options.tmpfs, options.tmpfs_mb) == (["/tmp"], 64)
    assert options.command == ["sh", "-c", "x --y"]


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--memory", "1", "--", "x"], "unknown option"),
        (["--what"], "missing value"),
        (["--what", "../x", "--", "x"], "must be a word"),
        (["--processes", "0", "--", "x"], "must be positive"),
        (
            [
                "--",
            ],
            "no command",
        ),
        ([], "no command"),
    ],
)
def test_a_bad_command_line_is_one_line(argv: list[str], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        enter.parse(argv)


def test_each_limit_has_its_line() -> None:
    options = enter.parse(
        ["--what", "session", "--memory-mb", "256", "--processes", "64", "--tmpfs-mb", "64",
         "--file-size-mb", "32", "--disk-max-kb", "9000", "--disk-mb", "8", "--", "x"]
    )  # fmt: skip
    ended = "the harness ended it"

    assert enter.limit_line("memory", options) == (
        f"the session went over its memory limit (256 MB): {ended}"
    )
    assert enter.limit_line("processes", options) == (
        f"the session went over its process limit (64 processes and threads): {ended}"
    )
    assert enter.limit_line("tmpfs", options, "/tmp") == (
        f"the session filled its /tmp (64 MB, its tmpfs limit): {ended}"
    )
    assert enter.limit_line("file_size", options, "big.bin") == (
        f"the session wrote a file up to its file-size limit (32 MB: big.bin): {ended}"
    )
    assert enter.limit_line("disk", options) == (
        "the session grew the work tree past its disk budget (8 MB beyond the project's "
        f"size at the run's start): {ended}"
    )


def launched(
    argv: list[str], cwd: Path, report: Path | None = None, **kw: object
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({REPORT_VARIABLE: str(report)} if report else {})}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def left_behind() -> list[int]:
    """Processes of this test still running (their command line carries the nonce)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if NONCE.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # not a process, or gone
    return found


def test_without_a_cgroup_nothing_the_command_started_outlives_it(tmp_path: Path) -> None:
    script = (
        f"setsid sh -c 'sleep 300; : {NONCE}' & "
        f"(nohup sh -c 'sleep 301; : {NONCE}' >/dev/null 2>&1 &); "
        f"sh -c 'sleep 302; : {NONCE}' & exit 3"
    )
    done = launched([*bare_argv("gate"), "sh", "-c", script], tmp_path)

    assert done.returncode == 3, done.stderr
    assert left_behind() == []


def test_signals_reach_the_command_and_its_code_comes_back(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    script = f"trap 'exit 7' TERM; touch {ready}; while :; do sleep 0.05; done"
    launcher = subprocess.Popen([*bare_argv("gate"), "sh", "-c", script])
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.02)

    launcher.send_signal(signal.SIGTERM)

    assert launcher.wait(30) == 7


def test_when_its_parent_dies_the_launcher_ends_its_command(tmp_path: Path) -> None:
    started = tmp_path / "started"
    inner = [*bare_argv("session"), "sh", "-c", f"touch {started}; sleep 300; : {NONCE}"]
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; "
         "subprocess.Popen(sys.argv[1:]); time.sleep(300)", *inner]
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not (started.exists() and left_behind()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert left_behind(), "the command started"

    parent.kill()
    parent.wait(10)

    deadline = time.monotonic() + 10
    while left_behind() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left_behind() == []


def entry(limits: Limits, found: cgroups.AgentGroups | None = None, **kw: int) -> Entry:
    return Entry(
        limits,
        tuple(found.parents) if found else (),
        frozenset(found.held) if found else frozenset(),
        python=launcher_python(),
        **kw,
    )


def test_a_file_cut_at_the_size_limit_ends_the_command_with_its_line(tmp_path: Path) -> None:
    report = tmp_path / "report"
    limits = NO_LIMITS.model_copy(update={"file_size_mb": 1})
    argv = [*entry(limits).argv("gate"), "sh", "-c", "head -c 5M /dev/zero > big.bin; exit 0"]

    done = launched(argv, tmp_path, report)

    line = "the gate wrote a file up to its file-size limit (1 MB: big.bin): the harness ended it"
    assert (tmp_path / "big.bin").stat().st_size == 1 << 20
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == line
    assert report.read_text() == f"file_size {line}\n"


def test_a_tree_past_its_disk_budget_ends_the_command_with_its_line(tmp_path: Path) -> None:
    report = tmp_path / "report"
    limits = NO_LIMITS.model_copy(update={"disk_mb": 1})
    script = "head -c 3M /dev/urandom > data.bin"
    done = launched([*entry(limits, disk_max_kb=1024).argv("session"), "sh", "-c", script],
                    tmp_path, report)  # fmt: skip

    assert done.returncode == 1
    assert report.read_text().startswith("disk the session grew the work tree past its disk")


def test_a_report_that_is_a_link_is_refused_in_one_line(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    (tmp_path / "report").symlink_to(target)
    limits = NO_LIMITS.model_copy(update={"file_size_mb": 1})
    argv = [*entry(limits).argv("gate"), "sh", "-c", "head -c 2M /dev/zero > big.bin"]

    done = launched(argv, tmp_path, tmp_path / "report")

    assert done.returncode != 0
    assert "launcher: cannot write" in done.stderr and "Traceback" not in done.stderr
    assert not target.exists()


@pytest.fixture
def agent_groups() -> Iterator[cgroups.AgentGroups]:
    found = cgroups.prepare(Limits(memory_mb=128, processes=24, cpus=1.0))
    try:
        if {"memory", "pids"} - set(found.held):
            pytest.skip(f"no memory and pids cgroups for us here: {found.not_set}")
        yield found
    finally:
        found.release()


def test_over_its_memory_the_command_is_ended_alone(
    tmp_path: Path, agent_groups: cgroups.AgentGroups
) -> None:
    limits = Limits(memory_mb=128, processes=24, cpus=1.0, disk_mb=None)
    script = f'python3 -c \'x = b"{NONCE}" * (50 << 20); print("survived")\'; sleep 5'
    report = tmp_path / "report"

    done = launched([*entry(limits, agent_groups).argv("gate"), "sh", "-c", script],
                    tmp_path, report)  # fmt: skip

    line = "the gate went over its memory limit (128 MB): the harness ended it"
    assert done.stderr.splitlines()[-1] == line, done.stderr
    assert done.returncode == 137 and "survived" not in done.stdout
    assert report.read_text() == f"memory {line}\n"
    for parent in agent_groups.parents:  # the command's group is gone with it
        assert not [path for path in Path(parent).iterdir() if path.is_dir()]


def test_past_its_processes_the_command_is_ended_with_everything_it_forked(
    tmp_path: Path, agent_groups: cgroups.AgentGroups
) -> None:
    limits = Limits(memory_mb=128, processes=24, cpus=1.0, disk_mb=None)
    script = f"for i in $(seq 60); do sh -c 'sleep 300; : {NONCE}' & done; wait"

    done = launched([*entry(limits, agent_groups).argv("gate"), "sh", "-c", script], tmp_path)

    line = "the gate went over its process limit (24 processes and threads): the harness ended it"
    assert done.stderr.splitlines()[-1] == line, done.stderr
    assert done.returncode != 0
    assert left_behind() == []


def test_a_full_tmpfs_in_the_sandbox_ends_the_command_with_its_line(tmp_path: Path) -> None:
    bwrap = find_bwrap()
    if probe(bwrap) is not None:
        pytest.skip(f"no bubblewrap here: {probe(bwrap)}")
    assert bwrap is not None
    limits = NO_LIMITS.model_copy(update={"tmpfs_mb": 16})
    sandbox = [str(bwrap), *isolated_base(network=False, tmpfs_bytes=16 << 20)]
    sandbox += [*sized_tmpfs("/var/tmp", 16 << 20)]
    script = f"head -c 40M /dev/zero > /var/tmp/fill; sleep 30; : {NONCE}"
    argv = [*entry(limits).argv("session", tmpfs=["/tmp", "/var/tmp"]), *sandbox]

    started = time.monotonic()
    done = launched([*argv, "sh", "-c", script], tmp_path)

    line = "the session filled its /var/tmp (16 MB, its tmpfs limit): the harness ended it"
    assert done.stderr.splitlines()[-1] == line, done.stderr
    assert time.monotonic() - started < 20, "ended at the limit, not after the sleep"
    assert left_behind() == []
