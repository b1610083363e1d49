"""Screenshots are listed at issue_closure (``harness checkpoint``) and in ``harness trace``."""

from __future__ import annotations

from agent.control.trace_view import render
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.schemas.trace import ScreenshotTaken
from common.workspace.kinds import kind_of
from tests.tui import samples

SHOT = "/p/.claude-agent/ws/screenshots/issue-1-s1-1.png"


def with_screenshots(paths: list[str]) -> IssueClosureCheckpoint:
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    context = base.context.model_copy(update={"screenshots": paths})
    return base.model_copy(update={"context": context})


def test_each_screenshot_is_one_line_of_the_closure() -> None:
    checkpoint = with_screenshots([SHOT, SHOT.replace("-1.png", "-2.png")])
    lines = kind_of(checkpoint).context_lines(checkpoint)
    shown = [line for line in lines if line.startswith("Screenshot (browser check): ")]
    assert shown == [
        f"Screenshot (browser check): {SHOT}",
        f"Screenshot (browser check): {SHOT.replace('-1.png', '-2.png')}",
    ]


def test_a_closure_without_a_browser_lists_none() -> None:
    checkpoint = with_screenshots([])
    assert not any("Screenshot" in line for line in kind_of(checkpoint).context_lines(checkpoint))


def test_the_trace_shows_the_screenshot_and_its_size() -> None:
    line = render([ScreenshotTaken(issue=1, path=SHOT, width=1280, height=720)]).splitlines()[0]
    assert line.endswith(f"screenshot of issue #1 (1280x720): {SHOT}")
