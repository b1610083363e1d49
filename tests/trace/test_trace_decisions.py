"""``harness trace`` shows a decision's choice and rule, never its MAC."""

from __future__ import annotations

import json
from pathlib import Path

from agent.control import trace_view
from agent.core.trace import trace
from common.paths import WorkspaceFiles
from common.schemas.trace import DecisionMade
from common.workspace import checkpoints
from common.workspace.decisions import default_decision
from tests.core.checkpoint_samples import closure

MAC = "5985c1081f5f956fb04322995b22284a81455f2ce36fabd94ed2a9ebe3275b9a"


def test_a_decision_is_recorded_without_its_mac(tmp_path: Path) -> None:
    shown = closure("ic-1")
    decision = default_decision(shown, "auto-accept").model_copy(
        update={"rule": "auto-accept: default=approve"}
    )
    signed = checkpoints.signed(
        b"k" * 32, WorkspaceFiles(tmp_path), checkpoints.decided(shown, decision)
    )
    assert signed.decision is not None and signed.decision.mac is not None
    path = tmp_path / "trace.jsonl"

    with trace.tracing(path):
        trace.decision(signed)

    [event] = trace.read_trace(path)
    assert isinstance(event, DecisionMade)
    assert event.choice is not None and "mac" not in json.loads(event.choice)
    assert json.loads(event.choice)["rule"] == "auto-accept: default=approve"


def test_an_older_traces_mac_is_not_shown() -> None:
    older = DecisionMade(
        checkpoint="issue_selection-4",
        approved=True,
        by="auto-accept",
        choice=json.dumps({"issue_iid": 1, "mac": MAC, "rule": "auto-accept: default=approve"}),
    )

    [shown] = trace_view.select([older], None)

    assert isinstance(shown, DecisionMade)
    assert json.loads(shown.choice or "{}") == {
        "issue_iid": 1,
        "rule": "auto-accept: default=approve",
    }
    assert MAC not in trace_view.render([older])
    only_mac = older.model_copy(update={"choice": json.dumps({"mac": MAC})})
    assert trace_view.select([only_mac], None)[0] == only_mac.model_copy(update={"choice": None})
