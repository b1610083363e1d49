"""An enrichment that drops its issue's feature is held and shown as a diff; by default
the issue keeps its spec-faithful text and is coded from it.

The playbook is the demo's, except that the enrichment of #2 ("Add word_count")
rewrites it into a copy of #1 (slugify), as a tester saw a model do with
"Add Interval.parse(text)".
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent.core.faultpoints import VARIABLE
from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import (
    CheckpointType,
    EnrichmentScopeCheckpoint,
    ScopeDecision,
)
from common.schemas.milestone import FileMilestone
from common.schemas.spec import AgentSpec
from common.workspace import answer, checkpoints, git
from common.workspace.diff_text import diff_lines
from common.workspace.render import render_checkpoint
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, next_pending, start_agent

pytestmark = pytest.mark.slow

PLAYBOOK = Path(__file__).parent / "data" / "scope-playbook.json"
SPEC_TITLE = "Add word_count"
HIJACKED = "Add slugify (the same helper as #1)"


def scope_workspace(auto_accept: bool) -> tuple[AgentSpec, WorkspaceFiles]:
    root = Path(tempfile.mkdtemp(prefix="e2s-", dir="/tmp"))
    spec = prepare_demo(root / "demo", auto_accept).model_copy(update={"playbook": PLAYBOOK})
    return spec, WorkspaceFiles(prepare_workspace(spec))


async def test_the_dropped_feature_stops_at_a_checkpoint_showing_the_diff() -> None:
    _, files = scope_workspace(auto_accept=False)
    agent = start_agent(files)
    try:
        for expected in (
            CheckpointType.PROJECT_VERIFICATION,
            CheckpointType.SPEC_TO_ISSUES,
            CheckpointType.ISSUE_ENRICHMENT,
        ):
            pending = await next_pending(files, agent)
            assert pending.type is expected, log_text(files)
            answer.approve(files.root, None, None)  # enrichment: the model's pick, #2

        held = await next_pending(files, agent, timeout=90)
        assert isinstance(held, EnrichmentScopeCheckpoint), log_text(files)
        (change,) = held.context.changes
        assert (change.iid, change.spec_title, change.enriched_title) == (2, SPEC_TITLE, HIJACKED)
        assert change.dropped[0] == f"title: {SPEC_TITLE!r} became {HIJACKED!r}"
        assert any("Counting is case-insensitive" in item for item in change.dropped)
        shown = render_checkpoint(held, agent="agent_1") + "\n".join(diff_lines(held))
        assert "--choice 2" in shown
        assert f"-# {SPEC_TITLE}" in shown and f"+# {HIJACKED}" in shown
        assert "-- Counting is case-insensitive" in shown  # the dropped bullet, as removed
        issue = read_model(files.milestone, FileMilestone).issues[1]
        assert (issue.title, issue.description) == (SPEC_TITLE, issue.spec_description)
        assert "enriched" not in issue.labels  # not applied while it waits

        answer.approve(files.root, "2", None)  # a person accepts it after all
        after = await next_pending(files, agent)
        assert after.type is CheckpointType.ISSUE_SELECTION, log_text(files)
        issue = read_model(files.milestone, FileMilestone).issues[1]
        assert issue.title == HIJACKED and "enriched" in issue.labels
        assert issue.spec_title == SPEC_TITLE  # the spec-faithful record stays
    finally:
        agent.kill()
        agent.wait()


@pytest.mark.parametrize("killed_at", [None, "enrichment_scope.decided"])
def test_auto_accept_keeps_the_spec_text_and_codes_the_feature_from_it(
    killed_at: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, files = scope_workspace(auto_accept=True)
    if killed_at is not None:
        monkeypatch.setenv(VARIABLE, killed_at)
        assert finish(start_agent(files), timeout=180) == -9, log_text(files)
        monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=240) == 0, log_text(files)

    assert read_model(files.state, AgentState).phase is Phase.DONE
    assert read_model(files.state, AgentState).scope_pending == []
    (decided,) = [
        e for e in checkpoints.history(files) if e.type is CheckpointType.ENRICHMENT_SCOPE
    ]
    assert isinstance(decided.decision, ScopeDecision)
    assert (decided.decision.decided_by, decided.decision.selected) == ("auto-accept", [])
    issue = read_model(files.milestone, FileMilestone).issues[1]
    assert (issue.title, issue.spec_title, issue.state) == (SPEC_TITLE, SPEC_TITLE, "closed")
    assert issue.description == issue.spec_description
    assert "enriched" not in issue.labels
    assert [n.kind for n in issue.notes].count("research") == 1  # the notes are still added
    project = spec.project_dir
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert f"feat(#2): {SPEC_TITLE}" in subjects
    assert (project / "textkit" / "counting.py").exists()
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=project, capture_output=True)
    assert tests.returncode == 0, tests.stdout
