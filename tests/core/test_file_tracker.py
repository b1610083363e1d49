"""File-only tracking: the milestone file behaves like a small, idempotent issue tracker."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tracker.file import FileTracker
from common.atomic import read_model
from common.errors import StateFileError, TrackerError
from common.schemas.issues import IssueDraft
from common.schemas.milestone import FileMilestone

DRAFTS = [
    IssueDraft(title="Parser", summary="Parse.", test_criteria=["1,2 parses"]),
    IssueDraft(title="CLI", summary="Run it."),
    IssueDraft(title="Docs", summary="Explain it."),
]


@pytest.fixture
async def tracker(tmp_path: Path) -> FileTracker:
    tracker = FileTracker(tmp_path / "ws" / ".file_milestone.json")
    await tracker.ensure_milestone("Todo app", "from spec.md")
    return tracker


def stored(tracker: FileTracker) -> FileMilestone:
    return read_model(tracker.path, FileMilestone)


async def test_ensure_milestone_creates_it_once(tmp_path: Path) -> None:
    tracker = FileTracker(tmp_path / ".file_milestone.json")
    assert await tracker.verify() == []

    await tracker.ensure_milestone("Todo app", "first")
    created = stored(tracker)
    await tracker.ensure_milestone("Other title", "second")

    assert stored(tracker) == created
    assert (created.title, created.description, created.state) == ("Todo app", "first", "active")


async def test_issues_before_a_milestone_are_a_tracker_error(tmp_path: Path) -> None:
    tracker = FileTracker(tmp_path / ".file_milestone.json")

    with pytest.raises(TrackerError, match="no milestone yet"):
        await tracker.create_issues(DRAFTS)


async def test_create_issues_numbers_them_in_order(tracker: FileTracker) -> None:
    created = await tracker.create_issues(DRAFTS)

    assert [(issue.iid, issue.title) for issue in created] == [
        (1, "Parser"),
        (2, "CLI"),
        (3, "Docs"),
    ]
    assert created[0].description == DRAFTS[0].description()
    assert all(issue.state == "opened" and issue.labels == [] for issue in created)
    assert await tracker.list_issues() == created
    assert stored(tracker).issues == created


async def test_create_issues_again_creates_no_duplicates(tracker: FileTracker) -> None:
    first = await tracker.create_issues(DRAFTS[:2])

    again = await tracker.create_issues(DRAFTS)

    assert again[:2] == first
    assert [(issue.iid, issue.title) for issue in again] == [(1, "Parser"), (2, "CLI"), (3, "Docs")]
    assert len(await tracker.list_issues()) == 3


async def test_duplicate_titles_in_one_call_become_one_issue(tracker: FileTracker) -> None:
    created = await tracker.create_issues([DRAFTS[0], DRAFTS[1], DRAFTS[0]])

    assert [issue.iid for issue in created] == [1, 2, 1]
    assert len(await tracker.list_issues()) == 2


async def test_get_issue_of_an_unknown_iid_is_a_tracker_error(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)

    with pytest.raises(TrackerError, match="issue #9 does not exist"):
        await tracker.get_issue(9)


async def test_update_issue_adds_and_removes_labels(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)

    await tracker.update_issue(2, add_labels=("in-progress", "enriched"))
    await tracker.update_issue(2, add_labels=("enriched", "bug"), remove_labels=("in-progress",))
    updated = await tracker.update_issue(2, title="CLI v2", description="new body")

    assert updated.labels == ["enriched", "bug"]
    assert (updated.title, updated.description) == ("CLI v2", "new body")
    assert await tracker.get_issue(2) == updated
    assert (await tracker.get_issue(1)).labels == []


async def test_add_note_appends_to_the_issue(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)

    first = await tracker.add_note(1, "research", "look at re")
    second = await tracker.add_note(1, "handoff", "tests left")

    notes = (await tracker.get_issue(1)).notes
    assert notes == [first, second]
    assert [(note.kind, note.body) for note in notes] == [
        ("research", "look at re"),
        ("handoff", "tests left"),
    ]
    assert (await tracker.get_issue(2)).notes == []


async def test_add_note_to_an_unknown_issue_is_a_tracker_error(tracker: FileTracker) -> None:
    with pytest.raises(TrackerError):
        await tracker.add_note(1, "comment", "nobody hears")


async def test_close_issue_drops_in_progress_and_stamps_the_time(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)
    await tracker.update_issue(1, add_labels=("enriched", "in-progress"))

    closed = await tracker.close_issue(1)

    assert closed.state == "closed"
    assert closed.labels == ["enriched"]
    assert closed.closed_at is not None and closed.closed_at >= closed.created_at
    assert await tracker.get_issue(1) == closed
    assert await tracker.close_issue(1) == closed, "closing a closed issue changes nothing"
    assert (await tracker.get_issue(2)).state == "opened"


async def test_create_merge_request_is_idempotent_for_a_branch(tracker: FileTracker) -> None:
    assert await tracker.find_merge_request("feature/todo") is None

    created = await tracker.create_merge_request("Todo", "all of it", "feature/todo", "main")
    again = await tracker.create_merge_request("Todo v2", "other", "feature/todo", "main")

    assert again == created
    assert (created.iid, created.title, created.state) == (1, "Todo", "opened")
    assert (created.source_branch, created.target_branch) == ("feature/todo", "main")
    assert await tracker.find_merge_request("feature/todo") == created
    assert await tracker.find_merge_request("feature/other") is None
    assert stored(tracker).merge_request == created


async def test_a_corrupted_milestone_file_is_reported_never_reset(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)
    broken = tracker.path.read_text()[:-40]
    tracker.path.write_text(broken)

    with pytest.raises(StateFileError) as caught:
        await tracker.verify()
    with pytest.raises(StateFileError):
        await tracker.ensure_milestone("Todo app", "again")
    with pytest.raises(StateFileError):
        await tracker.create_issues(DRAFTS)

    assert caught.value.path == tracker.path
    assert tracker.path.read_text() == broken


async def test_a_milestone_that_fails_its_schema_is_reported(tracker: FileTracker) -> None:
    tracker.path.write_text('{"schema_version": 1, "title": "x", "issues": [{"iid": 0}]}')

    with pytest.raises(StateFileError, match="does not match FileMilestone"):
        await tracker.verify()


async def test_the_tracker_survives_a_new_instance(tracker: FileTracker) -> None:
    await tracker.create_issues(DRAFTS)
    await tracker.close_issue(3)

    reopened = FileTracker(tracker.path)

    assert await reopened.list_issues() == await tracker.list_issues()
    assert (await reopened.get_issue(3)).state == "closed"


async def test_the_spec_faithful_text_is_kept_when_enrichment_rewrites_the_issue(
    tracker: FileTracker,
) -> None:
    await tracker.create_issues(DRAFTS)
    await tracker.update_issue(1, title="Parser (CSV)", description="## Guide\n1. csv.reader")
    again = await tracker.create_issues(DRAFTS)  # a retry finds, never duplicates

    (issue, *_) = stored(tracker).issues
    assert (issue.title, issue.description) == ("Parser (CSV)", "## Guide\n1. csv.reader")
    assert (issue.spec_title, issue.spec_description) == ("Parser", DRAFTS[0].description())
    assert [i.iid for i in again] == [1, 2, 3] and len(stored(tracker).issues) == 3


async def test_a_milestone_file_from_before_the_spec_record_still_loads(tmp_path: Path) -> None:
    path = tmp_path / ".file_milestone.json"
    path.write_text(
        '{"schema_version": 1, "title": "Todo", "issues": [{"iid": 1, "title": "Parser",'
        ' "description": "## Summary\\nParse.", "created_at": "2026-01-15T09:30:00Z"}]}'
    )

    (issue,) = await FileTracker(path).list_issues()

    assert (issue.title, issue.spec_title, issue.spec_description) == ("Parser", None, None)
