"""Telling a person away from the screen that a checkpoint waits.

Four channels, each switchable in the settings: the terminal bell, a desktop
notification through the terminal's OSC 9 (iTerm2, WezTerm, kitty, Windows
Terminal) and OSC 777 (VTE terminals, foot, Ghostty) sequences, a tmux status
message when the TUI runs inside tmux, and a command of the person's choosing.
Inside tmux the OSC sequences are wrapped in tmux's passthrough so they reach
the outer terminal. The terminal writes go through ``write`` (the app's driver),
so tests can read exactly what the terminal would get.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from common.harness_path import harness_path
from common.untrusted_text import printable_line

if TYPE_CHECKING:  # pydantic loads after the first paint (see tui.main)
    from common.schemas.tui_settings import NotifySettings

log = logging.getLogger(__name__)

BELL = "\a"
TITLE = "coding-harness"
#: A notification command gets this long before it is left to finish on its own.
COMMAND_TIMEOUT_S = 10.0


def osc_sequences(message: str, *, in_tmux: bool) -> str:
    """OSC 9 and OSC 777 desktop notifications for ``message`` (tmux-wrapped when needed).

    Inside an OSC sequence a control character would end it early and start another:
    ``message`` is escaped (C0, C1 such as ST, bidi and invisible characters shown as
    text), and ``;`` (the field separator) becomes ``,``.
    """
    clean = printable_line(message).replace(";", ",")
    sequences = [f"\x1b]9;{clean}\a", f"\x1b]777;notify;{TITLE};{clean}\a"]
    if in_tmux:
        sequences = [f"\x1bPtmux;{seq.replace(chr(27), chr(27) * 2)}\x1b\\" for seq in sequences]
    return "".join(sequences)


def tmux_literal(text: str) -> str:
    """``text`` as tmux shows it literally (``#`` starts a format, ``#(cmd)`` runs ``cmd``)."""
    return text.replace("#", "##")


class Notifier:
    """Announces waiting checkpoints on every channel the settings switch on."""

    def __init__(
        self,
        settings: NotifySettings | None,
        write: Callable[[str], None],
        environ: Mapping[str, str] | None = None,
    ) -> None:
        """
        Args:
            settings: which channels are on (``None``: the defaults, built when first
                needed, so that no schema is built before the TUI's first paint).
            write: writes raw text to the terminal.
            environ: where ``TMUX`` is looked up (the process environment by default).
        """
        self._settings = settings
        self._write = write
        self._environ = os.environ if environ is None else environ

    @property
    def settings(self) -> NotifySettings:
        """Which channels are on."""
        if self._settings is None:
            from common.schemas.tui_settings import NotifySettings

            self._settings = NotifySettings()
        return self._settings

    @property
    def in_tmux(self) -> bool:
        return bool(self._environ.get("TMUX"))

    def terminal_text(self, message: str) -> str:
        """What goes to the terminal for ``message``: bell and OSC sequences, as switched."""
        text = BELL if self.settings.bell else ""
        if self.settings.osc:
            text += osc_sequences(message, in_tmux=self.in_tmux)
        return text

    async def announce(self, agent: str, checkpoint: str, message: str | None = None) -> None:
        """Tell every channel that ``agent`` waits at ``checkpoint``.

        ``message``: what the channels say instead of ``<agent> waits at <checkpoint>``
        (a reminder says how long it has waited); escaped like the default.
        """
        message = printable_line(message or f"{agent} waits at {checkpoint}")
        text = self.terminal_text(message)
        if text:
            self._write(text)
        tmux = shutil.which("tmux", path=harness_path(os.environ.get("PATH", "")))
        if self.settings.tmux and self.in_tmux and tmux is not None:
            # display-message expands tmux formats: ``#(…)`` would run a command.
            await self._run([tmux, "display-message", f"⚑ {tmux_literal(message)}"], {})
        if self.settings.command:
            extra = {
                "HARNESS_AGENT": agent,
                "HARNESS_CHECKPOINT": checkpoint,
                "HARNESS_MESSAGE": message,
            }
            await self._run(self.settings.command, extra)

    async def _run(self, argv: list[str], extra: dict[str, str]) -> None:
        """Run one notification program; a failure is logged, never shown as a crash."""
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env={**os.environ, **extra},
            )
            _, err = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT_S)
        except (OSError, TimeoutError) as e:
            log.warning("notification command %s failed: %s", argv[0], e)
            return
        if process.returncode:
            log.warning(
                "notification command %s exited %s: %s",
                argv[0],
                process.returncode,
                err.decode(errors="replace").strip()[:200],
            )
