"""``case.json``: one eval case, a small project with a spec and hidden acceptance tests."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel

Language = Literal["python", "javascript", "typescript", "rust", "go"]


class EvalCase(StrictModel):
    """How to lay a case out, score it, and whether the embedded model plays it.

    The case folder holds ``project/`` (made a git repository at run time),
    ``spec.md``, ``hidden_tests/`` (copied in only to score: the model never sees
    them), optionally ``solution/`` (the oracle: files that pass the hidden tests)
    and ``playbook.json`` (the embedded model's run, built from the solution).
    """

    schema_version: Literal[1] = 1
    language: Language
    summary: str = Field(min_length=1)
    """One line: what the spec asks for."""
    hidden_dest: str = "hidden_tests"
    """Where, inside the project, the hidden tests are copied to be run."""
    hidden_command: str = Field(min_length=1)
    """The command (run in the project, in its own environment) that runs the hidden tests."""
    playbook: str | None = None
    """The embedded model's playbook, relative to the case folder; ``None``: a real model only."""
    timeout_s: int = Field(default=1200, ge=10)
    """How long the agent may take before the case counts as failed."""
