"""Every other file the harness reads from a work tree or a git folder: a FIFO, a link to
``/dev/zero`` or a device is a safe default and (where a person must know) one line,
never a wait; and what git does not list is named at issue_closure."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from agent.core.git import closure_changes, hidden_writes
from agent.core.run import integrity
from agent.sandbox import layout
from common import host_python
from common.errors import GitError
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.workspace import git, gitdirs
from common.workspace.render import render_checkpoint
from tests.common.test_safe_read import within
from tests.core.checkpoint_samples import closure
from tests.core.runs import sh_git


def repository(root: Path) -> Path:
    project = root / "p"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "commit", "-q", "--allow-empty", "-m", "start")
    return project


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_worktree_s_git_file_that_is_not_a_plain_file_is_no_pointer(
    tmp_path: Path, kind: str
) -> None:
    dot_git = tmp_path / ".git"
    if kind == "fifo":
        os.mkfifo(dot_git)
    else:
        dot_git.symlink_to("/dev/zero")
    assert within(5, lambda: gitdirs.git_folders(tmp_path)) is None


def test_a_git_config_over_the_cap_reads_as_a_change_never_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = repository(tmp_path)
    recorded = integrity.config_text(project)
    assert "[core]" in recorded
    monkeypatch.setattr(integrity, "MAX_CONFIG_BYTES", 10)
    now = integrity.config_text(project)
    assert now.startswith("# (the harness did not read it: larger than 10 bytes")
    assert integrity.config_diff(recorded, now), "the guard shows the change to a person"


def test_an_exclude_file_that_is_a_fifo_is_one_line(tmp_path: Path) -> None:
    project = repository(tmp_path)
    exclude = project / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    os.mkfifo(exclude)
    with pytest.raises(GitError) as caught:
        within(30, lambda: git.exclude_path(project, "/.claude-agent/"))
    assert str(caught.value).endswith("exclude is a FIFO")
    exclude.unlink()
    exclude.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(GitError):
        git.exclude_path(project, "/.claude-agent/")
    assert not (tmp_path / "elsewhere").exists(), "no write through a link"
    exclude.unlink()
    git.exclude_path(project, "/.claude-agent/")
    git.exclude_path(project, "/.claude-agent/")
    assert exclude.read_text() == "/.claude-agent/\n"


def test_pyenv_s_global_version_file_as_a_fifo_means_no_version(tmp_path: Path) -> None:
    root = tmp_path / "pyenv"
    (root / "shims").mkdir(parents=True)
    shim = root / "shims" / "python3"
    shim.write_text('#!/usr/bin/env bash\nexec pyenv exec "$@"\n')
    shim.chmod(0o755)
    os.mkfifo(root / "version")
    found = within(5, lambda: host_python.find({"PATH": str(root / "shims")}, tmp_path / "x"))
    assert isinstance(found, host_python.Search) and found.found is None
    assert "means `system`" in found.looked_for


def test_a_venv_file_swapped_for_a_fifo_reads_as_nothing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyvenv.cfg")
    assert within(5, lambda: layout._text(tmp_path / "pyvenv.cfg")) == ""


def test_the_look_at_ignored_files_is_time_boxed_and_names_the_rest(tmp_path: Path) -> None:
    project = repository(tmp_path)
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    for index in range(3):
        (project / "build" / f"old{index}.txt").write_text("x")
    since = time.time_ns() + 10**12  # nothing was written after this
    assert hidden_writes.written_since(project, since) == []
    assert len(hidden_writes.written_since(project, since, budget_s=-1.0)) == 3


def test_fifos_sockets_and_devices_are_named_at_closure_escaped() -> None:
    with tempfile.TemporaryDirectory(prefix="hr", dir="/tmp") as name:
        tree = Path(name)
        os.mkfifo(tree / ".harness.json")
        os.mkfifo(tree / "pipe\x1b[2J")
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(tree / "sock"))
            lines = closure_changes.special_files_in(tree)
    assert lines == [".harness.json (a FIFO)", "pipe\\x1b[2J (a FIFO)", "sock (a socket)"]
    base = closure("ic-2")
    assert isinstance(base, IssueClosureCheckpoint)
    shown = render_checkpoint(
        base.model_copy(
            update={"context": base.context.model_copy(update={"special_files": lines})}
        ),
        agent="agent_1",
    )
    assert "Not a file git can see, in no diff: pipe\\x1b[2J (a FIFO)" in shown
    assert "\x1b" not in shown


def test_at_most_twenty_are_named_and_the_rest_counted(tmp_path: Path) -> None:
    for index in range(25):
        os.mkfifo(tmp_path / f"p{index:02}")
    lines = closure_changes.special_files_in(tmp_path)
    assert len(lines) == 21 and lines[-1] == "… and 5 more"
