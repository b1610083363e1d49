"""Reading an ``.agent_state.json`` written by an earlier schema_version.

Why: an agent killed mid-issue, or stopped at a checkpoint, is resumed from the file
it left; a harness update must not strand it. Version 1 kept the issue's fields flat
on the state; version 2 nests them in one ``issue``; version 3 keeps every issue in
progress in ``issues`` by iid (parallel work has several). Each upgrade is pure (a
dict in, a dict out) and they run in turn, so the model validates the result like any
other state.
"""

from __future__ import annotations

from typing import Any

CURRENT_VERSION = 3

_FLAT_TO_NESTED: dict[str, str] = {
    "current_issue": "iid",
    "issue_sessions": "sessions",
    "issue_commits": "commits",
    "issue_baseline": "baseline",
    "verdict": "verdict",
    "gate_refusals": "gate_refusals",
    "kept_out": "kept_out",
    "held": "held",
    "pre_session_dirty": "pre_session_dirty",
    "pre_session_started_ns": "pre_session_started_ns",
    "done_summary": "done_summary",
}
"""Version 1's per-issue fields and their names in ``IssueWork``."""


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` in the current version's shape (a current one is returned as is).

    Only a dict that names an earlier ``schema_version`` is upgraded: every file the
    harness wrote names its version, and a model built in code without one must keep
    failing on a field it does not have (``AgentState(verdict=...)`` is an error, not
    dropped).
    """
    if data.get("schema_version") == 1:
        data = _from_version_1(data)
    if data.get("schema_version") == 2:
        data = _from_version_2(data)
    return data


def _from_version_2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2's one ``issue`` (or none) as version 3's ``issues`` by iid."""
    upgraded = {key: value for key, value in data.items() if key != "issue"}
    upgraded["schema_version"] = 3
    issue = data.get("issue")
    upgraded["issues"] = {} if issue is None else {issue["iid"]: issue}
    return upgraded


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1's flat issue fields nested as version 2's ``issue``.

    With an issue in progress (``current_issue`` set), its flat fields move into
    ``issue``, and so do the fields version 1 shared between the issue and the run:
    ``feedback`` (the issue's then), ``regression`` (the issue's then; without an issue
    it is the check before the merge request's) and the latest test run (what its
    issue_closure shows; it also stays on the run as the work tree's latest run).
    Without an issue, the flat fields are what earlier issues left: dropped.
    """
    upgraded = {key: value for key, value in data.items() if key not in _FLAT_TO_NESTED}
    upgraded["schema_version"] = 2
    if data.get("current_issue") is None:
        return upgraded
    issue = {new: data[old] for old, new in _FLAT_TO_NESTED.items() if old in data}
    issue["regression"] = upgraded.pop("regression", [])
    issue["feedback"] = upgraded.pop("feedback", None)
    issue["feedback_source"] = upgraded.pop("feedback_source", "human")
    issue["tests"] = data.get("last_test_run")
    upgraded["issue"] = issue
    return upgraded
