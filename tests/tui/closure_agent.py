"""A stand-in agent that waits at issue_closure over its project's last commit:
``python closure_agent.py WORKSPACE`` (the daemon's ``--agent-command``).

The checkpoint is built as the real closure builds it (:mod:`agent.core.stages.coding`):
the diff, its stat and the lines to read whole come from
:func:`agent.core.git.diff_excerpt.excerpt` over ``HEAD~1..HEAD`` of the project
(``WORKSPACE/../..``), with the harness's hardened git. Then it waits: a decision is
left in the file for the test to read; SIGTERM stops it (exit file ``stopped``).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.core.git import diff_excerpt
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import CheckpointFile, IssueClosureCheckpoint, IssueClosureContext
from common.schemas.exit_status import AgentExit
from common.workspace import git

SPAN = "HEAD~1..HEAD"


def closure(project: Path) -> IssueClosureCheckpoint:
    """issue_closure of #1 over the project's last commit."""
    excerpt = diff_excerpt.excerpt(project, SPAN)
    assert excerpt is not None, "the project has a last commit with a parent"
    sha = git.git(project, "rev-parse", "HEAD").strip()
    return IssueClosureCheckpoint(
        id="issue_closure-1",
        what_happened=["issue #1 implemented in 1 commit(s)", "the harness ran the tests: skipped"],
        to_decide="Close issue #1?",
        if_approved="Issue #1 is closed and the next issue is selected",
        if_rejected="Another session works on the issue with your feedback",
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="Bump the version",
            commit_sha=sha,
            commit_message="feat(#1): bump the version",
            files_changed=["textkit/core.py"],
            diff_stat=excerpt.stat,
            diff=excerpt.text,
            diff_range=SPAN,
            diff_cut_at=excerpt.cut_at,
            diff_long_lines=excerpt.long_lines,
        ),
    )


def main(workspace: Path) -> int:
    files = WorkspaceFiles(workspace)

    def on_term(signum: int, frame: FrameType | None) -> None:
        write_model(files.exit_status, AgentExit(pid=os.getpid(), outcome="stopped", exit_code=143))
        sys.exit(143)

    signal.signal(signal.SIGTERM, on_term)
    write_model(files.state, AgentState(phase=Phase.ISSUE_CLOSURE))
    write_model(files.checkpoint, CheckpointFile(closure(workspace.parents[1])))
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
