"""Secrets reach our processes through a pipe, never through their environment.

Why: ``/proc/PID/environ`` shows, for the whole life of a process and to every
process of the same user, the environment it was exec'd with; popping a variable
from ``os.environ`` changes the process's memory, not that record. The commands
the model runs with its Bash tool run as the same user, so a token in the
environment of the daemon, an agent or the Claude CLI would be theirs to read.

So a process that finds a secret in its environment execs itself again without
it (:func:`reexec_without_secrets`), and a parent hands secrets to a child over a
pipe whose read end the child inherits (:func:`start_with_secrets`); the child
names it with ``--secrets-fd N``, reads it to the end and closes it
(:func:`collect_secrets`). The values then live in memory only.

Two kinds travel this way: the GitLab tokens and service keys
(:data:`SECRET_VARIABLES`), which the daemon holds for every agent, and the Claude secrets
(:data:`common.credentials.CLAUDE_SECRET_VARIABLES`), which a client hands to the
daemon for one agent (see :mod:`common.credentials`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import sys
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import NoReturn, TypeVar

from common.credentials import CLAUDE_SECRET_VARIABLES
from common.errors import SecretsError

GITLAB_VARIABLES: tuple[str, ...] = ("GITLAB_PERSONAL_ACCESS_TOKEN", "GITLAB_TOKEN", "CI_JOB_TOKEN")
SERVICE_VARIABLES: tuple[str, ...] = ("CONTEXT7_API_KEY",)
"""Keys of the services the agent's own tools call (enrichment's ``library_docs``)."""
SECRET_VARIABLES: tuple[str, ...] = (*GITLAB_VARIABLES, *SERVICE_VARIABLES)
"""The GitLab tokens and the service keys: the daemon hands them to every agent."""
HIDDEN_VARIABLES: tuple[str, ...] = (*SECRET_VARIABLES, *CLAUDE_SECRET_VARIABLES)
"""Every variable the model must never see: the SDK hands the Claude CLI our whole environment."""
SECRETS_FD_OPTION = "--secrets-fd"
"""The option that names the inherited read end of a secrets pipe."""
MAX_BYTES = select.PIPE_BUF
"""A write this small into an empty pipe is atomic and cannot block (any pipe holds a page)."""

ChildT = TypeVar("ChildT")
Start = Callable[[list[str], tuple[int, ...]], ChildT]
"""Starts a child from its argv and the file descriptors it must inherit (``pass_fds``)."""


def secrets_in(environ: Mapping[str, str]) -> dict[str, str]:
    """The secret variables (GitLab's and Claude's) set in ``environ``."""
    return {name: environ[name] for name in HIDDEN_VARIABLES if name in environ}


def without_secrets(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` with no secret variable: the environment to give a child."""
    return {name: value for name, value in environ.items() if name not in HIDDEN_VARIABLES}


def take_secrets(environ: MutableMapping[str, str]) -> dict[str, str]:
    """Remove the secrets from ``environ`` (so no child inherits them) and return them."""
    return {name: environ.pop(name) for name in HIDDEN_VARIABLES if name in environ}


def add_secrets_fd_option(parser: argparse.ArgumentParser) -> None:
    """Declare ``--secrets-fd N`` (repeatable; read into ``secrets_fds``)."""
    parser.add_argument(
        SECRETS_FD_OPTION,
        dest="secrets_fds",
        type=int,
        action="append",
        default=[],
        metavar="FD",
        help="read the secrets (JSON) from this inherited file descriptor, then close it",
    )


def collect_secrets(fds: Sequence[int], environ: MutableMapping[str, str]) -> dict[str, str]:
    """The secrets read from ``fds`` (each closed) and those taken out of ``environ``.

    ``environ`` only holds secrets when this process was not re-exec'd (``main``
    called in-process); taking them out keeps them from children at least.

    Raises:
        SecretsError: a pipe could not be read or did not hold a JSON object of strings.
    """
    found: dict[str, str] = {}
    for fd in fds:
        found.update(receive_secrets(fd))
    found.update(take_secrets(environ))
    return found


def receive_secrets(fd: int) -> dict[str, str]:
    """Read the secrets from the pipe ``fd`` up to its end, and close it.

    Raises:
        SecretsError: ``fd`` could not be read, or did not hold a JSON object of strings.
    """
    try:
        with os.fdopen(fd, "rb") as pipe:
            data = pipe.read(MAX_BYTES + 1)
    except OSError as e:
        raise SecretsError(f"cannot read the secrets from file descriptor {fd}: {e}") from e
    try:
        secrets = json.loads(data)
    except ValueError as e:
        raise SecretsError(
            f"file descriptor {fd} held no secrets (was their sender gone?): {e}"
        ) from e
    if not isinstance(secrets, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in secrets.items()
    ):
        raise SecretsError(f"file descriptor {fd} held no JSON object of strings")
    return secrets


