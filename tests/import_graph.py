"""Our modules and the imports between them, read from the syntax tree.

Shared by the layering test (which keeps the order) and ``scripts/house.py`` (which
measures the house): every import counts, wherever it stands: at the top of a module,
inside a function, under ``if TYPE_CHECKING`` or in a ``try``. An import moved into a
function still ties the two modules together (it only runs later).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "agent", "tui")


@dataclass(frozen=True)
class Import:
    """One import statement's target, and whether it runs when its module is imported."""

    target: str
    line: int
    at_import_time: bool


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ASSET_PROJECTS = REPO / "agent" / "assets"
"""Below it, the demo's and the eval cases' projects: data of ours, not our modules."""


def our_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in (REPO / package).rglob("*.py")
        if path.parent == ASSET_PROJECTS or not path.is_relative_to(ASSET_PROJECTS)
    }


def parse(source: str, module: str) -> ast.Module:
    """``ast.parse``, once more after CPython 3.11's "AST constructor recursion depth
    mismatch": its AST conversion keeps one depth counter for every thread,
    so another thread of the test process building an AST at the same moment can trip
    it, and a second parse is unaffected."""
    try:
        return ast.parse(source, module)
    except SystemError:
        return ast.parse(source, module)


def imports_in(source: str, module: str, *, is_package: bool, known: set[str]) -> Iterator[Import]:
    """Every import of ``source`` (the text of ``module``), wherever it stands.

    ``from package import submodule`` counts as the submodule, not the package; a
    relative import is resolved against ``module``'s package. An import counts as
    "at import time" unless it is inside a function or under ``if TYPE_CHECKING``.
    """
    tree = parse(source, module)
    package = module if is_package else module.rpartition(".")[0]
    deferred: set[int] = set()
    for node in ast.walk(tree):
        deferred_body: list[ast.AST] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            deferred_body = [node]
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            deferred_body = list(node.body)
        for inner in deferred_body:
            deferred.update(id(child) for child in ast.walk(inner))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for name in names:
            yield Import(name, getattr(node, "lineno", 0), id(node) not in deferred)


def all_imports() -> dict[str, list[Import]]:
    modules = our_modules()
    known = set(modules)
    return {
        name: list(
            imports_in(path.read_text(), name, is_package=path.name == "__init__.py", known=known)
        )
        for name, path in modules.items()
    }


def edges(*, at_import_time_only: bool = False) -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports (only those run at import time)."""
    modules = all_imports()
    return {
        name: {
            item.target
            for item in imports
            if item.target in modules and (item.at_import_time or not at_import_time_only)
        }
        for name, imports in modules.items()
    }
