"""The folder layout is the architecture: each layer imports only the layers under it.

``common/`` (with the workspace protocol, ``common/workspace``) at the bottom; the
agent's core, the trackers and the daemon above it; the ``harness`` CLI and the TUI
at the top. The TUI and the daemon never reach into ``agent/core``, and no two
modules import each other (at import time).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "agent", "tui")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path, modules: set[str]) -> Iterator[str]:
    """Modules of ours imported when ``path`` is imported (not inside functions, not
    under ``if TYPE_CHECKING``). ``from package import submodule`` counts as the
    submodule, not the package."""
    tree = ast.parse(path.read_text(), str(path))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )

    def walk(nodes: list[ast.stmt]) -> Iterator[str]:
        for node in nodes:
            if isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    yield submodule if submodule in modules else base
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                yield from walk(node.body)
                yield from walk(node.orelse)
            elif isinstance(node, ast.Try):
                yield from walk(node.body)

    for name in walk(tree.body):
        if name.split(".")[0] in PACKAGES:
            yield name


def graph() -> dict[str, set[str]]:
    modules = {
        module_name(path): path for package in PACKAGES for path in (REPO / package).rglob("*.py")
    }
    names = set(modules)
    return {
        name: {target for target in top_level_imports(path, names) if target in names}
        for name, path in modules.items()
    }


def test_common_imports_nothing_above_it() -> None:
    offenders = [
        (source, target)
        for source, targets in graph().items()
        if source.startswith("common")
        for target in targets
        if not target.startswith("common")
    ]
    assert offenders == []


def test_the_agent_never_imports_the_tui() -> None:
    offenders = [
        (source, target)
        for source, targets in graph().items()
        if source.startswith("agent")
        for target in targets
        if target.startswith("tui")
    ]
    assert offenders == []


def test_the_tui_the_daemon_and_the_trackers_stand_on_the_workspace_protocol_not_the_core() -> None:
    outside = ("tui", "agent.daemon", "agent.tracker")
    offenders = [
        (source, target)
        for source, targets in graph().items()
        if source.startswith(outside)
        for target in targets
        if target.startswith("agent.core")
    ]
    assert offenders == []


def test_no_two_modules_import_each_other() -> None:
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert cycles == []


def test_importing_the_tui_and_the_daemon_loads_no_agent_core_module() -> None:
    code = (
        "import sys, tui.main, tui.app, agent.daemon.__main__; "
        "print(sorted(m for m in sys.modules if m.startswith('agent.core')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
