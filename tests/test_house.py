"""The house's measuring script (``scripts/house.py``) counts what it says it counts."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

from tests.import_graph import REPO


def house() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house", REPO / "scripts" / "house.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cycles_are_the_groups_that_reach_each_other() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert house().cycles(graph) == [["a", "b", "c"]]


def test_a_floor_is_one_above_the_highest_floor_imported() -> None:
    graph: dict[str, set[str]] = {"top": {"mid", "low"}, "mid": {"low"}, "low": set()}
    assert house().floors(graph) == {"top": 2, "mid": 1, "low": 0}


def test_a_room_is_the_cores_first_folder_below_it() -> None:
    rooms = house().room_graph(
        {
            "agent.core.run.orchestrator": {"agent.core.gates.gates.runs", "agent.core.run.ledger"},
            "agent.core.gates.gates.runs": {"agent.core.log", "common.io"},
            "agent.core.log": set(),
            "agent.cli": {"agent.core.run.orchestrator"},
        }
    )
    assert rooms == {"run": {"gates"}, "gates": {"log"}, "log": set()}


def test_the_script_prints_every_section() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "house.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    heads = [line.split(":")[0] for line in done.stdout.splitlines() if not line.startswith(" ")]
    assert heads == [
        "modules over 400 lines",
        "functions over 60 lines",
        "the core's floors",
        "cycles among the core's rooms",
        "cycles among all modules",
        "AgentState's top-level fields",
    ]
