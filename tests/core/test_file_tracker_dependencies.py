"""File-only mode keeps each issue's dependencies as iids, once however often it is asked."""

from __future__ import annotations

from pathlib import Path

from agent.tracker.file import FileTracker
from common.atomic import read_model
from common.schemas.issues import IssueDraft
from common.schemas.milestone import FileMilestone

#: #1 needs #3, which comes later in the proposal; #2 needs #1.
DRAFTS = [
    IssueDraft(title="Parser", summary="Parse.", depends_on=[3]),
    IssueDraft(title="CLI", summary="Run it.", depends_on=[1]),
    IssueDraft(title="Lexer", summary="Split."),
]


async def test_positions_become_iids_in_the_milestone_file(tmp_path: Path) -> None:
    tracker = FileTracker(tmp_path / ".file_milestone.json")
    await tracker.ensure_milestone("m", "")
    await tracker.create_issues([IssueDraft(title="Older", summary="s")])  # iids start at 2

    created = await tracker.create_issues(DRAFTS)

    assert [(i.iid, i.depends_on) for i in created] == [(2, [4]), (3, [2]), (4, [])]
    stored = read_model(tracker.path, FileMilestone)
    assert [(i.iid, i.depends_on) for i in stored.issues] == [(1, []), (2, [4]), (3, [2]), (4, [])]
    again = await tracker.create_issues(DRAFTS)  # a resumed agent repeats the phase
    assert again == created
    assert len(read_model(tracker.path, FileMilestone).issues) == 4


async def test_a_milestone_file_from_before_dependencies_loads(tmp_path: Path) -> None:
    path = tmp_path / ".file_milestone.json"
    path.write_text(
        '{"schema_version": 1, "title": "m", "issues": '
        '[{"iid": 1, "title": "T", "description": "d"}]}'
    )
    (issue,) = await FileTracker(path).list_issues()
    assert issue.depends_on == []
