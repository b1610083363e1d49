"""A gate's overlay: the bubblewrap options, the listing of its upper folder, the probe.

The listing is read from real overlays: a real bubblewrap lays the work tree out and a
shell makes the changes a hostile gate would (an edit, a deletion, a link into the
harness's home, a folder emptied and made again, a link replaced by a folder), so the
whiteouts and opaque folders are the kernel's own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.sandbox import overlay
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.overlay import UpperEntry
from agent.sandbox.plan import SandboxPlan, bwrap_argv

BWRAP = find_bwrap()
NO_OVERLAY = probe(BWRAP) or (overlay.probe(BWRAP) if BWRAP is not None else "no bwrap")
needs_overlay = pytest.mark.skipif(NO_OVERLAY is not None, reason=f"{NO_OVERLAY}")


def test_the_options_show_the_tree_at_its_own_path(tmp_path: Path) -> None:
    lower, folder = tmp_path / "proj", tmp_path / "gate"

    assert overlay.overlay_args(lower, folder) == [
        "--overlay-src",
        str(lower),
        "--overlay",
        str(folder / "upper"),
        str(folder / "work"),
        str(lower),
    ]


def test_a_gates_plan_binds_the_project_as_an_overlay_and_covers_git_after(
    tmp_path: Path,
) -> None:
    project, folder = tmp_path / "proj", tmp_path / "gate"
    plan = SandboxPlan(
        project_dir=project,
        scratch_home=tmp_path / "home",
        cli=tmp_path / "claude",
        relay=tmp_path / "relay.py",
        python=Path("/usr/bin/python3"),
        read_only_in_project=(project / ".git",),
        hidden_in_project=(project / ".claude-agent",),
        overlay=folder,
    )

    argv = bwrap_argv(plan, Path("/opt/bwrap"), ["x"])

    at = argv.index("--overlay-src")
    assert argv[at : at + 6] == overlay.overlay_args(project, folder)
    assert ["--bind", str(project), str(project)] not in [argv[i : i + 3] for i in range(len(argv))]
    assert argv.index(str(project / ".git")) > at
    assert argv.index(str(project / ".claude-agent")) > at


def gate(lower: Path, folder: Path, script: str) -> overlay.Listing:
    """``script`` in an overlay of ``lower`` (real bubblewrap), then its listing."""
    assert BWRAP is not None
    folder.mkdir()
    overlay.lay_out(folder)
    argv = [str(BWRAP), "--unshare-all", "--cap-drop", "ALL", "--die-with-parent"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += [*overlay.overlay_args(lower, folder), "--chdir", str(lower), "/bin/sh", "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return overlay.listing(folder / overlay.UPPER, lower)


def tree(root: Path) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "core.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "notes.txt").write_text("plain\n")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text("import os\n")
    (root / "data").mkdir()
    (root / "data" / "a.csv").write_text("1\n")
    (root / "data" / "b.csv").write_text("2\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "env-target").mkdir()
    (root / "env-target" / "python").write_text("real\n")
    (root / ".venv").symlink_to("env-target", target_is_directory=True)
    return root


@needs_overlay
def test_the_listing_names_what_a_hostile_gate_did_and_the_tree_is_untouched(
    tmp_path: Path,
) -> None:
    lower = tree(tmp_path / "proj")
    before = {path: path.read_bytes() for path in lower.rglob("*") if path.is_file()}
    home = tmp_path / "harness-home"

    found = gate(
        lower,
        tmp_path / "gate",
        "echo '    return 0' >> calc/core.py; "
        f"rm notes.txt && ln -s {home}/decision.key notes.txt; "
        "echo '# harmless' > tests/conftest.py; "
        "rm -r data && mkdir data && echo 3 > data/c.csv; "
        "chmod +x run.sh; touch calc/core.py; "
        "rm .venv && mkdir -p .venv/bin && echo fake > .venv/bin/python; "
        "echo new > added.py",
    )

    assert found.entries == [
        UpperEntry(b".venv", "replaced", "folder"),
        UpperEntry(b".venv/bin/python", "added", "file"),
        UpperEntry(b"added.py", "added", "file"),
        UpperEntry(b"calc/core.py", "modified", "file"),
        UpperEntry(b"data", "replaced", "folder"),
        UpperEntry(b"data/c.csv", "added", "file"),
        UpperEntry(b"notes.txt", "replaced", "link", os.fsencode(f"{home}/decision.key")),
        UpperEntry(b"run.sh", "modified", "file"),
        UpperEntry(b"tests/conftest.py", "modified", "file"),
    ]
    assert not found.more
    after = {path: path.read_bytes() for path in lower.rglob("*") if path.is_file()}
    assert after == before
    assert (lower / ".venv").is_symlink() and (lower / "notes.txt").read_text() == "plain\n"
    overlay.remove(tmp_path / "gate")
    assert not (tmp_path / "gate").exists()


@needs_overlay
def test_deletions_are_whiteouts_and_a_file_left_as_it_was_is_no_change(tmp_path: Path) -> None:
    lower = tree(tmp_path / "proj")

    found = gate(
        lower,
        tmp_path / "gate",
        "rm notes.txt; rm -r tests; cat calc/core.py > /tmp/c && cat /tmp/c > calc/core.py; "
        "touch data/a.csv",
    )

    assert found.entries == [
        UpperEntry(b"notes.txt", "deleted", "file"),
        UpperEntry(b"tests", "deleted", "folder"),
    ]
    assert [entry.line() for entry in found.entries] == ["notes.txt: deleted", "tests/: deleted"]


def test_lines_name_the_change_escaped() -> None:
    link = UpperEntry(b"no\x1b[2Jtes.txt", "replaced", "link", b"/home/h/.coding-harness/key")

    assert link.line() == (
        "no\\x1b[2Jtes.txt: replaced by a link (a link to /home/h/.coding-harness/key)"
    )
    assert UpperEntry(b"d", "replaced", "folder").line() == "d/: replaced by a folder"
    assert UpperEntry(b"x.py", "added", "file").line() == "x.py: added"


@needs_overlay
def test_a_flood_of_writes_is_cut_and_said_to_be_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower = tree(tmp_path / "proj")
    monkeypatch.setattr(overlay, "MAX_ENTRIES", 5)

    found = gate(lower, tmp_path / "gate", "for n in 1 2 3 4 5 6 7 8; do echo $n > f$n; done")

    assert len(found.entries) == 5 and found.more


def test_removing_a_gate_folder_empties_the_work_folder_overlayfs_locked(tmp_path: Path) -> None:
    folder = tmp_path / "gate"
    folder.mkdir()
    upper, work = overlay.lay_out(folder)
    (work / "work").mkdir()
    (work / "work" / "x").write_text("")
    (work / "work").chmod(0)
    (upper / "link").symlink_to("/etc")

    overlay.remove(folder)

    assert not folder.exists()
    assert Path("/etc").is_dir()


@needs_overlay
def test_the_probe_finds_the_overlay_here() -> None:
    assert BWRAP is not None
    assert overlay.probe(BWRAP) is None


def test_the_probe_says_why_without_a_bubblewrap(tmp_path: Path) -> None:
    missing = tmp_path / "no-bwrap"

    refused = overlay.probe(missing)

    assert refused is not None and "cannot lay out an overlay" in refused
