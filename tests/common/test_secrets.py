"""Secrets travel through pipes: a process re-execs itself without them, a child reads its pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from common.errors import SecretsError
from common.secrets import (
    MAX_BYTES,
    SECRETS_FD_OPTION,
    collect_secrets,
    receive_secrets,
    start_with_secrets,
    without_secrets,
)

CHILD = Path(__file__).with_name("secrets_child.py")
TOKEN = "glpat-unit-test-token-9f2c"


def run_child(env: dict[str, str], *interpreter_options: str) -> dict[str, Any]:
    """Run ``secrets_child.py extra`` and return its report (its pid is the one we started)."""
    child = subprocess.Popen(
        [sys.executable, *interpreter_options, str(CHILD), "extra"],
        env=env,
        stdout=subprocess.PIPE,
    )
    stdout, _ = child.communicate(timeout=30)
    assert child.returncode == 0
    report: dict[str, Any] = json.loads(stdout)
    assert report["pid"] == child.pid  # exec keeps the pid: what the daemon recorded stays true
    return report


def test_a_process_started_with_a_secret_execs_itself_again_without_it() -> None:
    env = {**os.environ, "GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN, "CI_JOB_TOKEN": "ci-secret"}

    report = run_child(env, "-X", "utf8")

    assert TOKEN not in report["environ"] and "ci-secret" not in report["environ"]
    assert report["secrets"] == {"GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN, "CI_JOB_TOKEN": "ci-secret"}
    assert report["argv"][:2] == ["extra", SECRETS_FD_OPTION]  # same arguments, plus the pipe
    assert report["utf8_mode"] == 1  # and the same interpreter options
    assert report["open_secrets_fds"] == []  # read and closed


def test_a_process_without_secrets_runs_as_it_was_started() -> None:
    report = run_child(without_secrets(os.environ))

    assert report["argv"] == ["extra"]
    assert report["secrets"] == {}


def test_a_child_gets_its_secrets_through_the_pipe_and_none_in_its_environment() -> None:
    def start(argv: list[str], fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv, env=without_secrets(os.environ), pass_fds=fds, stdout=subprocess.PIPE
        )

    child = start_with_secrets(
        start, [sys.executable, str(CHILD)], {"GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN}
    )
    stdout, _ = child.communicate(timeout=30)

    report = json.loads(stdout)
    assert report["secrets"] == {"GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN}
    assert TOKEN not in report["environ"]
    assert report["argv"][0] == SECRETS_FD_OPTION and report["open_secrets_fds"] == []


def test_without_secrets_the_child_starts_with_its_argv_unchanged_and_no_pipe() -> None:
    started: list[tuple[list[str], tuple[int, ...]]] = []

    start_with_secrets(lambda argv, fds: started.append((argv, fds)), ["agent", "x"], {})

    assert started == [(["agent", "x"], ())]


def test_a_child_that_exits_before_reading_is_no_error_of_the_sender() -> None:
    def start(argv: list[str], fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
        child = subprocess.Popen(["true", *argv], pass_fds=fds)
        child.wait()  # gone before the secrets are written: the write meets a broken pipe
        return child

    child = start_with_secrets(start, [], {"GITLAB_TOKEN": TOKEN})

    assert child.returncode == 0


def test_secrets_too_large_for_one_pipe_write_are_refused_before_anything_starts() -> None:
    started: list[list[str]] = []

    with pytest.raises(SecretsError, match="at most"):
        start_with_secrets(
            lambda argv, fds: started.append(argv), ["agent"], {"GITLAB_TOKEN": "x" * MAX_BYTES}
        )

    assert started == []


def test_the_pipe_round_trip_reads_the_secrets_and_closes_the_read_end() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, json.dumps({"GITLAB_TOKEN": TOKEN}).encode())
    os.close(write_fd)

    assert receive_secrets(read_fd) == {"GITLAB_TOKEN": TOKEN}
    with pytest.raises(OSError):
        os.fstat(read_fd)


@pytest.mark.parametrize("data", [b"", b"not json", b'["a list"]', b'{"GITLAB_TOKEN": 1}'])
def test_a_pipe_without_a_json_object_of_strings_is_an_error(data: bytes) -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)

    with pytest.raises(SecretsError, match=f"file descriptor {read_fd}"):
        receive_secrets(read_fd)


def test_collect_takes_the_secrets_out_of_an_environment_that_still_has_them() -> None:
    environ = {"GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN, "PATH": "/bin"}

    assert collect_secrets([], environ) == {"GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN}
    assert environ == {"PATH": "/bin"}


FRONT_END = """
import json, os, sys
from pathlib import Path
from common.secrets import hide_secrets_from_proc
argv = hide_secrets_from_proc(sys.argv)
print(json.dumps({
    "argv": argv[1:],
    "kept": os.environ.get("GITLAB_PERSONAL_ACCESS_TOKEN"),
    "proc": Path("/proc/self/environ").read_bytes().decode(errors="replace"),
}))
"""


def test_a_front_end_keeps_its_secret_in_memory_but_not_in_proc_environ() -> None:
    env = {**os.environ, "GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN}
    done = subprocess.run(
        [sys.executable, "-c", FRONT_END, "demo", "--gitlab"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    report = json.loads(done.stdout)
    assert report["argv"] == ["demo", "--gitlab"], "the pipe option is gone from argv"
    assert report["kept"] == TOKEN, "the secret is still usable in memory"
    assert TOKEN not in report["proc"], "but not readable in /proc/PID/environ"


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "agent.control"], [str(Path(sys.executable).with_name("harness"))]],
)
def test_harness_started_with_a_token_in_its_environment_still_works(
    command: list[str], tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "GITLAB_PERSONAL_ACCESS_TOKEN": TOKEN,
        "HARNESS_HOME": str(tmp_path),
    }
    done = subprocess.run(
        [*command, "daemon", "status"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "daemon is not running\n", "")
