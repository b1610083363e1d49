"""The Textual app: the running view as its base screen, app-wide keys, the command palette.

Kept thin on purpose: what the TUI shows lives in ``screens/``, ``widgets/`` and
``modals/``, and what it does in ``services/``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen, SystemModalScreen

from common.untrusted_text import printable, printable_line
from tui.modals.help import HelpScreen
from tui.screens.running import RunningScreen
from tui.services.link import AgentLink
from tui.services.notify import Notifier
from tui.widgets.news_line import news_line

if TYPE_CHECKING:  # the schemas load after the first paint (see tui.main)
    from common.schemas.tui_settings import TuiSettings
    from tui.screens.wizard import WizardDefaults


class HarnessApp(App[None]):
    """``q`` quits and leaves every agent running: they belong to the daemon."""

    CSS_PATH = "app.tcss"
    TITLE = "coding-harness"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark,f1", "help", "Help"),
    ]

    def __init__(
        self,
        link: AgentLink,
        defaults: WizardDefaults | None = None,
        *,
        settings: TuiSettings | None = None,
        terminal: Callable[[str], None] | None = None,
        wizard_when_empty: bool = True,
        select: str | None = None,
    ) -> None:
        """
        Args:
            link: the daemon (or a test's stand-in).
            defaults: what the setup wizard proposes (``None``: read from the environment
                and the TUI's memory when it opens).
            settings: the person's TUI settings (the defaults when ``None``).
            terminal: where bell and OSC notifications are written (the terminal).
            wizard_when_empty: open the wizard when the daemon has no agents yet.
            select: the agent to select first.
        """
        super().__init__()
        notifier = Notifier(settings.notify if settings else None, terminal or self._write_terminal)
        self._main_screen = RunningScreen(
            link,
            defaults,
            settings=settings,
            notifier=notifier,
            wizard_when_empty=wizard_when_empty,
            select=select,
        )

    def _write_terminal(self, text: str) -> None:
        """Raw text to the terminal (escape sequences Textual has no API for)."""
        if self._driver is not None:
            self._driver.write(text)
            self._driver.flush()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast whose text is never markup and shows every control character escaped.

        Toasts quote agent names, reasons and errors, which may carry the model's words.
        ``markup`` is ignored: widgets pass Textual's default (on) for every toast.
        Over a dialog, review or question the notification is shown in a line above its
        box instead (:mod:`tui.widgets.news_line`): a toast there would hide part of it.
        """
        del markup
        message, title = printable(message), printable_line(title)
        try:
            top = self.screen
        except ScreenStackError:  # nothing shown yet
            top = None
        if isinstance(top, ModalScreen) and not isinstance(top, SystemModalScreen):
            seconds = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
            news_line(top).add(message, title=title, severity=severity, timeout=seconds)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_default_screen(self) -> Screen[None]:
        return self._main_screen

    @property
    def running(self) -> RunningScreen:
        """The running view (always at the bottom of the screen stack)."""
        return self._main_screen

    def action_help(self) -> None:
        """Help on the screen on top (never help on help)."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own commands, plus every described key binding of ``screen`` (also the
        ones the footer has no room for)."""
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.action in ("quit", "app.quit"):  # Textual's own "Quit" is listed
                continue
            if not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            yield SystemCommand(
                binding.tooltip or binding.description,
                f"key: {active.binding.key}",
                partial(self.run_action, binding.action, active.node),
            )
