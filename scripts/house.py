#!/usr/bin/env python3
"""Measure the house: what a reviewer of its shape would count first.

Prints the production modules over 400 lines, the functions over 60, the core's floors
(the longest chain of imports below each of its rooms) and its import cycles (every
import counts: inside a function or under ``if TYPE_CHECKING`` too), and the top-level
fields of ``AgentState``. Exits 1 when anything is over its target, so it can gate.

    .venv/bin/python scripts/house.py
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.import_graph import REPO, edges, our_modules, parse

MODULE_LINES = 400
FUNCTION_LINES = 60
STATE_FIELDS = 20
CORE = "agent.core"


def long_modules(paths: dict[str, Path]) -> list[tuple[str, int]]:
    """Production modules over :data:`MODULE_LINES`, longest first."""
    sizes = [(name, len(path.read_text().splitlines())) for name, path in paths.items()]
    return sorted(((n, s) for n, s in sizes if s > MODULE_LINES), key=lambda x: -x[1])


def long_functions(paths: dict[str, Path]) -> list[tuple[str, int]]:
    """Functions (methods and nested ones too) over :data:`FUNCTION_LINES`, longest first."""
    found: list[tuple[str, int]] = []
    for name, path in paths.items():
        for node in ast.walk(parse(path.read_text(), name)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    found.append((f"{name}:{node.lineno} {node.name}", length))
    return sorted(found, key=lambda x: -x[1])


def room_of(module: str) -> str:
    """``agent.core.gates.gates.runs`` → ``gates``; a module in the core's root is its own room."""
    rest = module.removeprefix(f"{CORE}.")
    return rest.split(".")[0]


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The core's rooms and the other rooms each imports."""
    rooms: dict[str, set[str]] = {}
    for source, targets in graph.items():
        if not source.startswith(f"{CORE}."):
            continue
        mine = rooms.setdefault(room_of(source), set())
        for target in targets:
            if target.startswith(f"{CORE}.") and room_of(target) != room_of(source):
                mine.add(room_of(target))
    return rooms


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each node's floor: 0 when it imports none of the others, else one above the highest
    it imports (a node in a cycle counts the others of its cycle as below it once)."""
    found: dict[str, int] = {}

    def floor(node: str, seen: frozenset[str]) -> int:
        if node in found:
            return found[node]
        below = [t for t in graph.get(node, ()) if t in graph and t not in seen]
        value = 1 + max((floor(t, seen | {t}) for t in below), default=-1)
        found[node] = value
        return value

    for node in graph:
        floor(node, frozenset({node}))
    return found


def state_fields() -> list[str]:
    """``AgentState``'s top-level fields, as its class declares them."""
    path = REPO / "common" / "schemas" / "agent_state.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef) and node.name == "AgentState":
            return [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            ]
    raise SystemExit("error: AgentState not found in common/schemas/agent_state.py")


def section(title: str, rows: Iterable[str]) -> int:
    """Print ``title`` and its rows; how many rows there were."""
    listed = list(rows)
    print(f"{title}: {len(listed)}")
    for row in listed:
        print(f"  {row}")
    return len(listed)


def main() -> int:
    modules = our_modules()
    production = {n: p for n, p in modules.items() if not n.startswith("agent.assets.")}
    over = section(
        f"modules over {MODULE_LINES} lines",
        (f"{lines:5d}  {name}" for name, lines in long_modules(production)),
    )
    over += section(
        f"functions over {FUNCTION_LINES} lines",
        (f"{lines:5d}  {name}" for name, lines in long_functions(production)),
    )
    graph = edges()
    core = {
        n: {t for t in ts if t.startswith(f"{CORE}.")}
        for n, ts in graph.items()
        if n.startswith(f"{CORE}.")
    }
    rooms = room_graph(graph)
    room_floors = floors(rooms)
    top = max(room_floors.values(), default=-1) + 1
    print(f"the core's floors: {top} ({len(rooms)} rooms, {len(core)} modules)")
    for level in range(top - 1, -1, -1):
        names = sorted(room for room, at in room_floors.items() if at == level)
        print(f"  {level:2d}  {' '.join(names)}")
    over += section("cycles among the core's rooms", (" ↔ ".join(c) for c in cycles(rooms)))
    over += section("cycles among all modules", (" ↔ ".join(c) for c in cycles(graph)))
    fields = state_fields()
    print(f"AgentState's top-level fields: {len(fields)} (target at most {STATE_FIELDS})")
    over += max(0, len(fields) - STATE_FIELDS)
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
