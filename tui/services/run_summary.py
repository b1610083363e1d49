"""What a finished agent leaves behind, in the words ``harness run --wait`` uses.

Read from the workspace files (state, tracker mirror, workspace info) and git,
off the event loop: the branch and its commits, the issues closed and those left
open, the merge request, the last test run, and what the sessions cost.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from common.atomic import read_model_or_none
from common.errors import GitError, StateFileError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.coverage import gaps_line
from common.schemas.exit_status import ExitState
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import AgentInfo
from common.schemas.workspace import WorkspaceInfo
from common.untrusted_text import printable_line
from common.workspace import git
from tui import labels


def short_error(message: str) -> str:
    """git's complaint, first line, without the command in front or its usage text."""
    first = message.strip().splitlines()[0] if message.strip() else message
    return first.split("fatal: ", 1)[-1]


#: Commits listed before "… and N more".
MAX_COMMITS = 8


def summary_lines(agent: AgentInfo) -> list[str]:
    """The summary of ``agent``'s run (blocking: reads files, runs git)."""
    files = WorkspaceFiles(agent.workspace)
    head = f"{agent.name} {agent.status.value} after {labels.elapsed(agent)}"
    lines = [head + (f": {agent.reason}" if agent.reason else "")]
    if agent.exit_state is ExitState.PARTIAL:
        lines.append(f"partial: {gaps_line(agent.coverage, agent.set_aside)}")
    try:
        info = read_model_or_none(files.info, WorkspaceInfo)
        state = read_model_or_none(files.state, AgentState)
        milestone: FileMilestone | GitLabMilestone | None = read_model_or_none(
            files.milestone, FileMilestone
        ) or read_model_or_none(files.gitlab_milestone, GitLabMilestone)
    except StateFileError as e:
        return [*lines, f"cannot read the workspace: {e}"]
    if info is not None:
        lines += _branch_lines(agent.project_dir, info.feature_branch, info.spec.target_branch)
    if milestone is not None:
        closed = [issue for issue in milestone.issues if issue.state == "closed"]
        still_open = [issue for issue in milestone.issues if issue.state != "closed"]
        lines.append(f"issues: {len(closed)} of {len(milestone.issues)} closed")
        lines += [f"  ✓ #{issue.iid} {issue.title}" for issue in closed]
        aside = set(agent.coverage.set_aside if agent.coverage else agent.set_aside)
        lines += [
            f"  · #{issue.iid} {issue.title} "
            + ("(set aside for a person)" if issue.iid in aside else "(left open)")
            for issue in still_open
        ]
        mr = milestone.merge_request
        if mr is not None:
            where = f" — {mr.web_url}" if mr.web_url else ""
            lines.append(f"merge request !{mr.iid}: {mr.title} ({mr.state}){where}")
    if state is not None:
        run = state.last_test_run
        if run is not None:
            verdict = "passed" if run.passed else "FAILED"
            lines.append(f"last test run: {run.summary} — {verdict} ($ {run.command})")
        spend = state.spend
        if spend.sessions:
            lines.append(
                f"spend: {spend.sessions} sessions, {labels.count(spend.tokens_in)} in "
                f"({labels.count(spend.cache_read)} cache read) / "
                f"{labels.count(spend.tokens_out)} out tokens, {labels.cost(spend)}"
            )
    return lines


def _branch_lines(project: Path, branch: str, target: str) -> list[str]:
    """The feature branch's commits on ``target``; a branch not made yet (a run stopped
    before spec_to_issues) says so, not git's usage error about an unknown revision."""
    try:
        if not git.branch_exists(project, branch):
            return [f"branch {branch}: not created yet"]
        if not git.branch_exists(project, target):
            return [f"branch {branch}: the target branch {target} is gone"]
        log = git.git(
            project, "log", "--format=%h %s", f"refs/heads/{target}..refs/heads/{branch}", "--"
        )
    except GitError as e:
        return [f"branch {branch}: {printable_line(short_error(str(e)))}"]
    commits = log.splitlines()
    lines = [f"branch {branch}: {len(commits)} commit(s) on {target}"]
    lines += [f"  {line}" for line in commits[:MAX_COMMITS]]
    if len(commits) > MAX_COMMITS:
        lines.append(f"  … and {len(commits) - MAX_COMMITS} more")
    return lines


async def summary(agent: AgentInfo) -> str:
    """:func:`summary_lines` in a thread, joined."""
    lines = await asyncio.to_thread(summary_lines, agent)
    # Issue and MR titles, reasons and commit subjects are the model's: one line each, escaped.
    return "\n".join(printable_line(line) for line in lines)
