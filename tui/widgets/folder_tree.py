"""Directory browsers for the wizard: folders only (repository), folders and specs (spec file).

Hidden entries are left out (``.git``, ``.claude-agent``, virtual environments) and
the root is labelled with ``~`` for the home folder, which keeps the screen short
and the same on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.text import TextType
from textual.widgets import DirectoryTree
from textual.widgets.directory_tree import DirEntry
from textual.widgets.tree import TreeNode

from tui.labels import display_path

#: File types offered as specifications.
SPEC_SUFFIXES = frozenset({".md", ".markdown", ".txt"})


class FolderTree(DirectoryTree):
    """Folders only."""

    def on_mount(self) -> None:
        self.root.set_label(display_path(Path(self.path)))

    def reset_node(
        self, node: TreeNode[DirEntry], label: TextType, data: DirEntry | None = None
    ) -> FolderTree:
        if node is self.root and isinstance(label, str):
            label = display_path(Path(label))
        super().reset_node(node, label, data)
        return self

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if not path.name.startswith(".") and self.keep(path)]

    def keep(self, path: Path) -> bool:
        """Whether ``path`` (not hidden) is listed."""
        return path.is_dir()


class SpecTree(FolderTree):
    """Folders and Markdown or text files."""

    def keep(self, path: Path) -> bool:
        return path.is_dir() or path.suffix.lower() in SPEC_SUFFIXES
