"""The page ``harness web`` serves: its font from this server, and the SSH hint's port.

In process (aiohttp's test server, no browser): the page is the template rendered with
the token; no process starts until a websocket opens.
"""

from __future__ import annotations

import re

from aiohttp.test_utils import TestClient, TestServer

from tui.web import TokenServer, WebAddress, ssh_hint, tui_command

TOKEN = "t0ken-web-page"


async def test_the_page_loads_its_font_from_this_server_only() -> None:
    address = WebAddress("127.0.0.1", 0, TOKEN)
    server = TokenServer(tui_command(), address, public_url="http://127.0.0.1:1")
    async with TestClient(TestServer(await server._make_app())) as client:
        page = await client.get(f"/?token={TOKEN}")
        html = await page.text()
        assert page.status == 200
        urls = re.findall(r"""(?:href|src)=["']?([^"' >]+)|url\(["']?([^"')]+)""", html)
        external = [u for pair in urls for u in pair if u and not u.startswith("/static/")]
        external = [u for u in external if u.startswith(("http:", "https:", "//"))]
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
        assert external == [] or all("127.0.0.1:1" in u for u in external), external
        fonts = re.findall(r"""url\(["']?([^"')]+\.ttf)""", html)
        assert fonts, "the page names no font of its own"
        for font in fonts:
            path = font.split("127.0.0.1:1", 1)[-1]
            served = await client.get(path)
            assert served.status == 200
            assert (await served.read())[:4] == b"\x00\x01\x00\x00"  # a TrueType file


def test_the_ssh_hint_names_the_port() -> None:
    hint = ssh_hint(8123)
    assert "ssh -L 8123:localhost:8123 " in hint and "PORT" not in hint
