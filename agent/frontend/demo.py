"""``harness demo``: copy the demo project into a fresh git repository and its spec beside it.

In GitLab mode the demo project gets an ``origin`` on a GitLab (the local one of
:mod:`agent.gitlab_local`, or the user's), its ``main`` is pushed there first, and
after the run :func:`gitlab_report` says what the GitLab holds.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent.assets import asset_path
from agent.demo_env import ensure_demo_env, link_demo_env
from agent.gitlab_local.faults import FaultPlan
from agent.gitlab_local.server import LocalGitLab
from agent.tracker.factory import TOKEN_VARIABLE
from agent.tracker.gitlab import GitLabSettings, GitLabTracker, Inventory
from agent.tracker.push import git_push, remote_has_branch
from common.atomic import read_model_or_none
from common.errors import SpecError
from common.paths import WorkspaceFiles, spec_slug, workspace_dir
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.schemas.web import WebSettings
from common.workspace import git

DEMO_DIR = asset_path("demo")
SPEC_NAME = "textkit-helpers.md"
IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc", ".venv")
LOCAL_PROJECT = "demo/textkit"
LOCAL_TIMEOUT_S = 2.0
"""The agent's request timeout against the local GitLab (its faulted requests hang longer)."""
DEMO_SEED = 6
"""Faults are drawn from a seeded generator, so a demo run can be repeated exactly."""


@dataclass(frozen=True)
class DemoKind:
    """One of the demos: its folder of assets, the project's and the spec's names."""

    assets: Path
    """Holds ``project/``, ``spec.md`` and ``playbook.json``."""
    project: str
    spec_name: str
    web: WebSettings | None = None
    """The web demo's app: served on the sandbox's loopback, checked in the browser."""


TEXTKIT = DemoKind(DEMO_DIR, "textkit", SPEC_NAME)
WEB_PORT = 8123
WEB = DemoKind(
    DEMO_DIR / "web",
    "notes-web",
    "notes-web-counter.md",
    WebSettings(serve=f"python3 app.py {WEB_PORT}", url=f"http://127.0.0.1:{WEB_PORT}/"),
)
"""``harness demo --web``: a one-page app whose feature the model checks in the browser."""


def prepare_demo(
    target: Path | None, auto_accept: bool, *, file_only: bool = True, kind: DemoKind = TEXTKIT
) -> AgentSpec:
    """Lay out ``TARGET/<project>`` (a git repository on ``main``) and ``TARGET/<spec>``
    (``textkit`` and ``textkit-helpers.md`` for the first demo).

    Raises:
        SpecError: ``target`` exists and is not empty.
    """
    root = Path(tempfile.mkdtemp(prefix="harness-demo-")) if target is None else target.absolute()
    if root.exists() and any(root.iterdir()):
        raise SpecError(f"demo folder {root} is not empty; choose a new one with --dir")
    environment = ensure_demo_env()
    project = root / kind.project
    shutil.copytree(kind.assets / "project", project, ignore=IGNORED)
    link_demo_env(project, environment)
    shutil.copyfile(kind.assets / "spec.md", root / kind.spec_name)
    git.git(project, "init", "--quiet", "-b", "main")
    git.git(project, "add", "--all")
    git.git(
        project,
        "-c",
        "user.name=coding-harness demo",
        "-c",
        "user.email=demo@localhost",
        "commit",
        "--quiet",
        "-m",
        f"chore: {kind.project} before the harness run",
    )
    return AgentSpec(
        spec_file=root / kind.spec_name,
        project_dir=project,
        target_branch="main",
        file_only_mode=file_only,
        model=LOCAL_MODEL,
        playbook=kind.assets / "playbook.json",
        auto_accept=auto_accept,
        web=kind.web,
    )


@dataclass
class GitLabTarget:
    """The GitLab a demo runs against, and what its agent needs to reach it."""

    api_url: str
    project_path: str
    token: str
    server: LocalGitLab | None = None
    """The local GitLab, when the demo runs against it."""

    def environment(self) -> dict[str, str]:
        """What the demo's daemon is started with (it re-execs without the token at once)."""
        env = {TOKEN_VARIABLE: self.token, "GITLAB_API_URL": self.api_url}
        if self.server is not None:
            env["GITLAB_TIMEOUT"] = str(LOCAL_TIMEOUT_S)
        return env


def attach_local_gitlab(spec: AgentSpec, server: LocalGitLab) -> GitLabTarget:
    """Create the demo project on the local GitLab, make it ``origin`` and push ``main``."""
    _, token = server.add_project(LOCAL_PROJECT, username="harness-demo")
    git.git(spec.project_dir, "remote", "add", "origin", f"{server.url}/{LOCAL_PROJECT}.git")
    git_push(spec.project_dir, spec.target_branch, token.value)
    return GitLabTarget(server.api_url, LOCAL_PROJECT, token.value, server)


