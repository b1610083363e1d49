"""The plan every session's sandbox starts from, and the pieces it is made of.

Apart from :mod:`agent.sandbox.launcher` (which serves the sandbox: its bridge, proxy,
wrappers and entrances) because these are the plan's own facts: which CLI and interpreter,
which of the project's git folders are read-only, which recorded folders are shown, and
the git configuration and system files covered.
"""

from __future__ import annotations

import shlex
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import claude_agent_sdk

from agent.sandbox.cli_copy import execute_only_cli
from agent.sandbox.git_config import shown_configs
from agent.sandbox.layout import recheck
from agent.sandbox.plan import SYSTEM_DIRS, SandboxPlan
from agent.sandbox.protected import ProtectedPlaces
from agent.sandbox.system_secrets import private_entries
from common.errors import SandboxError
from common.paths import WORKSPACE_ROOT_NAME
from common.schemas.sandbox_layout import SandboxLayout
from common.workspace import gitdirs

RELAY = Path(__file__).with_name("relay.py")


def bundled_cli() -> Path:
    """The Claude CLI the SDK bundles (the SDK prefers it over any on ``PATH``)."""
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    if not path.is_file():
        raise SandboxError(f"the SDK's bundled Claude CLI is missing at {path}")
    return path.resolve()


def relay_python() -> Path:
    """A plain interpreter for the relay: the base one under the harness's venv."""
    return Path(getattr(sys, "_base_executable", sys.executable)).resolve()


def git_paths(project_dir: Path) -> tuple[Path, ...]:
    """The repository's git folders: ``.git``, or a worktree's gitdir and common dir."""
    folders = gitdirs.git_folders(project_dir)
    if folders is None:
        dot_git = project_dir / ".git"
        return (dot_git,) if dot_git.exists() else ()
    if folders.dot_git.is_dir():
        return (folders.dot_git,)
    return tuple(dict.fromkeys((folders.dot_git, folders.git_dir, folders.common_dir)))


def extra_read_only(
    project_dir: Path,
    layout: SandboxLayout | None,
    places: ProtectedPlaces,
    log: Callable[[str], None],
) -> tuple[Path, ...]:
    """Folders outside the system ones the session needs to read.

    The relay's interpreter (the harness's own), and the folders of the layout
    recorded at project_verification, each checked again against the deny list:
    nothing is read from the project's files here, so nothing the model wrote since
    adds a mount (see :mod:`agent.sandbox.layout`).
    """
    recorded, left_out = recheck(layout.read_only if layout else (), project_dir, places)
    for note in left_out:
        log(f"sandbox: left out {note}")
    kept: list[Path] = []
    covered = [project_dir.resolve(), *(Path(d).resolve() for d in SYSTEM_DIRS)]
    for path in [Path(sys.base_prefix).resolve(), *recorded]:
        if path.is_dir() and not any(path == c or c in path.parents for c in [*covered, *kept]):
            kept.append(path)
    return tuple(kept)


def session_plan(
    project_dir: Path,
    private: Path,
    layout: SandboxLayout | None,
    places: ProtectedPlaces,
    log: Callable[[str], None],
    network: bool,
) -> SandboxPlan:
    """The sessions' plan: the project, the recorded layout, a fresh home per sandbox, the
    git configuration and the system's private files covered."""
    secrets = private_entries()
    if not secrets.complete:
        log("sandbox: /etc's private files: the walk ran out of time, covered what it found")
    return SandboxPlan(
        project_dir=project_dir,
        scratch_home=private / "home",
        # Each session (one CLI process, one bwrap) starts with an empty home: what one
        # left there (~/.bashrc, which the CLI's shell snapshot sources, ~/.claude,
        # ~/.local) is never the next one's, nor a gate's.
        fresh_home=True,
        cli=execute_only_cli(bundled_cli(), private),
        relay=RELAY,
        python=relay_python(),
        read_only=extra_read_only(project_dir, layout, places, log),
        read_only_in_project=git_paths(project_dir),
        hidden_in_project=hidden(project_dir),
        covered_files=shown_configs(project_dir, git_paths(project_dir), private),
        private_files=secrets.files,
        private_folders=secrets.folders,
        network=network,
    )


def hidden(project_dir: Path) -> tuple[Path, ...]:
    workspaces = project_dir / WORKSPACE_ROOT_NAME
    return (workspaces,) if workspaces.is_dir() else ()


def write_wrapper(path: Path, argv: list[str]) -> None:
    """An executable ``sh`` script that execs ``argv`` with the caller's arguments."""
    path.write_text(f'#!/bin/sh\nexec {shlex.join(argv)} "$@"\n')
    path.chmod(stat.S_IRWXU)
