"""Killed at every boundary between a side effect and the state write that records it.

At each fault point of :mod:`agent.core.faultpoints`, a demo agent (auto-accept)
SIGKILLs itself; started again, it goes on. The points are tried in chains, one demo
run per stage of the workflow (the Initializer, an issue, the merge request): the run is
killed at the chain's first point, started again and killed at the next, and so on;
started once more, it must reach DONE with exactly one ``feat`` commit per issue, each
issue closed once with one closure note, and one merge request. Every point is still
killed at and resumed from, a run's worth of time instead of one run per point.
The demo's sessions leave no handoff, so the point after a handoff note is tried on a
run whose first session runs out of turns.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from agent.core.faultpoints import POINTS, VARIABLE
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.budget import Budgets
from common.schemas.milestone import FileMilestone
from common.workspace import git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import assert_demo_done_once, demo_workspace, finish, log_text, start_agent
from tests.e2e.test_project_env import calc_project, local_spec

DATA = Path(__file__).parent / "data"

pytestmark = pytest.mark.slow


#: The demo's enrichment keeps its issue's scope: enrichment_scope is tried in
#: tests/e2e/test_enrichment_scope.py. The demo works one issue at a time: the slot
#: points (parallel work) are not on its path; they are killed at in
#: tests/e2e/test_parallel_issues.py, and those after a conflict (``slot.restarted``,
#: ``merge_conflict.decided``) in tests/e2e/test_parallel_conflicts.py.
IN_THE_DEMO = [
    point
    for point in POINTS
    if point not in ("coding.noted", "enrichment_scope.decided", "merge_conflict.decided")
    and not point.startswith("slot.")
]


STAGES: dict[str, tuple[str, ...]] = {
    "initializer": ("project_verification", "spec_to_issues", "issue_enrichment", "create_branch"),
    "issue": ("issue_selection", "coding", "issue_closure"),
    "merge_request": ("mr_phase_transition", "mr_review", "mr_create"),
}
"""The phases of each chain, in the workflow's order."""


def chain(stage: str) -> list[str]:
    """The demo's points in ``stage``'s phases, in the order a run reaches them
    (:data:`POINTS` is in the workflow's order)."""
    return [point for point in IN_THE_DEMO if point.split(".")[0] in STAGES[stage]]


def test_the_chains_hold_every_point_of_the_demo_once() -> None:
    chained = [point for stage in STAGES for point in chain(stage)]
    assert chained == IN_THE_DEMO


@pytest.mark.parametrize("stage", list(STAGES))
def test_killed_at_each_step_boundary_in_turn_the_agent_resumes_to_done_exactly_once(
    stage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, files = demo_workspace(auto_accept=True)
    for point in chain(stage):
        monkeypatch.setenv(VARIABLE, point)
        killed = finish(start_agent(files), timeout=180)
        assert killed == -9, f"{point} was not reached (exit {killed}):\n{log_text(files)}"

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    assert_demo_done_once(files, spec.project_dir)


def test_killed_after_the_handoff_note_the_next_session_finishes_with_one_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2n-", dir="/tmp")))
    spec = local_spec(
        project,
        DATA / "turns-spec.md",
        DATA / "turns-playbook.json",
        budgets=Budgets(turns_per_session=4),
    )
    files = WorkspaceFiles(prepare_workspace(spec))
    monkeypatch.setenv(VARIABLE, "coding.noted")
    assert finish(start_agent(files), timeout=180) == -9, log_text(files)

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["feat(#1): Add square", "wip(#1): Add square"]
    (issue,) = read_model(files.milestone, FileMilestone).issues
    assert issue.state == "closed"
    assert [note.kind for note in issue.notes].count("handoff") == 1
