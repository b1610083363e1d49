"""The running view: agent list, log view, keys, command palette, quitting."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Log

from common.schemas.agent_state import Phase
from common.schemas.daemon_state import AgentStatus
from tests.tui.fakes import agent_info
from tests.tui.helpers import last_log_line, log_lines, make_app, status_text, wait_until
from tui.modals.confirm import ConfirmScreen
from tui.services.link import Connection
from tui.widgets.agent_list import AgentList
from tui.widgets.log_view import MAX_LINES, LogView


async def test_a_toggles_auto_accept_and_the_status_bar_follows(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "HITL" in status_text(app), "HITL in the status bar")
        await pilot.press("a")
        await wait_until(pilot, lambda: "AUTO" in status_text(app), "AUTO in the status bar")
        await pilot.press("a")
        await wait_until(pilot, lambda: "HITL" in status_text(app), "HITL again")
    assert link.calls == [
        ("auto_accept", "agent_1=default=approve"),
        ("auto_accept", "agent_1=default=ask"),
    ]


async def test_s_stops_the_selected_agent(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("s")
        await wait_until(pilot, lambda: ("stop", "agent_1") in link.calls, "the stop command")
        await wait_until(
            pilot,
            lambda: app.running.agents["agent_1"].status is AgentStatus.STOPPED,
            "the stopped status",
        )


async def test_removing_asks_first(workspace: Path) -> None:
    done = agent_info("agent_1", workspace, status=AgentStatus.DONE, phase=Phase.DONE)
    app, link = make_app([done])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is app.running, "the question to close")
        assert link.calls == []
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: "agent_1" not in app.running.agents, "the removal")
    assert link.calls == [("remove", "agent_1")]


async def test_removing_a_running_agent_stops_it_first(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("delete")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: ("remove", "agent_1") in link.calls, "the removal")
    assert link.calls == [("stop", "agent_1"), ("remove", "agent_1")]


async def test_q_quits_and_leaves_the_agents_running(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, "the app to exit")
    assert link.calls == []


async def test_the_log_view_follows_appended_lines(workspace: Path) -> None:
    info = agent_info("agent_1", workspace)
    info.log_file.write_text("first\n")
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: log_lines(app) == ["first"], "the existing line")
        with info.log_file.open("a") as log:
            log.write("second\nthird, still being writ")
        await wait_until(pilot, lambda: log_lines(app)[-1] == "second", "the appended line")
        with info.log_file.open("a") as log:
            log.write("ten\n")
        await wait_until(
            pilot, lambda: log_lines(app)[-1] == "third, still being written", "the end"
        )
        view = app.running.query_one("#log", Log)
        assert view.scroll_y == view.max_scroll_y  # following the end


async def test_scrolling_up_keeps_the_place_while_lines_arrive(workspace: Path) -> None:
    info = agent_info("agent_1", workspace)
    info.log_file.write_text("".join(f"line {n}\n" for n in range(200)))
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: len(log_lines(app)) == 200, "the existing lines")
        view = app.running.query_one("#log", Log)
        await wait_until(pilot, lambda: view.scroll_y == view.max_scroll_y > 0, "the end")
        view.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        assert not app.running.query_one(LogView).following
        with info.log_file.open("a") as log:
            log.write("".join(f"more {n}\n" for n in range(50)))
        await wait_until(pilot, lambda: len(log_lines(app)) == 250, "the new lines")
        assert view.scroll_y == 10


async def test_a_large_log_opens_at_its_end_with_bounded_memory(workspace: Path) -> None:
    info = agent_info("agent_1", workspace)
    with info.log_file.open("w") as log:
        for block in range(200):  # 200 × 1000 lines, about 8 MiB
            log.write("".join(f"{block:03d} {n:04d} {'x' * 30}\n" for n in range(1000)))
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: bool(log_lines(app)), "the log")
        lines = log_lines(app)
        assert lines[0].startswith("… ") and "not shown" in lines[0]
        assert lines[-1].startswith("199 0999 ")
        assert len(lines) <= MAX_LINES


async def test_selecting_another_agent_follows_its_log(scratch: Path) -> None:
    agents = []
    for number in (1, 2):
        workspace = scratch / f"p{number}" / ".claude-agent" / "ws"
        (workspace / "logs").mkdir(parents=True)
        info = agent_info(f"agent_{number}", workspace)
        info.log_file.write_text(f"log of agent {number}\n")
        agents.append(info)
    app, _ = make_app(agents)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: log_lines(app) == ["log of agent 1"], "agent 1's log")
        app.running.query_one(AgentList).focus()
        await pilot.press("down")
        await wait_until(pilot, lambda: log_lines(app) == ["log of agent 2"], "agent 2's log")
        assert app.running.query_one(LogView).path == agents[1].log_file


async def test_agents_appear_change_and_disappear_with_daemon_events(workspace: Path) -> None:
    first = agent_info("agent_1", workspace)
    app, link = make_app([first])
    async with app.run_test(size=(120, 36)) as pilot:
        table = app.running.query_one(AgentList)
        await wait_until(pilot, lambda: table.row_count == 1, "one row")
        link.push(first.model_copy(update={"phase": Phase.MR_REVIEW}))
        await wait_until(
            pilot, lambda: str(table.get_cell("agent_1", "phase")) == "mr review", "the phase"
        )
        link.push(agent_info("agent_2", workspace, status=AgentStatus.FAILED))
        await wait_until(pilot, lambda: table.row_count == 2, "two rows")
        assert str(table.get_cell("agent_2", "status")) == "failed"
        link.push(first, removed=True)
        await wait_until(pilot, lambda: table.row_count == 1, "one row again")


async def test_a_lost_daemon_is_reported(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "daemon pid 4242" in status_text(app), "the link")
        link.report(Connection(False, "lost the daemon: gone"))
        await wait_until(pilot, lambda: "lost the daemon" in status_text(app), "the loss")


async def test_every_footer_action_is_in_the_command_palette(workspace: Path) -> None:
    app, _ = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        titles = {command.title for command in app.get_system_commands(app.screen)}
    assert {"Checkpoint", "Auto-accept", "Stop", "Remove", "New agent", "Quit"} <= titles


async def test_a_line_wider_than_the_view_does_not_stop_the_following(workspace: Path) -> None:
    info = agent_info("agent_1", workspace)
    info.log_file.write_text("".join(f"line {n}\n" for n in range(100)))
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: len(log_lines(app)) == 100, "the existing lines")
        with info.log_file.open("a") as log:
            log.write("wide " + "x" * 400 + "\n")  # a horizontal scrollbar appears
        await wait_until(pilot, lambda: len(log_lines(app)) == 101, "the wide line")
        with info.log_file.open("a") as log:
            log.write("after the wide line\n")
        await wait_until(pilot, lambda: len(log_lines(app)) == 102, "the next line")
        view = app.running.query_one("#log", Log)
        await wait_until(pilot, lambda: view.scroll_y == view.max_scroll_y, "the end")
        assert app.running.query_one(LogView).following


async def test_when_the_link_gives_up_ctrl_r_subscribes_again(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "daemon pid 4242" in status_text(app), "the link")
        link.give_up("cannot start the daemon: no")
        await wait_until(pilot, lambda: "ctrl+r reconnects" in status_text(app), "the hint")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "daemon pid 4242" in status_text(app), "the link again")
        assert app.running.selected is not None


async def test_the_view_follows_when_the_log_first_outgrows_it(workspace: Path) -> None:
    info = agent_info("agent_1", workspace)
    info.log_file.write_text("start\n")
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.running.query_one("#log", Log)
        await wait_until(pilot, lambda: log_lines(app) == ["start"], "the first line")
        for number in range(40):  # one by one past the height of the view
            with info.log_file.open("a") as log:
                log.write(f"line {number}\n")
            await wait_until(pilot, last_log_line(app, f"line {number}"), f"line {number}")
        await wait_until(pilot, lambda: view.scroll_y == view.max_scroll_y > 0, "the end")


async def test_long_lines_wrap_and_w_toggles_it_and_the_log_file_is_untouched(
    workspace: Path,
) -> None:
    info = agent_info("agent_1", workspace)
    raw = "09:00:00 [assistant] " + "word " * 80 + "\n"
    info.log_file.write_text(raw + "09:00:01 phase → coding\n")
    app, _ = make_app([info])
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.running.query_one("#log", Log)
        await wait_until(pilot, lambda: len(log_lines(app)) == 2, "the lines")
        await wait_until(pilot, lambda: view.line_count > 2, "the wrapped rows")
        assert all(len(row) <= view.scrollable_content_region.width for row in view.lines)
        assert log_lines(app)[1] == "09:00:01 ➜ phase coding"
        await pilot.press("w")
        await wait_until(pilot, lambda: view.line_count == 2, "one row per line")
        await pilot.press("w")
        await wait_until(pilot, lambda: view.line_count > 2, "wrapped again")
    assert info.log_file.read_text() == raw + "09:00:01 phase → coding\n"