def attach_gitlab(spec: AgentSpec, url: str, project_path: str) -> GitLabTarget:
    """Make ``URL/GROUP/NAME.git`` the demo's ``origin``; push ``main`` unless it is there.

    Raises:
        SpecError: no token in the environment, or an unusable project path.
    """
    token = os.environ.get(TOKEN_VARIABLE)
    if not token:
        raise SpecError(f"--gitlab-url needs {TOKEN_VARIABLE} (a token with the api scope)")
    if project_path.strip("/").count("/") < 1:
        raise SpecError(f"--gitlab-project {project_path!r} is not GROUP/NAME")
    base = url.rstrip("/").removesuffix("/api/v4")
    path = project_path.strip("/")
    git.git(spec.project_dir, "remote", "add", "origin", f"{base}/{path}.git")
    if not remote_has_branch(spec.project_dir, spec.target_branch, token):
        git_push(spec.project_dir, spec.target_branch, token)
    return GitLabTarget(f"{base}/api/v4", path, token)


@contextlib.contextmanager
def local_gitlab(root: Path, fault_rate: float) -> Iterator[LocalGitLab]:
    """The local GitLab for the demo, its repositories under ``root``."""
    plan = FaultPlan(rate=fault_rate, seed=DEMO_SEED, hang=LOCAL_TIMEOUT_S + 1)
    with LocalGitLab(root, faults=plan) as server:
        yield server


async def gitlab_report(spec: AgentSpec, target: GitLabTarget) -> str:
    """What the GitLab project holds after the run, and how the requests went."""
    faults = ""
    if target.server is not None:
        faults = target.server.faults.summary()
        target.server.faults.rate = 0.0  # the report's own requests are not part of the run
    files = WorkspaceFiles(workspace_dir(spec.project_dir, spec.spec_file))
    settings = GitLabSettings(
        api_url=target.api_url,
        project_path=target.project_path,
        token=target.token,
        project_dir=spec.project_dir,
        target_branch=spec.target_branch,
        milestone_title=spec_slug(spec.spec_file),
    )
    found = await GitLabTracker(settings, files.gitlab_milestone).inventory()
    mirror = read_model_or_none(files.gitlab_milestone, GitLabMilestone)
    lines = [f"\nGitLab {target.api_url.removesuffix('/api/v4')}/{target.project_path} holds:"]
    lines += _describe(found)
    if faults:
        lines.append(f"  requests: {faults}")
    if mirror is not None:
        stats = mirror.stats
        lines.append(
            f"  agent: {stats.requests} requests, {stats.retries} retries, "
            f"{stats.recovered} lost answers recovered, {stats.already_existed} already existed"
        )
    return "\n".join(lines)


def _describe(found: Inventory) -> list[str]:
    closed = sum(attrs.get("state") == "closed" for attrs, _ in found.issues)
    lines = [
        "  milestones: "
        + (", ".join(f"{m['title']} ({m['state']})" for m in found.milestones) or "none"),
        f"  issues: {len(found.issues)} ({closed} closed, {len(found.issues) - closed} open)",
    ]
    for attrs, notes in found.issues:
        labels = ", ".join(attrs.get("labels") or []) or "-"
        kinds = ", ".join(note.kind for note in notes) or "-"
        lines.append(
            f"    #{attrs['iid']} {attrs['state']:<6} {attrs['title']}  "
            f"[labels: {labels}] [notes: {kinds}]"
        )
    lines.append("  labels: " + (", ".join(found.labels) or "none"))
    lines.append(f"  merge requests: {len(found.merge_requests)}")
    for mr in found.merge_requests:
        verified = "with ## Verification" if "## Verification" in (mr["description"] or "") else ""
        lines.append(
            f"    !{mr['iid']} {mr['state']} {mr['source_branch']} → {mr['target_branch']}: "
            f"{mr['title']} {verified}".rstrip()
        )
    lines.append("  branches: " + ", ".join(f"{name} {sha[:8]}" for name, sha in found.branches))
    lines.append(f"  duplicates: {duplicates(found)}")
    return lines


def duplicates(found: Inventory) -> int:
    """Milestones with one title, issues with one title, notes with one text on an issue,
    open merge requests from one branch: each extra copy counts one."""
    counters = [
        Counter(m["title"] for m in found.milestones),
        Counter(attrs["title"] for attrs, _ in found.issues),
        Counter(
            (attrs["iid"], note.kind, note.body) for attrs, notes in found.issues for note in notes
        ),
        Counter(mr["source_branch"] for mr in found.merge_requests if mr["state"] == "opened"),
    ]
    return sum(count - 1 for counter in counters for count in counter.values())
