"""What keeps the CLI process out of the model's reach, checked without starting it.

The plan's command line (no bwrap init, no messaging socket for the CLI) and the
execute-only copy of the CLI (files only). The processes themselves are tried in
``test_cli_unreachable.py`` and, through the real CLI, in the e2e test.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.cli_copy import (
    EXECUTE_ONLY,
    copy_name,
    execute_only_copy,
    is_execute_only,
    user_cache,
)
from agent.sandbox.plan import SandboxPlan, bwrap_argv, cli_inboxes
from common.errors import SandboxError

BWRAP = Path("/opt/bwrap")


def plan(tmp_path: Path) -> SandboxPlan:
    return SandboxPlan(
        project_dir=tmp_path / "proj",
        scratch_home=tmp_path / "home",
        cli=tmp_path / "claude",
        relay=tmp_path / "relay.py",
        python=Path("/usr/bin/python3"),
    )


def test_the_relay_is_the_first_process_so_no_bwrap_init_holds_the_sdk_pipes(
    tmp_path: Path,
) -> None:
    argv = bwrap_argv(plan(tmp_path), BWRAP, ["claude"])
    assert argv[:3] == [str(BWRAP), "--unshare-all", "--as-pid-1"]
    command = argv[argv.index("--chdir") + 3 :]
    assert command[:3] == ["/usr/bin/python3", "-I", "-S"], command
    assert command[-2:] == ["--", "claude"]


def test_both_messaging_socket_folders_are_empty_and_read_only_over_tmp(tmp_path: Path) -> None:
    argv = bwrap_argv(plan(tmp_path), BWRAP, ["claude"])
    tmp = argv.index("/tmp", argv.index("--tmpfs"))
    for inbox in cli_inboxes(os.getuid()):
        mount = argv.index(str(inbox))
        assert argv[mount - 1] == "--tmpfs" and mount > tmp
        assert argv[mount + 1 : mount + 3] == ["--remount-ro", str(inbox)]


def test_the_inboxes_are_the_clis_own_two_places() -> None:
    assert cli_inboxes(1000) == (Path("/tmp/cc-socks"), Path("/tmp/cc-socks-1000"))


def original(tmp_path: Path, content: bytes = b"\x7fELF cli build 1") -> Path:
    cli = tmp_path / "bundled" / "claude"
    cli.parent.mkdir(exist_ok=True)
    cli.write_bytes(content)
    cli.chmod(0o755)
    return cli


def test_the_copy_executes_for_everyone_and_reads_for_no_one(tmp_path: Path) -> None:
    cli = original(tmp_path)
    copy = execute_only_copy(cli, (cli.parent,))
    assert copy.parent == cli.parent and copy.name == copy_name(cli)
    assert stat.S_IMODE(copy.stat().st_mode) == EXECUTE_ONLY == 0o111
    assert is_execute_only(copy) and not is_execute_only(cli)
    copy.chmod(0o400)  # root reads through its capabilities; check the bytes as the owner
    assert copy.read_bytes() == cli.read_bytes()


def test_a_copy_made_before_is_used_again_and_a_new_build_replaces_it(tmp_path: Path) -> None:
    cli = original(tmp_path)
    first = execute_only_copy(cli, (cli.parent,))
    inode = first.stat().st_ino
    assert execute_only_copy(cli, (cli.parent,)).stat().st_ino == inode
    live_writer = cli.parent / f"{copy_name(cli)}.{os.getpid()}.tmp"
    dead_writer = cli.parent / f"{copy_name(cli)}.{ended_pid()}.tmp"
    for half in (live_writer, dead_writer):
        half.write_bytes(b"half")
    original(tmp_path, b"\x7fELF cli build 2, longer")
    os.utime(cli, ns=(1, 2))
    second = execute_only_copy(cli, (cli.parent,))
    assert second != first and not first.exists()
    assert live_writer.exists(), "a concurrent writer's temporary file is not ours to remove"
    assert not dead_writer.exists(), "a dead writer's 400 MB would stay forever"


def ended_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_planted_readable_file_under_the_copys_name_is_replaced(tmp_path: Path) -> None:
    cli = original(tmp_path)
    planted = cli.parent / copy_name(cli)
    planted.write_bytes(b"#!/bin/sh\necho planted\n")
    planted.chmod(0o755)
    copy = execute_only_copy(cli, (cli.parent,))
    assert copy == planted and is_execute_only(copy)
    copy.chmod(0o400)
    assert copy.read_bytes() == cli.read_bytes()


def test_the_next_folder_takes_the_copy_and_none_is_one_clear_error(tmp_path: Path) -> None:
    cli = original(tmp_path)
    missing = tmp_path / "gone"
    private = tmp_path / "private"
    private.mkdir()
    assert execute_only_copy(cli, (missing, private)).parent == private
    with pytest.raises(SandboxError, match=r"execute-only copy .*/gone is not writable"):
        execute_only_copy(cli, (missing,))


def test_the_shared_cache_is_this_users_alone_or_not_used(tmp_path: Path) -> None:
    made = user_cache(tmp_path)
    assert made == tmp_path / f"harness-cli-{os.getuid()}"
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    made.chmod(0o777)  # others could plant a readable "copy" in it
    assert user_cache(tmp_path) is None
    made.rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    made.symlink_to(elsewhere)
    assert user_cache(tmp_path) is None
