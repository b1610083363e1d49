"""Step 2: the specification to implement, with a preview of its beginning."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, Static, Tree
from textual.widgets.directory_tree import DirEntry

from tui.labels import display_path, typed_path
from tui.screens.wizard.base import WizardStep
from tui.services.demo_spec import plays_demo
from tui.widgets.folder_tree import SPEC_SUFFIXES, SpecTree

PREVIEW_LINES = 8
#: Files that are never the spec, however Markdown they are.
NOT_SPECS = frozenset({"readme", "changelog", "license", "contributing", "claude", "agents"})


def spec_candidates(repository: Path) -> list[Path]:
    """Likely specs: Markdown/text files beside the repository and in its top folder.

    Names with ``spec`` come first; READMEs and the like are left out.
    """
    found: list[Path] = []
    for folder in (repository.parent, repository):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        found += [
            path
            for path in entries
            if path.is_file()
            and path.suffix.lower() in SPEC_SUFFIXES
            and path.stem.lower() not in NOT_SPECS
            and not path.name.startswith(".")
        ]
    return sorted(found, key=lambda path: "spec" not in path.name.lower())


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
    """Files beside and inside the repository; the highlighted file fills the path."""

    STEP_TITLE = "Select spec file"
    HELP = "Arrows move, Space opens a folder, Enter continues with the file in the path field."

    def compose_step(self) -> ComposeResult:
        repository = self.state.repository
        assert repository is not None, "the repository step comes first"
        chosen = self.state.spec_file
        if chosen is None:
            candidates = spec_candidates(repository)
            chosen = candidates[0] if candidates else None
        yield Input(
            display_path(chosen) if chosen else "", placeholder="path to the spec", id="path"
        )
        yield Static(preview(chosen) if chosen else "(choose a file)", id="preview", markup=False)
        yield SpecTree(repository.parent, id="tree")

    def on_mount(self) -> None:
        self.query_one("#tree", SpecTree).focus()

    def accept(self) -> str | None:
        text = self.query_one("#path", Input).value
        if not text.strip():
            return "Choose the specification file."
        path = typed_path(text)
        if not path.is_file():
            return f"{display_path(path)} is not a file."
        if path.stat().st_size == 0:
            return f"{display_path(path)} is empty."
        self.state.choose_spec(path, plays_demo=plays_demo(path))
        return None

    @on(Tree.NodeHighlighted, "#tree")
    def entry_highlighted(self, event: Tree.NodeHighlighted[DirEntry]) -> None:
        if event.node.data is not None and event.node.data.path.is_file():
            self.query_one("#path", Input).value = display_path(event.node.data.path)

    @on(Input.Changed, "#path")
    def path_typed(self, event: Input.Changed) -> None:
        path = typed_path(event.value) if event.value.strip() else Path()
        self.query_one("#preview", Static).update(preview(path))
        self.show_error("")
