"""``harness mr AGENT``: the agent's merge request, or why there is none yet.

Why: in file mode the merge request is a record in the workspace's
``.file_milestone.json``, and nothing said so: the run ended with "merge request !1
created (file tracker)" and no way to read it but opening that JSON. Here it is in
full (its description, escaped, as the model and the harness wrote it) with where it
is stored; in GitLab mode, its URL and title (GitLab shows the rest).
"""

from __future__ import annotations

import argparse

from agent.control.agent_info import agent_info
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.issues import MergeRequestRecord
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import AgentInfo
from common.untrusted_text import printable, printable_line


async def cmd_mr(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    files = WorkspaceFiles(info.workspace)
    local = read_model_or_none(files.milestone, FileMilestone)
    gitlab = read_model_or_none(files.gitlab_milestone, GitLabMilestone)
    if local is not None and local.merge_request is not None:
        print("\n".join(file_mode_lines(info.name, local.merge_request, str(files.milestone))))
        return 0
    if gitlab is not None and gitlab.merge_request is not None:
        print("\n".join(gitlab_lines(info.name, gitlab.merge_request)))
        return 0
    print(none_yet(info, read_model_or_none(files.state, AgentState)))
    return 1


def heading(name: str, record: MergeRequestRecord, where: str) -> list[str]:
    """The merge request's first lines: number, state, title (the model's words, escaped
    on their line), and its branches."""
    return [
        f"{name}: merge request !{record.iid} ({where}, {record.state}): "
        f"{printable_line(record.title)}",
        f"  {printable_line(record.source_branch)} → {printable_line(record.target_branch)}",
    ]


def file_mode_lines(name: str, record: MergeRequestRecord, stored_in: str) -> list[str]:
    """File mode: where the record is kept, then the whole description."""
    return [
        *heading(name, record, "file mode"),
        f"  stored in {printable_line(stored_in)} (merge_request)",
        "",
        printable(record.description).rstrip("\n"),
    ]


def gitlab_lines(name: str, record: MergeRequestRecord) -> list[str]:
    """GitLab mode: the title and the URL, where GitLab shows the description."""
    url = printable_line(record.web_url) if record.web_url else "(GitLab gave no URL)"
    return [*heading(name, record, "GitLab"), f"  {url}"]


def none_yet(info: AgentInfo, state: AgentState | None) -> str:
    """Why there is no merge request: a draft waits for review, or the run is not there."""
    if info.pending_checkpoint is CheckpointType.MR_REVIEW:
        return (
            f"{info.name} has no merge request yet: its draft waits at mr_review "
            f"(`harness checkpoint {info.name}` shows it)"
        )
    phase = state.phase.value if state is not None else "not started"
    return f"{info.name} has no merge request yet (phase: {phase})"
