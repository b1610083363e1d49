"""Dependencies on GitLab: a "Depends on #N" line and an ``is_blocked_by`` issue link per
dependency, made once whatever the network does, read back by python-gitlab, kept in the
mirror; and the local GitLab's links endpoints answer as GitLab's do."""

from __future__ import annotations

import gitlab
import pytest

from agent.gitlab_local.faults import KINDS, FaultKind
from agent.tracker.gitlab import GitLabTracker, split_marker
from common.atomic import read_model
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.issues import IssueDraft

from .conftest import PROJECT, Lab

#: #2 needs #1; #3 needs #1 and #2 (positions in the proposal).
DRAFTS = [
    IssueDraft(title="Parser", summary="Parse."),
    IssueDraft(title="CLI", summary="Run it.", depends_on=[1]),
    IssueDraft(title="Docs", summary="Explain it.", depends_on=[1, 2]),
]


async def created(tracker: GitLabTracker) -> list[tuple[int, list[int]]]:
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    issues = await tracker.create_issues(DRAFTS)
    return [(issue.iid, issue.depends_on) for issue in issues]


def links_of(lab: Lab, iid: int) -> list[tuple[int, str]]:
    """What python-gitlab reads of an issue's links: (iid, link_type) each."""
    gl = gitlab.Gitlab(lab.server.url, private_token=lab.token.value)
    issue = gl.projects.get(PROJECT).issues.get(iid, lazy=True)
    return [(link.iid, link.link_type) for link in issue.links.list(get_all=True)]


def description(lab: Lab, iid: int) -> str:
    (issue,) = [i for i in lab.server.store.issues if i.iid == iid]
    return split_marker(issue.description)[0]


async def test_dependencies_become_lines_and_is_blocked_by_links(lab: Lab) -> None:
    tracker = lab.tracker()

    assert await created(tracker) == [(1, []), (2, [1]), (3, [1, 2])]

    assert links_of(lab, 3) == [(1, "is_blocked_by"), (2, "is_blocked_by")]
    assert links_of(lab, 2) == [(1, "is_blocked_by"), (3, "blocks")]
    assert links_of(lab, 1) == [(2, "blocks"), (3, "blocks")]
    assert description(lab, 3).endswith("## Summary\nExplain it.\n\nDepends on #1\nDepends on #2")
    assert "Depends on" not in description(lab, 1)
    listed = await tracker.list_issues()
    assert [i.depends_on for i in listed] == [[], [1], [1, 2]]
    mirror = read_model(tracker.mirror, GitLabMilestone)
    assert [i.depends_on for i in mirror.issues] == [[], [1], [1, 2]]


async def test_a_retry_makes_no_second_link_or_line_and_a_rewrite_keeps_the_line(
    lab: Lab,
) -> None:
    await created(lab.tracker())
    again = lab.tracker()
    assert await created(again) == [(1, []), (2, [1]), (3, [1, 2])]
    assert len(lab.server.store.links) == 3
    assert description(lab, 3).count("Depends on #1") == 1

    await again.update_issue(3, description="## Guide\nWrite the docs.")  # an enrichment
    assert description(lab, 3) == "## Guide\nWrite the docs.\n\nDepends on #1\nDepends on #2"
    again.mirror.unlink()
    await lab.tracker().update_issue(2, description="Run it, enriched.")  # no record: links
    assert description(lab, 2) == "Run it, enriched.\n\nDepends on #1"


async def test_a_lost_mirror_reads_the_dependencies_back_from_the_links(lab: Lab) -> None:
    first = lab.tracker()
    await created(first)
    first.mirror.unlink()

    fresh = lab.tracker()
    await fresh.verify()
    await fresh.ensure_milestone("spec", "")
    assert [i.depends_on for i in await fresh.list_issues()] == [[], [1], [1, 2]]


@pytest.mark.parametrize("fault", KINDS)
async def test_a_faulted_link_request_still_makes_each_link_once(
    lab: Lab, fault: FaultKind
) -> None:
    lab.faults.script("POST", r"/links$", fault, None, fault)
    lab.faults.script("GET", r"/links$", None, fault)
    tracker = lab.tracker()

    assert await created(tracker) == [(1, []), (2, [1]), (3, [1, 2])]

    assert len(lab.server.store.links) == 3
    assert links_of(lab, 3) == [(1, "is_blocked_by"), (2, "is_blocked_by")]
    assert lab.faults.injected[fault] == 3


# --- the local GitLab's endpoints -------------------------------------------------------


async def test_the_local_links_endpoints_answer_as_gitlab_does(lab: Lab) -> None:
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    await tracker.create_issues([IssueDraft(title=t, summary="s") for t in ("A", "B", "C")])
    gl = gitlab.Gitlab(lab.server.url, private_token=lab.token.value)
    project = gl.projects.get(PROJECT)
    links = project.issues.get(1, lazy=True).links

    source, target = links.create({"target_project_id": project.id, "target_issue_iid": 2})
    assert (source.iid, target.iid) == (1, 2)
    assert links_of(lab, 2) == [(1, "relates_to")]
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as duplicate:
        project.issues.get(2, lazy=True).links.create(
            {"target_project_id": project.id, "target_issue_iid": 1, "link_type": "blocks"}
        )
    assert duplicate.value.response_code == 409
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as itself:
        links.create({"target_project_id": project.id, "target_issue_iid": 1})
    assert itself.value.response_code == 400
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as kind:
        links.create(
            {"target_project_id": project.id, "target_issue_iid": 3, "link_type": "parent"}
        )
    assert kind.value.response_code == 400
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as missing:
        links.create({"target_project_id": project.id, "target_issue_iid": 9})
    assert missing.value.response_code == 404
    (listed,) = project.issues.get(2, lazy=True).links.list(get_all=True)
    assert {"issue_link_id", "link_type", "link_created_at", "link_updated_at"} <= set(
        listed.asdict()
    )


async def test_a_depends_on_line_the_model_wrote_is_no_dependency(lab: Lab) -> None:
    """Only the harness's record and GitLab's links say what an issue depends on: a line
    in the model's text that looks like the harness's is inert, even with the mirror lost."""
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    drafts = [
        IssueDraft(title="A", summary="s"),
        IssueDraft(title="B", summary="Do B.\n\nDepends on #1"),
    ]
    assert [i.depends_on for i in await tracker.create_issues(drafts)] == [[], []]
    await tracker.update_issue(1, description="Enriched.\n\nDepends on #2")
    tracker.mirror.unlink()

    fresh = lab.tracker()
    await fresh.verify()
    await fresh.ensure_milestone("spec", "")
    assert [i.depends_on for i in await fresh.list_issues()] == [[], []]
    assert lab.server.store.links == []
