"""The local GitLab answers like GitLab's documented REST v4 API, seen through python-gitlab."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from pathlib import Path

import gitlab
import pytest
import requests

from agent.gitlab_local.faults import FaultPlan
from agent.gitlab_local.server import LocalGitLab
from agent.tracker.push import git_push
from common.errors import GitError

from .conftest import HANG, PROJECT, Lab, commit, git


def client(lab: Lab, token: str | None = None, timeout: float = 5.0) -> gitlab.Gitlab:
    return gitlab.Gitlab(lab.server.url, private_token=token or lab.token.value, timeout=timeout)


def api(
    lab: Lab, path: str, method: str = "GET", token: str | None = None, **kw: object
) -> requests.Response:
    headers = {"PRIVATE-TOKEN": token or lab.token.value}
    return requests.request(method, f"{lab.server.api_url}{path}", headers=headers, timeout=5, **kw)  # type: ignore[arg-type]


def test_projects_are_found_by_id_or_url_encoded_path_and_unknown_ones_are_404(lab: Lab) -> None:
    gl = client(lab)
    by_path = gl.projects.get(PROJECT)
    assert gl.projects.get(by_path.id).path_with_namespace == PROJECT
    assert by_path.default_branch == "main"
    assert by_path.permissions["project_access"]["access_level"] == 40
    answer = api(lab, "/projects/group%2Fnothing")
    assert (answer.status_code, answer.json()) == (404, {"message": "404 Project Not Found"})


def test_lists_are_paginated_with_gitlabs_headers_and_python_gitlab_follows_them(lab: Lab) -> None:
    project = client(lab).projects.get(PROJECT)
    for number in range(1, 26):
        project.issues.create({"title": f"issue {number}"})

    first = api(lab, "/projects/group%2Fapp/issues?per_page=10&sort=asc")
    assert [first.headers[h] for h in ("X-Page", "X-Per-Page", "X-Total", "X-Total-Pages")] == [
        "1",
        "10",
        "25",
        "3",
    ]
    assert (first.headers["X-Next-Page"], first.headers["X-Prev-Page"]) == ("2", "")
    assert [i["iid"] for i in first.json()] == list(range(1, 11))
    links = requests.utils.parse_header_links(first.headers["Link"])
    assert {link["rel"] for link in links} == {"next", "first", "last"}
    last = api(lab, "/projects/group%2Fapp/issues?per_page=10&page=3")
    assert (len(last.json()), last.headers["X-Next-Page"], last.headers["X-Prev-Page"]) == (
        5,
        "",
        "2",
    )
    assert api(lab, "/projects/group%2Fapp/issues?per_page=500").headers["X-Per-Page"] == "100"

    everything = project.issues.list(get_all=True, per_page=7, sort="asc")
    assert [i.iid for i in everything] == list(range(1, 26))


def test_errors_have_gitlabs_status_codes_and_bodies(lab: Lab) -> None:
    assert api(lab, "/user", token="glpat-wrong").json() == {"message": "401 Unauthorized"}
    reader = lab.server.store.add_token(lab.token.user, ("read_user",))
    denied = api(lab, f"/projects/{lab.project.id}", token=reader.value)
    assert denied.status_code == 403
    assert denied.json()["error"] == "insufficient_scope"
    read_only = lab.server.store.add_token(lab.token.user, ("read_api",))
    assert api(lab, f"/projects/{lab.project.id}", token=read_only.value).status_code == 200
    refused = api(lab, "/projects/1/issues", "POST", read_only.value, json={"title": "x"})
    assert refused.status_code == 403
    missing = api(lab, "/projects/1/issues", "POST", json={})
    assert (missing.status_code, missing.json()) == (400, {"error": "title is missing"})
    assert api(lab, "/projects/1/nothing").status_code == 404

    project = client(lab).projects.get(PROJECT)
    project.milestones.create({"title": "v1"})
    with pytest.raises(gitlab.GitlabCreateError) as duplicate:
        project.milestones.create({"title": "v1"})
    assert duplicate.value.response_code == 400
    assert "already being used" in str(duplicate.value.error_message)


def test_a_second_open_merge_request_for_a_source_branch_is_a_409(lab: Lab) -> None:
    git(lab.repo, "checkout", "-q", "-b", "feature/x")
    commit(lab.repo, "x.txt", "x")
    git_push(lab.repo, "feature/x", lab.token.value)
    project = client(lab).projects.get(PROJECT)
    data = {"source_branch": "feature/x", "target_branch": "main", "title": "X"}
    first = project.mergerequests.create(data)
    with pytest.raises(gitlab.GitlabCreateError) as again:
        project.mergerequests.create(data)
    assert again.value.response_code == 409
    message: object = again.value.error_message  # GitLab sends a list here
    assert message == [
        f"Another open merge request already exists for this source branch: !{first.iid}"
    ]
    with pytest.raises(gitlab.GitlabCreateError) as unknown:
        project.mergerequests.create({**data, "source_branch": "nope"})
    assert 'Source branch "nope" does not exist' in str(unknown.value.error_message)
    found = project.mergerequests.list(source_branch="feature/x", state="opened")
    assert [mr.iid for mr in found] == [first.iid]


def test_issue_updates_labels_closing_and_notes(lab: Lab) -> None:
    project = client(lab).projects.get(PROJECT)
    issue = project.issues.create({"title": "T", "labels": "a,b"})
    issue.notes.create({"body": "hello"})
    project.issues.update(issue.iid, {"add_labels": "c", "remove_labels": "a"})
    project.issues.update(issue.iid, {"state_event": "close", "title": "T2"})
    again = project.issues.get(issue.iid)
    assert (again.state, again.title, again.labels, again.user_notes_count) == (
        "closed",
        "T2",
        ["b", "c"],
        1,
    )
    notes = again.notes.list(get_all=True, sort="asc")
    assert (notes[0].body, notes[0].system) == ("hello", False)
    assert {n.body for n in notes if n.system} == {"closed", "changed title from **T** to **T2**"}
    assert sorted(label.name for label in project.labels.list(get_all=True)) == ["a", "b", "c"]


@pytest.mark.parametrize("kind", ["429", "500"])
def test_429_and_500_faults_are_not_carried_out(lab: Lab, kind: str) -> None:
    lab.faults.retry_after = 7
    lab.faults.script("POST", r"/issues$", kind)  # type: ignore[arg-type]
    answer = api(lab, "/projects/1/issues", "POST", json={"title": "x"})
    assert answer.status_code == int(kind)
    if kind == "429":
        assert answer.headers["Retry-After"] == "7"
    assert lab.server.store.issues == []


def test_a_dropped_answer_is_carried_out_and_the_connection_closed(lab: Lab) -> None:
    lab.faults.script("POST", r"/issues$", "drop")
    with pytest.raises(requests.ConnectionError):
        api(lab, "/projects/1/issues", "POST", json={"title": "x"})
    assert [issue.title for issue in lab.server.store.issues] == ["x"]


def test_a_timeout_fault_keeps_the_client_waiting_and_is_not_carried_out(lab: Lab) -> None:
    lab.faults.script("POST", r"/issues$", "timeout")
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(
            f"{lab.server.api_url}/projects/1/issues",
            json={"title": "x"},
            headers={"PRIVATE-TOKEN": lab.token.value},
            timeout=HANG / 2,
        )
    assert lab.server.store.issues == []
    assert lab.faults.injected == {"timeout": 1}


def test_faults_at_a_rate_are_seeded() -> None:
    plans = [FaultPlan(rate=0.3, seed=7), FaultPlan(rate=0.3, seed=7)]
    picks = [[plan.choose("GET", "/user") for _ in range(200)] for plan in plans]
    assert picks[0] == picks[1]
    assert 40 <= sum(fault is not None for fault in picks[0]) <= 80
    assert {fault for fault in picks[0] if fault} == {"429", "500", "timeout", "drop", "late"}


def test_git_needs_a_token_with_write_access_to_push(lab: Lab, tmp_path: Path) -> None:
    git(lab.repo, "checkout", "-q", "-b", "feature/y")
    sha = commit(lab.repo, "y.txt", "y")
    with pytest.raises(GitError, match="Authentication failed"):
        git_push(lab.repo, "feature/y", "glpat-wrong")
    reader = lab.server.store.add_token(lab.token.user, ("read_repository",))
    with pytest.raises(GitError, match=r"git push origin feature/y: .* 403"):
        git_push(lab.repo, "feature/y", reader.value)
    git_push(lab.repo, "feature/y", lab.token.value)
    assert git(lab.project.repo, "rev-parse", "refs/heads/feature/y") == sha

    clone = tmp_path / "clone"
    url = f"http://oauth2:{reader.value}@{lab.server.url.split('://')[1]}/{PROJECT}.git"
    subprocess.run(["git", "clone", "-q", url, str(clone)], check=True, capture_output=True)
    assert (clone / "README.md").read_text() == "app\n"


def test_the_server_stops_promptly_even_with_a_request_hanging(tmp_path: Path) -> None:
    server = LocalGitLab(tmp_path, faults=FaultPlan(hang=30))
    server.start()
    _, token = server.add_project("g/p")
    server.faults.script("GET", "/user", "timeout")

    def hang() -> None:
        # The connection is closed when the server stops: that is the point.
        with contextlib.suppress(requests.RequestException):
            requests.get(
                f"{server.api_url}/user", headers={"PRIVATE-TOKEN": token.value}, timeout=30
            )

    thread = threading.Thread(target=hang)
    thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    server.stop()
    thread.join(5)
    assert time.monotonic() - started < 5
    assert not thread.is_alive()
