"""A rejected issue_closure, asked again: the second one says what changed since the reject.

The demo runs through the real SDK and CLI with the demo's playbook plus one scenario: the
coding session that gets the person's feedback on slugify adds a test to its test file and
a new test file. The second closure must name exactly that (one commit, two files, from
git), in its context, its WHAT HAPPENED and the text ``harness checkpoint`` prints.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent.frontend.demo import prepare_demo
from agent.model.playbook import DEMO_PLAYBOOK
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.workspace import answer, git
from common.workspace.render import render_checkpoint
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import log_text, next_pending, start_agent

pytestmark = pytest.mark.slow

REASON = "test the accents of a whole title too"
EXTRA_TEST = (
    "\n\ndef test_a_whole_title_with_accents() -> None:\n"
    '    assert slugify("Crème Brûlée à la carte") == "creme-brulee-a-la-carte"\n'
)
UNICODE_TESTS = (
    "from textkit.slug import slugify\n\n\n"
    "def test_greek_letters_are_dropped() -> None:\n"
    '    assert slugify("alpha α beta") == "alpha-beta"\n'
)


def playbook_with_feedback(folder: Path) -> Path:
    """The demo's playbook, plus a slugify session for after the person's feedback."""
    book: dict[str, Any] = json.loads(DEMO_PLAYBOOK.read_text())
    first = next(s for s in book["scenarios"] if s["name"] == "coding: Add slugify")
    again = copy.deepcopy(first)
    again["name"] = "coding: Add slugify (after feedback)"
    again["match"] = first["match"] + r"[\s\S]*FEEDBACK ON THE PREVIOUS ATTEMPT"
    write_tests = again["steps"][1]["tool_uses"][0]
    write_tests["input"]["content"] += EXTRA_TEST
    unicode_file = copy.deepcopy(write_tests)
    unicode_file["input"] = {
        "file_path": "{{project_dir}}/tests/test_slug_unicode.py",
        "content": UNICODE_TESTS,
    }
    again["steps"][1]["tool_uses"].append(unicode_file)
    book["scenarios"].insert(0, again)
    path = folder / "closure-reject-playbook.json"
    path.write_text(json.dumps(book))
    return path


def workspace() -> tuple[Path, WorkspaceFiles]:
    """The demo project and its prepared workspace, playing :func:`playbook_with_feedback`."""
    root = Path(tempfile.mkdtemp(prefix="e2c-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=False)
    spec = demo.model_copy(update={"playbook": playbook_with_feedback(root)})
    return spec.project_dir, WorkspaceFiles(prepare_workspace(spec))


async def test_a_second_closure_after_a_reject_names_what_changed_since() -> None:
    project, files = workspace()
    agent = start_agent(files)
    try:
        pending = await next_pending(files, agent)
        while not isinstance(pending, IssueClosureCheckpoint):
            answer.approve(files.root, None, None, checkpoint_id=pending.id)
            pending = await next_pending(files, agent, timeout=120)
        first = pending
        assert first.context.since_rejection is None, "a first closure has nothing to compare"
        assert first.context.issue_title == "Add slugify"
        answer.reject(files.root, REASON, checkpoint_id=first.id)

        second = await next_pending(files, agent, timeout=120)
        assert isinstance(second, IssueClosureCheckpoint), log_text(files)
    finally:
        if agent.poll() is None:
            os.killpg(agent.pid, signal.SIGKILL)
            agent.wait(timeout=30)

    changes = second.context.since_rejection
    assert changes is not None, second.context
    assert changes.checkpoint_id == first.id
    assert changes.commit_sha == first.context.commit_sha
    new = git.git(project, "rev-list", "--reverse", f"{first.context.commit_sha}..HEAD").split()
    assert changes.commits == new and len(new) == 1
    assert changes.files == ["tests/test_slug.py", "tests/test_slug_unicode.py"]
    assert "2 files changed" in changes.shortstat
    assert "since your rejection: 1 commit, 2 files" in second.what_happened
    shown = render_checkpoint(second, agent="agent_1")  # what `harness checkpoint` prints
    assert f"Since your rejection ({first.id} at {first.context.commit_sha[:12]})" in shown
    assert "files: tests/test_slug.py, tests/test_slug_unicode.py" in shown
