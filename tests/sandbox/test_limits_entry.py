"""The launcher's command line for an agent, the lines that say which limits hold, and the
report a launcher leaves (pure, but for reading the report)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.frontend.specs import parse_specs
from agent.sandbox.cgroups import AgentGroups
from agent.sandbox.limits import CODE_ROOT, Entry, machine_limits, read_report, shown_kb
from common.errors import SpecError
from common.schemas.limits import Limits

PYTHON = Path("/usr/bin/python3")
V1 = AgentGroups(
    parents=["/cg/memory/a/harness-1-x", "/cg/pids/harness-1-y"],
    held={"memory": "cgroup v1", "pids": "cgroup v1"},
    not_set={"cpu": "cannot make a cgroup in /cg/cpu (Permission denied)"},
)


def test_the_entry_asks_each_group_only_the_limits_that_hold_here() -> None:
    entry = Entry.for_agent(Limits(), V1, baseline_kb=2048)
    entry = Entry(entry.limits, entry.parents, entry.held, entry.disk_max_kb, PYTHON)

    argv = entry.argv("session", tmpfs=["/tmp", "/home/h"])

    assert argv[:6] == [str(PYTHON), "-I", "-S", "-c", argv[4], str(CODE_ROOT)]
    assert "from agent.sandbox.enter import main" in argv[4]
    assert entry.argv("gate", subreaper=True)[6:9] == ["--what", "gate", "--subreaper"]
    assert argv[6:] == [
        "--what", "session",
        "--group", "/cg/memory/a/harness-1-x",
        "--group", "/cg/pids/harness-1-y",
        "--memory-mb", "3072",
        "--processes", "1024",
        "--file-size-mb", "1024",
        "--tmpfs", "/tmp",
        "--tmpfs", "/home/h",
        "--tmpfs-mb", "512",
        "--disk-max-kb", str(2048 + 4096 * 1024),
        "--disk-mb", "4096",
        "--",
    ]  # fmt: skip


def test_without_a_baseline_or_a_budget_there_is_no_disk_watch() -> None:
    assert "--disk-max-kb" not in Entry.for_agent(Limits(), V1, None).argv("gate")
    off = Limits(disk_mb=None, file_size_mb=None)
    argv = Entry.for_agent(off, AgentGroups(), 10).argv("gate")
    assert "--disk-max-kb" not in argv and "--file-size-mb" not in argv and argv[-1] == "--"


def test_the_machine_lines_say_what_holds_and_what_could_not_be_set() -> None:
    machine = machine_limits(Limits(), V1, sandboxed=True, baseline_kb=3 * 1024)

    assert machine.held == [
        "memory 3072 MB per session or gate, swap off (cgroup v1)",
        "processes 1024 per session or gate (cgroup v1)",
        "file size 1024 MB (RLIMIT_FSIZE)",
        "tmpfs 512 MB each for /tmp, /var/tmp, /run and the home",
        "disk 4096 MB beyond the project's 3.0 MB at the run's start, per work tree "
        "(measured every 10 s and after each session and gate)",
    ]
    assert machine.not_set == ["cpu: cannot make a cgroup in /cg/cpu (Permission denied)"]


def test_without_a_memory_cgroup_the_lines_say_what_still_bounds_memory() -> None:
    none = AgentGroups(not_set={"memory": "no cgroup hierarchy has it here"})

    sandboxed = machine_limits(Limits(processes=None, cpus=None), none, sandboxed=True,
                               baseline_kb=None)  # fmt: skip
    bare = machine_limits(Limits(processes=None, cpus=None), none, sandboxed=False,
                          baseline_kb=None)  # fmt: skip

    assert sandboxed.not_set[0] == (
        "memory: no cgroup hierarchy has it here (only the tmpfs sizes bound what files in "
        "RAM take)"
    )
    assert bare.not_set[0].endswith("(nothing bounds what a session allocates)")
    assert "disk: the project could not be measured at the run's start" in bare.not_set
    assert not [line for line in bare.held if line.startswith("tmpfs")]


@pytest.mark.parametrize(("kb", "shown"), [(12, "12 KB"), (3 * 1024 + 512, "3.5 MB"),
                                          (2 << 20, "2.0 GB")])  # fmt: skip
def test_sizes_for_people(kb: int, shown: str) -> None:
    assert shown_kb(kb) == shown


def test_a_report_is_read_once_and_never_through_a_link(tmp_path: Path) -> None:
    report = tmp_path / "limit"
    report.write_text("memory the session went over its memory limit (256 MB): ended\nmore\n")

    assert read_report(report) == (
        "memory",
        "the session went over its memory limit (256 MB): ended",
    )
    assert not report.exists() and read_report(report) is None

    secret = tmp_path / "secret"
    secret.write_text("disk x")
    report.symlink_to(secret)
    assert read_report(report) is None
    os.mkfifo(tmp_path / "fifo")
    assert read_report(tmp_path / "fifo") is None


@pytest.mark.parametrize(
    ("limits", "says"),
    [
        ({"memory_mb": 10}, "limits.memory_mb: input should be greater than or equal to 64"),
        ({"processes": 1}, "limits.processes: input should be greater than or equal to 16"),
        ({"cpus": 0}, "limits.cpus: input should be greater than 0"),
        ({"cpus": "nan"}, "limits.cpus: input should be a finite number"),
        ({"tmpfs_mb": None}, "limits.tmpfs_mb: input should be a valid integer"),
        ({"file_size_mb": 0}, "limits.file_size_mb: input should be greater than or equal to 1"),
        ({"memory_mb": 1 << 40}, "limits.memory_mb: input should be less than or equal to"),
        ({"swap": 1}, "limits.swap: extra inputs are not permitted"),
    ],
)
def test_a_bad_limit_in_the_spec_is_one_line(limits: dict[str, object], says: str) -> None:
    spec = {"spec_file": "/s.md", "project_dir": "/p", "target_branch": "main", "limits": limits}
    with pytest.raises(SpecError) as caught:
        parse_specs(json.dumps([spec]))
    assert str(caught.value).startswith(f"--specs[0].{says}")
    assert "\n" not in str(caught.value)


def test_the_spec_changes_the_limits() -> None:
    spec = {"spec_file": "/s.md", "project_dir": "/p", "target_branch": "main"}
    [changed] = parse_specs(json.dumps([{**spec, "limits": {"memory_mb": 512, "cpus": None}}]))
    assert (changed.limits.memory_mb, changed.limits.cpus) == (512, None)
    assert changed.limits.processes == Limits().processes
