"""Fixtures for GitLab mode: a local GitLab per test, a repository whose origin is on it,
and trackers with test-sized timeouts and delays."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.gitlab_local.faults import FaultPlan
from agent.gitlab_local.server import LocalGitLab
from agent.gitlab_local.store import Project, Token
from agent.tracker.gitlab import GitLabSettings, GitLabTracker
from agent.tracker.push import git_push
from agent.tracker.retry import RetryPolicy

PROJECT = "group/app"
#: The client gives up after TIMEOUT; a ``timeout`` fault hangs for HANG.
TIMEOUT, HANG = 0.4, 0.8
FAST = RetryPolicy(attempts=6, base_delay=0.01, max_delay=0.05, settle_window=1.0)


@dataclass
class Lab:
    """A local GitLab with one project, its token and a clone whose origin points there."""

    server: LocalGitLab
    project: Project
    token: Token
    repo: Path

    @property
    def faults(self) -> FaultPlan:
        return self.server.faults

    def settings(self, **changes: object) -> GitLabSettings:
        values: dict[str, object] = {
            "api_url": self.server.api_url,
            "project_path": PROJECT,
            "token": self.token.value,
            "project_dir": self.repo,
            "target_branch": "main",
            "milestone_title": "spec",
            "timeout": TIMEOUT,
        }
        values.update(changes)
        return GitLabSettings(**values)  # type: ignore[arg-type]

    def tracker(
        self, settings: GitLabSettings | None = None, log: Callable[[str], None] | None = None
    ) -> GitLabTracker:
        """A tracker with test-sized timeouts and delays."""
        return GitLabTracker(
            settings or self.settings(),
            self.repo.parent / "mirror" / ".gitlab_milestone.json",
            log=log,
            policy=FAST,
            verify_policy=FAST,
        )


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    plan = FaultPlan(hang=HANG, retry_after=0)  # tests that time Retry-After set their own
    with LocalGitLab(tmp_path / "gitlab", faults=plan) as server:
        project, token = server.add_project(PROJECT)
        repo = tmp_path / "app"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, "README.md", "app\n")
        git(repo, "remote", "add", "origin", f"{server.url}/{PROJECT}.git")
        git_push(repo, "main", token.value)
        yield Lab(server, project, token, repo)
