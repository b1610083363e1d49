"""Step 1: the git repository the agent works in."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DirectoryTree, Input, Static, Tree
from textual.widgets.directory_tree import DirEntry

from common.harness_code import CODE_ROOT
from common.untrusted_text import printable_line
from common.workspace import git
from tui.labels import display_path, typed_path
from tui.screens.wizard.base import WizardStep
from tui.services.git_status import dirty_note, uncommitted
from tui.widgets.folder_tree import FolderTree
from tui.widgets.path_suggester import FolderSuggester


def repository_problem(path: Path) -> str | None:
    """Why ``path`` cannot be the project, in words a person can act on; ``None`` if it can."""
    shown = display_path(path)
    resolved = path.resolve()
    # An agent aimed at the harness's own code would rewrite the harness it runs on.
    if resolved == CODE_ROOT or CODE_ROOT in resolved.parents:
        return f"{shown} is the coding-harness's own checkout: choose your project's repository."
    if not path.is_dir():
        return f"{shown} is not a folder."
    if not (path / ".git").exists():
        return (
            f"{shown} is not a git repository (it has no .git folder). "
            "Choose the top folder of a repository, or run `git init` there first."
        )
    if not git.is_repository_root(path):
        return f"{shown} has a .git entry, but git does not see a repository there."
    return None


class RepoStep(WizardStep):
    """A folder browser; the highlighted folder fills the path, which can also be typed."""

    STEP_TITLE = "Select repository"
    HELP = (
        "Type or paste a path (→ completes a folder), or Tab to the browser: arrows move, "
        "Space opens a folder, Ctrl+O goes up. Enter continues."
    )
    TYPED_FIELD = "#path"
    _start_text = ""
    """What the path field opened with (the browser follows only what is typed after)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "parent", "Parent folder"),
        Binding("down", "browse", "Browse", show=False),
    ]

    def compose_step(self) -> ComposeResult:
        start = self.state.repository or self.state.defaults.start_dir
        self._start_text = display_path(start)
        yield Input(self._start_text, id="path", suggester=FolderSuggester())
        yield Static("", id="hint", markup=False)
        root = start.parent if self.state.repository is not None else start
        yield FolderTree(root, id="tree")

    def on_mount(self) -> None:
        self._hint(typed_path(self.query_one("#path", Input).value))
        self.query_one("#path", Input).focus()

    def accept(self) -> str | None:
        path = typed_path(self.query_one("#path", Input).value)
        problem = repository_problem(path)
        if problem is None:
            self.state.repository = path
            self.state.uncommitted = uncommitted(path)  # said again before the start
        return problem

    def action_browse(self) -> None:
        """Down in the path field moves into the folder browser (the tree takes it from there)."""
        tree = self.query_one("#tree", FolderTree)
        tree.focus()
        tree.action_cursor_down()

    def action_parent(self) -> None:
        tree = self.query_one("#tree", FolderTree)
        current = Path(tree.path)
        if current.parent != current:
            tree.path = current.parent

    @on(Tree.NodeHighlighted, "#tree")
    def folder_highlighted(self, event: Tree.NodeHighlighted[DirEntry]) -> None:
        # Only while the person browses: the tree highlighting its first folder as it
        # finishes loading must not overwrite a path typed or pasted meanwhile.
        if event.node.data is None or not self.query_one("#tree", FolderTree).has_focus:
            return
        path = event.node.data.path
        self.query_one("#path", Input).value = display_path(path)
        self._hint(path)

    @on(DirectoryTree.DirectorySelected, "#tree")
    def folder_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        event.stop()  # Enter continues (priority binding); this only fires on a mouse click

    @on(Input.Changed, "#path")
    def path_typed(self, event: Input.Changed) -> None:
        path = typed_path(event.value)
        self._hint(path)
        self.show_error("")
        # Typed or pasted: not the text the step opened with, nor filled in by the browser.
        if event.input.has_focus and event.value != self._start_text:
            self._browse_to(path)

    def _browse_to(self, path: Path) -> None:
        """The browser follows what is typed: the folder typed, or the one a half-typed
        name is in (its folders are the candidates)."""
        folder = path if path.is_dir() else path.parent
        tree = self.query_one("#tree", FolderTree)
        if folder.is_dir() and folder != Path(tree.path):
            tree.path = folder

    def _hint(self, path: Path) -> None:
        """A quick look (no git call) telling a repository from a plain folder; for a
        repository, git then says whether it has uncommitted changes."""
        repository = (path / ".git").exists()
        text = "✓ git repository" if repository else "not a git repository"
        self.query_one("#hint", Static).update(text)
        if repository:
            self._look_for_changes(path)

    @work(exclusive=True, group="uncommitted")
    async def _look_for_changes(self, path: Path) -> None:
        """Say a repository's uncommitted changes when it is picked, not first at the
        agent's project_verification (git runs off the event loop)."""
        note = dirty_note(await asyncio.to_thread(uncommitted, path))
        shown = typed_path(self.query_one("#path", Input).value)
        if note and shown == path:  # the person may have moved on meanwhile
            hint = self.query_one("#hint", Static)
            hint.update(f"✓ git repository · ⚠ {printable_line(note)}")
