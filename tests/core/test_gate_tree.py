"""The tested tree kept where a gate runs on the work tree itself (no overlay).

A real repository and a real "gate" (the changes a hostile ``conftest.py`` makes, done
here directly): the fingerprint before and after names every change, each is put back
from the fingerprint's tree, and the list a person reads says what the gate did. The
sorting of a gate's writes (changed, ignored, caches) is tested on its own.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent.core.gates import gate_tree, gate_writes
from agent.sandbox.overlay import Listing, UpperEntry
from common.workspace import git
from tests.core.runs import sh_git

CORE = "def add(a, b):\n    return a + b\n"
CONFTEST = "import os\n\nif os.environ.get('X'):\n    pass\n"


def project(root: Path) -> Path:
    """A repository with committed files, a session's new file and ignored ones."""
    root.mkdir()
    sh_git(root, "init", "-q", "-b", "main")
    (root / "calc").mkdir()
    (root / "calc" / "core.py").write_text(CORE)
    (root / "notes.txt").write_text("plain\n")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text(CONFTEST)
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / ".gitignore").write_text("build/\n*.log\n")
    sh_git(root, "add", "--all")
    sh_git(root, "commit", "-q", "-m", "init")
    (root / "draft.py").write_text("DRAFT = 1\n")  # the session's, not committed yet
    return root


def snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    found: dict[str, tuple[str, bytes]] = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts:
            continue
        relative = str(path.relative_to(root))
        if path.is_symlink():
            found[relative] = ("link", os.fsencode(path.readlink()))
        elif path.is_file():
            mode = "exec" if os.access(path, os.X_OK) else "file"
            found[relative] = (mode, path.read_bytes())
    return found


def test_everything_a_gate_changed_is_put_back_and_named(tmp_path: Path) -> None:
    root = project(tmp_path / "proj")
    tested = git.worktree_fingerprint(root)
    before = snapshot(root)
    home = tmp_path / "harness-home"
    since = time.time_ns()
    # The gate: an edit, a plain file swapped for a link into HARNESS_HOME, a conftest that
    # rewrites itself, a deletion, a mode, a new file, the session's file changed, a
    # folder swapped for a link out of the project, and ignored files.
    (root / "calc" / "core.py").write_text(CORE + "    return 0\n")
    (root / "notes.txt").unlink()
    (root / "notes.txt").symlink_to(home / "decision.key")
    (root / "tests" / "conftest.py").write_text("# harmless\n")
    (root / "run.sh").chmod(0o644)
    (root / "draft.py").write_text("DRAFT = 2\n")
    (root / "added.py").write_text("x = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "core.py").write_text("elsewhere\n")
    (root / "calc" / "core.py").unlink()
    (root / "calc").rmdir()
    (root / "calc").symlink_to(outside, target_is_directory=True)
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("o")
    (root / "gate.log").write_text("log")

    writes = gate_writes.settle(root, tested, since, None)

    assert git.worktree_fingerprint(root) == tested
    after = snapshot(root)
    for ignored in ("build/out.o", "gate.log"):
        after.pop(ignored)
    assert after == before
    assert (outside / "core.py").read_text() == "elsewhere\n", "nothing written through a link"
    assert writes.restored and not writes.overlay
    assert writes.changed == [
        "added.py: added",
        f"calc: added (a link to {outside})",
        "calc/core.py: deleted",
        "draft.py: modified",
        f"notes.txt: replaced by a link (a link to {home}/decision.key)",
        "run.sh: modified",
        "tests/conftest.py: modified",
    ]
    assert writes.ignored == ["build/: 1 file(s)", "gate.log"]


def test_a_gate_that_changed_nothing_leaves_nothing_to_say(tmp_path: Path) -> None:
    root = project(tmp_path / "proj")
    tested = git.worktree_fingerprint(root)

    writes = gate_writes.settle(root, tested, time.time_ns(), None)

    assert writes.changed == [] and writes.ignored == [] and not writes.restored
    assert gate_writes.log_line("tests", writes) is None


def test_an_overlays_listing_is_sorted_into_changed_ignored_and_caches(tmp_path: Path) -> None:
    root = project(tmp_path / "proj")
    (root / ".venv").symlink_to(tmp_path, target_is_directory=True)
    (root / ".gitignore").write_text("build/\n*.log\n.venv\n")
    tested = git.worktree_fingerprint(root)
    seen = Listing(
        [
            UpperEntry(b".pytest_cache/v/cache/nodeids", "added", "file"),
            UpperEntry(b"src/__pycache__/m.cpython-311.pyc", "added", "file"),
            UpperEntry(b"build/lib/x.o", "added", "file"),
            UpperEntry(b"build/lib/y.o", "added", "file"),
            UpperEntry(b"trace.log", "added", "file"),
            UpperEntry(b".venv", "replaced", "folder"),
            UpperEntry(b".venv/bin/python", "added", "file"),  # beyond a link: git refuses
            UpperEntry(b"calc/core.py", "modified", "file"),
            UpperEntry(b"new/.gitignore", "added", "file"),  # the gate's own rules count for
            UpperEntry(b"new/hidden.py", "added", "file"),  # nothing
        ],
        more=True,
    )

    writes = gate_writes.settle(root, tested, time.time_ns(), seen)

    assert writes.overlay and not writes.restored
    assert writes.caches == 2
    assert writes.ignored == [".venv/: 1 file(s)", "build/: 2 file(s)", "trace.log"]
    assert writes.changed == [
        "calc/core.py: modified",
        "new/.gitignore: added",
        "new/hidden.py: added",
        "… and more: the gate changed more paths than the harness lists",
    ]
    assert gate_writes.log_line("`pytest`", writes) == (
        "gate `pytest` changed 4 path(s) of the tested tree (never committed); wrote ignored "
        "files in 3 place(s); wrote 2 file(s) in tool caches: all discarded with its overlay"
    )


def test_long_lists_are_cut_with_a_count() -> None:
    lines = [f"f{n}.py" for n in range(gate_writes.SHOWN + 5)]

    cut = gate_writes.cut(lines, "path(s)")

    assert len(cut) == gate_writes.SHOWN + 1 and cut[-1] == "… and 5 more path(s)"
    assert gate_writes.by_folder([b"a/b/c", b"a/d", b"e\x1b", b"f/g"]) == [
        "a/: 2 file(s)",
        "e\\x1b",
        "f/: 1 file(s)",
    ]


def test_the_raw_diff_and_the_blob_batch_are_read_as_bytes() -> None:
    raw = (
        b":100644 100755 " + b"a" * 40 + b" " + b"b" * 40 + b" M\0we\nird\0"
        b":000000 120000 " + b"0" * 40 + b" " + b"c" * 40 + b" A\0link\0"
    )

    changes = gate_tree.parse_raw_diff(raw)

    assert [(c.path, c.entry().change, c.entry().kind) for c in changes] == [
        (b"we\nird", "modified", "file"),
        (b"link", "added", "link"),
    ]
    batch = b"a" * 40 + b" blob 3\nx\ny\n" + b"b" * 40 + b" blob 0\n\n"
    assert gate_tree.parse_batch(batch) == {"a" * 40: b"x\ny", "b" * 40: b""}
    with pytest.raises(ValueError, match="not a blob"):
        gate_tree.parse_batch(b"c" * 40 + b" tree 0\n\n")
