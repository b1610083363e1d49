"""An ``.agent_state.json`` from an earlier schema_version loads in the current shape.

The files in ``data/agent_state_v1_*.json`` were written by the harness's version 1
``AgentState`` (its own ``model_dump_json``), those in ``data/agent_state_v2_*.json`` by
version 2's (one ``issue``; each is its v1 namesake as version 2 loaded and wrote it),
not typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from common.atomic import read_model, write_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.agent_state_upgrade import CURRENT_VERSION, upgrade
from common.schemas.issue_work import IssueWork

DATA = Path(__file__).parent / "data"


def v1(name: str) -> Path:
    return DATA / f"agent_state_v1_{name}.json"


def v2(name: str) -> Path:
    return DATA / f"agent_state_v2_{name}.json"


def test_a_v1_state_written_mid_issue_continues_that_issue() -> None:
    state = read_model(v1("mid_issue"), AgentState)
    raw = json.loads(v1("mid_issue").read_text())

    assert state.schema_version == CURRENT_VERSION == 3
    assert state.phase is Phase.CODING
    work = state.work()
    assert (work.iid, work.sessions, work.commits) == (2, 1, ["2" * 40])
    assert work.baseline is not None and work.baseline.summary == "3 passed"
    assert work.verdict is not None and work.verdict.session == 2, "the saved verdict is applied"
    assert [r.session for r in work.gate_refusals] == [1]
    assert work.kept_out == ["vendor/lib/ (a nested git repository)"]
    assert [item.path for item in work.held] == [".npmrc"]
    assert work.pre_session_dirty == ["notes.txt"]
    assert work.pre_session_started_ns == raw["pre_session_started_ns"]
    # What version 1 shared between the issue and the run was the issue's then.
    assert (work.feedback, work.feedback_source) == (raw["feedback"], "harness")
    assert (state.feedback, state.feedback_source) == (None, "human")
    assert work.tests == state.last_test_run and work.tests is not None
    assert work.tests.summary == "1 failed, 3 passed"
    # What outlives the issue stays on the run.
    assert state.set_aside == [1]
    assert sorted(state.issue_spend) == [1, 2]
    assert state.harness_commits == ["1" * 40, "2" * 40]
    assert state.excluded == ["x.bin (binary; excluded by cli:alice)"]
    assert len(state.history) == len(raw["history"])


def test_a_fresh_v1_state_loads_with_no_issue() -> None:
    state = read_model(v1("fresh"), AgentState)

    assert state.schema_version == CURRENT_VERSION == 3
    assert state.phase is Phase.PROJECT_VERIFICATION
    assert state.issue is None
    assert state.history == []


def test_a_v1_state_between_issues_drops_what_the_last_issue_left() -> None:
    raw = json.loads(v1("between_issues").read_text())
    assert raw["pre_session_started_ns"] is not None, "version 1 left it behind"

    state = read_model(v1("between_issues"), AgentState)

    assert state.phase is Phase.ISSUE_SELECTION
    assert state.issue is None
    assert state.last_test_run is not None and state.last_test_run.summary == "4 passed"
    assert state.issue_spend.keys() == {1}


def test_a_v1_regression_before_the_merge_request_stays_the_runs() -> None:
    state = read_model(v1("regression_before_mr"), AgentState)

    assert state.phase is Phase.REGRESSION_APPROVAL
    assert state.issue is None, "regression_approval asks about the branch, not an issue"
    assert state.regression == ["tests/test_b.py::test_old"]


@pytest.mark.parametrize("name", ["mid_issue", "fresh", "between_issues", "regression_before_mr"])
def test_an_upgraded_state_is_written_as_version_2_and_reads_back_the_same(
    name: str, tmp_path: Path
) -> None:
    state = read_model(v1(name), AgentState)
    path = tmp_path / ".agent_state.json"

    write_model(path, state)

    written = json.loads(path.read_text())
    assert written["schema_version"] == CURRENT_VERSION
    assert "current_issue" not in written and "issue_commits" not in written
    assert read_model(path, AgentState) == state


def test_a_current_state_is_not_upgraded_again() -> None:
    data = AgentState(issues={4: IssueWork(iid=4, sessions=1)}).model_dump(mode="json")

    assert upgrade(data) is data


def test_a_state_built_in_code_still_refuses_version_1_field_names() -> None:
    """Only a file that says version 1 is upgraded: in code, an old name stays an error."""
    with pytest.raises(ValueError, match="issue_commits"):
        AgentState.model_validate({"issue_commits": ["a" * 40]})
    with pytest.raises(ValueError, match="current_issue"):
        AgentState.model_validate({"schema_version": 2, "current_issue": 1})


def test_a_v1_file_with_a_bad_issue_field_is_refused_by_its_new_name() -> None:
    data = json.loads(v1("mid_issue").read_text())
    data["issue_sessions"] = "many"

    with pytest.raises(ValueError, match=r"issues\.2\.sessions"):
        AgentState.model_validate(data)


def test_a_v2_state_written_mid_issue_keeps_its_issue_under_its_number() -> None:
    raw = json.loads(v2("mid_issue").read_text())
    assert raw["schema_version"] == 2 and raw["issue"]["iid"] == 2

    state = read_model(v2("mid_issue"), AgentState)

    assert state.schema_version == CURRENT_VERSION
    assert list(state.issues) == [2]
    work = state.work()
    assert work == state.work(2) == state.issue
    added_since: dict[str, Any] = dict.fromkeys(
        ("slot", "closure_note", "browser_calls", "screenshots"), True
    )
    # Issue 26: what the gates found about their tree, and what each run wrote.
    added_since |= dict.fromkeys(("gate_findings", "gate_ignored", "tested_tree"), True)
    added_since |= {"baseline": {"writes"}, "tests": {"writes"}}
    added_since["gate_refusals"] = {"__all__": {"test_run": {"writes"}}}
    # Issue 26: a held entry may stand for a folder of files (a session over its limit).
    added_since["held"] = {"__all__": {"files"}}
    added_since["verdict"] = {
        **dict.fromkeys(("tested_tree", "gate_findings", "gate_ignored"), True),
        "tests": {"writes"},
    }
    assert work.model_dump(mode="json", exclude=added_since) == raw["issue"]
    assert (work.slot, work.closure_note) == (None, None), "version 2: one issue at a time"
    assert (work.browser_calls, work.screenshots) == ([], []), "none before the browser"
    assert state.phase is Phase.CODING and state.set_aside == [1]


def test_a_v2_state_between_issues_has_none_in_progress() -> None:
    state = read_model(v2("between_issues"), AgentState)

    assert state.issues == {} and state.issue is None
    assert state.last_test_run is not None and state.last_test_run.summary == "4 passed"


@pytest.mark.parametrize("name", ["mid_issue", "between_issues"])
def test_v1_and_v2_files_of_the_same_moment_load_alike(name: str) -> None:
    assert read_model(v1(name), AgentState) == read_model(v2(name), AgentState)


def test_a_v2_file_with_a_bad_issue_is_refused_by_its_new_place() -> None:
    data = json.loads(v2("mid_issue").read_text())
    data["issue"]["sessions"] = "many"

    with pytest.raises(ValueError, match=r"issues\.2\.sessions"):
        AgentState.model_validate(data)


def test_a_state_built_in_code_refuses_the_version_2_name() -> None:
    with pytest.raises(ValueError, match="issue"):
        AgentState.model_validate({"issue": {"iid": 1}})
