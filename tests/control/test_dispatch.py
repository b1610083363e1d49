"""``harness``'s table of commands: each names a function that imports (a coroutine
function, but for the answers that must act at once), and ``harness web`` hands over
to the TUI's server program with the same arguments."""

from __future__ import annotations

import argparse
import inspect
import sys

import pytest

from agent.control.main import load_command, run_command
from agent.control.parser import build_parser
from agent.control.web_command import web_argv


def command_targets() -> dict[str, str]:
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: child.get_default("command") for name, child in sub.choices.items()}


def test_every_command_is_named_by_module_and_function() -> None:
    targets = command_targets()
    assert {"list", "status", "approve", "web", "eval", "replay", "daemon"} <= set(targets)
    for name, target in targets.items():
        module, _, function = target.partition(":")
        assert module.startswith("agent.control.") and function, f"{name}: {target}"


#: Commands that run without an event loop (``asyncio`` costs them ~20 ms of start-up).
PLAIN = {"approve", "reject"}


@pytest.mark.parametrize(("name", "target"), sorted(command_targets().items()))
def test_each_command_loads_as_a_function_of_its_kind(name: str, target: str) -> None:
    command = load_command(target)
    assert callable(command), name
    assert inspect.iscoroutinefunction(command) is (name not in PLAIN), name


def test_a_plain_command_runs_without_an_event_loop_and_a_coroutine_in_one() -> None:
    args = argparse.Namespace()

    def plain(_: argparse.Namespace) -> int:
        return 3

    async def awaiting(_: argparse.Namespace) -> int:
        return 4

    assert run_command(plain, args) == 3
    assert run_command(awaiting, args) == 4


def test_harness_web_runs_the_tui_web_server_with_its_arguments() -> None:
    args = build_parser().parse_args(["web", "--port", "0", "--public-url", "http://x:1/"])
    assert web_argv(args) == [
        sys.executable,
        "-P",
        "-m",
        "tui.web",
        "--host",
        "localhost",
        "--port",
        "0",
        "--public-url",
        "http://x:1/",
    ]
    assert web_argv(build_parser().parse_args(["web"]))[4:] == [
        "--host",
        "localhost",
        "--port",
        "8765",
    ]
