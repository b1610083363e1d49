"""Issue 26, finding 8, in GitLab mode: through the real agent against the local GitLab, a
hostile model's issue title (``@all``, a link, a remote image, ``<img>``, ``#1``, ``!2``,
``~label``, a ``|`` and a newline) is an inert code span in every line of the merge
request's description the harness presents as its own (the traceability table, the list
of closed issues, the commits), and its huge reports are refused in the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.frontend.demo import attach_local_gitlab
from agent.gitlab_local.server import LocalGitLab
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.workspace.setup import prepare_workspace
from tests.e2e import hostile_text
from tests.e2e.test_project_env import calc_project, local_spec

from .test_e2e import log_tail, root, run_agent, server

pytestmark = pytest.mark.slow
__all__ = ["root", "server"]


async def test_a_hostile_title_is_inert_in_the_merge_request_on_gitlab(
    root: Path, server: LocalGitLab
) -> None:
    project = calc_project(root / "work")
    playbook = hostile_text.playbook(root)
    spec = local_spec(project, root / "hostile-text-spec.md", playbook)
    spec = spec.model_copy(update={"file_only_mode": False})
    target = attach_local_gitlab(spec, server)
    files = WorkspaceFiles(prepare_workspace(spec))

    assert run_agent(files, target) == 0, log_tail(files)

    assert read_model(files.state, AgentState).phase is Phase.DONE
    store = server.store
    assert [issue.state for issue in store.issues] == ["closed"], "the 300 issues never came"
    (merge_request,) = store.merge_requests
    hostile_text.assert_title_inert(merge_request.description)
    assert "Closes #1: `Add half @all" in merge_request.description
    log = (files.logs / "e2e.log").read_text()
    assert "invalid input for propose_issues: issues: List should have at most 50" in log
    assert "invalid input for report_issue_done: summary: String should have at most" in log
