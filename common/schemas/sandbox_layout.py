"""The sandbox layout recorded at project_verification: what every later sandbox shows.

Why recorded: the folders a project's venv needs (its target, the interpreter it was
made from, the folders its ``.pth`` files name) are read from files inside the
project, which the model can write once a session ran. So they are read once, at
project_verification, when the project is as the person gave it; every later
sandbox (each session, each test gate, after ``harness resume``) uses this record,
and a different result later stops the run at a checkpoint that shows it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from common.schemas.base import StrictModel


class SandboxLayout(StrictModel):
    """The parts of a session's sandbox that depend on the project (the rest is fixed)."""

    read_only: list[Path] = Field(default_factory=list)
    """Folders outside the system ones and the project, visible read-only at their path."""
    venv: Path | None = None
    """The project's venv as found (``PROJECT/.venv``), ``None`` without one."""
    venv_target: Path | None = None
    """Where ``venv`` resolved to (the demo's is a symlink into the environment cache)."""
    network: bool = False
    """The host's network inside (the spec's ``sandbox_network``)."""
    left_out: list[str] = Field(default_factory=list)
    """Folders the venv named that the deny list kept out, each with its reason (for
    people: never compared, never mounted)."""
