"""The agent's own control groups: where they go (pure), and made on this machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.sandbox import cgroups
from agent.sandbox.cgroups import Membership, Mount
from common.schemas.limits import Limits

V1_CGROUP = """9:name=systemd:/
8:pids:/
4:memory:/process_api/06073bc5
2:cpu,cpuacct:/user.slice
0::/
"""
MOUNTINFO = """\
25 30 0:23 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755
33 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
36 25 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 25 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
42 25 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd
43 25 0:38 /docker/abc /sys/fs/cgroup/unified\\040dir rw - cgroup2 cgroup2 rw,nsdelegate
"""


def test_proc_self_cgroup_names_each_hierarchy_and_ours_in_it() -> None:
    found = cgroups.memberships(V1_CGROUP)

    assert found == [
        Membership((), "/"),
        Membership(("pids",), "/"),
        Membership(("memory",), "/process_api/06073bc5"),
        Membership(("cpu", "cpuacct"), "/user.slice"),
        Membership((), "/", v2=True),
    ]


def test_mountinfo_gives_each_cgroup_hierarchy_its_folder_and_root() -> None:
    found = cgroups.mounts(MOUNTINFO)

    assert found == [
        Mount("/sys/fs/cgroup/cpu,cpuacct", "/", ("cpu",), v2=False),
        Mount("/sys/fs/cgroup/memory", "/", ("memory",), v2=False),
        Mount("/sys/fs/cgroup/pids", "/", ("pids",), v2=False),
        Mount("/sys/fs/cgroup/systemd", "/", (), v2=False),
        Mount("/sys/fs/cgroup/unified dir", "/docker/abc", (), v2=True),
    ]


@pytest.mark.parametrize(
    ("path", "root", "expected"),
    [
        ("/process_api/06073bc5", "/", "/m/process_api/06073bc5"),
        ("/", "/", "/m"),
        ("/docker/abc/agent", "/docker/abc", "/m/agent"),
        ("/docker/abc", "/docker/abc", "/m"),
        ("/docker/abcd", "/docker/abc", None),
        ("/elsewhere", "/docker/abc", None),
    ],
)
def test_our_folder_is_the_mount_point_plus_our_path_below_its_root(
    path: str, root: str, expected: str | None
) -> None:
    mount = Mount("/m", root, ("memory",), v2=False)
    assert cgroups.own_dir(Membership(("memory",), path), mount) == expected


ALL = {"memory", "pids", "cpu"}


@pytest.mark.parametrize(
    ("is_root", "available", "enabled", "procs", "expected"),
    [
        (False, ALL, ALL, [7], "use"),
        (True, ALL, set(), [1, 7, 9], "use"),
        (False, ALL, set(), [7], "move_self"),
        (False, ALL, {"cpu"}, [], "move_self"),
        (False, ALL, set(), [7, 9], "refuse: cgroup v2 without a delegated group"),
        (False, set(), set(), [7], "refuse: cgroup v2 offers none"),
    ],
)
def test_on_cgroup_v2_the_agent_moves_only_itself(
    is_root: bool, available: set[str], enabled: set[str], procs: list[int], expected: str
) -> None:
    decision = cgroups.v2_decision(
        is_root=is_root, available=available, enabled=enabled, procs=procs, me=7
    )
    assert decision.startswith(expected)


def test_only_the_limits_the_spec_sets_need_a_controller() -> None:
    assert cgroups.wanted(Limits()) == ["memory", "pids", "cpu"]
    assert cgroups.wanted(Limits(memory_mb=None, cpus=None)) == ["pids"]
    assert cgroups.wanted(Limits(memory_mb=None, processes=None, cpus=None)) == []


def fake_proc(tmp_path: Path, cgroup: str, folder: Path) -> str:
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(f"43 25 0:38 / {folder} rw - cgroup2 cgroup2 rw\n")
    return str(proc)


def test_a_v2_group_shared_with_other_processes_says_which_limits_do_not_hold(
    tmp_path: Path,
) -> None:
    unified = tmp_path / "unified"
    (unified / "user.slice").mkdir(parents=True)
    (unified / "user.slice" / "cgroup.type").write_text("domain\n")
    (unified / "user.slice" / "cgroup.controllers").write_text("cpu memory pids\n")
    (unified / "user.slice" / "cgroup.subtree_control").write_text("")
    (unified / "user.slice" / "cgroup.procs").write_text(f"1\n{os.getpid()}\n")

    found = cgroups.prepare(Limits(), fake_proc(tmp_path, "0::/user.slice\n", unified))

    assert found.parents == [] and found.held == {}
    assert set(found.not_set) == {"memory", "pids", "cpu"}
    assert found.not_set["memory"].startswith("cgroup v2 without a delegated group")
    made = [path for path in (unified / "user.slice").iterdir() if path.is_dir()]
    assert made == [], "nothing made, nothing moved"


def test_without_cgroup_information_every_limit_is_said_not_to_hold(tmp_path: Path) -> None:
    found = cgroups.prepare(Limits(cpus=None), str(tmp_path / "no-proc"))
    assert set(found.not_set) == {"memory", "pids"}
    assert "no cgroup information" in found.not_set["pids"]


def test_on_this_machine_the_agents_groups_are_made_probed_and_removed() -> None:
    found = cgroups.prepare(Limits())
    made = list(found.parents)
    try:
        if not found.held:
            pytest.skip(f"no cgroup for us here: {found.not_set}")
        for parent in made:
            name = Path(parent).name
            assert name.startswith(f"harness-{os.getpid()}-")
            assert not [p for p in Path(parent).iterdir() if p.is_dir()], "the probe is gone"
    finally:
        found.release()
    assert made and not [parent for parent in made if Path(parent).exists()]
