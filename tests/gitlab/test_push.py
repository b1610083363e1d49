"""git push with the token: it works, and the token is left nowhere."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent.tracker.push import git_push, remote_has_branch
from common.errors import GitError

from .conftest import Lab, commit, git


def files_containing(root: Path, secret: str) -> list[Path]:
    needle = secret.encode()
    return [path for path in root.rglob("*") if path.is_file() and needle in path.read_bytes()]


async def test_the_push_leaves_the_token_in_no_config_hook_or_credential_store(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HOME"])
    git(lab.repo, "checkout", "-q", "-b", "feature/spec")
    sha = commit(lab.repo, "a.py", "a\n")
    # A user whose git stores every credential it sees, and a repository with hooks.
    git(lab.repo, "config", "--global", "credential.helper", "store")
    spy = lab.repo.parent / "hook-saw"
    for name in ("pre-push", "reference-transaction"):
        hook = lab.repo / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\nenv >> {spy}\ncat > /dev/null\n")
        hook.chmod(0o755)
    monkeypatch.setenv("GIT_TRACE", "1")
    monkeypatch.setenv("GIT_CURL_VERBOSE", "1")
    tracker = lab.tracker()
    await tracker.verify()
    assert await tracker.push_branch("feature/spec") == sha

    assert git(lab.project.repo, "rev-parse", "refs/heads/feature/spec") == sha
    assert not spy.exists()
    assert not (home / ".git-credentials").exists()
    for root in (lab.repo, lab.project.repo, home, tracker.mirror.parent):
        assert files_containing(root, lab.token.value) == []
    assert "@" not in git(lab.repo, "remote", "get-url", "origin")


def test_remote_has_branch_reads_with_the_token(lab: Lab) -> None:
    assert remote_has_branch(lab.repo, "main", lab.token.value)
    assert not remote_has_branch(lab.repo, "develop", lab.token.value)


def test_a_rejected_push_says_why_without_the_token(lab: Lab) -> None:
    git(lab.repo, "checkout", "-q", "-b", "feature/x")
    commit(lab.repo, "x.py", "x\n")
    git_push(lab.repo, "feature/x", lab.token.value)
    git(lab.repo, "reset", "-q", "--hard", "HEAD~1")
    commit(lab.repo, "y.py", "y\n")  # diverged from what GitLab has
    with pytest.raises(Exception, match=r"git push origin feature/x: .*rejected") as failed:
        git_push(lab.repo, "feature/x", lab.token.value)
    assert lab.token.value not in str(failed.value)


def test_a_push_insteadof_rule_is_refused_before_anything_is_sent(lab: Lab) -> None:
    git(lab.repo, "checkout", "-q", "-b", "feature/x")
    commit(lab.repo, "x.py", "x\n")
    url = git(lab.repo, "remote", "get-url", "origin")
    git(lab.repo, "config", "url.http://127.0.0.1:9/.pushInsteadOf", url)
    with pytest.raises(GitError, match="rewrites the URL") as refused:
        git_push(lab.repo, "feature/x", lab.token.value)
    assert lab.token.value not in str(refused.value)
    assert git(lab.project.repo, "branch", "--list", "feature/x") == ""


async def test_the_tracker_pushes_to_the_url_it_was_set_up_with(lab: Lab) -> None:
    git(lab.repo, "checkout", "-q", "-b", "feature/y")
    sha = commit(lab.repo, "y.py", "y\n")
    url = git(lab.repo, "remote", "get-url", "origin")
    tracker = lab.tracker(lab.settings(remote=url))
    await tracker.verify()
    git(lab.repo, "config", "remote.origin.pushurl", "http://127.0.0.1:9/elsewhere.git")
    git(lab.repo, "remote", "set-url", "origin", "http://127.0.0.1:9/moved.git")
    assert await tracker.push_branch("feature/y") == sha


def test_no_git_child_gets_the_token_in_its_environment_or_arguments(
    lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = shutil.which("git")
    assert real is not None
    seen = lab.repo / ".git" / "seen"  # in the repository: written inside git's jail too
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "git"
    shim.write_text(f'#!/bin/sh\n{{ env; echo "$@"; }} >> {seen}\nexec {real} "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    git(lab.repo, "checkout", "-q", "-b", "feature/z")
    commit(lab.repo, "z.py", "z\n")

    git_push(lab.repo, "feature/z", lab.token.value)

    assert seen.read_text().count("\n") > 0
    assert "--porcelain" in seen.read_text()  # the push itself was seen, jailed or not
    assert lab.token.value not in seen.read_text()
    assert remote_has_branch(lab.repo, "feature/z", lab.token.value)
