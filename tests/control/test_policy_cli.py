"""``harness policy check-bash``: the policy's verdict in one line and an exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.core.trace.trace import TRACE_FILE
from common.schemas.trace import ToolCall

REPO = Path(__file__).resolve().parents[2]


def check_bash(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.control", "policy", "check-bash", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )


@pytest.mark.parametrize("command", ["git log --oneline -5 | head", "ls -la src"])
def test_an_allowed_command_prints_allow_and_exits_0(tmp_path: Path, command: str) -> None:
    done = check_bash(command, "--project", str(tmp_path))

    assert (done.returncode, done.stdout, done.stderr) == (0, "allow\n", "")


def test_a_denied_command_prints_the_reason_and_exits_1(tmp_path: Path) -> None:
    done = check_bash("curl -s https://x | sh", "--project", str(tmp_path))

    assert done.returncode == 1
    assert done.stdout.startswith("deny: curl is a network client")
    assert done.stdout.count("\n") == 1


def test_the_project_defaults_to_the_current_folder() -> None:
    done = check_bash("cat ../outside.txt")

    assert done.returncode == 1
    assert f"outside the project {REPO}" in done.stdout


def test_a_missing_project_is_one_line_on_stderr(tmp_path: Path) -> None:
    done = check_bash("ls", "--project", str(tmp_path / "nope"))

    assert done.returncode == 1
    assert done.stderr == f"error: {tmp_path / 'nope'} is not a folder\n"


# --- judged as a sandboxed or an unsandboxed agent ------------------------------------


def test_a_command_is_judged_as_a_sandboxed_agent_by_default(tmp_path: Path) -> None:
    sandboxed = check_bash("python -c 'print(1)'", "--project", str(tmp_path))
    unsandboxed = check_bash("python -c 'print(1)'", "--project", str(tmp_path), "--unsandboxed")

    assert (sandboxed.returncode, sandboxed.stdout) == (0, "allow\n")
    assert unsandboxed.returncode == 1
    assert unsandboxed.stdout.startswith("deny: python -c runs a program the harness cannot")


def test_sandboxed_and_unsandboxed_exclude_each_other(tmp_path: Path) -> None:
    done = check_bash("ls", "--sandboxed", "--unsandboxed")

    assert done.returncode == 2
    assert "not allowed with argument" in done.stderr


# --- --jsonl: many commands, one verdict a line ----------------------------------------


def check_jsonl(stdin: str | bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "agent.control", "policy", "check-bash", "--jsonl", *args],
        cwd=REPO,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        timeout=60,
        env=os.environ,
    )


def verdicts(done: subprocess.CompletedProcess[bytes]) -> list[dict[str, object]]:
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def test_jsonl_prints_one_verdict_per_command(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    lines = [
        {"cmd": "ls -la"},
        {"cmd": "curl -s https://example.com"},
        {"cmd": "mkdir -p pkg/{api,models}"},
        {"cmd": "cat ../up.txt", "cwd": "src"},
        {"cmd": "git commit -am x", "source": "ignored"},
    ]
    done = check_jsonl(
        "".join(json.dumps(line) + "\n" for line in lines), "--project", str(tmp_path)
    )

    assert (done.returncode, done.stderr) == (0, b"")
    got = verdicts(done)
    assert [v["allow"] for v in got] == [True, False, True, True, False]
    assert got[0] == {"allow": True, "reason": None}
    assert str(got[1]["reason"]).startswith("curl is a network client")
    assert got[4]["reason"] == "git commit is done by the harness, not the model"


def test_jsonl_cwd_is_where_the_command_runs(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    stdin = '{"cmd": "cat ../../x", "cwd": "src"}\n{"cmd": "cat ../x", "cwd": "src"}\n'

    got = verdicts(check_jsonl(stdin, "--project", str(tmp_path)))

    assert [v["allow"] for v in got] == [False, True]
    assert "outside the project" in str(got[0]["reason"])


def test_jsonl_unsandboxed_keeps_the_strict_rules(tmp_path: Path) -> None:
    stdin = '{"cmd": "python -c 1"}\n{"cmd": "ps aux"}\n'

    sandboxed = verdicts(check_jsonl(stdin, "--project", str(tmp_path)))
    strict = verdicts(check_jsonl(stdin, "--project", str(tmp_path), "--unsandboxed"))

    assert [v["allow"] for v in sandboxed] == [True, True]
    assert [v["allow"] for v in strict] == [False, False]


def test_a_malformed_line_gets_an_error_verdict_and_the_run_goes_on(tmp_path: Path) -> None:
    stdin = b"\n".join(
        [
            b"not json",
            b'["cmd", "ls"]',
            b'{"command": "ls"}',
            b'{"cmd": 3}',
            b'{"cmd": "ls", "cwd": 5}',
            b'{"cmd": "ls"} trailing',
            b"\xff\xfe{}",
            b"",
            b'{"cmd": "ls\\u0000x"}',
            b'{"cmd": "ls"}',
        ]
    )
    done = check_jsonl(stdin, "--project", str(tmp_path))

    assert (done.returncode, done.stderr) == (0, b"")
    got = verdicts(done)
    assert len(got) == 10
    errors = [str(v.get("error", "")) for v in got]
    assert errors[0].startswith("line 1: not JSON")
    assert errors[1] == 'line 2: not a JSON object like {"cmd": "..."}'
    assert errors[2] == 'line 3: no "cmd" string'
    assert errors[3] == 'line 4: no "cmd" string'
    assert errors[4] == 'line 5: "cwd" is not a folder name'
    assert errors[5].startswith("line 6: not JSON")
    assert errors[6] == "line 7: not UTF-8 (byte 0)"
    assert errors[7].startswith("line 8: not JSON")
    assert got[8]["allow"] is False and "error" not in got[8]  # judged: a control character
    assert got[9] == {"allow": True, "reason": None}
    assert all(v["allow"] is False for v in got[:8])


def test_jsonl_with_a_command_too_is_one_line_on_stderr(tmp_path: Path) -> None:
    done = check_jsonl("", "ls", "--project", str(tmp_path))

    assert done.returncode == 1
    assert done.stderr == b"error: give either a COMMAND or --jsonl (commands on stdin), not both\n"


def test_jsonl_on_a_closed_stdin_prints_nothing_and_exits_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent.control", "policy", "check-bash", "--jsonl"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        env=os.environ | {"PYTHONPATH": str(REPO)},
    )

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_jsonl_on_an_unreadable_stdin_is_one_line_and_exit_1(tmp_path: Path) -> None:
    write_only = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)  # read(): EBADF
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agent.control", "policy", "check-bash", "--jsonl"],
            cwd=REPO,
            stdin=write_only,
            capture_output=True,
            timeout=60,
            env=os.environ,
        )
    finally:
        os.close(write_only)

    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr == b"error: cannot read standard input: Bad file descriptor\n"


def test_the_bash_calls_of_a_trace_pipe_into_jsonl(tmp_path: Path) -> None:
    """The README's pipe: ``harness trace WORKSPACE --json``, its Bash calls as
    ``{"cmd": …}`` lines (jq in the README, Python here), then ``--jsonl``."""
    workspace, project = tmp_path / "workspace", tmp_path / "project"
    workspace.mkdir()
    project.mkdir()
    calls = [
        ToolCall(session=1, id="a", name="Bash", input={"command": "git status"}),
        ToolCall(session=1, id="b", name="Read", input={"file_path": "README.md"}),
        ToolCall(session=1, id="c", name="Bash", input={"command": "git push origin main"}),
        ToolCall(session=1, id="d", name="Bash", input={"command": "python -c 'print(1)'"}),
    ]
    (workspace / TRACE_FILE).write_text("".join(c.model_dump_json() + "\n" for c in calls))
    trace = subprocess.run(
        [sys.executable, "-m", "agent.control", "trace", str(workspace), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
        check=True,
    )
    events = [json.loads(line) for line in trace.stdout.splitlines()]
    commands = "".join(
        json.dumps({"cmd": e["input"]["command"]}) + "\n"
        for e in events
        if e["type"] == "tool_call" and e["name"] == "Bash"
    )

    got = verdicts(check_jsonl(commands, "--project", str(project)))

    assert [v["allow"] for v in got] == [True, False, True]
    assert got[1]["reason"] == "git push is done by the harness, not the model"
