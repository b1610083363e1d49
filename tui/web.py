"""``harness web``: the TUI in a browser through textual-serve, behind a token in the URL.

Each browser tab gets its own TUI process (textual-serve runs ``python -m
tui.main`` per connection); all of them talk to the same daemon, so a
checkpoint can be answered from another device over an SSH tunnel. The server
listens on localhost unless told otherwise, and every request needs the random
token: in the URL the first time, then in a cookie (so the page's websocket and
a reload carry it). Static files (scripts, fonts) are public: they hold no data.

It runs as its own program, ``python -m tui.web``: ``harness web`` execs it, so the
CLI never imports the TUI, textual-serve or aiohttp.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import re
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.typedefs import Middleware
from textual_serve.server import Server

from common import web_link
from common.errors import HarnessError
from common.secrets import hide_secrets_from_proc
from common.untrusted_text import error_line

COOKIE = "harness_web_token"
DEFAULT_PORT = 8765

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebError(HarnessError):
    """The web server cannot start (the port is taken, say)."""


@dataclass(frozen=True)
class WebAddress:
    """Where the TUI is served, and the URL to open (with its token)."""

    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/?token={self.token}"


def token_middleware(token: str) -> Middleware:
    """Refuse every request without ``token`` (query or cookie), except static files."""

    @web.middleware
    async def require_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith("/static/"):
            return await handler(request)
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise web.HTTPForbidden(text="coding-harness: open the URL with its token\n")
        response = await handler(request)
        if request.path == "/" and not response.prepared:
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
        return response

    return require_token


FONT_SERVICE_LINK = re.compile(r"<link[^>]*?href=\"https?://[^\"]*fonts[^\"]*\"[^>]*>", re.S)
"""textual-serve's page template loads Roboto Mono from a public font service."""
LOCAL_FONT = """<style>
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf");
        font-style: normal;
      }
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf");
        font-style: italic;
      }
    </style>"""
"""The same font from the files textual-serve ships in its own ``static/fonts``."""


class LocalFontLoader(jinja2.FileSystemLoader):
    """textual-serve's templates with the font served by this server.

    Why: an offline or private machine cannot reach the public font service, and each
    opening of the cockpit would tell that third party. The template is patched as it
    is loaded (not copied), so an upgraded textual-serve keeps its own page.
    """

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return FONT_SERVICE_LINK.sub(LOCAL_FONT, source), filename, uptodate


class TokenServer(Server):
    """textual-serve's server with the token check in front of every route."""

    def __init__(self, command: str, address: WebAddress, public_url: str | None) -> None:
        super().__init__(
            command,
            host=address.host,
            port=address.port,
            title="coding-harness",
            public_url=public_url,
        )
        self.token = address.token

    async def _make_app(self) -> web.Application:  # textual-serve's one place to add routes
        app = await super()._make_app()
        aiohttp_jinja2.setup(app, loader=LocalFontLoader(self.templates_path))
        app.middlewares.append(token_middleware(self.token))
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Quiet: the URL is printed by :func:`serve` (textual-serve prints a logo)."""


def ssh_hint(port: int) -> str:
    """The tunnel command for another machine, with the port this server listens on."""
    return f"(over SSH: ssh -L {port}:localhost:{port} this-host, then open the URL; Ctrl+C stops)"


def tui_command() -> str:
    """The command textual-serve runs per browser tab: this interpreter's TUI."""
    return f"{shlex.quote(sys.executable)} -m tui.main"


async def serve(host: str, port: int, *, public_url: str | None = None) -> None:
    """Serve the TUI until cancelled; print the URL to open once listening.

    Raises:
        WebError: the address cannot be bound.
    """
    address = WebAddress(host, port, secrets.token_urlsafe(24))
    server = TokenServer(tui_command(), address, public_url)
    runner = web.AppRunner(await server._make_app())
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as e:
            raise WebError(f"cannot listen on {host}:{port}: {e.strerror or e}") from e
        if port == 0:  # the system chose the port: the page's own URLs must name it
            bound = runner.addresses[0][1]
            address = WebAddress(host, bound, address.token)
            if public_url is None:
                server.public_url = f"http://{host}:{bound}"
        print(f"coding-harness in a browser: {address.url}", flush=True)
        if host not in ("localhost", "127.0.0.1", "::1"):
            print("warning: reachable from other machines; anyone with the URL can answer")
        print(ssh_hint(address.port))
        # For the agents' webhook messages: the page, never its token.
        recorded = web_link.record(public_url or f"http://{host}:{address.port}/")
        try:
            await asyncio.Event().wait()
        finally:
            web_link.forget(recorded)
    finally:
        await runner.cleanup()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tui.web",
        description="Serve the TUI to a browser (behind a random token in the URL); "
        "`harness web` starts this.",
    )
    parser.add_argument("--host", default="localhost", help="address to listen on (localhost)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on ({DEFAULT_PORT})"
    )
    parser.add_argument(
        "--public-url", help="the URL browsers use, when it differs (a proxy, a tunnel's port)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tui.web``: serve until Ctrl+C; a bad address is one line and status 1."""
    try:
        if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
            argv = hide_secrets_from_proc(sys.argv)[1:]
    except HarnessError as e:
        print(error_line(e), file=sys.stderr)
        return 1
    args = build_parser().parse_args(argv)
    try:
        asyncio.run(serve(args.host, args.port, public_url=args.public_url))
    except HarnessError as e:
        print(error_line(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
