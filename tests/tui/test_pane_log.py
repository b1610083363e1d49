"""The log pane measures new lines on the UI thread: no worker of it outlives the app.

Textual's ``Log`` measures each batch in a thread worker that reaches for ``self.app``
when done; a batch written just before the TUI exits then failed with
``NoActiveAppError`` (seen in CI under load).
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.widgets.log_view import PaneLog


class _OneLog(App[None]):
    def compose(self) -> ComposeResult:
        yield PaneLog(id="log")


async def test_a_batch_is_measured_at_once_and_starts_no_worker() -> None:
    app = _OneLog()
    async with app.run_test() as pilot:
        log = app.query_one(PaneLog)
        log.write_lines(["short", "x" * 300, "mid" * 10])
        assert log.virtual_size.width == 300  # known before any other task ran
        assert list(app.workers) == []
        app.exit()
        await pilot.pause()
