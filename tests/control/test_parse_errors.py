"""A mistyped command line is one line on stderr, with the command meant when it is close."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent.control.parse_errors import invalid_choice
from agent.frontend.suggestion import suggestion
from tests.e2e.agents import REPO


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.control", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


HELP = "(`harness --help` lists the commands)"
TYPOS = [
    (["lsit"], f"error: unknown command 'lsit': did you mean `harness list`? {HELP}"),
    (["aprove", "a"], f"error: unknown command 'aprove': did you mean `harness approve`? {HELP}"),
    (["frobnicate"], f"error: unknown command 'frobnicate' {HELP}"),
    (
        ["daemon", "strat"],
        "error: unknown choice 'strat': did you mean 'start'? (one of start, stop, status)",
    ),
    (
        ["approve"],
        "error: the following arguments are required: agent (see `harness approve --help`)",
    ),
]


@pytest.mark.parametrize(("args", "line"), TYPOS)
def test_a_typo_is_one_line_with_a_suggestion_and_status_2(args: list[str], line: str) -> None:
    done = harness(*args)

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == line + "\n"


def test_the_suggestion_is_the_closest_command_or_none() -> None:
    commands = ["run", "resume", "list", "status", "approve", "reject", "checkpoint"]
    assert suggestion("lsit", commands) == "list"
    assert suggestion("checkpiont", commands) == "checkpoint"
    assert suggestion("xyzzy", commands) is None


def test_an_argument_value_names_its_choices() -> None:
    assert invalid_choice("harness daemon", "halt", ["start", "stop"], command=False) == (
        "unknown choice 'halt' (one of start, stop)"
    )
