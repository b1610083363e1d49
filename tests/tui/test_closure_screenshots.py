"""The closure dialog lists the browser's screenshots as paths a person can open."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.browser.test_closure_listing import with_screenshots
from tests.tui.helpers import dialog_for, make_app, wait_until, write_checkpoint
from tests.tui.test_checkpoints import waiting_agent


async def test_the_closure_dialog_shows_each_screenshot_path(workspace: Path) -> None:
    shot = workspace / "screenshots" / "issue-1-s1-1.png"
    checkpoint = with_screenshots([str(shot)])
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        text = "\n".join(str(widget.render()) for widget in app.screen.query(Static))
    assert f"Screenshot (browser check): {shot}" in text
