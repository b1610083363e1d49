"""The harness's git never runs a program a nested repository names: marker files prove it.

Each test plants, as a project script would, nested repositories whose *own* config and
``.gitattributes`` name a program of every kind (filters, diff and merge drivers,
textconv, fsmonitor, hooks, pager, external diff), a ``.git`` file pointing at such a
config, and a ``.gitmodules`` whose ``update``/``url`` run commands. A control shows the
plant is live (plain git runs it); then every helper of the harness runs and no marker
may appear.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.core.git import commits
from common.workspace import git, git_jail

PROGRAM_KEYS = (
    ("filter.x.clean", "clean"),
    ("filter.x.smudge", "smudge"),
    ("filter.x.process", "process"),
    ("diff.y.textconv", "textconv"),
    ("diff.y.command", "diffcommand"),
    ("merge.z.driver", "mergedriver"),
    ("core.fsmonitor", "fsmonitor"),
    ("diff.external", "external"),
    ("core.pager", "pager"),
    ("core.sshCommand", "ssh"),
)
HOOKS = ("pre-commit", "post-commit", "post-checkout", "post-index-change", "pre-auto-gc")


@pytest.fixture(autouse=True, params=["jailed", "unjailed"])
def jail(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: the guard alone must hold where bubblewrap cannot run."""
    if request.param == "unjailed":
        monkeypatch.setattr(git_jail, "runner", lambda: None)
    elif git_jail.runner() is None:
        pytest.skip("bubblewrap cannot run here")


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def arm(git_dir_repo: Path, markers: Path, tag: str) -> None:
    """Give the repository at ``git_dir_repo`` a program of every kind, each leaving a marker."""
    for key, name in PROGRAM_KEYS:
        program = f"touch {markers}/{tag}-{name}; cat"
        sh_git(git_dir_repo, "config", key, program)
    sh_git(git_dir_repo, "config", "filter.x.required", "true")
    hooks = markers.parent / f"hooks-{tag}"
    hooks.mkdir()
    for hook in HOOKS:
        script = hooks / hook
        script.write_text(f"#!/bin/sh\ntouch {markers}/{tag}-hook-{hook}\n")
        script.chmod(0o755)
    sh_git(git_dir_repo, "config", "core.hooksPath", str(hooks))


def nested_repo(path: Path, markers: Path, tag: str, *, separate: Path | None = None) -> None:
    """A committed nested repository with the armed config and attributes naming it."""
    path.mkdir(parents=True)
    init = ["init", "-q", "-b", "main"]
    if separate is not None:  # its .git is a FILE: ``gitdir: <separate>``
        init += ["--separate-git-dir", str(separate)]
    sh_git(path, *init)
    (path / "f.txt").write_text("hello\n")
    (path / ".gitattributes").write_text("* filter=x diff=y merge=z\n")
    sh_git(path, "-c", "user.name=m", "-c", "user.email=m@m", "add", ".")
    sh_git(path, "-c", "user.name=m", "-c", "user.email=m@m", "commit", "-q", "-m", "n")
    arm(path, markers, tag)


def make_dirty_without_size_change(path: Path) -> None:
    """Same size, other content and mtime: git must hash the file, through its filter."""
    target = path / "f.txt"
    target.write_text("HELLO\n")
    stamp = target.stat().st_mtime + 5
    os.utime(target, (stamp, stamp))


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """The project with every plant, and the folder where a program that ran leaves a marker."""
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "config", "user.name", "Test User")
    sh_git(project, "config", "user.email", "test@example.invalid")
    (project / "app.py").write_text("x = 1\n")
    sh_git(project, "add", ".")
    sh_git(project, "commit", "-q", "-m", "initial")
    # Committed as a gitlink (what the harness used to do), then made dirty.
    nested_repo(project / "vendor" / "lib", markers, "gitlink")
    (project / ".gitmodules").write_text(
        '[submodule "lib"]\n\tpath = vendor/lib\n'
        f"\turl = ext::sh -c touch% {markers}/gitmodules-url\n"
        "\tfetchRecurseSubmodules = true\n"
    )
    sh_git(project, "add", "vendor/lib", ".gitmodules")
    sh_git(project, "commit", "-q", "-m", "the gitlink, as the old harness committed it")
    make_dirty_without_size_change(project / "vendor" / "lib")
    # Untracked ones: a folder repository, and a .git FILE pointing at an armed git dir.
    nested_repo(project / "vendor" / "new", markers, "untracked")
    make_dirty_without_size_change(project / "vendor" / "new")
    nested_repo(project / "tools" / "gf", markers, "gitfile", separate=tmp_path / "store.git")
    make_dirty_without_size_change(project / "tools" / "gf")
    (project / "app.py").write_text("x = 2\n")  # the session's honest change
    return project, markers


def ran(markers: Path) -> list[str]:
    return sorted(path.name for path in markers.iterdir())


