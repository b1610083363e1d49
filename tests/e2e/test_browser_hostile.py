"""Red team: the model plants files in the browser's output folder and aims the browser
at the host. Through the real CLI, sandboxed, on the web demo.

The coding session writes and runs a script that puts into the server's output folder
(found from inside the sandbox, as the server's own results name it): a link to a host
file named like a screenshot, a FIFO, a file with only the PNG signature, an 9 MB "PNG",
a folder named ``x.png`` and a real PNG whose name carries escape sequences. It then
navigates the browser to a port that listens on the host's loopback, directly (another
origin: Playwright refuses it) and through a redirect served on the app's own origin
(``--allowed-origins`` does not apply to redirects: the sandbox's network namespace
refuses it). The harness must take exactly the real pictures, under its own names,
follow no link, block on no FIFO, and the host's port must see no request.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent.core.browser.screenshots import png_size
from agent.core.trace.trace import trace_path
from agent.frontend.demo import WEB
from common.atomic import read_model
from common.schemas.agent_state import AgentState, Phase
from tests.core.research_stand_ins import StandIn, searxng
from tests.e2e.test_web_demo import browser_installed, run_web_demo

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("browser_installed")]
__all__ = ["browser_installed"]  # the fixture, used by name

PLANT = r"""import glob, os, signal, struct, subprocess, sys, time, zlib

def png(w, h):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + b"\x00\x00\xff" * w for _ in range(h))
    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))

(out,) = glob.glob("/tmp/hsbx-*/browser-output")
os.symlink("/etc/hostname", out + "/a-link.png")
os.mkfifo(out + "/b-fifo.png")
open(out + "/c-signature-only.png", "wb").write(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
open(out + "/d-huge.png", "wb").write(png(2, 2) + b"\x00" * (9 * 1024 * 1024))
os.makedirs(out + "/e-folder.png")
open(out + "/\x1b[31mf-escaped.png", "wb").write(png(3, 2))
print("planted in", out)

# The app's origin is the one the browser may request: put a redirect to the host there.
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if b"app.py\x008123" in open(f"/proc/{pid}/cmdline", "rb").read():
            os.kill(int(pid), signal.SIGTERM)
    except OSError:
        pass
time.sleep(0.5)
open("redirect.py", "w").write('''
from http.server import BaseHTTPRequestHandler, HTTPServer
class R(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(302)
        self.send_header("Location", "HOST_URL")
        self.end_headers()
HTTPServer(("127.0.0.1", 8123), R).serve_forever()
''')
print("redirecting", flush=True)
"""


APP = "http://127.0.0.1:8123/"


def hostile_playbook(path: Path, host_url: str) -> Path:
    """The web demo's playbook whose coding session plants files and aims at the host."""
    book: dict[str, Any] = json.loads((WEB.assets / "playbook.json").read_text())
    (coding,) = [s for s in book["scenarios"] if s["name"].startswith("coding")]
    steps = coding["steps"]
    at = next(i for i, s in enumerate(steps) if "take_screenshot" in json.dumps(s))
    steps[at + 1 : at + 1] = [
        {
            "text": "Leaving a few files for the harness.",
            "tool_uses": [
                {
                    "name": "Write",
                    "input": {
                        "file_path": "{{project_dir}}/plant.py",
                        "content": PLANT.replace("HOST_URL", host_url),
                    },
                }
            ],
        },
        {"tool_uses": [{"name": "Bash", "input": {"command": "python3 plant.py"}}]},
        {"tool_uses": [{"name": "Bash", "input": {"command": "rm plant.py"}}]},
        {
            "tool_uses": [
                {
                    "name": "Bash",
                    "input": {
                        "command": "python3 redirect.py > redirect.log 2>&1",
                        "run_in_background": True,
                    },
                }
            ]
        },
        {"tool_uses": [{"name": "Bash", "input": {"command": "sleep 1"}}]},
        {"tool_uses": [{"name": "mcp__browser__browser_navigate", "input": {"url": host_url}}]},
        {"tool_uses": [{"name": "mcp__browser__browser_navigate", "input": {"url": APP}}]},
    ]
    path.write_text(json.dumps(book))
    return path


def test_planted_files_are_left_and_the_host_is_out_of_the_browsers_reach() -> None:
    host = StandIn(searxng)  # listens on the host's loopback, outside every sandbox
    root = Path(tempfile.mkdtemp(prefix="e2h-", dir="/tmp"))
    try:
        playbook = hostile_playbook(root / "playbook.json", f"{host.url}/search?q=leak")
        files, _ = run_web_demo(root, {}, playbook)
    finally:
        host.close()
    assert read_model(files.state, AgentState).phase is Phase.DONE
    assert host.requests == []  # the browser never reached the host's port
    log = (files.logs / "e2e.log").read_text(errors="replace")
    assert "ERR_BLOCKED_BY_CLIENT" in log  # another origin, refused by the server
    # The app's origin answered with a redirect to the host; following it, the browser met the
    # sandbox's own loopback, where nothing listens on that port (the host's is not there).
    served = (files.root.parents[1] / "redirect.log").read_text()
    assert '"GET / HTTP/1.1" 302' in served
    assert f"ERR_CONNECTION_REFUSED at {APP}" in log

    taken = sorted((files.root / "screenshots").iterdir())
    assert [p.name for p in taken] == ["issue-1-s1-1.png", "issue-1-s1-2.png"]
    sizes = sorted(png_size(p.read_bytes()[:24]) or (0, 0) for p in taken)
    assert sizes == [(3, 2), (1280, 720)]  # the app's screenshot and the planted real PNG
    assert all(not p.is_symlink() and p.stat().st_size < 1024 * 1024 for p in taken)
    for why in (
        "an entry that is a link or cannot be opened",
        "an entry that is not a regular file",
        "a file with the PNG signature but no image size",
        "a screenshot over 8 MB",
    ):
        assert f"browser output of issue #1: left out {why}" in log
    events = [json.loads(line) for line in trace_path(files).read_text().splitlines()]
    shots = [e["path"] for e in events if e.get("type") == "screenshot"]
    assert sorted(Path(p).name for p in shots) == ["issue-1-s1-1.png", "issue-1-s1-2.png"]
    assert "\x1b" not in "".join(shots)
