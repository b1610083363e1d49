"""The folder layout is the architecture: each layer imports only its own layer and those under it.

Every import counts, wherever it stands: at the top of a module, inside a function,
under ``if TYPE_CHECKING`` or in a ``try``. An import moved into a function still
ties the two modules together (it only runs later), so a layer is kept by a walk over
the whole syntax tree, not over the top-level statements alone.

The layers, from the bottom:

0. ``common``: schemas, atomic IO, paths, errors.
1. ``common.workspace``: the workspace protocol (checkpoint files, decisions, set-up,
   the harness's hardened git), shared ground for everything above.
2. ``agent.assets``: the harness's data files.
3. The services that stand on the protocol alone: the embedded model (``agent.model``),
   the trackers, the daemon, the local GitLab and the demo project's environment.
4. The OS sandbox (``agent.sandbox``): plans, bubblewrap, the relay and the filtering
   proxy; it knows nothing of sessions or phases (what it is told to log, and how a
   command is wrapped, it is handed).
5. The agent's run (``agent.core``), which puts its sessions and gates in the sandbox
   (``agent.core.session.sandboxing``, ``agent.core.session.entrances``). Inside it, rooms
   of one job on floors of their own (:data:`CORE_ROOMS`): a room imports its own modules
   and the floors below it, never a room beside or above it.
6. What runs the core: the agent process (``agent.process``; ``agent.cli`` its old name)
   and the eval suite.
7. What the two front ends share (``agent.frontend``): the batch of specs, the demo, the
   slot lines.
8. The front ends, peers: the ``harness`` CLI (``agent.control``) and the TUI; neither
   imports the other.

Besides the layers: the TUI, the daemon and the trackers never reach into
``agent.core``; neither the core nor the TUI knows the embedded model (what only the
demo may do is decided where the model is chosen); third-party libraries stay where
they belong (only the TUI imports textual and the web server's aiohttp; only the core
and its sandbox the Claude SDK and MCP, and the core the OpenTelemetry SDK; only the
trackers python-gitlab; only the daemon prometheus-client); and no two modules import
each other at import time.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.import_graph import PACKAGES, REPO, Import, all_imports, edges, imports_in, our_modules

LAYERS: tuple[tuple[str, ...], ...] = (
    ("common",),
    ("common.workspace",),
    ("agent", "agent.assets"),
    ("agent.model", "agent.tracker", "agent.daemon", "agent.gitlab_local", "agent.demo_env"),
    ("agent.sandbox",),
    ("agent.core",),
    ("agent.cli", "agent.process", "agent.eval"),
    ("agent.frontend",),
    ("agent.control", "tui"),
)
"""The layers from the bottom; a module belongs to the longest name that prefixes it."""

THIRD_PARTY_HOMES: dict[str, tuple[str, ...]] = {
    "textual": ("tui",),
    "textual_serve": ("tui",),
    "aiohttp": ("tui",),
    "aiohttp_jinja2": ("tui",),
    "jinja2": ("tui",),
    "claude_agent_sdk": ("agent.core", "agent.sandbox"),
    "mcp": ("agent.core", "agent.sandbox"),
    "gitlab": ("agent.tracker",),
    "prometheus_client": ("agent.daemon",),
    "opentelemetry": ("agent.core",),
}
"""Heavy or front-end libraries, and the only layers that may import them."""


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``module``'s longest matching name."""
    best, index = "", -1
    for number, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(f"{name}.")) and len(name) > len(best):
                best, index = name, number
    if index < 0:
        raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")
    return index


def crossings(module: str, imports: list[Import]) -> list[str]:
    """The imports of ``module`` that break a layer or a third-party library's home."""
    found: list[str] = []
    for item in imports:
        top = item.target.split(".")[0]
        where = f"{module}:{item.line} imports {item.target}"
        if top in PACKAGES:
            if layer_of(item.target) > layer_of(module):
                found.append(f"{where} (layer {layer_of(item.target)} above {layer_of(module)})")
        elif top in THIRD_PARTY_HOMES:
            homes = THIRD_PARTY_HOMES[top]
            if not any(module == home or module.startswith(f"{home}.") for home in homes):
                found.append(f"{where} (only {', '.join(homes)} may)")
    return found


def test_every_import_stays_in_its_layer_or_below() -> None:
    offenders = [
        line for module, imports in all_imports().items() for line in crossings(module, imports)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "agent.core.synthetic",
            "def later() -> None:\n    from tui.app import HarnessApp\n",
            "agent.core.synthetic:2 imports tui.app (layer 8 above 5)",
        ),
        (
            "agent.eval.synthetic",
            "async def later() -> None:\n    import agent.control.main\n",
            "agent.eval.synthetic:2 imports agent.control.main (layer 8 above 6)",
        ),
        (
            "agent.daemon.synthetic",
            "class Late:\n    def method(self) -> None:\n        import textual.app\n",
            "agent.daemon.synthetic:3 imports textual.app (only tui may)",
        ),
        (
            "agent.core.stages.synthetic",
            "def later() -> None:\n    from ...control import main\n",
            "agent.core.stages.synthetic:2 imports agent.control.main (layer 8 above 5)",
        ),
        (
            "agent.sandbox.synthetic",
            "def later() -> None:\n    from agent.core.log import AgentLog\n",
            "agent.sandbox.synthetic:2 imports agent.core.log (layer 5 above 4)",
        ),
        (
            "common.synthetic",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agent.core import log\n",
            "common.synthetic:3 imports agent.core.log (layer 5 above 0)",
        ),
    ],
)
def test_an_import_hidden_inside_a_function_still_crosses_its_layer(
    module: str, source: str, expected: str
) -> None:
    imports = list(imports_in(source, module, is_package=False, known=set(our_modules())))
    assert crossings(module, imports) == [expected]


