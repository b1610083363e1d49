"""The setup wizard of the seed's TUI workflow: repository, spec, branch, options, advanced."""

from __future__ import annotations

from typing import Any

from textual.app import App

from tui.screens.wizard.base import WizardStep
from tui.screens.wizard.branch import BranchStep
from tui.screens.wizard.flow import Finished, StartAgent, Wizard
from tui.screens.wizard.options import AdvancedStep, OptionsStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.screens.wizard.state import WizardDefaults

STEPS: list[type[WizardStep]] = [RepoStep, SpecStep, BranchStep, OptionsStep, AdvancedStep]

__all__ = ["STEPS", "Wizard", "WizardDefaults", "open_wizard"]


def open_wizard(
    app: App[Any], defaults: WizardDefaults, start: StartAgent, finished: Finished
) -> Wizard:
    """Show the first step; ``finished`` gets the started agent, or ``None`` if cancelled."""
    wizard = Wizard(app, list(STEPS), defaults, start, finished)
    wizard.begin()
    return wizard
