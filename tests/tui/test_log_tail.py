"""Reading a growing log by byte offset: partial lines, big files, rewrites, runaway writers."""

from __future__ import annotations

from pathlib import Path

from tui.services.log_tail import LineTail


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def test_a_missing_file_reads_as_nothing_until_it_appears(scratch: Path) -> None:
    log = scratch / "a.log"
    tail = LineTail(log)
    assert tail.read().lines == []
    append(log, b"one\n")
    assert tail.read().lines == ["one"]


def test_a_partial_line_waits_for_its_newline(scratch: Path) -> None:
    log = scratch / "a.log"
    append(log, b"done\nhalf")
    tail = LineTail(log)
    assert tail.read().lines == ["done"]
    append(log, b" a line\r\n")
    assert tail.read().lines == ["half a line"]


def test_a_character_split_between_reads_is_decoded_whole(scratch: Path) -> None:
    log = scratch / "a.log"
    encoded = "café\n".encode()
    append(log, encoded[:4])  # ends inside the two bytes of "é"
    tail = LineTail(log)
    assert tail.read().lines == []
    append(log, encoded[4:])
    assert tail.read().lines == ["café"]


def test_a_big_file_is_opened_from_its_end(scratch: Path) -> None:
    log = scratch / "a.log"
    append(log, b"".join(b"line %05d\n" % n for n in range(10_000)))
    read = LineTail(log, open_tail_bytes=1000).read()  # 90 whole lines of 11 bytes, and a cut one
    assert read.lines[0].startswith("… ") and "earlier in a.log not shown" in read.lines[0]
    assert read.lines[1:] == [f"line {n:05d}" for n in range(9_910, 10_000)]


def test_the_cut_is_clean_when_it_falls_on_a_line_start(scratch: Path) -> None:
    log = scratch / "a.log"
    append(log, b"0123456789\n" * 10)  # 110 bytes; the last 22 are two whole lines
    assert LineTail(log, open_tail_bytes=22).read().lines[1:] == ["0123456789"] * 2


def test_reads_are_bounded_and_say_when_more_is_waiting(scratch: Path) -> None:
    log = scratch / "a.log"
    tail = LineTail(log, read_limit=100)
    append(log, b"x" * 9 + b"\n")
    tail.read()
    append(log, b"".join(b"%09d\n" % n for n in range(30)))  # 300 bytes
    first = tail.read()
    assert first.more and len(first.lines) == 10
    rest = tail.read().lines + tail.read().lines
    assert first.lines + rest == [f"{n:09d}" for n in range(30)]


def test_a_runaway_backlog_is_skipped(scratch: Path) -> None:
    log = scratch / "a.log"
    tail = LineTail(log, open_tail_bytes=100, skip_backlog_bytes=1000)
    append(log, b"start\n")
    assert tail.read().lines == ["start"]
    append(log, b"".join(b"%09d\n" % n for n in range(500)))  # 5000 bytes behind
    read = tail.read()
    assert "skipped to keep up" in read.lines[0]
    assert read.lines[-1] == "000000499"
    assert len(read.lines) <= 11


def test_a_truncated_file_is_read_again_from_the_start(scratch: Path) -> None:
    log = scratch / "a.log"
    append(log, b"old one\nold two\n")
    tail = LineTail(log)
    tail.read()
    log.write_bytes(b"new\n")
    read = tail.read()
    assert read.restarted and read.lines == ["new"]


def test_a_replaced_file_is_read_from_the_start(scratch: Path) -> None:
    log = scratch / "a.log"
    append(log, b"old\n")
    tail = LineTail(log)
    tail.read()
    replacement = scratch / "b.log"
    replacement.write_bytes(b"first of the new file\nsecond\n")
    replacement.replace(log)
    read = tail.read()
    assert read.restarted and read.lines == ["first of the new file", "second"]
