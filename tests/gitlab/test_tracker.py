"""The GitLab tracker against the local GitLab: one of everything, whatever the network does."""

from __future__ import annotations

import time
from typing import Any, get_args

import gitlab
import pytest

from agent.gitlab_local.faults import KINDS, FaultKind
from agent.tracker.gitlab import GitLabTracker, split_marker
from agent.tracker.gitlab.records import spec_note
from agent.tracker.retry import FailureKind
from common.atomic import read_model
from common.errors import TrackerError
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.issues import IssueDraft

from .conftest import PROJECT, Lab, commit, git

DRAFTS = [
    IssueDraft(title="Parser", summary="Parse.", test_criteria=["1,2 parses"]),
    IssueDraft(title="CLI", summary="Run it.", open_questions=["Which flags?"]),
    IssueDraft(title="Docs", summary="Explain it."),
]


async def whole_run(tracker: GitLabTracker, lab: Lab) -> None:
    """What a run does to GitLab, in the order a run does it."""
    assert await tracker.verify() == []
    await tracker.ensure_milestone("spec", "from spec.md")
    created = await tracker.create_issues(DRAFTS)
    assert [issue.iid for issue in created] == [1, 2, 3]
    await tracker.add_note(2, "research", "Use csv.reader.")
    await tracker.add_note(2, "dependencies", "Needs #1.")
    await tracker.update_issue(
        2, title="CLI: flags", description="## Guide\n1. argparse", add_labels=("enriched",)
    )
    for iid in (1, 2, 3):
        await tracker.update_issue(iid, add_labels=("in-progress",))
        await tracker.add_note(iid, "closure", f"Closed #{iid}.")
        await tracker.close_issue(iid)
    git(lab.repo, "checkout", "-q", "-b", "feature/spec")
    commit(lab.repo, "parser.py", "pass\n")
    await tracker.push_branch("feature/spec")
    await tracker.create_merge_request("Spec", "## Verification\n- ok", "feature/spec", "main")


def assert_one_of_everything(lab: Lab) -> None:
    store = lab.server.store
    assert [m.title for m in store.milestones] == ["spec"]
    assert [(i.iid, i.title, i.state) for i in store.issues] == [
        (1, "Parser", "closed"),
        (2, "CLI: flags", "closed"),
        (3, "Docs", "closed"),
    ]
    assert [i.labels for i in store.issues] == [[], ["enriched"], []]
    user_notes = sorted((n.issue_iid, split_marker(n.body)[0]) for n in store.notes if not n.system)
    spec_notes = [(iid, spec_note(draft)) for iid, draft in enumerate(DRAFTS, start=1)]
    assert [note for note in user_notes if note in spec_notes] == spec_notes  # one per issue
    user_notes = [note for note in user_notes if note not in spec_notes]
    assert user_notes == [
        (1, "Closed #1."),
        (2, "Closed #2."),
        (2, "Needs #1."),
        (2, "Use csv.reader."),
        (3, "Closed #3."),
    ]
    assert [(mr.source_branch, mr.state) for mr in store.merge_requests] == [
        ("feature/spec", "opened")
    ]


async def test_a_clean_run_creates_one_of_everything_and_mirrors_it(lab: Lab) -> None:
    tracker = lab.tracker()
    await whole_run(tracker, lab)
    assert_one_of_everything(lab)
    assert tracker.stats.retries == 0

    issues = await tracker.list_issues()
    assert [n.kind for n in issues[1].notes] == ["spec", "research", "dependencies", "closure"]
    assert issues[1].notes[1].body == "Use csv.reader."
    assert "harness:key" not in issues[1].description
    assert issues[1].description == "## Guide\n1. argparse"
    mirror = read_model(tracker.mirror, GitLabMilestone)
    enriched = mirror.issues[1]  # the mirror keeps the spec-faithful text the harness recorded
    assert (enriched.title, enriched.spec_title) == ("CLI: flags", "CLI")
    assert enriched.spec_description == DRAFTS[1].description()
    assert (mirror.project_path, mirror.title, len(mirror.issues)) == ("group/app", "spec", 3)
    assert mirror.merge_request is not None and mirror.merge_request.iid == 1
    assert mirror.pushed_branch == "feature/spec"
    assert mirror.pushed_commit == git(lab.repo, "rev-parse", "HEAD")
    assert lab.token.value not in tracker.mirror.read_text()


