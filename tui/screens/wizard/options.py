"""Steps 4 and 5: the agent options, then the advanced options and the start."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.suggester import SuggestFromList
from textual.widgets import Input, Static

from agent.frontend.demo_spec import ONLY_THE_DEMO
from common.errors import HarnessError
from common.schemas.spec import LOCAL_MODEL
from common.untrusted_text import printable_line
from tui.labels import display_path
from tui.screens.wizard.base import WizardStep
from tui.services.git_status import dirty_note
from tui.widgets.text_checkbox import TextCheckbox as Checkbox

#: The agent options: (field of the wizard state and of AgentSpec, label, what it does).
AGENT_OPTIONS = (
    ("file_only_mode", "File-only mode", "track issues in local JSON files instead of GitLab"),
    ("skip_mr_creation", "Skip MR creation", "stop on the feature branch after coding"),
    ("skip_puppeteer", "Skip browser checks", "no Playwright checks of a web UI"),
    ("skip_test_suite", "Skip test suite", "do not run the project's tests as a gate"),
    ("skip_regression", "Skip regression testing", "no before/after test comparison per issue"),
)

#: Claude models offered as completions; the embedded model is added for the demo's spec only.
MODEL_SUGGESTIONS = ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"]


class OptionsStep(WizardStep):
    """Five switches; Space toggles the focused one."""

    STEP_TITLE = "Agent options"
    HELP = "Up and down (or Tab) move, Space toggles, Enter continues."
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "app.focus_next", "Next option", show=False),
        Binding("up", "app.focus_previous", "Previous option", show=False),
    ]

    def compose_step(self) -> ComposeResult:
        for field, label, help_text in AGENT_OPTIONS:
            yield Checkbox(f"{label} — {help_text}", bool(getattr(self.state, field)), id=field)

    def on_mount(self) -> None:
        self.query_one(Checkbox).focus()

    def accept(self) -> str | None:
        for field, _, _ in AGENT_OPTIONS:
            setattr(self.state, field, self.query_one(f"#{field}", Checkbox).value)
        return None


class AdvancedStep(WizardStep):
    """Iterations, model and auto-accept, a summary, and Enter starts the agent."""

    STEP_TITLE = "Advanced options"
    HELP = "Enter starts the agent through the daemon; Esc goes back."

    def compose_step(self) -> ComposeResult:
        state = self.state
        yield Static("Max iterations (coding sessions; empty: until every issue is closed)")
        iterations = "" if state.max_iterations is None else str(state.max_iterations)
        yield Input(iterations, placeholder="no limit", type="integer", id="max-iterations")
        if state.plays_demo:
            yield Static(f"Model ({LOCAL_MODEL}: the embedded model; empty: CLAUDE_MODEL)")
        else:
            yield Static("Model (a Claude model; empty: CLAUDE_MODEL or the SDK's default)")
        models = [LOCAL_MODEL, *MODEL_SUGGESTIONS] if state.plays_demo else MODEL_SUGGESTIONS
        yield Input(
            state.model or "",
            placeholder="CLAUDE_MODEL",
            suggester=SuggestFromList(models),
            id="model",
        )
        yield Checkbox(
            "Auto-accept — answer every checkpoint with its default",
            state.auto_accept,
            id="auto-accept",
        )
        yield Static(self._summary(), id="summary", markup=False)

    def on_mount(self) -> None:
        self.query_one("#max-iterations", Input).focus()

    def accept(self) -> str | None:
        text = self.query_one("#max-iterations", Input).value.strip()
        if text:
            if not text.isdigit() or int(text) < 1:
                return "Max iterations is a whole number of at least 1, or empty for no limit."
            self.state.max_iterations = int(text)
        else:
            self.state.max_iterations = None
        model = self.query_one("#model", Input).value.strip()
        if model == LOCAL_MODEL and not self.state.plays_demo:
            return f"{ONLY_THE_DEMO}."
        self.state.model = model
        self.state.auto_accept = self.query_one("#auto-accept", Checkbox).value
        return None

    def action_next(self) -> None:
        problem = self.accept()
        if problem:
            self.show_error(problem)
            return
        self.show_error("starting the agent…")
        self._start()

    @work(exclusive=True, group="wizard-start")
    async def _start(self) -> None:
        try:
            await self.wizard.start()
        except HarnessError as e:
            self.show_error(f"The daemon did not start the agent: {e}")

    def _summary(self) -> str:
        state = self.state
        chosen = [label for field, label, _ in AGENT_OPTIONS if getattr(state, field)]
        repository = display_path(state.repository) if state.repository else "-"
        spec = state.spec_file.name if state.spec_file else "-"
        summary = (
            f"Repository: {repository}\nSpec:       {spec}\n"
            f"Branch:     {state.target_branch}\nOptions:    {', '.join(chosen) or 'none'}"
        )
        note = dirty_note(state.uncommitted)
        return f"{summary}\n⚠ {printable_line(note)}" if note else summary
