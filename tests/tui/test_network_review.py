"""project_verification's review in the TUI names what ``.harness.json`` asks of the
sandbox (its MCP servers and hosts), escaped: the repository's text, shown plainly."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import ProjectVerificationCheckpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.mcp_server import McpServer
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog, make_app, wait_until, write_checkpoint
from tui.modals.review.base import ReviewScreen


async def test_the_review_shows_the_servers_and_hosts_the_repository_asks_for(
    workspace: Path,
) -> None:
    checkpoint = samples.project_verification()
    assert isinstance(checkpoint, ProjectVerificationCheckpoint)
    server = McpServer(name="notes", command=["python3", "notes.py", "\x1b[31mred"])
    context = checkpoint.context.model_copy(
        update={"mcp_servers": [server], "sandbox_hosts": ["pypi.org:443"]}
    )
    write_checkpoint(workspace, checkpoint.model_copy(update={"context": context}))
    waiting = agent_info(
        "agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.PROJECT_VERIFICATION
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        shown = "\n".join(str(static.render()) for static in app.screen.query(Static))
    assert ".harness.json asks for:" in shown
    assert "MCP server notes runs `python3 notes.py" in shown
    assert "the sandbox may reach pypi.org:443" in shown
    assert "\x1b" not in shown
