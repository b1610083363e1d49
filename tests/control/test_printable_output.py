"""What the ``harness`` command prints is escaped, whatever a command forgot to escape."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from agent.control.main import main
from agent.control.printable_output import PrintableStream, printable_output
from agent.core.trace.trace import TRACE_FILE
from common.schemas.trace import CommitMade, ToolCall

PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED\x1b[0m\u202e"


def test_a_write_is_escaped_and_lines_are_kept() -> None:
    out = io.StringIO()
    stream = PrintableStream(out)
    assert stream.write(f"a{PAYLOAD}\nb\n") == len(f"a{PAYLOAD}\nb\n")
    assert out.getvalue() == (
        "a\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED\\x1b[0m<U+202E>\nb\n"
    )


def test_the_streams_are_escaped_inside_the_block_only(capsys: pytest.CaptureFixture[str]) -> None:
    with printable_output():
        print(PAYLOAD)
        print(PAYLOAD, file=sys.stderr)
    print("\x1b[0m")
    out, err = capsys.readouterr()
    assert out.startswith("\\x1b]0;pwned") and out.endswith("\x1b[0m\n")
    assert err.startswith("\\x1b]0;pwned") and "\x1b" not in err


def test_harness_trace_prints_a_hostile_trace_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [
        ToolCall(session=1, id="t", name="Write", input={"file_path": f"notes/{PAYLOAD}.md"}),
        CommitMade(sha="a" * 40, subject=f"feat: {PAYLOAD}", files=1),
    ]
    (tmp_path / TRACE_FILE).write_text("".join(e.model_dump_json() + "\n" for e in events))

    assert main(["trace", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "commit aaaaaaaaaaaa feat: \\x1b]0;pwned\\x07\\x1b[2J" in shown

    assert main(["trace", str(tmp_path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(line.isascii() and line.isprintable() for line in lines)
    assert CommitMade.model_validate_json(lines[1]).subject == f"feat: {PAYLOAD}"  # same data
