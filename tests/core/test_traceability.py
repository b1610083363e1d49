"""The merge request's traceability: from a hand-made state and log, and a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.run.traceability import (
    HEADING,
    LEGEND,
    CommitFact,
    commit_facts,
    is_test_file,
    section,
)
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import Checkpoint, ClosureDecision, Decision
from common.schemas.gates import TestRun
from common.schemas.issues import IssueDraft, TrackedIssue
from common.schemas.outbound import ApprovedChange
from common.schemas.spend import Spend
from common.workspace import checkpoints
from tests.core.checkpoint_samples import closure, mr_transition
from tests.core.runs import sh_git


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_parser.py", True),
        ("pkg/tests/helpers.py", True),
        ("test_cli.py", True),
        ("src/parser_test.py", True),
        ("src/parser.py", False),
        ("contest.py", False),
        ("docs/testing.md", False),
    ],
)
def test_what_counts_as_a_test_file(path: str, expected: bool) -> None:
    assert is_test_file(path) is expected


def commit(project: Path, message: str, **files: str) -> str:
    for name, text in files.items():
        target = project / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        sh_git(project, "add", str(target))
    sh_git(project, "commit", "-q", "--allow-empty", "-m", message)
    return sh_git(project, "rev-parse", "HEAD")


def test_commit_facts_are_the_recorded_commits_on_the_branch_with_their_issue(
    tmp_path: Path,
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    commit(project, "init", readme="x")
    sh_git(project, "checkout", "-q", "-b", "feature")
    one = commit(project, "feat(#1): Parser (#9)", parser_py="x", tests__test_parser_py="t")
    stray = commit(project, "feat(#2): not the harness's", other_py="y")
    two = commit(project, "chore(#2): flagged change(s) a person approved", ci_yml="z")
    sh_git(project, "checkout", "-q", "-b", "side", "main")
    side = commit(project, "feat(#3): Docs", test_docs_py="d")
    sh_git(project, "checkout", "-q", "feature")
    sh_git(project, "merge", "-q", "--no-ff", "-m", "Merge issue #3 (side) into feature", "side")
    merge = sh_git(project, "rev-parse", "HEAD")
    unlisted = [one, two, side, merge]
    assert stray not in unlisted
    found = commit_facts(project, "main", unlisted)
    short = {sha: sh_git(project, "rev-parse", "--short", sha) for sha in (one, two, side)}
    assert found == [
        CommitFact(short[one], 1, ["tests/test_parser_py"]),
        CommitFact(short[two], 2, []),
        CommitFact(short[side], 3, ["test_docs_py"]),
    ] or found == [
        CommitFact(short[one], 1, ["tests/test_parser_py"]),
        CommitFact(short[side], 3, ["test_docs_py"]),
        CommitFact(short[two], 2, []),
    ]
    assert commit_facts(project, "main", []) == []


def logged(checkpoint: Checkpoint, **fields: object) -> Checkpoint:
    values: dict[str, object] = {"approved": True, "decided_by": "auto-accept"} | fields
    if checkpoint.type.value == "issue_closure":
        return checkpoints.decided(checkpoint, ClosureDecision.model_validate(values))
    return checkpoints.decided(checkpoint, Decision.model_validate(values))


def test_the_section_from_a_hand_made_state_and_log() -> None:
    state = AgentState(
        spec_drafts={
            1: IssueDraft(title="Parser", summary="s", spec_sections=["Parsing"]),
            2: IssueDraft(title="CLI", summary="s", spec_sections=["CLI | flags"]),
            3: IssueDraft(title="Docs", summary="s", spec_sections=["Parsing"]),
        },
        issue_spend={1: Spend(cost_usd=0.25, sessions=2)},
        set_aside=[3],
        approved_changes=[
            ApprovedChange(
                path=".gitlab-ci.yml", reasons=["CI"], approved_by="cli:alice", where="ic-1"
            )
        ],
    )
    issues = [
        TrackedIssue(iid=1, title="Parser", description="", state="closed"),
        TrackedIssue(iid=2, title="CLI | pipe\n<b>bold</b>", description="", state="closed"),
        TrackedIssue(iid=3, title="Docs", description=""),
        TrackedIssue(iid=4, title="Bug: regression", description=""),
    ]
    tests = TestRun(command="pytest", exit_code=0, duration_s=1.0, summary="5 passed")
    first = closure("issue_closure-4")
    first = first.model_copy(
        update={"context": first.context.model_copy(update={"test_run": tests})}
    )
    log = [
        logged(mr_transition("spec_to_issues-1"), decided_by="cli:alice"),
        logged(first, rule="auto-accept: default=approve"),
        logged(mr_transition("mr_phase_transition-9"), approved=False, reason="not | yet"),
    ]
    commits = [
        CommitFact("abc1234", 1, ["tests/test_parser.py"]),
        CommitFact("def5678", 2, []),
        CommitFact("0a0b0c0", None, []),
    ]
    text = section(state, issues, log, commits, ["Parsing", "CLI | flags", "Unmapped"])
    legend, table = text.split(f"{HEADING}\n")[1].split("\n\n")[:2]
    assert legend == LEGEND
    assert table.splitlines() == [
        "| spec section | issue | commits | tests added or changed | gates | cost |",
        "|---|---|---|---|---|---|",
        "| `Parsing` | #1 `Parser` (closed) | `abc1234` | `tests/test_parser.py` "
        "| tests: `5 passed` | $0.2500 (2 session(s)) |",
        "| `Parsing` | #3 `Docs` (set aside) | — | — | — | — |",
        "| `CLI \\| flags` | #2 `CLI \\| pipe\\n<b>bold</b>` (closed) | `def5678` | — | — | — |",
        "| `Unmapped` | — | — | — | — | — |",
        "| — | #4 `Bug: regression` (opened) | — | — | — | — |",
    ]
    assert "Issues set aside for a person: #3 `Docs`\n" in text
    assert "Flagged changes" not in text  # listed by the section above it in the MR
    decisions = text.split("### Decisions that shaped the run\n")[1].splitlines()
    assert decisions == [
        "| checkpoint | issue | decision | by | rule |",
        "|---|---|---|---|---|",
        "| mr_phase_transition | — | approve | cli:alice | — |",
        "| issue_closure | #1 | approve | auto-accept | auto-accept: default=approve |",
        "| mr_phase_transition | — | reject | auto-accept | — |",
    ]


def test_an_empty_run_says_none() -> None:
    text = section(AgentState(), [], [], [], [])
    assert "Issues set aside: none" in text
    assert "Decisions that shaped the run: none" in text