@pytest.mark.parametrize("fault", KINDS)
async def test_every_request_faulted_once_still_gives_one_of_everything(
    lab: Lab, fault: FaultKind
) -> None:
    for method, path in (
        ("POST", r"/milestones$"),
        ("POST", r"/issues$"),
        ("POST", r"/notes$"),
        ("POST", r"/merge_requests$"),
        ("PUT", r"/issues/\d+$"),
        ("GET", r"/issues$"),
        ("GET", r"/notes$"),
        ("GET", r"/user$"),
    ):
        # The spec-faithful notes come first and are answered, so the faults hit the notes
        # they hit before those existed: timing matters for "late" (a label PUT that lands
        # after the issue's close leaves its label behind, a limit of retried PUTs).
        skipped = (None,) * len(DRAFTS) if (method, path) == ("POST", r"/notes$") else ()
        lab.faults.script(method, path, *skipped, fault, None, fault)
    messages: list[str] = []
    tracker = lab.tracker(log=messages.append)
    await whole_run(tracker, lab)
    assert_one_of_everything(lab)
    assert tracker.stats.retries == lab.faults.injected[fault] > 10
    # Every failed attempt is counted by its kind (what `harness metrics` shows as faults).
    assert sum(tracker.stats.failed.values()) == tracker.stats.retries
    assert set(tracker.stats.failed) <= set(get_args(FailureKind))
    retried = [m for m in messages if "; retry " in m]
    assert len(retried) == tracker.stats.retries
    recovered = [m for m in messages if "answer was lost" in m]
    if fault in ("drop", "late"):  # creations happened, their answer lost: found, not redone
        assert tracker.stats.recovered == len(recovered) >= 4
    else:
        assert tracker.stats.recovered == 0


async def test_a_second_tracker_after_a_crash_finds_what_the_first_created(lab: Lab) -> None:
    first = lab.tracker()
    await first.verify()
    await first.ensure_milestone("spec", "")
    await first.create_issues(DRAFTS)
    await first.add_note(1, "handoff", "## Session handoff\nLast commit: abc")
    await first.update_issue(1, title="Parser, enriched", description="New text")

    again = lab.tracker()  # a restarted agent repeats the phase it was in
    await again.ensure_milestone("spec", "")
    recreated = await again.create_issues(DRAFTS)
    await again.add_note(1, "handoff", "## Session handoff\nLast commit: abc")
    assert [issue.title for issue in recreated] == ["Parser, enriched", "CLI", "Docs"]
    assert len(lab.server.store.milestones) == 1
    assert len(lab.server.store.issues) == 3
    notes = [split_marker(note.body)[0] for note in lab.server.store.notes if not note.system]
    assert sorted(notes) == sorted(["## Session handoff\nLast commit: abc", *SPEC_NOTES])


SPEC_NOTES = [spec_note(draft) for draft in DRAFTS]


async def test_a_spec_faithful_note_cannot_run_a_quick_action(lab: Lab) -> None:
    """The draft is the model's text: its note reaches GitLab inert, like every note."""
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    draft = IssueDraft(title="Parser", summary="Parse.\n/close\n/label ~done")
    (created,) = await tracker.create_issues([draft])
    assert created.spec_title == "Parser"
    (note,) = [n for n in lab.server.store.notes if not n.system]
    assert "\n\\/close\n\\/label ~done" in note.body
    assert lab.server.store.issues[0].state == "opened"
    assert lab.server.store.issues[0].labels == []


