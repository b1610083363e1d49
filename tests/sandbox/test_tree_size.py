"""The walk that measures a work tree: blocks on disk, no link followed, bounded in time."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent.sandbox import tree_size


def blocks_kb(path: Path) -> int:
    return path.lstat().st_blocks // 2


def test_it_counts_the_blocks_of_every_entry_and_a_hard_linked_file_once(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    data = tmp_path / "src" / "data.bin"
    data.write_bytes(os.urandom(300_000))
    os.link(data, tmp_path / "again.bin")

    found = tree_size.scan(str(tmp_path), deadline_s=5)

    expected = blocks_kb(tmp_path / "src") + blocks_kb(data)
    assert found.kb == expected
    assert found.complete


def test_it_never_follows_a_link_nor_counts_the_harness_folders_at_the_top(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big.bin").write_bytes(os.urandom(1 << 20))
    tree = tmp_path / "tree"
    for skipped in (".git", ".claude-agent"):
        (tree / skipped).mkdir(parents=True)
        (tree / skipped / "big.bin").write_bytes(os.urandom(1 << 20))
    (tree / "sub" / ".git").mkdir(parents=True)  # a nested repository is the model's: counted
    nested = tree / "sub" / ".git" / "x.bin"
    nested.write_bytes(os.urandom(100_000))
    (tree / "link").symlink_to(outside)
    (tree / "file-link").symlink_to(outside / "big.bin")

    found = tree_size.scan(str(tree), deadline_s=5)

    counted = [tree / "sub", tree / "sub" / ".git", nested, tree / "link", tree / "file-link"]
    assert found.kb == sum(blocks_kb(path) for path in counted)
    assert found.kb < 1024


def test_a_sparse_file_counts_what_it_holds(tmp_path: Path) -> None:
    with (tmp_path / "sparse").open("wb") as sparse:
        sparse.truncate(2 << 30)

    assert tree_size.scan(str(tmp_path), deadline_s=5).kb < 64


def test_files_cut_at_the_size_limit_since_the_start_and_the_largest_are_named(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.bin"
    old.write_bytes(b"x" * 4096)
    os.utime(old, (1, 1))
    since = time.time_ns() - 1_000_000  # a millisecond of slack for the clock's grain
    (tmp_path / "cut.bin").write_bytes(b"x" * 8192)
    (tmp_path / "small.bin").write_bytes(b"x" * 100)

    found = tree_size.scan(str(tmp_path), deadline_s=5, since_ns=since, big_bytes=8192, largest=2)

    assert found.big == [(8192, bytes(tmp_path / "cut.bin"))]
    assert [path for _, path in found.largest] == [
        bytes(tmp_path / "cut.bin"),
        bytes(tmp_path / "small.bin"),
    ]


def test_a_walk_past_its_deadline_is_a_floor_and_a_budget_exceeded_stops_it(
    tmp_path: Path,
) -> None:
    for n in range(600):
        (tmp_path / f"f{n}").write_bytes(b"x")

    cut = tree_size.scan(str(tmp_path), deadline_s=0)
    over = tree_size.scan(str(tmp_path), deadline_s=5, stop_above_kb=8)

    assert not cut.complete and cut.kb < tree_size.scan(str(tmp_path), deadline_s=5).kb
    assert not over.complete and 8 < over.kb <= 16


def test_a_missing_tree_is_empty(tmp_path: Path) -> None:
    found = tree_size.scan(str(tmp_path / "gone"), deadline_s=1)
    assert (found.kb, found.complete) == (0, True)
