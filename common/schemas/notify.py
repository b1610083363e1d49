"""How long a checkpoint waits for a person, and where a waiting one is announced.

``checkpoint_timeout`` and ``notify`` in the spec (``notify`` also in the repository's
``.harness.json``, pinned at project_verification). Apart from the spec so that the
rules for a webhook's URL are one piece, checked where the spec is read.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from common.schemas.base import StrictModel

#: ``env:NAME``: the URL is the agent's environment variable ``NAME`` at its start.
ENV_PREFIX = "env:"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CheckpointTimeout(StrictModel):
    """What happens to a checkpoint nobody answers."""

    minutes: float = Field(gt=0, allow_inf_nan=False)
    """After this long (fractions allowed) the checkpoint is decided or the agent stops."""
    then: Literal["default", "stop"]
    """``default``: decided with its default, as by the timeout (a checkpoint that always
    asks a person stops instead); ``stop``: the agent stops, ``harness resume`` asks again."""
    remind_every_minutes: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """Announce the waiting checkpoint again this often (``None``: no reminder)."""


def webhook_problem(url: str) -> str | None:
    """Why ``url`` cannot be a webhook (one line); ``None`` when it can.

    Only http and https with a host: a ``file:`` or ``ftp:`` URL given to urllib would
    read or reach something else than a web receiver.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        shown = parts.scheme or "no scheme"
        return f"the webhook must be an http or https URL, not {shown}"
    if not parts.hostname:
        return "the webhook URL has no host"
    return None


class NotifyTargets(StrictModel):
    """Channels beyond the agent's log (and the TUI's notifications built on it)."""

    webhook: str | None = None
    """An http(s) URL that gets a JSON POST per event, or ``env:NAME`` (the URL is the
    agent's environment variable ``NAME``, so it stays out of the repository)."""

    @field_validator("webhook")
    @classmethod
    def _http_or_env(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith(ENV_PREFIX):
            if not _ENV_NAME.fullmatch(value.removeprefix(ENV_PREFIX)):
                raise ValueError(f"{value!r} does not name an environment variable")
            return value
        problem = webhook_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value
