"""However much a test run prints, the harness keeps a bounded head and tail of it."""

from __future__ import annotations

import asyncio
import resource
from pathlib import Path

from agent.core.gates import gate_output, gates
from agent.core.gates.gate_output import BoundedOutput, short_line


def test_short_output_is_kept_whole() -> None:
    kept = BoundedOutput(head=4, tail=8)
    kept.add(b"abc")
    kept.add(b"defgh")

    assert (kept.text(), kept.dropped) == ("abcdefgh", 0)


def test_the_middle_is_counted_and_named_never_kept() -> None:
    kept = BoundedOutput(head=4, tail=6)
    for chunk in (b"HEAD", b"x" * 100, b"y" * 50, b"-TAIL-"):
        kept.add(chunk)

    assert kept.dropped == 150
    assert kept.text() == "HEAD\n… (150 bytes of output cut by the harness) …\n-TAIL-"


def test_a_long_line_is_cut_saying_so() -> None:
    assert short_line("abc", 5) == "abc"
    assert short_line("x" * 10, 4) == "xxxx… (6 more characters)"


def test_a_flood_of_output_keeps_the_harness_small_and_the_verdict_right(tmp_path: Path) -> None:
    """300 MB on one line, then pytest's summary: read in full, kept in part."""
    command = (
        "head -c 300000000 /dev/zero | tr '\\0' x; echo; "
        "echo 'FAILED tests/test_a.py::test_x - boom'; echo '==== 1 failed, 3 passed in 1s ===='; "
        "exit 1"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    result = asyncio.run(gates.run_tests(tmp_path, command))

    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 64 * 1024, f"the harness grew by {grown_kb} KB"
    assert result.summary == "1 failed, 3 passed in 1s"
    assert result.failed_tests == ["tests/test_a.py::test_x"]
    assert "bytes of output cut by the harness" in result.output_tail
    assert len(result.output_tail) < 40 * (gate_output.LINE_CHARS + 40)
