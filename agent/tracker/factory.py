"""Choose the tracker a spec asks for, and configure GitLab mode from its surroundings.

GitLab mode takes the token (``GITLAB_PERSONAL_ACCESS_TOKEN``) from the secrets the agent
received through its pipe, never its environment (see :mod:`common.secrets`), the API from
``GITLAB_API_URL`` (default: the host of the ``origin`` remote, or gitlab.com) and the
project from ``origin``. Anything missing is reported at project_verification, before
anything is created.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from agent.tracker.base import IssueTracker
from agent.tracker.file import FileTracker
from agent.tracker.gitlab import GitLabSettings, GitLabTracker
from agent.tracker.push import Remote, origin_url, parse_remote
from common.paths import WorkspaceFiles
from common.schemas.workspace import WorkspaceInfo

TOKEN_VARIABLE = "GITLAB_PERSONAL_ACCESS_TOKEN"
DEFAULT_API_URL = "https://gitlab.com/api/v4"
DEFAULT_TIMEOUT_S = 20.0


def make_tracker(
    info: WorkspaceInfo,
    files: WorkspaceFiles,
    secrets: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    log: Callable[[str], None] | None = None,
) -> IssueTracker:
    """File-only mode gets the JSON tracker; otherwise GitLab (see :func:`gitlab_settings`)."""
    if info.spec.file_only_mode:
        return FileTracker(files.milestone)
    settings = gitlab_settings(info, secrets or {}, environ if environ is not None else {})
    return GitLabTracker(settings, files.gitlab_milestone, log=log)


def gitlab_settings(
    info: WorkspaceInfo, secrets: Mapping[str, str], environ: Mapping[str, str]
) -> GitLabSettings:
    """Token, API URL, project path and timeout; what is wrong goes into ``problem``."""
    spec = info.spec
    problem: str | None = None
    warnings: list[str] = []
    remote: Remote | None = None
    url = origin_url(spec.project_dir)
    if url is None:
        problem = (
            f"{spec.project_dir} has no origin remote: GitLab mode finds its project there "
            "(git remote add origin https://gitlab.com/GROUP/NAME.git)"
        )
    else:
        try:
            remote = parse_remote(url)
        except ValueError as e:
            problem = f"origin is not a GitLab project address: {e}"
    configured = environ.get("GITLAB_API_URL", "").strip().rstrip("/")
    if configured:
        api_url = configured if configured.endswith("/api/v4") else f"{configured}/api/v4"
    else:
        api_url = f"{remote.web_base}/api/v4" if remote else DEFAULT_API_URL
    project_path = remote.path if remote else ""
    if remote is not None:
        api = urlsplit(api_url)
        prefix = api.path.removesuffix("/api/v4").strip("/")
        if prefix and project_path.startswith(f"{prefix}/"):
            project_path = project_path[len(prefix) + 1 :]  # GitLab under a relative URL
        api_host = api.netloc.rpartition("@")[2]
        if configured and remote.scheme != "ssh" and api_host != remote.host:
            warnings.append(f"origin is on {remote.host} but GITLAB_API_URL on {api_host}")
        if remote.has_credentials:
            warnings.append(
                "origin's URL carries credentials, so they are in .git/config; "
                "the harness does not need them there"
            )
    token = secrets.get(TOKEN_VARIABLE) or None
    if token is None and problem is None:
        problem = (
            f"{TOKEN_VARIABLE} is not set where the daemon was started: GitLab mode needs a "
            'token with the api scope (or use "file_only_mode": true)'
        )
    try:
        timeout = float(environ.get("GITLAB_TIMEOUT") or DEFAULT_TIMEOUT_S)
    except ValueError:
        timeout = DEFAULT_TIMEOUT_S
        warnings.append(f"GITLAB_TIMEOUT is not a number; using {DEFAULT_TIMEOUT_S:g} s")
    return GitLabSettings(
        api_url=api_url,
        project_path=project_path,
        token=token,
        project_dir=spec.project_dir,
        target_branch=spec.target_branch,
        milestone_title=info.spec_slug,
        timeout=timeout if timeout > 0 else DEFAULT_TIMEOUT_S,
        remote=url or "origin",
        problem=problem,
        warnings=tuple(warnings),
    )
