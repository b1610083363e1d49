"""One control group per command: which files its limits take (pure) and its life on this
machine (made, limited, emptied, removed, swept)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox import cgroups, groups
from common.schemas.limits import Limits

V2 = {"memory.max", "memory.swap.max", "pids.max", "cpu.max", "cgroup.procs"}
V1_MEMORY = {"memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "cgroup.procs"}
V1_CPU = {"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us", "cpu.shares"}


def test_cgroup_v2_gets_memory_without_swap_processes_and_a_cpu_quota() -> None:
    assert groups.limit_writes(V2, 256 << 20, 64, 0.5) == [
        ("memory.max", "268435456"),
        ("memory.swap.max", "0"),
        ("pids.max", "64"),
        ("cpu.max", "500000 1000000"),
    ]
    assert groups.limit_writes(V2 | {"cpu.max.burst"}, None, None, 0.5) == [
        ("cpu.max", "500000 1000000"),
        ("cpu.max.burst", "500000"),
    ]


def test_cgroup_v1_sets_memsw_after_the_memory_limit_and_the_period_before_the_quota() -> None:
    assert groups.limit_writes(V1_MEMORY | {"pids.max"} | V1_CPU, 1 << 30, 16, 1.5) == [
        ("memory.limit_in_bytes", "1073741824"),
        ("memory.memsw.limit_in_bytes", "1073741824"),
        ("pids.max", "16"),
        ("cpu.cfs_period_us", "1000000"),
        ("cpu.cfs_quota_us", "1500000"),
        ("cpu.cfs_burst_us", "1500000"),
    ]


def test_only_what_the_group_has_and_the_spec_asks_is_written() -> None:
    assert groups.limit_writes({"memory.limit_in_bytes"}, 1 << 20, 16, 1.0) == [
        ("memory.limit_in_bytes", "1048576")
    ]
    assert groups.limit_writes(V2, None, None, None) == []
    assert groups.limit_writes(set(), 1 << 20, 16, 1.0) == []
    assert groups.limit_writes({"cpu.max"}, None, None, 0.001) == [("cpu.max", "1000 1000000")]


@pytest.mark.parametrize(
    ("text", "key", "count"),
    [
        ("low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 0\n", "oom_kill", 2),
        ("oom_kill_disable 0\nunder_oom 0\noom_kill 5\n", "oom_kill", 5),
        ("max 7\n", "max", 7),
        ("max 7\n", "oom_kill", 0),
        ("", "max", 0),
        ("max x\n", "max", 0),
    ],
)
def test_an_events_file_gives_its_counter(text: str, key: str, count: int) -> None:
    assert groups.counter(text, key) == count


@pytest.fixture
def pids_parent() -> Iterator[str]:
    """The test's own pids group (as the agent makes its own), removed after."""
    found = cgroups.prepare(Limits(memory_mb=None, cpus=None))
    try:
        if "pids" not in found.held:
            pytest.skip(f"no pids cgroup for us here: {found.not_set}")
        yield found.parents[0]
    finally:
        found.release()


def in_group(group: str, argv: list[str]) -> subprocess.Popen[bytes]:
    def join() -> None:
        groups.join([group])

    return subprocess.Popen(argv, preexec_fn=join, start_new_session=True)


def test_a_group_is_limited_emptied_and_removed(pids_parent: str) -> None:
    group = groups.make(pids_parent, "gate-1")
    assert groups.limit(group, None, 20, None) == []
    assert Path(group, "pids.max").read_text().strip() == "20"
    sleepers = [in_group(group, ["sleep", "60"]) for _ in range(3)]
    assert sorted(groups.pids(group)) == sorted(p.pid for p in sleepers)

    assert groups.kill_all(group, lambda: [p.poll() for p in sleepers])
    groups.remove(group)

    assert [p.wait(5) for p in sleepers] == [-9, -9, -9]
    assert not Path(group).exists()


def test_a_dead_launchers_group_is_swept_a_living_ones_kept(pids_parent: str) -> None:
    gone_pid = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # never a process
    stale = groups.make(pids_parent, f"gate-{gone_pid}")
    leftover = in_group(stale, ["sleep", "60"])
    alive = groups.make(pids_parent, f"session-{os.getpid()}")

    groups.sweep(pids_parent)

    assert leftover.wait(5) == -9
    assert not Path(stale).exists() and Path(alive).exists()
    groups.sweep(pids_parent, every=True)
    assert not Path(alive).exists()
