"""What the policy knows about the project it guards, and how it says no."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
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
        context = cls(project_dir.resolve(), settings, (), sandboxed)
        return context.with_commands(test_command, *settings.quality_commands)

    def with_commands(self, *commands: str | None) -> PolicyContext:
        """This context with ``commands`` allowed as written too (once each).

        Why: the test command and the quality checks the harness runs are decided at
        project_verification, after the sessions' configuration was made; every session
        after it (each kind, each slot) must be able to run them exactly as the harness
        will. A command that does not split as the shell would (an open quote) adds
        nothing.
        """
        presets = list(self.preset_commands)
        for command in commands:
            try:
                words = tuple(shlex.split(command)) if command else ()
            except ValueError:
                continue
            if words and words not in presets:
                presets.append(words)
        return replace(self, preset_commands=tuple(presets))
