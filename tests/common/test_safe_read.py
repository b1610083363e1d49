"""The one reader of files the model may have made: a regular file within the cap is
read; anything else is refused in one line, at once, without opening it."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from common import safe_read

CAP = 1024


def within(seconds: float, call: Callable[[], object]) -> object:
    """``call()``'s result or exception, failing the test when it takes longer (a read
    that waits on a FIFO must fail the test, not hold it)."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as e:  # handed back to the test below
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short folder (a socket's path must fit in 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="sr", dir="/tmp") as name:
        yield Path(name)


def refusal(path: Path, cap: int = CAP) -> str:
    with pytest.raises(safe_read.Refused) as caught:
        within(5, lambda: safe_read.read_bytes(path, cap))
    return caught.value.what


def test_a_regular_file_within_the_cap_is_read(folder: Path) -> None:
    (folder / "settings.json").write_bytes(b'{"a": 1}\n')
    assert safe_read.read_bytes(folder / "settings.json", CAP) == b'{"a": 1}\n'
    assert safe_read.read_text(folder / "settings.json", CAP) == '{"a": 1}\n'
    (folder / "exact").write_bytes(b"x" * CAP)
    assert len(safe_read.read_bytes(folder / "exact", CAP)) == CAP


def test_a_fifo_is_refused_at_once_without_a_writer(folder: Path) -> None:
    os.mkfifo(folder / ".harness.json")
    assert refusal(folder / ".harness.json") == "a FIFO"


def test_a_link_to_a_file_is_refused_even_inside_the_folder(folder: Path) -> None:
    (folder / "real.json").write_text("{}")
    (folder / ".harness.json").symlink_to("real.json")
    assert refusal(folder / ".harness.json") == "a symbolic link"


def test_a_link_to_dev_zero_is_refused(folder: Path) -> None:
    (folder / "pyproject.toml").symlink_to("/dev/zero")
    assert refusal(folder / "pyproject.toml") == "a symbolic link"


def test_a_socket_is_refused(folder: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "sock"))
        assert refusal(folder / "sock") == "a socket"


def test_a_character_device_is_refused() -> None:
    assert refusal(Path("/dev/zero")) == "a character device"
    assert refusal(Path("/dev/null")) == "a character device"


def test_a_file_over_the_cap_is_refused_with_its_size(folder: Path) -> None:
    (folder / "big").write_bytes(b"x" * (CAP + 1))
    assert refusal(folder / "big") == f"larger than {CAP:,} bytes ({CAP + 1:,})"


def test_a_folder_is_refused(folder: Path) -> None:
    (folder / "pyproject.toml").mkdir()
    assert refusal(folder / "pyproject.toml") == "a folder"


def test_a_missing_file_is_file_not_found_and_absent_for_read_if_present(folder: Path) -> None:
    with pytest.raises(FileNotFoundError):
        safe_read.read_bytes(folder / "none", CAP)
    assert safe_read.read_if_present(folder / "none", CAP) is None
    (folder / "plain").write_text("x")
    assert safe_read.read_if_present(folder / "plain" / "below", CAP) is None
    os.mkfifo(folder / "fifo")
    with pytest.raises(safe_read.Refused):
        within(5, lambda: safe_read.read_if_present(folder / "fifo", CAP))


def test_a_refusal_is_one_escaped_line_naming_the_path(folder: Path) -> None:
    name = folder / "evil\x1b]0;title\x07\nname"
    os.mkfifo(name)
    with pytest.raises(safe_read.Refused) as caught:
        within(5, lambda: safe_read.read_bytes(name, CAP))
    line = str(caught.value)
    assert "\n" not in line and "\x1b" not in line
    assert line.endswith("name is a FIFO")
    assert isinstance(caught.value, OSError), "callers that treat any unreadable file alike"


def test_kind_of_names_every_kind() -> None:
    assert safe_read.kind_of(os.lstat("/dev/null").st_mode) == "a character device"
    assert safe_read.kind_of(os.lstat("/").st_mode) == "a folder"
    assert safe_read.kind_of(os.lstat(__file__).st_mode) is None
