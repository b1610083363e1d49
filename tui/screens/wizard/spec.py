"""Step 2: the specification to implement, with a preview of its beginning."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static, Tree
from textual.widgets.directory_tree import DirEntry

from agent.frontend.demo_spec import plays_demo
from tui.labels import display_path
from tui.screens.wizard.base import WizardStep
from tui.widgets.folder_tree import SpecTree

PREVIEW_LINES = 8


def spec_path(text: str, repository: Path) -> Path:
    """A typed or pasted spec path: ``~`` expanded, a relative one inside the repository
    (the folder the step shows), not the working folder the TUI happened to start in."""
    path = Path(text.strip()).expanduser()
    return path if path.is_absolute() else repository / path


def preview(path: Path) -> str:
    """The first lines of ``path``, or why it cannot be a spec."""
    if not path.is_file():
        return "(choose a file)"
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            lines = [line.rstrip() for _, line in zip(range(PREVIEW_LINES), handle, strict=False)]
    except OSError as e:
        return f"(cannot read it: {e.strerror})"
    return "\n".join(lines) or "(empty)"


class SpecStep(WizardStep):
    """The repository's files; a typed or pasted path, or the file highlighted in the tree.

    The path starts empty (or with the spec chosen before, when going back): a guess
    would let four Enters start an agent on a file nobody chose.
    """

    STEP_TITLE = "Select spec file"
    HELP = (
        "Type or paste the spec's path (anywhere), or ↓ to browse the repository: arrows "
        "move, Space opens a folder. Enter continues with the file in the path field."
    )
    TYPED_FIELD = "#path"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "browse", "Browse", show=False),
    ]

    def compose_step(self) -> ComposeResult:
        chosen = self.state.spec_file
        yield Input(
            display_path(chosen) if chosen else "",
            placeholder="path to the spec",
            id="path",
        )
        yield Static(preview(chosen) if chosen else "(choose a file)", id="preview", markup=False)
        yield SpecTree(self._repository, id="tree")

    @property
    def _repository(self) -> Path:
        assert self.state.repository is not None, "the repository step comes first"
        return self.state.repository

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    def action_browse(self) -> None:
        """Down in the path field moves into the file browser (the tree takes it from there)."""
        tree = self.query_one("#tree", SpecTree)
        tree.focus()
        tree.action_cursor_down()

    def accept(self) -> str | None:
        text = self.query_one("#path", Input).value
        if not text.strip():
            return "Choose the specification file."
        path = spec_path(text, self._repository)
        if not path.is_file():
            return f"{display_path(path)} is not a file."
        if path.stat().st_size == 0:
            return f"{display_path(path)} is empty."
        self.state.choose_spec(path, plays_demo=plays_demo(path))
        return None

    @on(Tree.NodeHighlighted, "#tree")
    def entry_highlighted(self, event: Tree.NodeHighlighted[DirEntry]) -> None:
        # Only while the person browses: the tree's first highlight as it loads must not
        # fill the empty field, nor overwrite a path typed or pasted meanwhile.
        if not self.query_one("#tree", SpecTree).has_focus:
            return
        if event.node.data is not None and event.node.data.path.is_file():
            self.query_one("#path", Input).value = display_path(event.node.data.path)

    @on(Input.Changed, "#path")
    def path_typed(self, event: Input.Changed) -> None:
        path = spec_path(event.value, self._repository) if event.value.strip() else Path()
        self.query_one("#preview", Static).update(preview(path))
        self.show_error("")
