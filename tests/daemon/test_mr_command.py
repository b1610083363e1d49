"""``harness mr AGENT``: the merge request in full and where it is stored (file mode), its
URL and title (GitLab mode), or why there is none yet."""

from __future__ import annotations

import asyncio

from agent.control.mr_command import gitlab_lines
from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.issues import MergeRequestRecord
from common.schemas.milestone import FileMilestone

from .conftest import MakeSpec
from .helpers import start_ready
from .test_answer_cli import harness

RECORD = MergeRequestRecord(
    iid=1,
    title="Add slugify\x1b[2J",
    description="## Summary\n> the model's words\n\n## Verification\n- 17 passed\n",
    source_branch="feature/textkit-helpers",
    target_branch="main",
)


async def test_file_mode_prints_the_description_and_where_it_is_stored(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await start_ready(client, make_spec("idle"))
    files = WorkspaceFiles(agent.workspace)

    before = await asyncio.to_thread(harness, "mr", agent.name)
    assert (before.returncode, before.stdout) == (
        1,
        f"{agent.name} has no merge request yet (phase: coding)\n",
    )

    write_model(files.milestone, FileMilestone(title="m", merge_request=RECORD))
    shown = await asyncio.to_thread(harness, "mr", agent.name)

    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (
        f"{agent.name}: merge request !1 (file mode, opened): Add slugify\\x1b[2J\n"
        "  feature/textkit-helpers → main\n"
        f"  stored in {files.milestone} (merge_request)\n"
        "\n"
        "## Summary\n> the model's words\n\n## Verification\n- 17 passed\n"
    )


def test_gitlab_mode_shows_the_url_and_title() -> None:
    record = RECORD.model_copy(
        update={"iid": 5, "title": "Add slugify", "web_url": "https://gl/p/-/merge_requests/5"}
    )
    assert gitlab_lines("agent_1", record) == [
        "agent_1: merge request !5 (GitLab, opened): Add slugify",
        "  feature/textkit-helpers → main",
        "  https://gl/p/-/merge_requests/5",
    ]
