"""``--json`` output of the commands that show agents: one JSON document on stdout.

Why: ``harness list`` and ``harness status`` lay their text out for a person (columns,
a reason cut to the terminal); a script reads the same facts whole from here instead
of splitting columns. ASCII only, as ``harness checkpoint --json``: a model-written
string keeps its data, yet cannot act on the terminal it is printed to.
"""

from __future__ import annotations

import json
from typing import Any

from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend


def dumps(data: Any) -> str:
    """``data`` as indented, ASCII-only JSON."""
    return json.dumps(data, indent=2, ensure_ascii=True)


def agent_json(info: AgentInfo) -> dict[str, Any]:
    """One agent as the daemon describes it (:class:`AgentInfo`), in JSON types."""
    data: dict[str, Any] = info.model_dump(mode="json")
    return data


def agents_json(agents: list[AgentInfo]) -> list[dict[str, Any]]:
    """``harness list --json``: every agent."""
    return [agent_json(info) for info in agents]


def status_json(agents: list[AgentInfo]) -> dict[str, Any]:
    """``harness status --json``: every agent and their total, as the text's last line."""
    total = Spend()
    for info in agents:
        total = total.plus(info.spend)
    return {
        "agents": agents_json(agents),
        "total": {
            "agents": len(agents),
            "issues_closed": sum(info.issues_closed for info in agents),
            "issues_total": sum(info.issues_total for info in agents),
            "spend": total.model_dump(mode="json"),
        },
    }
