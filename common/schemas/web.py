"""The spec's ``web`` section: the project has a web UI, served this way, at this URL.

Why a section the person writes, not a guess from the files: a browser is a large
program the sessions run, and whether a project gets one is the harness's decision,
taken from the person's spec, never from files the model may have written (an
``index.html`` it added). A spec without ``web`` never starts a browser;
``skip_puppeteer: true`` turns it off even with one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import Field, field_validator

from common.schemas.base import StrictModel

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})
"""The only hosts the app may be served on: the sandbox's own loopback."""


class WebSettings(StrictModel):
    """How the project's web UI is served inside the sandbox, and where the browser finds it."""

    serve: str = Field(min_length=1)
    """The shell command that serves the app on the sandbox's loopback, in the project
    (e.g. ``python3 -m http.server 8000 --bind 127.0.0.1``): the coding prompt names it,
    and the regression replay runs it sandboxed, like the test gates."""
    url: str
    """The app's address as the browser opens it: ``http://127.0.0.1:PORT/...`` or
    ``http://localhost:PORT/...``; the browser is told to request only this origin."""

    @field_validator("url")
    @classmethod
    def _loopback_http(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or parts.hostname not in LOOPBACK_HOSTS:
            raise ValueError(
                f"web.url {value!r} must be http(s) on 127.0.0.1 or localhost: the browser "
                "runs in the sandbox and reaches only what the session serves there"
            )
        try:
            port = parts.port
        except ValueError as e:
            raise ValueError(f"web.url {value!r}: {e}") from None
        if port is None:
            raise ValueError(f"web.url {value!r} must name its port")
        return value

    @property
    def origin(self) -> str:
        """``scheme://host:port`` of :attr:`url`: the one origin the browser may request."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"