def test_the_plant_is_live_plain_git_runs_it(planted: tuple[Path, Path]) -> None:
    project, markers = planted
    subprocess.run(["git", "-C", str(project), "status"], capture_output=True, check=False)
    # The nested repository's filter and fsmonitor ran: the tests below would see a regression.
    assert {"gitlink-process", "gitlink-fsmonitor"} <= set(ran(markers))


def test_no_helper_of_the_harness_runs_a_program_of_a_nested_repository(
    planted: tuple[Path, Path],
) -> None:
    project, markers = planted

    paths = git.changed_paths(project)
    files = git.changed_files(project)
    fingerprint = git.worktree_fingerprint(project)
    git.git(project, "diff", "HEAD")
    git.git(project, "diff")
    git.git(project, "diff", "--stat", "HEAD~1", "HEAD")
    git.git(project, "log", "-p", "-2")
    git.git(project, "show", "HEAD")
    commits.untracked(project)
    changes = commits.session_changes(project, touched={"app.py"}, dirty_before=set())
    sha = commits.commit(project, changes.files, "feat(#1): honest\n")
    git.git(project, "checkout", "-q", "-b", "feature/x")
    git.git(project, "checkout", "-q", "main")

    assert ran(markers) == []
    assert b"app.py" in paths and "app.py" in files and len(fingerprint) == 40
    assert sh_git(project, "show", "--name-only", "--format=", sha).split() == ["app.py"]


def test_the_fingerprint_still_follows_the_projects_own_files(planted: tuple[Path, Path]) -> None:
    project, markers = planted
    before = git.worktree_fingerprint(project)
    (project / "app.py").write_text("x = 3\n")
    assert git.worktree_fingerprint(project) != before
    assert ran(markers) == []


def test_nested_repositories_are_kept_out_of_the_commit_and_named(
    planted: tuple[Path, Path],
) -> None:
    project, markers = planted
    (project / "tools" / "gf" / "more.txt").write_text("inside the nested one\n")

    changes = commits.session_changes(
        project, touched={"app.py", "tools/gf/more.txt"}, dirty_before=set()
    )
    sha = commits.commit(project, [*changes.files, "vendor/new/", "tools/gf/f.txt"], "feat(#1)\n")

    assert changes.files == ["app.py"]
    kept = {item.path: item.reason for item in changes.kept_out}
    # Jailed, the .git file's target is absent, so git lists that folder's files one by one.
    assert "vendor/new/" in kept
    assert "tools/gf/f.txt" in kept or "tools/gf/" in kept
    assert all(path.startswith(("vendor/new/", "tools/gf/")) for path in kept)
    assert all(reason.startswith(commits.NESTED_REASON) for reason in kept.values())
    assert "(vendor/new/.git)" in kept["vendor/new/"]
    assert all("(tools/gf/.git)" in kept[p] for p in kept if p.startswith("tools/"))
    line = commits.kept_out_line(changes.kept_out)
    assert "\n" not in line and "vendor/new/" in line
    # The commit holds the honest file only: no new gitlink, nothing of the nested ones.
    assert sh_git(project, "show", "--name-only", "--format=", sha).split() == ["app.py"]
    modes = {line.split()[0] for line in sh_git(project, "ls-tree", "-r", sha).splitlines()}
    assert sh_git(project, "ls-tree", "-r", sha).count("160000") == 1  # the old one only
    assert modes <= {"100644", "160000"}
    assert ran(markers) == []


def test_a_gitmodules_that_runs_commands_is_kept_out_and_never_run(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    (project / "a.py").write_text("a\n")
    sh_git(project, "add", ".")
    sh_git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "i")
    (project / ".gitmodules").write_text(
        '[submodule "x"]\n\tpath = x\n'
        f"\turl = ext::sh -c touch% {markers}/url\n\tupdate = !touch {markers}/update\n"
    )
    (project / "a.py").write_text("b\n")

    changes = commits.session_changes(project, touched={".gitmodules"}, dirty_before=set())
    sha = commits.commit(project, [*changes.files, ".gitmodules"], "feat(#1)\n")
    git.worktree_fingerprint(project)
    git.git(project, "diff", "HEAD~1", "HEAD")

    assert changes.files == ["a.py"]
    assert [item.path for item in changes.kept_out] == [".gitmodules"]
    assert sh_git(project, "show", "--name-only", "--format=", sha).split() == ["a.py"]
    assert ran(markers) == []


def test_a_nested_git_folder_inside_a_tracked_folder_keeps_its_files_out(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    sh_git(project, "init", "-q", "-b", "main")
    (project / "src" / "a.py").write_text("a\n")
    sh_git(project, "add", ".")
    sh_git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "i")
    sh_git(project / "src", "init", "-q")  # the model makes a tracked folder a repository
    (project / "src" / "a.py").write_text("b\n")
    (project / "ok.py").write_text("ok\n")

    changes = commits.session_changes(project, touched={"src/a.py"}, dirty_before=set())

    assert changes.files == ["ok.py"]
    assert [item.path for item in changes.kept_out] == ["src/a.py"]
    assert "(src/.git)" in changes.kept_out[0].reason
