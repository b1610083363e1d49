"""A verdict saved before a restart names paths that are gone or cannot be committed: the
resumed agent applies it (commit of the honest files), records what was kept out for
issue_closure and tells the next session, attributed to the harness."""

from __future__ import annotations

from pathlib import Path

from agent.core.issue.seat import Seat
from agent.core.stages import coding
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    CheckpointType,
    IssueClosureCheckpoint,
    IssueClosureContext,
)
from common.schemas.issue_work import IssueWork
from common.schemas.verdict import SessionVerdict
from common.workspace import render
from tests.core.runs import logged, make_run, sh_git


async def test_a_stale_verdict_is_applied_and_what_was_kept_out_is_recorded(
    tmp_path: Path,
) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    (project / "ok.py").write_text("ok\n")
    (project / "cr\rname.py").write_text("hostile\n")
    with run.store.editing() as state:
        state.phase = Phase.CODING
        state.issue = IssueWork(iid=1)
    kept = "cr\\rname.py (its name has a control, bidi or invisible character)"
    verdict = SessionVerdict(
        session=1,
        accepted=True,
        # What an older harness saved: "\r" read as "\n", a file deleted since, a gitlink.
        files=["ok.py", "cr\nname.py", "gone.py", "vendor/lib/"],
        kept_out=[kept],
        commit_message="feat(#1): resumed\n\nHarness-Session: 1/1\n",
    )
    with run.store.editing() as state:
        state.work().verdict = verdict

    await coding._apply(run, verdict, Seat(run))

    assert sh_git(project, "show", "--name-only", "--format=", "HEAD").split() == ["ok.py"]
    assert run.state.phase is Phase.ISSUE_CLOSURE
    assert run.state.work().kept_out == [kept]
    assert "committed" in logged(run)
    block = coding._kept_out_block(run.state.work().kept_out)
    assert "FROM THE HARNESS" in block and kept in block and "<untrusted" in block
    assert coding._kept_out_block([]) == ""


def test_issue_closure_shows_what_was_kept_out_escaped() -> None:
    context = IssueClosureContext(
        issue_iid=1,
        issue_title="t",
        commit_sha="0" * 40,
        commit_message="feat(#1): t",
        files_changed=["ok.py"],
        diff_stat="",
        diff="",
        kept_out=["vendor/lib/ (a nested git repository (vendor/lib/.git))", "esc\\x1b.py (x)"],
    )
    checkpoint = IssueClosureCheckpoint(
        id="c1",
        type=CheckpointType.ISSUE_CLOSURE,
        what_happened=["x"],
        to_decide="Close?",
        if_approved="a",
        if_rejected="b",
        context=context,
    )
    lines = render.context_lines(checkpoint)
    assert "Not committed by the harness: vendor/lib/ (a nested git repository" in "\n".join(lines)
    assert all("\x1b" not in line for line in lines)
