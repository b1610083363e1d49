"""``harness logs``: the tail read backwards in bounded memory; ``-f`` ends with the agent."""

from __future__ import annotations

import asyncio
import io
import tracemalloc
from pathlib import Path

import pytest

from agent.control.follow import follow_log, last_lines
from agent.control.parser import build_parser


@pytest.mark.parametrize(
    ("content", "count", "expected"),
    [
        ("a\nb\nc\n", 2, "b\nc\n"),
        ("a\nb\nc", 2, "b\nc"),
        ("a\nb\nc\n", 10, "a\nb\nc\n"),
        ("a\n\n\n", 2, "\n\n"),
        ("", 5, ""),
        ("a\nb\n", 0, ""),
    ],
    ids=["ending-newline", "no-ending-newline", "fewer-lines", "empty-lines", "empty", "none"],
)
def test_the_last_lines_are_those_tail_prints(
    tmp_path: Path, content: str, count: int, expected: str
) -> None:
    log = tmp_path / "agent.log"
    log.write_text(content)

    for block in (1, 3, 4096):  # lines across block edges read the same
        text, end = last_lines(log, count, block=block)
        assert (text, end) == (expected, len(content))


def test_a_missing_log_has_no_lines(tmp_path: Path) -> None:
    assert last_lines(tmp_path / "absent.log", 10) == ("", 0)


def test_the_tail_of_a_large_log_costs_a_few_blocks_of_memory(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    line = b"x" * 99 + b"\n"
    megabyte = line * ((1 << 20) // len(line))
    with log.open("wb") as handle:
        for _ in range(64):
            handle.write(megabyte)
        handle.write(b"the last line\n")
    size = log.stat().st_size
    assert size > 60 * (1 << 20)

    tracemalloc.start()
    try:
        text, end = last_lines(log, 100)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert end == size
    assert text.endswith("the last line\n") and text.count("\n") == 100
    assert peak < 1 << 20, f"peak {peak} bytes for the tail of a {size}-byte log"


async def test_follow_prints_what_is_appended_and_ends_when_the_agent_ends(
    tmp_path: Path,
) -> None:
    log = tmp_path / "logs" / "agent.log"
    log.parent.mkdir()
    log.write_text("old\n")
    agent_ended = asyncio.get_running_loop().create_future()
    out = io.StringIO()

    following = asyncio.create_task(follow_log(log, agent_ended, out, offset=len("old\n")))
    await asyncio.sleep(0.2)
    with log.open("a") as handle:
        handle.write("first\n")
    await asyncio.sleep(0.3)
    with log.open("a") as handle:
        handle.write("last words\n")
    agent_ended.set_result(None)
    await asyncio.wait_for(following, 5)

    assert out.getvalue() == "first\nlast words\n"


async def test_follow_reports_a_lost_daemon(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    log.write_text("")

    async def daemon_gone() -> None:
        raise ConnectionError("the daemon closed the connection")

    with pytest.raises(ConnectionError):
        await asyncio.wait_for(follow_log(log, daemon_gone(), io.StringIO()), 5)


HOSTILE = b"\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED\x1b[0m \xe2\x80\xae \xff\r\n"
HOSTILE_SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED\\x1b[0m <U+202E> \\xff\\r\n"


def test_the_tail_is_escaped_whatever_the_file_holds(tmp_path: Path) -> None:
    """Raw bytes from an older harness or a program's output never reach the terminal."""
    log = tmp_path / "agent.log"
    log.write_bytes(b"09:00:00 ok\n" + HOSTILE)
    text, _ = last_lines(log, 1)
    assert text == HOSTILE_SHOWN


async def test_follow_escapes_what_is_appended_even_a_character_cut_in_two(
    tmp_path: Path,
) -> None:
    log = tmp_path / "logs" / "agent.log"
    log.parent.mkdir()
    log.write_bytes(b"")
    agent_ended = asyncio.get_running_loop().create_future()
    out = io.StringIO()

    following = asyncio.create_task(follow_log(log, agent_ended, out))
    await asyncio.sleep(0.2)
    with log.open("ab") as handle:
        handle.write(HOSTILE + b"caf\xc3")  # é cut after its first byte
    await asyncio.sleep(0.3)
    with log.open("ab") as handle:
        handle.write(b"\xa9\n")
    agent_ended.set_result(None)
    await asyncio.wait_for(following, 5)

    assert out.getvalue() == HOSTILE_SHOWN + "café\n"


@pytest.mark.parametrize("given", ["-5", "ten"])
def test_a_negative_or_non_numeric_line_count_is_one_clear_error(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``harness logs -n -5`` printed nothing and exited 0, as if the log were empty."""
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args(["logs", "some-agent", "-n", given])
    assert ended.value.code != 0
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "-n/--lines" in errors[0] and given in errors[0], err
    assert "Traceback" not in err


def test_zero_and_positive_counts_are_taken() -> None:
    assert build_parser().parse_args(["logs", "a", "-n", "0"]).lines == 0
    assert build_parser().parse_args(["logs", "a", "-n", "7"]).lines == 7
