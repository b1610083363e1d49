"""The setup wizard of the seed's TUI workflow: repository, spec, branch, options, advanced.

The steps (their widgets, and the check whether a spec is the demo's) are imported when
the wizard first opens, not when the TUI starts: most starts never open it, and each
start paints its first screen that much sooner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.screens.wizard.state import WizardDefaults

if TYPE_CHECKING:
    from textual.app import App

    from tui.screens.wizard.base import WizardStep
    from tui.screens.wizard.flow import Finished, StartAgent, Wizard

__all__ = ["WizardDefaults", "open_wizard", "steps"]


def steps() -> list[type[WizardStep]]:
    """The wizard's steps in order."""
    from tui.screens.wizard.branch import BranchStep
    from tui.screens.wizard.options import AdvancedStep, OptionsStep
    from tui.screens.wizard.repo import RepoStep
    from tui.screens.wizard.spec import SpecStep

    return [RepoStep, SpecStep, BranchStep, OptionsStep, AdvancedStep]


def open_wizard(
    app: App[Any], defaults: WizardDefaults, start: StartAgent, finished: Finished
) -> Wizard:
    """Show the first step; ``finished`` gets the started agent, or ``None`` if cancelled."""
    from tui.screens.wizard.flow import Wizard

    wizard = Wizard(app, steps(), defaults, start, finished)
    wizard.begin()
    return wizard