def test_an_import_of_a_lower_layer_inside_a_function_passes() -> None:
    source = "def later() -> None:\n    from common.errors import HarnessError\n"
    imports = list(imports_in(source, "tui.synthetic", is_package=False, known=set()))
    assert imports == [Import("common.errors", 2, at_import_time=False)]
    assert crossings("tui.synthetic", imports) == []


KEPT_APART: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("tui", "agent.daemon", "agent.tracker"),
        "agent.core",
        "they stand on the workspace protocol, not the core",
    ),
    (("tui",), "agent.control", "the front ends are peers on agent.frontend"),
    (("agent.control",), "tui", "the front ends are peers on agent.frontend"),
    (
        ("agent.core", "agent.sandbox", "tui"),
        "agent.model",
        "only where the model is chosen (the agent process, the CLI, the eval) knows the "
        "embedded model and what only the demo may do",
    ),
)
"""Pairs the layers alone would allow and that must still never meet: (importers, imported, why)."""


@pytest.mark.parametrize(
    ("sources", "target", "why"), KEPT_APART, ids=[target for _, target, _ in KEPT_APART]
)
def test_modules_kept_apart_never_import_each_other(
    sources: tuple[str, ...], target: str, why: str
) -> None:
    offenders = [
        (source, imported)
        for source, targets in edges().items()
        if source.startswith(sources)
        for imported in targets
        if imported == target or imported.startswith(f"{target}.")
    ]
    assert offenders == [], why


CORE_ROOMS: tuple[tuple[str, ...], ...] = (
    ("log", "faultpoints"),
    ("trace", "outbound", "git", "words"),
    ("endpoint", "gates", "policy"),
    ("browser",),
    ("session",),
    ("run",),
    ("issue",),
    ("stages",),
    ("runner",),
)
"""The rooms of ``agent.core`` from the bottom (a folder, or a module of the core's root):
a room imports its own modules and the rooms on floors below it, never a room beside it."""


def core_room(module: str) -> str | None:
    """``agent.core.gates.gate_runs`` → ``gates``; ``None`` outside the core's rooms."""
    if not module.startswith("agent.core."):
        return None
    return module.removeprefix("agent.core.").split(".")[0]


def core_floor(room: str) -> int:
    for number, rooms in enumerate(CORE_ROOMS):
        if room in rooms:
            return number
    raise AssertionError(f"agent.core.{room} is in no room: add it to CORE_ROOMS")


def core_crossings(module: str, imports: list[Import]) -> list[str]:
    """The imports of the core's ``module`` that reach a room beside or above its own."""
    mine = core_room(module)
    if mine is None:
        return []
    found: list[str] = []
    for item in imports:
        theirs = core_room(item.target)
        if theirs is None or theirs == mine:
            continue
        if core_floor(theirs) >= core_floor(mine):
            found.append(
                f"{module}:{item.line} imports {item.target} "
                f"({theirs} on floor {core_floor(theirs)}, {mine} on {core_floor(mine)})"
            )
    return found


def test_every_room_of_the_core_imports_only_the_floors_below_it() -> None:
    offenders = [
        line
        for module, imports in all_imports().items()
        for line in core_crossings(module, imports)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "agent.core.gates.synthetic",
            "def later() -> None:\n    from agent.core.run.orchestrator import Run\n",
            "agent.core.gates.synthetic:2 imports agent.core.run.orchestrator "
            "(run on floor 5, gates on 2)",
        ),
        (
            "agent.core.endpoint.synthetic",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from agent.core.policy import judge\n",
            "agent.core.endpoint.synthetic:3 imports agent.core.policy.judge "
            "(policy on floor 2, endpoint on 2)",
        ),
    ],
    ids=["inside a function, above", "type-only, beside"],
)
def test_a_hidden_import_still_crosses_the_cores_floors(
    module: str, source: str, expected: str
) -> None:
    imports = list(imports_in(source, module, is_package=False, known=set(our_modules())))
    assert core_crossings(module, imports) == [expected]


def cycles_in(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import cycle of ``graph``, as the path that closes it."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_two_modules_import_each_other_even_for_types_or_later() -> None:
    assert cycles_in(edges()) == []


def test_a_cycle_closed_by_a_type_only_import_is_a_cycle() -> None:
    known = {"agent.core.run.one", "agent.core.run.two"}
    one = "from agent.core.run.two import Two\n"
    two = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from agent.core.run.one import One\n"
    )
    graph = {
        name: {item.target for item in imports_in(text, name, is_package=False, known=known)}
        for name, text in (("agent.core.run.one", one), ("agent.core.run.two", two))
    }
    assert cycles_in(graph) == [["agent.core.run.one", "agent.core.run.two", "agent.core.run.one"]]


def test_importing_the_tui_and_the_daemon_loads_no_agent_core_module() -> None:
    code = (
        "import sys, tui.main, tui.app, agent.daemon.__main__; "
        "print(sorted(m for m in sys.modules if m.startswith('agent.core')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
