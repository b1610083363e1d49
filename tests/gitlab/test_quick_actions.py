"""Text the model wrote never runs as a GitLab quick action with the person's token.

GitLab carries out ``/close``, ``/merge``, ``/unlabel`` … lines of descriptions and
notes as the token's user. The local GitLab does the same (shown first, with raw
python-gitlab calls), then the harness's tracker sends such text through the same
server: nothing is carried out, and the text is still there to read.
"""

from __future__ import annotations

import gitlab
import pytest

from agent.gitlab_local.quick_actions import ISSUE_COMMANDS, QuickAction, extract
from agent.tracker.gitlab import split_marker
from agent.tracker.gitlab.inert_text import inert
from agent.tracker.push import git_push
from common.schemas.issues import IssueDraft

from .conftest import PROJECT, Lab, commit, git

HOSTILE = "Done as asked.\n/close\n/unlabel ~needs-human\r\n\r/label ~approved\n/MERGE\n/approve"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/close", "\\/close"),
        ("/CLOSE", "\\/CLOSE"),
        ("text\n/close\nmore", "text\n\\/close\nmore"),
        ("\r/close", "\\/close"),  # GitLab drops \r first: the line starts with "/"
        ("a\r\n/merge", "a\n\\/merge"),
        ("```\n/close\n```", "```\n\\/close\n```"),  # code blocks too: no fence rules to steer
        (" /close", " /close"),  # not at the start of the line: GitLab ignores it
        ("see /close", "see /close"),
        ("\\/close", "\\/close"),
        ("", ""),
    ],
)
def test_inert_escapes_every_line_gitlab_could_run(text: str, expected: str) -> None:
    assert inert(text) == expected
    assert extract(inert(text), ISSUE_COMMANDS)[1] == []


@pytest.mark.parametrize(
    ("text", "stored", "actions"),
    [
        ("a\n/close\nb", "a\nb", [QuickAction("close")]),
        ('/Label ~x ~"y z"', "", [QuickAction("label", '~x ~"y z"')]),
        ("```\n/close\n```", "```\n/close\n```", []),
        (">>>\n/close\n>>>", ">>>\n/close\n>>>", []),
        ("/unknown thing", "/unknown thing", []),
        ("x\r\n/close", "x", [QuickAction("close")]),
    ],
)
def test_the_local_gitlab_finds_commands_as_gitlab_does(
    text: str, stored: str, actions: list[QuickAction]
) -> None:
    assert extract(text, ISSUE_COMMANDS) == (stored, actions)


def test_label_arguments_are_read_with_quotes() -> None:
    assert QuickAction("label", '~a ~"b c" ~').labels() == ["a", "b c"]


def test_the_local_gitlab_carries_out_quick_actions_like_gitlab(lab: Lab) -> None:
    """The control: sent raw, the same text closes, relabels and merges."""
    project = gitlab.Gitlab(lab.server.url, private_token=lab.token.value).projects.get(PROJECT)
    issue = project.issues.create({"title": "T", "labels": "needs-human"})
    issue.notes.create({"body": HOSTILE})
    again = project.issues.get(issue.iid)
    assert (again.state, again.labels) == ("closed", ["approved"])
    git(lab.repo, "checkout", "-q", "-b", "feature/x")
    commit(lab.repo, "x.py", "x\n")
    git_push(lab.repo, "feature/x", lab.token.value)
    created = project.mergerequests.create(
        {
            "source_branch": "feature/x",
            "target_branch": "main",
            "title": "X",
            "description": HOSTILE,
        }
    )
    assert created.state == "merged"


async def test_model_text_through_the_tracker_runs_nothing(lab: Lab) -> None:
    tracker = lab.tracker()
    await tracker.ensure_milestone("spec", HOSTILE)
    [issue] = await tracker.create_issues([IssueDraft(title="Parser", summary=HOSTILE)])
    await tracker.update_issue(issue.iid, add_labels=("needs-human",))
    await tracker.add_note(issue.iid, "handoff", HOSTILE)
    await tracker.update_issue(issue.iid, description=HOSTILE)
    git(lab.repo, "checkout", "-q", "-b", "feature/spec")
    commit(lab.repo, "parser.py", "pass\n")
    await tracker.push_branch("feature/spec")
    await tracker.create_merge_request("Spec", HOSTILE, "feature/spec", "main")

    store = lab.server.store
    [stored] = store.issues
    assert (stored.state, stored.labels) == ("opened", ["needs-human"])
    [merge_request] = store.merge_requests
    assert merge_request.state == "opened"
    # The words are all still there for a person to read (Markdown shows \/ as /).
    notes = [split_marker(n.body)[0] for n in store.notes if not n.system]
    for text in (split_marker(stored.description)[0], merge_request.description, *notes):
        assert "\\/close" in text and "\\/unlabel ~needs-human" in text and "\\/MERGE" in text
