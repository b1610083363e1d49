"""project_verification: the person confirms the project, branches and tests found.

A plain approve or reject (a reject stops the run; its reason is only logged).
"""

from __future__ import annotations

from common.schemas.checkpoint import CheckpointType, ProjectVerificationCheckpoint
from common.workspace.kinds.base import KindRules
from common.workspace.kinds.lines import one


class ProjectVerificationKind(KindRules[ProjectVerificationCheckpoint]):
    checkpoint_type = CheckpointType.PROJECT_VERIFICATION
    reason_use = "why the run stops: logged, the model never reads it"

    def _waits_for_person(self, checkpoint: ProjectVerificationCheckpoint) -> list[str]:
        if not checkpoint.context.sandbox_changes:
            return []
        return ["a changed sandbox plan: the project's venv asks for other folders"]

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
        out += [f"Warning: {one(w)}" for w in c.warnings]
        return out


KIND = ProjectVerificationKind(ProjectVerificationCheckpoint)
