"""Dependencies in GitLab mode, through the real agent against the local GitLab: three
issues where #2 needs #3 and #3 needs #1 become "Depends on #N" lines and ``is_blocked_by``
links (a lost answer to a link's creation makes no second link), and the issues are
closed in the order the links allow."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.frontend.demo import attach_local_gitlab
from agent.gitlab_local.server import LocalGitLab
from agent.tracker.gitlab import split_marker
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.gitlab_milestone import GitLabMilestone
from common.workspace.setup import prepare_workspace
from tests.e2e.test_project_env import calc_project, local_spec

from .test_e2e import log_tail, root, run_agent, server

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[1] / "e2e" / "data"
__all__ = ["root", "server"]


async def test_dependencies_become_links_and_order_the_work(
    root: Path, server: LocalGitLab
) -> None:
    project = calc_project(root / "work")
    spec = local_spec(project, DATA / "ordered-spec.md", DATA / "ordered-playbook.json")
    spec = spec.model_copy(update={"file_only_mode": False})
    target = attach_local_gitlab(spec, server)
    files = WorkspaceFiles(prepare_workspace(spec))
    server.faults.script("POST", r"/links$", "drop", "late")

    assert run_agent(files, target) == 0, log_tail(files)

    assert read_model(files.state, AgentState).phase is Phase.DONE
    store = server.store
    issues = sorted(store.issues, key=lambda issue: issue.iid)
    assert [(i.iid, i.title, i.state) for i in issues] == [
        (1, "Add half", "closed"),
        (2, "Add eighth", "closed"),
        (3, "Add quarter", "closed"),
    ]
    assert sorted((link.source_iid, link.link_type, link.target_iid) for link in store.links) == [
        (1, "blocks", 3),
        (3, "blocks", 2),
    ], "one link each, stored as GitLab stores is_blocked_by"
    assert split_marker(issues[1].description)[0].endswith("\n\nDepends on #3")
    assert split_marker(issues[2].description)[0].endswith("\n\nDepends on #1")
    closed = sorted(issues, key=lambda issue: issue.closed_at or "")
    assert [i.iid for i in closed] == [1, 3, 2]
    mirror = read_model(files.gitlab_milestone, GitLabMilestone)
    assert [i.depends_on for i in mirror.issues] == [[], [3], [1]]
    assert server.faults.injected["drop"] == server.faults.injected["late"] == 1
