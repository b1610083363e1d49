"""A file too big to commit is kept out of the commit and of the fingerprint.

``truncate -s 2G`` costs the model nothing; git read and deflated all of it at every
commit and every gate (11.5 s per call for 2 GB, measured), and the forge's size limit
would refuse the push at every resume.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent.core.git import commits
from common.workspace import git
from tests.core.runs import sh_git


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "commit", "-q", "--allow-empty", "-m", "start")
    (project / "ok.py").write_text("x = 1\n")
    return project


def test_a_big_sparse_file_is_kept_out_and_never_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "link.bin").symlink_to("big.bin")
    before = git.worktree_fingerprint(project)
    with (project / "big.bin").open("wb") as out:
        out.truncate(4 * 1024 * 1024 * 1024)

    started = time.monotonic()
    fingerprint = git.worktree_fingerprint(project)
    changes = commits.session_changes(project, set(), set())
    sha = commits.commit(project, [*changes.files, "big.bin"], "feat: x")
    elapsed = time.monotonic() - started

    assert fingerprint == before, "the big file is not in the fingerprint"
    assert changes.files == ["link.bin", "ok.py"]
    assert changes.kept_out == [commits.KeptOut("big.bin", commits.TOO_BIG_REASON)]
    committed = sh_git(project, "show", "--name-only", "--format=", sha).split()
    assert committed == ["link.bin", "ok.py"]
    assert elapsed < 10, f"{elapsed:.1f} s: git read the big file"


def test_a_file_at_the_limit_is_committed(tmp_path: Path) -> None:
    project = _project(tmp_path)
    with (project / "data.bin").open("wb") as out:
        out.truncate(git.BIG_FILE_BYTES)

    assert commits.kept_out_reason(project, b"data.bin") is None
    assert not git.too_big(project, b"data.bin")
    os.truncate(project / "data.bin", git.BIG_FILE_BYTES + 1)
    assert git.too_big(project, b"data.bin")
