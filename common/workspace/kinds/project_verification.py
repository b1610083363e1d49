"""project_verification: the person confirms the project, branches and tests found.

A plain approve or reject (a reject stops the run; its reason is only logged).
"""

from __future__ import annotations

from common.schemas.checkpoint import CheckpointType, ProjectVerificationCheckpoint
from common.schemas.quality import SETTINGS_FILE
from common.workspace.kinds.base import KindRules
from common.workspace.kinds.lines import one


class ProjectVerificationKind(KindRules[ProjectVerificationCheckpoint]):
    checkpoint_type = CheckpointType.PROJECT_VERIFICATION
    reason_use = "why the run stops: logged, the model never reads it"
    asks_anyway = "asks if sandbox plan changed"

    def _waits_for_person(self, checkpoint: ProjectVerificationCheckpoint) -> list[str]:
        context = checkpoint.context
        reasons: list[str] = []
        if context.sandbox_changes:
            reasons.append("a changed sandbox plan: the project's venv asks for other folders")
        # A repository file the model can write must not widen the sandbox unseen.
        if context.sandbox_hosts or context.mcp_servers:
            reasons.append(
                f"{SETTINGS_FILE} asks for hosts the sandbox may reach or MCP servers "
                "for the sessions"
            )
        return reasons

    def _context_lines(self, checkpoint: ProjectVerificationCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [
            f"Project:        {one(c.project_dir)}",
            f"Branch:         {one(c.current_branch)} (target {one(c.target_branch)})",
            f"Feature branch: {one(c.feature_branch)}",
            f"HEAD:           {one(c.head_commit[:12])}",
            f"Tracker:        {one(c.tracker)}",
            f"Test command:   {one(c.test_command or '(none detected)')}",
        ]
        if c.baseline_tests is not None:
            out.append(f"Baseline tests: {one(c.baseline_tests.summary)}")
        for name, run in c.quality_checks.items():
            verdict = "passes" if run.passed else f"fails ({one(run.summary)})"
            out.append(f"Check {one(name)}: `{one(run.command)}` {verdict}")
        out += [f"{SETTINGS_FILE}:  {one(server.summary())}" for server in c.mcp_servers]
        if c.sandbox_hosts:
            out.append(f"{SETTINGS_FILE}:  the sandbox may reach {one(', '.join(c.sandbox_hosts))}")
        out += [f"Warning: {one(w)}" for w in c.warnings]
        return out


KIND = ProjectVerificationKind(ProjectVerificationCheckpoint)
