"""The harness's git runs in a jail: a program that slipped through sees nothing of the harness.

The proof runs a program the way one would slip through: configured where the harness
trusts config (a ``-c`` alias given to :func:`git.git`, standing for the top
repository's config). Inside, it writes what it can see into the repository.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from common.paths import WORKSPACE_ROOT_NAME
from common.workspace import git, git_jail

NONCE = "jail-probe-5f1c"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q", "-b", "main"], check=True)
    return root


def test_a_program_run_by_the_harnesss_git_sees_no_harness_home_home_socket_or_network(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if git_jail.runner() is None:
        pytest.skip("bubblewrap cannot run here: the harness's git runs unjailed")
    harness_home = tmp_path / "harness-home"
    harness_home.mkdir()
    (harness_home / "decision.key").write_text(NONCE)
    (harness_home / "daemon.sock").write_text("")
    other = tmp_path / "other-workspace"
    other.mkdir()
    (other / "secret").write_text(NONCE)
    home = Path.home()
    workspace = repo / WORKSPACE_ROOT_NAME / "ws"
    workspace.mkdir(parents=True)
    (workspace / ".hitl_checkpoint.json").write_text(NONCE)
    monkeypatch.setenv("HARNESS_HOME", str(harness_home))
    monkeypatch.setenv("HARNESS_PROBE_SECRET", NONCE)
    probe = (
        "!sh -c '"
        f"env > seen-env; ls -a / > seen-root; cat /proc/net/dev > seen-net; "
        f"cat {harness_home}/decision.key {other}/secret > seen-files 2>&1; "
        f"cat {workspace}/.hitl_checkpoint.json >> seen-files 2>&1; "
        f"touch {workspace.parent}/forged 2>> seen-files; "
        f"ls -a {home} > seen-home 2>&1; "
        f"cat {tmp_path}/outside-probe > /dev/null 2>&1 && echo visible > seen-tmp; true'"
    )
    (tmp_path / "outside-probe").write_text("x")

    git.git(repo, "-c", f"alias.probe={probe}", "probe")

    env = (repo / "seen-env").read_text()
    assert NONCE not in env and "HARNESS_HOME" not in env
    assert "HOME=/tmp" in env.splitlines()
    root = set((repo / "seen-root").read_text().split())
    assert root <= {
        ".",
        "..",
        "usr",
        "bin",
        "sbin",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "etc",
        "dev",
        "proc",
        "tmp",
        "run",
        *Path(repo).parts[1:2],
    }
    assert NONCE not in (repo / "seen-files").read_text()
    assert "No such file" in (repo / "seen-files").read_text()
    assert "Read-only file system" in (repo / "seen-files").read_text()
    assert not (workspace.parent / "forged").exists()
    assert (workspace / ".hitl_checkpoint.json").read_text() == NONCE
    if not str(repo).startswith(str(home)):
        assert "No such file" in (repo / "seen-home").read_text()
    interfaces = [
        line.split(":")[0].strip() for line in (repo / "seen-net").read_text().splitlines()[2:]
    ]
    assert interfaces == ["lo"]
    assert not (repo / "seen-tmp").exists()


def test_the_jail_binds_the_repository_writable_and_nothing_of_the_caller(tmp_path: Path) -> None:
    jail = git_jail.Jail(tmp_path / "repo", writable=(tmp_path / "scratch",))
    argv = git_jail.argv(jail, Path("/x/bwrap"), ["git", "status"])
    binds = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--bind"]
    assert binds == [str(tmp_path / "repo"), str(tmp_path / "scratch")]
    hidden = git_jail.Jail(tmp_path / "repo", hidden=(tmp_path / "repo" / "ws",))
    hidden_argv = git_jail.argv(hidden, Path("/x/bwrap"), ["git"])
    at = hidden_argv.index("--tmpfs", hidden_argv.index(str(tmp_path / "repo")))
    assert hidden_argv[at : at + 4] == [
        "--tmpfs",
        str(tmp_path / "repo" / "ws"),
        "--remount-ro",
        str(tmp_path / "repo" / "ws"),
    ]
    assert "--unshare-all" in argv and "--share-net" not in argv
    assert argv[-2:] == ["git", "status"]
    with_net = git_jail.argv(git_jail.Jail(tmp_path, network=True), Path("/x/bwrap"), ["git"])
    assert "--share-net" in with_net


def test_the_jailed_environment_keeps_git_and_locale_only() -> None:
    env = git_jail.environ(
        {
            "GIT_INDEX_FILE": "/s/i",
            "HARNESS_HOME": "/h",
            "HOME": "/home/u",
            "LANG": "C.UTF-8",
            "SSH_AUTH_SOCK": "/run/a",
            "ANTHROPIC_API_KEY": "k",
            "PATH": "/usr/bin",
        }
    )
    assert env == {"GIT_INDEX_FILE": "/s/i", "LANG": "C.UTF-8", "PATH": "/usr/bin", "HOME": "/tmp"}


def test_status_says_whether_the_git_is_jailed() -> None:
    line = git_jail.status()
    assert ("jail of its own" in line) is (git_jail.runner() is not None)
