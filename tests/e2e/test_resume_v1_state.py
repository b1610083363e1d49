"""An agent killed mid-issue by a harness from before ``IssueWork`` resumes under this one.

The demo agent (auto-accept) is killed at a fault point inside an issue; its state file
is then put back in the version 1 shape (flat per-issue fields, ``schema_version`` 1),
as the older harness wrote it. Started again, the agent must upgrade it, continue that
issue where it was and reach DONE with exactly one ``feat`` commit and one closure note
per issue.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.core.faultpoints import VARIABLE
from common.atomic import write_bytes_atomic
from tests.e2e.agents import assert_demo_done_once, demo_workspace, finish, log_text, start_agent

pytestmark = pytest.mark.slow

_NESTED_TO_FLAT = {
    "iid": "current_issue",
    "sessions": "issue_sessions",
    "commits": "issue_commits",
    "baseline": "issue_baseline",
    "verdict": "verdict",
    "gate_refusals": "gate_refusals",
    "kept_out": "kept_out",
    "held": "held",
    "pre_session_dirty": "pre_session_dirty",
    "pre_session_started_ns": "pre_session_started_ns",
    "done_summary": "done_summary",
    "regression": "regression",
    "feedback": "feedback",
    "feedback_source": "feedback_source",
}
"""How version 1 named each field of the issue in progress (``tests`` had no field of
its own: it was the run's ``last_test_run``)."""


def as_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """A current state as the version 1 harness wrote it: the one issue's fields flat."""
    old = {key: value for key, value in data.items() if key != "issues"}
    old["schema_version"] = 1
    [issue] = data["issues"].values()  # the fault point is inside an issue
    for nested, flat in _NESTED_TO_FLAT.items():
        old[flat] = issue[nested]
    return old


@pytest.mark.parametrize("point", ["coding.committed", "issue_closure.noted"])
def test_a_v1_state_left_mid_issue_resumes_to_done_exactly_once(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, files = demo_workspace(auto_accept=True)
    monkeypatch.setenv(VARIABLE, point)
    killed = finish(start_agent(files), timeout=180)
    assert killed == -9, f"{point} was not reached (exit {killed}):\n{log_text(files)}"
    written = json.loads(files.state.read_text())
    [in_progress] = [work["iid"] for work in written["issues"].values()]
    write_bytes_atomic(files.state, json.dumps(as_version_1(written), indent=2).encode())

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    state = assert_demo_done_once(files, spec.project_dir)
    assert state.schema_version == 3
    assert f"issue #{in_progress} closed" in [move.reason for move in state.history]
