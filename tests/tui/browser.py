"""A headless Chromium driven over the DevTools protocol, just enough to use the TUI in it.

textual-serve draws the terminal on a canvas, so the page has no text to read;
a script added before the page loads records what the TUI process sends down
the websocket (terminal output), and :meth:`Browser.screen_text` returns it
without escape sequences. Keys go in with ``Input.insertText`` into xterm's
input field, as typing does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

RECORDER = """
(() => {
  window.__screen = "";
  const decoder = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener("message", async (event) => {
      const data = event.data;
      if (typeof data === "string") return;
      const buffer = data instanceof Blob ? await data.arrayBuffer() : data;
      window.__screen += decoder.decode(new Uint8Array(buffer), { stream: true });
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();
"""
ESCAPES = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\"
)
WAIT = 60.0


def find_chromium() -> str | None:
    """Chromium, installed with apt when it is missing and this user may; ``None`` otherwise."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if (found := shutil.which(name)) is not None:
            return found
    if shutil.which("apt-get") is None:
        return None
    done = subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"],
        capture_output=True,
        check=False,
        timeout=900,
    )
    return shutil.which("chromium") if done.returncode == 0 else None


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self._profile = Path(tempfile.mkdtemp(prefix="chr"))
        self._process: asyncio.subprocess.Process | None = None
        self._session: aiohttp.ClientSession | None = None
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)

    async def __aenter__(self) -> Browser:
        self._process = await asyncio.create_subprocess_exec(
            self.executable,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-port=0",
            f"--user-data-dir={self._profile}",
            "--window-size=1400,900",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        assert self._process.stderr is not None
        port = await asyncio.wait_for(self._devtools_port(self._process.stderr), WAIT)
        self._session = aiohttp.ClientSession()
        async with self._session.get(f"http://127.0.0.1:{port}/json/list") as reply:
            targets = await reply.json()
        page = next(t for t in targets if t["type"] == "page")
        self._socket = await self._session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Page.enable")
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=RECORDER)
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._session is not None:
            await self._session.close()
        if self._process is not None and self._process.returncode is None:
            self._process.terminate()
            await self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    @staticmethod
    async def _devtools_port(stderr: asyncio.StreamReader) -> int:
        while line := await stderr.readline():
            found = re.search(rb"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                return int(found.group(1))
        raise AssertionError("chromium ended without opening its DevTools port")

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command and its result (events in between are skipped)."""
        assert self._socket is not None
        number = next(self._ids)
        await self._socket.send_str(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads((await self._socket.receive()).data)
            if message.get("id") == number:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    async def open(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def evaluate(self, expression: str) -> Any:
        found = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return found.get("result", {}).get("value")

    async def screen_text(self) -> str:
        """Everything the TUI has drawn so far, as text."""
        raw = await self.evaluate("window.__screen || ''")
        return ESCAPES.sub("", raw or "")

    async def type(self, text: str) -> None:
        """Type ``text`` into the terminal."""
        await self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        await self.call("Input.insertText", text=text)

    async def wait_for_text(self, text: str, what: str, *, after: int = 0) -> int:
        """Wait until ``text`` was drawn (after offset ``after``); the offset past it."""
        for _ in range(int(WAIT / 0.2)):
            screen = await self.screen_text()
            found = screen.find(text, after)
            if found >= 0:
                return found + len(text)
            await asyncio.sleep(0.2)
        tail = (await self.screen_text())[-2000:]
        raise AssertionError(f"timed out waiting for {what}; the page drew, last:\n{tail}")
