"""The harness never looks up its own programs in a folder a model could have written.

Found by a hostile-model probe: with the project's virtualenv active where the harness
started, ``.venv/bin`` is on ``PATH``; a ``git`` a session wrote there was found by the
next harness process and run (``git --exec-path``) outside every jail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from common.harness_path import harness_path

REPO = Path(__file__).resolve().parents[2]
NONCE = "hpath-5b2e"


def planted_project(tmp_path: Path) -> Path:
    """A git project whose ``.venv/bin`` (a virtualenv's) holds a ``git`` and a ``bwrap``
    that record they ran."""
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".venv").mkdir()
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir()
    for name in ("git", "bwrap"):
        program = bin_dir / name
        program.write_text(f"#!/bin/sh\necho {NONCE}-{name} >> {tmp_path / 'ran'}\n")
        program.chmod(0o755)
    return project


def test_folders_in_a_work_tree_a_virtualenv_or_relative_are_left_out(tmp_path: Path) -> None:
    project = planted_project(tmp_path)
    plain = tmp_path / "tools"
    plain.mkdir()
    path = os.pathsep.join(
        [str(project / ".venv" / "bin"), str(project / "bin"), ".", "", str(plain), "/usr/bin"]
    )
    assert harness_path(path) == os.pathsep.join([str(plain), "/usr/bin"])


def test_a_planted_git_and_bwrap_are_never_run_by_the_harness(tmp_path: Path) -> None:
    """A fresh harness process (as a resumed agent or a reopened TUI is) with the planted
    folder first on ``PATH``: its git and its fallback bwrap are the system's."""
    project = planted_project(tmp_path)
    probe = (
        "import shutil\n"
        "from common.workspace import git, git_jail\n"
        "from common import bwrap\n"
        "print(git_jail.git_binary()[0])\n"
        f"print(git.git(__import__('pathlib').Path({str(project)!r}), 'status', '--short'))\n"
        "print(shutil.which('bwrap', path=bwrap.harness_path(__import__('os').environ['PATH'])))\n"
    )
    env = {**os.environ, "PATH": f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    binary = done.stdout.splitlines()[0]
    assert not binary.startswith(str(project)), binary
    assert not (tmp_path / "ran").exists(), (tmp_path / "ran").read_text()
