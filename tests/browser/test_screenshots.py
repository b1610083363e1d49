"""Screenshots are taken out of the browser's output folder as hostile files."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from agent.core.browser import screenshots
from agent.core.browser.screenshots import PNG_SIGNATURE, collect, png_size


def png(width: int = 4, height: int = 3) -> bytes:
    """A real, tiny PNG (signature, IHDR, IDAT, IEND)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    return (
        PNG_SIGNATURE
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    out.mkdir()
    return out, tmp_path / "workspace" / "screenshots"


def test_a_png_is_copied_under_a_name_the_harness_chose(folders: tuple[Path, Path]) -> None:
    out, dest = folders
    (out / "page-\x1b[31mred.png").write_bytes(png(1280, 720))
    found = collect(out, dest, "issue-2-s1")
    assert [p.name for p in found.saved] == ["issue-2-s1-1.png"]
    assert png_size(found.saved[0].read_bytes()[:24]) == (1280, 720)
    assert found.skipped == [] and list(out.iterdir()) == []


def test_snapshots_and_logs_are_left_out_silently(folders: tuple[Path, Path]) -> None:
    out, dest = folders
    (out / "page.yml").write_text("- heading 'Hello'")
    (out / "console.log").write_text("error")
    found = collect(out, dest, "issue-1-s1")
    assert found.saved == [] and found.skipped == [] and not dest.exists()


def test_a_link_is_never_followed(folders: tuple[Path, Path], tmp_path: Path) -> None:
    out, dest = folders
    secret = tmp_path / "decision.key"
    secret.write_bytes(png())  # even a PNG behind a link stays where it is
    (out / "shot.png").symlink_to(secret)
    found = collect(out, dest, "issue-1-s1")
    assert found.saved == [] and found.skipped == ["an entry that is a link or cannot be opened"]
    assert secret.exists() and list(out.iterdir()) == []


def test_a_fifo_does_not_block_and_is_left_out(folders: tuple[Path, Path]) -> None:
    out, dest = folders
    os.mkfifo(out / "shot.png")
    found = collect(out, dest, "issue-1-s1")
    assert found.saved == [] and found.skipped == ["an entry that is not a regular file"]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (PNG_SIGNATURE + b"\x00" * 30, "a file with the PNG signature but no image size"),
        (png(0, 5), "a file with the PNG signature but no image size"),
    ],
)
def test_a_png_without_a_real_size_is_left_out(
    folders: tuple[Path, Path], data: bytes, why: str
) -> None:
    out, dest = folders
    (out / "shot.png").write_bytes(data)
    assert collect(out, dest, "issue-1-s1").skipped == [why]


@pytest.mark.parametrize(("width", "height"), [(65_535, 65_535), (16_385, 10), (8_000, 8_000)])
def test_a_png_declaring_a_huge_image_is_left_out(
    folders: tuple[Path, Path], width: int, height: int
) -> None:
    """A small file whose header declares gigapixels would cost the person's viewer
    gigabytes when they open the listed screenshot."""
    out, dest = folders
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    ihdr = struct.pack(">I", len(header)) + b"IHDR" + header + struct.pack(">I", 0)
    (out / "bomb.png").write_bytes(PNG_SIGNATURE + ihdr)  # only the header is read
    found = collect(out, dest, "issue-1-s1")
    assert found.saved == []
    assert found.skipped == [
        f"a PNG that declares {width} × {height} pixels (no screenshot is that big)"
    ]


def test_an_oversized_file_is_left_out(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, dest = folders
    monkeypatch.setattr(screenshots, "MAX_BYTES", 100)
    (out / "big.png").write_bytes(png() + b"\x00" * 200)
    found = collect(out, dest, "issue-1-s1")
    assert found.saved == [] and found.skipped == ["a screenshot over 0 MB"]


def test_at_most_max_count_are_taken(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, dest = folders
    monkeypatch.setattr(screenshots, "MAX_COUNT", 2)
    for n in range(4):
        (out / f"s{n}.png").write_bytes(png())
    found = collect(out, dest, "issue-1-s1")
    assert len(found.saved) == 2 and found.skipped == ["more than 2 screenshots in one session"]
    assert list(out.iterdir()) == []


def test_an_existing_link_at_the_target_is_not_written_through(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    out, dest = folders
    dest.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (dest / "issue-1-s1-1.png").symlink_to(victim)
    (out / "shot.png").write_bytes(png())
    with pytest.raises(OSError):
        collect(out, dest, "issue-1-s1")
    assert victim.read_text() == "keep"


def test_a_missing_output_folder_is_an_empty_one(tmp_path: Path) -> None:
    assert collect(tmp_path / "none", tmp_path / "dest", "x").saved == []
