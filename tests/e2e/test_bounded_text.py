"""Issue 26, findings 4 and 8, through the real daemon and ``harness run`` (file-only mode).

A hostile scripted model proposes 900 KB of issues, reports its issue done with a 140 KB
summary, titles its issue with every Markdown and GitLab power (``@all``, a link, a remote
image, ``<img>``, ``#1``, ``!2``, ``~label``, a ``|`` and a newline) and writes a file whose
name holds an NBSP, an ideographic space and a braille blank. Before: the proposal reached
the tracker under auto-accept (with no honest retry, 300 issues), the summary became a
commit message git could not take as one argument (the agent failed, and every resume),
the title was live Markdown in the merge request's traceability table, and the file's name
was shown raw. Now: each huge report is refused to the model in one short line and its
honest retry in the same session is recorded; the run reaches DONE; the title is an inert
code span wherever the harness presents it; the name is escaped at issue_closure, in
``harness checkpoint`` and in the log.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.faultpoints import VARIABLE
from common.atomic import read_model, write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import CheckpointType, IssueClosureCheckpoint
from common.schemas.issues import SET_ASIDE_LABEL
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e import hostile_text
from tests.e2e.agents import finish, harness, log_text, start_agent
from tests.e2e.test_auto_accept_rules import RULES, next_waiting
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow


@pytest.fixture
def stopped_agent(daemon_home: Path) -> Iterator[Path]:
    """The daemon's home; ``agent_1`` is stopped at the end (a failing test may leave it
    waiting at a checkpoint), before the daemon is."""
    yield daemon_home
    harness("stop", "agent_1")


async def test_huge_reports_are_refused_in_session_and_hostile_text_stays_inert(
    stopped_agent: Path,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="e2b-", dir="/tmp"))
    project = calc_project(root)
    playbook = hostile_text.playbook(root)
    spec = local_spec(project, root / "hostile-text-spec.md", playbook)
    dumped = {**spec.model_dump(mode="json"), "auto_accept": RULES}
    started = harness("run", "--specs", json.dumps([dumped]))
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((project / ".claude-agent").iterdir()))

    pending = await next_waiting(files, timeout=240)
    assert isinstance(pending, IssueClosureCheckpoint), harness("logs", "agent_1").stdout[-3000:]
    assert hostile_text.LOOK_ALIKE_SHOWN in pending.context.files_changed
    shown = harness("checkpoint", "agent_1")
    assert shown.returncode == 0, shown.stderr
    assert f"Files: calc/half.py, {hostile_text.LOOK_ALIKE_SHOWN}" in shown.stdout, shown.stdout
    assert not any(blank in shown.stdout for blank in hostile_text.BLANKS)
    approved = harness("approve", "agent_1", "--checkpoint", pending.id)
    assert approved.returncode == 0, approved.stderr
    await asyncio.sleep(0.5)  # the agent takes the decision; nothing else waits for a person
    assert await next_waiting(files, timeout=240) is None

    state = read_model(files.state, AgentState)
    logs = harness("logs", "agent_1", "-n", "5000").stdout
    assert state.phase is Phase.DONE, (state.failure, logs[-3000:])
    refusals = [line for line in logs.splitlines() if "[result:error] invalid input" in line]
    assert len(refusals) == 2, logs[-5000:]
    proposal, summary = refusals
    assert proposal.endswith(
        "invalid input for propose_issues: issues: List should have at most 50 items after "
        "validation, not 300"
    ), proposal
    assert summary.endswith(
        "invalid input for report_issue_done: summary: String should have at most 10000 characters"
    ), summary
    assert not any(blank in logs for blank in hostile_text.BLANKS)
    assert hostile_text.LOOK_ALIKE_SHOWN in logs

    milestone = read_model(files.milestone, FileMilestone)
    assert [issue.state for issue in milestone.issues] == ["closed"]
    body = git.git(project, "log", "-1", "--format=%b", "main..HEAD", "--grep=^feat(#1)")
    assert body.startswith(hostile_text.HONEST_SUMMARY), body[:300]
    assert milestone.merge_request is not None
    hostile_text.assert_title_inert(milestone.merge_request.description)
    closure = [c for c in checkpoints.history(files) if c.type is CheckpointType.ISSUE_CLOSURE]
    assert closure and all(
        hostile_text.LOOK_ALIKE_SHOWN in c.context.files_changed
        for c in closure
        if isinstance(c, IssueClosureCheckpoint)
    )


def run_to_end(files: WorkspaceFiles, timeout: float = 180.0) -> int:
    """The agent started on ``files`` until it exits (killed if it outlives ``timeout``)."""
    agent = start_agent(files)
    try:
        return finish(agent, timeout)
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()


def test_a_saved_verdict_git_refuses_is_set_aside_once_on_resume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="e2v-", dir="/tmp"))
    project = calc_project(root)
    playbook = hostile_text.two_issue_playbook(root)
    spec = local_spec(project, root / "two-issues-spec.md", playbook)
    files = WorkspaceFiles(prepare_workspace(spec))
    monkeypatch.setenv(VARIABLE, "coding.tested")
    assert run_to_end(files) == -9, log_text(files)
    # The verdict on issue #1's session is saved; its commit message now holds what git
    # refuses whatever the transport (a NUL byte), as a state from an older harness might.
    state = read_model(files.state, AgentState)
    assert state.issue is not None and state.issue.verdict is not None
    verdict = state.issue.verdict
    assert verdict.commit_message is not None
    poisoned = verdict.commit_message.replace("\n\n", "\n\nbad \x00 byte\n\n", 1)
    state.issue.verdict = verdict.model_copy(update={"commit_message": poisoned})
    write_model(files.state, state)

    monkeypatch.delenv(VARIABLE)
    assert run_to_end(files) == 0, log_text(files)
    assert run_to_end(files) == 0, log_text(files)  # nothing replays

    final = read_model(files.state, AgentState)
    assert final.phase is Phase.DONE, final.failure
    log = (files.logs / "e2e.log").read_text()
    said = [line for line in log.splitlines() if "cannot apply its verdict" in line]
    assert len(said) == 1, log[-4000:]
    assert "issue #1 set aside (needs-human)" in said[0] and "failed to write commit" in said[0]
    half, double = read_model(files.milestone, FileMilestone).issues
    assert SET_ASIDE_LABEL in half.labels and half.state == "opened"
    assert double.state == "closed"
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects[-2:] == [  # newest first
        "revert(#1): set aside, unaccepted work reverted",
        "wip(#1): session 1's work, its verdict not applied",
    ], subjects
    assert "feat(#2): Add double" in subjects
