"""The failure-mode matrix of issue 10, each row a real run through the SDK, the bundled
CLI and the embedded model with a playbook made for it:

- the model cannot fix an issue: set aside after 3 sessions with a note, and the run
  reaches DONE with the other issue;
- a lint preset fails on new code while the tests pass: feedback to the next session,
  not a closure;
- a session runs out of turns: the harness records a handoff, the next session uses it
  and finishes;
- the project's tests fail before the run: reported as pre-existing, never a regression;
  a project whose tests cannot run at all: "broken".
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from agent.daemon.agent_view import exit_state
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.budget import Budgets
from common.schemas.checkpoint import IssueClosureCheckpoint, ProjectVerificationCheckpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints, git
from tests.e2e.agents import log_text
from tests.e2e.test_project_env import calc_project, local_spec, run_to_exit

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
HARNESS_RUFF = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "ruff"


def new_root(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


def milestone(files: WorkspaceFiles) -> FileMilestone:
    return read_model(files.root / ".file_milestone.json", FileMilestone)


def test_an_issue_the_model_cannot_fix_is_set_aside_and_the_run_goes_on() -> None:
    project = calc_project(new_root("e2q-"))
    spec = local_spec(project, DATA / "set-aside-spec.md", DATA / "set-aside-playbook.json")

    code, files = run_to_exit(spec, timeout=180)

    state = read_model(files.state, AgentState)
    assert code == 0, log_text(files)
    assert state.phase is Phase.DONE
    assert state.set_aside == [1]
    assert exit_state(AgentStatus.DONE, state) is ExitState.PARTIAL, "not complete"
    assert state.coverage is not None
    assert (state.coverage.set_aside, state.coverage.uncovered) == ([1], ["half"])
    moves = {move.to_phase for move in state.history}
    assert Phase.REGRESSION_APPROVAL not in moves, "the issue's own failing test is no regression"
    half, double = milestone(files).issues
    assert half.state == "opened" and "needs-human" in half.labels
    assert "in-progress" not in half.labels
    (note,) = [n for n in half.notes if "Set aside for a person" in n.body]
    assert "issue #1 is not done after 3 session(s)" in note.body
    assert "tests/test_half.py::test_half" in note.body, "the last gate output is in the note"
    assert "3 session(s)" in note.body.split("### Spend")[1]
    assert double.state == "closed"
    closure = next(n for n in double.notes if n.kind == "closure")
    assert "Spend: 1 session(s)" in closure.body
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects[:2] == [
        "feat(#2): Add double",
        "revert(#1): set aside, unaccepted work reverted",
    ]
    assert subjects[2:] == ["wip(#1): Add half"], "sessions 2 and 3 changed nothing"
    assert not (project / "calc" / "half.py").exists(), "unaccepted work is not on the branch"
    record = milestone(files).merge_request
    assert record is not None
    assert record.description.splitlines()[:4] == [
        "**Partial: this merge request does not implement the whole spec.**",
        "- Set aside for a person (`needs-human`): #1",
        "- Spec sections no closed issue covers: `half`",
        "",
    ], "the harness's lines come first, before the model's summary"
    assert "## Set aside for a person" in record.description
    assert "- #1: `Add half` (`needs-human`)" in record.description
    assert "## Cost" in record.description and "| #2 | 1 |" in record.description
    assert set(state.issue_spend) == {1, 2}
    assert state.issue_spend[1].sessions == 3
    assert state.spend.sessions == 1 + 3 + 1 + 1  # initializer, half ×3, double, MR


def test_a_lint_failure_on_new_code_is_feedback_not_a_closure() -> None:
    project = calc_project(new_root("e2l-"))
    # The project's own ruff (a copy: the sandbox shows nothing of the harness's checkout).
    shutil.copy2(HARNESS_RUFF, project / ".venv" / "bin" / "ruff")
    spec = local_spec(project, DATA / "lint-spec.md", DATA / "lint-playbook.json")

    code, files = run_to_exit(spec, timeout=180)

    state = read_model(files.state, AgentState)
    assert code == 0, log_text(files)
    assert state.quality_checks == {"lint": "ruff check --quiet ."}
    assert state.check_baseline["lint"].passed
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["feat(#1): Add triple", "wip(#1): Add triple"]
    wip_body = git.git(project, "log", "-1", "--format=%B", "HEAD~1")
    assert "quality checks refused it (failing: lint)" in wip_body
    closure = next(c for c in checkpoints.history(files) if isinstance(c, IssueClosureCheckpoint))
    (refusal,) = closure.context.gate_refusals
    assert refusal.failing == ["(check lint: `ruff check --quiet .` fails)"]
    assert "F401" in refusal.test_run.output_tail
    closures = [c for c in checkpoints.history(files) if isinstance(c, IssueClosureCheckpoint)]
    assert len(closures) == 1, "the lint failure never reached issue_closure"
    assert closures[0].context.checks["lint"].passed, "the reviewer sees the check pass"
    assert "import os" not in (project / "calc" / "triple.py").read_text()


def test_a_session_out_of_turns_leaves_a_handoff_the_next_session_finishes_from() -> None:
    project = calc_project(new_root("e2t-"))
    spec = local_spec(
        project,
        DATA / "turns-spec.md",
        DATA / "turns-playbook.json",
        budgets=Budgets(turns_per_session=4),
    )

    code, files = run_to_exit(spec, timeout=180)

    state = read_model(files.state, AgentState)
    assert code == 0, log_text(files)
    (issue,) = milestone(files).issues
    assert issue.state == "closed"
    (handoff,) = [n for n in issue.notes if n.kind == "handoff"]
    assert "the session ran out of turns (4)" in handoff.body
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["feat(#1): Add square", "wip(#1): Add square"]
    assert state.issue_spend[1].sessions == 2
    log = (files.logs / "e2e.log").read_text()
    assert "it reached its turn limit" in log, "the session ends, with its figures"
    assert "the session used its turn budget" not in log, "no figure-less fallback"


def test_pre_existing_failures_are_reported_never_blamed() -> None:
    project = calc_project(new_root("e2p-"))
    (project / "tests" / "test_old.py").write_text("def test_old() -> None:\n    assert False\n")
    git.git(project, "add", "--all")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "old")
    spec = local_spec(project, DATA / "calc-spec.md", DATA / "false-done-playbook.json")

    code, files = run_to_exit(spec, timeout=180)

    state = read_model(files.state, AgentState)
    assert code == 0, log_text(files)
    assert state.phase is Phase.DONE
    assert exit_state(AgentStatus.DONE, state) is ExitState.COMPLETE
    verification = next(
        c for c in checkpoints.history(files) if isinstance(c, ProjectVerificationCheckpoint)
    )
    (warning,) = [w for w in verification.context.warnings if "pre-existing" in w]
    assert "tests/test_old.py::test_old" in warning
    phases = {move.to_phase for move in state.history}
    assert Phase.REGRESSION_APPROVAL not in phases, "a pre-existing failure is no regression"
