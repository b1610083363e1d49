"""The GitLab remote of a repository, and ``git push`` with the token as a credential.

The token reaches git through a credential helper given on the command line that
reads it from an environment variable of that one git process: it is never part of
a URL, a config file, a log line or an error message. The user's own credential
helpers are switched off for the push (so none of them stores the token), and so
are the repository's hooks (so none of them sees the variable).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from common.errors import GitError

TOKEN_VARIABLE = "HARNESS_GITLAB_GIT_TOKEN"
"""The variable the credential helper reads, set for the git process alone."""
_HELPER = (
    '!f() { cat >/dev/null; test "$1" = get || return 0; '
    f'echo username=oauth2; echo "password=${TOKEN_VARIABLE}"; }}; f'
)
#: Variables that would make git print request details or ask someone for a password.
_DROPPED = ("GIT_ASKPASS", "SSH_ASKPASS", "GIT_TRACE", "GIT_TRACE_CURL", "GIT_CURL_VERBOSE")
GIT_TIMEOUT_S = 300.0


@runtime_checkable
class BranchPublisher(Protocol):
    """A tracker that can publish the feature branch (GitLab mode; file-only mode cannot)."""

    async def push_branch(self, branch: str) -> str:
        """Push ``branch`` to the project's remote and return the commit GitLab now has."""
        ...


@dataclass(frozen=True)
class Remote:
    """A git remote URL, understood as a GitLab project address."""

    scheme: Literal["http", "https", "ssh"]
    host: str
    """Host name, with ``:port`` for http(s) remotes that give one."""
    path: str
    """The project's path on that host, without ``.git`` (``group/subgroup/name``)."""
    has_credentials: bool
    """Whether the URL itself carries a user name or password (shown redacted)."""

    @property
    def web_base(self) -> str:
        """``scheme://host`` of a GitLab reachable over HTTP(S) (ssh remotes: https)."""
        scheme = "https" if self.scheme == "ssh" else self.scheme
        return f"{scheme}://{self.host}"


_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>[^/].*)$")


def parse_remote(url: str) -> Remote:
    """Read ``https://host/group/name.git``, ``ssh://git@host/group/name.git`` or
    ``git@host:group/name.git``.

    Raises:
        ValueError: the URL is a local path or has no project path.
    """
    text = url.strip()
    if "://" not in text:
        match = _SCP_LIKE.match(text)
        if match is None:
            raise ValueError("origin is a local path, not a GitLab project")
        return Remote("ssh", match["host"], _project_path(match["path"]), False)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https", "ssh"):
        raise ValueError(f"origin uses {parts.scheme}://, not http(s) or ssh")
    host = parts.hostname or ""
    if not host:
        raise ValueError("origin has no host")
    if parts.port is not None and parts.scheme != "ssh":
        host = f"{host}:{parts.port}"
    credentials = parts.password is not None or (
        parts.username is not None and parts.scheme != "ssh"
    )
    scheme: Literal["http", "https", "ssh"] = parts.scheme  # type: ignore[assignment]
    return Remote(scheme, host, _project_path(parts.path), credentials)


def _project_path(path: str) -> str:
    cleaned = path.strip("/").removesuffix(".git").strip("/")
    if "/" not in cleaned:
        raise ValueError(f"origin path {cleaned or '/'!r} is not group/name")
    return cleaned


def origin_url(project: Path, remote: str = "origin") -> str | None:
    """The URL of ``remote`` in ``project``, or ``None`` when there is no such remote."""
    done = subprocess.run(
        ["git", "-C", str(project), "remote", "get-url", remote],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every secret replaced, for anything that may be logged."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[REDACTED]")
    return text


def git_push(project: Path, branch: str, token: str | None, remote: str = "origin") -> None:
    """Push local ``branch`` to the branch of the same name on ``remote``.

    Raises:
        GitError: git failed; the message is git's last line, token removed.
    """
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    _git_with_token(
        project,
        token,
        f"push {remote} {branch}",
        "push",
        "--no-verify",
        "--porcelain",
        remote,
        refspec,
    )


def remote_has_branch(
    project: Path, branch: str, token: str | None, remote: str = "origin"
) -> bool:
    """Whether ``remote`` has ``branch`` (``git ls-remote``, authenticated like a push).

    Raises:
        GitError: the remote could not be read.
    """
    ref = f"refs/heads/{branch}"
    out = _git_with_token(
        project, token, f"ls-remote {remote}", "ls-remote", "--heads", remote, ref
    )
    return bool(out.strip())


def _git_with_token(project: Path, token: str | None, what: str, *args: str) -> str:
    """``git ARGS`` with the token offered by a one-off credential helper; returns stdout."""
    command = [
        "git",
        "-C",
        str(project),
        "-c",
        "credential.helper=",
        "-c",
        f"credential.helper={_HELPER}",
        "-c",
        "core.hooksPath=/dev/null",
        *args,
    ]
    env = {name: value for name, value in os.environ.items() if name not in _DROPPED}
    env["GIT_TERMINAL_PROMPT"] = "0"
    if token:
        env[TOKEN_VARIABLE] = token
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=GIT_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as e:
        raise GitError(f"git {what}: no answer in {GIT_TIMEOUT_S:g} s") from e
    except OSError as e:
        raise GitError(f"cannot run git: {e.strerror}") from e
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if "fatal:" in line or "error:" in line or "!" in line]
        detail = (errors or lines or [f"exit status {done.returncode}"])[-1].strip()
        raise GitError(f"git {what}: {redact(detail, token)}")
    return done.stdout
