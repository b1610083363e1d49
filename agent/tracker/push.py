"""The GitLab remote of a repository, and ``git push`` with the token as a credential.

The token reaches git through a credential helper given on the command line that
reads it from a pipe the harness hands to that one git process (an inherited file
descriptor): it is never in any process's environment or arguments, a URL, a
config file, a log line or an error message. The push runs through
:mod:`common.workspace.git_guard` (no hooks, drivers, user or repository credential
helpers), goes to an explicit URL (the one read when the tracker was set up, so
``remote.*.pushurl`` cannot move it) and is refused when the repository's config
would rewrite that URL (``url.*.insteadOf`` / ``pushInsteadOf``).

Like every harness git it runs in a jail of its own (:mod:`common.workspace.git_jail`),
here with the network (a push needs it) and the credential pipe, nothing else of the
harness: no ``HARNESS_HOME``, no home, no socket. An ``ssh`` remote needs the user's
keys and agent from the home, so an ssh push runs unjailed (hardened by the guard only).
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
from common.workspace import git, git_guard, git_jail

GIT_TIMEOUT_S = 300.0


def credential_helper(fd: int) -> str:
    """A one-off helper that answers ``get`` with the token read from file descriptor ``fd``.

    The pipe holds the token once: the first ``get`` reads it (git asks once per
    process), a ``store`` or ``erase`` is read and ignored. ``/dev/fd/N`` rather than
    ``<&N``: git runs helpers with ``sh``, and dash reads only one digit there.
    """
    return (
        '!f() { cat >/dev/null; test "$1" = get || return 0; '
        f"echo username=oauth2; printf password=; cat /dev/fd/{fd}; echo; }}; f"
    )


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
    """The URL of ``remote`` in ``project`` as configured (no ``insteadOf`` applied)."""
    value = git.git(project, "config", "--get", f"remote.{remote}.url", check=False)
    return value.strip() or None


def push_target(project: Path, remote: str) -> str:
    """The explicit URL to push to: ``remote`` itself when it is a URL, else its configured URL."""
    if "://" in remote or remote.startswith("/") or ":" in remote:
        return remote
    return origin_url(project, remote) or remote


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
    what = f"push {_shown(remote)} {branch}"
    target = push_target(project, remote)
    git_guard.refuse_rewrites(project, target, what)
    _git_with_token(
        project, token, what, target, "push", "--no-verify", "--porcelain", target, refspec
    )


def remote_has_branch(
    project: Path, branch: str, token: str | None, remote: str = "origin"
) -> bool:
    """Whether ``remote`` has ``branch`` (``git ls-remote``, authenticated like a push).

    Raises:
        GitError: the remote could not be read.
    """
    ref = f"refs/heads/{branch}"
    what = f"ls-remote {_shown(remote)}"
    target = push_target(project, remote)
    git_guard.refuse_rewrites(project, target, what)
    out = _git_with_token(project, token, what, target, "ls-remote", "--heads", target, ref)
    return bool(out.strip())


def _shown(remote: str) -> str:
    """How ``remote`` appears in a message: a name as is, a URL without credentials."""
    if "://" not in remote:
        return remote
    parts = urlsplit(remote)
    return f"{parts.scheme}://{parts.hostname or ''}{parts.path}"


def _jailed(project: Path, target: str, command: list[str]) -> tuple[list[str], dict[str, str]]:
    """The push's command and environment: jailed with the network, except over ssh.

    A local remote (a path or ``file://``) is bound writable: it is where the push goes.
    """
    safe = git_guard.safe_environ()
    if target.startswith("ssh://") or ("://" not in target and _SCP_LIKE.match(target)):
        return command, safe
    local = (
        Path(target.removeprefix("file://"))
        if "://" not in target or target.startswith("file://")
        else None
    )
    writable = (local,) if local is not None and local.is_absolute() and local.exists() else ()
    jail = git_jail.Jail(project, writable, network=True)
    return git_jail.wrap(jail, command, safe)


def _git_with_token(project: Path, token: str | None, what: str, target: str, *args: str) -> str:
    """``git ARGS`` with the token offered through a pipe to a one-off helper; returns stdout.

    Raises:
        GitError: git failed, timed out, or the repository's config rewrites the URL.
    """
    read_end, write_end = os.pipe()
    try:
        command = [
            str(git_jail.git_binary()[0]),
            "-C",
            str(project),
            *git_guard.override_args(project),
            "-c",
            f"credential.helper={credential_helper(read_end)}",
            *git_guard.command_args(args),
        ]
        command, env = _jailed(project, target, command)
        with os.fdopen(write_end, "w") as pipe:
            write_end = -1
            pipe.write(token or "")
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=env,
            timeout=GIT_TIMEOUT_S,
            check=False,
            pass_fds=(read_end,),
        )
    except subprocess.TimeoutExpired as e:
        raise GitError(f"git {what}: no answer in {GIT_TIMEOUT_S:g} s") from e
    except OSError as e:
        raise GitError(f"cannot run git: {e.strerror}") from e
    finally:
        os.close(read_end)
        if write_end != -1:
            os.close(write_end)
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if "fatal:" in line or "error:" in line or "!" in line]
        detail = (errors or lines or [f"exit status {done.returncode}"])[-1].strip()
        raise GitError(f"git {what}: {redact(detail, token)}")
    return done.stdout
