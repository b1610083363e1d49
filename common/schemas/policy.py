"""``policy`` in an agent spec: how far the command policy opens for one project."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class PolicySettings(StrictModel):
    """What a project may allow beyond the default command policy (all off by default)."""

    allow_one_liners: bool = False
    """Let the model run interpreter one-liners (``python -c``, ``node -e``, ``perl -e``…)."""
    allow_background: bool = False
    """Let the model start background processes (``&``, ``nohup``, ``setsid``, ``disown``)."""
    allow_network: bool = False
    """Let the model install packages (``pip install``, ``npm install``, ``cargo add``…).
    Network clients such as ``curl`` or ``ssh`` stay denied."""
    extra_programs: list[str] = Field(default_factory=list)
    """Program names the model may run with any arguments (path arguments are still checked)."""
    quality_commands: list[str] = Field(default_factory=list)
    """The project's lint and build commands, allowed as written (plus extra arguments),
    like its test command."""
