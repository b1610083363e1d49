"""The eval report (``harness eval``): per case and in total, as JSON next to the Markdown."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now

CaseStatus = Literal["passed", "failed", "error", "not_run"]


class CaseFigures(StrictModel):
    """What the agent spent and got done on one case (from its trace and tracker)."""

    issues_done: int = 0
    issues_set_aside: int = 0
    issues_open: int = 0
    sessions: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class CaseResult(StrictModel):
    """One case's outcome."""

    name: str
    language: str
    status: CaseStatus
    reason: str = ""
    """Why it failed or was not run (one line)."""
    agent_outcome: str | None = None
    """``done``, ``failed`` or ``stopped``: how the agent ended."""
    hidden_passed: int | None = None
    hidden_failed: int | None = None
    figures: CaseFigures = Field(default_factory=CaseFigures)
    wall_s: float = 0.0
    workspace: str | None = None
    """The agent's workspace (``harness trace`` reads its trace there)."""


class EvalReport(StrictModel):
    """The whole run."""

    schema_version: Literal[1] = 1
    model: str
    """``embedded`` or the model name; with the endpoint host for a real model."""
    started_at: datetime = Field(default_factory=utc_now)
    cases: list[CaseResult] = Field(default_factory=list)
    total: CaseFigures = Field(default_factory=CaseFigures)
    wall_s: float = 0.0
    passed: int = 0
    run: int = 0
    """Cases run (passed, failed or error); ``not_run`` ones are left out of the rate."""

    @property
    def pass_rate(self) -> float:
        return self.passed / self.run if self.run else 0.0