def start_with_secrets(
    start: Start[ChildT], argv: Sequence[str], secrets: Mapping[str, str]
) -> ChildT:
    """Start a child that receives ``secrets`` through a pipe; the child is returned.

    Without secrets, ``start(argv, ())``. Otherwise the child gets
    ``ARGV --secrets-fd N`` and the pipe's read end; once it has started, this
    process closes its read end, writes the secrets and closes the write end.
    Give the child an environment :func:`without_secrets`.

    Raises:
        SecretsError: the secrets are too large for one pipe write (nothing started).
    """
    if not secrets:
        return start(list(argv), ())
    data = _encode(secrets)
    read_fd, write_fd = os.pipe()  # neither end is inherited unless passed
    try:
        try:
            child = start([*argv, SECRETS_FD_OPTION, str(read_fd)], (read_fd,))
        finally:
            os.close(read_fd)  # the child has its own copy now
        with contextlib.suppress(BrokenPipeError):  # the child exited before reading;
            _write_now(write_fd, data)  # its exit status says why
    finally:
        os.close(write_fd)
    return child


def gitlab_secrets(secrets: Mapping[str, str]) -> dict[str, str]:
    """The GitLab tokens and service keys among ``secrets``: what a daemon keeps for all
    its agents.

    Claude secrets are per agent: a daemon drops those it was started with.
    """
    return {name: value for name, value in secrets.items() if name in SECRET_VARIABLES}


def reexec_without_secrets() -> None:
    """Exec this interpreter again, same arguments, secrets in a pipe instead of the environment.

    Returns (having done nothing) when the environment holds no secret; otherwise
    it does not return: the new program finds ``--secrets-fd N`` at the end of its
    arguments. The pid stays the same. Call it first, from ``__main__``.

    Raises:
        SecretsError: the secrets are too large for one pipe write.
        OSError: the exec failed.
    """
    if secrets_in(os.environ):
        exec_with_secrets([sys.executable, *sys.orig_argv[1:]])


def exec_with_secrets(argv: Sequence[str]) -> NoReturn:
    """Exec ``argv`` (a front end of ours: it calls :func:`hide_secrets_from_proc`) with
    this process's secrets in a pipe, ``--secrets-fd N`` at the end of its arguments, and
    none in its exec environment, so ``/proc/PID/environ`` never shows them.

    Without secrets in the environment, ``argv`` is exec'd as it is.

    Raises:
        SecretsError: the secrets are too large for one pipe write.
        OSError: the exec failed.
    """
    secrets = secrets_in(os.environ)
    sys.stdout.flush()
    sys.stderr.flush()
    if not secrets:
        os.execv(argv[0], list(argv))
    data = _encode(secrets)
    read_fd, write_fd = os.pipe()
    try:
        _write_now(write_fd, data)
    finally:
        os.close(write_fd)
    os.set_inheritable(read_fd, True)
    try:
        os.execve(argv[0], [*argv, SECRETS_FD_OPTION, str(read_fd)], without_secrets(os.environ))
    except OSError:
        os.close(read_fd)
        raise


def _encode(secrets: Mapping[str, str]) -> bytes:
    data = json.dumps(dict(secrets)).encode()
    if len(data) > MAX_BYTES:
        raise SecretsError(
            f"the secrets take {len(data)} bytes; at most {MAX_BYTES} fit one pipe write"
        )
    return data


def _write_now(fd: int, data: bytes) -> None:
    """Write ``data`` (at most :data:`MAX_BYTES`) into an empty pipe; never blocks."""
    os.set_blocking(fd, False)
    written = os.write(fd, data)
    if written != len(data):  # cannot happen for an atomic write; refuse to send a torn one
        raise SecretsError(f"only {written} of {len(data)} bytes of secrets were written")


def hide_secrets_from_proc(argv: Sequence[str]) -> list[str]:
    """For a front end (the TUI, ``harness``): keep the secrets, but out of ``/proc/PID/environ``.

    Re-execs without the secrets in the exec environment (see
    :func:`reexec_without_secrets`), then reads them back from the ``--secrets-fd N``
    that ends ``argv`` into ``os.environ``: that changes this process's memory, not the
    environment block the kernel shows in ``/proc/PID/environ``. A daemon started from
    here still gets them through a pipe only (``start_daemon`` gives it an environment
    :func:`without_secrets`).

    Returns:
        ``argv`` without the ``--secrets-fd N`` option.

    Raises:
        SecretsError: the secrets are too large, or the pipe did not hold them.
    """
    reexec_without_secrets()
    args = list(argv)
    if len(args) >= 2 and args[-2] == SECRETS_FD_OPTION:
        os.environ.update(receive_secrets(int(args[-1])))
        del args[-2:]
    return args
