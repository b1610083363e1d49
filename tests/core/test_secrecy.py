"""What the agent writes is redacted, and the redactions are counted in the workspace."""

from __future__ import annotations

import io
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.words import security_counts
from agent.core.words.secrecy import Secrecy
from agent.tracker.file import FileTracker
from agent.tracker.redacting import RedactingTracker
from common.paths import WorkspaceFiles
from common.redact import MASK
from common.schemas.checkpoint import IssueClosureCheckpoint, IssueClosureContext
from common.schemas.issues import IssueDraft

TOKEN = "configured-gitlab-token-value"


def workspace(tmp_path: Path) -> WorkspaceFiles:
    root = tmp_path / "ws"
    root.mkdir()
    return WorkspaceFiles(root)


def test_a_checkpoint_is_redacted_before_it_is_written(tmp_path: Path) -> None:
    files = workspace(tmp_path)
    secrecy = Secrecy(files, [TOKEN])
    checkpoint = IssueClosureCheckpoint(
        id="issue_closure-3",
        what_happened=["committed"],
        to_decide="close #1?",
        if_approved="close",
        if_rejected="again",
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="t",
            commit_sha="abc",
            commit_message="m",
            files_changed=["config.py"],
            diff_stat="1 file",
            diff=f'+TOKEN = "{TOKEN}"\n+KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0"\n',
        ),
    )
    cleaned = secrecy.checkpoint(checkpoint)
    assert isinstance(cleaned, IssueClosureCheckpoint)
    assert TOKEN not in cleaned.context.diff and "sk-ant-" not in cleaned.context.diff
    assert cleaned.context.diff.count(MASK) == 2
    assert security_counts.read(files).redactions == 2
    assert secrecy.checkpoint(cleaned) == cleaned  # nothing left: the same object back


def test_the_log_is_redacted_and_counted(tmp_path: Path) -> None:
    files = workspace(tmp_path)
    stream = io.StringIO()
    log = AgentLog(stream)
    log.redact_with(Secrecy(files, [TOKEN]).text)
    log(f"pushing with {TOKEN}")
    log.block(f"$ env\nGITLAB_TOKEN={TOKEN}\n")
    assert TOKEN not in stream.getvalue()
    assert security_counts.read(files).redactions == 2


async def test_tracker_notes_issues_and_merge_requests_are_redacted(tmp_path: Path) -> None:
    files = workspace(tmp_path)
    tracker = RedactingTracker(FileTracker(files.milestone), Secrecy(files, [TOKEN]).text)
    await tracker.ensure_milestone("spec", "the spec")
    [issue] = await tracker.create_issues(
        [IssueDraft(title="Use the token", summary=f"set {TOKEN}", technical_notes=[TOKEN])]
    )
    note = await tracker.add_note(issue.iid, "handoff", f"the token is {TOKEN}")
    request = await tracker.create_merge_request("MR", f"uses {TOKEN}", "feature/x", "main")

    stored = files.milestone.read_text()
    assert TOKEN not in stored
    assert TOKEN not in note.body and TOKEN not in request.description
    assert security_counts.read(files).redactions == 4
    assert not hasattr(tracker, "push_branch")  # the file tracker cannot publish
