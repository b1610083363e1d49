"""An issue's browser check as recorded: the browser calls its accepted session made.

Replayed before the merge request (:mod:`agent.core.browser.replay`) through the same
server, in a sandbox where the harness serves the app: a call that fails then is a
regression finding. The inputs are the model's (a URL, an element's ref, text typed):
data passed back to the browser, never shown as the harness's words.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from common.schemas.base import StrictModel

MAX_CALLS = 50
"""Calls kept per issue: a check is a few navigations and clicks, not a session's worth."""


class BrowserCall(StrictModel):
    """One call of the browser server's tools."""

    tool: str = Field(min_length=1)
    """The server's own name for it (``browser_navigate``)."""
    input: dict[str, Any] = Field(default_factory=dict)


class BrowserCheck(StrictModel):
    """The browser calls that checked one closed issue."""

    issue: int
    calls: list[BrowserCall] = Field(default_factory=list, max_length=MAX_CALLS)
