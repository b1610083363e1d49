"""The harness's own git runs nothing the repository configured: marker files prove it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.core.git import commits
from common.errors import GitError
from common.workspace import git, git_guard


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    sh_git(root, "init", "-q", "-b", "main")
    sh_git(root, "config", "user.name", "Test User")
    sh_git(root, "config", "user.email", "test@example.invalid")
    (root / "a.txt").write_text("one\n")
    sh_git(root, "add", ".")
    sh_git(root, "commit", "-q", "-m", "initial")
    return root


def script(path: Path, marker: Path, tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {marker}\n{tail}")
    path.chmod(0o755)
    return path


def test_hooks_hooks_path_fsmonitor_gpg_and_aliases_never_run(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for hook in ("pre-commit", "post-commit", "commit-msg", "reference-transaction"):
        script(repo / ".git" / "hooks" / hook, marker)
        script(tmp_path / "hooks" / hook, marker)
    sh_git(repo, "config", "core.hooksPath", str(tmp_path / "hooks"))
    sh_git(repo, "config", "core.fsmonitor", str(script(tmp_path / "fsmonitor", marker)))
    sh_git(repo, "config", "commit.gpgSign", "true")
    sh_git(repo, "config", "gpg.program", str(script(tmp_path / "gpg", marker, "exit 1\n")))
    sh_git(repo, "config", "alias.st", f"!touch {marker}")
    sh_git(repo, "config", "core.pager", f"touch {marker}; cat")

    (repo / "a.txt").write_text("two\n")
    assert git.changed_files(repo) == ["a.txt"]
    sha = commits.commit(repo, ["a.txt"], "feat(#1): two\n")
    git.git(repo, "log", "-1")
    git.worktree_fingerprint(repo)

    assert git.head_commit(repo) == sha
    assert not marker.exists()


def test_filter_and_diff_drivers_never_run_and_content_is_kept_raw(
    repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil merge=evil\n")
    sh_git(repo, "config", "filter.evil.clean", f"touch {marker}; tr a-z A-Z")
    sh_git(repo, "config", "filter.evil.smudge", f"touch {marker}; cat")
    sh_git(repo, "config", "filter.evil.required", "true")
    sh_git(repo, "config", "diff.evil.textconv", f"touch {marker}; cat")
    sh_git(repo, "config", "diff.evil.command", f"touch {marker}; true")
    sh_git(repo, "config", "diff.external", str(script(tmp_path / "extdiff", marker)))

    (repo / "a.txt").write_text("changed\n")
    assert "+changed" in git.git(repo, "diff")
    sha = commits.commit(repo, [".gitattributes", "a.txt"], "feat(#1): attrs\n")
    assert "+changed" in git.git(repo, "show", sha)
    git.git(repo, "log", "-p", "-1")
    (repo / "a.txt").unlink()
    git.git(repo, "checkout", "--", "a.txt")

    assert sh_git(repo, "show", f"{sha}:a.txt") == "changed\n"  # no clean filter upper-cased it
    assert (repo / "a.txt").read_text() == "changed\n"
    assert not marker.exists()


def test_environment_injection_is_dropped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(script(tmp_path / "ext", marker)))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(tmp_path / "hooks"))
    script(tmp_path / "hooks" / "post-commit", marker)
    (repo / "a.txt").write_text("three\n")
    git.git(repo, "diff")
    commits.commit(repo, ["a.txt"], "feat(#1): three\n")
    assert not marker.exists()


def test_a_global_identity_is_kept_while_the_global_config_is_off(
    repo: Path, tmp_path: Path
) -> None:
    sh_git(repo, "config", "--unset", "user.name")
    sh_git(repo, "config", "--unset", "user.email")
    sh_git(repo, "config", "--global", "user.name", "Global Person")
    sh_git(repo, "config", "--global", "user.email", "global@example.invalid")
    marker = tmp_path / "ran"
    sh_git(repo, "config", "--global", "core.hooksPath", str(tmp_path / "hooks"))
    script(tmp_path / "hooks" / "post-commit", marker)
    (repo / "a.txt").write_text("four\n")

    commits.commit(repo, ["a.txt"], "feat(#1): four\n")

    author = sh_git(repo, "log", "-1", "--format=%an <%ae>").strip()
    assert author == "Global Person <global@example.invalid>"
    assert not marker.exists()


def test_url_rewrites_that_match_the_push_url_are_found(repo: Path) -> None:
    url = "https://gitlab.example/group/app.git"
    assert git_guard.url_rewrites(repo, url) == []
    sh_git(repo, "config", "url.http://127.0.0.1:9/.pushInsteadOf", "https://gitlab.example/")
    sh_git(repo, "config", "url.http://elsewhere/.insteadOf", "https://other.example/")
    assert git_guard.url_rewrites(repo, url) == [
        "url.http://127.0.0.1:9/.pushinsteadof=https://gitlab.example/"
    ]
    with pytest.raises(GitError, match="rewrites the URL"):
        git_guard.refuse_rewrites(repo, url, "push origin x")


def test_driver_overrides_cover_every_named_driver() -> None:
    config = [("filter.lfs.clean", "x"), ("filter.lfs.smudge", "y"), ("diff.py.textconv", "z")]
    overrides = dict(git_guard.driver_overrides(config))
    assert overrides == {
        "filter.lfs.clean": "",
        "filter.lfs.smudge": "",
        "filter.lfs.process": "",
        "filter.lfs.required": "false",
        "diff.py.textconv": "cat",
        "diff.py.command": "",
    }


def test_no_git_of_the_harness_descends_into_a_nested_repository() -> None:
    overrides = dict(git_guard.FIXED_OVERRIDES)
    assert overrides["diff.ignoreSubmodules"] == "all"
    assert overrides["submodule.recurse"] == "false"
    assert overrides["fetch.recurseSubmodules"] == "false"
    assert overrides["push.recurseSubmodules"] == "no"
    assert overrides["status.submoduleSummary"] == "false"
    assert overrides["diff.submodule"] == "short"
    assert git_guard.command_args(("status", "-z")) == ["status", "--ignore-submodules=all", "-z"]
    assert git_guard.command_args(("diff", "HEAD")) == [
        "diff",
        "--no-ext-diff",
        "--ignore-submodules=all",
        "HEAD",
    ]
    assert git_guard.command_args(("log", "-p")) == ["log", "--no-ext-diff", "-p"]
