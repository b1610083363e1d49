"""``project_verification``: before the run changes anything, a person checks the project
it will work on (its branches, tracker, test command, baseline tests and quality checks,
uncommitted files, warnings) and the repository's settings shown for approval (a changed
sandbox plan, the outbound review's settings, the webhook, sandbox hosts, MCP servers),
which are recorded as approved and never read again after; a plain decision."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.gates import TestRun
from common.schemas.mcp_server import McpServer
from common.schemas.notify import NotifyTargets
from common.schemas.outbound import OutboundSettings
from common.schemas.sandbox_hosts import HostPort


class ProjectVerificationContext(StrictModel):
    project_dir: str
    current_branch: str
    target_branch: str
    feature_branch: str
    head_commit: str
    tracker: Literal["file", "gitlab"]
    test_command: str | None
    baseline_tests: TestRun | None = None
    quality_checks: dict[str, TestRun] = Field(default_factory=dict)
    """Each quality check's run before any change (lint, type check…)."""
    uncommitted: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    sandbox_changes: list[str] = Field(default_factory=list)
    """How the sandbox layout the project asks for differs from the one recorded (also
    among ``warnings``); non-empty: a changed sandbox plan, which always waits for a
    person whatever the auto-accept rules say."""
    outbound: OutboundSettings | None = None
    """The outbound review's settings as shown to the person: recorded as approved, never
    read again after the decision (``None``: a checkpoint from before they were carried)."""
    notify: NotifyTargets | None = None
    """The repository's ``.harness.json`` webhook as shown to the person (``what_happened``
    names its host or variable): recorded as approved, never read again after."""
    sandbox_hosts: list[HostPort] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``sandbox_hosts`` as shown to the person:
    recorded as approved, never read again after."""
    mcp_servers: list[McpServer] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``mcp_servers`` as shown to the person (each
    one's command or URL, session kinds and hosts): recorded as approved."""


class ProjectVerificationCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.PROJECT_VERIFICATION] = CheckpointType.PROJECT_VERIFICATION
    context: ProjectVerificationContext
    decision: Decision | None = None
