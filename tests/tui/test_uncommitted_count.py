"""The uncommitted count a person sees: an untracked folder counts once.

A project's untracked ``.venv/`` (1270 files) was told as "1270 uncommitted change(s)";
the commit's own listing stays file by file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from common.workspace import git
from tui.services.git_status import read_summary


def make_repo(root: Path) -> Path:
    root.mkdir()
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "t@example.invalid"],
        ["config", "user.name", "t"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True)
    (root / "app.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "app.py"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=root, check=True)
    return root


def test_an_untracked_venv_counts_once_and_a_changed_file_counts_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    site = repo / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    for number in range(40):
        (site / f"mod{number}.py").write_text("")
    (repo / "app.py").write_text("x = 2\n")

    shown = git.uncommitted_for_people(repo)

    assert sorted(shown) == [".venv/", "app.py"]
    assert len(git.changed_files(repo)) == 41  # a commit still looks at each file
    assert read_summary(repo).describe() == "main · 2 changed"