async def test_already_existing_milestone_and_merge_request_are_taken_as_they_are(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    git(lab.repo, "checkout", "-q", "-b", "feature/spec")
    commit(lab.repo, "a.py", "a\n")
    await tracker.push_branch("feature/spec")
    first = await tracker.create_merge_request("T", "D", "feature/spec", "main")

    # Someone else created them between our look and our POST: GitLab's 400 and 409.
    api = await tracker._api()
    misses: dict[str, int] = {}

    def blind(name: str) -> None:
        real = getattr(api, name)

        def find(arg: str) -> Any:
            misses[name] = misses.get(name, 0) + 1
            return None if misses[name] == 1 else real(arg)

        monkeypatch.setattr(api, name, find)

    blind("find_milestone")
    blind("open_merge_request")
    await tracker.ensure_milestone("spec", "")
    second = await tracker.create_merge_request("T", "D", "feature/spec", "main")
    assert second.iid == first.iid
    assert tracker.stats.already_existed == 2
    assert len(lab.server.store.milestones) == len(lab.server.store.merge_requests) == 1


async def test_retry_after_is_honoured(lab: Lab) -> None:
    lab.faults.retry_after = 1
    lab.faults.script("GET", r"/user$", "429")
    tracker = lab.tracker()
    started = time.monotonic()
    await tracker.verify()
    assert time.monotonic() - started >= lab.faults.retry_after
    assert tracker.stats.retries == 1


async def test_a_request_that_keeps_failing_ends_in_one_line(lab: Lab) -> None:
    always: list[FaultKind | None] = ["500"] * 6
    lab.faults.script("POST", r"/milestones$", *always)
    tracker = lab.tracker()
    await tracker.verify()
    with pytest.raises(TrackerError) as failed:
        await tracker.ensure_milestone("spec", "")
    assert (
        str(failed.value)
        == "GitLab failed to create the milestone (500) (gave up after 6 attempts)"
    )
    assert lab.server.store.milestones == []


async def test_closing_removes_in_progress_and_twice_is_a_no_op(lab: Lab) -> None:
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    await tracker.create_issues(DRAFTS[:1])
    await tracker.update_issue(1, add_labels=("in-progress", "complexity-low"))
    closed = await tracker.close_issue(1)
    again = await tracker.close_issue(1)
    assert (closed.state, closed.labels) == ("closed", ["complexity-low"])
    assert again == closed
    assert sum(note.body == "closed" for note in lab.server.store.notes) == 1
    with pytest.raises(TrackerError, match="issue #9 does not exist in group/app"):
        await tracker.get_issue(9)


async def test_the_target_branch_is_never_pushed(lab: Lab) -> None:
    tracker = lab.tracker()
    await tracker.verify()
    commit(lab.repo, "main-only.txt", "x")
    with pytest.raises(TrackerError, match="refusing to push the target branch main"):
        await tracker.push_branch("main")
    assert git(lab.project.repo, "rev-list", "--count", "main") == "1"


async def test_a_write_that_landed_late_twice_is_one_issue_and_the_extra_is_closed(
    lab: Lab,
) -> None:
    tracker = lab.tracker()
    await tracker.verify()
    await tracker.ensure_milestone("spec", "")
    await tracker.create_issues(DRAFTS)
    first = lab.server.store.issues[0]
    # The same creation, carried out a second time after its answer was lost.
    late = gitlab.Gitlab(lab.server.url, private_token=lab.token.value)
    late.projects.get(PROJECT).issues.create(
        {"title": first.title, "description": first.description, "milestone_id": first.milestone_id}
    )

    again = lab.tracker()  # a resumed agent reads the milestone
    issues = await again.list_issues()

    assert [issue.title for issue in issues] == ["Parser", "CLI", "Docs"]
    extra = lab.server.store.issues[-1]
    assert (extra.state, "duplicate" in extra.labels) == ("closed", True)
