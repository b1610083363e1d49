"""A saved verdict git refuses for good is set aside with one line, never replayed; one too
big for an argument is committed by a file; a failure for the machine's sake is retried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.core.git import commits, unapplied
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from agent.core.session.tools import HANDOFF_ITEMS
from agent.core.stages import coding
from common.atomic import read_model
from common.errors import GitError
from common.schemas.agent_state import AgentState, Phase
from common.schemas.issue_work import IssueWork
from common.schemas.issues import SET_ASIDE_LABEL, IssueDraft
from common.schemas.verdict import SessionVerdict
from tests.core.runs import logged, make_run, sh_git

HUGE_BODY = ("the model's summary " * 10_000).strip()  # 200 KB: over Linux's 128 KiB per argument


@pytest.mark.parametrize(
    ("refusal", "lasting"),
    [
        ("git -F /tmp/x commit: error: a NUL byte in commit log message not allowed.", True),
        ("cannot run git: [Errno 7] Argument list too long: '/usr/bin/git'", True),
        ("git commit: fatal: some failure nobody foresaw", True),
        ("git commit: fatal: Unable to create '/p/.git/index.lock': File exists.", False),
        ("git commit: fatal: could not write: No space left on device", False),
        ("cannot run git: [Errno 12] Cannot allocate memory", False),
        ("git commit: bwrap: Can't mount tmpfs on /tmp: Operation not permitted", False),
    ],
)
def test_which_refusals_last(refusal: str, lasting: bool) -> None:
    assert unapplied.lasting(GitError(refusal)) is lasting


async def started(tmp_path: Path, verdict: SessionVerdict) -> Run:
    run = make_run(tmp_path)
    sh_git(run.spec.project_dir, "checkout", "-q", "-b", "feature")
    await run.tracker.ensure_milestone("m", "")
    await run.tracker.create_issues([IssueDraft(title="Add half", summary="s")])
    with run.store.editing() as state:
        state.phase = Phase.CODING
        state.issue = IssueWork(iid=1, verdict=verdict)
    return run


async def test_a_verdict_git_refuses_is_set_aside_once_with_its_work_kept(
    tmp_path: Path,
) -> None:
    verdict = SessionVerdict(
        session=1,
        accepted=True,
        files=["half.py"],
        commit_message="feat(#1): Add half\n\nbad \x00 byte\n\nHarness-Session: 1/1\n",
    )
    run = await started(tmp_path, verdict)
    project = run.spec.project_dir
    (project / "half.py").write_text("def half(x): return x / 2\n")

    await coding._apply(run, verdict, Seat(run))

    lines = [line for line in logged(run).splitlines() if "cannot apply" in line]
    assert len(lines) == 1, logged(run)
    assert (
        "issue #1 set aside (needs-human): the harness cannot apply its verdict on session 1"
        in lines[0]
    )
    assert "failed to write commit object" in lines[0] and "kept in " in lines[0]
    assert run.state.issue is None, "the verdict is spent: nothing to replay"
    (issue,) = await run.tracker.list_issues()
    assert SET_ASIDE_LABEL in issue.labels
    subjects = sh_git(project, "log", "--format=%s", "-3").splitlines()
    assert subjects[0].startswith("revert(#1): set aside")
    assert subjects[1] == "wip(#1): session 1's work, its verdict not applied"
    assert sh_git(project, "status", "--porcelain") == ""

    # Resumed from the same state, the agent finds no verdict: nothing is replayed.
    reloaded = read_model(run.files.state, AgentState)
    assert reloaded.issue is None and reloaded.phase is not Phase.ISSUE_CLOSURE


async def test_the_kept_commit_is_found_again_after_a_kill(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    sh_git(project, "checkout", "-q", "-b", "feature")
    (project / "a.py").write_text("a\n")
    first = unapplied.keep_unapplied(project, "main", 1, 2, ["a.py"])
    again = unapplied.keep_unapplied(project, "main", 1, 2, ["a.py"])
    assert first is not None and again == first
    assert unapplied.keep_unapplied(project, "main", 1, 3, []) is None


async def test_a_message_over_the_argument_cap_is_committed_by_file(tmp_path: Path) -> None:
    message = f"feat(#1): Add half\n\n{HUGE_BODY}\n\nHarness-Session: 1/1\n"
    verdict = SessionVerdict(session=1, accepted=True, files=["half.py"], commit_message=message)
    run = await started(tmp_path, verdict)
    project = run.spec.project_dir
    (project / "half.py").write_text("def half(x): return x / 2\n")

    await coding._apply(run, verdict, Seat(run))

    assert run.state.phase is Phase.ISSUE_CLOSURE
    assert sh_git(project, "log", "-1", "--format=%B") == message.rstrip("\n")
    assert commits.find_session_commit(project, "main", 1, 1) is not None


def test_an_empty_commit_takes_its_message_by_file_too(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    message = f"feat(#1): accepted\n\n{HUGE_BODY}"
    commits.commit(project, [], message, allow_empty=True)
    assert sh_git(project, "log", "-1", "--format=%B") == message


async def test_a_saved_handoff_over_the_maxima_is_left_out_in_one_line(tmp_path: Path) -> None:
    handoff = {"issue_iid": 1, "gotchas": ["g"] * (HANDOFF_ITEMS + 5)}
    verdict = SessionVerdict(session=1, accepted=False, handoff_json=json.dumps(handoff))
    run = await started(tmp_path, verdict)

    await coding._apply(run, verdict, Seat(run))

    assert "the handoff saved with session 1 is not noted: 1 problem(s)" in logged(run)
    (issue,) = await run.tracker.list_issues()
    assert not [note for note in issue.notes if note.kind == "handoff"]
    assert run.state.phase is Phase.CODING and run.state.work().verdict is None
