"""Step 3: the branch the feature branch starts from and the merge request targets."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from common.errors import GitError
from common.workspace import git
from tui.screens.wizard.base import WizardStep

#: Usual names of the main line, in order of preference.
MAIN_LINES = ("main", "master", "trunk", "develop")


def default_branch(branches: list[str], current: str | None) -> str | None:
    """``main`` (or another usual main line) when it exists, else the checked-out branch."""
    for name in MAIN_LINES:
        if name in branches:
            return name
    if current in branches:
        return current
    return branches[0] if branches else None


class BranchStep(WizardStep):
    """The repository's local branches, the main line highlighted."""

    STEP_TITLE = "Select target branch"
    HELP = "Arrows move, Enter continues with the highlighted branch."

    def compose_step(self) -> ComposeResult:
        repository = self.state.repository
        assert repository is not None, "the repository step comes first"
        try:
            self._branches = git.branches(repository)
            current: str | None = git.current_branch(repository)
        except GitError as e:
            self._branches, current = [], None
            yield Static(str(e), markup=False)
        yield Static(f"Checked out: {current or '-'}", id="current", markup=False)
        yield OptionList(
            *(Option(name, id=name) for name in self._branches), id="branches", markup=False
        )
        self._default = self.state.target_branch or default_branch(self._branches, current)

    def on_mount(self) -> None:
        branches = self.query_one("#branches", OptionList)
        if self._default is not None:
            branches.highlighted = branches.get_option_index(self._default)
        branches.focus()

    def accept(self) -> str | None:
        option = self.query_one("#branches", OptionList).highlighted_option
        if option is None or option.id is None:
            return "This repository has no branch yet: commit once, then start the wizard again."
        self.state.target_branch = option.id
        return None
