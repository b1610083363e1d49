"""What the policy knows about the project it guards, and how it says no."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from common.schemas.policy import PolicySettings


class Denied(Exception):
    """A command the policy refuses; the message is the sentence the model sees."""


@dataclass(frozen=True)
class PolicyContext:
    """The project, what its spec allows, and its quality preset's commands."""

    project_dir: Path
    """The project root (resolved: symlinks in its path do not confuse containment)."""
    settings: PolicySettings = field(default_factory=PolicySettings)
    preset_commands: tuple[tuple[str, ...], ...] = ()
    """The test, lint and build commands, split into words; allowed as written."""
    sandboxed: bool = False
    """The model's commands run in the OS sandbox, verified at the agent's start
    (bubblewrap probed, the layout recorded). Only then does the policy judge by
    consequence (:mod:`.sandboxed`): what cannot reach beyond the project is allowed.
    ``False`` (an agent whose spec says ``"sandbox": false``, or no agent at all) keeps
    the strict rules."""

    @classmethod
    def for_project(
        cls,
        project_dir: Path,
        settings: PolicySettings | None = None,
        test_command: str | None = None,
        *,
        sandboxed: bool = False,
    ) -> PolicyContext:
        """A context for ``project_dir`` with the spec's settings and test command."""
        settings = settings or PolicySettings()
        commands = [c for c in (test_command, *settings.quality_commands) if c]
        presets = tuple(tuple(shlex.split(command)) for command in commands)
        return cls(project_dir.resolve(), settings, tuple(p for p in presets if p), sandboxed)
