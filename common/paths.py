"""Where things live. One setting, ``HARNESS_HOME``, moves the daemon's files.

Tests, CI and several users each get an isolated daemon by pointing
``HARNESS_HOME`` at their own folder. Per-agent files live in the target
project, in ``PROJECT/.claude-agent/<spec-slug>-<hash>/``.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

#: AF_UNIX socket paths are limited to about 107 bytes on Linux.
MAX_SOCKET_PATH = 104

WORKSPACE_ROOT_NAME = ".claude-agent"

#: The agent's name as the daemon knows it (``agent_1``): set in the environment of each
#: agent the daemon starts, for the messages it sends (its webhook).
AGENT_NAME_VARIABLE = "HARNESS_AGENT_NAME"


def harness_home() -> Path:
    """The daemon's private folder (socket, pid/status file, registry, log)."""
    configured = os.environ.get("HARNESS_HOME")
    if configured:
        return Path(configured).expanduser().absolute()
    return Path.home() / ".coding-harness"


def socket_path(home: Path | None = None) -> Path:
    """The daemon's Unix socket, inside the 0700 home folder."""
    return (home or harness_home()) / "daemon.sock"


def daemon_status_path(home: Path | None = None) -> Path:
    """The status file clients use to find the daemon (pid, socket, protocol version)."""
    return (home or harness_home()) / "daemon.json"


def daemon_state_path(home: Path | None = None) -> Path:
    """The agent registry that survives a daemon restart."""
    return (home or harness_home()) / "daemon_state.json"


def daemon_log_path(home: Path | None = None) -> Path:
    """The daemon's own log (agents log into their workspaces)."""
    return (home or harness_home()) / "daemon.log"


def worktrees_dir(workspace: Path, home: Path | None = None) -> Path:
    """Where the issue worktrees of the agent in ``workspace`` live (parallel issues).

    Under the harness's home, never inside the project: the project's workspace folder
    is hidden from the harness's own git, and a slot's sandbox binds its worktree
    writable, which must not expose the project's work tree. Named after the workspace
    and a hash of its path, so two projects' agents never share a folder.
    """
    digest = hashlib.sha256(str(workspace.absolute()).encode()).hexdigest()[:8]
    return (home or harness_home()) / "worktrees" / f"{workspace.name}-{digest}"


def spec_slug(spec_file: Path) -> str:
    """A short, readable name for a spec: its file stem in lowercase-kebab form."""
    slug = re.sub(r"[^a-z0-9]+", "-", spec_file.stem.lower()).strip("-")
    return slug[:40] or "spec"


def workspace_dir(project_dir: Path, spec_file: Path) -> Path:
    """``PROJECT/.claude-agent/<slug>-<hash>/`` for one spec in one project.

    The hash is taken from the spec's absolute path, so the same spec run again
    finds its workspace (and resumes) while two specs with one name do not collide.
    """
    digest = hashlib.sha256(str(spec_file.absolute()).encode()).hexdigest()[:8]
    return project_dir / WORKSPACE_ROOT_NAME / f"{spec_slug(spec_file)}-{digest}"


def numbered_workspace(project_dir: Path, spec_file: Path, number: int) -> Path:
    """The ``number``-th workspace of a spec: the first is :func:`workspace_dir`, then
    ``<slug>-<hash>-2``, ``-3``, ... (``harness run --fresh`` keeps the earlier ones)."""
    first = workspace_dir(project_dir, spec_file)
    return first if number <= 1 else first.with_name(f"{first.name}-{number}")


def workspace_number(project_dir: Path, spec_file: Path) -> int:
    """The number of the spec's newest existing workspace (0 when it has none)."""
    first = workspace_dir(project_dir, spec_file)
    numbers = [1] if first.is_dir() else []
    if first.parent.is_dir():
        prefix = f"{first.name}-"
        for path in first.parent.iterdir():
            suffix = path.name.removeprefix(prefix)
            if path.name.startswith(prefix) and suffix.isdigit() and path.is_dir():
                numbers.append(int(suffix))
    return max(numbers, default=0)


class WorkspaceFiles:
    """The files of one agent workspace, named once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.info = root / ".workspace_info.json"
        self.state = root / ".agent_state.json"
        self.milestone = root / ".file_milestone.json"
        self.gitlab_milestone = root / ".gitlab_milestone.json"
        self.checkpoint = root / ".hitl_checkpoint.json"
        self.checkpoint_log = root / ".hitl_checkpoint_log.json"
        self.checkpoint_lock = root / ".hitl_checkpoint.lock"
        self.policy_counts = root / ".policy_audit.json"
        self.policy_counts_lock = root / ".policy_audit.lock"
        self.info_lock = root / ".workspace_info.lock"
        self.exit_status = root / ".agent_exit.json"
        self.session_files = root / "session_files.tracked"
        self.spec_copy = root / "app_spec.txt"
        self.logs = root / "logs"
        self.security = root / ".security_counts.json"
        self.trace = root / "trace.jsonl"
        """What the agent did, one event a line (:mod:`agent.core.trace.trace` writes it)."""
